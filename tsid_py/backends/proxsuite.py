"""proxsuite's dense ProxQP as a backend: the full (unreduced) QP, presolved and warm-started
(``"proxsuite"``) or started cold at every step (``"proxqp"``)."""

from __future__ import annotations

import numpy as np

from ..qp import BIG, QP
from .base import Backend, QPResult, solve_kkt
from .polish import complementary
from .presolve import presolve, trivial_result


class ProxsuiteBackend(Backend):
    """proxsuite's dense ProxQP, reused and warm-started while the problem sizes hold.

    ProxQP sees the presolved problem (:func:`~tsid_py.backends.presolve.presolve`:
    variables fixed by equal bounds substituted, the rest equilibrated).

    Parameters
    ----------
    eps_abs : the absolute primal/dual residual tolerance on the presolved problem (rows of
        largest coefficient 1, so that 1e-11 keeps the rows on contact forces, whose
        coefficients the scaling multiplies by up to ~1e4, within 1e-7 N).
    max_iter : ProxQP's iteration limit.
    eps_infeasible : ProxQP's primal and dual infeasibility tolerances. At its default
        (1e-4), and still at 1e-5, ProxQP declares feasible control steps primal infeasible;
        at 1e-9 it no longer recognises contradictory hard tasks (it runs to ``max_iter``).
    warm_start : start each solve from the previous answer while the problem sizes hold
        (a failed warm solve is retried cold); False starts every solve cold, from the
        equality-constrained initial guess (``"proxqp"``).
    name : the name reports and errors use.
    """

    #: Refuses priority levels: on Talos's three- and four-level test problems its answers to
    #: a level's QP failed its own optimality check (a multiplier on a row not at its bound) or
    #: ran out of iterations at every proximal weight from 10⁻⁶ to 10⁻⁴, and did not converge
    #: in ten proximal steps at 10⁻³.
    proximal_weight = None

    def __init__(self, eps_abs: float = 1e-11, max_iter: int = 1000, *, eps_infeasible: float = 1e-7,
                 warm_start: bool = True, name: str = "proxsuite"):
        import proxsuite  # noqa: F401  (fail here, at construction, if it is missing)

        self.eps_abs = eps_abs
        self.max_iter = max_iter
        self.eps_infeasible = eps_infeasible
        self.warm_start = warm_start
        self.name = name
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
        settings.eps_primal_inf = settings.eps_dual_inf = self.eps_infeasible
        settings.initial_guess = (proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT if warm
                                  else proxqp.InitialGuess.EQUALITY_CONSTRAINED_INITIAL_GUESS)
        return solver

    def solve(self, qp: QP) -> QPResult:
        presolved = presolve(qp)
        if presolved.infeasible or presolved.qp.n == 0:
            return trivial_result(presolved)
        result = self._solve_presolved(presolved.qp)
        if result.success:
            result.x = presolved.expand(result.x)
        else:
            result.x = np.full(qp.n, np.nan)
        return result

    def _solve_presolved(self, qp: QP) -> QPResult:
        if qp.C.shape[0] == 0 and not np.any(np.isfinite(np.r_[qp.lb, qp.ub])):
            return solve_kkt(qp)
        dims = (qp.n, qp.A.shape[0], qp.C.shape[0], True)
        args = [qp.H, qp.g, qp.A, qp.b, qp.C, *(_finite(bound) for bound in (qp.l, qp.u, qp.lb, qp.ub))]
        if not self.warm_start:
            return self._solve(qp, args, dims, "cold")
        result = self._solve(qp, args, dims, "warm" if dims == self._dims else "new")
        if not result.success:
            # A warm start far from the new solution (or a first iterate far from it) can
            # make ProxQP report infeasibility wrongly, or stop with a multiplier on a row
            # that is not at its bound (a suboptimal answer); a cold start from the
            # equality-constrained guess settles it.
            result = self._solve(qp, args, dims, "cold")
        if not result.success:
            self.reset()
        return result

    def _solve(self, qp: QP, args, dims, start: str) -> QPResult:
        """``start``: "warm" (update the kept solver), "new" (a new solver that will warm
        start later solves) or "cold" (a new solver from the equality-constrained guess, whose
        later solves start warm if this backend warm-starts). Success needs ProxQP's "solved"
        and its multipliers on rows at their bounds (:func:`complementary`)."""
        from proxsuite import proxqp

        if start == "warm":
            self._solver.update(*args)
        else:
            self._solver = self._new_solver(dims, warm=start == "new")
            self._dims = dims
            self._solver.init(*args)
        self._solver.solve()
        if start == "cold" and self.warm_start:
            self._solver.settings.initial_guess = proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
        results = self._solver.results
        status = str(results.info.status).rsplit(".", 1)[-1]
        success = status == "PROXQP_SOLVED"
        if success and not complementary(np.concatenate([qp.C @ results.x, results.x]), np.concatenate([qp.l, qp.lb]),
                                         np.concatenate([qp.u, qp.ub]), results.z):
            success, status = False, "PROXQP_SOLVED with a multiplier on a row not at its bound"
        x = results.x.copy() if success else np.full(dims[0], np.nan)
        return QPResult(x, status, success, int(results.info.iter))


def _finite(array: np.ndarray) -> np.ndarray:
    return np.clip(array, -BIG, BIG)
