"""A fall judged from the simulator, not from the controller, while soles may come and go.

**Fell**: the base drops below :data:`FALL_HEIGHT_RATIO` of its start height, or a sole
**in contact** (one the controller holds on the ground) slides more than :data:`FALL_SLIP` m
horizontally from where it stood when its contact was made, or tips more than
:data:`FALL_TILT` rad from the horizontal: past those the stance is lost even if the base has
not come down yet. A swinging foot is not judged. Point feet (spheres, which roll) are
judged by their contact points' slip (:meth:`~tsid_py.sim.Simulation.foot_pose`), not by a
tilt.
"""

from __future__ import annotations

import numpy as np

from ..sim.simulation import Simulation

#: A floating-base robot has fallen when its base drops below this fraction of its start height.
FALL_HEIGHT_RATIO = 0.7
#: A sole tipped past this angle (rad, 15°) or slid this far (m) means a fall.
FALL_TILT, FALL_SLIP = np.radians(15.0), 0.05


class StanceJudge:
    """Judges a fall (see the module): call :meth:`update` after each physics step with the
    feet the controller holds in contact. ``feet``: the soles on the ground at the start
    (their positions now are where their contacts were made)."""

    def __init__(self, sim: Simulation, feet=()):
        self.sim = sim
        self.point_feet = sim.robot.sole_size is None
        self._pose = sim.foot_pose if self.point_feet else sim.sole_pose
        self.start_height = float(sim.state()[0][2])
        #: foot -> where (x, y) its contact was made
        self.planted: dict[str, np.ndarray] = {foot: self._pose(foot)[1][:2].copy() for foot in feet}
        self.max_tilt, self.max_slip = 0.0, 0.0
        self.fell_at: float | None = None
        self.reason: str | None = None

    def diverged(self, t: float, error: Exception) -> None:
        """The physics diverged at ``t`` (:class:`~tsid_py.sim.SimulationDiverged`): the run
        ends as a failure, with the error as its reason."""
        if self.fell_at is None:
            self.fell_at, self.reason = t, f"the simulation diverged: {error}"

    def update(self, t: float, in_contact) -> bool:
        """Check the state after the physics step that ended at ``t``; returns whether the
        robot has fallen (at this step or before)."""
        for foot in list(self.planted):
            if foot not in in_contact:
                del self.planted[foot]
        for foot in in_contact:
            tilt, position = self._pose(foot)
            start = self.planted.setdefault(foot, position[:2].copy())
            if not self.point_feet:
                self.max_tilt = max(self.max_tilt, tilt)
            self.max_slip = max(self.max_slip, float(np.linalg.norm(position[:2] - start)))
        if self.fell_at is None:
            if self.sim.state()[0][2] < FALL_HEIGHT_RATIO * self.start_height:
                self.reason = f"base below {FALL_HEIGHT_RATIO * 100:.0f} % of its start height"
            elif self.max_tilt > FALL_TILT:
                self.reason = f"a sole tipped past {np.degrees(FALL_TILT):.0f}°"
            elif self.max_slip > FALL_SLIP:
                self.reason = f"a sole slid more than {FALL_SLIP * 100:.0f} cm"
            if self.reason is not None:
                self.fell_at = t
        return self.fell_at is not None
