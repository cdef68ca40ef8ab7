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


def _finite(array: np.ndarray) -> np.ndarray:
    return np.clip(array, -BIG, BIG)
