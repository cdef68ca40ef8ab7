"""Regularisation tasks: small costs on q̈, τ and the contact forces.

They make the QP strictly convex and pick, among equally good solutions, the one with
small accelerations, torques and forces. The solver adds one of each by default
(:data:`tsid_py.solver.DEFAULT_REGULARIZATION`); users may add their own with other weights.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector, positive_scalar
from .base import Task


class AccelerationRegularization(Task):
    """``weight ||q̈ − q̈_ref||²`` (default ``q̈_ref = 0``), (rad/s²)²."""

    def __init__(self, weight: float = 1e-5, target=None, **kwargs):
        kwargs.setdefault("priority", "soft")
        if kwargs["priority"] != "soft":
            raise ValueError("priority must be 'soft' for a regularisation task")
        self._pending_target = target
        super().__init__(None, weight=weight, **kwargs)

    def bind(self, robot) -> None:
        self._configure(robot.nv)
        self.set_target(np.zeros(robot.nv) if self._pending_target is None else self._pending_target)
        self._eye = np.eye(robot.nv)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        if self.dim is None:
            self._pending_target = target
            return
        self.acceleration_ref = as_vector(target, "target", self.dim).copy()

    def compute(self, context):
        return self._eye[self._rows], self.acceleration_ref[self._rows]

    def diagonal(self, context):
        """``(columns, weights, targets)``: the cost ``Σ w_i (x_c_i − t_i)²`` on ``x[columns]``."""
        return self._rows, self.weight[self._rows], self.acceleration_ref[self._rows]


class ForceRegularization(Task):
    """``weight Σ_i ||f_i||²`` over every active contact's variables (N², local axes; the
    norm does not depend on the axes)."""

    def __init__(self, weight: float = 1e-8, **kwargs):
        kwargs.setdefault("priority", "soft")
        if kwargs["priority"] != "soft":
            raise ValueError("priority must be 'soft' for a regularisation task")
        self.scalar_weight = positive_scalar(weight, "weight", allow_zero=True)
        super().__init__(1, weight=weight, **kwargs)

    def compute(self, context):
        count = context.n - context.nv
        matrix = np.zeros((count, context.n))
        matrix[:, context.nv:] = np.eye(count)
        return matrix, np.zeros(count)

    def weighted_rows(self, context):
        matrix, vector = self.compute(context)
        return matrix * np.sqrt(self.scalar_weight), vector

    def diagonal(self, context):
        count = context.n - context.nv
        return np.arange(context.nv, context.n), np.full(count, self.scalar_weight), np.zeros(count)


class TorqueRegularization(Task):
    """``weight ||τ_a − τ_ref||²`` on the actuated torques, (N·m)²."""

    acts_on = "x"

    def __init__(self, weight: float = 1e-6, target=None, **kwargs):
        kwargs.setdefault("priority", "soft")
        if kwargs["priority"] != "soft":
            raise ValueError("priority must be 'soft' for a regularisation task")
        self._pending_target = target
        super().__init__(None, weight=weight, **kwargs)

    def bind(self, robot) -> None:
        self._configure(robot.na)
        self.set_target(np.zeros(robot.na) if self._pending_target is None else self._pending_target)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        if self.dim is None:
            self._pending_target = target
            return
        self.torque_ref = as_vector(target, "target", self.dim).copy()

    def compute(self, context):
        rows = self._rows
        return context.torque_matrix[rows], self.torque_ref[rows] - context.torque_offset[rows]
