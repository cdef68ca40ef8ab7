"""Talos keeps its balance in MuJoCo while being pushed: the loop of `tsid-py demo balance`."""

import numpy as np

import tsid_py as tp
from tsid_py.sim import Simulation

robot = tp.robots.load("talos")
sim = Simulation(robot, timestep=1e-3)                    # MuJoCo, same URDF

solver = tp.DynamicsSolver(robot, dt=1e-3)
for foot in robot.feet:
    solver.add_contact(tp.PlanarContact(foot, length=0.18, width=0.11, mu=0.8))
com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))
solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=100.0, weight=1.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-2))
solver.add_constraint(tp.constraints.TorqueLimits())

for step in range(5000):                                  # 5 s
    if step == 2000:
        sim.push([0.0, 150.0, 0.0], duration=0.1)         # 150 N sideways for 0.1 s
    q, v = sim.state()                                    # pinocchio conventions
    sol = solver.solve(q, v)
    sim.step(sol.tau_actuated)

print("base height", sim.state()[0][2], "CoM error", np.linalg.norm(com.error))
