"""Capture-point (DCM) quantities of the linear inverted pendulum, and the largest push a
robot standing on its soles can recover from without stepping.

The linear inverted pendulum (LIPM): the centre of mass ``c`` at constant height ``z`` above
the ground, the ground's force through the centre of pressure ``p``. Horizontally,

    c̈ = ω² (c − p) + F / m,        ω = √(g / z)   (1/s),

with ``F`` an external horizontal force on the CoM. The divergent component of motion
(capture point) ``ξ = c + ċ / ω`` obeys ``ξ̇ = ω (ξ − p) + F / (m ω)``: it runs away from
the centre of pressure, and the robot can stop without a step exactly when ξ stays in the
support polygon (``p`` can be anywhere inside it, not outside).

**The bounds.** The robot stands still (ξ = c) and is pushed with a constant force ``F``
for ``T`` s toward an edge of the support polygon at horizontal distance ``d`` from the CoM
(the support function of the polygon in the push direction).

* *Impulse bound.* A short push is an impulse ``F T``: it changes ``ċ`` by ``F T / m`` and
  ξ by ``F T / (m ω)``, before the centre of pressure can do anything. Recoverable iff
  ``F T / (m ω) ≤ d``, i.e. ``F ≤ m ω d / T``.
* *CoP-at-edge bound.* The best a controller can do during the push is to put ``p`` on the
  edge at once and hold it there. With ``x = ξ − p_edge``, ``x(0) = −d`` and
  ``ẋ = ω x + F / (m ω)``, so ``x(T) = −d e^{ωT} + F (e^{ωT} − 1) / (m ω²)``; after the push
  ``p`` stays on the edge and ξ stops iff ``x(T) ≤ 0``:
  ``F ≤ (m g / z) d e^{ωT} / (e^{ωT} − 1)``. As ``T → 0`` this tends to the impulse bound,
  and it is always the larger of the two.
* *Push height.* A force at height ``h`` above the ground (not at the CoM) also applies the
  moment ``F (h − z)`` about the CoM. With the centroidal angular momentum held near zero,
  the moment balance about the centre of pressure gives ``c̈ = ω² (c − p) + F h / (m z)``:
  the push acts as ``F h / z`` at the CoM, so both bounds scale by ``z / h``.

Units: N, m, s, kg. The bounds ignore what the LIPM ignores (the robot can also recover
with its hips, i.e. changing its angular momentum, or by stepping), so a controller may
survive a little beyond them; they are what the soles alone allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._validation import as_vector, positive_scalar

#: The shortest push :func:`push_bounds` takes, s: below, the bounds (∝ 1/T) only say "an
#: impulse", which the impulse of a longer push describes.
MIN_PUSH_DURATION = 1e-6

#: Unit push directions by name, in the world's horizontal plane.
DIRECTIONS = {"+x": np.array([1.0, 0.0]), "-x": np.array([-1.0, 0.0]),
              "+y": np.array([0.0, 1.0]), "-y": np.array([0.0, -1.0])}


def lipm_frequency(com_height: float, gravity: float = 9.81) -> float:
    """``ω = √(g / z)`` (1/s) of the linear inverted pendulum at CoM height ``z`` (m)."""
    return float(np.sqrt(positive_scalar(gravity, "gravity") / positive_scalar(com_height, "com_height")))


def sole_corners(robot, feet=None, sole_size=None) -> np.ndarray:
    """World (x, y) of the four corners of each sole, (4 k, 2), at the robot's current
    kinematics (call ``robot.update`` first). Each sole is the rectangle ``sole_size``
    (length along the frame's x axis, width along y; default ``robot.sole_size``) centred at
    the contact frame's origin, as :class:`~tsid_py.PlanarContact` models it. A robot with
    point feet (no ``sole_size``): each foot's contact point, (k, 2)."""
    feet = list(robot.feet if feet is None else feet)
    if not feet:
        raise ValueError("feet must name at least one contact frame, got an empty list")
    size = robot.sole_size if sole_size is None else sole_size
    if size is None:
        return np.array([robot.frame_placement(robot.frame_id(foot)).translation[:2] for foot in feet])
    length, width = (positive_scalar(s, "sole_size") for s in size)
    return np.vstack([rectangle_corners(robot.frame_placement(robot.frame_id(foot)), length, width)
                      for foot in feet])


def rectangle_corners(placement, length: float, width: float) -> np.ndarray:
    """World (x, y) of the four corners (4, 2) of a ``length × width`` m rectangle centred at
    ``placement``'s origin, length along its x axis and width along its y axis (a sole, as
    :class:`~tsid_py.PlanarContact` models it)."""
    local = np.array([[sx * length / 2, sy * width / 2, 0.0] for sx in (1, -1) for sy in (1, -1)])
    return (local @ placement.rotation.T + placement.translation)[:, :2]


def sole_outline(x: float, y: float, yaw: float, size) -> np.ndarray:
    """Corners (4, 2), counter-clockwise, of a ``size = (length, width)`` m sole rectangle
    lying level at ``(x, y)`` m with heading ``yaw`` rad (length along the heading)."""
    half = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * np.asarray(size, dtype=float) / 2
    c, s = math.cos(yaw), math.sin(yaw)
    return half @ np.array([[c, s], [-s, c]]) + [x, y]


def edge_distance(points: np.ndarray, origin, direction) -> float:
    """Distance from ``origin`` (x, y) to the edge of the convex hull of ``points`` (k, 2)
    along the horizontal unit ``direction``: the hull's support function
    ``max_i direction · (points_i − origin)``, m (negative when ``origin`` is beyond it)."""
    direction = as_vector(direction, "direction", 2)
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise ValueError("direction must be a non-zero (x, y) vector, got [0, 0]")
    return float(np.max((np.asarray(points, dtype=float) - as_vector(origin, "origin", 2)) @ (direction / norm)))


@dataclass(frozen=True)
class PushBound:
    """The largest constant push (N) of ``duration`` s in one direction the soles allow.

    ``margin`` is the CoM-to-edge distance ``d`` (m), ``impulse`` and ``cop_at_edge`` the two
    bounds of :mod:`tsid_py.control.capture_point` (already scaled by ``z / h``)."""

    direction: str
    margin: float
    impulse: float
    cop_at_edge: float


def push_bounds(robot, duration: float = 0.1, *, q=None, feet=None, sole_size=None, com=None,
                push_height: float | None = None, directions=tuple(DIRECTIONS)) -> dict[str, PushBound]:
    """Capture-point bounds on a push of ``duration`` s, per direction (see the module's
    derivation), from the robot's mass, its CoM and its soles at configuration ``q``
    (default ``robot.q_ref``).

    ``feet``: the soles in contact (default all of ``robot.feet``: single support is one
    name). ``com``: a CoM position (3,) to use instead of the one at ``q`` (e.g. over the
    support sole). ``push_height``: height (m) of the push's point of application; default
    the centre of mass of the root body (where :meth:`tsid_py.sim.Simulation.push` applies
    it). The robot's kinematics are updated at ``(q, 0)``.
    """
    duration = positive_scalar(duration, "duration")
    if not MIN_PUSH_DURATION <= duration:
        raise ValueError(f"duration must be at least {MIN_PUSH_DURATION} s (a shorter push is an impulse: give the "
                         f"impulse's duration), got {duration!r}")
    q = robot.q_ref if q is None else q
    robot.update(q, robot.zero_velocity())
    corners = sole_corners(robot, feet, sole_size)
    centre = robot.com.copy() if com is None else as_vector(com, "com", 3)
    ground = float(np.mean([robot.frame_placement(robot.frame_id(f)).translation[2]
                            for f in (robot.feet if feet is None else feet)]))
    height = centre[2] - ground
    if height <= 0:
        raise ValueError(f"com must be above the soles, got a CoM {height:.3g} m above them")
    if push_height is None:
        root = robot.model.inertias[1]
        push_height = float(robot.data.oMi[1].act(root.lever)[2]) - ground
    push_height = positive_scalar(push_height, "push_height")
    omega = lipm_frequency(height, robot.gravity)
    mass = robot.mass
    # e^{ωT} / (e^{ωT} − 1) = 1 / (1 − e^{−ωT}), written so that it stays finite for long pushes
    # (→ 1: the static bound m g d / z) and accurate for short ones (expm1)
    edge_factor = 1.0 / -np.expm1(-omega * duration)
    scale = height / push_height
    bounds = {}
    for name in directions:
        if name not in DIRECTIONS:
            raise ValueError(f"directions must be among {list(DIRECTIONS)}, got {name!r}")
        d = edge_distance(corners, centre[:2], DIRECTIONS[name])
        impulse = mass * omega * d / duration * scale
        at_edge = mass * robot.gravity / height * d * edge_factor * scale
        bounds[name] = PushBound(name, d, float(impulse), float(at_edge))
    return bounds


class SupportPolygon:
    """The convex hull of the soles' corners, as half-planes ``normals · p ≤ offsets``
    (outward unit normals, counter-clockwise ``vertices``), m."""

    def __init__(self, points):
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2 or len(points) < 3:
            raise ValueError(f"points must be (k ≥ 3, 2) horizontal positions, got shape {points.shape}")
        if not np.all(np.isfinite(points)):
            raise ValueError("points must be finite (no NaN or inf)")
        self.vertices, self.normals, self.offsets, segments = _hull_polygon(np.ascontiguousarray(points))
        if len(self.vertices) < 3:
            raise ValueError(f"points must span an area: their hull is a segment or a point, got {points.tolist()}")
        self._edges = [(nx, ny, offset) for (nx, ny), offset in zip(self.normals.tolist(), self.offsets.tolist())]
        #: each edge as (start x, start y, direction x, direction y, squared length), floats
        self._segments = [tuple(row) for row in segments.tolist()]

    def contains(self, point) -> bool:
        return bool(np.all(self.normals @ point <= self.offsets + 1e-12))

    def shrunk(self, margin: float) -> SupportPolygon:
        """The polygon of the points at least ``margin`` (m) inside every edge; where that
        leaves nothing (``margin`` beyond the inradius), the largest margin that does (down
        to a sliver around the deepest point)."""
        margin = positive_scalar(margin, "margin", allow_zero=True)
        normals, offsets = self.normals, self.offsets
        previous = np.roll(np.arange(len(offsets)), 1)
        # vertex i: where the inset edges i − 1 and i meet
        matrices = np.stack([normals[previous], normals], axis=1)

        def inset(distance):
            corners = np.linalg.solve(matrices, (np.column_stack([offsets[previous], offsets]) - distance)[..., None])[..., 0]
            ok = np.all(corners @ normals.T <= offsets - distance + 1e-9)
            return corners, ok

        corners, ok = inset(margin)
        if not ok:
            low, high = 0.0, margin
            for _ in range(30):
                middle = 0.5 * (low + high)
                low, high = (middle, high) if inset(middle)[1] else (low, middle)
            corners = inset(low * (1.0 - 1e-6))[0]
            if np.ptp(corners, axis=0).min() < 1e-9:            # a segment or a point: keep a sliver
                corners = corners + 1e-6 * np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])[: len(corners)]
        return SupportPolygon(corners)

    def outside_xy(self, x: float, y: float) -> float:
        """How far (m) the point ``(x, y)`` lies outside the polygon, along the edge normal it
        violates most (negative inside: minus its distance to the nearest edge line).
        Plain floats: the control loop's path."""
        return max(nx * x + ny * y - offset for nx, ny, offset in self._edges)

    def clamp_xy(self, x: float, y: float) -> tuple[float, float]:
        """:meth:`clamp` on plain floats, the same arithmetic without a numpy call (the
        control loop's path, where numpy's per-call cost on 2-vectors is the whole cost)."""
        for nx, ny, offset in self._edges:
            if nx * x + ny * y > offset + 1e-12:
                break
        else:
            return x, y
        best, nearest = math.inf, (x, y)
        for ax, ay, ex, ey, squared in self._segments:
            ratio = min(max(((x - ax) * ex + (y - ay) * ey) / squared, 0.0), 1.0)
            px, py = ax + ratio * ex, ay + ratio * ey
            distance = (px - x) * (px - x) + (py - y) * (py - y)
            if distance < best:
                best, nearest = distance, (px, py)
        return nearest

    def clamp(self, point) -> np.ndarray:
        """``point`` (2,) if it is inside, else the nearest point of the polygon's boundary."""
        point = np.asarray(point, dtype=float)
        if self.contains(point):
            return point
        start = self.vertices
        edges = np.roll(start, -1, axis=0) - start
        ratio = np.clip(np.einsum("ij,ij->i", point - start, edges) / np.einsum("ij,ij->i", edges, edges), 0.0, 1.0)
        nearest = start + ratio[:, None] * edges
        return nearest[np.argmin(np.einsum("ij,ij->i", nearest - point, nearest - point))]


#: Sine of the smallest turn a hull vertex makes (:func:`_hull_polygon`): below, collinear.
COLLINEAR = 1e-9


@njit(cache=True, inline="always")
def _hull_polygon(points):
    """The convex hull of ``points`` (k, 2) by Andrew's monotone chain: its vertices (m, 2)
    counter-clockwise from the lowest x (then y), points on an edge (within
    :data:`COLLINEAR`) left out; each edge's
    outward unit normal (m, 2), its offset ``n · a`` (m,) and ``(a_x, a_y, e_x, e_y, |e|²)``
    (m, 5) for the edge ``e`` from vertex ``a`` to the next. A few points (soles' corners):
    Qhull's call costs ten times the whole of this."""
    k = points.shape[0]
    order = np.arange(k)
    for i in range(1, k):                                  # insertion sort by (x, y)
        j = i
        while j > 0 and (points[order[j - 1], 0] > points[order[j], 0]
                         or (points[order[j - 1], 0] == points[order[j], 0]
                             and points[order[j - 1], 1] > points[order[j], 1])):
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    chain = np.empty(2 * k, dtype=np.int64)
    size = 0
    for sweep in range(2):                                 # the lower hull, then the upper one
        start = size
        for step in range(k):
            index = order[step] if sweep == 0 else order[k - 1 - step]
            while size >= start + 2:
                a, b = points[chain[size - 2]], points[chain[size - 1]]
                ux, uy, wx, wy = b[0] - a[0], b[1] - a[1], points[index, 0] - a[0], points[index, 1] - a[1]
                # a left turn by more than round-off (1e-9 rad): nearly collinear points, which
                # would give two nearly parallel edges, are merged as Qhull merges them
                if ux * wy - uy * wx > COLLINEAR * math.sqrt((ux * ux + uy * uy) * (wx * wx + wy * wy)):
                    break
                size -= 1
            chain[size] = index
            size += 1
        size -= 1                                          # its last point starts the other half
    count = max(size, 0)
    vertices = np.empty((count, 2))
    for i in range(count):
        vertices[i] = points[chain[i]]
    normals = np.empty((count, 2))
    offsets = np.empty(count)
    segments = np.empty((count, 5))
    for i in range(count):
        ax, ay = vertices[i, 0], vertices[i, 1]
        ex, ey = vertices[(i + 1) % count, 0] - ax, vertices[(i + 1) % count, 1] - ay
        length = math.sqrt(ey * ey + ex * ex)
        normals[i, 0], normals[i, 1] = ey / length, -ex / length
        offsets[i] = normals[i, 0] * ax + normals[i, 1] * ay
        segments[i, 0], segments[i, 1], segments[i, 2], segments[i, 3] = ax, ay, ex, ey
        segments[i, 4] = ex * ex + ey * ey
    return vertices, normals, offsets, segments
