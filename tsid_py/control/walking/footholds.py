"""Footholds on a terrain: each planned footstep put where its sole rests flat, off the edges,
with its height and surface normal; and how high a swing must go to clear the ground between
two footholds.

**Placing a footstep** (:func:`place_footstep`). A footstep planned on flat ground
(:mod:`.footsteps`) gives a foot, a point ``(x, y)`` and a heading. On a
:class:`~tsid_py.control.terrain.Terrain` the sole put down there rests on the highest points under
it (:meth:`~tsid_py.control.terrain.Terrain.rest`); its footprint is sampled ``margin`` m larger
than the sole, so that a sole found resting flat keeps that distance from an edge. A sole on
bumps bears on a polygon of itself only (:attr:`~tsid_py.control.terrain.Resting.bearing`), and
its centre of pressure has the **room** that polygon leaves around its centroid
(:func:`cop_room`: the largest scale of the sole's rectangle, centred there, inside it; 1 when
the whole sole bears). The footstep is good when the sole lies flat on the ground: its
**gap** (its largest height above the ground under the enlarged footprint) at most
``max_gap``, its room at least ``min_room``, its tilt at most ``max_tilt``. A sole across a
step's edge (gap: the riser) is not, nor one across the crease at the foot of a ramp (it
would rest on heel and toe, tilted half the ramp's angle: on 10°, a 1 cm gap under the
crease), nor one on the top of a bump (it rocks on a few points). Candidates are tried on a
grid around the planned point — along the heading first, by increasing distance, up to
``search`` m every ``resolution``, then across it up to ``search / 2`` (on a grid twice as
coarse) — and the first good one taken. When none is (rough ground: ±2 cm bumps on a 10 cm
grid leave a sole's centre a third of its room on average), the candidate of the largest
room less ``shift_cost`` per metre it moves (one over the sole's length: moving by a sole's
length costs all its room) is taken: a footstep moves only for a better bearing, and not far.
On rough ground the search reaches half a cell of the bumps' grid
(:attr:`~tsid_py.control.terrain.Terrain.cell`): the ground's shape repeats in kind at the
cell, and a footstep moved farther lengthens a stride for nothing new (a walk whose
footholds were each taken for their support alone, up to 14 cm from the plan, had strides
50 % longer than the gait's and swings three times as fast; one good foothold 14 cm back
made a 0.65 m stride whose swing caught the stance leg). The footstep gets
the height, normal and bearing polygon of the sole's own resting pose (its footprint without
the margin) (:class:`~.footsteps.Footstep`); the walk plans its centre of pressure at the
polygon's centroid (:attr:`~.footsteps.Footstep.support_point`) and its contact bears on the
polygon (:func:`contact_region`, :attr:`tsid_py.PlanarContact.bearing`).

**Clearing the ground** (:func:`swing_apex`). A swing goes up from its start foothold to an
apex, then down to its landing (:class:`~.swing.SwingTrajectory`). The apex is ``clearance``
above the highest ground under the sole's footprint swept along the straight line between
the two footholds (sampled every 2 cm, footprint ``margin`` m larger than the sole): a riser
or a bump in between is cleared, not only the footholds.

A swing that goes straight toward its landing as it rises can still catch its toe on the riser
of a step up (or its heel on the edge of a step down) when the foothold is near it:
:func:`clear_swing` holds the horizontal motion back at the start and the end of the swing
(:class:`~.swing.SwingTrajectory`'s ``delays``, the least total of :data:`SWING_DELAYS`; when
the landing foothold is uneven — its sole rests with a gap, on bumps — the motion is over
:data:`SETTLE` of the swing before touch-down at least, so that the sole comes down onto the
points it is to rest on rather than sliding in over the bumps around them) until
:func:`swing_clearance` is met along the reference, sampled every
:data:`CLEARANCE_SAMPLES`-th of the swing on a footprint ``margin`` m larger than the sole (half
the placing margin): no point below the ground (within 2 mm), and a point over an
**obstacle** — ground more than 5 mm above the surface plane of the foothold the foot leaves
(in the swing's first half) or of the one it lands on (second half): a riser, the crease at
the foot of a ramp, not the ramp the foothold is on — ``obstacle`` m above it (the foot's tracking
error: a riser's edge, the ramp ahead, a bump).

**A swing down from the highest ground it passes** (:func:`descent_apex`) — its landing lower
than its start by more than :data:`OBSTACLE_CLEARANCE` ``clearance``, and no ground under the
swept footprint above the start foothold: the trailing foot leaving the upper tread of a step
down — rises only :data:`OBSTACLE_CLEARANCE` ``clearance`` above its start, the clearance the
swing keeps over an obstacle, instead of the full ``clearance``. At that swing's lift-off the
foot is behind the hip and higher than the stance foot by the drop: its leg is folded by the
drop and leans back, so its ankle flexes toward its stop, and every centimetre the flat sole
rises there folds the leg further. On iCub (a 5 cm drop, 11 % of its straight leg, the feet
its gait's step apart) no posture with both soles flat, the joints within their ranges and the
CoM halfway between the feet (or 70 % of the way to the front one) at any height reaches the
trailing sole 1 cm above its tread (a bounded least-squares fit as
:func:`tsid_py.models.reach.reach`'s with the CoM's height fixed, scanned every 2.5 mm: the
trailing ankle pitch at its stop below, the leading leg out of reach above; on the tread, a
band of 5 mm), so the swing task (weighted 10, the CoM's 1) lifted the whole body instead:
its CoM rose 2–5 cm above the plan, then dropped as the swing came down and saturated the
stance knee. Nothing higher lies ahead on the way down, so the lower apex clears the tread's
edge as the clearance check asks of any obstacle.

Units: m, rad.
"""

from __future__ import annotations

import math

import numpy as np

from ..._geometry import clip_polygon, polygon_area, polygon_centroid, polygon_edges
from ..._validation import positive_scalar
from ..terrain import Terrain
from .angles import wrap_angle
from .footsteps import Footstep
from .swing import OBSTACLE_CLEARANCE, SwingTrajectory

#: The (start, end) delays :func:`clear_swing` tries, least total first.
SWING_DELAYS = sorted(((a, b) for a in (0.0, 0.1, 0.2, 0.3) for b in (0.0, 0.1, 0.2, 0.3)),
                      key=lambda pair: (pair[0] + pair[1], pair))
#: Instants along a swing at which :func:`swing_clearance` checks the footprint.
CLEARANCE_SAMPLES = 40
#: Share of a swing onto an uneven foothold spent coming straight down (see the module).
SETTLE = 0.2


def place_footstep(step: Footstep, terrain: Terrain, sole_size, *, margin: float = 0.02, search: float | None = None,
                   resolution: float = 0.01, max_gap: float = 0.01, min_room: float = 0.8,
                   max_tilt: float = math.radians(20.0), tilt_limits=None,
                   shift_cost: float | None = None) -> Footstep:
    """``step`` moved to a good foothold of ``terrain`` and given its height, normal and
    bearing polygon (see the module); ``sole_size``: ``(length, width)`` m of the sole.
    ``search`` (m) defaults to half the sole's length plus the margin and two ``resolution``:
    an edge under the planned point blocks a band the sole's length plus two margins wide,
    and one of its sides is then within reach; on rough ground, at most half its cell
    (:attr:`~tsid_py.control.terrain.Terrain.cell`). When no candidate is good, the one of the
    best :func:`cop_room` less ``shift_cost`` per metre moved (default: one over the sole's
    length) is taken. ``tilt_limits``: ``(roll, pitch)`` rad, the largest tilt of the sole
    about its own length and width axes (:func:`sole_tilts`) a good foothold may have, on
    top of ``max_tilt`` (a walking controller's: a share of its ankles' range, None: no
    such limit)."""
    if terrain.is_flat:
        return Footstep(step.foot, step.x, step.y, step.yaw, terrain.floor)
    resolution = positive_scalar(resolution, "resolution")
    length = positive_scalar(sole_size[0], "sole_size")
    if search is None:
        search = 0.5 * length + margin + 2 * resolution
        if terrain.cell is not None:                 # bumps: a cell farther finds none of a new kind
            search = min(search, 0.5 * terrain.cell)
    search = positive_scalar(search, "search", allow_zero=True)
    shift_cost = 1.0 / length if shift_cost is None else positive_scalar(shift_cost, "shift_cost", allow_zero=True)
    c, s = math.cos(step.yaw), math.sin(step.yaw)
    best, best_score = None, -math.inf
    offsets = _offsets(search, resolution)
    xs = np.array([step.x + c * along - s * across for along, across in offsets])
    ys = np.array([step.y + s * along + c * across for along, across in offsets])
    margin = positive_scalar(margin, "margin", allow_zero=True)
    for index, (along, across) in enumerate(offsets):
        if index <= 1:        # the planned point alone (often good), then all the others at once
            chunk = slice(index, None if index else 1)
            enlarged = _footprint_heights(terrain, xs[chunk], ys[chunk], step.yaw, sole_size, margin)
            plain = _footprint_heights(terrain, xs[chunk], ys[chunk], step.yaw, sole_size, 0.0) if margin else enlarged
            gaps, tilts = terrain.rest_gaps(*enlarged[:3])
        x, y = float(xs[index]), float(ys[index])
        gap, tilt = float(gaps[index - chunk.start]), float(tilts[index - chunk.start])
        shift = shift_cost * math.hypot(along, across)
        if (gap > max_gap or tilt > max_tilt) and 1.0 - shift <= best_score:
            continue                 # cannot be good, nor score above the best (cop_room ≤ 1)
        own = _rest_at(terrain, x, y, step.yaw, plain if margin else enlarged, index - chunk.start)
        flat = tilt <= max_tilt and (tilt_limits is None or all(
            abs(sole_tilt) <= limit for sole_tilt, limit in zip(sole_tilts(own.normal, step.yaw), tilt_limits)))
        room = cop_room(own.bearing, sole_size)
        if gap <= max_gap and room >= min_room and flat:
            best = (x, y, own)
            break
        score = room - shift - (0.0 if flat else 2.0)
        if score > best_score:
            best, best_score = (x, y, own), score
    x, y, rest = best                                       # the pose: the sole's own footprint
    z = float(rest.placement.translation[2])
    normal = rest.normal
    level = abs(normal[2] - 1.0) < 1e-12
    bearing = None if rest.bearing is None or polygon_area(rest.bearing) < 1e-12 else rest.bearing
    return Footstep(step.foot, float(x), float(y), step.yaw, z, (0.0, 0.0, 1.0) if level else tuple(normal.tolist()),
                    None if bearing is None else tuple(map(tuple, bearing)))


def _footprint_heights(terrain: Terrain, xs: np.ndarray, ys: np.ndarray, yaw: float, sole_size, margin: float):
    """The sample offsets ``(dx, dy)`` of a sole's footprint ``margin`` m larger than
    ``sole_size``, the ground's heights under it at each of the centres ``(xs, ys)`` (one
    row each, one :meth:`~Terrain.height` call) and its ``(length, width)``."""
    length, width = (positive_scalar(value, "sole_size") for value in sole_size)
    dx, dy = terrain.footprint_offsets(yaw, length / 2 + margin, width / 2 + margin)
    heights = terrain.height(xs[:, None] + dx[None, :], ys[:, None] + dy[None, :])
    return dx, dy, heights, (length + 2 * margin, width + 2 * margin)


def _rest_at(terrain: Terrain, x: float, y: float, yaw: float, footprint, index: int):
    """:meth:`~Terrain.rest` of the ``index``-th centre of :func:`_footprint_heights`."""
    dx, dy, heights, size = footprint
    return terrain.rest_on(x, y, yaw, dx, dy, heights[index], size)


def sole_tilts(normal, yaw: float) -> tuple[float, float]:
    """``(roll, pitch)`` rad of a sole heading ``yaw`` lying on a plane of unit ``normal``
    (3,): its tilt about its own length axis (x, positive when the normal leans to its
    right, −y) and about its width axis (y, positive when the normal leans forward)."""
    c, s = math.cos(yaw), math.sin(yaw)
    along = c * normal[0] + s * normal[1]
    across = -s * normal[0] + c * normal[1]
    return math.atan2(-across, normal[2]), math.atan2(along, normal[2])


def cop_room(bearing, sole_size) -> float:
    """How much room (0 … 1) a sole bearing on the polygon ``bearing`` ((k, 2) m in its frame,
    or None: all of it) leaves its centre of pressure around the polygon's centroid: the
    largest scale of the sole's ``(length, width)`` rectangle, centred there, that fits in
    the polygon, ``min_i (o_i − n_i · c) / (|n_ix| l/2 + |n_iy| w/2)`` over its edges
    ``n_i · p ≤ o_i``. 1 when the whole sole bears, 0 when it rests on a line or a point."""
    if bearing is None:
        return 1.0
    polygon = np.asarray(bearing, dtype=float).reshape(-1, 2)
    if polygon_area(polygon) < 1e-12:
        return 0.0
    half = 0.5 * np.asarray(sole_size, dtype=float)
    normals, offsets = polygon_edges(polygon)
    centre = polygon_centroid(polygon)
    room = (offsets - normals @ centre) / (np.abs(normals) @ half)
    return float(min(max(np.min(room), 0.0), 1.0))


def contact_region(bearing, contact_size, sole_size) -> np.ndarray | None:
    """The centre-of-pressure polygon ((k, 2) m, the sole's frame) of a sole of
    ``sole_size`` bearing on ``bearing`` (None: all of it) under a controller whose contact
    rectangle is ``contact_size`` (the sole less its margins ``m = (sole − contact) / 2``):
    each edge of the bearing polygon moved in by the margin along it
    (``|n_x| m_x + |n_y| m_y``), clipped to the contact rectangle. None when the whole sole
    bears, or when nothing with an area is left (the contact rectangle then)."""
    if bearing is None:
        return None
    polygon = np.asarray(bearing, dtype=float).reshape(-1, 2)
    if polygon_area(polygon) < 1e-12:
        return None
    half_contact = 0.5 * np.asarray(contact_size, dtype=float)
    margins = 0.5 * (np.asarray(sole_size, dtype=float) - 2.0 * half_contact)
    region = np.array([[half_contact[0], half_contact[1]], [-half_contact[0], half_contact[1]],
                       [-half_contact[0], -half_contact[1]], [half_contact[0], -half_contact[1]]])
    normals, offsets = polygon_edges(polygon)
    for normal, offset in zip(normals, offsets - np.abs(normals) @ margins):
        region = clip_polygon(region, normal, offset)
    return region if polygon_area(region) > 1e-6 else None


def landed_footstep(planned: Footstep, x: float, y: float) -> Footstep:
    """``planned`` as its sole landed: centred over ``(x, y)`` (m, world; the sole's measured
    position) instead of the planned point, on the same plane (height there), heading and
    normal, with its bearing polygon seen from there. The ground's points the sole bears on
    stay where they are in the world, so in the sole's frame they move by the opposite of the
    landing error: with ``(u, v)`` the landed centre in the planned sole's frame (the point
    of its plane over ``(x, y)``), the polygon's vertices are ``b_i − (u, v)``. A sole that
    lands 5 mm outward of a foothold whose polygon is a strip along its outer side has 5 mm
    less of that strip under it; a contact bearing on the planned polygon would let the
    centre of pressure go 5 mm past the real edge, and the sole rolls over it (G1 on rough
    ground, its soles 5 cm wide, lands 2–6 mm off across its heading). Without a polygon (the
    whole sole bears) the footstep is only moved."""
    placement = planned.placement
    n, origin = placement.rotation[:, 2], placement.translation
    z = origin[2] - (n[0] * (float(x) - origin[0]) + n[1] * (float(y) - origin[1])) / n[2]
    u, v, _ = placement.actInv(np.array([float(x), float(y), z]))
    bearing = None if planned.bearing is None else tuple((bx - u, by - v) for bx, by in planned.bearing)
    return Footstep(planned.foot, float(x), float(y), planned.yaw, float(z), planned.normal, bearing)


def _offsets(search: float, resolution: float) -> list[tuple[float, float]]:
    """Candidate offsets ``(along, across)`` m: the planned point, then along the heading by
    increasing distance every ``resolution``, then across it every two (with the along
    offsets every two) (see the module)."""
    count = int(math.floor(search / resolution + 1e-9))
    along = [0.0] + [sign * k * resolution for k in range(1, count + 1) for sign in (1.0, -1.0)]
    coarse = [0.0] + [sign * k * resolution for k in range(2, count + 1, 2) for sign in (1.0, -1.0)]
    across = [sign * k * resolution for k in range(2, count // 2 + 1, 2) for sign in (1.0, -1.0)]
    return [(a, 0.0) for a in along] + [(a, b) for b in across for a in coarse]


def place_footsteps(footsteps, terrain: Terrain, sole_size, **options) -> list[Footstep]:
    """:func:`place_footstep` for each of ``footsteps``."""
    return [place_footstep(step, terrain, sole_size, **options) for step in footsteps]


def swing_apex(terrain: Terrain, start: Footstep, end: Footstep, sole_size, clearance: float,
               margin: float = 0.02) -> float:
    """The apex height (world z, m) of a swing from ``start`` to ``end`` over ``terrain``:
    ``clearance`` above the highest ground under the swept footprint (see the module), and at
    least ``clearance`` above the higher foothold."""
    highest = max(start.z, end.z)
    if not terrain.is_flat:
        length, width = (positive_scalar(value, "sole_size") for value in sole_size)
        distance = float(np.linalg.norm(end.xy - start.xy))
        count = max(2, int(math.ceil(distance / 0.02)) + 1)
        turn = wrap_angle(end.yaw - start.yaw)
        for r in np.linspace(0.0, 1.0, count):
            centre = start.xy + r * (end.xy - start.xy)
            dx, dy = terrain.footprint_offsets(start.yaw + r * turn, length / 2 + margin, width / 2 + margin)
            highest = max(highest, float(np.max(terrain.height(centre[0] + dx, centre[1] + dy))))
    return highest + clearance


def descent_apex(start: Footstep, end: Footstep, apex: float, clearance: float) -> float:
    """The apex (world z, m) of a swing from ``start`` to ``end`` whose apex over the ground is
    ``apex`` (:func:`swing_apex`, ``clearance`` above the highest ground it passes): for a swing
    down — ``end`` more than :data:`OBSTACLE_CLEARANCE` ``clearance`` below ``start`` — that
    passes no ground higher than its start (``apex`` at most ``clearance`` above it, within
    1 mm), ``start.z + OBSTACLE_CLEARANCE clearance``; else ``apex`` (see the module)."""
    rise = OBSTACLE_CLEARANCE * clearance
    if start.z - end.z > rise and apex <= start.z + clearance + 1e-3:
        return start.z + rise
    return apex


def swing_clearance(terrain: Terrain, swing: SwingTrajectory, sole_size, obstacle: float = 0.0,
                    margin: float = 0.01) -> float:
    """The least margin (m) of the swing's footprint over the ground (see the module): over
    :data:`CLEARANCE_SAMPLES` instants of the swing (its ends left out) while it moves
    horizontally (before and after, the sole rises from or comes down onto the ground it
    rests on), the footprint's points (``margin`` m larger than the sole, in the sole's plane)
    minus the ground's height under each, less ``obstacle`` where the ground is an obstacle;
    negative when the reference goes below the ground or too near an obstacle."""
    length, width = (positive_scalar(value, "sole_size") for value in sole_size)
    hx, hy = length / 2 + margin, width / 2 + margin
    local = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1.0, 0.0, 1.0) for sy in (-1.0, 0.0, 1.0)])
    lowest = np.inf
    for r in np.linspace(0.0, 1.0, CLEARANCE_SAMPLES + 2)[1:-1]:
        t = swing.lift_off + r * swing.duration
        if t <= swing.move_start or t >= swing.move_end:
            continue                 # straight above a foothold, over the ground it rests on
        placement = swing.sample(t).placement
        points = local @ placement.rotation.T + placement.translation
        ground = terrain.height(points[:, 0], points[:, 1])
        foothold = swing.start if r < 0.5 else swing.end
        n, origin = foothold.rotation[:, 2], foothold.translation
        plane = origin[2] - (n[0] * (points[:, 0] - origin[0]) + n[1] * (points[:, 1] - origin[1])) / n[2]
        above = points[:, 2] - ground - np.where(ground > plane + 0.005, obstacle, 0.0)
        lowest = min(lowest, float(np.min(above)))
    return lowest


def clear_swing(terrain: Terrain, start: Footstep, end: Footstep, lift_off: float, touch_down: float,
                sole_size, clearance: float, margin: float = 0.01) -> SwingTrajectory:
    """A swing from ``start`` to ``end`` over ``terrain`` whose apex clears the ground between
    them by ``clearance`` (:func:`swing_apex`) and whose horizontal motion waits long enough
    at each end for :func:`swing_clearance` to hold with obstacles cleared by
    :data:`OBSTACLE_CLEARANCE` ``clearance`` (see the module); the one of the largest margin when
    no delay of :data:`SWING_DELAYS` gives that. A swing down from the highest ground it passes
    rises only that much above its start (:func:`descent_apex`)."""
    apex = descent_apex(start, end, swing_apex(terrain, start, end, sole_size, clearance), clearance)
    uneven = not terrain.is_flat and terrain.rest(end.x, end.y, end.yaw, sole_size).gap > 0.001
    best, best_margin = None, -np.inf
    for delays in [pair for pair in SWING_DELAYS if not uneven or pair[1] >= SETTLE]:
        swing = SwingTrajectory(start.placement, end.placement, lift_off, touch_down, clearance, apex=apex,
                                delays=delays)
        if terrain.is_flat:
            return swing
        lowest = swing_clearance(terrain, swing, sole_size, OBSTACLE_CLEARANCE * clearance, margin)
        if lowest >= -0.002:
            return swing
        if lowest > best_margin:
            best, best_margin = swing, lowest
    return best
