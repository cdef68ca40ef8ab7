"""The ground as a quadruped controller sees it: a map, or the plane of its footholds.

Given a :class:`~tsid_py.control.terrain.Terrain` (a map), heights and normals are read from
it. Without one the controller is blind and takes the ground for the plane
``z = a + b x + c y`` fitted (least squares) through the last point where each foot touched
down: flat ground at first, a slope once the feet have stepped on it.

:meth:`Ground.local_plane` gives what the body's reference needs under the robot: the
ground's height under the CoM and its inclination along the heading and across it, from a
plane fitted through the ground under the four neutral footholds (which smooths rough
ground over the robot's footprint). The body is kept parallel to that plane: pitch
``−atan(s_forward)``, roll ``atan(s_left)``.
"""

from __future__ import annotations

import math

import numpy as np

from ..terrain import Terrain


class Ground:
    """The ground (see the module): ``terrain`` a map, or None to estimate a plane from the
    ``touchdowns`` (k, 3) the controller reports."""

    def __init__(self, terrain: Terrain | None = None, touchdowns=None):
        if terrain is not None and not isinstance(terrain, Terrain):
            raise ValueError(f"terrain must be a tsid_py.control.terrain.Terrain or None, got {type(terrain).__name__}")
        self.terrain = terrain
        self.plane = np.zeros(3)                   # a, b, c of z = a + b x + c y
        self.points: dict[str, np.ndarray] = {}
        for index, point in enumerate(np.zeros((0, 3)) if touchdowns is None else touchdowns):
            self.touchdown(str(index), point)

    def touchdown(self, foot: str, point) -> None:
        """``foot`` touched down at ``point`` (3,): refit the plane (blind mode)."""
        self.points[foot] = np.asarray(point, dtype=float).copy()
        if self.terrain is None and len(self.points) >= 3:
            P = np.array(list(self.points.values()))
            design = np.column_stack([np.ones(len(P)), P[:, 0], P[:, 1]])
            self.plane = np.linalg.lstsq(design, P[:, 2], rcond=None)[0]

    def height(self, x: float, y: float) -> float:
        """The ground's height at ``(x, y)``, m."""
        if self.terrain is not None:
            return self.terrain.height(x, y)
        return float(self.plane[0] + self.plane[1] * x + self.plane[2] * y)

    @property
    def planar(self) -> bool:
        """Whether the ground is one plane (blind, or a flat map): one normal everywhere."""
        return self.terrain is None or self.terrain.is_flat

    def normal(self, x: float, y: float) -> np.ndarray:
        """The ground's unit normal at ``(x, y)`` (3,)."""
        if self.terrain is not None:
            return self.terrain.normal(x, y)
        n = np.array([-self.plane[1], -self.plane[2], 1.0])
        return n / np.linalg.norm(n)

    def local_plane(self, com_xy, yaw: float, neutral_xy) -> tuple[float, float, float]:
        """``(height under the CoM, roll, pitch)`` of the body parallel to the ground under
        the neutral footholds ``neutral_xy`` (4, 2) (relative to the CoM, heading frame): the
        least-squares plane ``z = a + s_f u + s_l w`` in the heading frame's ``(u, w)``, through
        the ground's heights there."""
        neutral_xy = np.asarray(neutral_xy, dtype=float)
        cached = getattr(self, "_fit", None)
        if cached is None or cached[0] is not neutral_xy:       # the fit's pseudo-inverse, once
            design = np.column_stack([np.ones(len(neutral_xy)), neutral_xy])
            self._fit = cached = (neutral_xy, np.linalg.pinv(design))
        c, s = math.cos(yaw), math.sin(yaw)
        x0, y0 = float(com_xy[0]), float(com_xy[1])
        heights = [self.height(x0 + c * u - s * w, y0 + s * u + c * w) for u, w in neutral_xy.tolist()]
        a, forward, left = (cached[1] @ heights).tolist()
        return a, math.atan(left), -math.atan(forward)


def ground_frame(normal, yaw: float) -> np.ndarray:
    """``[t₁ t₂ n]`` (3, 3): the ground's normal ``n`` and tangents, ``t₁`` along the heading
    (plain floats: this runs per foot and per step)."""
    nx, ny, nz = (float(c) for c in normal)
    hx, hy = math.cos(yaw), math.sin(yaw)
    along = hx * nx + hy * ny
    ax, ay, az = hx - along * nx, hy - along * ny, -along * nz
    scale = 1.0 / math.sqrt(ax * ax + ay * ay + az * az)
    ax, ay, az = ax * scale, ay * scale, az * scale
    bx, by, bz = ny * az - nz * ay, nz * ax - nx * az, nx * ay - ny * ax
    return np.array([[ax, bx, nx], [ay, by, ny], [az, bz, nz]])

