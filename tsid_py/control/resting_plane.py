r"""The lowest plane over a sole's footprint: where a flat sole put down on uneven ground rests.

Samples ``(dx_i, dy_i, h_i)`` of the ground under a footprint (offsets from its centre, m,
and heights) give the linear programme of :mod:`tsid_py.control.terrain`,

.. math::

    \min\ h_0 \quad \text{subject to} \quad h_0 + g_x\, dx_i + g_y\, dy_i ≥ h_i \ \text{for all } i,

whose dual is the highest point of the samples' upper convex hull above the centre:

.. math::

    \max_{λ ≥ 0}\ \sum_i λ_i h_i \quad \text{subject to} \quad
    \sum_i λ_i = 1,\ \sum_i λ_i\, dx_i = 0,\ \sum_i λ_i\, dy_i = 0 .

:func:`lowest_plane` solves the dual by the simplex method in three dimensions, where each
step is geometric: a basis is a **triangle** of three samples whose horizontal projection
holds the centre (``λ``: the centre's barycentric coordinates in it, all ≥ 0), its simplex
multipliers are the **plane** through the three (``(h0, g_x, g_y)``), a sample above that plane
enters (the most above; Bland's rule — the lowest index above — once as many pivots as samples
have gone by, against cycling on degenerate triangles), and the ratio test drops the vertex
whose barycentric coordinate reaches zero first as the centre's weight moves onto the sample.
It stops when no sample is more than :data:`TOLERANCE` above the plane: then the plane lies on
or above every sample (primal feasible) and touches the three whose weights hold the centre
(complementary slackness) — the optimum. Several optimal planes exist when the centre is
over an edge or a vertex of the hull (a sole across the crease at the foot of a ramp, turned,
rocks on its diagonal; one on a ridge or a peak); which of them a solver returns depends on
its path, so :func:`lowest_plane` settles such a tie by a rule of its own: the least tilted
of the hull's facets lowest at the centre (:func:`_settle_tie`).

No hull is built: a footprint of about a hundred samples takes a handful of pivots, each one
pass over the samples — microseconds, where a Qhull hull through scipy costs a few hundred.
The first triangle spans the footprint: the sample farthest from the centre, the one farthest
from it, and the one farthest from their line on the centre's side. A footprint whose
samples' projection does not hold its centre, a degenerate triangle (samples on a line),
no convergence in the pivot budget or a tie the rule cannot settle (rounding) is reported
(False), and the caller takes another way.

Units: m.
"""

from __future__ import annotations

import numpy as np
from numba import boolean, njit

from .._numba import MATRIX, VECTOR, inlined

#: A sample at most this far (m) above a plane counts as under it (the optimality test).
TOLERANCE = 1e-12
#: A triangle whose projected area (twice it, m²) is below this is degenerate.
SINGULAR = 1e-14
#: The centre's barycentric weight below which it is on its triangle's edge.
DEGENERATE = 1e-9


@njit(cache=True, inline="always")
def _cross(ax, ay, bx, by, px, py):
    """``(b − a) × (p − a)``: twice the signed area of the triangle ``a, b, p`` (m²)."""
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@njit(cache=True, inline="always")
def _least_tilted_about(dx, dy, heights, plane, centre):
    """The least tilted plane through the sample ``centre`` (at the footprint's centre) that
    touches two more samples and lies on or above all, into ``plane``: the planes through it
    on or above every sample are the gradients of the polygon ``a_m · g ≥ b_m``
    (``a_m = d_m − d_centre``, ``b_m = h_m − h_centre``), a plane touching two more samples is
    one of its vertices, and each vertex lies on an edge line ``a_m · g = b_m``: each line is
    clipped by the other half-planes, and the clipped segments' ends of the smallest ``|g|``
    kept. False when no line keeps a segment (rounding)."""
    n, found, best = heights.size, False, np.inf
    cx, cy, ch = dx[centre], dy[centre], heights[centre]
    for m in range(n):
        ax, ay, bm = dx[m] - cx, dy[m] - cy, heights[m] - ch
        norm = ax * ax + ay * ay
        if norm < SINGULAR:
            continue
        g0x, g0y, ux, uy = bm * ax / norm, bm * ay / norm, -ay, ax      # the line: g0 + t u
        low, high = -np.inf, np.inf
        for k in range(n):
            kx, ky = dx[k] - cx, dy[k] - cy
            along = kx * ux + ky * uy
            short = heights[k] - ch - (kx * g0x + ky * g0y)              # a_k · g ≥ b_k at g0 + t u
            if along > SINGULAR:
                low = max(low, short / along)
            elif along < -SINGULAR:
                high = min(high, short / along)
            elif short > TOLERANCE:
                low, high = np.inf, -np.inf
                break
        if low > high + TOLERANCE:
            continue
        for t in (low, high):
            if np.isfinite(t):
                gx, gy = g0x + t * ux, g0y + t * uy
                if gx * gx + gy * gy < best:
                    found, best = True, gx * gx + gy * gy
                    plane[1], plane[2] = gx, gy
    plane[0] = ch - plane[1] * cx - plane[2] * cy
    return found


@njit(cache=True, inline="always")
def _settle_tie(dx, dy, heights, plane, vertex, weight):
    """Make the optimal ``plane`` the least tilted of the hull's facets lowest at the centre,
    and say whether that is settled here. With the centre strictly inside its triangle
    (every weight above :data:`DEGENERATE`) the plane is the only optimum. With the centre on
    one edge ``a b``, the planes turned by ``s`` about that edge,
    ``z = h0 + g · d + s n · (d − d_a)`` (``n`` the edge's horizontal unit normal), keep the
    height at the centre;
    those on or above every sample span ``s ∈ [s_low, s_high]`` (one sample on the plane on
    each side of the edge's line: only ``s = 0``), whose ends are the two facets meeting at
    the edge; the one of the smaller ``|g(s)|`` is taken. With the centre on a vertex (two
    weights at zero): :func:`_least_tilted_about` it."""
    low = 0
    for m in range(3):
        if weight[m] <= DEGENERATE:
            low += 1
    if low == 0:
        return True
    if low > 1:
        return _least_tilted_about(dx, dy, heights, plane, vertex[np.argmax(weight)])
    first, second = (1, 2) if weight[0] <= DEGENERATE else ((0, 2) if weight[1] <= DEGENERATE else (0, 1))
    a, b = vertex[first], vertex[second]
    ex, ey = dx[b] - dx[a], dy[b] - dy[a]
    length = np.sqrt(ex * ex + ey * ey)
    nx, ny = -ey / length, ex / length
    s_low, s_high = -np.inf, np.inf
    for m in range(heights.size):
        across = nx * (dx[m] - dx[a]) + ny * (dy[m] - dy[a])
        slack = plane[0] + plane[1] * dx[m] + plane[2] * dy[m] - heights[m]
        if across > SINGULAR:
            s_low = max(s_low, -max(slack, 0.0) / across)
        elif across < -SINGULAR:
            s_high = min(s_high, max(slack, 0.0) / -across)
    turn, tilt = 0.0, plane[1] ** 2 + plane[2] ** 2
    for s in (s_low, s_high):
        if np.isfinite(s) and (plane[1] + s * nx) ** 2 + (plane[2] + s * ny) ** 2 < tilt:
            turn, tilt = s, (plane[1] + s * nx) ** 2 + (plane[2] + s * ny) ** 2
    if turn != 0.0:
        plane[1] += turn * nx
        plane[2] += turn * ny
        plane[0] = heights[a] - plane[1] * dx[a] - plane[2] * dy[a]
    return True


@njit(boolean(VECTOR, VECTOR, VECTOR, VECTOR), cache=True)
def lowest_plane(dx, dy, heights, plane):
    """Write ``(h0, g_x, g_y)`` of the lowest plane at the centre lying on or above every sample
    ``(dx_i, dy_i, heights_i)`` into ``plane`` (3,) and return True; False (``plane``
    unspecified) when the dual simplex cannot start or finish, or a tie cannot be settled
    (see the module)."""
    n = heights.size
    if n < 3:
        return False
    a, far = 0, -1.0
    for i in range(n):
        d = dx[i] * dx[i] + dy[i] * dy[i]
        if d > far:
            a, far = i, d
    b, far = 0, -1.0
    for i in range(n):
        d = (dx[i] - dx[a]) ** 2 + (dy[i] - dy[a]) ** 2
        if d > far:
            b, far = i, d
    side = 1.0 if _cross(dx[a], dy[a], dx[b], dy[b], 0.0, 0.0) >= 0.0 else -1.0
    c, far = 0, -1.0
    for i in range(n):
        d = side * _cross(dx[a], dy[a], dx[b], dy[b], dx[i], dy[i])
        if d > far:
            c, far = i, d
    vertex = np.array([a, b, c], dtype=np.intp)
    weight = np.empty(3)
    entering_weight = np.empty(3)
    for pivot in range(4 * n + 12):
        i, j, k = vertex[0], vertex[1], vertex[2]
        area = _cross(dx[i], dy[i], dx[j], dy[j], dx[k], dy[k])
        if abs(area) < SINGULAR:
            return False
        # The centre's barycentric coordinates (the basic solution) and the plane through the three.
        weight[0] = _cross(dx[j], dy[j], dx[k], dy[k], 0.0, 0.0) / area
        weight[1] = _cross(dx[k], dy[k], dx[i], dy[i], 0.0, 0.0) / area
        weight[2] = _cross(dx[i], dy[i], dx[j], dy[j], 0.0, 0.0) / area
        if pivot == 0 and min(weight[0], weight[1], weight[2]) < -1e-9:
            return False
        ux, uy, uh = dx[j] - dx[i], dy[j] - dy[i], heights[j] - heights[i]
        vx, vy, vh = dx[k] - dx[i], dy[k] - dy[i], heights[k] - heights[i]
        gx = (uh * vy - vh * uy) / area
        gy = (ux * vh - vx * uh) / area
        h0 = heights[i] - gx * dx[i] - gy * dy[i]
        # The sample most above the plane enters (Bland's rule, lowest index, after n pivots).
        entering, above = -1, TOLERANCE
        for m in range(n):
            r = heights[m] - (h0 + gx * dx[m] + gy * dy[m])
            if r > above:
                entering, above = m, r
                if pivot >= n:
                    break
        if entering < 0:
            plane[0], plane[1], plane[2] = h0, gx, gy
            return _settle_tie(dx, dy, heights, plane, vertex, weight)
        # Its barycentric coordinates; the vertex whose weight reaches zero first leaves.
        px, py = dx[entering], dy[entering]
        entering_weight[0] = _cross(dx[j], dy[j], dx[k], dy[k], px, py) / area
        entering_weight[1] = _cross(dx[k], dy[k], dx[i], dy[i], px, py) / area
        entering_weight[2] = _cross(dx[i], dy[i], dx[j], dy[j], px, py) / area
        leaving, ratio = -1, np.inf
        for m in range(3):
            if entering_weight[m] > 1e-12:
                t = max(weight[m], 0.0) / entering_weight[m]
                if leaving < 0 or t < ratio or (t == ratio and vertex[m] < vertex[leaving]):
                    leaving, ratio = m, t
        if leaving < 0:
            return False
        vertex[leaving] = entering
    return False


lowest_plane_inline = inlined(lowest_plane)


@njit(boolean[:](VECTOR, VECTOR, MATRIX, MATRIX), cache=True)
def lowest_planes(dx, dy, heights, planes):
    """:func:`lowest_plane` for each row of ``heights`` (k, n) (one footprint at k centres),
    into the rows of ``planes`` (k, 3); whether each was found."""
    found = np.empty(heights.shape[0], dtype=np.bool_)
    row = np.empty(3)
    for r in range(heights.shape[0]):
        found[r] = lowest_plane_inline(dx, dy, heights[r], row)
        planes[r, 0], planes[r, 1], planes[r, 2] = row[0], row[1], row[2]
    return found
