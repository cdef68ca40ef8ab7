"""The fast backend: eliminate the equalities, screen the inequalities, hot-start DAQP.

A control step's QP has many equalities (the 6 floating-base rows of the equation of motion,
6 no-slip rows per planar contact) and many inequality rows that are rarely active (torque
limits). Three exact reductions make it small:

1. **Null-space elimination.** With ``Aᵀ = Q R`` (Householder QR, ``Q = [Y Z]``), every
   ``x`` with ``A x = b`` is ``x = x_p + Z z`` where ``x_p = Y R⁻ᵀ b``. The QP becomes

       minimise ½ zᵀ (Zᵀ H Z) z + (Zᵀ (g + H x_p))ᵀ z   s.t.  l − C x_p ≤ C Z z ≤ u − C x_p

   in ``n − m`` variables (50 → 32 for Talos on two feet).
2. **Constraint screening.** Only a working set ``W`` of the inequality rows enters the
   reduced QP: the rows active at the previous solution. The solution is then checked
   against *all* rows; violated rows join ``W`` and the QP is solved again. When the check
   passes, the answer is optimal for the full problem (it solves a relaxation and is
   feasible), so the result is the same as with every row present.
3. **Hot start.** A :class:`daqp.Model` is kept while the sizes hold; its active set carries
   over from one control step to the next, so a step usually takes zero or one active-set
   iteration.

Box bounds ``lb ≤ x ≤ ub`` are rows like any other here (after elimination they no longer
act on single variables). Redundant equalities are reduced to an independent subset
(:class:`NullSpace`); contradictory ones make the solve fail, for the diagnosis to explain.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from .qp import QP, Backend, QPResult

#: Stand-in for an infinite bound (DAQP treats ±1e30 as unbounded).
INFINITE = 1e30

#: A row whose value exceeds its bound by more than this (in the row's units, relative to
#: max(1, |bound|)) is a violation that sends it into the working set.
FEASIBILITY_TOLERANCE = 1e-7

#: ``|R_ii| < RANK_TOLERANCE · max |R_jj|`` marks the equalities as rank-deficient.
RANK_TOLERANCE = 1e-10

#: Redundant equalities are consistent if they hold at the particular solution to this
#: (relative to max(1, |b|)).
CONSISTENCY_TOLERANCE = 1e-8

_DAQP_EXIT = {1: "optimal", 2: "soft optimal", -1: "infeasible", -2: "cycling", -3: "unbounded",
              -4: "iteration limit", -5: "non-convex", -6: "overdetermined initial active set"}


class NullSpace:
    """``{x : A x = b} = {x_p + Z z}`` from one Householder QR of ``Aᵀ`` (LAPACK dgeqrf and
    dorgqr, called directly: numpy's wrappers cost more than the factorisation here).

    Redundant rows (a hard task that repeats a contact's constraint, a full hard q̈ task on
    a robot in contact) are found by a column-pivoted QR instead; ``consistent`` tells
    whether the dropped rows hold at ``x_p`` (if not, the equalities contradict each other).
    """

    def __init__(self, A: np.ndarray, b: np.ndarray):
        m, n = A.shape
        factors, tau, _, info = lapack.dgeqrf(A.T)
        diagonal = np.abs(np.diagonal(factors))
        self.full_rank = (info == 0 and m <= n
                          and diagonal.min(initial=np.inf) > RANK_TOLERANCE * diagonal.max(initial=0.0))
        self.consistent = True
        if self.full_rank:
            square = np.zeros((n, n), order="F")
            square[:, :m] = factors
            Q, _, info = lapack.dorgqr(square, tau, overwrite_a=1)
            y, _ = lapack.dtrtrs(factors[:m, :m], b, lower=0, trans=1)
            self.Z = Q[:, m:]
            self.particular = Q[:, :m] @ y
        else:
            self._reduce_redundant(A, b)

    def _reduce_redundant(self, A: np.ndarray, b: np.ndarray) -> None:
        Q, R, order = scipy.linalg.qr(A.T, pivoting=True)
        diagonal = np.abs(np.diagonal(R))
        rank = int(np.sum(diagonal > RANK_TOLERANCE * max(diagonal.max(initial=0.0), 1e-300)))
        y = scipy.linalg.solve_triangular(R[:rank, :rank], b[order[:rank]], trans="T")
        self.Z = Q[:, rank:]
        self.particular = Q[:, :rank] @ y
        residual = np.abs(A @ self.particular - b).max(initial=0.0)
        self.consistent = residual <= CONSISTENCY_TOLERANCE * (1.0 + np.abs(b).max(initial=0.0))

    def expand(self, z: np.ndarray) -> np.ndarray:
        return self.particular + self.Z @ z


class ReducedBackend(Backend):
    """Null-space elimination + constraint screening + hot-started DAQP (see the module
    docstring). Results equal the full QP's to the solver's tolerance."""

    name = "reduced"

    def __init__(self, max_rounds: int = 10):
        import daqp

        self._daqp = daqp
        self.max_rounds = max_rounds
        self._model = None
        self._model_shape = None
        self._working: np.ndarray = np.zeros(0, dtype=int)   # indices into the stacked rows
        self._rows_signature = None
        self.rounds = 0          # screening rounds of the last solve (for the benchmarks)
        self._stack = None       # (shape key, C buffer, l buffer, u buffer)

    def reset(self) -> None:
        self._model = None
        self._model_shape = None
        self._working = np.zeros(0, dtype=int)

    def _stacked_rows(self, qp: QP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`QP.rows_with_box`, built once and then refreshed in place while the bounded
        variables and the row count stay the same (the control loop's case)."""
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

    # ------------------------------------------------------------------ solving
    def solve(self, qp: QP) -> QPResult:
        C, l, u = self._stacked_rows(qp)
        if qp.A.shape[0]:
            space = NullSpace(qp.A, qp.b)
            if not space.consistent:
                self.reset()
                return QPResult(np.full(qp.n, np.nan), "EQUALITIES_INCONSISTENT", False)
            Z, particular = space.Z, space.particular
            HZ = qp.H @ Z
            H = Z.T @ HZ
            g = Z.T @ qp.g + HZ.T @ particular
        else:
            space, H, g, particular = None, qp.H, qp.g, np.zeros(qp.n)
        signature = (qp.n, qp.A.shape[0], C.shape[0])
        if signature != self._rows_signature:
            self._rows_signature = signature
            self._working = np.zeros(0, dtype=int)
            self._model = None
        offset = C @ particular
        lower, upper = l - offset, u - offset
        working, everything = self._working, np.arange(C.shape[0])
        for self.rounds in range(1, self.max_rounds + 1):
            if self.rounds == self.max_rounds:
                working = everything          # last round: no screening, the full problem
            rows = C[working] if space is None else C[working] @ Z
            result = self._solve_reduced(H, g, rows, lower[working], upper[working], working)
            if not result.success:
                self.reset()
                return QPResult(np.full(qp.n, np.nan), result.status, False, result.iterations)
            x = result.x if space is None else space.expand(result.x)
            values = C @ x
            scale = 1.0 + np.abs(np.where(values > u, u, l))
            violated = np.flatnonzero(((values - u) > FEASIBILITY_TOLERANCE * scale)
                                      | ((l - values) > FEASIBILITY_TOLERANCE * scale))
            if violated.size == 0:
                self._working = working[self._active] if working.size else working
                return QPResult(x, "DAQP_SOLVED", True, result.iterations)
            working = np.union1d(working, violated)
        self.reset()
        return QPResult(np.full(qp.n, np.nan), "constraints violated beyond tolerance at the solution", False)

    def _solve_reduced(self, H, g, rows, lower, upper, working) -> QPResult:
        """Solve ``min ½ zᵀHz + gᵀz, lower ≤ rows z ≤ upper`` with the kept DAQP model
        (hot-started when the working set is the one it was built for)."""
        m = rows.shape[0]
        if H.shape[0] == 0:         # the equalities fix x: feasible or not, nothing to optimise
            feasible = np.all(lower <= FEASIBILITY_TOLERANCE) and np.all(upper >= -FEASIBILITY_TOLERANCE)
            self._active = np.zeros(0, dtype=int)
            return QPResult(np.zeros(0), "optimal" if feasible else "infeasible", bool(feasible))
        if m == 0:
            return _solve_unconstrained(H, g)
        upper = np.minimum(upper, INFINITE)
        lower = np.maximum(lower, -INFINITE)
        shape = (H.shape[0], tuple(working))
        if self._model is None or shape != self._model_shape:
            self._model = self._daqp.Model()
            sense = np.zeros(m, dtype=np.int32)
            exitflag, _ = self._model.setup(H, g, rows, upper, lower, sense)
            self._model_shape = shape
            if exitflag < 0:
                return QPResult(None, f"DAQP setup failed ({exitflag})", False)
        else:
            self._model.update(H=H, f=g, A=rows, bupper=upper, blower=lower)
        z, _, exitflag, info = self._model.solve()
        self._active = np.flatnonzero(info["lam"] != 0.0)
        status = _DAQP_EXIT.get(exitflag, f"DAQP exit {exitflag}")
        return QPResult(np.asarray(z), status, exitflag > 0, int(info["iterations"]))


def _solve_unconstrained(H: np.ndarray, g: np.ndarray) -> QPResult:
    """``z = −H⁻¹ g`` by Cholesky; fails cleanly when H is not positive definite."""
    factor, info = lapack.dpotrf(H, lower=0)
    if info != 0:
        return QPResult(None, "Hessian not positive definite", False)
    z, info = lapack.dpotrs(factor, -g, lower=0)
    return QPResult(z, "optimal", info == 0)
