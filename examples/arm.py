"""Panda's hand follows a circle under torque control in MuJoCo."""

import numpy as np

import tsid_py as tp
from tsid_py.sim import Simulation

robot = tp.robots.load("panda")
sim = Simulation(robot)
solver = tp.DynamicsSolver(robot, dt=sim.timestep)
hand = solver.add_task(tp.tasks.PositionTask("panda_hand", kp=200.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-3))
solver.add_constraint(tp.constraints.TorqueLimits())
centre, radius, omega = hand.target.translation.copy(), 0.05, np.pi

for step in range(4000):
    t = step * sim.timestep
    s, c = np.sin(omega * t), np.cos(omega * t)
    hand.set_target(centre + radius * np.array([0, c - 1, s]), velocity=radius * omega * np.array([0, -s, c]),
                    acceleration=-radius * omega**2 * np.array([0, c, s]))
    q, v = sim.state()
    sim.step(solver.solve(q, v).tau_actuated)

print("hand tracking error (m):", np.linalg.norm(hand.error))
