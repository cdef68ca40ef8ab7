"""Touch-down on contact, not on the clock.

A swing is planned to land at its footstep at a planned time. On real ground the sole meets
the surface early (the ground is higher than planned, or the foot lags its path) or late
(lower, or the foot is ahead). A controller that switches on the clock keeps pressing a sole
that already stands — its swing task pulling it into the ground, a force nothing bounds — or
puts weight on a foot still in the air. With measured contact wrenches (the control loop's
``wrenches``) a walk switches on contact instead (:class:`Touchdown`):

* **contact** is the measured force along the landing surface's normal ``n`` (the
  footstep's), ``f · n``, reaching ``force`` N (default :data:`TOUCHDOWN_WEIGHT_SHARE` of the
  robot's weight): the sole then carries load, and the swing task's push on it is bounded by
  that force (it is removed at once and the contact made, with its force ramp);
* **early**: contact from the swing's apex on (after it, the foot only comes down) lands the
  foot there and then; the plan's timeline goes on (the sole helps the support polygon
  sooner);
* **late**: no contact at the planned touch-down: the plan's clock waits (its CoM
  reference, contact events and the rest of the walk are held back) while the swing target
  goes on down along ``−n`` at ``speed`` m/s, until contact, or until it is ``reach`` m below
  the footstep (then the foot is put down where it is, on the clock).

Without measured wrenches a walk lands on the clock, as planned.

Units: N, m, s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import positive_scalar

#: Share of the robot's weight along the surface normal that counts as contact.
TOUCHDOWN_WEIGHT_SHARE = 0.05


@dataclass
class Touchdown:
    """Touch-down detection (see the module): ``force`` N of normal force is contact; a late
    foot is lowered at ``speed`` m/s for at most ``reach`` m."""

    force: float
    speed: float = 0.2
    reach: float = 0.05

    def __post_init__(self):
        self.force = positive_scalar(self.force, "force")
        self.speed = positive_scalar(self.speed, "speed")
        self.reach = positive_scalar(self.reach, "reach", allow_zero=True)

    @classmethod
    def for_robot(cls, robot, gait, **options) -> Touchdown:
        """:data:`TOUCHDOWN_WEIGHT_SHARE` of ``robot``'s weight; a late foot lowered at most
        the gait's step height, at that height per half single support."""
        defaults = {"force": TOUCHDOWN_WEIGHT_SHARE * robot.weight,
                    "reach": max(gait.step_height, 0.02),
                    "speed": max(gait.step_height, 0.02) / (0.5 * gait.single_support)}
        return cls(**{**defaults, **options})

    def touched(self, wrench, normal) -> bool:
        """Whether the measured ``wrench`` (6,) ``[f; m]`` world-aligned presses along the
        surface's unit ``normal`` (3,) with at least :attr:`force`."""
        return float(wrench[0] * normal[0] + wrench[1] * normal[1] + wrench[2] * normal[2]) >= self.force

    def lowered(self, placement, normal, waited: float):
        """The swing target ``waited`` s after a late touch-down: ``placement`` (pin.SE3)
        moved down along ``normal`` at :attr:`speed`, at most :attr:`reach`; returns
        ``(placement, velocity (6,), done)``, ``done`` once the reach is used up."""
        depth = min(self.speed * waited, self.reach)
        target = placement.copy()
        target.translation = placement.translation - depth * np.asarray(normal, dtype=float)
        moving = depth < self.reach
        velocity = np.zeros(6)
        if moving:
            velocity[:3] = -self.speed * np.asarray(normal, dtype=float)
        return target, velocity, not moving
