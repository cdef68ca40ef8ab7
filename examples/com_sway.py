"""Sway Talos's CoM 4 cm sideways at 0.5 Hz with velocity and acceleration feed-forward."""

import numpy as np

import tsid_py as tp
from tsid_py.sim import Simulation
from tsid_py.control.reference import humanoid_balance

robot = tp.robots.load("talos")
sim = Simulation(robot)
controller = humanoid_balance(robot, dt=sim.timestep)     # contacts, CoM, torso, posture, limits
robot.update(robot.q_ref, robot.zero_velocity())
centre, omega, amplitude = robot.com.copy(), 2 * np.pi * 0.5, 0.04

for step in range(4000):
    t = step * sim.timestep
    s, c = np.sin(omega * t), np.cos(omega * t)
    controller.com.set_target(centre + [0, amplitude * s, 0], velocity=[0, amplitude * omega * c, 0],
                              acceleration=[0, -amplitude * omega**2 * s, 0])
    q, v = sim.state()
    sim.step(controller.solver.solve(q, v).tau_actuated)

print("CoM tracking error (m):", np.linalg.norm(controller.com.error))
