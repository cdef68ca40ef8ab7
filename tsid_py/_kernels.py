"""Compiled kernels (numba) for the per-step path: the reduced backend's, and the right-hand
side of the PD tasks (:func:`pd_target`).

A control step's QP is small (50 variables, 18 equalities for Talos on two feet), so in
numpy its cost is the calls, not the arithmetic: a hundred operations at 1–3 µs each. These
kernels do the same arithmetic as :mod:`tsid_py.reduced`'s numpy code in one call each:

* :func:`eliminate_basis`: ``E = A_B⁻¹ A_N`` and ``x_B = A_B⁻¹ b`` by Gaussian elimination
  with partial pivoting;
* :func:`reduce_least_squares`: ``ZᵀHZ`` and ``Zᵀ(g + H x_p)`` from the factored cost
  ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, with ``Z = P [−E; I]``;
* :func:`solve_on_active_set`: the equality-constrained QP on a guessed active set
  (Cholesky and Schur complement), expanded to ``x`` and checked against every row;
* :func:`eliminate_and_guess`: the three in one call, the control loop's path (each call
  from Python costs about a microsecond of dispatch, and results are written into buffers
  the caller keeps, since boxing a new array costs as much again).

They are compiled once (about 10 s) and cached on disk (``cache=True``); :func:`warm_up`
does it ahead of the control loop.
"""

from __future__ import annotations

import numpy as np
from numba import float64, intp, njit, void

#: Let the compiler reorder sums and fuse multiply-adds (vectorised loops), but keep IEEE
#: semantics for inf and NaN: infinite bounds are data here.
_FAST = {"reassoc", "contract", "nsz", "arcp"}

#: Float arrays of any layout (views of pinocchio's buffers, slices).
_VECTOR, _MATRIX = float64[:], float64[:, :]


@njit(void(_VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR, intp[:], _VECTOR, _VECTOR),
      cache=True, fastmath=_FAST)
def pd_target(acceleration_ref, kp, error, kd, error_rate, drift, kept, scale, out):
    """``out[i] = scale[i] (a_ref + Kp e + Kd ė − J̇v)[kept[i]]``: the right-hand side of a PD
    task's kept rows, weighted (compiled for any array layout, ahead of the first call)."""
    for i in range(kept.size):
        r = kept[i]
        out[i] = scale[i] * (acceleration_ref[r] + kp[r] * error[r] + kd[r] * error_rate[r] - drift[r])


@njit(void(_MATRIX, _VECTOR, _VECTOR, _VECTOR, intp, intp[:], _VECTOR, _VECTOR, _VECTOR, _VECTOR, _VECTOR,
           _MATRIX, _VECTOR, _VECTOR), cache=True, fastmath=_FAST)
def pd_rows(jacobian, velocity, drift, error, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd,
            matrix, vector, error_rate):
    """A PD task's rows from its kinematics, whose rows ``first_row + a`` are the task's axes
    ``a``: ``ė = v_ref − v`` into ``error_rate`` (every axis), and for the kept axes
    ``matrix[i] = scale[i] J[·]`` and ``vector[i] = scale[i] (a_ref + Kp e + Kd ė − J̇v)``."""
    for a in range(error_rate.size):
        error_rate[a] = velocity_ref[a] - velocity[first_row + a]
    for i in range(kept.size):
        row = first_row + kept[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = scale[i] * jacobian[row, j]
    pd_target(acceleration_ref, kp, error, kd, error_rate, drift[first_row:], kept, scale, vector)


@njit(void(_MATRIX, _VECTOR, _VECTOR, float64, intp, _MATRIX, _MATRIX, _VECTOR), cache=True, fastmath=_FAST)
def contact_rows(jacobian, drift, v, kd, first_row, force_block, matrix, vector):
    """A contact's part of the QP from its LOCAL Jacobian ``J`` (6 × nv) and drift ``J̇v``:
    its columns of ``D``, ``force_block = −J[:s]ᵀ`` (nv × s, s force variables), and its
    no-slip rows ``matrix = J[r]``, ``vector = −J̇v[r] − kd J[r] v`` for the ``r`` rows from
    ``first_row`` (``matrix`` may have no rows: a contact without kinematics)."""
    nv, size = force_block.shape
    for i in range(nv):
        for j in range(size):
            force_block[i, j] = -jacobian[j, i]
    for r in range(matrix.shape[0]):
        row = first_row + r
        velocity = 0.0
        for i in range(nv):
            matrix[r, i] = jacobian[row, i]
            velocity += jacobian[row, i] * v[i]
        vector[r] = -drift[row] - kd * velocity


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
    W = np.empty((rows + m, k))
    for i in range(rows):
        for c in range(m):
            R_basis[i, c] = R[i, basis[c]]
        for j in range(k):
            W[i, j] = R[i, free[j]]
    W[:rows] -= R_basis @ E                   # R Z
    residual = R_basis @ x_basis - s          # R x_p − s
    shifted = np.empty(m)                     # (d ∘ x_p − e) on the basic columns
    for c in range(m):
        weight = d[basis[c]]
        root = np.sqrt(weight)
        for j in range(k):
            W[rows + c, j] = root * E[c, j]
        shifted[c] = weight * x_basis[c] - e[basis[c]]
    np.dot(W.T, W, H)
    gradient = W[:rows].T @ residual - E.T @ shifted
    for j in range(k):
        g[j] = 2.0 * (gradient[j] - e[free[j]])
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
    """``L⁻¹ B`` for lower-triangular L, column by column (B is n × r)."""
    n, r = B.shape
    X = B.copy()
    for i in range(n):
        for p in range(i):
            factor = L[i, p]
            for j in range(r):
                X[i, j] -= factor * X[p, j]
        for j in range(r):
            X[i, j] /= L[i, i]
    return X


@njit(cache=True, fastmath=_FAST)
def _backward(L, y):
    """``L⁻ᵀ y``."""
    n = y.size
    x = y.copy()
    for i in range(n - 1, -1, -1):
        value = x[i]
        for p in range(i + 1, n):
            value -= L[p, i] * x[p]
        x[i] = value / L[i, i]
    return x


@njit(cache=True, fastmath=_FAST)
def solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper,
                        feasibility_tolerance, dual_tolerance, x, violated):
    """Solve ``min ½zᵀHz + gᵀz`` with the rows ``active`` of ``C x`` held at their upper
    (``at_upper``) or lower bound, where ``x = x_p + Z z``; write ``x`` and check it.

    Returns a code: 0 — the KKT conditions of the full problem hold (right multiplier signs,
    every row within tolerance of its bounds): ``x`` is optimal; 1 — a multiplier has the
    wrong sign or a row is violated (``violated`` flags the rows); 2 — H is not positive
    definite, the active rows are dependent or the solution is not finite.
    """
    k = free.size
    rows = C.shape[0]
    violated[:] = False
    L = _cholesky(H)
    if L.shape[0] != k:
        return 2
    count = active.size
    # K = C_active Z and target = bound − C_active x_p; right-hand sides [g, Kᵀ] at once.
    right = np.empty((k, count + 1))
    right[:, 0] = g
    target = np.empty(count)
    for a in range(count):
        row = active[a]
        value = u[row] if at_upper[a] else l[row]
        for j in range(k):
            right[j, a + 1] = C[row, free[j]]
        for c in range(basis.size):
            coefficient = C[row, basis[c]]
            if coefficient != 0.0:
                value -= coefficient * x_basis[c]
                for j in range(k):
                    right[j, a + 1] -= coefficient * E[c, j]
        target[a] = value
    solved = _forward(L, right)               # [w, Y] = L⁻¹ [g, Kᵀ]
    w = solved[:, 0].copy()
    multipliers = np.zeros(count)
    if count:
        Y = solved[:, 1:].copy()
        S = Y.T @ Y                           # K H⁻¹ Kᵀ
        rhs = -(target + Y.T @ w)
        factor = _cholesky(S)
        if factor.shape[0] != count:
            return 2
        multipliers = _backward(factor, _forward(factor, rhs.reshape(count, 1))[:, 0])
        w += Y @ multipliers
    z = _backward(L, -w)                      # z = −L⁻ᵀ (w + Y λ)
    for j in range(k):
        if not np.isfinite(z[j]):             # e.g. a held row whose bound is now infinite
            return 2
    for j in range(k):
        x[free[j]] = z[j]
    for c in range(basis.size):
        value = x_basis[c]
        for j in range(k):
            value -= E[c, j] * z[j]
        x[basis[c]] = value
    code = 0
    largest = 0.0
    for a in range(count):
        largest = max(largest, abs(multipliers[a]))
    for a in range(count):
        signed = multipliers[a] if at_upper[a] else -multipliers[a]
        if signed < -dual_tolerance * (1.0 + largest):
            code = 1
    for i in range(rows):
        value = 0.0
        for j in range(x.size):
            value += C[i, j] * x[j]
        if value > u[i]:
            if value - u[i] > feasibility_tolerance * (1.0 + abs(u[i])):
                violated[i] = True
                code = 1
        elif l[i] - value > feasibility_tolerance * (1.0 + abs(l[i])):
            violated[i] = True
            code = 1
    return code


#: :func:`eliminate_and_guess`'s code when the basis is (nearly) singular: choose another.
BASIS_REJECTED = 3

#: :func:`eliminate_and_guess`'s code when the cost cannot be reduced here (a negative d):
#: nothing but the elimination was written.
COST_NOT_REDUCED = 4


@njit(cache=True, fastmath=_FAST)
def eliminate_and_guess(A, b, R, s, d, e, C, l, u, basis, free, active, at_upper, tolerances,
                        E, x_basis, H, g, x, violated):
    """The control step's fast path in one call: :func:`eliminate_basis`,
    :func:`reduce_least_squares` and :func:`solve_on_active_set`, writing ``E, x_basis, H,
    g, x, violated``. ``tolerances = (basis, feasibility, dual)``.

    Returns :func:`solve_on_active_set`'s code, ``COST_NOT_REDUCED`` or ``BASIS_REJECTED``
    (the LU pivot ratio of ``A_B`` is at most ``tolerances[0]``).
    """
    if eliminate_basis(A, b, basis, free, E, x_basis) <= tolerances[0]:
        return BASIS_REJECTED
    if not reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g):
        return COST_NOT_REDUCED
    return solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper,
                               tolerances[1], tolerances[2], x, violated)


_warm = False


def warm_up() -> None:
    """Compile every kernel (or load it from the cache) on a tiny problem, once per process."""
    global _warm
    if _warm:
        return
    A, b = np.array([[1.0, 1.0]]), np.array([1.0])
    basis, free = np.array([0]), np.array([1])
    E, x_basis, H, g = np.empty((1, 1)), np.empty(1), np.empty((1, 1)), np.empty(1)
    eliminate_and_guess(A, b, np.eye(2), np.zeros(2), np.ones(2), np.zeros(2), np.eye(2), np.full(2, -np.inf),
                        np.full(2, np.inf), basis, free, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_),
                        np.array([1e-6, 1e-7, 1e-9]), E, x_basis, H, g, np.empty(2), np.empty(2, dtype=np.bool_))
    _warm = True
