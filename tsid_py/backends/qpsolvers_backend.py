"""Any solver qpsolvers knows, by name, as a backend."""

from __future__ import annotations

import numpy as np

from ..qp import BIG, QP
from .base import Backend, QPResult


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
