"""Step recovery: when a push carries the capture point out of the support polygon, choose a
step — which foot, where, when — that brings it back inside.

**When.** Standing, the centre of pressure ``p`` can be anywhere in the soles' hull, and the
capture point obeys ``ξ̇ = ω (ξ − p)`` (:mod:`tsid_py.control.capture_point`). While ``ξ`` is
inside the hull, a ``p`` beyond it brings it back; once ``ξ`` is outside by more than
``trigger_margin``, no ``p`` can (the angular momentum the hip strategy borrows aside), and
the robot must step. The check runs every control step, on the measured ``ξ``.

**Which foot and where.** Stepping with a foot means first moving all the load onto the other
one (``transition`` s of force ramp), then swinging (``swing_time`` s). Meanwhile the centre of
pressure is at best the point ``p_s`` of the stance sole nearest ``ξ``, and the capture point
runs on to

    ξ_L = p_s + (ξ − p_s) e^{ω T},        T = transition + swing_time

(the time left, once the swing is under way). The foot lands ``overshoot`` m past ``ξ_L``
along ``ξ_L − p_s``, so that ``ξ_L`` falls inside the new sole and the new hull can stop it,
within the leg's reach measured in the stance sole's frame: ``forward``/``backward`` along
it, the lateral distance between the two feet's centres in ``[min_width, max_width]`` and on
the swing foot's own side (the feet never cross). The swing foot is the one on the side the
capture point has moved to (across the feet's heading, past ``lateral_deadband``): only it
can land beyond ``ξ_L`` — the other would have to cross. A capture point straight ahead or
behind takes the foot whose landing leaves ``ξ_L`` deepest inside the hull of the stance
and landing soles.

**Retargeting.** The push may go on after the decision, and the model is the linear inverted
pendulum: :meth:`StepRecovery.aim` is called again during the swing on the measured
``ξ`` (with the time left), and the swing foot's trajectory is re-planned to the new point
until ``retarget_until`` of the swing has passed (:meth:`.swing.SwingTrajectory.retarget`).

**Then.** Once the step has landed (and its force ramp is over), the trailing foot comes
beside it (:meth:`StepRecovery.closing_step`, a step of the same timing, not retargeted) and
the robot stands over the middle of its feet; a capture point still outside the support after
that starts another recovery step.

Units: m, s, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validation import positive_scalar
from ..capture_point import SupportPolygon, sole_outline
from .angles import mean_yaw
from .footsteps import Footstep, within_reach


@dataclass(frozen=True)
class RecoveryStep:
    """A chosen step: ``footstep`` (where the swing foot lands), the ``stance`` foot's name,
    ``predicted_dcm`` (``ξ_L`` at touch-down, x, y) and ``depth`` (m; how far ``ξ_L`` lies
    inside the hull of the stance and landing soles, negative outside)."""

    footstep: Footstep
    stance: str
    predicted_dcm: np.ndarray
    depth: float


class StepRecovery:
    """Capture-point stepping (see the module).

    Parameters
    ----------
    sole_size : ``(length, width)`` m of the region of a sole the centre of pressure may use.
    transition : force ramp that unloads the swing foot before lift-off, and loads it after
        touch-down, s.
    swing_time : from lift-off to touch-down, s.
    step_height : swing foot's clearance at mid-swing, m.
    forward, backward : largest advance of the landing foot's centre ahead of / behind the
        stance foot's, along the stance sole, m.
    min_width, max_width : range of the lateral distance between the two feet's centres,
        across the stance sole, m.
    overshoot : the landing sole's centre lies this far past ``ξ_L``, m.
    trigger_margin : step once the capture point is this far outside the support polygon, m.
    retarget_until : fraction of the swing during which the landing point follows the
        measured capture point.
    stance_margin : during the step the commanded centre of pressure stays this far inside
        the stance sole's contact rectangle, m (at its edge a compliant sole starts to roll).
    lateral_deadband : a capture point within this distance (m) of the feet's midline is
        straight ahead or behind (either foot may step).
    close : after a recovery step, bring the other foot beside the one that landed
        (:meth:`closing_step`), so that the robot stands on its usual stance again rather
        than split — where, after a long sideways step, the trailing leg would stretch
        straight under a CoM held at its height.
    torsion_weight : weight, 1/(N·m)², of the soles' torsional moments ``m_z`` in the
        balance controller's :class:`~tsid_py.control.wrench_regularization.WrenchRegularization`
        while a recovery is under way (None: the controller's own). A fast, wide swing
        throws a yaw reaction on the stance sole (the swing leg's lateral acceleration times
        its offset along the sole); a single sole near its edge on a compliant floor grips
        little torsion, so the upper body should take that reaction instead; standing, a
        higher weight would cost push tolerance, hence only during a recovery (the
        measurements: the Controllers page, *Step recovery*).
    """

    def __init__(self, sole_size, *, transition: float = 0.03, swing_time: float = 0.2, step_height: float = 0.04,
                 forward: float = 0.45, backward: float = 0.3, min_width: float = 0.17, max_width: float = 0.6,
                 overshoot: float = 0.03, trigger_margin: float = 0.0, retarget_until: float = 0.7,
                 stance_margin: float = 0.02, lateral_deadband: float = 0.02, close: bool = True,
                 torsion_weight: float | None = 0.1):
        length, width = (positive_scalar(value, "sole_size") for value in sole_size)
        self.sole_size = (length, width)
        self.transition = positive_scalar(transition, "transition")
        self.swing_time = positive_scalar(swing_time, "swing_time")
        self.step_height = positive_scalar(step_height, "step_height", allow_zero=True)
        self.forward = positive_scalar(forward, "forward")
        self.backward = positive_scalar(backward, "backward")
        self.min_width = positive_scalar(min_width, "min_width")
        self.max_width = positive_scalar(max_width, "max_width")
        if self.max_width <= self.min_width:
            raise ValueError(f"max_width must exceed min_width, got {max_width!r} ≤ {min_width!r}")
        self.overshoot = positive_scalar(overshoot, "overshoot", allow_zero=True)
        self.stance_margin = positive_scalar(stance_margin, "stance_margin", allow_zero=True)
        self.lateral_deadband = positive_scalar(lateral_deadband, "lateral_deadband", allow_zero=True)
        self.close = bool(close)
        self.torsion_weight = (None if torsion_weight is None
                               else positive_scalar(torsion_weight, "torsion_weight", allow_zero=True))
        self._stance_cache: tuple[Footstep | None, SupportPolygon | None] = (None, None)
        self.trigger_margin = positive_scalar(trigger_margin, "trigger_margin", allow_zero=True)
        self.retarget_until = positive_scalar(retarget_until, "retarget_until", allow_zero=True)
        if self.retarget_until > 1.0:
            raise ValueError(f"retarget_until must be in [0, 1], got {retarget_until!r}")

    @classmethod
    def for_robot(cls, robot, feet: dict[str, Footstep], com_height: float, sole_size=None, **options) -> StepRecovery:
        """Defaults scaled to a humanoid: reach from the CoM height ``z`` (forward 0.5 z,
        backward 0.35 z, feet at most 0.7 z apart), the narrowest stance its standing one, the
        stance margin at most a fifth of the sole's width (G1's soles are 5 cm wide)."""
        left, right = feet.values()
        width = float(np.linalg.norm(left.xy - right.xy))
        sole = sole_size if sole_size is not None else robot.sole_size
        defaults = {"forward": 0.5 * com_height, "backward": 0.35 * com_height, "min_width": width,
                    "max_width": max(0.7 * com_height, 1.5 * width), "stance_margin": min(0.02, 0.2 * sole[1])}
        return cls(sole, **{**defaults, **options})

    @property
    def duration(self) -> float:
        """From the decision to touch-down, s."""
        return self.transition + self.swing_time

    def closing_step(self, landed: Footstep, trailing: Footstep) -> Footstep:
        """Where the ``trailing`` foot goes after a recovery step landed at ``landed``: beside
        it, ``min_width`` apart across it, on the trailing foot's side, with its yaw."""
        c, s = math.cos(landed.yaw), math.sin(landed.yaw)
        across = np.array([-s, c])
        side = 1.0 if across @ (trailing.xy - landed.xy) >= 0 else -1.0
        xy = landed.xy + side * self.min_width * across
        return Footstep(trailing.foot, float(xy[0]), float(xy[1]), landed.yaw, trailing.z)

    # ------------------------------------------------------------------ when
    def needed(self, dcm, support: SupportPolygon) -> bool:
        """Whether the capture point ``dcm`` (x, y) has left the support polygon by more than
        the margin."""
        return support.outside_xy(float(dcm[0]), float(dcm[1])) > self.trigger_margin

    # ------------------------------------------------------------------ which foot, where
    def choose(self, dcm, feet: dict[str, Footstep], omega: float) -> RecoveryStep:
        """The best step from the stance ``feet`` (two footholds) for the capture point
        ``dcm`` (x, y), decided now (see the module)."""
        if len(feet) != 2:
            raise ValueError(f"feet must hold the two footholds, got {list(feet)}")
        first, second = feet.values()
        middle, heading = 0.5 * (first.xy + second.xy), mean_yaw(first.yaw, second.yaw)
        across = np.array([-math.sin(heading), math.cos(heading)])
        side = float(across @ (np.asarray(dcm, dtype=float) - middle))
        pairs = ((first, second), (second, first))
        toward = [float(across @ (swing.xy - stance.xy)) * side > 0 for swing, stance in pairs]
        if abs(side) <= self.lateral_deadband or not any(toward):     # straight ahead, or feet in tandem
            toward = [True, True]
        candidates = [self.landing(dcm, stance, swing, omega, self.duration)
                      for (swing, stance), chosen in zip(pairs, toward) if chosen]
        return max(candidates, key=lambda step: step.depth)

    def landing(self, dcm, stance: Footstep, swing: Footstep, omega: float, time_left: float) -> RecoveryStep:
        """Where ``swing`` should land, ``time_left`` s from now, with ``stance`` carrying
        the load meanwhile (see the module), and how deep the predicted capture point then
        lies in the support."""
        footstep, predicted = self.aim(dcm, stance, swing, omega, time_left)
        hull = SupportPolygon(np.vstack([self._corners(stance), self._corners(footstep)]))
        return RecoveryStep(footstep, stance.foot, predicted, -hull.outside_xy(float(predicted[0]), float(predicted[1])))

    def aim(self, dcm, stance: Footstep, swing: Footstep, omega: float, time_left: float):
        """:meth:`landing`'s ``(footstep, predicted capture point)`` without the depth (no
        hull to build): what re-aiming a swing needs."""
        dcm = np.asarray(dcm, dtype=float)
        stance_sole = self._stance_region(stance)
        pivot = stance_sole.clamp(dcm)
        predicted = pivot + (dcm - pivot) * math.exp(omega * max(time_left, 0.0))
        away = predicted - pivot
        norm = float(np.linalg.norm(away))
        target = predicted + (self.overshoot * away / norm if norm > 1e-9 else 0.0)
        xy = within_reach(stance, swing, target, self.forward, self.backward, self.min_width, self.max_width)
        return Footstep(swing.foot, float(xy[0]), float(xy[1]), swing.yaw, swing.z), predicted

    def _corners(self, step: Footstep) -> np.ndarray:
        return sole_outline(step.x, step.y, step.yaw, self.sole_size)

    def _stance_region(self, step: Footstep) -> SupportPolygon:
        """Where the centre of pressure may be on the stance sole ``step`` (kept for the
        retargeting calls of the same step)."""
        if self._stance_cache[0] != step:
            self._stance_cache = (step, SupportPolygon(self._corners(step)).shrunk(self.stance_margin))
        return self._stance_cache[1]
