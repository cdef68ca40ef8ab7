"""Any solver qpsolvers knows, by name, as a backend."""

from __future__ import annotations

import numpy as np

from ..qp import QP
from .base import Backend, QPResult


#: Options that make each iterative solver's answer agree with an exact active-set solve
#: (relative 1e-4 on the torques of the standing Talos problem, tests/test_backends.py).
ACCURATE_OPTIONS = {
    "osqp": {"eps_abs": 1e-8, "eps_rel": 0.0, "max_iter": 100000, "polishing": True, "verbose": False,
             "raise_error": False},
    "proxqp": {"eps_abs": 1e-9, "eps_rel": 0.0, "max_iter": 10000},
    "piqp": {"eps_abs": 1e-9, "eps_rel": 0.0},
    "clarabel": {"tol_feas": 1e-10, "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10},
}


class QpsolversBackend(Backend):
    """Any solver known to qpsolvers (``"osqp"``, ``"daqp"``, ``"quadprog"``, ``"proxqp"``, …).

    Two-sided rows ``l ≤ C x ≤ u`` become ``G x ≤ h`` rows for their finite sides, and rows
    (or box entries) whose two bounds are equal become equalities (an inequality pair with
    no interior trips some solvers, e.g. quadprog at the end of a contact's ramp). Iterative
    solvers run at the tolerances of :data:`ACCURATE_OPTIONS` unless ``options`` override them.
    """

    def __init__(self, name: str, **options):
        import qpsolvers

        if name not in qpsolvers.available_solvers:
            raise ValueError(f"qp_solver {name!r} is not available; installed: "
                             f"{sorted(qpsolvers.available_solvers)}")
        self.name = name
        self.options = {**ACCURATE_OPTIONS.get(name, {}), **options}
        # Solvers that only take sparse matrices get them in CSC form (no conversion warning).
        self._sparse = name in qpsolvers.sparse_solvers and name not in qpsolvers.dense_solvers

    def solve(self, qp: QP) -> QPResult:
        import qpsolvers

        C, lower, upper = qp.rows_with_box()
        pinned = np.isfinite(lower) & (lower == upper)
        upper_rows = np.isfinite(upper) & ~pinned
        lower_rows = np.isfinite(lower) & ~pinned
        G = np.vstack([C[upper_rows], -C[lower_rows]])
        h = np.concatenate([upper[upper_rows], -lower[lower_rows]])
        A = np.vstack([qp.A, C[pinned]])
        b = np.concatenate([qp.b, upper[pinned]])
        H = qp.H
        if self._sparse:
            from scipy import sparse

            H, G, A = sparse.csc_matrix(H), sparse.csc_matrix(G), sparse.csc_matrix(A)
        problem = qpsolvers.Problem(H, qp.g, G if len(h) else None, h if len(h) else None,
                                    A if len(b) else None, b if len(b) else None)
        try:
            solution = qpsolvers.solve_problem(problem, solver=self.name, **self.options)
        except Exception as exc:  # a backend's own error becomes a failed solve
            return QPResult(np.full(qp.n, np.nan), f"error: {exc}", False)
        found = bool(solution.found) and solution.x is not None and np.all(np.isfinite(solution.x))
        status = "solved" if found else "failed"
        return QPResult(solution.x if found else np.full(qp.n, np.nan), status, found)
