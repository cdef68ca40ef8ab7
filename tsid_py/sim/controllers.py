"""Ready-made controller configurations used by the demos and the benchmarks.

Each builds a :class:`~tsid_py.DynamicsSolver` with the tasks a user would start from; the
returned object keeps handles to the tasks so that a loop can move their targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import constraints, tasks
from ..contacts import PlanarContact, PointContact
from ..robot import Robot
from ..solver import DynamicsSolver

#: The frame whose orientation a humanoid controller keeps upright.
TORSO_FRAMES = {"talos": "torso_2_link", "g1": "torso_link"}

#: Contact rectangles are shrunk by this factor from the collision soles: a margin for the
#: centre of pressure, which the simulator's soft contact does not reproduce exactly.
SOLE_MARGIN = 0.9


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
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(PlanarContact(foot, length=SOLE_MARGIN * length, width=SOLE_MARGIN * width, mu=0.8,
                                         kp=0.0))
    com = solver.add_task(tasks.CoMTask(kp=com_kp, weight=1.0))
    torso_frame = TORSO_FRAMES.get(robot.name, robot.model.names[1])
    torso = solver.add_task(tasks.OrientationTask(torso_frame, kp=torso_kp, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=posture_kp, weight=1e-2))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, com=com, posture=posture, torso=torso)


def quadruped_stance(robot: Robot, dt: float = 1e-3, *, qp_solver: str = "reduced") -> Controller:
    """Four point contacts, CoM task, base orientation task, posture task, torque limits."""
    solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver)
    for foot in robot.feet:
        solver.add_contact(PointContact(foot, mu=0.8))
    com = solver.add_task(tasks.CoMTask(kp=100.0, weight=1.0))
    torso = solver.add_task(tasks.OrientationTask(robot.model.names[1], kp=100.0, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-2))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, com=com, posture=posture, torso=torso)


def arm_tracking(robot: Robot, dt: float = 1e-3, *, qp_solver: str = "reduced") -> Controller:
    """End-effector position task, posture task, torque limits on a fixed-base arm."""
    solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver)
    effector = solver.add_task(tasks.PositionTask(robot.end_effector, kp=200.0, weight=1.0))
    posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-3))
    solver.add_constraint(constraints.TorqueLimits())
    return Controller(solver, posture=posture, frames={"effector": effector})


def support_polygon_zmp(wrenches: dict[str, np.ndarray]) -> np.ndarray:
    """Zero-moment point on the ground plane (z = 0) of a set of world-aligned contact
    wrenches given at their frames' origins — pass wrenches about the world origin, or
    use :func:`zmp_from_frames`."""
    force = sum(w[:3] for w in wrenches.values())
    moment = sum(w[3:] for w in wrenches.values())
    if force[2] <= 1e-6:
        return np.full(2, np.nan)
    return np.array([-moment[1], moment[0]]) / force[2]


def zmp_from_frames(robot: Robot, wrenches: dict[str, np.ndarray]) -> np.ndarray:
    """ZMP (x, y) on z = 0 from wrenches at the foot frames (moved to the world origin)."""
    about_origin = {}
    for name, wrench in wrenches.items():
        origin = robot.data.oMf[robot.frame_id(name)].translation
        about_origin[name] = np.r_[wrench[:3], wrench[3:] + np.cross(origin, wrench[:3])]
    return support_polygon_zmp(about_origin)


def record_step(log: dict, t: float, robot: Robot, controller, solution, measured: dict, **extra) -> None:
    """Append one control step of a humanoid demo to ``log`` (key -> list of arrays): time
    (s), torques (N·m), CoM and ``controller.com``'s reference (m), the ``measured`` (wrenches
    at the foot frames) and planned normal forces per foot (N), the measured ZMP (m), and
    the ``extra`` entries."""
    entry = {"time": t, "tau": solution.tau_actuated, "com": robot.com.copy(),
             "com_ref": controller.com.position_ref.copy(),
             "normal_forces": [measured[f][2] for f in robot.feet],
             "planned_normal_forces": [solution.wrenches[f][2] if f in solution.wrenches else 0.0 for f in robot.feet],
             "zmp": zmp_from_frames(robot, measured), **extra}
    for key, value in entry.items():
        log.setdefault(key, []).append(np.array(value, dtype=float))
