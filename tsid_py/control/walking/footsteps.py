"""Footstep plans: where each foot lands, from a distance, a turn or a velocity command.

A walk moves a **centre pose** ``(x, y, yaw)`` — the point midway between the feet, heading
along the feet — in equal increments, one per step; step ``k`` puts the swing foot at the
``k``-th centre pose, half the step width to its side (left foot: +y of the centre's
heading, right foot: −y), and a last step brings the other foot alongside. Feet alternate;
the first to move is the one on the side the walk turns or sidesteps toward, so that the feet
open rather than cross (the left foot when walking straight).

The increments are bounded by the :class:`Gait`: at most ``step_length`` forward or back,
``lateral_step`` sideways and ``max_turn`` of yaw per step (the number of steps is the
smallest that respects all three).

Units: m, rad, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..._geometry import polygon_centroid
from ..._validation import as_vector
from ...wrench_cone import convex_polygon
from ...models.gait import Gait
from ..terrain import surface_placement
from .angles import mean_yaw, wrap_angle

#: The most footsteps one plan holds (a walk of 250 m for Talos's gait): a longer walk is
#: several plans, each checked, rather than one that takes minutes to set up.
MAX_FOOTSTEPS = 1000


@dataclass(frozen=True)
class Footstep:
    """Foot ``foot`` (a contact frame name) placed at ``(x, y, z)`` m, heading ``yaw`` rad,
    on a surface of unit ``normal`` (default level): its full pose is :attr:`placement`.
    A normal that is not a unit vector is normalised; one tilted 60° or more from the
    vertical is refused (``ValueError``). ``bearing``: the convex polygon of the sole that
    bears on the ground there (vertices ``(x, y)`` m in the sole's frame, counter-clockwise:
    :attr:`tsid_py.control.terrain.Resting.bearing`), or None: the whole sole."""

    foot: str
    x: float
    y: float
    yaw: float
    z: float = 0.0
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    bearing: tuple[tuple[float, float], ...] | None = None

    def __post_init__(self):
        normal = self.normal
        if normal != (0.0, 0.0, 1.0):
            n = as_vector(normal, "normal", 3)
            length = float(np.linalg.norm(n))
            if not length > 0 or n[2] < 0.5 * length:
                raise ValueError(f"normal must point up, within 60° of the vertical, got {tuple(normal)}")
            object.__setattr__(self, "normal", tuple(float(value) for value in n / length))
        if self.bearing is not None:
            polygon = convex_polygon(self.bearing, "bearing")
            object.__setattr__(self, "bearing", tuple((float(x), float(y)) for x, y in polygon))

    @property
    def support_point(self) -> np.ndarray:
        """Where (x, y) m in the world a walk plans this foot's centre of pressure: the
        centroid of its bearing polygon, or the sole's centre when the whole sole bears."""
        if self.bearing is None:
            return self.xy
        centre = polygon_centroid(self.bearing)
        return (self.placement.act(np.array([centre[0], centre[1], 0.0])))[:2]

    @property
    def position(self) -> np.ndarray:
        return np.array([self.x, self.y, self.z])

    @property
    def placement(self) -> pin.SE3:
        """The sole's pose: at :attr:`position`, turned by ``yaw`` about the vertical, then
        tilted onto ``normal`` (:func:`tsid_py.control.terrain.surface_placement`)."""
        return surface_placement(self.position, self.yaw, self.normal)

    @property
    def level(self) -> bool:
        """Whether the footstep is on a level surface."""
        return self.normal == (0.0, 0.0, 1.0)

    @property
    def xy(self) -> np.ndarray:
        return np.array([self.x, self.y])

    def across(self, x: float, y: float) -> float:
        """How far (m) the point ``(x, y)`` lies to this footstep's left, across its heading
        (negative: to its right). Plain floats."""
        return math.cos(self.yaw) * (float(y) - self.y) - math.sin(self.yaw) * (float(x) - self.x)

    def moved_to(self, x: float, y: float) -> Footstep:
        """The same foot, heading, height and surface at ``(x, y)`` m, its bearing dropped:
        the ground there is another (placing the footstep finds what it bears on)."""
        return Footstep(self.foot, x, y, self.yaw, self.z, self.normal)


def within_reach(stance: Footstep, side_of: Footstep, point, forward: float, backward: float, min_width: float,
                 max_width: float) -> np.ndarray:
    """``point`` (2,) m clamped, per axis, to the reach box from ``stance``: in its sole's frame
    (x along its heading, y across) ``[−backward, forward]`` along and ``[min_width,
    max_width]`` across, on the side of ``stance`` the footstep ``side_of`` is on; its (2,)."""
    c, s = math.cos(stance.yaw), math.sin(stance.yaw)
    to_frame = np.array([[c, s], [-s, c]])
    side = 1.0 if (to_frame @ (side_of.xy - stance.xy))[1] >= 0 else -1.0
    along, across = to_frame @ (np.asarray(point, dtype=float) - stance.xy)
    along = min(max(along, -backward), forward)
    across = side * min(max(side * across, min_width), max_width)
    return stance.xy + to_frame.T @ np.array([along, across])


def _centre(left: Footstep, right: Footstep) -> tuple[np.ndarray, float, float]:
    """Midpoint (x, y), heading (rad) and width (m) of a pair of feet."""
    yaw = mean_yaw(left.yaw, right.yaw)
    return 0.5 * (left.xy + right.xy), yaw, float(np.linalg.norm(left.xy - right.xy))


def _offset(xy, yaw: float, forward: float, left: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.asarray(xy, dtype=float) + np.array([c * forward - s * left, s * forward + c * left])


def plan_footsteps(left: Footstep, right: Footstep, displacement, gait: Gait | None = None) -> list[Footstep]:
    """The footsteps that move the feet's centre pose by ``displacement`` = ``(forward, left,
    yaw)`` (m, m, rad) in the frame of the start centre pose, in equal increments that
    respect ``gait``; the last step brings the trailing foot alongside. ``left``/``right``:
    where the feet stand now. An empty list for a zero displacement.

    The centre pose moves along a straight line from start to goal while its heading turns
    linearly (a turn in place keeps the centre where it is)."""
    gait = gait or Gait()
    forward, lateral, turn = (float(value) for value in as_vector(displacement, "displacement", 3))
    count = max(math.ceil(abs(forward) / gait.step_length - 1e-9), math.ceil(abs(lateral) / gait.lateral_step - 1e-9),
                math.ceil(abs(turn) / gait.max_turn - 1e-9))
    if count == 0:
        return []
    if count >= MAX_FOOTSTEPS:
        raise ValueError(f"displacement must take fewer than {MAX_FOOTSTEPS} steps of the gait (split a long walk "
                         f"into several), got {count} steps for (forward, lateral, turn) = "
                         f"({forward:g} m, {lateral:g} m, {turn:g} rad)")
    centre, yaw, _ = _centre(left, right)
    goal = _offset(centre, yaw, forward, lateral)
    poses = [(centre + k / count * (goal - centre), yaw + k / count * turn) for k in range(1, count + 1)]
    return _place(poses, left, right, gait, first_left=turn > 0 or (turn == 0 and lateral >= 0))


def footsteps_from_velocity(left: Footstep, right: Footstep, velocity, steps: int,
                            gait: Gait | None = None) -> list[Footstep]:
    """The footsteps of ``steps`` swings at a constant velocity command ``(v_forward, v_left,
    yaw_rate)`` (m/s, m/s, rad/s, in the walker's heading), plus the closing step. Each swing
    advances the centre pose by the command times one step period, clamped to the gait's
    bounds, along the arc a constant twist describes."""
    gait = gait or Gait()
    if not isinstance(steps, (int, np.integer)) or not 1 <= steps < MAX_FOOTSTEPS:
        raise ValueError(f"steps must be an integer in [1, {MAX_FOOTSTEPS}), got {steps!r}")
    command = as_vector(velocity, "velocity", 3) * gait.step_period
    bounds = np.array([gait.step_length, gait.lateral_step, gait.max_turn])
    forward, lateral, turn = np.clip(command, -bounds, bounds)
    centre, yaw, _ = _centre(left, right)
    poses = []
    for _ in range(int(steps)):
        centre = _offset(centre, yaw + 0.5 * turn, forward, lateral)        # midpoint rule on the arc
        yaw += turn
        poses.append((centre, yaw))
    return _place(poses, left, right, gait, first_left=turn > 0 or (turn == 0 and lateral >= 0))


def _place(poses, left: Footstep, right: Footstep, gait: Gait, first_left: bool) -> list[Footstep]:
    """One footstep per centre pose ``(xy, yaw)``, feet alternating (the left first when
    ``first_left``), then the other foot alongside at the last pose."""
    width = gait.step_width or _centre(left, right)[2]
    heights = {left.foot: left.z, right.foot: right.z}
    sides = [(k % 2 == 0) == first_left for k in range(len(poses))]
    poses = [*poses, poses[-1]]
    sides.append(not sides[-1])
    steps = []
    for (xy, yaw), is_left in zip(poses, sides):
        foot = left.foot if is_left else right.foot
        x, y = _offset(xy, yaw, 0.0, (0.5 if is_left else -0.5) * width)
        steps.append(Footstep(foot, float(x), float(y), wrap_angle(yaw), heights[foot]))
    return steps
