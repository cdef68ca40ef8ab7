"""The self-collision damper's rows, compiled: each close pair's rate, bound and row.

The maths is :mod:`tsid_py.constraints.self_collision`'s: for a pair with nearest points
``p_A``, ``p_B`` and unit normal ``n``, the row ``nᵀ (J_pB − J_pA)`` (the generalized force of
a unit force pair, :func:`tsid_py.frames.add_generalized_force`), the rate ``ḋ``, the drift
``n · (J̇_pB v − J̇_pA v)`` (:func:`tsid_py.frames.point_motion`), the pair's braking
acceleration and the damper's lower bound on ``d̈`` (:func:`damper_bound`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import float64, intp, njit, void

from .._numba import MATRIX, ORDERED_MATH, VECTOR, direct_calls, inlined
from ..frames import add_generalized_force_inline, point_motion
from .collision_screen import INDICES, approach_distance

#: A rate beyond the allowed speed is brought back to it within this fraction of ``τ`` (not in
#: one control period: the accelerations asked for stay within what the torques can give).
RESPONSE_FRACTION = 0.1
#: Per pair, its nearest points and normal: (k, 3, 3) rows ``p_A``, ``p_B``, ``n``.
POINTS = float64[:, :, :]


@njit(float64(float64, float64, float64, float64, float64), cache=True, fastmath=ORDERED_MATH)
def damper_bound(gap, rate, dt, time_constant, braking):
    """The damper's lower bound on ``d̈`` (m/s²) at the gap ``e`` (m) and rate ``ḋ`` (m/s):
    ``min(a, (−v_allow(e) − ḋ) / T)``, ``a`` the braking acceleration, with
    ``T = max(dt, RESPONSE_FRACTION τ)``, the time in which the rate is brought back to the
    allowed speed."""
    allowed = gap / time_constant
    if gap > 0.0:
        allowed = min(allowed, math.sqrt(2.0 * braking * gap))
    return min(braking, (-allowed - rate) / max(dt, RESPONSE_FRACTION * time_constant))


damper_bound_inline = inlined(damper_bound)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _pair_row(J, columns, depths, a, b, pa, pb, n, out):
    """``out += nᵀ (J_pB − J_pA)``: the generalized force of the unit force pair ``±n`` at the
    nearest points (:func:`~tsid_py.frames.add_generalized_force`)."""
    add_generalized_force_inline(J, columns[b, :depths[b]], n[0], n[1], n[2], pb[1] * n[2] - pb[2] * n[1],
                                 pb[2] * n[0] - pb[0] * n[2], pb[0] * n[1] - pb[1] * n[0], out)
    add_generalized_force_inline(J, columns[a, :depths[a]], -n[0], -n[1], -n[2], pa[2] * n[1] - pa[1] * n[2],
                                 pa[0] * n[2] - pa[2] * n[0], pa[1] * n[0] - pa[0] * n[1], out)


@njit(void(MATRIX, MATRIX, INDICES, intp[:], INDICES, POINTS, VECTOR, VECTOR, VECTOR, VECTOR, float64, float64, float64,
           float64, float64, VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, VECTOR), cache=True, fastmath=ORDERED_MATH)
def pair_bounds(J, dJ, columns, depths, joints, points, distances, secants, v, reachable, rest, activation, dt,
                time_constant, braking, rates, closings, bounds, drifts, brakings, capacities, scratch):
    """For the pairs ``k`` of ``joints`` (k, 2) with nearest points ``points`` (k, 3, 3:
    ``p_A``, ``p_B``, ``n``), ``distances`` (k,) and mean rates ``secants`` (k,) over the
    look-ahead (m/s, ``(d(q ⊕ h v) − d) / h``: :mod:`tsid_py.constraints.self_collision`): each one's rate ``ḋ`` into ``rates`` and its closing rate
    ``min(ḋ, secant)`` into ``closings``, its joints' capacity ``Σ_j |r_j| α_j`` along its row
    ``r`` into ``capacities`` (``reachable``: ``α_j``,
    :func:`~tsid_py.constraints.self_collision.reachable_accelerations`; a pair near a joint's
    axis moves little per rad/s²) and its braking acceleration, the least of ``braking`` and
    the capacity, into ``brakings``, its drift
    ``n · (J̇_pB v − J̇_pA v)`` into ``drifts`` and the lower bound of its row, ``damper_bound −
    drift`` at its closing rate and braking, into ``bounds``; or −inf for a pair beyond its
    activation distance (``activation`` plus the approach distance at its closing speed
    and braking). ``columns`` (njoints, depth) and ``depths`` give each joint's supporting
    columns; ``scratch`` (nv,) holds a row."""
    for i in range(joints.shape[0]):
        a, b = joints[i, 0], joints[i, 1]
        pa, pb, n = points[i, 0], points[i, 1], points[i, 2]
        ma = point_motion(J, dJ, columns[a, :depths[a]], pa[0], pa[1], pa[2], v)
        mb = point_motion(J, dJ, columns[b, :depths[b]], pb[0], pb[1], pb[2], v)
        rate = n[0] * (mb[0] - ma[0]) + n[1] * (mb[1] - ma[1]) + n[2] * (mb[2] - ma[2])
        rates[i] = rate
        closing = closings[i] = min(rate, secants[i])
        for j in range(scratch.size):
            scratch[j] = 0.0
        _pair_row(J, columns, depths, a, b, pa, pb, n, scratch)
        capacity = 0.0
        for j in range(scratch.size):
            capacity += abs(scratch[j]) * reachable[j]
        capacities[i] = capacity
        brake = brakings[i] = min(braking, capacity)
        drift = drifts[i] = n[0] * (mb[3] - ma[3]) + n[1] * (mb[4] - ma[4]) + n[2] * (mb[5] - ma[5])
        if distances[i] >= activation + approach_distance(max(-closing, 0.0), time_constant, brake, dt):
            bounds[i] = -np.inf
        else:
            bounds[i] = damper_bound_inline(distances[i] - rest, closing, dt, time_constant, brake) - drift


@njit(void(POINTS), cache=True, fastmath=ORDERED_MATH)
def on_normals(points):
    """Each pair's points ``p_A``, ``p_B`` of ``points`` (k, 3, 3: ``p_A``, ``p_B``, unit
    ``n``) put on the line along ``n`` through their midpoint ``m``:
    ``p_A, p_B = m ∓ ½ (n · (p_B − p_A)) n``, in place. A row ``nᵀ (J_pB − J_pA)`` has, on a
    joint ``j`` that moves both bodies, ``n · (ω_j × (p_B − p_A))``: 0 for points along
    ``n``, as a motion of the whole pair changes no distance; for points offset across ``n``
    (the look-ahead's nearest points carried back to the bodies now), the row would take
    such a motion for a separation. Nearest points (``p_B − p_A = d n``) are left as they
    are."""
    for i in range(points.shape[0]):
        pa, pb, n = points[i, 0], points[i, 1], points[i, 2]
        half = 0.5 * (n[0] * (pb[0] - pa[0]) + n[1] * (pb[1] - pa[1]) + n[2] * (pb[2] - pa[2]))
        for k in range(3):
            middle = 0.5 * (pa[k] + pb[k])
            pa[k] = middle - half * n[k]
            pb[k] = middle + half * n[k]


@njit(void(MATRIX, INDICES, intp[:], INDICES, POINTS, VECTOR, intp[:], MATRIX, VECTOR, VECTOR, VECTOR), cache=True,
      fastmath=ORDERED_MATH)
def write_pair_rows(J, columns, depths, joints, points, bounds, chosen, matrix, lower, upper, scales):
    """Rows ``nᵀ (J_pB − J_pA) q̈ ≥ bound`` of the pairs ``chosen`` (indices into ``joints``,
    ``points``, ``bounds``) in the first rows of ``matrix``, ``lower``, each divided by its
    norm (the factor into ``scales``: the QP's active set is better conditioned on unit
    rows); the other rows ``0 ≥ −inf``, and every ``upper`` inf."""
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            matrix[i, j] = 0.0
        lower[i] = -np.inf
        upper[i] = np.inf
    for row in range(chosen.size):
        i = chosen[row]
        out = matrix[row]
        _pair_row(J, columns, depths, joints[i, 0], joints[i, 1], points[i, 0], points[i, 1], points[i, 2], out)
        squared = 0.0
        for j in range(out.size):
            squared += out[j] * out[j]
        scale = 1.0 / math.sqrt(squared) if squared > 0.0 else 1.0
        for j in range(out.size):
            out[j] *= scale
        lower[row] = bounds[i] * scale
        scales[row] = scale


#: The kernels' compiled functions, for arrays the constraint builds.
direct = direct_calls(pair_bounds, write_pair_rows, on_normals)
