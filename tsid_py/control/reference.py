"""Reference problems: ready-made solver configurations a user starts from, and the
problems the benchmarks time (``tsid-py bench``) and the tests solve.

Each builds a :class:`~tsid_py.DynamicsSolver` with the tasks of the problem; the returned
:class:`Controller` keeps handles to the tasks so that a loop can move their targets. The
robot facts (feet, soles, torso frame, end effector) come from the robot's profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .. import constraints, tasks
from ..contacts import PlanarContact, PointContact
from ..models.profile import profile_of
from ..robot import Robot
from ..solver import DynamicsSolver

#: The reference problem's contact rectangles are this fraction of the soles (a margin for
#: the centre of pressure, which a simulator's soft contact does not reproduce exactly), as
#: in the problem the peers' timings were measured on.
REFERENCE_SOLE_SCALE = 0.9


@dataclass
class Controller:
    solver: DynamicsSolver
    com: tasks.CoMTask | None = None
    posture: tasks.JointTask | None = None
    torso: tasks.OrientationTask | None = None
    frames: dict = None

    def step(self, q, v):
        return self.solver.solve(q, v)


def humanoid_balance(robot: Robot, dt: float = 1e-3, *, qp_solver: str = "reduced",
                     com_kp: float = 100.0, posture_kp: float = 30.0, torso_kp: float = 100.0) -> Controller:
    """Two planar foot contacts, CoM task, torso orientation task, posture task, torque limits:
    the reference standing-balance problem of TSID's and placo's demos, kept as it was
    measured (benchmarks, recordings): its contacts damp no rocking (``kp = kd = 0``), unlike
    the library's default contacts and :class:`~tsid_py.control.BalanceController`."""
    solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver)
    profile = profile_of(robot)
    length, width = profile.sole_size
    for foot in profile.feet:
        solver.add_contact(PlanarContact(foot, length=REFERENCE_SOLE_SCALE * length,
                                         width=REFERENCE_SOLE_SCALE * width, mu=0.8, kp=0.0))
    com = solver.add_task(tasks.CoMTask(kp=com_kp, weight=1.0))
    torso = solver.add_task(tasks.OrientationTask(profile.torso_frame, kp=torso_kp, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=posture_kp, weight=1e-2))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, com=com, posture=posture, torso=torso)


def quadruped_stance(robot: Robot, dt: float = 1e-3, *, qp_solver: str = "reduced") -> Controller:
    """Four point contacts, CoM task, base orientation task, posture task, torque limits."""
    solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver)
    profile = profile_of(robot)
    for foot in profile.feet:
        solver.add_contact(PointContact(foot, mu=0.8))
    com = solver.add_task(tasks.CoMTask(kp=100.0, weight=1.0))
    torso = solver.add_task(tasks.OrientationTask(profile.torso_frame, kp=100.0, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-2))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, com=com, posture=posture, torso=torso)


def arm_tracking(robot: Robot, dt: float = 1e-3, *, qp_solver: str = "reduced") -> Controller:
    """End-effector position task, posture task, torque limits on a fixed-base arm."""
    solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver)
    effector = solver.add_task(tasks.PositionTask(profile_of(robot).end_effector, kp=200.0, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-3))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, posture=posture, frames={"effector": effector})


def balance_rollout(robot: Robot, steps: int, dt: float = 2e-3, sway: float = 0.05):
    """Positions (steps + 1, nq) and wrenches (steps, k, 6) of the balance controller swaying
    the CoM sideways and down, integrated with its own q̈ (semi-implicit Euler on the
    manifold, no simulator): a motion whose wrenches satisfy the controller's friction and
    sole bounds at every step."""
    controller = humanoid_balance(robot, dt)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    robot.update(q, v)
    centre = robot.com.copy()
    positions, wrenches = [q.copy()], []
    for k in range(steps):
        phase = np.sin(2 * np.pi * 2.0 * k * dt)
        controller.com.set_target(centre + [0.0, sway * phase, -0.2 * sway * phase])
        solution = controller.step(q, v)
        wrenches.append([solution.wrenches[foot] for foot in robot.feet])
        v = v + dt * solution.ddq
        q = pin.integrate(robot.model, q, dt * v)
        positions.append(q.copy())
    return np.array(positions), np.array(wrenches)
