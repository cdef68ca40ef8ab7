"""CoMTask: the centre of mass position, m."""

from __future__ import annotations

import numpy as np

from ..row_writers import direct
from ..rows import PDKinematics
from .base import PDTask


class CoMTask(PDTask):
    r""":math:`J_{com} \ddot q + \dot J_{com} v = \ddot c_{ref} + K_p (c_{ref} − c) + K_d (\dot c_{ref} − \dot c)`, world axes.

    ``target`` (3,) in m, default: the CoM at the robot's ``q_ref``; ``velocity`` (m/s) and
    ``acceleration`` (m/s²) feed-forward through :meth:`set_target`.

    Parameters
    ----------
    target : the CoM position to reach (3,), m, world axes (default: the CoM at ``q_ref``).
    kp : proportional gains, 1/s² (scalar or (3,), ≥ 0).
    kd : derivative gains, 1/s (scalar or (3,), ≥ 0); default ``2 √kp``.
    weight : per-axis weights of the cost (scalar or (3,), ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans (3,) selecting the axes x, y, z the task keeps (default: all).
    name : how reports and errors name the task (default: ``"CoMTask"``).
    """

    def __init__(self, target=None, *, kp=10.0, kd=None, weight=1.0, priority: str | int = "soft", mask=None,
                 name: str | None = None):
        super().__init__(3, kp=kp, kd=kd, weight=weight, priority=priority, mask=mask, name=name)
        if target is not None:
            self.set_target(target)

    def default_target(self, robot):
        """The CoM position (3,), m, at the robot's ``q_ref`` (the robot's state is untouched)."""
        return robot.com_at(robot.q_ref)

    def kinematics(self, robot) -> PDKinematics:
        """``e = c_ref − c`` (m), ``J = J_com`` (3 × nv) and the drift ``J̇_com v`` (m/s²), world
        axes, from the robot's current CoM quantities."""
        return PDKinematics(self.position_ref - robot.com, robot.com_jacobian, robot.com_drift, 0)

    def packed_parameters(self, weighted: bool, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """:meth:`PDTask.packed_parameters` after the target position and a rotation's room
        (9 zeros: the frame tasks' layout)."""
        floats, ints = super().packed_parameters(weighted, nv)
        return [self.position_ref, np.zeros(9), *floats], ints

    def write_rows(self, context, matrix, vector, weighted):
        """The PD rows from pinocchio's CoM buffers through the compiled function (the
        arrays are the library's own: no dispatcher)."""
        robot = context.robot
        self.error, self.error_rate = self.error_buffers
        np.subtract(self.position_ref, robot.com, out=self.error)
        direct.pd_rows(robot.com_jacobian, robot.v, robot.com_drift, self.error, 0, self._rows,
                       self._row_scales[weighted], self.acceleration_ref, self.velocity_ref, self._kp, self._kd,
                       matrix, vector, self.error_rate)
