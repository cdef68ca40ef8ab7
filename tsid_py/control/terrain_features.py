"""The features a :class:`~tsid_py.control.terrain.Terrain` is made of, each a surface over
part of the plane with its height (one point, or arrays of points to the last bit alike) and
gradient:

* :class:`Ramp` — a slope of ``angle`` rising along +x from ``start`` over ``length`` m
  (horizontal), then a level plateau of ``plateau`` m; beyond it the floor again;
* :class:`Stairs` — ``count`` steps of ``rise`` m up, each ``run`` m deep, from ``start``,
  then a landing of ``landing`` m;
* :class:`Rough` — random ground over ``[start, start + length] × [−width/2, width/2]``:
  heights between 0 and ``2 × amplitude`` (``± amplitude`` about their mean), bilinear
  between random values on a grid of ``cell`` m (seeded: ``seed``), brought down to the
  floor over the region's first and last cell so that it meets the floor without a step;
* :class:`Block` — a box of any pose whose top face is a planar patch of the ground.

:class:`Ramp`, :class:`Stairs` and :class:`Rough` stand on the plane ``z = 0``; outside their
region their height is 0 (a block's: NaN, no top face there).

Units: m, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import as_rotation, as_vector, positive_scalar


@dataclass(frozen=True)
class Ramp:
    """A slope rising at ``angle`` rad along +x (see the module)."""

    angle: float
    start: float = 1.0
    length: float = 3.0
    plateau: float = 3.0
    width: float = 4.0

    def __post_init__(self):
        if not 0.0 < self.angle < math.radians(60.0):
            raise ValueError(f"angle must be in (0, 60°) (rad), got {self.angle!r}")
        for name in ("length", "plateau", "width"):
            positive_scalar(getattr(self, name), name)

    @property
    def top(self) -> float:
        """The plateau's height, m."""
        return self.length * math.tan(self.angle)

    def inside(self, x: float, y: float) -> bool:
        return self.start <= x <= self.start + self.length + self.plateau and abs(y) <= self.width / 2

    def height(self, x: float, y: float) -> float:
        if not self.inside(x, y):
            return 0.0
        return min(x - self.start, self.length) * math.tan(self.angle)

    def heights(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`height` at each ``(x, y)`` (arrays of one shape), to the last bit."""
        inside = (self.start <= x) & (x <= self.start + self.length + self.plateau) & (np.abs(y) <= self.width / 2)
        return np.where(inside, np.minimum(x - self.start, self.length) * math.tan(self.angle), 0.0)

    def gradient(self, x: float, y: float) -> tuple[float, float]:
        if self.inside(x, y) and x < self.start + self.length:
            return math.tan(self.angle), 0.0
        return 0.0, 0.0


@dataclass(frozen=True)
class Stairs:
    """Steps up along +x (see the module)."""

    rise: float
    run: float = 0.3
    count: int = 3
    start: float = 1.0
    landing: float = 2.0
    width: float = 4.0

    def __post_init__(self):
        for name in ("rise", "run", "landing", "width"):
            positive_scalar(getattr(self, name), name)
        if int(self.count) != self.count or self.count < 1:
            raise ValueError(f"count must be a whole number ≥ 1, got {self.count!r}")

    def height(self, x: float, y: float) -> float:
        end = self.start + self.count * self.run + self.landing
        if abs(y) > self.width / 2 or not self.start <= x <= end:
            return 0.0
        return self.rise * min(int((x - self.start) // self.run) + 1, self.count)

    def heights(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`height` at each ``(x, y)`` (arrays of one shape), to the last bit."""
        end = self.start + self.count * self.run + self.landing
        inside = (np.abs(y) <= self.width / 2) & (self.start <= x) & (x <= end)
        steps = np.minimum(np.floor_divide(x - self.start, self.run) + 1, self.count)
        return np.where(inside, self.rise * steps, 0.0)

    def gradient(self, x: float, y: float) -> tuple[float, float]:
        return 0.0, 0.0


@dataclass(frozen=True)
class Rough:
    """Random ground (see the module)."""

    amplitude: float
    seed: int = 0
    start: float = 0.5
    length: float = 8.0
    width: float = 4.0
    cell: float = 0.1
    grid: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("amplitude", "length", "width", "cell"):
            positive_scalar(getattr(self, name), name)
        rows = int(math.ceil(self.width / self.cell)) + 1
        columns = int(math.ceil(self.length / self.cell)) + 1
        values = np.random.default_rng(self.seed).uniform(0.0, 2.0 * self.amplitude, (rows, columns))
        values[:, [0, -1]] = 0.0                   # meets the floor at both ends
        values.flags.writeable = False
        object.__setattr__(self, "grid", values)

    def _cell(self, x: float, y: float):
        u = (x - self.start) / self.cell
        w = (y + self.width / 2) / self.cell
        rows, columns = self.grid.shape
        if not (0.0 <= u <= columns - 1 and 0.0 <= w <= rows - 1):
            return None
        i, j = min(int(w), rows - 2), min(int(u), columns - 2)
        return i, j, w - i, u - j

    def height(self, x: float, y: float) -> float:
        cell = self._cell(x, y)
        if cell is None:
            return 0.0
        i, j, a, b = cell
        g = self.grid
        return float((1 - a) * ((1 - b) * g[i, j] + b * g[i, j + 1]) + a * ((1 - b) * g[i + 1, j] + b * g[i + 1, j + 1]))

    def heights(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`height` at each ``(x, y)`` (arrays of one shape), to the last bit: the same
        cell, weights and sums, element by element."""
        u = (x - self.start) / self.cell
        w = (y + self.width / 2) / self.cell
        rows, columns = self.grid.shape
        inside = (0.0 <= u) & (u <= columns - 1) & (0.0 <= w) & (w <= rows - 1)
        u, w = np.where(inside, u, 0.0), np.where(inside, w, 0.0)
        i = np.minimum(w.astype(np.intp), rows - 2)
        j = np.minimum(u.astype(np.intp), columns - 2)
        a, b = w - i, u - j
        g = self.grid
        z = (1 - a) * ((1 - b) * g[i, j] + b * g[i, j + 1]) + a * ((1 - b) * g[i + 1, j] + b * g[i + 1, j + 1])
        return np.where(inside, z, 0.0)

    def gradient(self, x: float, y: float) -> tuple[float, float]:
        cell = self._cell(x, y)
        if cell is None:
            return 0.0, 0.0
        i, j, a, b = cell
        g = self.grid
        dx = ((1 - a) * (g[i, j + 1] - g[i, j]) + a * (g[i + 1, j + 1] - g[i + 1, j])) / self.cell
        dy = ((1 - b) * (g[i + 1, j] - g[i, j]) + b * (g[i + 1, j + 1] - g[i, j + 1])) / self.cell
        return float(dx), float(dy)


@dataclass(frozen=True)
class Block:
    """A box: centre (3,) m, ``half_size`` (3,) m along its own axes, ``rotation`` (3, 3)
    from its axes to the world's. Its top face (``+z`` of its own axes, tilted less than 60°
    from the horizontal) is a planar patch of the ground."""

    centre: np.ndarray
    half_size: np.ndarray
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))

    def __post_init__(self):
        object.__setattr__(self, "centre", as_vector(self.centre, "centre", 3).copy())
        half = as_vector(self.half_size, "half_size", 3).copy()
        if np.any(half <= 0):
            raise ValueError(f"half_size must be > 0 along each axis, got {half}")
        object.__setattr__(self, "half_size", half)
        rotation = as_rotation(self.rotation, "rotation").copy()
        if rotation[2, 2] < 0.5:
            raise ValueError(f"rotation must keep the block's top face within 60° of the horizontal, got its "
                             f"normal {rotation[:, 2]}")
        object.__setattr__(self, "rotation", rotation)

    @property
    def normal(self) -> np.ndarray:
        """The top face's outward normal (3,)."""
        return self.rotation[:, 2].copy()

    def top(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Height of the top face over each ``(x, y)`` (arrays of one shape), NaN where the
        face is not above the point."""
        n, origin = self.rotation[:, 2], self.centre + self.rotation[:, 2] * self.half_size[2]
        z = origin[2] - (n[0] * (x - origin[0]) + n[1] * (y - origin[1])) / n[2]
        u = self.rotation[0, 0] * (x - origin[0]) + self.rotation[1, 0] * (y - origin[1]) + self.rotation[2, 0] * (
            z - origin[2])
        v = self.rotation[0, 1] * (x - origin[0]) + self.rotation[1, 1] * (y - origin[1]) + self.rotation[2, 1] * (
            z - origin[2])
        inside = (np.abs(u) <= self.half_size[0] + 1e-12) & (np.abs(v) <= self.half_size[1] + 1e-12)
        return np.where(inside, z, np.nan)

    def height(self, x: float, y: float) -> float:
        """The top face's height at ``(x, y)``, NaN where it is not above the point."""
        return float(self.top(np.asarray(x, dtype=float), np.asarray(y, dtype=float)))

    def gradient(self, x: float, y: float) -> tuple[float, float]:
        n = self.rotation[:, 2]
        return float(-n[0] / n[2]), float(-n[1] / n[2])
