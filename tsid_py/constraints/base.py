"""Constraint base classes.

Two shapes of inequality reach the QP:

* :class:`AccelerationBounds`: ``lower ≤ q̈[v_index] ≤ upper`` (joint position, velocity
  and acceleration limits), merged into one box on q̈;
* :class:`LinearConstraint`: ``lower ≤ C x ≤ upper`` over ``x = [q̈; f]`` (torque limits).
"""

from __future__ import annotations

import numpy as np


class Constraint:
    name = "constraint"

    def bind(self, robot) -> None:
        """Resolve names and limits against ``robot`` (called when the constraint is added)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AccelerationBounds(Constraint):
    def acceleration_bounds(self, context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(v_index, lower, upper)`` on ``q̈[v_index]``, rad/s² (or m/s²)."""
        raise NotImplementedError


class LinearConstraint(Constraint):
    def rows(self, context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(C, lower, upper)`` with ``C`` over the whole variable vector (or over q̈ only:
        ``nv`` columns)."""
        raise NotImplementedError

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
