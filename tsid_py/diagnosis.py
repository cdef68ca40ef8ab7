"""Why a QP failed: find the hard constraints that conflict.

When the backend reports failure, the same constraints are re-solved in an elastic form:
every equality row ``a x = b`` becomes ``a x − b = s⁺ − s⁻`` and every inequality row
``l ≤ c x ≤ u`` becomes ``l − s ≤ c x ≤ u + s`` (``s ≥ 0``), minimising ``Σ s`` (an L1
penalty, which leaves most slacks at exactly zero). The groups whose slacks are positive
are the ones that had to give way: they are named in the :class:`InfeasibleError`. If the
elastic problem needs no slack, the original problem was feasible and the failure is the
backend's: a plain :class:`SolverError` is raised.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .errors import InfeasibleError, SolverError
from .backends.proxsuite import ProxsuiteBackend
from .qp import QP

#: Slack (in the rows' own units) above which a group is reported as conflicting.
SLACK_TOLERANCE = 1e-5


def failure(solver, layout, qp: QP, status: str) -> SolverError:
    """The exception to raise for ``solver``'s failed solve of ``qp`` (built by ``layout``),
    with a copy of the failed problem as its ``qp``."""
    error = diagnose(solver.backend.name, layout.labels, qp, status)
    error.qp = qp.copy()   # the failed problem, for offline inspection
    return error


def diagnose(backend_name: str, labels: dict[str, list[str]], qp: QP, status: str) -> SolverError:
    """Return the exception to raise for a failed solve of ``qp``; ``labels`` as
    :attr:`tsid_py.assembly.Layout.labels`."""
    equality_labels = labels["equalities"] or ["equality"] * qp.A.shape[0]
    C, l, u = qp.rows_with_box()
    labels = list(labels["inequalities"]) + list(labels["box"])
    slacks = _elastic_slacks(qp, C, l, u)
    if slacks is None:
        return SolverError(f"QP backend {backend_name!r} failed ({status}) and the elastic "
                           "re-solve failed too", status)
    eq_slack, in_slack = slacks
    totals: OrderedDict[str, float] = OrderedDict()
    for label, value in zip(equality_labels + labels, np.concatenate([eq_slack, in_slack])):
        if value > SLACK_TOLERANCE:
            totals[label] = totals.get(label, 0.0) + float(value)
    if not totals:
        return SolverError(f"QP backend {backend_name!r} failed ({status}) although the "
                           "constraints are feasible; try another qp_solver", status)
    conflicts = list(totals)
    detail = "; ".join(f"{name} (violated by {value:.3g})" for name, value in totals.items())
    return InfeasibleError(f"the hard constraints conflict: {detail}", conflicts, status)


def _elastic_slacks(qp: QP, C: np.ndarray, l: np.ndarray, u: np.ndarray):
    """Minimal L1 slacks making the constraints feasible; None if that solve fails."""
    n, m_eq, m_in = qp.n, qp.A.shape[0], C.shape[0]
    # Variables [x; s⁺ (m_eq); s⁻ (m_eq); s (m_in)], all slacks ≥ 0.
    size = n + 2 * m_eq + m_in
    H = np.zeros((size, size))
    H[:n, :n] = 1e-6 * (qp.H / max(1.0, np.abs(qp.H).max()) + np.eye(n))   # keeps x bounded
    H[n:, n:] = 1e-6 * np.eye(size - n)
    g = np.zeros(size)
    g[n:] = 1.0
    A = np.zeros((m_eq, size))
    A[:, :n] = qp.A
    A[:, n:n + m_eq] = -np.eye(m_eq)
    A[:, n + m_eq:n + 2 * m_eq] = np.eye(m_eq)
    upper_rows = np.zeros((m_in, size))
    upper_rows[:, :n] = C
    upper_rows[:, n + 2 * m_eq:] = -np.eye(m_in)     # C x − s ≤ u
    lower_rows = np.zeros((m_in, size))
    lower_rows[:, :n] = C
    lower_rows[:, n + 2 * m_eq:] = np.eye(m_in)      # C x + s ≥ l
    G = np.vstack([upper_rows, lower_rows])
    g_low = np.concatenate([np.full(m_in, -np.inf), l])
    g_up = np.concatenate([u, np.full(m_in, np.inf)])
    lb = np.concatenate([np.full(n, -np.inf), np.zeros(size - n)])
    ub = np.full(size, np.inf)
    elastic = QP(H, g, A, qp.b, G, g_low, g_up, lb, ub)
    result = ProxsuiteBackend(eps_abs=1e-7, max_iter=20000).solve(elastic)
    if not result.success:
        return None
    x = result.x
    eq_slack = x[n:n + m_eq] + x[n + m_eq:n + 2 * m_eq]
    in_slack = x[n + 2 * m_eq:]
    return eq_slack, in_slack
