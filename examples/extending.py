"""Your own task, constraint and QP backend, on the solver's extension points.

Run it: Talos stands with a custom CoM-damping task, a bound on the CoM's
vertical acceleration and a backend that counts its calls. Good: the vertical
CoM acceleration at its bound, ±0.1 m/s², and one backend call for one solve.
"""

import numpy as np

import tsid_py as tp
from tsid_py.backends import Backend, make_backend
from tsid_py.constraints import LinearConstraint
from tsid_py.rows import Bounds, Rows
from tsid_py.tasks import Task


class CoMDamping(Task):
    """Rows ``J_com q̈ + J̇_com v = −kd ċ``: brake the centre of mass (m/s²).

    ``kd`` in 1/s. A task gives its dimension to ``Task.__init__`` and returns
    ``Rows(A, b)`` from ``compute``; ``A`` has nv columns because the task acts
    on q̈ (``acts_on = "ddq"``)."""

    def __init__(self, kd: float = 10.0, **kwargs):
        super().__init__(3, **kwargs)     # weight, priority, mask, name
        self.kd = kd

    def compute(self, context):
        robot = context.robot             # its kinematics: this step's state
        self.error = -robot.com_velocity  # for logs and reports
        wanted = -self.kd * robot.com_velocity - robot.com_drift
        return Rows(robot.com_jacobian[self.mask], wanted[self.mask])


class VerticalCoMAcceleration(LinearConstraint):
    """``|c̈_z| ≤ limit`` (m/s²): ``−limit − J̇v_z ≤ J_z q̈ ≤ limit − J̇v_z``."""

    name = "vertical CoM acceleration"

    def __init__(self, limit: float = 1.0):
        self.limit = limit

    def rows(self, context):
        robot = context.robot
        row = robot.com_jacobian[2:3]     # (1, nv): over q̈ only
        drift = robot.com_drift[2]
        return Bounds(row, np.array([-self.limit - drift]),
                      np.array([self.limit - drift]))


class Counting(Backend):
    """Delegates to another backend and counts the solves."""

    name = "counting"

    def __init__(self, inner: Backend):
        self.inner, self.calls = inner, 0

    def solve(self, qp):
        self.calls += 1
        return self.inner.solve(qp)

    def reset(self):
        self.inner.reset()


robot = tp.robots.load("talos")
backend = Counting(make_backend("reduced"))
solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=backend)
for foot in robot.feet:
    solver.add_contact(tp.PlanarContact(foot, length=0.20, width=0.13, mu=0.8))
solver.add_task(CoMDamping(kd=20.0, weight=1.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
solver.add_constraint(VerticalCoMAcceleration(limit=0.1))

v = robot.zero_velocity()
v[:3] = [0.0, 0.05, -0.02]                # the base drifts sideways and down
sol = solver.solve(robot.q_ref, v)
vertical = robot.com_jacobian[2] @ sol.ddq + robot.com_drift[2]
print(f"vertical CoM acceleration {vertical:+.3f} m/s² (bound ±0.1), "
      f"backend calls: {solver.backend.calls}")
print("good: at the bound (the damping task asks for more), one call")
