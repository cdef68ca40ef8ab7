"""Compiled kernels (numba) for the reduced backend's per-step path.

A control step's QP is small (50 variables, 18 equalities for Talos on two feet), so in
numpy its cost is the calls, not the arithmetic: a hundred operations at 1–3 µs each. These
kernels do the same arithmetic as :mod:`tsid_py.reduced`'s numpy code in one call each:

* :func:`eliminate_basis`: ``E = A_B⁻¹ A_N`` and ``x_B = A_B⁻¹ b`` by Gaussian elimination
  with partial pivoting;
* :func:`reduce_least_squares`: ``ZᵀHZ`` and ``Zᵀ(g + H x_p)`` from the factored cost
  ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, with ``Z = P [−E; I]``;
* :func:`solve_on_active_set`: the equality-constrained QP on a guessed active set
  (Cholesky and Schur complement), expanded to ``x`` and checked against every row.

They are compiled once (about 10 s) and cached on disk (``cache=True``); :func:`warm_up`
does it ahead of the control loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Let the compiler reorder sums and fuse multiply-adds (vectorised loops), but keep IEEE
#: semantics for inf and NaN: infinite bounds are data here.
_FAST = {"reassoc", "contract", "nsz", "arcp"}


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
def reduce_least_squares(R, s, d, e, basis, free, E, x_basis):
    """``(ZᵀHZ, Zᵀ(g + H x_p))`` for ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, ``Z = P [−E; I]``
    and ``x_p`` equal to ``x_basis`` on the basic columns, 0 elsewhere."""
    rows = R.shape[0]
    m, k = E.shape
    RZ = np.empty((rows, k))
    residual = np.empty(rows)                 # R x_p − s
    for i in range(rows):
        for j in range(k):
            RZ[i, j] = R[i, free[j]]
        value = -s[i]
        for c in range(m):
            a = R[i, basis[c]]
            if a != 0.0:
                value += a * x_basis[c]
                for j in range(k):
                    RZ[i, j] -= a * E[c, j]
        residual[i] = value
    DE = np.empty((m, k))
    shifted = np.empty(m)                     # (d ∘ x_p − e) on the basic columns
    for c in range(m):
        weight = d[basis[c]]
        for j in range(k):
            DE[c, j] = weight * E[c, j]
        shifted[c] = weight * x_basis[c] - e[basis[c]]
    H = RZ.T @ RZ + E.T @ DE
    g = RZ.T @ residual - E.T @ shifted
    for j in range(k):
        H[j, j] += d[free[j]]
        g[j] -= e[free[j]]
    return 2.0 * H, 2.0 * g


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
                        feasibility_tolerance, dual_tolerance):
    """Solve ``min ½zᵀHz + gᵀz`` with the rows ``active`` of ``C x`` held at their upper
    (``at_upper``) or lower bound, where ``x = x_p + Z z``; then check it.

    Returns ``(code, x, violated)``: code 0 — the KKT conditions of the full problem hold
    (right multiplier signs, every row within tolerance of its bounds): ``x`` is optimal;
    1 — a multiplier has the wrong sign or a row is violated (``violated`` flags the rows);
    2 — H is not positive definite, the active rows are dependent or the solution is not
    finite.
    """
    n = basis.size + free.size
    k = free.size
    rows = C.shape[0]
    violated = np.zeros(rows, dtype=np.bool_)
    x = np.zeros(n)
    L = _cholesky(H)
    if L.shape[0] != k:
        return 2, x, violated
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
            return 2, x, violated
        multipliers = _backward(factor, _forward(factor, rhs.reshape(count, 1))[:, 0])
        w += Y @ multipliers
    z = _backward(L, -w)                      # z = −L⁻ᵀ (w + Y λ)
    for j in range(k):
        if not np.isfinite(z[j]):             # e.g. a held row whose bound is now infinite
            return 2, x, violated
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
    values = C @ x
    for i in range(rows):
        if values[i] > u[i]:
            if values[i] - u[i] > feasibility_tolerance * (1.0 + abs(u[i])):
                violated[i] = True
                code = 1
        elif l[i] - values[i] > feasibility_tolerance * (1.0 + abs(l[i])):
            violated[i] = True
            code = 1
    return code, x, violated


_warm = False


def warm_up() -> None:
    """Compile every kernel (or load it from the cache) on a tiny problem, once per process."""
    global _warm
    if _warm:
        return
    A, b = np.array([[1.0, 1.0]]), np.array([1.0])
    basis, free = np.array([0]), np.array([1])
    E, x_basis = np.empty((1, 1)), np.empty(1)
    eliminate_basis(A, b, basis, free, E, x_basis)
    H, g = reduce_least_squares(np.eye(2), np.zeros(2), np.ones(2), np.zeros(2), basis, free, E, x_basis)
    solve_on_active_set(H, g, np.eye(2), np.full(2, -np.inf), np.full(2, np.inf), basis, free, E, x_basis,
                        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_), 1e-7, 1e-9)
    _warm = True
