"""The fast backend: eliminate the equalities, guess the active set, fall back to DAQP.

A control step's QP has many equalities (the 6 floating-base rows of the equation of motion,
6 no-slip rows per planar contact) and many inequality rows that are rarely active (torque
limits), and it changes little from one step to the next. Four exact reductions make it
cheap:

1. **Elimination.** Every ``x`` with ``A x = b`` is ``x = x_p + Z z``. The QP becomes

       minimise ½ zᵀ (Zᵀ H Z) z + (Zᵀ (g + H x_p))ᵀ z   s.t.  l − C x_p ≤ C Z z ≤ u − C x_p

   in ``n − m`` variables (50 → 32 for Talos on two feet). :class:`BasisElimination` splits
   the variables into ``m`` basic ones ``x_B`` and the free ones ``x_N = z``:
   ``x_B = A_B⁻¹ (b − A_N z)``, i.e. ``Z = P [−E; I]`` with ``E = A_B⁻¹ A_N``. One LU of the
   m × m block ``A_B`` a step; the choice of basic columns (a column-pivoted QR of ``A``) is
   kept while that LU stays well conditioned. Redundant equalities go through
   :class:`OrthonormalElimination` (a pivoted QR of ``Aᵀ``).
2. **Factored cost.** With the cost given as ``‖R x − s‖² + Σ dᵢxᵢ² − 2eᵀx``
   (:class:`~tsid_py.qp.LeastSquaresCost`), ``ZᵀHZ = 2((RZ)ᵀ(RZ) + Zᵀdiag(d)Z)``: the n × n
   Hessian is never formed.
3. **Active-set guess.** The rows active at the previous step, held at the same bounds, make
   an equality-constrained QP solved by one Cholesky factorisation and a small Schur
   complement. If its multipliers have the right signs and its solution satisfies *every*
   row, it satisfies the KKT conditions of the full QP: it is the optimum. If not, the set
   is repaired by Goldfarb and Idnani's dual active-set steps started there (release
   wrong-signed multipliers, then push the most violated row to its bound, releasing rows
   whose multipliers reach zero on the way), for up to :data:`ACTIVE_SET_CHANGES` changes,
   each a new Schur complement on the same factorisation: a row or two joining or leaving
   the set between steps costs a few microseconds, not a QP solve. The basis
   elimination is a compiled kernel (:mod:`tsid_py.backends.active_set`); so are steps 2–3 when the
   cost is factored — the control loop's case. Otherwise the reduction is numpy's and the
   solve goes straight to step 4.
4. **Screened DAQP.** Otherwise a kept :class:`daqp.Model` solves the reduced QP over a
   working set ``W`` of rows (the guess plus the rows it violated); the solution is checked
   against all rows, violated rows join ``W``, and the last round uses every row. When the
   check passes the answer is optimal for the full problem (it solves a relaxation and is
   feasible).

Box bounds ``lb ≤ x ≤ ub`` are rows like any other here (after elimination they no longer
act on single variables). Contradictory equalities make the solve fail, for the diagnosis
to explain.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from . import active_set
from ..qp import QP
from .base import Backend, QPResult

#: Stand-in for an infinite bound (DAQP treats ±1e30 as unbounded).
INFINITE = 1e30

#: A row whose value exceeds its bound by more than this (in the row's units, relative to
#: max(1, |bound|)) is a violation that sends it into the working set.
FEASIBILITY_TOLERANCE = 1e-7

#: A multiplier of the guessed active set with the wrong sign beyond this (relative to
#: 1 + the largest multiplier) means the guess is not optimal.
DUAL_TOLERANCE = 1e-9

#: ``|R_ii| < RANK_TOLERANCE · max |R_jj|`` marks the equalities as rank-deficient.
RANK_TOLERANCE = 1e-10

#: The basic columns are chosen again when the LU of ``A_B`` has
#: ``min |U_ii| < BASIS_TOLERANCE · max |U_ii|`` (a cheap conditioning estimate).
BASIS_TOLERANCE = 1e-6

#: Redundant equalities are consistent if they hold at the particular solution to this
#: (relative to max(1, |b|)).
CONSISTENCY_TOLERANCE = 1e-8

_DAQP_EXIT = {1: "optimal", 2: "soft optimal", -1: "infeasible", -2: "cycling", -3: "unbounded",
              -4: "iteration limit", -5: "non-convex", -6: "overdetermined initial active set"}


# ---------------------------------------------------------------------------- eliminations
class Elimination:
    """``{x : A x = b} = {x_p + Z z}``; ``Z`` is applied, never required in full."""

    particular: np.ndarray
    consistent = True

    def reduce_rows(self, K: np.ndarray) -> np.ndarray:
        """``K Z``."""
        raise NotImplementedError

    def reduce_vector(self, v: np.ndarray) -> np.ndarray:
        """``Zᵀ v``."""
        raise NotImplementedError

    def reduce_diagonal(self, d: np.ndarray) -> np.ndarray:
        """``Zᵀ diag(d) Z``."""
        raise NotImplementedError

    def expand(self, z: np.ndarray) -> np.ndarray:
        """``x_p + Z z``."""
        raise NotImplementedError


class NoElimination(Elimination):
    """No equalities: ``Z = I``, ``x_p = 0``."""

    def __init__(self, n: int):
        self.particular = np.zeros(n)

    def reduce_rows(self, K):
        return K

    def reduce_vector(self, v):
        return v

    def reduce_diagonal(self, d):
        return np.diag(d)

    def expand(self, z):
        return z


class BasisElimination(Elimination):
    """``x_B = A_B⁻¹ (b − A_N x_N)`` for the basic columns ``basis`` and the free columns
    ``free`` (``Z = P [−E; I]``, ``E = A_B⁻¹ A_N``); ``x_basis = A_B⁻¹ b``."""

    def __init__(self, basis: np.ndarray, free: np.ndarray, E: np.ndarray, x_basis: np.ndarray):
        self.basis, self.free, self.E, self.x_basis = basis, free, E, x_basis
        self.particular = np.zeros(basis.size + free.size)
        self.particular[basis] = x_basis

    @classmethod
    def factorise(cls, A: np.ndarray, b: np.ndarray, basis: np.ndarray, free: np.ndarray):
        """The elimination for these columns (one compiled LU of ``A_B``), or None when that
        LU is singular or nearly so (``min |U_ii| ≤ BASIS_TOLERANCE · max |U_ii|``)."""
        E, x_basis = np.empty((basis.size, free.size)), np.empty(basis.size)
        if active_set.eliminate_basis(A, b, basis, free, E, x_basis) <= BASIS_TOLERANCE:
            return None
        return cls(basis, free, E, x_basis)

    @staticmethod
    def choose_basis(A: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(basis, free)`` column indices from a column-pivoted QR of ``A`` (the best
        conditioned choice, greedily), or None when the rows of ``A`` are dependent."""
        m = A.shape[0]
        R, order = scipy.linalg.qr(A, mode="r", pivoting=True)
        diagonal = np.abs(np.diagonal(R))
        if m > A.shape[1] or diagonal.size < m or diagonal[m - 1] <= RANK_TOLERANCE * diagonal[0]:
            return None
        return np.sort(order[:m]).astype(np.intp), np.sort(order[m:]).astype(np.intp)

    def reduce_rows(self, K):
        return K[:, self.free] - K[:, self.basis] @ self.E

    def reduce_vector(self, v):
        return v[self.free] - self.E.T @ v[self.basis]

    def reduce_diagonal(self, d):
        E = self.E
        out = E.T @ (d[self.basis, None] * E)
        out.flat[:: E.shape[1] + 1] += d[self.free]
        return out

    def expand(self, z):
        x = self.particular.copy()
        x[self.free] = z
        x[self.basis] -= self.E @ z
        return x


class OrthonormalElimination(Elimination):
    """``Z`` with orthonormal columns from a column-pivoted QR of ``Aᵀ``, which also finds
    redundant rows (a hard task repeating a contact's constraint, a full hard q̈ task on a
    robot in contact); ``consistent`` tells whether the dropped rows hold at ``x_p`` (if not,
    the equalities contradict each other)."""

    def __init__(self, A: np.ndarray, b: np.ndarray):
        Q, R, order = scipy.linalg.qr(A.T, pivoting=True)
        diagonal = np.abs(np.diagonal(R))
        rank = int(np.sum(diagonal > RANK_TOLERANCE * max(diagonal.max(initial=0.0), 1e-300)))
        y = scipy.linalg.solve_triangular(R[:rank, :rank], b[order[:rank]], trans="T")
        self.Z = Q[:, rank:]
        self.particular = Q[:, :rank] @ y
        residual = np.abs(A @ self.particular - b).max(initial=0.0)
        self.consistent = residual <= CONSISTENCY_TOLERANCE * (1.0 + np.abs(b).max(initial=0.0))

    def reduce_rows(self, K):
        return K @ self.Z

    def reduce_vector(self, v):
        return self.Z.T @ v

    def reduce_diagonal(self, d):
        return self.Z.T @ (d[:, None] * self.Z)

    def expand(self, z):
        return self.particular + self.Z @ z


def reduced_cost(qp: QP, elimination: Elimination) -> tuple[np.ndarray, np.ndarray]:
    """``(ZᵀHZ, Zᵀ(g + H x_p))``, from the factored cost when the QP has one."""
    x_p = elimination.particular
    cost = qp.cost
    if cost is None:
        HZ = elimination.reduce_rows(qp.H)
        return elimination.reduce_rows(HZ.T), elimination.reduce_vector(qp.g + qp.H @ x_p)
    RZ = elimination.reduce_rows(cost.R)
    H = RZ.T @ RZ
    H += elimination.reduce_diagonal(cost.d)
    g = RZ.T @ (cost.R @ x_p - cost.s)
    g += elimination.reduce_vector(cost.d * x_p - cost.e)
    return 2.0 * H, 2.0 * g


# ---------------------------------------------------------------------------- backend
#: ``(basis, feasibility, dual)`` tolerances, as the compiled step takes them.
_TOLERANCES = np.array([BASIS_TOLERANCE, FEASIBILITY_TOLERANCE, DUAL_TOLERANCE])


#: Changes of the active set (one row released or held each) the compiled step may make
#: before DAQP takes over: enough for the few rows a control step's active set gains or loses
#: (and for a cold start of the reference problem, about 30), few enough that a degenerate,
#: cycling case stays cheap (each change costs about a Schur complement).
ACTIVE_SET_CHANGES = 32


_KEPT_ACTIVE_SET = "optimal (active set of the previous step)"


class _ActiveSet:
    """The rows of ``C x`` held at a bound at the last solution, in buffers the compiled step
    updates in place: ``rows[:count]``, whether each is at its upper bound, and how many
    changes the last compiled step made (``sizes = [count, changes]``)."""

    def __init__(self, capacity: int):
        self.rows = np.zeros(capacity, dtype=np.intp)
        self.at_upper = np.zeros(capacity, dtype=bool)
        self.sizes = np.zeros(2, dtype=np.intp)

    def held(self) -> np.ndarray:
        return self.rows[: self.sizes[0]]

    @property
    def changes(self) -> int:
        return int(self.sizes[1])

    def store(self, rows: np.ndarray, at_upper: np.ndarray) -> None:
        count = rows.size
        self.rows[:count], self.at_upper[:count] = rows, at_upper
        self.sizes[0] = count


class _Workspace:
    """Buffers :func:`~tsid_py.backends.active_set.eliminate_and_guess` writes into, for ``m``
    equalities, ``k`` free variables and ``rows`` inequality rows; valid until the next step."""

    def __init__(self, m: int, k: int, rows: int):
        self.shape = (m, k, rows)
        self.E, self.x_basis = np.empty((m, k)), np.empty(m)
        self.H, self.g = np.empty((k, k)), np.empty(k)
        self.x, self.violated = np.empty(m + k), np.zeros(rows, dtype=bool)


class ReducedBackend(Backend):
    """Elimination + active-set guess + screened, hot-started DAQP (see the module
    docstring). Results equal the full QP's to the solver's tolerance."""

    name = "reduced"
    #: Every answer is checked against every row (the compiled step and the screened DAQP
    #: rounds both test all rows before returning a success).
    checks_constraints = True

    def __init__(self, max_rounds: int = 10):
        import daqp  # noqa: F401  (fail here, at construction, if it is missing)

        active_set.warm_up()     # compile (or load from the disk cache) now, not at the first step
        self.max_rounds = max_rounds
        self._model = None
        self._model_shape = None
        self._basis = None                               # (basis, free) columns, kept
        self._active = _ActiveSet(0)                     # rows active at the last solution
        self._rows_signature = None
        self.rounds = 0          # QP solves in the last call (1: the compiled step's was optimal)
        self._stack = None       # (shape key, C buffer, l buffer, u buffer)
        self._work = None        # the compiled path's output buffers

    def reset(self, rows: int | None = None) -> None:
        """Forget the DAQP model and the active set (sized anew for ``rows`` inequality rows)."""
        self._model = None
        self._model_shape = None
        self._active = _ActiveSet(self._active.rows.size if rows is None else rows)

    @property
    def changes(self) -> int:
        """Active-set changes the last compiled step made (0: the previous one was optimal)."""
        return self._active.changes

    def _stacked_rows(self, qp: QP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`QP.rows_with_box`, built once and then refreshed in place while the bounded
        variables and the row count stay the same (the control loop's case)."""
        if qp.stacked is not None:
            return qp.rows_with_box()
        bounded = qp.bounded_variables()
        if bounded.size == 0:
            return qp.C, qp.l, qp.u
        key = (qp.C.shape, tuple(bounded))
        if self._stack is None or self._stack[0] != key:
            self._stack = (key, *qp.rows_with_box())
            return self._stack[1:]
        _, C, l, u = self._stack
        m = qp.C.shape[0]
        C[:m] = qp.C
        l[:m], l[m:] = qp.l, qp.lb[bounded]
        u[:m], u[m:] = qp.u, qp.ub[bounded]
        return C, l, u

    def _eliminate(self, A: np.ndarray, b: np.ndarray) -> Elimination:
        """A basis elimination (see :meth:`_on_a_basis`); the orthonormal elimination when the
        equalities are redundant."""
        m, n = A.shape
        if m == 0:
            return NoElimination(n)
        elimination = self._on_a_basis(A, lambda basis, free: BasisElimination.factorise(A, b, basis, free))
        return elimination if elimination is not None else OrthonormalElimination(A, b)

    def _on_a_basis(self, A: np.ndarray, attempt):
        """``attempt(basis, free)`` with the kept basic columns while they fit, then (if it
        returns None: the LU of ``A_B`` is nearly singular) with newly chosen ones; its
        result, or None, the basis forgotten, when no basis serves."""
        m, n = A.shape
        if self._basis is not None and self._basis[0].size == m and self._basis[1].size == n - m:
            result = attempt(*self._basis)
            if result is not None:
                return result
        self._basis = BasisElimination.choose_basis(A)
        if self._basis is not None:
            result = attempt(*self._basis)
            if result is not None:
                return result
        self._basis = None
        return None

    def _compiled_step(self, qp: QP, C, l, u) -> int:
        """:func:`~tsid_py.backends.active_set.eliminate_and_guess` on a basis (:meth:`_on_a_basis`),
        writing into ``self._work``; its code, ``BASIS_REJECTED`` when no basis with free
        columns serves (the caller then eliminates in numpy)."""
        m = qp.A.shape[0]
        cost = qp.cost
        problem = (qp.A, qp.b, cost.R, cost.s, cost.d, cost.e, C, l, u)
        if qp.stacked is None:      # not a solver's own buffers: the kernel takes C-ordered float64 arrays
            problem = tuple(np.ascontiguousarray(array, dtype=np.float64) for array in problem)

        def attempt(basis, free):
            if free.size == 0:
                return None
            if self._work is None or self._work.shape != (m, free.size, C.shape[0]):
                self._work = _Workspace(m, free.size, C.shape[0])
            work, active = self._work, self._active
            code = active_set.direct.eliminate_and_guess(
                *problem, basis, free, active.rows, active.at_upper, active.sizes, ACTIVE_SET_CHANGES, _TOLERANCES,
                work.E, work.x_basis, work.H, work.g, work.x, work.violated)
            return None if code == active_set.BASIS_REJECTED else code

        code = self._on_a_basis(qp.A, attempt)
        return active_set.BASIS_REJECTED if code is None else code

    # ------------------------------------------------------------------ solving
    def solve(self, qp: QP) -> QPResult:
        C, l, u = self._stacked_rows(qp)
        signature = (qp.n, qp.A.shape[0], C.shape[0])
        if signature != self._rows_signature:
            self._rows_signature = signature
            self.reset(C.shape[0])
        self.rounds = 0
        code = active_set.BASIS_REJECTED
        if qp.cost is not None and qp.A.shape[0]:
            # The control loop's case, compiled and in one call: the elimination, the factored
            # cost's reduction, and the previous step's active set, repaired and checked
            # against every row.
            code = self._compiled_step(qp, C, l, u)
        if code == 0:
            self.rounds = 1
            count, changes = self._active.sizes.tolist()
            status = f"optimal (active set of the previous step, {changes} changes)" if changes else _KEPT_ACTIVE_SET
            return QPResult(self._work.x.copy(), status, True, changes, active=self._active.rows[:count].copy())
        working = self._active.held().copy()
        if code in (active_set.BASIS_REJECTED, active_set.COST_NOT_REDUCED):     # numpy's turn
            elimination = self._eliminate(qp.A, qp.b)
            if not elimination.consistent:
                self.reset()
                return QPResult(np.full(qp.n, np.nan), "EQUALITIES_INCONSISTENT", False)
            H, g = reduced_cost(qp, elimination)
        else:
            work = self._work
            elimination = BasisElimination(*self._basis, work.E, work.x_basis)
            H, g = work.H, work.g
            if code == 1:           # not repaired: start from the last active set and the rows it violates
                self.rounds = 1
                working = np.union1d(working, np.flatnonzero(work.violated))
        return self._screened_daqp(C, l, u, H, g, elimination, working)

    def _screened_daqp(self, C, l, u, H, g, elimination, working) -> QPResult:
        """DAQP on the working set's rows; add the violated rows until none is left (the
        last round takes every row)."""
        n = elimination.particular.size
        offset = C @ elimination.particular
        lower, upper = l - offset, u - offset
        everything = np.arange(C.shape[0])
        first = self.rounds + 1
        for self.rounds in range(first, first + self.max_rounds):
            if self.rounds == first + self.max_rounds - 1:
                working = everything          # last round: no screening, the full problem
            result = self._solve_reduced(H, g, elimination.reduce_rows(C[working]),
                                         lower[working], upper[working], working)
            if not result.success:
                self.reset()
                return QPResult(np.full(n, np.nan), result.status, False, result.iterations)
            x = elimination.expand(result.x)
            flags = np.empty(C.shape[0], dtype=bool)
            active_set.most_violated(C, l, u, x, FEASIBILITY_TOLERANCE, flags)     # the kernel's own test
            violated = np.flatnonzero(flags)
            if violated.size == 0:
                active = working[result.active]
                values = C[active] @ x
                self._active.store(active, np.abs(values - u[active]) < np.abs(values - l[active]))
                return QPResult(x, "DAQP_SOLVED", True, result.iterations, active=active)
            working = np.union1d(working, violated)
        self.reset()
        return QPResult(np.full(n, np.nan), "constraints violated beyond tolerance at the solution", False)

    def _solve_reduced(self, H, g, rows, lower, upper, working) -> QPResult:
        """Solve ``min ½ zᵀHz + gᵀz, lower ≤ rows z ≤ upper`` with the kept DAQP model
        (hot-started when the working set is the one it was built for); the result's
        ``active`` lists the active rows (indices into ``rows``)."""
        m = rows.shape[0]
        if H.shape[0] == 0:         # the equalities fix x: feasible or not, nothing to optimise
            feasible = np.all(lower <= FEASIBILITY_TOLERANCE) and np.all(upper >= -FEASIBILITY_TOLERANCE)
            return QPResult(np.zeros(0), "optimal" if feasible else "infeasible", bool(feasible),
                            active=np.zeros(0, dtype=int))
        if m == 0:
            return _solve_unconstrained(H, g)
        upper = np.minimum(upper, INFINITE)
        lower = np.maximum(lower, -INFINITE)
        shape = (H.shape[0], tuple(working))
        if self._model is None or shape != self._model_shape:
            import daqp

            self._model = daqp.Model()
            sense = np.zeros(m, dtype=np.int32)
            exitflag, _ = self._model.setup(H, g, rows, upper, lower, sense)
            self._model_shape = shape
            if exitflag < 0:
                return QPResult(None, f"DAQP setup failed ({exitflag})", False)
        else:
            self._model.update(H=H, f=g, A=rows, bupper=upper, blower=lower)
        z, _, exitflag, info = self._model.solve()
        status = _DAQP_EXIT.get(exitflag, f"DAQP exit {exitflag}")
        return QPResult(np.asarray(z), status, exitflag > 0, int(info["iterations"]),
                        active=np.flatnonzero(info["lam"] != 0.0))


def _solve_unconstrained(H: np.ndarray, g: np.ndarray) -> QPResult:
    """``z = −H⁻¹ g`` by Cholesky; fails cleanly when H is not positive definite."""
    factor, info = lapack.dpotrf(H, lower=0)
    if info != 0:
        return QPResult(None, "Hessian not positive definite", False)
    z, info = lapack.dpotrs(factor, -g, lower=0)
    return QPResult(z, "optimal", info == 0, active=np.zeros(0, dtype=int))
