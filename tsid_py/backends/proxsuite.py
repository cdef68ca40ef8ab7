"""proxsuite's dense ProxQP as a backend: the full (unreduced) QP, warm-started."""

from __future__ import annotations

import numpy as np

from ..qp import BIG, QP
from .base import Backend, QPResult, solve_kkt


class ProxsuiteBackend(Backend):
    """proxsuite's dense ProxQP, reused and warm-started while the problem sizes hold.

    ``eps_abs`` is the absolute primal/dual residual tolerance.
    """

    name = "proxsuite"

    def __init__(self, eps_abs: float = 1e-9, max_iter: int = 1000):
        import proxsuite  # noqa: F401  (fail here, at construction, if it is missing)

        self.eps_abs = eps_abs
        self.max_iter = max_iter
        self._solver = None
        self._dims = None

    def reset(self) -> None:
        self._solver = None
        self._dims = None

    def _new_solver(self, dims, warm: bool):
        """A dense ProxQP; ``warm``: later solves start from the previous result, else from
        the equality-constrained initial guess (a cold start that does not inherit the
        warm start's misleading iterate)."""
        from proxsuite import proxqp

        n, neq, nin, box = dims
        solver = proxqp.dense.QP(n, neq, nin, box)
        settings = solver.settings
        settings.eps_abs = self.eps_abs
        settings.eps_rel = 0.0
        settings.max_iter = self.max_iter
        settings.initial_guess = (proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT if warm
                                  else proxqp.InitialGuess.EQUALITY_CONSTRAINED_INITIAL_GUESS)
        return solver

    def solve(self, qp: QP) -> QPResult:
        if qp.C.shape[0] == 0 and (qp.lb is None or not np.any(np.isfinite(np.r_[qp.lb, qp.ub]))):
            return solve_kkt(qp)
        box = qp.lb is not None
        dims = (qp.n, qp.A.shape[0], qp.C.shape[0], box)
        args = [qp.H, qp.g, qp.A, qp.b, qp.C, _finite(qp.l), _finite(qp.u)]
        if box:
            args += [_finite(qp.lb), _finite(qp.ub)]
        result = self._solve(args, dims, "warm" if dims == self._dims else "new")
        if not result.success:
            # A warm start far from the new solution (or a first iterate far from it) can
            # make ProxQP report infeasibility wrongly; a cold start from the
            # equality-constrained guess settles it.
            result = self._solve(args, dims, "cold")
        if not result.success:
            self.reset()
        return result

    def _solve(self, args, dims, start: str) -> QPResult:
        """``start``: "warm" (update the kept solver), "new" (a new solver that will warm
        start later solves) or "cold" (a new solver from the equality-constrained guess)."""
        if start == "warm":
            self._solver.update(*args)
        else:
            self._solver = self._new_solver(dims, warm=start == "new")
            self._dims = dims
            self._solver.init(*args)
        self._solver.solve()
        info = self._solver.results.info
        status = str(info.status).rsplit(".", 1)[-1]
        success = status == "PROXQP_SOLVED"
        x = self._solver.results.x.copy() if success else np.full(dims[0], np.nan)
        return QPResult(x, status, success, int(info.iter))


def _finite(array: np.ndarray) -> np.ndarray:
    return np.clip(array, -BIG, BIG)
