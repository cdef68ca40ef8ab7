"""Regularise the parts of the contact wrenches a balance controller should not use freely.

Two soles in contact leave the QP a family of wrench distributions with the same net effect
on the robot: internal forces (the feet squeezing or spreading, ``±f_y``), opposite
torsional moments ``±m_z``, and so on. The solver's default force regularisation is tiny
(it only makes the QP strictly convex), so from one step to the next the QP can hop between
such distributions. On a compliant floor (MuJoCo's, a real one) a hop is a jolt: the soles
creep and twist. :class:`WrenchRegularization` costs ``Σ_contacts Σ_axes w_a f_a²`` on the
contact variables in their local axes, with per-axis weights: by default the tangential
forces and the torsional moment only — the normal force and the centre-of-pressure moments,
which the balance controller needs to shift weight and move the CoP, stay free.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector
from ..rows import DiagonalCost, Rows
from ..settings import Setting
from ..tasks import DiagonalTask

#: Default weights on ``[f_x, f_y, f_z, m_x, m_y, m_z]`` (local axes): 1/N² and 1/(N·m)². The
#: normal force and CoP moments keep the solver's default force regularisation (1e-8), so
#: that this task can stand in for it (one diagonal cost instead of two).
DEFAULT_WEIGHTS = (1e-5, 1e-5, 1e-8, 1e-8, 1e-8, 1e-3)


def _checked_weights(weights, name: str) -> np.ndarray:
    """``weights`` as (6,), finite and ≥ 0, naming ``name`` when they are not."""
    values = as_vector(weights, name, 6).copy()
    if np.any(values < 0):
        raise ValueError(f"{name} must be ≥ 0 for each of the 6 wrench axes, got {values}")
    values.flags.writeable = False        # an in-place edit would not reach the cost
    return values


class WrenchRegularization(DiagonalTask):
    """``Σ_i Σ_a w_a f_{i,a}²`` over every active contact's variables (local axes).

    ``weights`` (6,) for ``[f_x, f_y, f_z, m_x, m_y, m_z]`` (≥ 0) are the task's per-axis
    :attr:`weight` (a step may override them, :meth:`tsid_py.overrides.StepOverrides.weigh`);
    a point contact uses the first three.
    """

    acts_on = "x"
    #: No target: the weights are settings (a flight recorder keeps no per-step state).
    targets_complete = True

    def __init__(self, weights=DEFAULT_WEIGHTS, *, name: str = "wrench regularisation"):
        super().__init__(6, weight=_checked_weights(weights, "weights"), priority="soft", name=name)
        self._columns_for = self._weights_for = None

    axis_weights = Setting(_checked_weights, stored="_weight", after="_weight_changed")
    """(6,) weights on ``[f_x, f_y, f_z, m_x, m_y, m_z]`` (read-only; assign a new array to
    change them: the next solve uses it). The task's :attr:`weight`."""

    def _columns_and_weights(self, context, axis_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        columns, weights = [], []
        for span in context.contact_columns.values():
            size = span.stop - span.start
            columns.append(np.arange(span.start, span.stop))
            weights.append(axis_weights[:size])
        if not columns:
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        return np.concatenate(columns), np.concatenate(weights)

    def diagonal(self, context, targets, weight=None) -> DiagonalCost:
        """``(columns, weights)`` of the cost on the contact variables (targets 0); rebuilt
        when the contacts or the weights change (``weight``: a step's override)."""
        axis_weights = self._weight if weight is None else weight
        columns = context.contact_columns           # one dict per layout: rebuilt with the contacts
        if self._columns_for is not columns or self._weights_for is not axis_weights:
            self._columns_for, self._weights_for = columns, axis_weights
            self._diagonal = DiagonalCost(*self._columns_and_weights(context, axis_weights))
        return self._diagonal

    def compute(self, context) -> Rows:
        """The cost's variables as unit rows ``e_c`` (n columns, one per contact variable) with
        targets 0; :meth:`weighted_rows` weighs each by its axis's ``√w_a``."""
        columns, _ = self._columns_and_weights(context, self.weight)
        matrix = np.zeros((columns.size, context.n))
        matrix[np.arange(columns.size), columns] = 1.0
        return Rows(matrix, np.zeros(columns.size))

    def weighted_rows(self, context) -> Rows:
        """The same cost as rows ``√w_a e_c`` (one per contact variable ``c`` of axis ``a``)."""
        columns, weights = self._columns_and_weights(context, self.weight)
        matrix = np.zeros((columns.size, context.n))
        matrix[np.arange(columns.size), columns] = np.sqrt(weights)
        return Rows(matrix, np.zeros(columns.size))

    def _soft_only(self, value, name: str) -> str:
        if value != "soft":
            raise ValueError(f"{name} of a regularisation must be 'soft' (a cost on the contact variables), "
                             f"got {value!r}")
        return value

    priority = Setting("_soft_only", after="structure_changed")
    """Always ``"soft"``: a regularisation is a cost."""
