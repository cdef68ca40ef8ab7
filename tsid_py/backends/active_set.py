"""The reduced backend's compiled kernels: elimination, factored-cost reduction and the
active-set solve (see :mod:`tsid_py.backends.reduced` for the method).

* :func:`eliminate_basis`: ``E = A_B⁻¹ A_N`` and ``x_B = A_B⁻¹ b`` by Gaussian elimination
  with partial pivoting;
* :func:`reduce_least_squares`: ``ZᵀHZ`` and ``Zᵀ(g + H x_p)`` from the factored cost
  ``H = 2(RᵀR + diag d)``, ``g = −2(Rᵀs + e)``, with ``Z = P [−E; I]``;
* :func:`solve_on_active_set`: the equality-constrained QP on a guessed active set
  (Cholesky and Schur complement), expanded to ``x`` and checked against every row, the
  active set repaired one row at a time when the check fails;
* :func:`eliminate_and_guess_into`: the three in one call into buffers the caller keeps (work
  arrays in ``scratch``): the control loop's path, compiled without numba's runtime.
"""

from __future__ import annotations

import numpy as np
from numba import boolean, float64, intp, njit

from .._numba import FASTMATH, direct_calls, product_into


@njit(cache=True, fastmath=FASTMATH, inline="always")
def eliminate_basis(A, b, basis, free, E, x_basis):
    """Fill ``E = A_B⁻¹ A_N`` (m × k) and ``x_basis = A_B⁻¹ b``; return
    ``min |U_ii| / max |U_ii|`` of the LU of ``A_B`` (0 when singular)."""
    m, k = basis.size, free.size
    return _eliminate_basis_into(A, b, basis, free, E, x_basis, np.empty(m * m + m * (k + 1)))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _block(scratch, offset, rows, columns):
    """A ``rows × columns`` matrix over ``scratch[offset:]`` (a view: no allocation)."""
    return scratch[offset:offset + rows * columns].reshape((rows, columns))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _eliminate_basis_into(A, b, basis, free, E, x_basis, scratch):
    """:func:`eliminate_basis` with its work arrays in ``scratch`` (m² + m (k + 1) entries)."""
    m, k = basis.size, free.size
    U = _block(scratch, 0, m, m)
    W = _block(scratch, m * m, m, k + 1)
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


@njit(cache=True, fastmath=FASTMATH, inline="always")
def reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g):
    """:func:`_reduce_least_squares_into` with newly allocated work arrays."""
    rows, (m, k) = R.shape[0], E.shape
    return _reduce_least_squares_into(R, s, d, e, basis, free, E, x_basis, H, g,
                                      np.empty(rows * m + rows + (rows + m) * k))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _reduce_least_squares_into(R, s, d, e, basis, free, E, x_basis, H, g, scratch):
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
    R_basis = _block(scratch, 0, rows, m)
    residual = scratch[rows * m:rows * m + rows]      # R x_p − s
    for i in range(rows):
        value = -s[i]
        for c in range(m):
            coefficient = R[i, basis[c]]
            R_basis[i, c] = coefficient
            value += coefficient * x_basis[c]
        residual[i] = value
    W = _block(scratch, rows * m + rows, rows + m, k)
    RZ = W[:rows]
    product_into(R_basis, E, RZ)             # R_B E (one BLAS product), then R Z = R_N − R_B E
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
    product_into(W.T, W, H)
    for j in range(k):
        g[j] *= 2.0
        H[j, j] += d[free[j]]
    for i in range(k):
        for j in range(k):
            H[i, j] *= 2.0
    return True


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _cholesky(H, L):
    """Write the lower factor of ``H = L Lᵀ`` into ``L``'s lower triangle (the rest is not
    read by the solves below); False when H is not positive definite."""
    n = H.shape[0]
    for j in range(n):
        value = H[j, j]
        for p in range(j):
            value -= L[j, p] * L[j, p]
        if not value > 0.0:
            return False
        root = np.sqrt(value)
        L[j, j] = root
        for i in range(j + 1, n):
            value = H[i, j]
            for p in range(j):
                value -= L[i, p] * L[j, p]
            L[i, j] = value / root
    return True


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _forward(L, B, X):
    """``L⁻¹ bᵀ`` for each row ``b`` of ``B`` (r × n), as the rows of ``X`` (returned); L is
    lower-triangular (row-wise, so that the inner products run over contiguous memory)."""
    r, n = B.shape
    for j in range(r):
        for i in range(n):
            value = B[j, i]               # (X may be B: its entry i is read before written)
            for p in range(i):
                value -= L[i, p] * X[j, p]
            X[j, i] = value / L[i, i]
    return X


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _backward(L, y, x):
    """``L⁻ᵀ y`` into ``x`` (returned), column by column: each solved entry is removed from
    the ones above it along a row of L (contiguous memory, where the inner-product form would
    stride down a column)."""
    n = y.size
    for i in range(n):
        x[i] = y[i]
    for i in range(n - 1, -1, -1):
        value = x[i] / L[i, i]
        x[i] = value
        for p in range(i):
            x[p] -= L[i, p] * value
    return x


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _solve_held(L, g, C, l, u, basis, free, E, x_basis, active, at_upper, x, multipliers, scratch):
    """The equality-constrained QP ``min ½zᵀHz + gᵀz`` (``H = L Lᵀ``) with the rows ``active``
    of ``C x`` held at their upper (``at_upper``) or lower bound, ``x = x_p + Z z``: write
    ``x`` and the rows' multipliers (Schur complement of the held rows). False when the held
    rows are dependent or the solution is not finite (a row held at an infinite bound). The
    work arrays live in ``scratch`` (sized by :func:`solve_scratch_size`)."""
    k = free.size
    count = active.size
    # K = C_active Z and target = bound − C_active x_p; right-hand sides [g; K] at once.
    right = _block(scratch, 0, count + 1, k)
    solved = _block(scratch, (count + 1) * k, count + 1, k)
    offset = 2 * (count + 1) * k
    target, w, z = scratch[offset:offset + count], scratch[offset + count:offset + count + k], \
        scratch[offset + count + k:offset + count + 2 * k]
    offset += count + 2 * k
    S, factor = _block(scratch, offset, count, count), _block(scratch, offset + count * count, count, count)
    offset += 2 * count * count
    rhs, forward, held = _block(scratch, offset, 1, count), _block(scratch, offset + count, 1, count), \
        scratch[offset + 2 * count:offset + 3 * count]
    for j in range(g.size):
        right[0, j] = g[j]
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
    _forward(L, right, solved)                # [w; Y] = (L⁻¹ [g, Kᵀ])ᵀ
    for j in range(w.size):
        w[j] = solved[0, j]
    if count:                                 # (small products in loops: cheaper than BLAS calls)
        Y = solved[1:]
        for a in range(count):                # S = K H⁻¹ Kᵀ = Y Yᵀ, rhs = −(target + Y w)
            for b in range(a + 1):
                value = 0.0
                for j in range(k):
                    value += Y[a, j] * Y[b, j]
                S[a, b] = S[b, a] = value
            value = target[a]
            for j in range(k):
                value += Y[a, j] * w[j]
            rhs[0, a] = -value
        if not _cholesky(S, factor):
            return False
        _backward(factor, _forward(factor, rhs, forward)[0], held)
        for a in range(count):
            multipliers[a] = held[a]
            for j in range(k):
                w[j] += Y[a, j] * held[a]
    for j in range(k):
        w[j] = -w[j]
    _backward(L, w, z)                        # z = −L⁻ᵀ (w + Yᵀ λ)
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


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _signed(multiplier, at_upper):
    """A held row's multiplier in the sign that must be ≥ 0 at the optimum (λ at an upper
    bound, −λ at a lower one)."""
    return multiplier if at_upper else -multiplier


@njit(cache=True, fastmath=FASTMATH, inline="always")
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


@njit(cache=True, fastmath=FASTMATH, inline="always")
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


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _release(active, at_upper, signed, position, count):
    """Remove entry ``position`` of the first ``count`` held rows (order kept)."""
    for a in range(position, count - 1):
        active[a], at_upper[a], signed[a] = active[a + 1], at_upper[a + 1], signed[a + 1]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes, changes_allowed,
                        feasibility_tolerance, dual_tolerance, x, violated):
    """:func:`_solve_on_active_set_into` with newly allocated work arrays."""
    return _solve_on_active_set_into(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes,
                                     changes_allowed, feasibility_tolerance, dual_tolerance, x, violated,
                                     np.empty(solve_scratch_size(free.size, C.shape[0])))


@njit(cache=True, inline="always")
def solve_scratch_size(k, rows):
    """Entries of :func:`_solve_on_active_set_into`'s work arrays (``k`` free variables,
    ``rows`` inequality rows): the factor, two multiplier arrays and the held solve's."""
    return k * k + 2 * rows + 2 * (rows + 2) * k + (rows + 1) + 2 * k + 2 * (rows + 1) ** 2 + 3 * (rows + 1)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _solve_on_active_set_into(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes, changes_allowed,
                              feasibility_tolerance, dual_tolerance, x, violated, scratch):
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
    bound that became infinite). The work arrays live in ``scratch``
    (:func:`solve_scratch_size` entries): nothing is allocated.
    """
    k = free.size
    capacity = C.shape[0]
    L = _block(scratch, 0, k, k)
    multipliers, signed = scratch[k * k:k * k + capacity], scratch[k * k + capacity:k * k + 2 * capacity]
    held = scratch[k * k + 2 * capacity:]
    if not _cholesky(H, L):
        return 2
    sizes[1] = 0
    while True:                                       # 1. a dual-feasible start
        count = sizes[0]
        if not _solve_held(L, g, C, l, u, basis, free, E, x_basis, active[:count], at_upper[:count], x,
                           multipliers, held):
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
                               x, multipliers, held):
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


@njit(intp(_ROWS, _FLAT, _ROWS, _FLAT, _FLAT, _FLAT, _ROWS, _FLAT, _FLAT, _INDICES, _INDICES, _INDICES, _FLAGS, _INDICES,
           intp, _FLAT, _ROWS, _FLAT, _ROWS, _FLAT, _FLAT, _FLAGS, _FLAT), cache=True, fastmath=FASTMATH, _nrt=False)
def eliminate_and_guess_into(A, b, R, s, d, e, C, l, u, basis, free, active, at_upper, sizes, changes_allowed,
                             tolerances, E, x_basis, H, g, x, violated, scratch):
    """The control step's fast path in one call: :func:`eliminate_basis`,
    :func:`reduce_least_squares` and :func:`solve_on_active_set`, writing ``E, x_basis, H,
    g, x, violated`` and updating the active set ``active, at_upper, sizes``.
    ``tolerances = (basis, feasibility, dual)``.

    Returns :func:`solve_on_active_set`'s code, ``COST_NOT_REDUCED`` or ``BASIS_REJECTED``
    (the LU pivot ratio of ``A_B`` is at most ``tolerances[0]``). Every array is C-ordered
    (compiled for that layout, ahead of the first call). The three phases' work arrays live in
    ``scratch`` (:func:`step_scratch_size` entries), one after the other: the call allocates
    nothing.
    """
    if _eliminate_basis_into(A, b, basis, free, E, x_basis, scratch) <= tolerances[0]:
        return BASIS_REJECTED
    if not _reduce_least_squares_into(R, s, d, e, basis, free, E, x_basis, H, g, scratch):
        return COST_NOT_REDUCED
    return _solve_on_active_set_into(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes,
                                     changes_allowed, tolerances[1], tolerances[2], x, violated, scratch)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def eliminate_and_guess(A, b, R, s, d, e, C, l, u, basis, free, active, at_upper, sizes, changes_allowed,
                        tolerances, E, x_basis, H, g, x, violated):
    """:func:`eliminate_and_guess_into` with newly allocated work arrays (for any array
    layout, compiled on first use)."""
    m, k, rows, cost_rows = basis.size, free.size, C.shape[0], R.shape[0]
    size = max(m * m + m * (k + 1), cost_rows * m + cost_rows + (cost_rows + m) * k, solve_scratch_size(k, rows))
    return _guess_body(A, b, R, s, d, e, C, l, u, basis, free, active, at_upper, sizes, changes_allowed,
                       tolerances, E, x_basis, H, g, x, violated, np.empty(size))

def step_scratch_size(m: int, k: int, cost_rows: int, rows: int) -> int:
    """Entries of :func:`eliminate_and_guess_into`'s ``scratch`` for ``m`` equalities, ``k`` free
    variables, ``cost_rows`` cost rows and ``rows`` inequality rows (its largest phase's)."""
    return max(m * m + m * (k + 1), cost_rows * m + cost_rows + (cost_rows + m) * k,
               solve_scratch_size.py_func(k, rows))

#: :func:`eliminate_and_guess_into`'s compiled function, for the backend's own C-ordered buffers.
direct = direct_calls(eliminate_and_guess_into)
_guess_body = njit(inline="always")(eliminate_and_guess_into.py_func)     # eliminate_and_guess inlines it

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
    eliminate_and_guess_into(A, b, np.eye(2), np.zeros(2), np.ones(2), np.zeros(2), np.eye(2), np.full(2, -np.inf),
                        np.full(2, np.inf), basis, free, np.zeros(2, dtype=np.intp), np.zeros(2, dtype=np.bool_),
                        np.zeros(2, dtype=np.intp), 1, np.array([1e-6, 1e-7, 1e-9]), E, x_basis, H, g, np.empty(2),
                        np.empty(2, dtype=np.bool_), np.empty(step_scratch_size(1, 1, 2, 2)))
    # The numpy path's elimination and the DAQP path's check, from Python.
    eliminate_basis(A, b, basis, free, E, x_basis)
    most_violated(np.eye(2), np.full(2, -np.inf), np.full(2, np.inf), np.zeros(2), 1e-7,
                  np.empty(2, dtype=np.bool_))
    _warm = True
