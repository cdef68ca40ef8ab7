"""Terrain: the ground a legged robot stands and walks on — one description, given both to a
footstep planner (:mod:`tsid_py.control.walking`) and to the simulator
(:mod:`tsid_py.sim.terrain` builds the same surfaces in MuJoCo).

**Surfaces.** A :class:`Terrain` is the union of

* a **floor**, the plane ``z = floor`` everywhere;
* **blocks** (:class:`Block`): boxes of any pose, whose top faces are the planar patches of
  ramps, steps and platforms;
* optionally a **height field** (:class:`HeightField`): heights on a regular grid, linear on
  the two triangles of each cell (split along the diagonal from node ``(r, c)`` to
  ``(r + 1, c + 1)``, as MuJoCo triangulates its height fields).

The **ground height** ``h(x, y)`` is the highest of these surfaces above ``(x, y)``.

**Where a sole comes to rest** (:meth:`Terrain.rest`). A flat sole of ``length × width`` m
put down with its centre over ``(x, y)`` and heading ``yaw`` rests on the highest points
beneath it: among the planes ``z = h0 + g_x dx + g_y dy`` (``dx, dy`` from ``(x, y)``, world
axes) that lie on or above the ground at every sample point ``i`` of the footprint, the one
lowest at the centre,

    minimise h0   subject to   h0 + g_x dx_i + g_y dy_i ≥ h(x_i, y_i)   for all i,

a linear programme in ``(h0, g_x, g_y)`` whose answer is the facet of the upper convex hull of
the samples above the centre (the sole rests on the points that span it, and the centre lies
over their hull: it does not tip). The sole's normal is ``n ∝ (−g_x, −g_y, 1)``; its
placement turns the world by ``yaw`` about the vertical, then tilts the vertical onto ``n``
by the smallest rotation (so the sole's x axis keeps the heading seen from above). The
**gap** is the largest height of the sole above the ground under it, ``max_i (plane_i −
h_i)``: zero on a plane, the riser's height for a sole half over a step's edge. The
**support** is the share of the footprint's area inside the convex hull of the samples within
:data:`CONTACT_TOLERANCE` of the resting plane (where the sole bears, once a compliant sole
or floor gives that much): 1 on a plane, less on bumps, where the sole rests on a few points
and its centre of pressure can only be inside their hull. A planner looks for footholds of a
small gap and a large support.

Factories build the terrains of the walk demo: :meth:`Terrain.slope`,
:meth:`Terrain.steps`, :meth:`Terrain.rough`; each starts ``start`` m ahead of the origin
along +x (where a robot stands, facing +x) and is flat before.

Units: m, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from ._validation import as_matrix, as_rotation, as_vector, positive_scalar

#: Half the lateral extent (m) of the demo terrains' blocks and height field (y in ±).
HALF_WIDTH = 2.0
#: A sample of a footprint within this distance (m) of the resting plane bears on it.
CONTACT_TOLERANCE = 0.002


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


@dataclass(frozen=True)
class HeightField:
    """Heights (nrow, ncol) m at the nodes ``x = x0 + c spacing``, ``y = y0 + r spacing``
    (rows along y, columns along x: MuJoCo's order), linear on each cell's two triangles
    (see the module); ``origin = (x0, y0)``."""

    origin: np.ndarray
    spacing: float
    heights: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "origin", as_vector(self.origin, "origin", 2).copy())
        object.__setattr__(self, "spacing", positive_scalar(self.spacing, "spacing"))
        heights = as_matrix(self.heights, "heights", (None, None)).copy()
        if heights.shape[0] < 2 or heights.shape[1] < 2:
            raise ValueError(f"heights must have at least 2 rows and 2 columns, got shape {heights.shape}")
        heights.flags.writeable = False
        object.__setattr__(self, "heights", heights)

    @property
    def size(self) -> tuple[float, float]:
        """Extent (x, y) m of the grid."""
        rows, columns = self.heights.shape
        return (columns - 1) * self.spacing, (rows - 1) * self.spacing

    def height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Height at each ``(x, y)``, NaN outside the grid."""
        rows, columns = self.heights.shape
        fx, fy = (x - self.origin[0]) / self.spacing, (y - self.origin[1]) / self.spacing
        inside = (fx >= -1e-9) & (fx <= columns - 1 + 1e-9) & (fy >= -1e-9) & (fy <= rows - 1 + 1e-9)
        c = np.clip(np.floor(fx), 0, columns - 2).astype(int)
        r = np.clip(np.floor(fy), 0, rows - 2).astype(int)
        u, v = np.clip(fx - c, 0.0, 1.0), np.clip(fy - r, 0.0, 1.0)
        h = self.heights
        h00, h10, h01, h11 = h[r, c], h[r, c + 1], h[r + 1, c], h[r + 1, c + 1]
        lower = h00 + u * (h10 - h00) + v * (h11 - h10)          # u ≥ v: below the diagonal
        upper = h00 + v * (h01 - h00) + u * (h11 - h01)
        return np.where(inside, np.where(u >= v, lower, upper), np.nan)


@dataclass(frozen=True)
class Resting:
    """Where a sole comes to rest (:meth:`Terrain.rest`): its ``placement`` (pin.SE3: centre
    on the resting plane, z along its normal), the ``gap`` (m), the ``tilt`` (rad) of the
    normal from the vertical and the ``support`` (0 … 1) (see the module)."""

    placement: pin.SE3
    gap: float
    tilt: float
    support: float = 1.0

    @property
    def normal(self) -> np.ndarray:
        return self.placement.rotation[:, 2].copy()


def tilt_rotation(normal) -> np.ndarray:
    """The smallest rotation (3, 3) taking the vertical onto the unit vector ``normal``."""
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
    """The ground (see the module): ``floor`` height (m), ``blocks``, an optional
    ``height_field``; ``name`` says what it is (e.g. ``"slope:10"``)."""

    def __init__(self, floor: float = 0.0, blocks=(), height_field: HeightField | None = None, name: str = "flat"):
        self.floor = float(as_vector([floor], "floor", 1)[0])
        self.blocks: tuple[Block, ...] = tuple(blocks)
        for block in self.blocks:
            if not isinstance(block, Block):
                raise ValueError(f"blocks must be Block values, got {type(block).__name__}")
        if height_field is not None and not isinstance(height_field, HeightField):
            raise ValueError(f"height_field must be a HeightField, got {type(height_field).__name__}")
        self.height_field = height_field
        self.name = str(name)

    def __repr__(self) -> str:
        return f"Terrain({self.name!r}: floor {self.floor:g} m, {len(self.blocks)} blocks" + (
            ", a height field)" if self.height_field is not None else ")")

    @property
    def flat(self) -> bool:
        """Whether the terrain is the floor alone."""
        return not self.blocks and self.height_field is None

    # ------------------------------------------------------------------ heights
    def height(self, x, y):
        """Ground height (m) at ``(x, y)``: floats, or arrays of one shape."""
        scalar = np.ndim(x) == 0 and np.ndim(y) == 0
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        z = np.full(x.shape, self.floor)
        surfaces = [block.top(x, y) for block in self.blocks]
        if self.height_field is not None:
            surfaces.append(self.height_field.height(x, y))
        for surface in surfaces:
            z = np.fmax(z, surface)
        return float(z) if scalar else z

    def rest(self, x: float, y: float, yaw: float, size, margin: float = 0.0) -> Resting:
        """Where a ``size = (length, width)`` m sole put down at ``(x, y)`` heading ``yaw``
        rests (see the module); ``margin`` (m) enlarges the footprint sampled, so that a sole
        found flat keeps that distance from an edge."""
        length, width = (positive_scalar(value, "size") for value in size)
        margin = positive_scalar(margin, "margin", allow_zero=True)
        dx, dy = self.footprint_offsets(yaw, length / 2 + margin, width / 2 + margin)
        heights = self.height(x + dx, y + dy)
        if self.flat or np.ptp(heights) < 1e-12:
            h0, gx, gy = float(heights[0]), 0.0, 0.0
        else:
            h0, gx, gy = _resting_plane(dx, dy, heights)
        above = h0 + gx * dx + gy * dy - heights
        gap = float(np.max(above))
        normal = np.array([-gx, -gy, 1.0]) / math.sqrt(1.0 + gx * gx + gy * gy)
        placement = surface_placement([x, y, h0], yaw, normal)
        support = 1.0
        if gap > CONTACT_TOLERANCE:
            bearing = above <= CONTACT_TOLERANCE
            support = min(1.0, _hull_area(dx[bearing], dy[bearing]) / (length + 2 * margin) / (width + 2 * margin))
        return Resting(placement, gap, math.acos(min(1.0, float(normal[2]))), support)

    def footprint_offsets(self, yaw: float, half_length: float, half_width: float) -> tuple[np.ndarray, np.ndarray]:
        """World offsets (dx, dy) from a footprint's centre of sample points over it: a
        rectangle of half sizes ``half_length`` along the heading ``yaw`` and ``half_width``
        across, sampled on a grid of at most 2 cm (and half the height field's spacing), at
        least 5 × 3 points, corners included."""
        step = min(0.02, self.height_field.spacing / 2) if self.height_field is not None else 0.02
        along = np.linspace(-half_length, half_length, max(5, int(math.ceil(2 * half_length / step)) + 1))
        across = np.linspace(-half_width, half_width, max(3, int(math.ceil(2 * half_width / step)) + 1))
        u, v = (grid.ravel() for grid in np.meshgrid(along, across))
        c, s = math.cos(yaw), math.sin(yaw)
        return c * u - s * v, s * u + c * v

    # ------------------------------------------------------------------ demo terrains
    @classmethod
    def slope(cls, degrees: float, start: float = 0.5, length: float = 4.0) -> Terrain:
        """Flat until ``x = start`` m, then a ramp of ``degrees`` (positive: up, negative:
        down) for ``length`` m along x, then flat again (a plateau up, a lower floor down)."""
        angle = math.radians(float(degrees))
        if not 0 < abs(angle) <= math.radians(30.0):
            raise ValueError(f"degrees must be in [-30, 0) or (0, 30], got {degrees!r}")
        length = positive_scalar(length, "length")
        rise = length * math.tan(angle)
        thickness = 0.5
        rotation = pin.exp3(np.array([0.0, -angle, 0.0]))           # +x rises for a positive angle
        run = length / math.cos(angle) / 2
        top_middle = np.array([start + length / 2, 0.0, rise / 2])
        ramp = Block(top_middle - rotation[:, 2] * thickness / 2, [run, HALF_WIDTH, thickness / 2], rotation)
        before = Block([start - 5.0, 0.0, -thickness / 2], [5.0, HALF_WIDTH, thickness / 2])
        after = Block([start + length + 5.0, 0.0, rise - thickness / 2], [5.0, HALF_WIDTH, thickness / 2])
        if rise > 0:            # up: the floor, the ramp, a plateau
            floor, blocks = 0.0, [ramp, after]
        else:                   # down: a platform, the ramp, a lower floor
            floor, blocks = rise - thickness, [before, ramp, after]
        return cls(floor, blocks, name=f"slope:{degrees:g}")

    @classmethod
    def steps(cls, height: float, tread: float, count: int = 3, start: float = 0.5, landing: float | None = None
              ) -> Terrain:
        """Flat until ``x = start`` m, then ``count`` steps of ``height`` m (positive: up,
        negative: down) and ``tread`` m deep, a landing (``landing`` m, default two treads),
        and ``count`` steps back to the start level: a platform to walk over (a pit for a
        negative height)."""
        height = float(as_vector([height], "height", 1)[0])
        if height == 0 or abs(height) > 0.3:
            raise ValueError(f"height must be non-zero and at most 0.3 m, got {height!r}")
        tread = positive_scalar(tread, "tread")
        if not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count must be a whole number ≥ 1, got {count!r}")
        landing = 2 * tread if landing is None else positive_scalar(landing, "landing")
        levels = [height * k for k in range(1, count + 1)]
        depths = [tread] * (count - 1) + [landing] + [tread] * (count - 1)
        levels = levels + levels[-2::-1]
        base = min(0.0, min(levels)) - 0.2
        blocks, x = [], start
        if height < 0:       # down: the start level is a platform above a lower floor
            blocks.append(Block([start - 5.0, 0.0, (base + 0.0) / 2], [5.0, HALF_WIDTH, (0.0 - base) / 2]))
        for level, depth in zip(levels, depths):
            blocks.append(Block([x + depth / 2, 0.0, (base + level) / 2], [depth / 2, HALF_WIDTH, (level - base) / 2]))
            x += depth
        if height < 0:
            blocks.append(Block([x + 5.0, 0.0, (base + 0.0) / 2], [5.0, HALF_WIDTH, (0.0 - base) / 2]))
        return cls(base if height < 0 else 0.0, blocks, name=f"steps:{height:g}")

    @classmethod
    def rough(cls, amplitude: float, seed: int = 0, start: float = 0.5, length: float = 4.5,
              bump: float = 0.2, spacing: float = 0.02) -> Terrain:
        """Flat until ``x = start`` m, then ground of heights within ``±amplitude`` m for
        ``length`` m: independent uniform heights on a grid of ``bump`` m (one draw of the
        generator seeded with ``seed``), interpolated by cubic B-splines onto a height field
        of ``spacing`` m and scaled so its extremes are ``±amplitude``; it blends in from
        flat over the first ``bump`` m."""
        amplitude = positive_scalar(amplitude, "amplitude")
        if amplitude > 0.1:
            raise ValueError(f"amplitude must be at most 0.1 m, got {amplitude!r}")
        from scipy.ndimage import map_coordinates

        bump, spacing = positive_scalar(bump, "bump"), positive_scalar(spacing, "spacing")
        length = positive_scalar(length, "length")
        rng = np.random.default_rng(seed)
        coarse = rng.uniform(-1.0, 1.0, (int(round(2 * HALF_WIDTH / bump)) + 1, int(round(length / bump)) + 1))
        columns, rows = int(round(length / spacing)) + 1, int(round(2 * HALF_WIDTH / spacing)) + 1
        x, y = np.arange(columns) * spacing, np.arange(rows) * spacing
        fine = map_coordinates(coarse, np.meshgrid(y / bump, x / bump, indexing="ij"), order=3, mode="nearest")
        fine *= amplitude / np.max(np.abs(fine))
        blend = np.clip(np.minimum(x, x[-1] - x) / bump, 0.0, 1.0)   # in from flat, and out again
        field = HeightField([start, -HALF_WIDTH], spacing, fine * blend[None, :])
        end = start + x[-1]
        return cls(-amplitude - 0.05, [Block([start - 5.0, 0.0, -0.25], [5.0, HALF_WIDTH, 0.25]),
                                       Block([end + 5.0, 0.0, -0.25], [5.0, HALF_WIDTH, 0.25])],
                   field, name=f"rough:{amplitude:g}")


def _resting_plane(dx: np.ndarray, dy: np.ndarray, heights: np.ndarray) -> tuple[float, float, float]:
    """``(h0, g_x, g_y)`` of the lowest plane at the centre lying on or above every sample
    (the module's linear programme). Samples on one plane: that plane. Otherwise the
    programme's optimum is a facet of the samples' convex hull: of the upper facets' planes
    (each on or above every sample), the one lowest at the centre — read off Qhull's hull
    (scipy.spatial.ConvexHull) rather than solved for."""
    from scipy.spatial import ConvexHull

    points = np.column_stack([np.ones_like(dx), dx, dy])
    fit = np.linalg.lstsq(points, heights, rcond=None)[0]
    if np.max(np.abs(points @ fit - heights)) < 1e-9:
        return float(fit[0]), float(fit[1]), float(fit[2])
    hull = ConvexHull(np.column_stack([dx, dy, heights]))
    a, b, c, d = hull.equations.T                       # a x + b y + c z + d = 0, outward (a, b, c)
    upper = c > 1e-9
    best = int(np.argmin(-d[upper] / c[upper]))
    a, b, c, d = a[upper][best], b[upper][best], c[upper][best], d[upper][best]
    return float(-d / c), float(-a / c), float(-b / c)



def _hull_area(x: np.ndarray, y: np.ndarray) -> float:
    """Area (m²) of the convex hull of the points ``(x, y)``: 0 for fewer than three or
    collinear ones."""
    if x.size < 3:
        return 0.0
    from scipy.spatial import ConvexHull, QhullError

    try:
        return float(ConvexHull(np.column_stack([x, y])).volume)
    except QhullError:
        return 0.0
