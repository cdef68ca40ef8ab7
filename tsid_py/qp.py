"""The QP as a value object (the backends that solve it are in :mod:`tsid_py.backends`).

    minimise    ½ xᵀ H x + gᵀ x
    subject to  A x = b,   l ≤ C x ≤ u,   lb ≤ x ≤ ub

Infinite entries of ``l, u, lb, ub`` mean "unbounded". ``lb, ub`` may be None (no box).

A QP may carry priority levels between its constraints and its cost (:class:`Level`, in
``QP.levels``; empty for the usual hard + soft problem): it is then a lexicographic problem,
solved one level at a time by :mod:`tsid_py.hierarchy`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


#: Stand-in for an infinite bound, for backends that want finite numbers.
BIG = 1e20


@dataclass
class LeastSquaresCost:
    """A cost kept in factored form, ``‖R x − s‖² + Σᵢ dᵢ xᵢ² − 2 eᵀx`` (+ a constant):

        H = 2 (RᵀR + diag(d)),   g = −2 (Rᵀs + e).

    ``R`` stacks the soft tasks' rows scaled by √weight; ``d`` and ``e`` hold the costs that
    act on single variables (posture, regularisation). Backends that eliminate variables
    reduce ``R`` and ``d`` instead of the n×n Hessian, which is cheaper.
    """

    R: np.ndarray
    s: np.ndarray
    d: np.ndarray
    e: np.ndarray

    def hessian(self) -> np.ndarray:
        H = self.R.T @ self.R
        H.flat[:: H.shape[0] + 1] += self.d
        return 2.0 * H

    def gradient(self) -> np.ndarray:
        return -2.0 * (self.R.T @ self.s + self.e)

    def copy(self) -> "LeastSquaresCost":
        return LeastSquaresCost(self.R.copy(), self.s.copy(), self.d.copy(), self.e.copy())


@dataclass
class Level:
    """One priority level of a lexicographic QP (:mod:`tsid_py.hierarchy`): over ``x`` and a
    slack ``w`` on its inequality rows,

        minimise ‖R x − s‖² + Σᵢ ωᵢ wᵢ²   subject to   l ≤ C x − w ≤ u

    on the set where every level before it is optimal. ``R x = s`` are its equality rows, met
    in the least-squares sense and already scaled by √weight (tasks, contacts' no-slip rows:
    the level's weighted cost); ``C, l, u`` its inequality rows (constraints at this level)
    and ``slack_weight`` their ωᵢ > 0. A new kind of item reaches a level through one of the
    two: rows of a task or of a :class:`~tsid_py.constraints.Constraint` with a priority. ``priority`` is the level
    (an int ≥ 1; 0 for a step's softened contacts; ``"soft"`` for the last level's
    inequalities, whose cost is the QP's own);
    ``cost_labels`` and ``inequality_labels`` name each row's item for reports.
    """

    priority: int | str
    R: np.ndarray
    s: np.ndarray
    C: np.ndarray
    l: np.ndarray
    u: np.ndarray
    slack_weight: np.ndarray
    cost_labels: list[str]
    inequality_labels: list[str]

    @property
    def name(self) -> str:
        """``"level 2"``, ``"soft level"``, or ``"level 0 (softened contacts)"`` (the level a
        step's overrides make of the hard contacts they soften, :mod:`tsid_py.levels`)."""
        if self.priority == "soft":
            return "soft level"
        return "level 0 (softened contacts)" if self.priority == 0 else f"level {self.priority}"

    def copy(self) -> "Level":
        """A deep copy (the layout reuses its buffers from one step to the next)."""
        return Level(self.priority, *(array.copy() for array in (self.R, self.s, self.C, self.l, self.u,
                                                                self.slack_weight)),
                     list(self.cost_labels), list(self.inequality_labels))


class QP:
    """``H, g`` are given directly, or as a :class:`LeastSquaresCost` (``cost=``) from
    which they are formed on first use.

    ``stacked = (C_all, l_all, u_all, columns)`` lets a builder that reuses its buffers hand
    over the inequality rows already stacked with the box: ``C, l, u`` are the leading rows
    of ``C_all, l_all, u_all`` and the trailing rows of ``C_all`` are unit rows on
    ``columns`` (whose bounds may be infinite); :meth:`rows_with_box` then only copies the
    box's current bounds.
    """

    def __init__(self, H, g, A, b, C, l, u, lb=None, ub=None, *, cost: LeastSquaresCost | None = None,
                 stacked: tuple | None = None, levels: tuple[Level, ...] = ()):
        if (H is None or g is None) and cost is None:
            raise ValueError("QP needs H and g, or a cost")
        self._H, self._g, self.cost, self.stacked = H, g, cost, stacked
        #: The priority levels between the constraints and the cost, in the order they are
        #: solved (empty: the usual problem, the constraints and then the cost).
        self.levels = tuple(levels)
        self.A, self.b, self.C, self.l, self.u, self.lb, self.ub = A, b, C, l, u, lb, ub
        #: The box's rows of the stacked bounds (views), refreshed by :meth:`rows_with_box`.
        self._box_bounds = None if stacked is None else (stacked[1][C.shape[0]:], stacked[2][C.shape[0]:])

    def cost_changed(self) -> None:
        """The buffers behind ``cost`` were rewritten (a builder reusing this QP for the next
        step): drop the H and g formed from them."""
        self._H = self._g = None

    @property
    def H(self) -> np.ndarray:
        if self._H is None:
            self._H = self.cost.hessian()
        return self._H

    @property
    def g(self) -> np.ndarray:
        if self._g is None:
            self._g = self.cost.gradient()
        return self._g

    @property
    def n(self) -> int:
        return self.A.shape[1]

    def bounded_variables(self) -> np.ndarray:
        """Indices of the variables with a box row: those with a finite bound (or those the
        builder stacked)."""
        if self.stacked is not None:
            return self.stacked[3]
        if self.lb is None:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(np.isfinite(self.lb) | np.isfinite(self.ub))

    def rows_with_box(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``l ≤ C x ≤ u`` with the box bounds appended as unit rows (in the order of
        :meth:`bounded_variables`)."""
        if self.stacked is not None:
            C_all, l_all, u_all, columns = self.stacked
            lower, upper = self._box_bounds
            self.lb.take(columns, None, lower, "clip")      # valid columns: "clip" checks nothing
            self.ub.take(columns, None, upper, "clip")      # and needs no buffer
            return C_all, l_all, u_all
        bounded = self.bounded_variables()
        unit = np.zeros((bounded.size, self.n))
        unit[np.arange(bounded.size), bounded] = 1.0
        box_lower = self.lb[bounded] if bounded.size else np.zeros(0)
        box_upper = self.ub[bounded] if bounded.size else np.zeros(0)
        return (np.vstack([self.C, unit]), np.concatenate([self.l, box_lower]),
                np.concatenate([self.u, box_upper]))

    def copy(self) -> "QP":
        """A deep copy (the solver reuses its buffers from one step to the next)."""
        return QP(*(None if value is None else value.copy() for value in
                    (self._H, self._g, self.A, self.b, self.C, self.l, self.u, self.lb, self.ub)),
                  cost=None if self.cost is None else self.cost.copy(),
                  levels=tuple(level.copy() for level in self.levels))

    def fix_variables(self, index: np.ndarray, values: np.ndarray) -> "QP":
        """The QP in the remaining variables once ``x[index] = values`` is substituted.

        With ``x = (x_F fixed, x_f free)``: ``H_ff``, ``g_f + H_fF v``, ``A_f x_f = b − A_F v``,
        ``l − C_F v ≤ C_f x_f ≤ u − C_F v``, and the box restricted to the free entries.
        """
        free = np.setdiff1d(np.arange(self.n), index)
        H_fF = self.H[np.ix_(free, index)]
        box = (None, None) if self.lb is None else (self.lb[free], self.ub[free])
        shift_A = self.A[:, index] @ values
        shift_C = self.C[:, index] @ values
        return QP(self.H[np.ix_(free, free)], self.g[free] + H_fF @ values, self.A[:, free], self.b - shift_A,
                  self.C[:, free], self.l - shift_C, self.u - shift_C, *box)

    def violation(self, x: np.ndarray) -> float:
        """Largest violation of the constraints at ``x`` (0 when feasible)."""
        worst = 0.0
        if self.A.shape[0]:
            worst = max(worst, np.abs(self.A @ x - self.b).max())
        if self.C.shape[0]:
            cx = self.C @ x
            worst = max(worst, np.max(self.l - cx, initial=0.0), np.max(cx - self.u, initial=0.0))
        if self.lb is not None:
            worst = max(worst, np.max(self.lb - x, initial=0.0), np.max(x - self.ub, initial=0.0))
        return float(worst)
