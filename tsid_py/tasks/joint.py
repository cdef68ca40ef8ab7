"""JointTask: posture of all actuated joints, or of some of them by name."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import _kernels
from .._indexing import index_selector
from .._validation import as_vector
from .base import PDTask


class JointTask(PDTask):
    """Drive joint positions toward ``target``: ``q̈_j = q̈_ref + Kp (q_ref − q) + Kd (v_ref − v)``.

    ``joints`` names the 1-dof joints to control (default: every actuated 1-dof joint).
    ``target`` is a full configuration (nq,) or one value per selected joint (default: the
    robot's ``q_ref``); ``velocity`` and ``acceleration`` have one entry per selected joint
    (rad/s, rad/s²). Per-axis gains, weights and masks follow the order of ``joints``.
    """

    def __init__(self, target=None, *, joints: Sequence[str] | None = None, **kwargs):
        if joints is not None and (isinstance(joints, str) or len(joints) == 0):
            raise ValueError("joints must be a non-empty list of joint names (or None for all)")
        self.joints = None if joints is None else list(joints)
        self._pending_target = target
        self._q_index = None
        super().__init__(None if self.joints is None else len(self.joints), **kwargs)

    def bind(self, robot) -> None:
        names = self.joints if self.joints is not None else [
            name for name in robot.joint_names if robot.has_1dof_joint(name)]
        self._q_index = np.array([robot.joint_q_index(name) for name in names], dtype=int)
        v_index = np.array([robot.joint_v_index(name) for name in names], dtype=int)
        if self.dim is None:
            self._configure(len(names))
        self._nq = robot.nq
        self._jacobian = np.zeros((self.dim, robot.nv))
        self._jacobian[np.arange(self.dim), v_index] = 1.0
        self._v_index = v_index
        self._q_select, self._v_select = index_selector(self._q_index), index_selector(v_index)
        self._kept_columns = v_index[self._rows]                  # q̈ columns of the kept axes
        self._columns = index_selector(self._kept_columns)
        self._zero_drift = np.zeros(self.dim)
        target = robot.q_ref if self._pending_target is None else self._pending_target
        self.set_target(target)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        if self._q_index is None:       # not bound to a robot yet: apply at bind()
            self._pending_target = target
            return
        target = np.asarray(target, dtype=float)
        if target.ndim == 1 and target.shape[0] == self._nq and self._nq != self.dim:
            target = as_vector(target, "target", self._nq)[self._q_index]
        else:
            target = as_vector(target, "target", self.dim)
        self.position_ref = target.copy()
        self._set_feedforward(velocity, acceleration)

    def diagonal(self, context, targets):
        """As a soft task the cost ``Σ w_i (q̈_j_i − a*_i)²`` is diagonal in q̈: returns
        ``(columns, weights)`` and adds ``w ∘ a*`` into ``targets`` at the columns (a hard task
        uses :meth:`compute`); one compiled call."""
        robot = context.robot
        self.error, self.error_rate = np.empty(self.dim), np.empty(self.dim)
        _kernels.direct.joint_targets(robot.q, robot.v, self._q_index, self._v_index, self.position_ref,
                                      self.velocity_ref, self.acceleration_ref, self.kp, self.kd, self._rows,
                                      self._kept_columns, self.kept_weight, self.error, self.error_rate, targets)
        return self._columns, self.kept_weight

    def measure(self, robot):
        error = self.position_ref - robot.q[self._q_select]
        error_rate = self.velocity_ref - robot.v[self._v_select]
        return error, error_rate, self._jacobian, self._zero_drift
