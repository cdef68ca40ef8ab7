"""Constraint base classes: the contract every inequality implements.

Two shapes of inequality reach the QP, each with one required method:

* :class:`AccelerationBounds`: :meth:`~AccelerationBounds.acceleration_bounds` returns
  :class:`~tsid_py.rows.VariableBounds` ``lower ≤ q̈[index] ≤ upper`` (joint position,
  velocity and acceleration limits), merged into one box on q̈;
* :class:`LinearConstraint`: :meth:`~LinearConstraint.rows` returns
  :class:`~tsid_py.rows.Bounds` ``lower ≤ C x ≤ upper`` over ``x = [q̈; f]`` (torque
  limits), with an optional fast path :meth:`~LinearConstraint.write_rows`.

:meth:`Constraint.bind` resolves names and limits against the robot when the constraint is
added; a constraint belongs to one solver.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..items import SolverItem
from ..rows import Bounds, StepContext, VariableBounds


class Constraint(SolverItem, ABC):
    """An inequality on the QP's variables; see :class:`AccelerationBounds` and
    :class:`LinearConstraint`."""

    name = "constraint"

    def bind(self, robot) -> None:
        """Resolve names and limits against ``robot`` (called when the constraint is added)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AccelerationBounds(Constraint):
    """Bounds on single accelerations."""

    @abstractmethod
    def acceleration_bounds(self, context: StepContext) -> VariableBounds:
        """``VariableBounds(index, lower, upper)`` on ``q̈[index]``, rad/s² (or m/s²)."""


class LinearConstraint(Constraint):
    """Two-sided rows ``lower ≤ C x ≤ upper``."""

    @abstractmethod
    def rows(self, context: StepContext) -> Bounds:
        """``Bounds(C, lower, upper)`` with ``C`` over the whole variable vector (or over q̈
        only: ``nv`` columns)."""

    def row_count(self, context: StepContext) -> int:
        """How many rows :meth:`rows` gives (asked once, when the layout is built)."""
        return len(self.rows(context).lower)

    def write_rows(self, context, matrix: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Write :meth:`rows` into the solver's buffers (``matrix`` spans the whole variable
        vector); constraints on the control loop's path override it to skip temporaries."""
        rows, lo, hi = self.rows(context)
        if rows.shape not in ((matrix.shape[0], context.nv), matrix.shape):
            raise ValueError(f"{self!r} returned rows of shape {rows.shape}; expected {matrix.shape} "
                             f"or ({matrix.shape[0]}, {context.nv})")
        matrix[:, : rows.shape[1]] = rows
        lower[:] = lo
        upper[:] = hi


def actuated_limits(robot, urdf_values: np.ndarray, limits, scale: float, name: str) -> np.ndarray:
    """Per-actuated-joint limits: the URDF's values, or ``limits`` (a scalar, an (na,) array
    or a ``{joint: value}`` dict overriding some joints), times ``scale``. Non-positive or
    non-finite entries mean "unlimited" (inf)."""
    from .._validation import as_vector, positive_scalar

    values = np.array(urdf_values, dtype=float)
    if isinstance(limits, dict):
        offset = 6 if robot.floating_base else 0
        for joint, value in limits.items():
            values[robot.joint_v_index(joint) - offset] = positive_scalar(value, f"{name}[{joint!r}]")
    elif limits is not None:
        array = np.asarray(limits, dtype=float)
        values = np.full(robot.na, float(array)) if array.ndim == 0 else as_vector(array, name, robot.na).copy()
        if np.any(values <= 0):
            raise ValueError(f"{name} must be > 0 for every joint, got {values}")
    values = values * positive_scalar(scale, "scale")
    values[~np.isfinite(values) | (values <= 0) | (values > 1e300)] = np.inf
    return values
