"""Torque, joint-position, joint-velocity and joint-acceleration limits.

Each takes ``priority`` (``"hard"`` by default, a level ``1, 2, …`` or ``"soft"``) and the
``weight`` of its violation at that level, as :class:`~tsid_py.constraints.Constraint`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import float64, njit, void

from .._numba import VECTOR, compiled_function
from .._validation import positive_scalar
from ..row_writers import direct
from ..rows import Bounds, VariableBounds
from ..settings import non_negative
from .base import AccelerationBounds, LinearConstraint, actuated_limits, limit_values, setting


class TorqueLimits(LinearConstraint):
    """``−τ_max ≤ τ_a = T x + t ≤ τ_max`` for every actuated joint with a finite limit, N·m.

    ``limits``: None (URDF efforts), a scalar, an (na,) array, or a ``{joint: value}`` dict
    overriding the URDF for some joints; ``scale`` multiplies the result.
    """

    name = "torque limits"
    limits = setting(limit_values)
    scale = setting(positive_scalar)

    def __init__(self, limits=None, *, scale: float = 1.0, priority: str | int = "hard", weight: float = 1.0):
        super().__init__(priority=priority, weight=weight)
        self.limits, self.scale = limits, scale

    def bind(self, robot) -> None:
        """Resolve ``τ_max`` for ``robot`` (the URDF efforts or ``limits``, times ``scale``), N·m,
        and keep the actuated joints whose limit is finite."""
        effort = actuated_limits(robot, robot.effort_limits, self.limits, self.scale, "limits")
        self.index = np.flatnonzero(np.isfinite(effort))
        self.effort = effort[self.index]
        self._lowest = -self.effort

    def packed_parameters(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """:meth:`write_rows`'s parameters as :mod:`tsid_py.assembly_program` packs them:
        floats ``−τ_max`` and ``τ_max`` (N·m), ints the limited joints' rows of ``τ_a``."""
        return [self._lowest, self.effort], [self.index]

    def row_count(self, context) -> int:
        """One row per actuated joint with a finite torque limit."""
        return self.effort.size

    def rows(self, context) -> Bounds:
        """The readable definition of the rows, ``Bounds(C, lower, upper)`` over the whole
        ``x`` (n columns): with ``τ_a = T x + t`` at this step, ``C = T[j]``,
        ``lower = −τ_max − t[j]`` and ``upper = τ_max − t[j]`` (N·m) for the limited joints
        ``j`` (numpy; :meth:`write_rows` forms the same rows in compiled code)."""
        torque_matrix, torque_offset = context.torque_map()
        effort = self.effort * context.torque_limit_scale
        offset = torque_offset[self.index]
        return Bounds(torque_matrix[self.index], -effort - offset, effort - offset)

    def write_rows(self, context, matrix, lower, upper):
        """The rows ``−τ_max − t ≤ T x ≤ τ_max − t`` in one compiled call (``τ_max`` times
        the step's ``context.torque_limit_scale``, an override that relaxes a step)."""
        torque_matrix, torque_offset = context.torque_map()
        lowest, effort = self._lowest, self.effort
        if context.torque_limit_scale != 1.0:
            lowest, effort = lowest * context.torque_limit_scale, effort * context.torque_limit_scale
        direct.affine_bound_rows(torque_matrix, torque_offset, self.index, lowest, effort, matrix, lower, upper)


class AccelerationLimits(AccelerationBounds):
    """``|q̈_j| ≤ a_max`` on the actuated joints (scalar, (na,) array or dict), rad/s²."""

    name = "acceleration limits"
    limits = setting(limit_values)

    def __init__(self, limits=10.0, *, priority: str | int = "hard", weight: float = 1.0):
        super().__init__(priority=priority, weight=weight)
        self.limits = limits

    def bind(self, robot) -> None:
        """Resolve ``a_max`` per actuated joint (inf where ``limits`` gives none), rad/s², and
        the joints' indices in v."""
        offset = 6 if robot.floating_base else 0
        limit = actuated_limits(robot, np.full(robot.na, np.inf), self.limits, 1.0, "limits")
        self.v_index = offset + np.arange(robot.na)
        self.limit = limit

    def acceleration_bounds(self, context):
        """``−a_max ≤ q̈_j ≤ a_max`` on the actuated joints, rad/s²."""
        return VariableBounds(self.v_index, -self.limit, self.limit)


class VelocityLimits(AccelerationBounds):
    """``|v + dt q̈| ≤ v_max`` on the actuated joints (URDF velocity limits or override),
    i.e. ``(−v_max − v)/dt ≤ q̈ ≤ (v_max − v)/dt``."""

    name = "velocity limits"
    limits = setting(limit_values)
    scale = setting(positive_scalar)

    def __init__(self, limits=None, *, scale: float = 1.0, priority: str | int = "hard", weight: float = 1.0):
        super().__init__(priority=priority, weight=weight)
        self.limits, self.scale = limits, scale

    def bind(self, robot) -> None:
        """Resolve ``v_max`` per actuated joint (the URDF velocity limits or ``limits``, times
        ``scale``), rad/s, and the joints' indices in v."""
        offset = 6 if robot.floating_base else 0
        self.limit = actuated_limits(robot, robot.velocity_limits, self.limits, self.scale, "limits")
        self.v_index = offset + np.arange(robot.na)

    def acceleration_bounds(self, context):
        """``(−v_max − v)/dt ≤ q̈_j ≤ (v_max − v)/dt`` on the actuated joints, rad/s², at the
        robot's current velocity and the step's ``dt``."""
        v = context.robot.v[self.v_index]
        return VariableBounds(self.v_index, (-self.limit - v) / context.dt, (self.limit - v) / context.dt)


class JointLimits(AccelerationBounds):
    r"""Joint position limits as viable acceleration bounds over the control period ``dt``.

    With semi-implicit Euler (the integrator of MuJoCo and of a usual control loop),
    ``v⁺ = v + dt q̈`` and ``q⁺ = q + dt v⁺``, the upper bound on q̈ is the largest value for
    which (a) ``q⁺ ≤ q_max`` and (b) the joint can still stop before ``q_max`` braking at
    ``a_max``: ``q⁺ + max(v⁺, 0)² / (2 a_max) ≤ q_max``. Condition (b) is a quadratic in q̈,

    .. math::

        \frac{dt²}{2 a_{max}} \ddot q² + \Big(dt² + \frac{dt\, v}{a_{max}}\Big) \ddot q
        + q + dt\, v + \frac{v²}{2 a_{max}} − q_{max} ≤ 0,

    whose larger root is the bound. The bound is never below ``−a_max`` (full braking is
    always allowed), so the constraint never asks a joint to stop faster than it can; the
    lower limit is the mirror image. Only the 1-dof actuated joints with finite limits are
    bounded. ``margin`` (rad) shrinks the range on both sides.
    """

    name = "joint position limits"
    acceleration_limit = setting(limit_values)
    margin = setting(non_negative)

    def __init__(self, acceleration_limit=10.0, *, margin: float = 0.0, priority: str | int = "hard",
                 weight: float = 1.0):
        super().__init__(priority=priority, weight=weight)
        self.acceleration_limit = acceleration_limit
        self.margin = margin

    def bind(self, robot) -> None:
        """Select the 1-dof joints with finite position limits, shrink their range by
        ``margin`` and resolve their braking accelerations ``a_max`` (rad/s²); ``ValueError``
        if the margin leaves an empty range or an ``a_max`` is not finite."""
        offset_v = 6 if robot.floating_base else 0
        offset_q = 7 if robot.floating_base else 0
        lower = robot.position_lower + self.margin
        upper = robot.position_upper - self.margin
        # Only 1-dof joints (nq == nv == 1) map q entries to v entries one to one.
        names = [n for n in robot.joint_names if robot.has_1dof_joint(n)]
        q_index = np.array([robot.joint_q_index(n) for n in names], dtype=int)
        v_index = np.array([robot.joint_v_index(n) for n in names], dtype=int)
        finite = (np.abs(lower[q_index - offset_q]) < 1e10) & (np.abs(upper[q_index - offset_q]) < 1e10)
        self.q_index, self.v_index = q_index[finite], v_index[finite]
        self.lower = lower[self.q_index - offset_q]
        self.upper = upper[self.q_index - offset_q]
        if np.any(self.lower >= self.upper):
            raise ValueError(f"margin={self.margin} leaves an empty range for some joints")
        limits = actuated_limits(robot, np.full(robot.na, np.inf), self.acceleration_limit, 1.0,
                                 "acceleration_limit")
        self.a_max = limits[self.v_index - offset_v]
        if not np.all(np.isfinite(self.a_max)):
            raise ValueError("acceleration_limit must be finite: viability needs a braking limit")
        self._bounds = (np.empty(self.v_index.size), np.empty(self.v_index.size))

    @staticmethod
    def _upper_bound(q, v, q_max, dt, a_max):
        """Largest viable q̈ toward ``q_max`` (vectorised), never below ``−a_max``: the
        readable definition; the control step calls :func:`viable_bounds_into`, which
        computes the same numbers in the same order joint by joint."""
        one_step = (q_max - q - dt * v) / dt**2
        quad_a = dt**2 / (2.0 * a_max)
        quad_b = dt**2 + dt * v / a_max
        quad_c = q + dt * v + v**2 / (2.0 * a_max) - q_max
        discriminant = quad_b**2 - 4.0 * quad_a * quad_c
        root = (-quad_b + np.sqrt(np.maximum(discriminant, 0.0))) / (2.0 * quad_a)
        # Where braking from v⁺ > 0 is needed the root applies; if the root gives v⁺ ≤ 0 the
        # joint is already reversing and only the one-step condition binds.
        viable = np.where(v + dt * root > 0.0, root, one_step)
        viable = np.where(discriminant < 0.0, -a_max, viable)
        return np.maximum(np.minimum(one_step, viable), -a_max)

    def acceleration_bounds(self, context):
        """The viable bounds of the class docstring on q̈ of the limited joints (rad/s²) at the
        robot's current ``q``, ``v`` and the step's ``dt``; the lower bound is capped at the
        upper one, so that the box is never empty. The bounds are this constraint's buffers,
        rewritten at the next call (one compiled call: the numpy form cost G1's 29 joints
        21 µs a side, 42 µs of a 170 µs walking step)."""
        robot = context.robot
        lower, upper = self._bounds
        _viable_bounds_into(robot.q[self.q_index], robot.v[self.v_index], self.lower, self.upper, float(context.dt),
                            self.a_max, lower, upper)
        return VariableBounds(self.v_index, lower, upper)


@njit(cache=True, inline="always")
def _viable_upper(q, v, q_max, dt, a_max):
    """:meth:`JointLimits._upper_bound` for one joint (the same operations in the same order)."""
    one_step = (q_max - q - dt * v) / dt**2
    quad_a = dt**2 / (2.0 * a_max)
    quad_b = dt**2 + dt * v / a_max
    quad_c = q + dt * v + v**2 / (2.0 * a_max) - q_max
    discriminant = quad_b**2 - 4.0 * quad_a * quad_c
    if discriminant < 0.0:
        viable = -a_max
    else:
        root = (-quad_b + math.sqrt(discriminant)) / (2.0 * quad_a)
        viable = root if v + dt * root > 0.0 else one_step
    return max(min(one_step, viable), -a_max)


@njit(void(VECTOR, VECTOR, VECTOR, VECTOR, float64, VECTOR, VECTOR, VECTOR), cache=True, _nrt=False)
def viable_bounds_into(q, v, q_min, q_max, dt, a_max, lower, upper):
    """``upper[i]``, the largest viable q̈ of joint ``i`` toward ``q_max[i]``, and ``lower[i]``
    the mirror toward ``q_min[i]``, capped at ``upper[i]`` (:class:`JointLimits`)."""
    for i in range(q.size):
        high = _viable_upper(q[i], v[i], q_max[i], dt, a_max[i])
        low = -_viable_upper(-q[i], -v[i], -q_min[i], dt, a_max[i])
        upper[i] = high
        lower[i] = min(low, high)


_viable_bounds_into = compiled_function(viable_bounds_into)
