"""The QP as a value object, and the backends that solve it.

    minimise    ½ xᵀ H x + gᵀ x
    subject to  A x = b,   l ≤ C x ≤ u,   lb ≤ x ≤ ub

Infinite entries of ``l, u, lb, ub`` mean "unbounded". ``lb, ub`` may be None (no box).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import SolverError

#: Stand-in for an infinite bound, for backends that want finite numbers.
BIG = 1e20


@dataclass
class LeastSquaresCost:
    """A cost kept in factored form, ``‖R x − s‖² + Σᵢ dᵢ xᵢ² − 2 eᵀx`` (+ a constant):

        H = 2 (RᵀR + diag(d)),   g = −2 (Rᵀs + e).

    ``R`` stacks the soft tasks' rows scaled by √weight; ``d`` and ``e`` hold the costs that
    act on single variables (posture, regularisation). Backends that eliminate variables
    reduce ``R`` and ``d`` instead of the n×n Hessian, which is cheaper.
    """

    R: np.ndarray
    s: np.ndarray
    d: np.ndarray
    e: np.ndarray

    def hessian(self) -> np.ndarray:
        H = self.R.T @ self.R
        H.flat[:: H.shape[0] + 1] += self.d
        return 2.0 * H

    def gradient(self) -> np.ndarray:
        return -2.0 * (self.R.T @ self.s + self.e)

    def copy(self) -> "LeastSquaresCost":
        return LeastSquaresCost(self.R.copy(), self.s.copy(), self.d.copy(), self.e.copy())


class QP:
    """``H, g`` are given directly, or as a :class:`LeastSquaresCost` (``cost=``) from
    which they are formed on first use.

    ``stacked = (C_all, l_all, u_all, columns)`` lets a builder that reuses its buffers hand
    over the inequality rows already stacked with the box: ``C, l, u`` are the leading rows
    of ``C_all, l_all, u_all`` and the trailing rows of ``C_all`` are unit rows on
    ``columns`` (whose bounds may be infinite); :meth:`rows_with_box` then only copies the
    box's current bounds.
    """

    def __init__(self, H, g, A, b, C, l, u, lb=None, ub=None, *, cost: LeastSquaresCost | None = None,
                 stacked: tuple | None = None):
        if (H is None or g is None) and cost is None:
            raise ValueError("QP needs H and g, or a cost")
        self._H, self._g, self.cost, self.stacked = H, g, cost, stacked
        self.A, self.b, self.C, self.l, self.u, self.lb, self.ub = A, b, C, l, u, lb, ub

    def cost_changed(self) -> None:
        """The buffers behind ``cost`` were rewritten (a builder reusing this QP for the next
        step): drop the H and g formed from them."""
        self._H = self._g = None

    @property
    def H(self) -> np.ndarray:
        if self._H is None:
            self._H = self.cost.hessian()
        return self._H

    @property
    def g(self) -> np.ndarray:
        if self._g is None:
            self._g = self.cost.gradient()
        return self._g

    @property
    def n(self) -> int:
        return self.A.shape[1]

    def bounded_variables(self) -> np.ndarray:
        """Indices of the variables with a box row: those with a finite bound (or those the
        builder stacked)."""
        if self.stacked is not None:
            return self.stacked[3]
        if self.lb is None:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(np.isfinite(self.lb) | np.isfinite(self.ub))

    def rows_with_box(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``l ≤ C x ≤ u`` with the box bounds appended as unit rows (in the order of
        :meth:`bounded_variables`)."""
        if self.stacked is not None:
            C_all, l_all, u_all, columns = self.stacked
            m = self.C.shape[0]
            l_all[m:] = self.lb[columns]
            u_all[m:] = self.ub[columns]
            return C_all, l_all, u_all
        bounded = self.bounded_variables()
        unit = np.zeros((bounded.size, self.n))
        unit[np.arange(bounded.size), bounded] = 1.0
        box_lower = self.lb[bounded] if bounded.size else np.zeros(0)
        box_upper = self.ub[bounded] if bounded.size else np.zeros(0)
        return (np.vstack([self.C, unit]), np.concatenate([self.l, box_lower]),
                np.concatenate([self.u, box_upper]))

    def copy(self) -> "QP":
        """A deep copy (the solver reuses its buffers from one step to the next)."""
        return QP(*(None if value is None else value.copy() for value in
                    (self._H, self._g, self.A, self.b, self.C, self.l, self.u, self.lb, self.ub)),
                  cost=None if self.cost is None else self.cost.copy())

    def fix_variables(self, index: np.ndarray, values: np.ndarray) -> "QP":
        """The QP in the remaining variables once ``x[index] = values`` is substituted.

        With ``x = (x_F fixed, x_f free)``: ``H_ff``, ``g_f + H_fF v``, ``A_f x_f = b − A_F v``,
        ``l − C_F v ≤ C_f x_f ≤ u − C_F v``, and the box restricted to the free entries.
        """
        free = np.setdiff1d(np.arange(self.n), index)
        H_fF = self.H[np.ix_(free, index)]
        box = (None, None) if self.lb is None else (self.lb[free], self.ub[free])
        shift_A = self.A[:, index] @ values
        shift_C = self.C[:, index] @ values
        return QP(self.H[np.ix_(free, free)], self.g[free] + H_fF @ values, self.A[:, free], self.b - shift_A,
                  self.C[:, free], self.l - shift_C, self.u - shift_C, *box)

    def violation(self, x: np.ndarray) -> float:
        """Largest violation of the constraints at ``x`` (0 when feasible)."""
        worst = 0.0
        if self.A.shape[0]:
            worst = max(worst, np.abs(self.A @ x - self.b).max())
        if self.C.shape[0]:
            cx = self.C @ x
            worst = max(worst, np.max(self.l - cx, initial=0.0), np.max(cx - self.u, initial=0.0))
        if self.lb is not None:
            worst = max(worst, np.max(self.lb - x, initial=0.0), np.max(x - self.ub, initial=0.0))
        return float(worst)


@dataclass
class QPResult:
    x: np.ndarray
    status: str
    success: bool
    iterations: int = 0
    active: np.ndarray | None = None    # indices of the active rows, when the backend tells


class Backend:
    """Solves a :class:`QP`; returns a :class:`QPResult` (never raises for a failed solve)."""

    name = "backend"

    def solve(self, qp: QP) -> QPResult:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget any warm start (e.g. after a failure)."""


class ProxsuiteBackend(Backend):
    """proxsuite's dense ProxQP, reused and warm-started while the problem sizes hold.

    ``eps_abs`` is the absolute primal/dual residual tolerance.
    """

    name = "proxsuite"

    def __init__(self, eps_abs: float = 1e-9, max_iter: int = 1000):
        import proxsuite

        self._proxqp = proxsuite.proxqp
        self.eps_abs = eps_abs
        self.max_iter = max_iter
        self._solver = None
        self._dims = None

    def reset(self) -> None:
        self._solver = None
        self._dims = None

    def _new_solver(self, dims):
        n, neq, nin, box = dims
        solver = self._proxqp.dense.QP(n, neq, nin, box)
        settings = solver.settings
        settings.eps_abs = self.eps_abs
        settings.eps_rel = 0.0
        settings.max_iter = self.max_iter
        settings.initial_guess = self._proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
        return solver

    def solve(self, qp: QP) -> QPResult:
        if qp.C.shape[0] == 0 and (qp.lb is None or not np.any(np.isfinite(np.r_[qp.lb, qp.ub]))):
            return solve_kkt(qp)
        box = qp.lb is not None
        dims = (qp.n, qp.A.shape[0], qp.C.shape[0], box)
        args = [qp.H, qp.g, qp.A, qp.b, qp.C, _finite(qp.l), _finite(qp.u)]
        if box:
            args += [_finite(qp.lb), _finite(qp.ub)]
        warm = dims == self._dims
        result = self._solve(args, dims, warm)
        if not result.success and warm:
            # A warm start far from the new solution can make ProxQP report infeasibility
            # wrongly; a cold start settles it.
            result = self._solve(args, dims, warm=False)
        if not result.success:
            self.reset()
        return result

    def _solve(self, args, dims, warm: bool) -> QPResult:
        if warm:
            self._solver.update(*args)
        else:
            self._solver = self._new_solver(dims)
            self._dims = dims
            self._solver.init(*args)
        self._solver.solve()
        info = self._solver.results.info
        status = str(info.status).rsplit(".", 1)[-1]
        success = status == "PROXQP_SOLVED"
        x = self._solver.results.x.copy() if success else np.full(dims[0], np.nan)
        return QPResult(x, status, success, int(info.iter))


class QpsolversBackend(Backend):
    """Any solver known to qpsolvers (``"osqp"``, ``"daqp"``, ``"quadprog"``, …).

    Two-sided rows ``l ≤ C x ≤ u`` become ``G x ≤ h`` rows for their finite sides.
    """

    def __init__(self, name: str, **options):
        import qpsolvers

        if name not in qpsolvers.available_solvers:
            raise ValueError(f"qp_solver {name!r} is not available; installed: "
                             f"{sorted(qpsolvers.available_solvers)}")
        self._qpsolvers = qpsolvers
        self.name = name
        self.options = options
        if name == "osqp":
            self.options = {"eps_abs": 1e-8, "eps_rel": 0.0, "max_iter": 100000, "polishing": True,
                            "verbose": False, "raise_error": False, **options}
        # Solvers that only take sparse matrices get them in CSC form (no conversion warning).
        self._sparse = name in qpsolvers.sparse_solvers and name not in qpsolvers.dense_solvers

    def solve(self, qp: QP) -> QPResult:
        upper = np.isfinite(qp.u)
        lower = np.isfinite(qp.l)
        G = np.vstack([qp.C[upper], -qp.C[lower]])
        h = np.concatenate([qp.u[upper], -qp.l[lower]])
        lb = ub = None
        if qp.lb is not None:
            lb, ub = np.maximum(qp.lb, -BIG), np.minimum(qp.ub, BIG)
        H, A = qp.H, qp.A
        if self._sparse:
            from scipy import sparse

            H, G, A = sparse.csc_matrix(H), sparse.csc_matrix(G), sparse.csc_matrix(A)
        problem = self._qpsolvers.Problem(H, qp.g, G if len(h) else None, h if len(h) else None,
                                          A if qp.A.shape[0] else None, qp.b if qp.A.shape[0] else None,
                                          lb, ub)
        try:
            solution = self._qpsolvers.solve_problem(problem, solver=self.name, **self.options)
        except Exception as exc:  # a backend's own error becomes a failed solve
            return QPResult(np.full(qp.n, np.nan), f"error: {exc}", False)
        found = bool(solution.found) and solution.x is not None and np.all(np.isfinite(solution.x))
        status = "solved" if found else "failed"
        return QPResult(solution.x if found else np.full(qp.n, np.nan), status, found)


def solve_kkt(qp: QP) -> QPResult:
    """A QP with equalities only: solve ``[H Aᵀ; A 0] [x; λ] = [−g; b]`` directly (exact, and
    cheaper than an iterative solver). A rank-deficient system gets its least-squares answer,
    which is checked against the equalities."""
    n, m = qp.n, qp.A.shape[0]
    kkt = np.zeros((n + m, n + m))
    kkt[:n, :n] = qp.H
    kkt[:n, n:] = qp.A.T
    kkt[n:, :n] = qp.A
    rhs = np.concatenate([-qp.g, qp.b])
    try:
        x = np.linalg.solve(kkt, rhs)[:n]
    except np.linalg.LinAlgError:
        x = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:n]
    residual = np.abs(qp.A @ x - qp.b).max(initial=0.0)
    if not np.all(np.isfinite(x)) or residual > 1e-6 * max(1.0, np.abs(qp.b).max(initial=0.0)):
        return QPResult(np.full(n, np.nan), "KKT_INFEASIBLE", False)
    return QPResult(x, "KKT_SOLVED", True)


def make_backend(name: str) -> Backend:
    """``"reduced"`` (null-space elimination + hot-started DAQP, :mod:`tsid_py.reduced`),
    ``"proxsuite"`` or the name of any installed qpsolvers backend."""
    if not isinstance(name, str):
        raise ValueError(f"qp_solver must be a solver name (str), got {name!r}")
    if name == "reduced":
        from .reduced import ReducedBackend

        return ReducedBackend()
    if name == "proxsuite":
        return ProxsuiteBackend()
    return QpsolversBackend(name)


def _finite(array: np.ndarray) -> np.ndarray:
    return np.clip(array, -BIG, BIG)


def solve_or_raise(backend: Backend, qp: QP) -> QPResult:
    """Solve and raise :class:`SolverError` on failure (no diagnosis)."""
    result = backend.solve(qp)
    if not result.success:
        raise SolverError(f"QP backend {backend.name!r} failed: {result.status}", result.status)
    return result
