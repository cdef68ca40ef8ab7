"""CoMTask: the centre of mass position, m."""

from __future__ import annotations


from .._validation import as_vector
from .base import PDTask


class CoMTask(PDTask):
    """``J_com q̈ + J̇_com v = c̈_ref + Kp (c_ref − c) + Kd (ċ_ref − ċ)``, world axes."""

    kinematics_checked = True       # pinocchio's CoM buffers

    def __init__(self, target=None, **kwargs):
        super().__init__(3, **kwargs)
        self.position_ref = None
        if target is not None:
            self.set_target(target)

    def bind(self, robot) -> None:
        if self.position_ref is None:
            robot.update(robot.q_ref, robot.zero_velocity())
            self.set_target(robot.com.copy())

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        self.position_ref = as_vector(target, "target", 3).copy()
        self._set_feedforward(velocity, acceleration)

    def kinematics(self, robot):
        return self.position_ref - robot.com, robot.com_jacobian, robot.com_drift, 0
