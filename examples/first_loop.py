"""A first control loop without a simulator: Talos shifts its centre of mass 3 cm sideways.

The state is advanced by integrating the solver's own accelerations (semi-implicit Euler on
the configuration manifold), which trusts the model completely: good for learning the API,
not for judging a controller (the demos run against MuJoCo for that).
"""

import numpy as np
import pinocchio as pin

import tsid_py as tp

robot = tp.robots.load("talos")
dt = 1e-3
solver = tp.DynamicsSolver(robot, dt=dt)
for foot in robot.feet:                                      # both soles flat on the ground
    solver.add_contact(tp.PlanarContact(foot, length=0.20, width=0.13, mu=0.8))
com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))     # soft: a weighted cost
solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=100.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
solver.add_constraint(tp.constraints.TorqueLimits())

q, v = robot.q_ref.copy(), robot.zero_velocity()
robot.update(q, v)
start = robot.com.copy()
com.set_target(start + [0.0, 0.03, 0.0])                    # 3 cm to the left

for step in range(1000):                                     # 1 s of control at 1 kHz
    sol = solver.solve(q, v)                                 # q̈, τ and the contact wrenches
    v = v + dt * sol.ddq
    q = pin.integrate(robot.model, q, dt * v)

print("CoM moved (m):", np.round(robot.com - start, 4))
print("CoM error (m):", np.linalg.norm(com.error))
print("left foot wrench [f; m]:", np.round(sol.wrenches["left_sole_link"], 1))
print("largest torque (N·m):", np.abs(sol.tau_actuated).max().round(1))
