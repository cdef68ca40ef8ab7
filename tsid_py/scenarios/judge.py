"""A fall judged from the simulator, not from the controller, while soles may come and go.

**Fell**: the base drops below :data:`FALL_HEIGHT_RATIO` of its start height, or a sole
**in contact** (one the controller holds on the ground) slides more than :data:`FALL_SLIP` m
horizontally from where it stood when its contact was made, or tips more than
:data:`FALL_TILT` rad from the horizontal: past those the stance is lost even if the base has
not come down yet. A swinging foot is not judged. Point feet (spheres, which roll) are
judged by their contact points' slip (:meth:`~tsid_py.sim.Simulation.foot_pose`), not by a
tilt.

On a :class:`~tsid_py.control.terrain.Terrain` (the simulation's ``terrain``) heights are measured
above the ground under the base, and a sole's tilt from the nearest plane it can lie on where
its contact was made (:meth:`~tsid_py.control.terrain.Terrain.resting_normals`: on a ramp its
surface, on bumps any plane on three of their highest points), not from the vertical: walking
up a 10° slope tips no sole, nor does a sole held on three bumps rather than the three that
would let it sit lowest (measured: G1 put down 7 mm short of its foothold, level as planned,
was judged 16° off the lowest plane there at touch-down).
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
        terrain = getattr(sim, "terrain", None)
        self.terrain = None if terrain is None or terrain.is_flat else terrain
        self.point_feet = sim.robot.sole_size is None
        self._pose = sim.foot_pose if self.point_feet else sim.sole_pose
        self.start_height = self._base_height()
        #: foot -> where (x, y) its contact was made
        self.planted: dict[str, np.ndarray] = {foot: self._pose(foot)[1][:2].copy() for foot in feet}
        self._normals: dict[str, np.ndarray] = {}
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
                self._normals.pop(foot, None)
        for foot in in_contact:
            tilt, position = self._pose(foot)
            start = self.planted.setdefault(foot, position[:2].copy())
            if not self.point_feet:
                if self.terrain is not None:
                    tilt = self._surface_tilt(foot)
                self.max_tilt = max(self.max_tilt, tilt)
            self.max_slip = max(self.max_slip, float(np.linalg.norm(position[:2] - start)))
        if self.fell_at is None:
            if self._base_height() < FALL_HEIGHT_RATIO * self.start_height:
                self.reason = f"base below {FALL_HEIGHT_RATIO * 100:.0f} % of its start height"
            elif self.max_tilt > FALL_TILT:
                self.reason = f"a sole tipped past {np.degrees(FALL_TILT):.0f}°"
            elif self.max_slip > FALL_SLIP:
                self.reason = f"a sole slid more than {FALL_SLIP * 100:.0f} cm"
            if self.reason is not None:
                self.fell_at = t
        return self.fell_at is not None

    def _base_height(self) -> float:
        """The base's height above the ground under it, m."""
        q = self.sim.state()[0]
        return float(q[2] - (0.0 if self.terrain is None else self.terrain.height(q[0], q[1])))

    def _surface_tilt(self, foot: str) -> float:
        """Angle (rad) between ``foot``'s sole normal and the nearest normal of the planes a
        sole where its contact was made can lie on (found once,
        :meth:`~tsid_py.control.terrain.Terrain.resting_normals`: on a plane, its normal; on
        bumps, every plane on the ground's highest points — a sole held on three of them is
        not tipped because another three would let it sit lower)."""
        rotation, position = self.sim.feet.pose(self.sim.data, foot)
        normals = self._normals.get(foot)
        if normals is None:
            size = self.sim.robot.sole_size or (0.01, 0.01)
            yaw = float(np.arctan2(rotation[1, 0], rotation[0, 0]))
            normals = self._normals[foot] = self.terrain.resting_normals(position[0], position[1], yaw, size)
        return float(np.arccos(np.clip(np.max(normals @ rotation[:, 2]), -1.0, 1.0)))
