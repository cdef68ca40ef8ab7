"""CoMTask: the centre of mass position, m."""

from __future__ import annotations

import numpy as np

from ..row_writers import direct
from ..rows import PDKinematics
from .base import PDTask


class CoMTask(PDTask):
    """``J_com q̈ + J̇_com v = c̈_ref + Kp (c_ref − c) + Kd (ċ_ref − ċ)``, world axes.

    ``target`` (3,) in m, default: the CoM at the robot's ``q_ref``; ``velocity`` (m/s) and
    ``acceleration`` (m/s²) feed-forward through :meth:`set_target`.
    """

    def __init__(self, target=None, **kwargs):
        super().__init__(3, **kwargs)
        if target is not None:
            self.set_target(target)

    def default_target(self, robot):
        return robot.com_at(robot.q_ref)

    def kinematics(self, robot) -> PDKinematics:
        return PDKinematics(self.position_ref - robot.com, robot.com_jacobian, robot.com_drift, 0)

    def write_rows(self, context, matrix, vector, weighted):
        """The PD rows from pinocchio's CoM buffers through the compiled function (the
        arrays are the library's own: no dispatcher)."""
        robot = context.robot
        self.error, self.error_rate = self.position_ref - robot.com, np.empty(3)
        direct.pd_rows(robot.com_jacobian, robot.v, robot.com_drift, self.error, 0, self._rows,
                       self._row_scales[weighted], self.acceleration_ref, self.velocity_ref, self._kp, self._kd,
                       matrix, vector, self.error_rate)
