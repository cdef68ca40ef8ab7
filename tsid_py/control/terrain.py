r"""Terrain: the ground's height and normal, one description for the planner and the simulator.

A :class:`Terrain` is a floor (the plane ``z = floor``, default 0) with features on it
(:mod:`.terrain_features`: :class:`Ramp`, :class:`Stairs`, :class:`Rough`, :class:`Block`):
the height at ``(x, y)`` is the highest surface there. :class:`Ramp`, :class:`Stairs` and
:class:`Rough` stand on the plane ``z = 0`` (a terrain with them has its floor there); blocks
can make ground below it (a slope down from a platform to a lower floor; the walking
terrains: :meth:`Terrain.slope` down, :meth:`Terrain.steps`).

**Where a sole comes to rest** (:meth:`Terrain.rest`). A flat sole of ``length × width`` m
put down with its centre over ``(x, y)`` and heading ``yaw`` rests on the highest points
beneath it: among the planes ``z = h0 + g_x dx + g_y dy`` (``dx, dy`` from ``(x, y)``, world
axes) that lie on or above the ground at every sample point ``i`` of the footprint, the one
lowest at the centre,

.. math::

    \min\ h_0 \quad \text{subject to} \quad
    h_0 + g_x\, dx_i + g_y\, dy_i ≥ h(x_i, y_i) \ \text{for all } i,

a linear programme in ``(h0, g_x, g_y)`` whose answer is the facet of the upper convex hull of
the samples above the centre (the sole rests on the points that span it). Where the centre
is over an edge or a vertex of that hull, several facets are lowest there (a sole turned
across the crease at the foot of a ramp rocks on its diagonal; a fifth of the footprints on
rough ground): the sole takes the least tilted of them (:mod:`.resting_plane` solves the
programme and settles the ties). The sole's normal is
``n ∝ (−g_x, −g_y, 1)``; its placement turns the world by ``yaw`` about the vertical, then
tilts the vertical onto ``n`` by the smallest rotation (:func:`surface_placement`: the sole's
x axis keeps the heading seen from above). The **gap** is the largest height of the sole above
the ground under it, ``max_i (plane_i − h_i)``: zero on a plane, the riser's height for a sole
half over a step's edge. The sole **bears** on the samples within :data:`CONTACT_TOLERANCE`
of the resting plane: the **bearing** polygon is their convex hull, in the sole's own frame
(x along the heading, y across, in the resting plane; None when the sole lies flat on the
ground, bearing everywhere), the region its centre of pressure can be in; the **support** is
its share of the footprint's area: 1 on a plane, less on bumps. A footstep planner looks for
footholds of a small gap and a large support (:mod:`tsid_py.control.walking.footholds`).

Controllers read :meth:`Terrain.height`, :meth:`Terrain.normal` and :meth:`Terrain.rest`
(footholds, the body's height and pitch); the MuJoCo harness builds the same solids
(:mod:`tsid_py.sim.terrain`: boxes for ramps, stairs and blocks, a height field for rough
ground).
Features are meant to lie along +x ahead of a robot standing at the origin.

Units: m, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .._geometry import convex_hull_2d, polygon_area
from .._validation import as_vector, positive_scalar
from .resting_plane import lowest_plane, lowest_planes
from .terrain_features import Block, Ramp, Rough, Stairs

#: Half the lateral extent (m) of the walking terrains' blocks (y in ±).
HALF_WIDTH = 2.0
#: A sample of a footprint within this distance (m) of the resting plane bears on it.
CONTACT_TOLERANCE = 0.002


@dataclass(frozen=True)
class Resting:
    """Where a sole comes to rest (:meth:`Terrain.rest`): its ``placement`` (pin.SE3: centre
    on the resting plane, z along its normal), the ``gap`` (m), the ``tilt`` (rad) of the
    normal from the vertical, the ``support`` (0 … 1) and the ``bearing`` polygon ((k, 2) m,
    counter-clockwise in the sole's frame, or None: the whole footprint) (see the module)."""

    placement: pin.SE3
    gap: float
    tilt: float
    support: float = 1.0
    bearing: np.ndarray | None = None

    @property
    def normal(self) -> np.ndarray:
        return self.placement.rotation[:, 2].copy()


def tilt_rotation(normal) -> np.ndarray:
    """The smallest rotation (3, 3) taking the vertical onto the unit vector ``normal``."""
    if normal[0] == 0.0 and normal[1] == 0.0 and normal[2] > 0.0:      # level (most footholds): no numpy call
        return np.eye(3)
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    axis = np.array([-n[1], n[0], 0.0])                         # e_z × n
    sine = float(np.linalg.norm(axis))
    if sine < 1e-12:
        return np.eye(3)
    return pin.exp3(axis / sine * math.atan2(sine, float(n[2])))


def surface_placement(position, yaw: float, normal=(0.0, 0.0, 1.0)) -> pin.SE3:
    """A sole at ``position`` (3,) on a surface of unit ``normal``, heading ``yaw`` rad seen
    from above: the world turned by ``yaw`` about the vertical, then tilted onto ``normal``."""
    c, s = math.cos(yaw), math.sin(yaw)
    heading = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return pin.SE3(tilt_rotation(normal) @ heading, np.array(position, dtype=float))


class Terrain:
    """The floor ``z = floor`` (m) with ``features`` (:class:`Ramp`, :class:`Stairs`,
    :class:`Rough`, :class:`Block`); ``name`` says what it is (e.g. ``"slope:10"``)."""

    def __init__(self, features=(), floor: float = 0.0, name: str | None = None):
        self.features = tuple(features)
        for feature in self.features:
            if not isinstance(feature, (Ramp, Stairs, Rough, Block)):
                raise ValueError(f"features must be Ramp, Stairs, Rough or Block, got {type(feature).__name__}")
        self.floor = float(as_vector([floor], "floor", 1)[0])
        if self.floor != 0.0 and any(not isinstance(feature, Block) for feature in self.features):
            raise ValueError(f"floor must be 0 with Ramp, Stairs or Rough features (they stand on z = 0), "
                             f"got {self.floor!r}")
        self.name = name

    @classmethod
    def flat(cls) -> Terrain:
        """The floor alone."""
        return cls()

    @classmethod
    def slope(cls, degrees: float, **options) -> Terrain:
        """A slope of ``degrees``: up (positive), a :class:`Ramp` (the other :class:`Ramp`
        fields as ``options``); down (negative), blocks: a platform at ``z = 0`` until
        ``start`` (default 1 m), the incline down over ``length`` m (horizontal, default 3),
        a lower floor beyond."""
        if degrees > 0:
            return cls([Ramp(math.radians(degrees), **options)], name=f"slope:{degrees:g}")
        angle = math.radians(-float(degrees))
        if not 0.0 < angle < math.radians(60.0):
            raise ValueError(f"degrees must be in (-60, 0) or (0, 60), got {degrees!r}")
        unknown = set(options) - {"start", "length"}
        if unknown:
            raise ValueError(f"a slope down takes start and length, got {sorted(unknown)}")
        start, length = float(options.get("start", 1.0)), positive_scalar(options.get("length", 3.0), "length")
        drop, thickness = length * math.tan(angle), 0.5
        rotation = pin.exp3(np.array([0.0, angle, 0.0]))                   # +x falls
        top_middle = np.array([start + length / 2, 0.0, -drop / 2])
        incline = Block(top_middle - rotation[:, 2] * thickness / 2,
                        [length / math.cos(angle) / 2, HALF_WIDTH, thickness / 2], rotation)
        platform = Block([start - 5.0, 0.0, -thickness / 2], [5.0, HALF_WIDTH, thickness / 2])
        return cls([platform, incline], floor=-drop, name=f"slope:{degrees:g}")

    @classmethod
    def rough(cls, amplitude: float, seed: int = 0, **options) -> Terrain:
        """:class:`Rough` ground of ``± amplitude`` m (seeded)."""
        return cls([Rough(amplitude, seed, **options)], name=f"rough:{amplitude:g}")

    @classmethod
    def stairs(cls, rise: float, **options) -> Terrain:
        """:class:`Stairs` of ``rise`` m (the other fields as ``options``)."""
        return cls([Stairs(rise, **options)], name=f"stairs:{rise:g}")

    @classmethod
    def steps(cls, height: float, tread: float, count: int = 3, start: float = 1.0, landing: float | None = None
              ) -> Terrain:
        """Flat until ``x = start`` m, then ``count`` steps of ``height`` m (positive: up,
        negative: down) and ``tread`` m deep, a landing (``landing`` m, default two treads),
        and ``count`` steps back to the start level: blocks to walk over (a pit for a negative
        height)."""
        height = float(as_vector([height], "height", 1)[0])
        if height == 0 or abs(height) > 0.3:
            raise ValueError(f"height must be non-zero and at most 0.3 m, got {height!r}")
        tread = positive_scalar(tread, "tread")
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count must be a whole number ≥ 1, got {count!r}")
        landing = 2 * tread if landing is None else positive_scalar(landing, "landing")
        levels = [height * k for k in range(1, count + 1)]
        depths = [tread] * (count - 1) + [landing] + [tread] * (count - 1)
        levels = levels + levels[-2::-1]
        base = min(0.0, min(levels)) - 0.2
        blocks, x = [], start
        if height < 0:       # down: the start level is a platform above a lower floor
            blocks.append(Block([start - 5.0, 0.0, base / 2], [5.0, HALF_WIDTH, -base / 2]))
        for level, depth in zip(levels, depths):
            blocks.append(Block([x + depth / 2, 0.0, (base + level) / 2], [depth / 2, HALF_WIDTH, (level - base) / 2]))
            x += depth
        if height < 0:
            blocks.append(Block([x + 5.0, 0.0, base / 2], [5.0, HALF_WIDTH, -base / 2]))
        return cls(blocks, floor=base if height < 0 else 0.0, name=f"steps:{height:g}")

    @property
    def is_flat(self) -> bool:
        """Whether the terrain is the floor alone."""
        return not self.features

    @property
    def cell(self) -> float | None:
        """The length (m) over which the ground's shape repeats in kind: the smallest rough
        ground's cell (its bumps), None when every feature is planar (ramps, steps, blocks)."""
        cells = [feature.cell for feature in self.features if isinstance(feature, Rough)]
        return min(cells) if cells else None

    def _top(self, x: float, y: float):
        best, feature = self.floor, None
        for candidate in self.features:
            z = candidate.height(x, y)
            if z > best:                        # NaN (a block not above the point) never is
                best, feature = z, candidate
        return best, feature

    def height(self, x, y):
        """The ground's height (m) at ``(x, y)``: floats, or arrays of one shape (finite:
        ``ValueError`` otherwise — there is no ground at NaN)."""
        if np.ndim(x) == 0 and np.ndim(y) == 0:
            x, y = float(x), float(y)
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError(f"x and y must be finite, got ({x!r}, {y!r})")
            return float(self._top(x, y)[0])
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("x and y must be finite (no NaN or inf)")
        z = np.full(x.shape, self.floor)
        for feature in self.features:
            if isinstance(feature, Block):
                z = np.fmax(z, feature.top(x, y))
            else:
                z = np.fmax(z, feature.heights(x, y))
        return z

    def normal(self, x: float, y: float) -> np.ndarray:
        """The ground's unit normal at ``(x, y)`` (3,), pointing up (finite ``x``, ``y``)."""
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"x and y must be finite, got ({x!r}, {y!r})")
        _, feature = self._top(x, y)
        dx, dy = (0.0, 0.0) if feature is None else feature.gradient(x, y)
        n = np.array([-dx, -dy, 1.0])
        return n / np.linalg.norm(n)

    def rest(self, x: float, y: float, yaw: float, size, margin: float = 0.0) -> Resting:
        """Where a ``size = (length, width)`` m sole put down at ``(x, y)`` heading ``yaw``
        rests (see the module); ``margin`` (m) enlarges the footprint sampled, so that a sole
        found flat keeps that distance from an edge."""
        length, width = (positive_scalar(value, "size") for value in size)
        margin = positive_scalar(margin, "margin", allow_zero=True)
        dx, dy = self.footprint_offsets(yaw, length / 2 + margin, width / 2 + margin)
        return self.rest_on(x, y, yaw, dx, dy, self.height(x + dx, y + dy), (length + 2 * margin, width + 2 * margin))

    def rest_on(self, x: float, y: float, yaw: float, dx: np.ndarray, dy: np.ndarray, heights: np.ndarray,
                footprint: tuple[float, float]) -> Resting:
        """:meth:`rest` from its footprint's sample offsets ``dx, dy`` (:meth:`footprint_offsets`),
        the ground's ``heights`` there and the footprint's ``(length, width)`` (m, margin included): a
        caller trying many positions of one footprint computes the offsets once and the heights
        of all its positions in one :meth:`height` call (to the last bit the same)."""
        h0, gx, gy = self._plane(dx, dy, heights)
        above = h0 + gx * dx + gy * dy - heights
        gap = float(np.max(above))
        normal = np.array([-gx, -gy, 1.0]) / math.sqrt(1.0 + gx * gx + gy * gy)
        placement = surface_placement([x, y, h0], yaw, normal)
        support, bearing = 1.0, None
        if gap > CONTACT_TOLERANCE:
            on = above <= CONTACT_TOLERANCE
            points = np.column_stack([dx[on], dy[on], gx * dx[on] + gy * dy[on]]) @ placement.rotation
            bearing = convex_hull_2d(points[:, :2])
            support = min(1.0, polygon_area(bearing) / footprint[0] / footprint[1])
        return Resting(placement, gap, math.acos(min(1.0, float(normal[2]))), support, bearing)

    def rest_gaps(self, dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gap (m) and tilt (rad) of :meth:`rest_on` for a footprint's samples ``dx, dy``
        at each row of ``heights`` (k, n) (its positions), to the last bit the same, without
        the placements and bearing polygons: what a search needs to rule out candidates."""
        heights = np.ascontiguousarray(heights, dtype=float)
        dx, dy = np.ascontiguousarray(dx, dtype=float), np.ascontiguousarray(dy, dtype=float)
        planes = np.zeros((heights.shape[0], 3))
        level = np.full(heights.shape[0], True) if self.is_flat else np.ptp(heights, axis=1) < 1e-12
        found = lowest_planes(dx, dy, heights, planes) | level
        planes[level] = np.column_stack([heights[level, 0], np.zeros((int(level.sum()), 2))])
        for row in np.flatnonzero(~found):
            planes[row] = _resting_plane(dx, dy, heights[row])
        h0, gx, gy = planes.T[:, :, None]
        gaps = np.max(h0 + gx * dx + gy * dy - heights, axis=1)
        tilts = np.array([math.acos(min(1.0, 1.0 / math.sqrt(1.0 + a * a + b * b))) for _, a, b in planes.tolist()])
        return gaps, tilts

    def _plane(self, dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> tuple[float, float, float]:
        """``(h0, g_x, g_y)`` of the resting plane of samples ``heights`` at ``dx, dy``: level
        at their height when they are all at one, else :func:`_resting_plane`."""
        if self.is_flat or np.ptp(heights) < 1e-12:
            return float(heights[0]), 0.0, 0.0
        return _resting_plane(dx, dy, heights)

    def resting_normals(self, x: float, y: float, yaw: float, size) -> np.ndarray:
        """The unit normals (k, 3) of every plane a ``size = (length, width)`` m sole put down
        at ``(x, y)`` heading ``yaw`` can lie on: on or above the ground under its footprint
        and touching it at three points (the upper facets of the samples' hull; one on a
        plane). :meth:`rest` is the one lowest at the centre; a sole held by a leg rests on
        any of them, so a sole is tipped only when its normal is far from all."""
        length, width = (positive_scalar(value, "size") for value in size)
        dx, dy = self.footprint_offsets(yaw, length / 2, width / 2)
        planes = _upper_planes(dx, dy, self.height(x + dx, y + dy))
        normals = np.column_stack([-planes[:, 1], -planes[:, 2], np.ones(len(planes))])
        return normals / np.linalg.norm(normals, axis=1)[:, None]

    def footprint_offsets(self, yaw: float, half_length: float, half_width: float) -> tuple[np.ndarray, np.ndarray]:
        """World offsets (dx, dy) from a footprint's centre of sample points over it: a
        rectangle of half sizes ``half_length`` along the heading ``yaw`` and ``half_width``
        across, sampled on a grid of at most 2 cm (and half a rough ground's cell), at
        least 5 × 3 points, corners included."""
        step = 0.02 if self.cell is None else min(0.02, self.cell / 2)
        along = np.linspace(-half_length, half_length, max(5, int(math.ceil(2 * half_length / step)) + 1))
        across = np.linspace(-half_width, half_width, max(3, int(math.ceil(2 * half_width / step)) + 1))
        u, v = (grid.ravel() for grid in np.meshgrid(along, across))
        c, s = math.cos(yaw), math.sin(yaw)
        return c * u - s * v, s * u + c * v

    def __repr__(self) -> str:
        floor = "" if self.floor == 0.0 else f", floor={self.floor!r}"
        return f"Terrain({list(self.features)!r}{floor})"


def _resting_plane(dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> tuple[float, float, float]:
    """``(h0, g_x, g_y)`` of the lowest plane at the centre lying on or above every sample
    (the module's linear programme; of several, the least tilted), by the dual simplex of
    :mod:`.resting_plane`. Where it cannot start or finish, read off the samples' convex hull:
    of the upper facets' planes (each on or above every sample), the least tilted of those
    lowest at the centre."""
    plane = np.empty(3)
    if lowest_plane(np.asarray(dx, dtype=float), np.asarray(dy, dtype=float), np.asarray(heights, dtype=float), plane):
        return float(plane[0]), float(plane[1]), float(plane[2])
    planes = _upper_planes(dx, dy, heights)
    lowest = planes[planes[:, 0] <= planes[:, 0].min() + 1e-12]
    h0, gx, gy = lowest[int(np.argmin(np.hypot(lowest[:, 1], lowest[:, 2])))]
    return float(h0), float(gx), float(gy)


def _upper_planes(dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """``(h0, g_x, g_y)`` (k, 3) of each plane ``z = h0 + g_x dx + g_y dy`` on or above every
    sample that touches three of them: the upper facets of the samples' convex hull (tilted
    less than 60°: the vertical sides of a footprint's hull are none), or the samples' own
    plane."""
    if not _bent(dx, dy, heights):
        points = np.column_stack([np.ones_like(dx), dx, dy])
        fit = np.linalg.lstsq(points, heights, rcond=None)[0]
        if np.max(np.abs(points @ fit - heights)) < 1e-9:
            return fit[None, :]
    from scipy.spatial import ConvexHull

    a, b, c, d = ConvexHull(np.column_stack([dx, dy, heights])).equations.T    # a x + b y + c z + d = 0
    upper = c > 0.5                                     # unit outward normals within 60° of up
    return np.column_stack([-d[upper] / c[upper], -a[upper] / c[upper], -b[upper] / c[upper]])


def _bent(dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> bool:
    """Whether the samples are surely not on one plane within 1e-9 m, read from three
    consecutive samples evenly spaced on a line (a footprint's rows): on a plane within ε
    their second difference ``h_(k-1) − 2 h_k + h_(k+1)`` is at most 4ε (plus the plane's
    slope times the spacing's rounding), so one over 1e-6 m rules the plane out — the
    least-squares test :func:`_upper_planes` would run is then skipped, to the same answer."""
    even = (np.abs(dx[:-2] - 2.0 * dx[1:-1] + dx[2:]) < 1e-12) & (np.abs(dy[:-2] - 2.0 * dy[1:-1] + dy[2:]) < 1e-12)
    bends = np.abs(heights[:-2] - 2.0 * heights[1:-1] + heights[2:])[even]
    return bool(bends.size) and float(np.max(bends)) > 1e-6
