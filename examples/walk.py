"""Talos walks 1 m forward in MuJoCo, then stands: the loop of `tsid-py demo walk`."""

import numpy as np

import tsid_py as tp
from tsid_py.control.walking import WalkingController
from tsid_py.sim import Simulation

robot = tp.robots.load("talos")
sim = Simulation(robot, timestep=1e-3)                   # MuJoCo, same URDF
controller = WalkingController(robot, dt=1e-3)           # balance controller + footsteps, LIPM CoM, swing feet


def feet_midpoint():
    return np.mean([sim.sole_pose(foot)[1][:2] for foot in robot.feet], axis=0)


start = feet_midpoint()

for step in range(200):                                  # stand 0.2 s: the soles settle on the floor
    q, v = sim.state()
    sim.step(controller.step(q, v).tau_actuated)

plan = controller.walk_distance(1.0)                     # or turn(np.radians(90)), walk_velocity(...)
print(f"{len(plan.footsteps)} footsteps, {plan.duration:.1f} s")
while controller.walking:                                # until the last step has settled
    q, v = sim.state()
    sol = controller.step(q, v)                          # never raises: sol.relaxed says what gave way
    sim.step(sol.tau_actuated)

moved = feet_midpoint() - start
print(f"walked {moved[0]:.3f} m forward, {moved[1]:.3f} m sideways in {controller.steps_taken} steps;"
      f" base height {sim.state()[0][2]:.3f} m")
