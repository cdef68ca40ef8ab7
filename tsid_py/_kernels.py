"""Compiled kernels (numba) for the per-step path: the rows the tasks, contacts and limits
write into the solver's buffers, and the reduced backend's solve.

A control step's QP is small (50 variables, 18 equalities for Talos on two feet), so in
numpy its cost is the calls, not the arithmetic: a hundred operations at 1–3 µs each. Each
item of the QP therefore writes its rows in one call: :func:`frame_pd_rows` and
:func:`contact_rows` form a frame's Jacobian and drift (:func:`frame_motion`) and its
placement error (:func:`placement_error`, with a compiled ``log3``) from pinocchio's joint
Jacobians, then the rows; :func:`pd_rows`, :func:`joint_targets`, :func:`affine_target_rows`,
:func:`affine_bound_rows` and :func:`dynamics_rows` write the others. The library calls them
through :data:`direct`, without numba's dispatcher. The backend's kernels do the same
arithmetic as :mod:`tsid_py.reduced`'s numpy code in one call each:

* :func:`eliminate_basis`: ``E = A_B⁻¹ A_N`` and ``x_B = A_B⁻¹ b`` by Gaussian elimination
  with partial pivoting;
* :func:`reduce_least_squares`: ``ZᵀHZ`` and ``Zᵀ(g + H x_p)`` from the factored cost
  ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, with ``Z = P [−E; I]``;
* :func:`solve_on_active_set`: the equality-constrained QP on a guessed active set
  (Cholesky and Schur complement), expanded to ``x`` and checked against every row, the
  active set repaired one row at a time when the check fails;
* :func:`eliminate_and_guess`: the three in one call, the control loop's path (each call
  from Python costs about a microsecond of dispatch, and results are written into buffers
  the caller keeps, since boxing a new array costs as much again).

They are compiled once (about 10 s) and cached on disk (``cache=True``): those with an
explicit signature at import, the others in :func:`warm_up`, ahead of the control loop.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import boolean, float64, intp, njit, void

#: Let the compiler reorder sums and fuse multiply-adds (vectorised loops), but keep IEEE
#: semantics for inf and NaN: infinite bounds are data here.
_FAST = {"reassoc", "contract", "nsz", "arcp"}

#: Float arrays of any layout (views of pinocchio's buffers, slices).
_VECTOR, _MATRIX = float64[:], float64[:, :]


@njit(boolean(_VECTOR), cache=True)
def all_finite(x):
    """Whether every entry of ``x`` is finite (no NaN, no inf); strict IEEE arithmetic."""
    for i in range(x.size):
        if not np.isfinite(x[i]):
            return False
    return True


@njit(cache=True, fastmath=_FAST)
def _desired_acceleration(acceleration_ref, kp, error, kd, error_rate, axis):
    """The PD law on one axis: ``a* = a_ref + Kp e + Kd ė``."""
    return acceleration_ref[axis] + kp[axis] * error[axis] + kd[axis] * error_rate[axis]


@njit(void(_VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR, intp[:], _VECTOR, _VECTOR),
      cache=True, fastmath=_FAST)
def pd_target(acceleration_ref, kp, error, kd, error_rate, drift, kept, scale, out):
    """``out[i] = scale[i] (a* − J̇v)[kept[i]]``: the right-hand side of a PD task's kept
    rows, weighted (compiled for any array layout, ahead of the first call)."""
    for i in range(kept.size):
        r = kept[i]
        out[i] = scale[i] * (_desired_acceleration(acceleration_ref, kp, error, kd, error_rate, r) - drift[r])


@njit(void(_MATRIX, _VECTOR, _VECTOR, _VECTOR, intp, intp[:], _VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR,
           _MATRIX, _VECTOR, _VECTOR), cache=True, fastmath=_FAST)
def pd_rows(jacobian, v, drift, error, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd,
            matrix, vector, error_rate):
    """A PD task's rows from its kinematics, whose rows ``first_row + a`` are the task's axes
    ``a``: ``ė = v_ref − J v`` into ``error_rate`` (every axis; ``v`` the robot's velocity),
    and for the kept axes ``matrix[i] = scale[i] J[·]`` and
    ``vector[i] = scale[i] (a_ref + Kp e + Kd ė − J̇v)``."""
    for a in range(error_rate.size):
        row = first_row + a
        velocity = 0.0
        for j in range(v.size):
            velocity += jacobian[row, j] * v[j]
        error_rate[a] = velocity_ref[a] - velocity
    for i in range(kept.size):
        row = first_row + kept[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = scale[i] * jacobian[row, j]
    pd_target(acceleration_ref, kp, error, kd, error_rate, drift[first_row:], kept, scale, vector)


@njit(void(_VECTOR, _VECTOR, intp[:], intp[:], _VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR, intp[:], intp[:],
           _VECTOR, _VECTOR, _VECTOR, _VECTOR), cache=True, fastmath=_FAST)
def joint_targets(q, v, q_index, v_index, position_ref, velocity_ref, acceleration_ref, kp, kd, kept, columns, weight,
                  error, error_rate, targets):
    """A posture task's PD law from the robot's ``q`` and ``v``: ``e = q_ref − q[q_index]`` and
    ``ė = v_ref − v[v_index]`` into ``error`` and ``error_rate`` (every axis), and the weighted
    targets of the kept axes added into the cost's: ``targets[columns[i]] += weight[i] a*[kept[i]]``
    with ``a* = a_ref + Kp e + Kd ė``."""
    for a in range(error.size):
        error[a] = position_ref[a] - q[q_index[a]]
        error_rate[a] = velocity_ref[a] - v[v_index[a]]
    for i in range(kept.size):
        targets[columns[i]] += weight[i] * _desired_acceleration(acceleration_ref, kp, error, kd, error_rate, kept[i])


@njit(void(_MATRIX, _VECTOR, intp[:], _VECTOR, _VECTOR, _MATRIX, _VECTOR), cache=True, fastmath=_FAST)
def affine_target_rows(T, t, index, scale, reference, matrix, vector):
    """Rows asking ``T[index] x + t[index] = reference`` (an affine map of ``x``, such as the
    torques ``τ = T x + t``), scaled: ``matrix[i] = scale[i] T[index[i]]`` and
    ``vector[i] = scale[i] (reference[i] − t[index[i]])``."""
    for i in range(index.size):
        row, factor = index[i], scale[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = factor * T[row, j]
        vector[i] = factor * (reference[i] - t[row])


@njit(void(_MATRIX, _VECTOR, intp[:], _VECTOR, _VECTOR, _MATRIX, _VECTOR, _VECTOR), cache=True, fastmath=_FAST)
def affine_bound_rows(T, t, index, lowest, highest, matrix, lower, upper):
    """Rows bounding ``lowest ≤ T[index] x + t[index] ≤ highest``: ``matrix[i] = T[index[i]]``,
    ``lower[i] = lowest[i] − t[index[i]]`` and ``upper[i] = highest[i] − t[index[i]]``."""
    for i in range(index.size):
        row = index[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = T[row, j]
        lower[i] = lowest[i] - t[row]
        upper[i] = highest[i] - t[row]


@njit(void(_MATRIX, _VECTOR, _MATRIX, _MATRIX, _VECTOR), cache=True, fastmath=_FAST)
def dynamics_rows(mass_matrix, bias, ddq_block, root_rows, root_rhs):
    """The q̈ columns of the equation of motion ``D x + h = Sᵀτ``: ``ddq_block = M``, and, for
    an unactuated root of ``r`` velocities held as equalities ``D[:r] x = −h[:r]``, their q̈
    columns ``root_rows = M[:r]`` and ``root_rhs = −h[:r]`` (``r = 0``: no root rows)."""
    nv = mass_matrix.shape[0]
    for i in range(nv):
        for j in range(nv):
            ddq_block[i, j] = mass_matrix[i, j]
    for i in range(root_rows.shape[0]):
        for j in range(nv):
            root_rows[i, j] = mass_matrix[i, j]
        root_rhs[i] = -bias[i]


@njit(void(_MATRIX, _VECTOR, _VECTOR, intp, _VECTOR), cache=True, fastmath=_FAST)
def affine_map(T, x, t, zero_rows, out):
    """``out = T x + t``, its first ``zero_rows`` entries set to 0 instead (the generalised
    forces ``τ = D x + h`` with the unactuated root's rows, which the equalities zero)."""
    for i in range(zero_rows):
        out[i] = 0.0
    for i in range(zero_rows, out.size):
        value = t[i]
        for j in range(x.size):
            value += T[i, j] * x[j]
        out[i] = value


# ---------------------------------------------------------------------------- frames
#: A frame's sources, as the frame kernels take them (see :class:`tsid_py.robot.FrameSources`):
#: pinocchio's world joint Jacobians ``data.J`` and their rates ``data.dJ`` (6 × nv), the
#: frame's supporting columns, and its world translation (3,) and rotation (3 × 3).
_FRAME = (_MATRIX, _MATRIX, intp[:], _VECTOR, _MATRIX)


@njit(cache=True, fastmath=_FAST)
def rotation_vector(m):
    """The rotation vector ``θ n`` (``θ`` in [0, π]) of the rotation matrix whose entries,
    row by row, are the 9-tuple ``m``; a 3-tuple. pinocchio's ``log3``.

    ``θ = atan2(|s| / 2, (tr R − 1) / 2)`` with ``s = vee(R − Rᵀ) = 2 sin θ n``, and
    ``θ n = θ / (2 sin θ) s``, the factor by its series ``½ (1 + θ²/6)`` near 0. Near π, where
    ``s`` vanishes, ``n`` comes from ``R + Rᵀ = 2 cos θ I + 2 (1 − cos θ) n nᵀ`` (the column of
    the largest diagonal entry), its sign from ``s``."""
    sx, sy, sz = m[7] - m[5], m[2] - m[6], m[3] - m[1]
    cosine = 0.5 * (m[0] + m[4] + m[8] - 1.0)
    theta = np.arctan2(0.5 * np.sqrt(sx * sx + sy * sy + sz * sz), cosine)
    if theta < 1e-4:
        factor = 0.5 * (1.0 + theta * theta / 6.0)
        return factor * sx, factor * sy, factor * sz
    if theta < np.pi - 1e-3:
        factor = theta / (2.0 * np.sin(theta))
        return factor * sx, factor * sy, factor * sz
    k = 0
    if m[4] > m[4 * k]:
        k = 1
    if m[8] > m[4 * k]:
        k = 2
    scale = 1.0 / (1.0 - cosine)
    nk = np.sqrt(max((m[4 * k] - cosine) * scale, 0.0))
    # n_i = (R_ik + R_ki) / (2 (1 − cos θ) n_k); n_k itself from the diagonal.
    nx = nk if k == 0 else 0.5 * (m[k] + m[3 * k]) * scale / nk
    ny = nk if k == 1 else 0.5 * (m[3 + k] + m[3 * k + 1]) * scale / nk
    nz = nk if k == 2 else 0.5 * (m[6 + k] + m[3 * k + 2]) * scale / nk
    if nx * sx + ny * sy + nz * sz < 0.0:
        theta = -theta
    return theta * nx, theta * ny, theta * nz


@njit(cache=True, fastmath=_FAST)
def _rows_dot(A, i, B, j):
    """``A[i] · B[j]`` for 3-column matrices: entry ``(i, j)`` of ``A Bᵀ``."""
    return A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


@njit(cache=True, fastmath=_FAST)
def _rotate_back(R, x, y, z):
    """``Rᵀ (x, y, z)`` as a 3-tuple."""
    return (R[0, 0] * x + R[1, 0] * y + R[2, 0] * z, R[0, 1] * x + R[1, 1] * y + R[2, 1] * z,
            R[0, 2] * x + R[1, 2] * y + R[2, 2] * z)


@njit(cache=True, fastmath=_FAST)
def placement_error(translation, rotation, translation_ref, rotation_ref, local):
    """``[p_ref − p; log3(R_ref Rᵀ)]`` in world axes or, when ``local``, the same rotated by
    ``Rᵀ`` (that is ``[Rᵀ (p_ref − p); log3(Rᵀ R_ref)]``), as a 6-tuple."""
    dx, dy, dz = (translation_ref[0] - translation[0], translation_ref[1] - translation[1],
                  translation_ref[2] - translation[2])
    A, B = rotation_ref, rotation
    ox, oy, oz = rotation_vector((_rows_dot(A, 0, B, 0), _rows_dot(A, 0, B, 1), _rows_dot(A, 0, B, 2),
                                  _rows_dot(A, 1, B, 0), _rows_dot(A, 1, B, 1), _rows_dot(A, 1, B, 2),
                                  _rows_dot(A, 2, B, 0), _rows_dot(A, 2, B, 1), _rows_dot(A, 2, B, 2)))
    if not local:
        return dx, dy, dz, ox, oy, oz
    dx, dy, dz = _rotate_back(rotation, dx, dy, dz)
    ox, oy, oz = _rotate_back(rotation, ox, oy, oz)
    return dx, dy, dz, ox, oy, oz


@njit(void(*_FRAME, _VECTOR, boolean, _MATRIX, _VECTOR), cache=True, fastmath=_FAST)
def frame_motion(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, local, jacobian, drift):
    """A frame's Jacobian (6 × nv, linear rows first) and drift (its classical acceleration
    at q̈ = 0) from pinocchio's world joint Jacobians ``J`` and their rates ``J̇``.

    Over the frame's supporting columns ``c``, ``(v_o, ω) = J_c v`` and ``(a_o, ω̇) = J̇_c v``
    are the spatial velocity and acceleration drift at the world origin; at the frame origin
    ``p`` the Jacobian is ``[J_c,lin + J_c,ang × p; J_c,ang]`` column by column and the drift
    ``[a_o + ω̇ × p + ω × (v_o + ω × p); ω̇]``. World axes (pinocchio's LOCAL_WORLD_ALIGNED),
    or the frame's own (LOCAL: both 3-row blocks rotated by ``Rᵀ``) when ``local``. Columns
    outside ``c`` are not written (the caller's buffer keeps them at zero)."""
    px, py, pz = translation[0], translation[1], translation[2]
    vx = vy = vz = wx = wy = wz = ax = ay = az = bx = by = bz = 0.0
    J, dJ = joint_jacobians, joint_jacobian_rates
    for k in range(columns.size):
        j = columns[k]
        vj = v[j]
        ux, uy, uz = J[3, j], J[4, j], J[5, j]
        lx, ly, lz = J[0, j] + uy * pz - uz * py, J[1, j] + uz * px - ux * pz, J[2, j] + ux * py - uy * px
        if local:
            jacobian[0, j], jacobian[1, j], jacobian[2, j] = _rotate_back(rotation, lx, ly, lz)
            jacobian[3, j], jacobian[4, j], jacobian[5, j] = _rotate_back(rotation, ux, uy, uz)
        else:
            jacobian[0, j], jacobian[1, j], jacobian[2, j] = lx, ly, lz
            jacobian[3, j], jacobian[4, j], jacobian[5, j] = ux, uy, uz
        vx += lx * vj
        vy += ly * vj
        vz += lz * vj
        wx += ux * vj
        wy += uy * vj
        wz += uz * vj
        ax += dJ[0, j] * vj
        ay += dJ[1, j] * vj
        az += dJ[2, j] * vj
        bx += dJ[3, j] * vj
        by += dJ[4, j] * vj
        bz += dJ[5, j] * vj
    # (vx, vy, vz) is already the velocity of p: v_o + ω × p.
    linear = (ax + by * pz - bz * py + wy * vz - wz * vy,
              ay + bz * px - bx * pz + wz * vx - wx * vz,
              az + bx * py - by * px + wx * vy - wy * vx)
    angular = (bx, by, bz)
    if local:
        linear = _rotate_back(rotation, *linear)
        angular = _rotate_back(rotation, *angular)
    for r in range(3):
        drift[r], drift[3 + r] = linear[r], angular[r]


@njit(void(*_FRAME, _VECTOR, _VECTOR, _MATRIX, boolean, intp, intp[:], _VECTOR, _VECTOR, _VECTOR, _VECTOR,
           _VECTOR, _MATRIX, _VECTOR, _VECTOR, _VECTOR, _MATRIX, _VECTOR), cache=True, fastmath=_FAST)
def frame_pd_rows(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, translation_ref,
                  rotation_ref, local, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd, jacobian,
                  drift, error, error_rate, matrix, vector):
    """A frame task's rows, from the frame's sources to :func:`pd_rows` in one call: the
    frame's Jacobian and drift into ``jacobian`` and ``drift`` (:func:`frame_motion`), the
    error of the task's axes ``first_row …`` into ``error`` (:func:`placement_error`)."""
    frame_motion(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, local, jacobian, drift)
    full = placement_error(translation, rotation, translation_ref, rotation_ref, local)
    for a in range(error.size):
        error[a] = full[first_row + a]
    pd_rows(jacobian, v, drift, error, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd, matrix, vector,
            error_rate)


@njit(void(*_FRAME, _VECTOR, float64, float64, _VECTOR, _MATRIX, intp, _MATRIX, _VECTOR, _MATRIX, _MATRIX, _MATRIX,
           _VECTOR), cache=True, fastmath=_FAST)
def contact_rows(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, kp, kd, anchor_translation,
                 anchor_rotation, first_row, jacobian, drift, force_block, root_block, matrix, vector):
    """A contact's part of the QP from its frame's LOCAL Jacobian ``J`` and drift ``J̇v``
    (formed into ``jacobian`` and ``drift`` by :func:`frame_motion`): its columns of ``D``,
    ``force_block = −J[:s]ᵀ`` (nv × s, s force variables); the same columns of the root rows
    held as equalities, ``root_block = force_block[:6]`` (no rows when the root is not held);
    and its no-slip rows ``matrix[i] = J[first_row + i]``,
    ``vector[i] = −J̇v[first_row + i] − kd J[first_row + i] v + kp e[first_row + i]`` with
    ``e`` the frame's drift from its anchor in its own axes (:func:`placement_error`,
    ``local``; no position term when ``kp == 0``) (``matrix`` may have no rows: a contact
    without kinematics)."""
    frame_motion(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, True, jacobian, drift)
    nv, size = force_block.shape
    for i in range(nv):
        for j in range(size):
            force_block[i, j] = -jacobian[j, i]
    for i in range(root_block.shape[0]):
        for j in range(size):
            root_block[i, j] = -jacobian[j, i]
    error = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if kp != 0.0 and matrix.shape[0] > 0:
        error = placement_error(translation, rotation, anchor_translation, anchor_rotation, True)
    for r in range(matrix.shape[0]):
        row = first_row + r
        velocity = 0.0
        for i in range(nv):
            matrix[r, i] = jacobian[row, i]
            velocity += jacobian[row, i] * v[i]
        vector[r] = -drift[row] - kd * velocity + kp * error[row]


@njit(cache=True, fastmath=_FAST)
def eliminate_basis(A, b, basis, free, E, x_basis):
    """Fill ``E = A_B⁻¹ A_N`` (m × k) and ``x_basis = A_B⁻¹ b``; return
    ``min |U_ii| / max |U_ii|`` of the LU of ``A_B`` (0 when singular)."""
    m, k = basis.size, free.size
    U = np.empty((m, m))
    W = np.empty((m, k + 1))
    for i in range(m):
        for j in range(m):
            U[i, j] = A[i, basis[j]]
        for j in range(k):
            W[i, j] = A[i, free[j]]
        W[i, k] = b[i]
    smallest, largest = np.inf, 0.0
    for c in range(m):
        pivot_row = c
        for i in range(c + 1, m):
            if abs(U[i, c]) > abs(U[pivot_row, c]):
                pivot_row = i
        if pivot_row != c:
            for j in range(m):
                U[c, j], U[pivot_row, j] = U[pivot_row, j], U[c, j]
            for j in range(k + 1):
                W[c, j], W[pivot_row, j] = W[pivot_row, j], W[c, j]
        pivot = U[c, c]
        smallest, largest = min(smallest, abs(pivot)), max(largest, abs(pivot))
        if pivot == 0.0:
            return 0.0
        for i in range(c + 1, m):
            factor = U[i, c] / pivot
            if factor != 0.0:
                for j in range(c + 1, m):
                    U[i, j] -= factor * U[c, j]
                for j in range(k + 1):
                    W[i, j] -= factor * W[c, j]
    for c in range(m - 1, -1, -1):
        for i in range(c + 1, m):
            factor = U[c, i]
            if factor != 0.0:
                for j in range(k + 1):
                    W[c, j] -= factor * W[i, j]
        inverse = 1.0 / U[c, c]
        for j in range(k + 1):
            W[c, j] *= inverse
    for i in range(m):
        for j in range(k):
            E[i, j] = W[i, j]
        x_basis[i] = W[i, k]
    return smallest / largest if largest > 0.0 else 0.0


@njit(cache=True, fastmath=_FAST)
def reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g):
    """Write ``ZᵀHZ`` into ``H`` (k × k) and ``Zᵀ(g + H x_p)`` into ``g`` (k) for the factored
    cost ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, with ``Z = P [−E; I]`` and ``x_p`` equal
    to ``x_basis`` on the basic columns, 0 elsewhere. Needs ``d ≥ 0``; returns False (and
    writes nothing) otherwise.

    With ``W = [R Z; √d_B E]`` the Hessian is ``2(WᵀW + diag d_N)``: one matrix product.
    """
    rows = R.shape[0]
    m, k = E.shape
    for c in range(d.size):
        if not d[c] >= 0.0:
            return False
    R_basis = np.empty((rows, m))
    residual = np.empty(rows)                 # R x_p − s
    for i in range(rows):
        value = -s[i]
        for c in range(m):
            coefficient = R[i, basis[c]]
            R_basis[i, c] = coefficient
            value += coefficient * x_basis[c]
        residual[i] = value
    W = np.empty((rows + m, k))
    RZ = W[:rows]
    np.dot(R_basis, E, RZ)                    # R_B E (one BLAS product), then R Z = R_N − R_B E
    for j in range(k):                        # with (R Z)ᵀ (R x_p − s) − e_N
        g[j] = -e[free[j]]
    for i in range(rows):
        for j in range(k):
            value = R[i, free[j]] - RZ[i, j]
            RZ[i, j] = value
            g[j] += value * residual[i]
    for c in range(m):                        # √d_B E, and − Eᵀ (d ∘ x_p − e) on the basic columns
        weight = d[basis[c]]
        root = np.sqrt(weight)
        shifted = weight * x_basis[c] - e[basis[c]]
        for j in range(k):
            W[rows + c, j] = root * E[c, j]
            g[j] -= E[c, j] * shifted
    np.dot(W.T, W, H)
    for j in range(k):
        g[j] *= 2.0
        H[j, j] += d[free[j]]
    for i in range(k):
        for j in range(k):
            H[i, j] *= 2.0
    return True


@njit(cache=True, fastmath=_FAST)
def _cholesky(H):
    """Lower factor of ``H = L Lᵀ``, or an empty matrix when H is not positive definite."""
    n = H.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        value = H[j, j]
        for p in range(j):
            value -= L[j, p] * L[j, p]
        if not value > 0.0:
            return np.zeros((0, 0))
        root = np.sqrt(value)
        L[j, j] = root
        for i in range(j + 1, n):
            value = H[i, j]
            for p in range(j):
                value -= L[i, p] * L[j, p]
            L[i, j] = value / root
    return L


@njit(cache=True, fastmath=_FAST)
def _forward(L, B):
    """``L⁻¹ bᵀ`` for each row ``b`` of ``B`` (r × n), as the rows of the result; L is
    lower-triangular (row-wise, so that the inner products run over contiguous memory)."""
    r, n = B.shape
    X = B.copy()
    for j in range(r):
        for i in range(n):
            value = X[j, i]
            for p in range(i):
                value -= L[i, p] * X[j, p]
            X[j, i] = value / L[i, i]
    return X


@njit(cache=True, fastmath=_FAST)
def _backward(L, y):
    """``L⁻ᵀ y``, column by column: each solved entry is removed from the ones above it along
    a row of L (contiguous memory, where the inner-product form would stride down a column)."""
    n = y.size
    x = y.copy()
    for i in range(n - 1, -1, -1):
        value = x[i] / L[i, i]
        x[i] = value
        for p in range(i):
            x[p] -= L[i, p] * value
    return x


@njit(cache=True, fastmath=_FAST)
def _solve_held(L, g, C, l, u, basis, free, E, x_basis, active, at_upper, x, multipliers):
    """The equality-constrained QP ``min ½zᵀHz + gᵀz`` (``H = L Lᵀ``) with the rows ``active``
    of ``C x`` held at their upper (``at_upper``) or lower bound, ``x = x_p + Z z``: write
    ``x`` and the rows' multipliers (Schur complement of the held rows). False when the held
    rows are dependent or the solution is not finite (a row held at an infinite bound)."""
    k = free.size
    count = active.size
    # K = C_active Z and target = bound − C_active x_p; right-hand sides [g; K] at once.
    right = np.empty((count + 1, k))
    right[0] = g
    target = np.empty(count)
    for a in range(count):
        row = active[a]
        value = u[row] if at_upper[a] else l[row]
        for j in range(k):
            right[a + 1, j] = C[row, free[j]]
        for c in range(basis.size):
            coefficient = C[row, basis[c]]
            if coefficient != 0.0:
                value -= coefficient * x_basis[c]
                for j in range(k):
                    right[a + 1, j] -= coefficient * E[c, j]
        target[a] = value
    solved = _forward(L, right)               # [w; Y] = (L⁻¹ [g, Kᵀ])ᵀ
    w = solved[0].copy()
    if count:                                 # (small products in loops: cheaper than BLAS calls)
        Y = solved[1:]
        S = np.empty((count, count))          # K H⁻¹ Kᵀ = Y Yᵀ
        rhs = np.empty((1, count))            # −(target + Y w)
        for a in range(count):
            for b in range(a + 1):
                value = 0.0
                for j in range(k):
                    value += Y[a, j] * Y[b, j]
                S[a, b] = S[b, a] = value
            value = target[a]
            for j in range(k):
                value += Y[a, j] * w[j]
            rhs[0, a] = -value
        factor = _cholesky(S)
        if factor.shape[0] != count:
            return False
        held = _backward(factor, _forward(factor, rhs)[0])
        for a in range(count):
            multipliers[a] = held[a]
            for j in range(k):
                w[j] += Y[a, j] * held[a]
    z = _backward(L, -w)                      # z = −L⁻ᵀ (w + Yᵀ λ)
    for j in range(k):
        if not np.isfinite(z[j]):
            return False
    for j in range(k):
        x[free[j]] = z[j]
    for c in range(basis.size):
        value = x_basis[c]
        for j in range(k):
            value -= E[c, j] * z[j]
        x[basis[c]] = value
    return True


@njit(cache=True, fastmath=_FAST)
def _signed(multiplier, at_upper):
    """A held row's multiplier in the sign that must be ≥ 0 at the optimum (λ at an upper
    bound, −λ at a lower one)."""
    return multiplier if at_upper else -multiplier


@njit(cache=True, fastmath=_FAST)
def _wrong_sign(multipliers, at_upper, dual_tolerance):
    """Index of the held row whose multiplier has the most wrong sign (a row held at its upper
    bound needs λ ≥ 0, at its lower bound λ ≤ 0), beyond ``dual_tolerance (1 + max |λ|)``;
    −1 when every sign is right."""
    largest = 0.0
    for a in range(multipliers.size):
        largest = max(largest, abs(multipliers[a]))
    worst, index = -dual_tolerance * (1.0 + largest), -1
    for a in range(multipliers.size):
        signed = _signed(multipliers[a], at_upper[a])
        if signed < worst:
            worst, index = signed, a
    return index


@njit(cache=True, fastmath=_FAST)
def most_violated(C, l, u, x, feasibility_tolerance, violated):
    """Flag in ``violated`` the rows of ``C x`` beyond their bounds by more than
    ``feasibility_tolerance (1 + |bound|)``; return the most violated one (relative to that
    scale) and whether it is above its upper bound, or (−1, False)."""
    worst, index, above = 1.0, -1, False
    for i in range(C.shape[0]):
        value = 0.0
        for j in range(x.size):
            value += C[i, j] * x[j]
        violated[i] = False
        if value > u[i]:
            excess = (value - u[i]) / (feasibility_tolerance * (1.0 + abs(u[i])))
            is_above = True
        else:
            excess = (l[i] - value) / (feasibility_tolerance * (1.0 + abs(l[i])))
            is_above = False
        if excess > 1.0:
            violated[i] = True
            if excess > worst:
                worst, index, above = excess, i, is_above
    return index, above


@njit(cache=True, fastmath=_FAST)
def _release(active, at_upper, signed, position, count):
    """Remove entry ``position`` of the first ``count`` held rows (order kept)."""
    for a in range(position, count - 1):
        active[a], at_upper[a], signed[a] = active[a + 1], at_upper[a + 1], signed[a + 1]


@njit(cache=True, fastmath=_FAST)
def solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes, changes_allowed,
                        feasibility_tolerance, dual_tolerance, x, violated):
    """Solve the reduced QP ``min ½zᵀHz + gᵀz`` s.t. ``l ≤ C x ≤ u`` (``x = x_p + Z z``) from
    the active set ``active[:sizes[0]]`` of the previous step (rows held at their upper bound
    where ``at_upper``), by Goldfarb and Idnani's dual active-set method warm-started there.

    1. Release held rows, the most wrong-signed multiplier first, until every multiplier has
       the sign of its bound: a dual-feasible start.
    2. While a row is violated, push the most violated one ``p`` toward the bound it crosses.
       For a fixed held set, the solution and multipliers move linearly from the current
       point to the equality-constrained solution with ``p`` held; a held row whose
       multiplier would change sign on the way is released where it reaches zero (a partial
       step) and ``p`` is pushed again, otherwise ``p`` joins the held set (a full step).
       The dual objective grows with each step, so the method does not cycle but on
       degenerate (zero-length) steps; ``changes_allowed`` bounds the work.

    Each step is one equality-constrained solve on the same Cholesky factor of ``H`` (a Schur
    complement of the held rows). ``active``, ``at_upper`` (capacity: one per row) and
    ``sizes = [count, changes]`` are updated in place; ``x`` is the last solve's.

    Returns a code: 0 — the KKT conditions of the full problem hold (multipliers of the
    right sign, every row within tolerance of its bounds): ``x`` is optimal; 1 — not reached
    within ``changes_allowed`` changes of the held set (``violated`` flags the rows violated
    where the last push began: a hint for the caller's solver); 2 — H is not positive
    definite, the held rows are dependent or the solution is not finite (a row held at a
    bound that became infinite).
    """
    k = free.size
    L = _cholesky(H)
    if L.shape[0] != k:
        return 2
    capacity = C.shape[0]
    multipliers, signed = np.empty(capacity), np.empty(capacity)
    sizes[1] = 0
    while True:                                       # 1. a dual-feasible start
        count = sizes[0]
        if not _solve_held(L, g, C, l, u, basis, free, E, x_basis, active[:count], at_upper[:count], x,
                           multipliers):
            return 2
        release = _wrong_sign(multipliers[:count], at_upper[:count], dual_tolerance)
        if release < 0:
            break
        if sizes[1] == changes_allowed:
            most_violated(C, l, u, x, feasibility_tolerance, violated)
            return 1
        _release(active, at_upper, signed, release, count)
        sizes[0], sizes[1] = count - 1, sizes[1] + 1
    for a in range(count):
        signed[a] = _signed(multipliers[a], at_upper[a])
    while True:                                       # 2. dual steps toward feasibility
        row, above = most_violated(C, l, u, x, feasibility_tolerance, violated)
        if row < 0:
            return 0 if _wrong_sign(multipliers[:count], at_upper[:count], dual_tolerance) < 0 else 1
        for a in range(count):
            if active[a] == row:                      # held, yet violated: numerically degenerate
                return 1
        active[count], at_upper[count], signed[count] = row, above, 0.0
        while True:
            if sizes[1] == changes_allowed:
                return 1
            sizes[1] += 1
            if not _solve_held(L, g, C, l, u, basis, free, E, x_basis, active[:count + 1], at_upper[:count + 1],
                               x, multipliers):
                return 2
            step, leaving = 1.0, -1                   # the largest step keeping every held sign
            for a in range(count):
                target = _signed(multipliers[a], at_upper[a])
                if target < 0.0:
                    current = max(signed[a], 0.0)     # ≥ −dual tolerance: clamp to the sign's side
                    ratio = current / (current - target)
                    if ratio < step:
                        step, leaving = ratio, a
            if leaving < 0:                           # full step: p is held
                count += 1
                for a in range(count):
                    signed[a] = _signed(multipliers[a], at_upper[a])
                sizes[0] = count
                break
            for a in range(count + 1):                # partial step: release the row reaching zero
                signed[a] += step * (_signed(multipliers[a], at_upper[a]) - signed[a])
            _release(active, at_upper, signed, leaving, count + 1)
            count -= 1
            sizes[0] = count                          # p (now at ``active[count]``) is not held yet


#: :func:`eliminate_and_guess`'s code when the basis is (nearly) singular: choose another.
BASIS_REJECTED = 3

#: :func:`eliminate_and_guess`'s code when the cost cannot be reduced here (a negative d):
#: nothing but the elimination was written.
COST_NOT_REDUCED = 4


_ROWS, _FLAT, _INDICES, _FLAGS = float64[:, ::1], float64[::1], intp[::1], boolean[::1]


@njit(intp(_ROWS, _FLAT, _ROWS, _FLAT, _FLAT, _FLAT, _ROWS, _FLAT, _FLAT, _INDICES, _INDICES, _INDICES, _FLAGS,
           _INDICES, intp, _FLAT, _ROWS, _FLAT, _ROWS, _FLAT, _FLAT, _FLAGS), cache=True, fastmath=_FAST)
def eliminate_and_guess(A, b, R, s, d, e, C, l, u, basis, free, active, at_upper, sizes, changes_allowed,
                        tolerances, E, x_basis, H, g, x, violated):
    """The control step's fast path in one call: :func:`eliminate_basis`,
    :func:`reduce_least_squares` and :func:`solve_on_active_set`, writing ``E, x_basis, H,
    g, x, violated`` and updating the active set ``active, at_upper, sizes``.
    ``tolerances = (basis, feasibility, dual)``.

    Returns :func:`solve_on_active_set`'s code, ``COST_NOT_REDUCED`` or ``BASIS_REJECTED``
    (the LU pivot ratio of ``A_B`` is at most ``tolerances[0]``). Every array is C-ordered
    (compiled for that layout, ahead of the first call).
    """
    if eliminate_basis(A, b, basis, free, E, x_basis) <= tolerances[0]:
        return BASIS_REJECTED
    if not reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g):
        return COST_NOT_REDUCED
    return solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes, changes_allowed,
                               tolerances[1], tolerances[2], x, violated)


def _compiled_function(kernel):
    """The compiled function behind a kernel with one explicit signature."""
    (signature,) = kernel.signatures
    return kernel.overloads[signature].entry_point


#: Per-step kernels as the control loop calls them: their compiled functions, without the
#: dispatcher, which types every argument before each call (0.5–0.8 µs for these kernels'
#: 8–22 arguments). A compiled function only unboxes, so it checks less: the caller must
#: pass what the signature declares (float64 arrays of the declared dimensions, intp index
#: arrays), so a kernel is called here only with arrays the library builds: :func:`pd_rows`
#: through the dispatcher for a user's task (:attr:`tsid_py.tasks.PDTask.kinematics_checked`).
direct = SimpleNamespace(**{kernel.__name__: _compiled_function(kernel) for kernel in (
    all_finite, pd_rows, joint_targets, affine_target_rows, affine_bound_rows, dynamics_rows, affine_map, frame_pd_rows,
    contact_rows,
    eliminate_and_guess)})


_warm = False


def warm_up() -> None:
    """Compile (or load from the cache) the kernels that have no explicit signature and are
    called from Python, and run the others once, on a tiny problem; once per process."""
    global _warm
    if _warm:
        return
    A, b = np.array([[1.0, 1.0]]), np.array([1.0])
    basis, free = np.array([0]), np.array([1])
    E, x_basis, H, g = np.empty((1, 1)), np.empty(1), np.empty((1, 1)), np.empty(1)
    eliminate_and_guess(A, b, np.eye(2), np.zeros(2), np.ones(2), np.zeros(2), np.eye(2), np.full(2, -np.inf),
                        np.full(2, np.inf), basis, free, np.zeros(2, dtype=np.intp), np.zeros(2, dtype=np.bool_),
                        np.zeros(2, dtype=np.intp), 1, np.array([1e-6, 1e-7, 1e-9]), E, x_basis, H, g, np.empty(2),
                        np.empty(2, dtype=np.bool_))
    # The numpy path's elimination and the DAQP path's check, from Python.
    eliminate_basis(A, b, basis, free, E, x_basis)
    most_violated(np.eye(2), np.full(2, -np.inf), np.full(2, np.inf), np.zeros(2), 1e-7,
                  np.empty(2, dtype=np.bool_))
    _warm = True
