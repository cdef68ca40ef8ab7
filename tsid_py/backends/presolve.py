"""What the general-purpose backends (proxsuite and qpsolvers) solve instead of the QP as
assembled: the variables fixed by their bounds substituted out, the rest equilibrated.

**Why.** A control step's QP mixes units. Accelerations (rad/s²) carry cost weights near 1,
contact forces (N) only a regularisation of about 1e-8 per N², so the Hessian's diagonal
spans 2.5e-8 … 40 and its condition number is about 5e9 (Talos on two feet). On such a
problem quadprog's dual steps declare feasible constraints "inconsistent", ProxQP reports
feasible steps primal infeasible, and OSQP stalls at its iteration limit or stops
"inaccurate" — the soak's false failures. With the variables scaled so that the Hessian's
diagonal is 1 the condition number is about 1e4 and every one of them solves those steps.

At the last step of a contact's ramped removal its normal force is bounded to [0, 0]; the
friction pyramid and centre-of-pressure rows (pairs ``±f_t ≤ μ f_n``, ``±m ≤ c f_n``) then
pin the rest of its wrench to 0 through inequality pairs with no interior, a degenerate
vertex with more active rows than variables. Substituting the fixed variables, turning the
rows left with one variable into bounds, and repeating, removes it.

:func:`presolve` does both; :class:`Presolved` maps the solution back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..qp import QP
from .base import FEASIBILITY_TOLERANCE, QPResult

#: The variables' scales ``1/√H_jj`` are kept within [1/LARGEST_SCALE, LARGEST_SCALE].
LARGEST_SCALE = 1e6

#: A row left without free variables must hold to this (relative to 1 + |bound|), and
#: bounds crossing by less than this pin their variable at the midpoint: the tolerance of the
#: solver's own check (:func:`~tsid_py.backends.base.constraint_violation`).
TOLERANCE = FEASIBILITY_TOLERANCE


@dataclass
class Presolved:
    """``qp`` in the scaled free variables ``y``: ``x[free] = scale * y``,
    ``x[fixed] = values``; ``infeasible`` when presolving found the bounds contradictory
    (``qp`` is then None)."""

    qp: QP | None
    free: np.ndarray
    scale: np.ndarray
    fixed: np.ndarray
    values: np.ndarray
    infeasible: bool = False

    def expand(self, y: np.ndarray) -> np.ndarray:
        """The full ``x`` for a solution ``y`` of :attr:`qp`."""
        x = np.empty(self.free.size + self.fixed.size)
        x[self.free] = self.scale * y
        x[self.fixed] = self.values
        return x

    def reduce(self, x: np.ndarray) -> np.ndarray:
        """``y`` for a full ``x`` (a warm start)."""
        return x[self.free] / self.scale


def trivial_result(presolved: Presolved) -> QPResult:
    """The answer when presolving settles the QP: its bounds contradict each other, or
    every variable is fixed."""
    if presolved.infeasible:
        return QPResult(np.full(presolved.free.size + presolved.fixed.size, np.nan),
                        "presolve: contradictory bounds", False)
    return QPResult(presolved.expand(np.zeros(0)), "presolve: every variable fixed", True)


def presolve(qp: QP) -> Presolved:
    """Substitute the variables whose bounds are equal (and those that the rows then leave
    with equal bounds), then equilibrate: variables scaled so that the Hessian's diagonal is
    1, each row (equality or inequality) divided by its largest coefficient."""
    n = qp.n
    lb = np.full(n, -np.inf) if qp.lb is None else qp.lb.astype(float)
    ub = np.full(n, np.inf) if qp.lb is None else qp.ub.astype(float)
    rows = np.ones(qp.C.shape[0], dtype=bool)
    equalities = np.ones(qp.A.shape[0], dtype=bool)
    fixed = np.zeros(n, dtype=bool)
    values = np.zeros(n)
    while True:
        newly = np.isfinite(lb) & (lb == ub) & ~fixed
        if not newly.any():
            break
        fixed |= newly
        values[newly] = lb[newly]
        if not (_bound_singletons(qp.C, qp.l, qp.u, rows, fixed, values, lb, ub)
                and _drop_empty(qp.A, qp.b, qp.b, equalities, fixed, values)):
            return Presolved(None, np.flatnonzero(~fixed), np.ones(int(np.sum(~fixed))), np.flatnonzero(fixed),
                             values[fixed], infeasible=True)
    free = np.flatnonzero(~fixed)
    index = np.flatnonzero(fixed)
    if index.size:
        reduced = QP(qp.H[np.ix_(free, free)], qp.g[free] + qp.H[np.ix_(free, index)] @ values[index],
                     qp.A[np.ix_(equalities, free)], qp.b[equalities] - qp.A[np.ix_(equalities, index)] @ values[index],
                     qp.C[np.ix_(rows, free)], *(bound[rows] - qp.C[np.ix_(rows, index)] @ values[index]
                                                 for bound in (qp.l, qp.u)), lb[free], ub[free])
    else:
        reduced = QP(qp.H, qp.g, qp.A, qp.b, qp.C, qp.l, qp.u, lb, ub)
    scaled, scale = equilibrate(reduced)
    return Presolved(scaled, free, scale, index, values[index])


def equilibrate(qp: QP) -> tuple[QP, np.ndarray]:
    """``qp`` in ``y = x / scale`` with ``scale_j = 1/√H_jj`` (1 where ``H_jj = 0``), each
    row divided by its largest coefficient; returns the scaled QP and ``scale``."""
    diagonal = np.diag(qp.H)
    scale = np.ones(qp.n)
    positive = diagonal > 0
    scale[positive] = np.clip(1.0 / np.sqrt(diagonal[positive]), 1.0 / LARGEST_SCALE, LARGEST_SCALE)
    H = qp.H * np.outer(scale, scale)
    A, b = _unit_rows(qp.A * scale, qp.b)
    C, l, u = _unit_rows(qp.C * scale, qp.l, qp.u)
    box = (None, None) if qp.lb is None else (qp.lb / scale, qp.ub / scale)
    return QP(0.5 * (H + H.T), qp.g * scale, A, b, C, l, u, *box), scale


def _unit_rows(matrix: np.ndarray, *bounds: np.ndarray):
    """Rows divided by their largest absolute coefficient (rows of zeros as they are)."""
    largest = np.abs(matrix).max(axis=1, initial=0.0)
    factor = 1.0 / np.where(largest > 0, largest, 1.0)
    return (matrix * factor[:, None], *(bound * factor for bound in bounds))


def _bound_singletons(C, l, u, rows, fixed, values, lb, ub) -> bool:
    """Rows of ``C`` (still in ``rows``) left with one free variable become bounds on it,
    rows left with none are checked; both leave ``rows``. False if a bound is contradicted."""
    if not _drop_empty(C, l, u, rows, fixed, values):
        return False
    free = ~fixed
    counts = np.count_nonzero(C[:, free], axis=1)
    shift = C[:, fixed] @ values[fixed]
    for i in np.flatnonzero(rows & (counts == 1)):
        j = np.flatnonzero(free & (C[i] != 0))[0]
        low, high = (l[i] - shift[i]) / C[i, j], (u[i] - shift[i]) / C[i, j]
        if C[i, j] < 0:
            low, high = high, low
        lb[j], ub[j] = max(lb[j], low), min(ub[j], high)
        rows[i] = False
    crossed = lb > ub
    if np.any(crossed & (lb - ub > TOLERANCE * (1.0 + np.abs(ub)))):
        return False
    lb[crossed] = ub[crossed] = 0.5 * (lb[crossed] + ub[crossed])
    return True


def _drop_empty(M, lower, upper, rows, fixed, values) -> bool:
    """Rows of ``M`` (still in ``rows``) without a free variable leave ``rows`` once checked
    to hold; False if one does not."""
    empty = rows & ~np.any(M[:, ~fixed] != 0, axis=1)
    if not empty.any():
        return True
    value = M[empty][:, fixed] @ values[fixed]
    low, high = lower[empty], upper[empty]
    with np.errstate(invalid="ignore"):
        holds = ((value >= low - TOLERANCE * (1.0 + np.abs(low))) | ~np.isfinite(low)) & \
                ((value <= high + TOLERANCE * (1.0 + np.abs(high))) | ~np.isfinite(high))
    rows[empty] = False
    return bool(np.all(holds))
