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
from scipy.linalg import lapack

from . import active_set
from ..qp import QP
from .base import Backend, QPResult
from .elimination import (BASIS_TOLERANCE, CONSISTENCY_TOLERANCE, RANK_TOLERANCE,  # noqa: F401 (re-exported)
                          BasisElimination, Elimination, NoElimination, OrthonormalElimination, reduced_cost)

#: Stand-in for an infinite bound (DAQP treats ±1e30 as unbounded).
INFINITE = 1e30

#: A row whose value exceeds its bound by more than this (in the row's units, relative to
#: max(1, |bound|)) is a violation that sends it into the working set.
FEASIBILITY_TOLERANCE = 1e-7

#: A multiplier of the guessed active set with the wrong sign beyond this (relative to
#: 1 + the largest multiplier) means the guess is not optimal.
DUAL_TOLERANCE = 1e-9


_DAQP_EXIT = {1: "optimal", 2: "soft optimal", -1: "infeasible", -2: "cycling", -3: "unbounded",
              -4: "iteration limit", -5: "non-convex", -6: "overdetermined initial active set"}


# ---------------------------------------------------------------------------- backend
#: ``(basis, feasibility, dual)`` tolerances, as the compiled step takes them.
_TOLERANCES = np.array([BASIS_TOLERANCE, FEASIBILITY_TOLERANCE, DUAL_TOLERANCE])


#: Changes of the active set (one row released or held each) the compiled step may make
#: before DAQP takes over: enough for the few rows a control step's active set gains or loses
#: (and for a cold start of the reference problem, about 30), few enough that a degenerate,
#: cycling case stays cheap (each change costs about a Schur complement).
ACTIVE_SET_CHANGES = 32


_eliminate_and_guess = active_set.direct.eliminate_and_guess_into

_KEPT_ACTIVE_SET = "optimal (active set of the previous step)"

#: The compiled step's statuses by the number of changes it made (formed once: a status is
#: not formatted on the control loop's path).
_REPAIRED_ACTIVE_SET = (_KEPT_ACTIVE_SET, *(f"optimal (active set of the previous step, {changes} changes)"
                                            for changes in range(1, ACTIVE_SET_CHANGES + 1)))


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
    equalities, ``k`` free variables, ``rows`` inequality rows and ``cost_rows`` rows of the
    factored cost, and its work arrays (``scratch``); valid until the next step."""

    def __init__(self, m: int, k: int, rows: int, cost_rows: int):
        self.shape = (m, k, rows, cost_rows)
        self.E, self.x_basis = np.empty((m, k)), np.empty(m)
        self.H, self.g = np.empty((k, k)), np.empty(k)
        self.x, self.violated = np.empty(m + k), np.zeros(rows, dtype=bool)
        self.scratch = np.empty(active_set.step_scratch_size(m, k, cost_rows, rows))


class ReducedBackend(Backend):
    """Elimination + active-set guess + screened, hot-started DAQP (see the module
    docstring). Results equal the full QP's to the solver's tolerance."""

    name = "reduced"
    #: Every answer is checked against every row (the compiled step and the screened DAQP
    #: rounds both test all rows before returning a success).
    checks_constraints = True
    #: ``solve(qp, reuse=True)`` refills the backend's own result (the solver asks for it
    #: when its caller refills a solution: ``solver.solve(q, v, out=sol)``).
    reuses_results = True
    #: The compiled Cholesky stays accurate on a level's Hessian with this proximal weight
    #: (condition number about 10¹⁰, as the forces' regularisation already gives a control
    #: step), so each level takes one or two solves (:mod:`tsid_py.hierarchy`).
    proximal_weight = 1e-10

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
        self._result = QPResult(np.zeros(0), "", False)     # what ``solve(qp, reuse=True)`` refills
        self._pending = None     # a warm start to apply at the next solve (restore_warm_start)
        self._signature = np.zeros(3, dtype=np.intp)       # _rows_signature, for a recorder
        #: The compiled step's arguments for the solver's own buffers, and what they were made
        #: for: ``(qp, basis, free, active set, workspace, arguments)`` (see :meth:`_attempt`).
        self._arguments = None

    def reset(self, rows: int | None = None) -> None:
        """Forget the DAQP model and the active set (sized anew for ``rows`` inequality rows)."""
        self._model = None
        self._model_shape = None
        self._active = _ActiveSet(self._active.rows.size if rows is None else rows)
        self._arguments = None

    def _apply_warm_start(self, rows: int) -> None:
        """The warm start :meth:`restore_warm_start` left for this solve (``rows`` inequality rows)."""
        held, at_upper, basis, signature = self._pending
        self._pending = None
        self._basis = basis
        capacity = rows if signature is None else signature[2]
        if held.size and held.max() >= capacity:
            raise ValueError(f"the warm start holds row {held.max()}, but its QP has {capacity} inequality rows")
        self._active = _ActiveSet(capacity)
        self._active.store(held, at_upper)
        self._rows_signature = signature
        self._signature[:] = (0, 0, 0) if signature is None else signature

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
        """:func:`~tsid_py.backends.active_set.eliminate_and_guess` on the kept basis while it
        serves, else on a newly chosen one (as :meth:`_on_a_basis`, without a closure: this is
        the control loop's path), writing into ``self._work``; its code, ``BASIS_REJECTED``
        when no basis with free columns serves (the caller then eliminates in numpy)."""
        m, n = qp.A.shape
        kept = self._basis
        if kept is not None and kept[0].size == m and kept[1].size == n - m:
            code = self._attempt(qp, C, l, u, kept[0], kept[1])
            if code != active_set.BASIS_REJECTED:
                return code
        return self._new_basis_step(qp, C, l, u)

    def _new_basis_step(self, qp: QP, C, l, u) -> int:
        """The compiled step on newly chosen basic columns (the kept ones were rejected, or
        there were none); ``BASIS_REJECTED`` when none serves."""
        self._basis = BasisElimination.choose_basis(qp.A)
        if self._basis is not None:
            code = self._attempt(qp, C, l, u, *self._basis)
            if code != active_set.BASIS_REJECTED:
                return code
        self._basis = None
        return active_set.BASIS_REJECTED

    def _attempt(self, qp: QP, C, l, u, basis, free) -> int:
        """One compiled step on the basic columns ``basis`` (``BASIS_REJECTED`` without free
        columns, or when the LU of ``A_B`` is nearly singular)."""
        if free.size == 0:
            return active_set.BASIS_REJECTED
        cost = qp.cost
        m, rows, cost_rows = qp.A.shape[0], C.shape[0], cost.R.shape[0]
        work = self._work
        if work is None or work.shape != (m, free.size, rows, cost_rows):
            work = self._work = _Workspace(m, free.size, rows, cost_rows)
        active = self._active
        if qp.stacked is None:      # not a solver's own buffers: the kernel takes C-ordered float64 arrays
            problem = tuple(np.ascontiguousarray(array, dtype=np.float64)
                            for array in (qp.A, qp.b, cost.R, cost.s, cost.d, cost.e, C, l, u))
            return active_set.direct.eliminate_and_guess_into(
                *problem, basis, free, active.rows, active.at_upper, active.sizes, ACTIVE_SET_CHANGES, _TOLERANCES,
                work.E, work.x_basis, work.H, work.g, work.x, work.violated, work.scratch)
        # A builder's own buffers (``qp.stacked``) stay the same arrays from step to step: the
        # arguments are kept for :meth:`solve`'s next step on this QP with this basis.
        arguments = (qp.A, qp.b, cost.R, cost.s, cost.d, cost.e, C, l, u, basis, free, active.rows, active.at_upper,
                     active.sizes, ACTIVE_SET_CHANGES, _TOLERANCES, work.E, work.x_basis, work.H, work.g, work.x,
                     work.violated, work.scratch)
        self._arguments = (qp, basis, free, active, work, arguments)
        return active_set.direct.eliminate_and_guess_into(*arguments)

    def active_set(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows held at a bound at the last solution (indices into the stacked rows of
        :meth:`QP.rows_with_box`) and whether each is at its upper bound: the guess the next
        step starts from (views of the backend's buffers, valid until the next solve)."""
        count = self._active.sizes.item(0)
        return self._active.rows[:count], self._active.at_upper[:count]

    def warm_start_buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The active set's buffers — held rows, whether each is at its upper bound (the first
        ``sizes[0]`` entries count), ``sizes`` — and the shape ``(n, equalities, rows)`` of
        the QP they belong to (zeros before the first solve), for a recorder to copy."""
        active = self._active
        return active.rows, active.at_upper, active.sizes, self._signature

    def restore_warm_start(self, rows, at_upper, basis=None, signature=None) -> None:
        """Start the next solve from this active set and these basic columns ``(basis,
        free)`` (None: chosen anew), kept for a QP of shape ``signature`` ``(n, equalities,
        rows)``, as if the previous step had ended there (a next QP of another shape starts
        cold, as it would have): a recorded step re-solved as it was
        (:mod:`tsid_py.tools.replay`)."""
        rows, at_upper = np.array(rows, dtype=np.intp), np.array(at_upper, dtype=bool)
        if rows.shape != at_upper.shape or rows.ndim != 1:
            raise ValueError(f"rows and at_upper must be vectors of one length, got {rows.shape} and {at_upper.shape}")
        signature = None if signature is None else tuple(int(value) for value in signature)
        self._pending = (rows, at_upper, None if basis is None else tuple(np.array(b, dtype=np.intp) for b in basis),
                         signature)

    @property
    def basis(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The basic and free columns the elimination keeps, or None."""
        return self._basis

    # ------------------------------------------------------------------ solving
    def solve(self, qp: QP, reuse: bool = False) -> QPResult:
        """Solve ``qp``. ``reuse``: when the compiled step finds the optimum, refill and return
        the backend's own :class:`QPResult`, whose ``x`` is its buffer (valid until the next
        solve) and whose ``active`` is None (:meth:`active_set` tells): the control loop's
        allocation-free path. Other outcomes return a new result either way."""
        kept = self._arguments
        basis = self._basis
        if (kept is not None and kept[0] is qp and basis is not None and kept[1] is basis[0]
                and kept[3] is self._active and self._pending is None):
            # The control loop's case: the same QP's buffers, basis and active set as the last
            # step (so the same shapes): the box's bounds refreshed, and the compiled step.
            C, l, u = qp.rows_with_box()
            self.rounds = 0
            code = _eliminate_and_guess(*kept[5])
            if code == active_set.BASIS_REJECTED:
                code = self._new_basis_step(qp, C, l, u)
        else:
            C, l, u, code = self._first_step(qp)
        return self._outcome(qp, C, l, u, code, reuse)

    def kept_step(self) -> tuple | None:
        """The compiled step's kept arguments (their first: the QP they were made for) while
        :meth:`solve_kept` may run on them, else None (none kept, a warm start pending). Their
        identity changes with anything else the backend keeps."""
        return self._arguments if self._pending is None else None

    @property
    def kept_result(self) -> QPResult:
        """The result ``solve(qp, True)`` and :meth:`solve_kept` refill when the compiled step
        finds the optimum (its ``x`` checked against every row)."""
        return self._result

    def solve_kept(self, qp: QP) -> QPResult:
        """``solve(qp, True)`` for the QP of the last call, when nothing but its rows' and
        cost's values changed since — the same buffers, basis, active set and box bounds (a
        steady control step: :mod:`tsid_py.solver_steady` checks that): the compiled step on
        the kept arguments, without the checks and the box's refresh."""
        self.rounds = 0
        code = _eliminate_and_guess(*self._arguments[5])
        if code == 0:               # (the control loop's case, as :meth:`_outcome` fills it)
            self.rounds = 1
            changes = self._active.sizes.item(1)
            result = self._result
            result.x, result.status, result.success, result.iterations = (
                self._work.x, _REPAIRED_ACTIVE_SET[changes], True, changes)
            result.active = None
            return result
        C, l, u = qp.rows_with_box()
        if code == active_set.BASIS_REJECTED:
            code = self._new_basis_step(qp, C, l, u)
        return self._outcome(qp, C, l, u, code, True)

    def _outcome(self, qp: QP, C, l, u, code: int, reuse: bool) -> QPResult:
        """The result of a step whose compiled step returned ``code``: its solution when it
        found the optimum, else numpy's elimination or the kept one, and the screened DAQP."""
        if code == 0:
            self.rounds = 1
            count, changes = self._active.sizes.item(0), self._active.sizes.item(1)
            if reuse:
                result = self._result
                result.x, result.status, result.success, result.iterations = (
                    self._work.x, _REPAIRED_ACTIVE_SET[changes], True, changes)
                result.active = None
                return result
            return QPResult(self._work.x.copy(), _REPAIRED_ACTIVE_SET[changes], True, changes,
                            active=self._active.rows[:count].copy())
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

    def _first_step(self, qp: QP) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The stacked rows ``C, l, u`` and the compiled step's code for a QP other than the
        last step's (or after a warm start was restored): the active set reset when the QP's
        shape changed."""
        C, l, u = self._stacked_rows(qp)
        signature = (qp.n, qp.A.shape[0], C.shape[0])
        if self._pending is not None:
            self._apply_warm_start(C.shape[0])
        if signature != self._rows_signature:
            self._rows_signature = signature
            self._signature[:] = signature
            self.reset(C.shape[0])
        self.rounds = 0
        code = active_set.BASIS_REJECTED
        if qp.cost is not None and qp.A.shape[0]:
            # The elimination, the factored cost's reduction, and the previous step's active
            # set, repaired and checked against every row, in one compiled call.
            code = self._compiled_step(qp, C, l, u)
        return C, l, u, code

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
