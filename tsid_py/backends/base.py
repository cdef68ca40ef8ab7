"""What every QP backend implements, and what it returns.

A backend solves a :class:`~tsid_py.qp.QP`

    minimise    ½ xᵀ H x + gᵀ x
    subject to  A x = b,   l ≤ C x ≤ u,   lb ≤ x ≤ ub

and returns a :class:`QPResult`; it never raises for a failed solve (``success=False`` with
its own status). To plug in another solver, subclass :class:`Backend`, implement
:meth:`Backend.solve`, and pass an instance as ``DynamicsSolver(qp_solver=...)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from ..qp import QP


@dataclass
class QPResult:
    """A backend's answer: ``x`` (n,), its ``status`` string, whether it is a ``success``,
    the ``iterations`` it took, and the indices of the active inequality rows (``active``,
    into :meth:`QP.rows_with_box`'s rows) when the backend tells."""

    x: np.ndarray
    status: str
    success: bool
    iterations: int = 0
    active: np.ndarray | None = None


class Backend(ABC):
    """Solves a :class:`~tsid_py.qp.QP`; one required method, :meth:`solve`.

    A solver keeps its backend for its lifetime and calls :meth:`solve` once a step with a
    QP whose buffers it reuses (copy what you keep), and :meth:`reset` after a failure or
    when the problem's structure changes, so that a warm start is dropped.
    """

    #: The name reports and errors use.
    name: str = "backend"
    #: True for a backend that checks its answer against every constraint itself (the
    #: solver then trusts ``success`` and only checks that ``x``, a float64 vector, is
    #: finite); otherwise the solver checks it
    #: (:func:`constraint_violation`) before calling it a success.
    checks_constraints: bool = False
    #: With priority levels (:mod:`tsid_py.hierarchy`) each level's QP is made strictly convex
    #: by a proximal term ``ε ‖x − x_c‖²_M`` (``M``: 1 per (rad/s²)² on q̈, 10⁻³ per N² on the
    #: contact variables); this is ``ε``. A smaller one reaches each level's optimum in fewer
    #: solves but makes the level's Hessian worse conditioned (about 1/ε): general-purpose
    #: solvers get 10⁻⁵ (DAQP through qpsolvers: one to three solves a level on Talos's test
    #: problems). None: the backend refuses levels.
    proximal_weight: float | None = 1e-5

    @abstractmethod
    def solve(self, qp: QP) -> QPResult:
        """Solve ``qp``; a failure is ``QPResult(success=False)``, never an exception."""

    def reset(self) -> None:
        """Forget any warm start (e.g. after a failure)."""

    def __getstate__(self) -> dict:
        """Copies and pickles start cold: a solver library's warm-start objects are dropped."""
        state = self.__dict__.copy()
        copy = type(self).__new__(type(self))
        copy.__dict__.update(state)
        copy.reset()
        return copy.__dict__


#: Tolerance of :func:`constraint_violation`: a row may miss its bound by this much times
#: ``1 + |bound|`` (the rows' own units: N, N·m, m/s², rad/s²).
FEASIBILITY_TOLERANCE = 1e-6


def constraint_violation(qp: QP, x: np.ndarray) -> float:
    """The largest violation of ``qp``'s constraints at ``x``, each row's scaled by
    ``1 + |bound|`` (0 when every row holds); inf when ``x`` is not finite."""
    if not np.all(np.isfinite(x)):
        return np.inf
    worst = 0.0
    if qp.A.shape[0]:
        worst = float(np.max(np.abs(qp.A @ x - qp.b) / (1.0 + np.abs(qp.b))))
    C, lower, upper = qp.rows_with_box()
    if C.shape[0]:
        values = C @ x
        with np.errstate(invalid="ignore"):
            below = np.where(np.isfinite(lower), (lower - values) / (1.0 + np.abs(lower)), 0.0)
            above = np.where(np.isfinite(upper), (values - upper) / (1.0 + np.abs(upper)), 0.0)
        worst = max(worst, float(below.max(initial=0.0)), float(above.max(initial=0.0)))
    return worst


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
