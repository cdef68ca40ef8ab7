"""Footholds on a terrain: each planned footstep put where its sole rests flat, off the edges,
with its height and surface normal; and how high a swing must go to clear the ground between
two footholds.

**Placing a footstep** (:func:`place_footstep`). A footstep planned on flat ground
(:mod:`.footsteps`) gives a foot, a point ``(x, y)`` and a heading. On a
:class:`~tsid_py.control.terrain.Terrain` the sole put down there rests on the highest points under
it (:meth:`~tsid_py.control.terrain.Terrain.rest`); its footprint is sampled ``margin`` m larger
than the sole, so that a sole found resting flat keeps that distance from an edge. The
footstep is good when the sole lies flat on the ground: its **gap** (its largest height above
the ground under it) at most ``max_gap``, its **support** (the share of the footprint the
points it bears on span) at least ``min_support``, its tilt at most ``max_tilt``. A sole
across a step's edge (gap: the riser) is not, nor one across the crease at the foot of a ramp
(it would rest on heel and toe, tilted half the ramp's angle: on 10°, a 1 cm gap under the
crease), nor one on the top of a bump (it rocks on a few points). Otherwise candidates are tried on a grid around the planned point — along the
heading first, by increasing distance, up to ``search`` m every ``resolution``, then across
it up to ``search / 2`` (on a grid twice as coarse) — and the first good one taken; when none
is (rough ground), the candidate of the largest support, then the smallest gap (ties: the
nearest). The footstep gets the height and normal of the sole's own resting pose (its
footprint without the margin) (:class:`~.footsteps.Footstep`).

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

Units: m, rad.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import positive_scalar
from ..terrain import Terrain
from .angles import wrap_angle
from .footsteps import Footstep
from .swing import SwingTrajectory

#: The (start, end) delays :func:`clear_swing` tries, least total first.
SWING_DELAYS = sorted(((a, b) for a in (0.0, 0.1, 0.2, 0.3) for b in (0.0, 0.1, 0.2, 0.3)),
                      key=lambda pair: (pair[0] + pair[1], pair))
#: Instants along a swing at which :func:`swing_clearance` checks the footprint.
CLEARANCE_SAMPLES = 40
#: Share of a swing onto an uneven foothold spent coming straight down (see the module).
SETTLE = 0.2


def place_footstep(step: Footstep, terrain: Terrain, sole_size, *, margin: float = 0.02, search: float | None = None,
                   resolution: float = 0.01, max_gap: float = 0.01, min_support: float = 0.8,
                   max_tilt: float = math.radians(20.0)) -> Footstep:
    """``step`` moved to a good foothold of ``terrain`` and given its height and normal (see
    the module); ``sole_size``: ``(length, width)`` m of the sole. ``search`` (m) defaults to
    half the sole's length plus the margin and two ``resolution``: an edge under the planned
    point blocks a band the sole's length plus two margins wide, and one of its sides is
    then within reach."""
    if terrain.is_flat:
        return Footstep(step.foot, step.x, step.y, step.yaw, terrain.floor)
    resolution = positive_scalar(resolution, "resolution")
    if search is None:
        search = 0.5 * positive_scalar(sole_size[0], "sole_size") + margin + 2 * resolution
    search = positive_scalar(search, "search", allow_zero=True)
    c, s = math.cos(step.yaw), math.sin(step.yaw)
    offsets = _offsets(search, resolution)
    best = None
    for along, across in offsets:
        x, y = step.x + c * along - s * across, step.y + s * along + c * across
        rest = terrain.rest(x, y, step.yaw, sole_size, margin)
        flat = rest.tilt <= max_tilt
        if rest.gap <= max_gap and rest.support >= min_support and flat:
            best = (rest, x, y)
            break
        key = (-round(min(rest.support, min_support), 2) + (0.0 if flat else 1.0), round(rest.gap, 3),
               math.hypot(along, across))
        if best is None or key < best[0]:
            best = (key, rest, x, y)
    if len(best) == 4:
        best = best[1:]
    _, x, y = best
    rest = terrain.rest(x, y, step.yaw, sole_size)          # the pose: the sole's own footprint
    z = float(rest.placement.translation[2])
    normal = rest.normal
    level = abs(normal[2] - 1.0) < 1e-12
    return Footstep(step.foot, float(x), float(y), step.yaw, z, (0.0, 0.0, 1.0) if level else tuple(normal.tolist()))


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


def swing_clearance(terrain: Terrain, swing: SwingTrajectory, sole_size, obstacle: float = 0.0,
                    margin: float = 0.01) -> float:
    """The least margin (m) of the swing's footprint over the ground (see the module): over
    :data:`CLEARANCE_SAMPLES` instants of the swing (its ends left out), the footprint's points
    (``margin`` m larger than the sole, in the sole's plane) minus the ground's height under
    each, less ``obstacle`` where the ground is an obstacle; negative when the reference goes
    below the ground or too near an obstacle."""
    length, width = (positive_scalar(value, "sole_size") for value in sole_size)
    hx, hy = length / 2 + margin, width / 2 + margin
    local = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1.0, 0.0, 1.0) for sy in (-1.0, 0.0, 1.0)])
    lowest = np.inf
    for r in np.linspace(0.0, 1.0, CLEARANCE_SAMPLES + 2)[1:-1]:
        placement = swing.sample(swing.lift_off + r * swing.duration).placement
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
    ``0.4 clearance`` (see the module); the one of the largest margin when no delay of
    :data:`SWING_DELAYS` gives that."""
    apex = swing_apex(terrain, start, end, sole_size, clearance)
    uneven = not terrain.is_flat and terrain.rest(end.x, end.y, end.yaw, sole_size).gap > 0.001
    best, best_margin = None, -np.inf
    for delays in [pair for pair in SWING_DELAYS if not uneven or pair[1] >= SETTLE]:
        swing = SwingTrajectory(start.placement, end.placement, lift_off, touch_down, clearance, apex=apex,
                                delays=delays)
        if terrain.is_flat:
            return swing
        lowest = swing_clearance(terrain, swing, sole_size, 0.4 * clearance, margin)
        if lowest >= -0.002:
            return swing
        if lowest > best_margin:
            best, best_margin = swing, lowest
    return best
