"""JointTask: posture of all actuated joints, or of some of them by name."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import boolean, intp, njit, void

from .._indexing import index_selector
from .._numba import ORDERED_MATH, VECTOR, direct_calls
from .._validation import as_vector
from ..row_writers import desired_acceleration
from ..rows import DiagonalCost, PDKinematics
from .base import DiagonalTask, PDTask


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def joint_error(reference, first, second, continuous):
    """``q_ref − q`` of one joint: ``first`` its position, or for a continuous joint
    ``(first, second) = (cos θ, sin θ)`` and the error the angle from θ to ``reference``
    wrapped into [−π, π)."""
    if not continuous:
        return reference - first
    difference = reference - np.arctan2(second, first)
    return difference - 2.0 * np.pi * np.floor((difference + np.pi) / (2.0 * np.pi))


@njit(void(VECTOR, VECTOR, intp[:], intp[:], boolean[:], VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, intp[:], intp[:],
           VECTOR, VECTOR, VECTOR, VECTOR), cache=True, fastmath=ORDERED_MATH)
def joint_targets(q, v, q_index, v_index, continuous, position_ref, velocity_ref, acceleration_ref, kp, kd, kept,
                  columns, weight, error, error_rate, targets):
    """A posture task's PD law from the robot's ``q`` and ``v``: ``e = q_ref − q[q_index]``
    (:func:`joint_error`: an angle difference for a continuous joint) and
    ``ė = v_ref − v[v_index]`` into ``error`` and ``error_rate`` (every axis), and the weighted
    targets of the kept axes added into the cost's: ``targets[columns[i]] += weight[i] a*[kept[i]]``
    with ``a* = a_ref + Kp e + Kd ė``."""
    for a in range(error.size):
        i = q_index[a]
        error[a] = joint_error(position_ref[a], q[i], q[min(i + 1, q.size - 1)], continuous[a])
        error_rate[a] = velocity_ref[a] - v[v_index[a]]
    for i in range(kept.size):
        targets[columns[i]] += weight[i] * desired_acceleration(acceleration_ref, kp, error, kd, error_rate, kept[i])



_direct = direct_calls(joint_targets)


class JointTask(PDTask, DiagonalTask):
    r"""Drive joint positions toward ``target``: :math:`\ddot q_j = \ddot q_{ref} + K_p (q_{ref} − q) + K_d (v_{ref} − v)`.

    ``joints`` names the joints to control (default: every actuated joint with one velocity:
    revolute, prismatic and continuous, :attr:`tsid_py.Robot.scalar_joint_names`). ``target``
    is a full configuration (nq,) or one value per selected joint (default: the robot's
    ``q_ref``; a continuous joint's value is its angle, and its error the wrapped angle
    difference); ``velocity`` and ``acceleration`` have one entry per selected joint (rad/s,
    rad/s²). Per-axis gains, weights and masks follow the order of ``joints``.

    Parameters
    ----------
    target : the positions to reach, rad: a full configuration (nq,) or one per selected joint
        (default: the robot's ``q_ref``).
    joints : names of the joints to control (default: every actuated joint with one velocity).
    kp, kd, weight, priority, mask : as for :class:`PDTask` (``kp`` 1/s², ``kd`` 1/s, default
        ``2 √kp``), one value per joint in the order of ``joints``; as a soft task the cost is
        diagonal in q̈.
    name : how reports and errors name the task (default: ``"JointTask"``).
    """

    def __init__(self, target=None, *, joints: Sequence[str] | None = None, kp=10.0, kd=None, weight=1.0,
                 priority: str | int = "soft", mask=None, name: str | None = None):
        if joints is not None and (isinstance(joints, str) or len(joints) == 0):
            raise ValueError("joints must be a non-empty list of joint names (or None for all)")
        self.joints = None if joints is None else list(joints)
        self._deferred_target = None
        self._nq = None
        super().__init__(None if self.joints is None else len(self.joints), kp=kp, kd=kd, weight=weight,
                         priority=priority, mask=mask, name=name)
        if target is not None:
            self.set_target(target)

    def _names(self, robot) -> list[str]:
        if self.joints is not None:
            return self.joints
        return robot.scalar_joint_names

    def dimension(self, robot) -> int:
        """The number of controlled joints: the length of ``joints``, or of the robot's joints
        with one velocity; ``ValueError`` when it has none."""
        count = len(self._names(robot))
        if count == 0:
            raise ValueError(f"robot {robot.name!r} has no joint with one velocity (revolute, prismatic or "
                             "continuous) for a JointTask to control")
        return count

    def bind(self, robot) -> None:
        """Map the joints to their indices in ``q`` and ``v`` (``KeyError`` for a name that is
        not a 1-dof joint), build the selection Jacobian (dim × nv) and apply a full
        configuration given as the target before the task was added."""
        names = self._names(robot)
        self._q_index = np.array([robot.joint_q_index(name) for name in names], dtype=np.intp)
        v_index = np.array([robot.joint_v_index(name) for name in names], dtype=np.intp)
        self._nq = robot.nq
        self._jacobian = np.zeros((self.dim, robot.nv))
        self._jacobian[np.arange(self.dim), v_index] = 1.0
        self._v_index = v_index
        self._continuous = np.array([name in robot.continuous_joints for name in names], dtype=bool)
        self._zero_drift = np.zeros(self.dim)
        self._columns_for = None          # the kept axes the cached columns were built for
        if self._deferred_target is not None:
            target, self._deferred_target = self._deferred_target, None
            self.apply_target(target)

    def default_target(self, robot):
        """The robot's ``q_ref``."""
        return robot.q_ref

    def apply_target(self, target) -> None:
        """``target``: a full configuration (nq,) or one position per selected joint (rad); a
        full configuration given before the task is added is applied when it is."""
        array = np.asarray(target, dtype=float) if not isinstance(target, np.ndarray) else target
        if self.robot is None and not (array.ndim == 1 and array.shape[0] == self.dim):
            self._deferred_target = target          # a configuration: mapped to the joints at bind
            return
        if array.ndim == 1 and array.shape[0] == self._nq and self._nq != self.dim:
            configuration = as_vector(array, "target", self._nq)
            self.position_ref = np.where(self._continuous,
                                         np.arctan2(configuration[np.minimum(self._q_index + 1, self._nq - 1)],
                                                    configuration[self._q_index]),
                                         configuration[self._q_index])
        else:
            self.position_ref = as_vector(target, "target", self.dim).copy()

    def diagonal(self, context, targets, weight=None) -> DiagonalCost:
        """As a soft task the cost ``Σ w_i (q̈_j_i − a*_i)²`` is diagonal in q̈: adds
        ``w ∘ a*`` into ``targets`` at the joints' columns and returns ``(columns, w)``;
        one compiled call (:func:`joint_targets`). ``weight``: a step's per-axis override."""
        robot = context.robot
        if self._columns_for is not self._rows:            # the mask changed: its columns anew
            self._columns_for = self._rows
            self._kept_columns = self._v_index[self._rows]
            self._columns = index_selector(self._kept_columns)
            self._cost = None
        self.error, self.error_rate = self.error_buffers
        kept_weight = self.kept_weight if weight is None else self.kept_weight_of(weight)
        _direct.joint_targets(robot.q, robot.v, self._q_index, self._v_index, self._continuous, self.position_ref,
                              self.velocity_ref, self.acceleration_ref, self._kp, self._kd, self._rows,
                              self._kept_columns, kept_weight, self.error, self.error_rate, targets)
        if self._cost is None or self._cost.weights is not kept_weight:       # new weights or mask
            self._cost = DiagonalCost(self._columns, kept_weight)
        return self._cost

    def packed_parameters(self, weighted: bool, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The diagonal cost's parameters as :mod:`tsid_py.assembly_program` packs them:
        :meth:`PDTask.packed_parameters` after the target position, with the kept axes'
        weights for the scales; ints the joints' q and v indices, which are continuous, the
        kept axes and their v indices."""
        floats, _ = super().packed_parameters(weighted, nv)
        return ([self.position_ref, *floats[:-1], self.kept_weight],
                [self._q_index, self._v_index, self._continuous, self._rows, self._v_index[self._rows]])

    def kinematics(self, robot) -> PDKinematics:
        """``e = q_ref − q_j`` (a continuous joint's: the angle difference wrapped into
        [−π, π)), ``J`` the selection of the joints' velocities, no drift."""
        q = robot.q
        angle = np.arctan2(q[np.minimum(self._q_index + 1, q.size - 1)], q[self._q_index])
        position = np.where(self._continuous, angle, q[self._q_index])
        error = self.position_ref - position
        error = np.where(self._continuous, (error + np.pi) % (2 * np.pi) - np.pi, error)
        return PDKinematics(error, self._jacobian, self._zero_drift, 0)
