"""OSQP as a backend, called directly: two-sided rows as they are, answers polished exactly.

Through qpsolvers, OSQP gets every two-sided row ``l ≤ C x ≤ u`` as two one-sided rows,
which slows its ADMM down to "solved inaccurate" or the iteration limit on some control
steps; OSQP takes the two-sided form natively. It solves the presolved problem
(:mod:`tsid_py.backends.presolve`), and its answer is finished on the active set it found
by :func:`~tsid_py.backends.polish.polish`, which is certified (every row holds, the
multipliers have the right signs). OSQP's own polishing is on, and helps it find that set,
but its answer is not exact enough to be kept as it is: it gives up at the degenerate apex
of an unloaded contact's friction cone (more active rows than they constrain), and where it
succeeds its refinement leaves residuals that miss the hard constraints by more than their
tolerance. An answer that cannot be certified is OSQP's own when it reports "solved" (the
solver checks it against the hard constraints like any other), else a failure.
"""

from __future__ import annotations

import numpy as np

from ..qp import QP
from .base import Backend, QPResult
from .polish import polish
from .presolve import presolve, trivial_result

#: OSQP's settings (on the presolved problem). ``delta`` and ``polish_refine_iter`` let
#: OSQP's own polishing succeed more often on nearly dependent active rows.
SETTINGS = {"eps_abs": 1e-8, "eps_rel": 0.0, "max_iter": 100000, "polishing": True, "delta": 1e-9,
            "polish_refine_iter": 10, "verbose": False}


class OsqpBackend(Backend):
    """OSQP on the presolved problem, its answer polished exactly on the active set it finds.

    ``settings`` override :data:`SETTINGS` (any OSQP setting). The status is OSQP's own
    (``"solved"``, ``"maximum iterations reached"``, …), with ``", polished"`` when the
    answer is the certified optimum on its active set.
    """

    name = "osqp"
    #: Refuses priority levels: from the second level on, its answers (finished on their
    #: active set) missed the rows that fix the levels above by about 10⁻⁶, beyond the
    #: solver's check, on Talos's four-level test problem.
    proximal_weight = None

    def __init__(self, **settings):
        import osqp  # noqa: F401  (fail here, at construction, if it is missing)

        self.settings = {**SETTINGS, **settings}

    def solve(self, qp: QP) -> QPResult:
        import osqp
        from scipy import sparse

        presolved = presolve(qp)
        if presolved.infeasible or presolved.qp.n == 0:
            return trivial_result(presolved)
        reduced = presolved.qp
        C, lower, upper = reduced.rows_with_box()
        m = reduced.A.shape[0]
        try:
            solver = osqp.OSQP()
            solver.setup(P=sparse.triu(sparse.csc_matrix(reduced.H), format="csc"), q=reduced.g,
                         A=sparse.csc_matrix(np.vstack([reduced.A, C])), l=np.concatenate([reduced.b, lower]),
                         u=np.concatenate([reduced.b, upper]), **self.settings)
            result = solver.solve(raise_error=False)
        except Exception as exc:  # OSQP's own error (e.g. a factorisation failing on NaN) is a failed solve
            return QPResult(np.full(qp.n, np.nan), f"error: {exc!r}", False)
        status, y = str(result.info.status), result.x
        exact = False
        if y is not None and np.all(np.isfinite(y)) and np.all(np.isfinite(result.y)):
            # OSQP's rule for the active set: a row is active at the bound its multiplier
            # pushes against, when its slack is smaller than the multiplier.
            values, multipliers = C @ y, result.y[m:]
            at_lower = values - lower < -multipliers
            at_upper = (upper - values < multipliers) & ~at_lower
            polished = polish(reduced, at_lower, at_upper)
            if polished is not None:
                y, exact = polished, True
        if not (exact or status == "solved") or y is None:
            return QPResult(np.full(qp.n, np.nan), status, False, int(result.info.iter))
        return QPResult(presolved.expand(y), status + (", polished" if exact else ""), True, int(result.info.iter))
