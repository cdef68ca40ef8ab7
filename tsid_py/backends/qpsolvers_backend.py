"""Any solver qpsolvers knows, by name, as a backend."""

from __future__ import annotations

import warnings

import numpy as np

from ..qp import QP
from .base import Backend, QPResult
from .presolve import presolve, trivial_result


#: Options that make each solver's answer agree with an exact active-set solve (relative
#: 1e-4 on the torques of the standing Talos problem, tests/test_backends.py) and meet the
#: hard constraints. The tolerances apply to the presolved problem
#: (:mod:`tsid_py.backends.presolve`: unit Hessian diagonal, rows of largest coefficient 1),
#: where the scaling multiplies the rows' coefficients on contact forces by up to ~1e4: a
#: residual of 1e-10 there is ~1e-6 N. (OSQP and ProxQP are called directly:
#: :mod:`tsid_py.backends.osqp`, :mod:`tsid_py.backends.proxsuite`.)
ACCURATE_OPTIONS = {
    "daqp": {"primal_tol": 1e-10},
    "piqp": {"eps_abs": 1e-11, "eps_rel": 0.0},
    "clarabel": {"tol_feas": 1e-11, "tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11},
}


#: Solvers that refuse priority levels (:mod:`tsid_py.hierarchy`): quadprog's dual steps
#: fail on the degenerate vertices where a level's fixed rows meet the rows held at their
#: bounds (Talos's four-level test problem, level 3).
REFUSE_LEVELS = {"quadprog"}


class QpsolversBackend(Backend):
    """Any solver known to qpsolvers (``"daqp"``, ``"quadprog"``, ``"piqp"``, …; ``"osqp"`` and
    ``"proxqp"`` by name get direct calls instead, see :func:`~tsid_py.backends.make_backend`).

    The solver sees the presolved problem (:func:`~tsid_py.backends.presolve.presolve`:
    variables fixed by equal bounds substituted, the rest equilibrated). Two-sided rows
    ``l ≤ C x ≤ u`` become ``G x ≤ h`` rows for their finite sides, rows whose two bounds
    are equal become equalities. Iterative solvers run at the tolerances of
    :data:`ACCURATE_OPTIONS` unless ``options`` override them. The status is the solver's
    own where qpsolvers passes it on, else "solved" or "failed".
    """

    def __init__(self, name: str, **options):
        import qpsolvers

        if name not in qpsolvers.available_solvers:
            raise ValueError(f"qp_solver {name!r} is not available; installed: "
                             f"{sorted(qpsolvers.available_solvers)}")
        self.name = name
        self.options = {**ACCURATE_OPTIONS.get(name, {}), **options}
        if name in REFUSE_LEVELS:
            self.proximal_weight = None
        # Solvers that only take sparse matrices get them in CSC form (no conversion warning).
        self._sparse = name in qpsolvers.sparse_solvers and name not in qpsolvers.dense_solvers

    def solve(self, qp: QP) -> QPResult:
        presolved = presolve(qp)
        if presolved.infeasible or presolved.qp.n == 0:
            return trivial_result(presolved)
        y, status = self._solve(presolved.qp)
        if y is None:
            return QPResult(np.full(qp.n, np.nan), status, False)
        return QPResult(presolved.expand(y), status, True)

    def _solve(self, qp: QP) -> tuple[np.ndarray | None, str]:
        """The solver's answer to ``qp`` (None if it found none) and its status."""
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
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                solution = qpsolvers.solve_problem(problem, solver=self.name, **self.options)
            except Exception as exc:  # a backend's own error becomes a failed solve
                return None, f"error: {exc}"
        found = bool(solution.found) and solution.x is not None and np.all(np.isfinite(solution.x))
        return (solution.x if found else None), _status(solution, found, caught)


def _status(solution, found: bool, caught) -> str:
    """The solver's own status where qpsolvers passes it on (its ``info``, or the warning
    it raised), else "solved" or "failed"."""
    info = solution.extras.get("info") if isinstance(solution.extras, dict) else None
    status = getattr(info, "status", None)
    if status is not None:
        return str(status).rsplit(".", 1)[-1]
    if caught:
        return str(caught[-1].message)
    return "solved" if found else "failed"
