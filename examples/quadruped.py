"""go2 on four point contacts moves its body up and down."""

import numpy as np

import tsid_py as tp
from tsid_py.sim import Simulation

robot = tp.robots.load("go2")                              # or "solo12"
sim = Simulation(robot)
solver = tp.DynamicsSolver(robot, dt=sim.timestep)
for foot in robot.feet:                                    # frames at the bottom of each foot
    solver.add_contact(tp.PointContact(foot, mu=0.8))
com = solver.add_task(tp.tasks.CoMTask(kp=100.0))
solver.add_task(tp.tasks.OrientationTask("root_joint", np.eye(3), kp=100.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-2))
solver.add_constraint(tp.constraints.TorqueLimits())
centre = com.position_ref.copy()

for step in range(3000):
    t = step * sim.timestep
    com.set_target(centre + [0, 0, 0.02 * np.sin(2 * np.pi * t)])
    q, v = sim.state()
    sim.step(solver.solve(q, v).tau_actuated)

print("CoM error (m):", np.linalg.norm(com.error))
