"""Terrain: the ground's height and normal, one description for the planner and the simulator.

A :class:`Terrain` is the floor ``z = 0`` with features on it, each a solid standing on the
floor: the height at ``(x, y)`` is the highest surface there. The features:

* :class:`Ramp` — a slope of ``angle`` rising along +x from ``start`` over ``length`` m
  (horizontal), then a level plateau of ``plateau`` m; beyond it the floor again;
* :class:`Stairs` — ``count`` steps of ``rise`` m up, each ``run`` m deep, from ``start``,
  then a landing of ``landing`` m;
* :class:`Rough` — random ground over ``[start, start + length] × [−width/2, width/2]``:
  heights between 0 and ``2 × amplitude`` (``± amplitude`` about their mean), bilinear
  between random values on a grid of ``cell`` m (seeded: ``seed``), brought down to the
  floor over the region's first and last cell so that it meets the floor without a step.

Controllers read :meth:`Terrain.height` and :meth:`Terrain.normal` (footholds, the body's
height and pitch); the MuJoCo harness builds the same solids
(:mod:`tsid_py.sim.terrain`: boxes for ramps and stairs, a height field for rough ground).
Features are meant to lie along +x ahead of a robot standing at the origin.

Units: m, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import positive_scalar


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

    def gradient(self, x: float, y: float) -> tuple[float, float]:
        cell = self._cell(x, y)
        if cell is None:
            return 0.0, 0.0
        i, j, a, b = cell
        g = self.grid
        dx = ((1 - a) * (g[i, j + 1] - g[i, j]) + a * (g[i + 1, j + 1] - g[i + 1, j])) / self.cell
        dy = ((1 - b) * (g[i + 1, j] - g[i, j]) + b * (g[i + 1, j + 1] - g[i, j + 1])) / self.cell
        return float(dx), float(dy)


class Terrain:
    """The floor ``z = 0`` with ``features`` (:class:`Ramp`, :class:`Stairs`, :class:`Rough`)."""

    def __init__(self, features=()):
        self.features = tuple(features)
        for feature in self.features:
            if not isinstance(feature, (Ramp, Stairs, Rough)):
                raise ValueError(f"features must be Ramp, Stairs or Rough, got {type(feature).__name__}")

    @classmethod
    def flat(cls) -> Terrain:
        """The floor alone."""
        return cls()

    @classmethod
    def slope(cls, degrees: float, **options) -> Terrain:
        """A :class:`Ramp` of ``degrees`` (the other :class:`Ramp` fields as ``options``)."""
        return cls([Ramp(math.radians(degrees), **options)])

    @classmethod
    def rough(cls, amplitude: float, seed: int = 0, **options) -> Terrain:
        """:class:`Rough` ground of ``± amplitude`` m (seeded)."""
        return cls([Rough(amplitude, seed, **options)])

    @classmethod
    def stairs(cls, rise: float, **options) -> Terrain:
        """:class:`Stairs` of ``rise`` m (the other fields as ``options``)."""
        return cls([Stairs(rise, **options)])

    @property
    def is_flat(self) -> bool:
        return not self.features

    def _top(self, x: float, y: float):
        best, feature = 0.0, None
        for candidate in self.features:
            z = candidate.height(x, y)
            if z > best:
                best, feature = z, candidate
        return best, feature

    def height(self, x: float, y: float) -> float:
        """The ground's height at ``(x, y)``, m."""
        return self._top(x, y)[0]

    def normal(self, x: float, y: float) -> np.ndarray:
        """The ground's unit normal at ``(x, y)`` (3,), pointing up."""
        _, feature = self._top(x, y)
        dx, dy = (0.0, 0.0) if feature is None else feature.gradient(x, y)
        n = np.array([-dx, -dy, 1.0])
        return n / np.linalg.norm(n)

    def __repr__(self) -> str:
        return f"Terrain({list(self.features)!r})"
