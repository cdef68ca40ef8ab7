"""A first control loop, without a simulator: Talos moves its CoM 3 cm sideways.

The state is advanced by integrating the solver's own accelerations
(semi-implicit Euler on the configuration manifold), which trusts the model
completely: good for learning the API, not for judging a controller (the demos
and the other examples run against MuJoCo for that). Good: the CoM 3 cm to the
left within a millimetre after 1 s, the soles still sharing the weight about
evenly (their centres of pressure move left instead).
"""

import numpy as np
import pinocchio as pin

import tsid_py as tp

robot = tp.robots.load("talos")
dt = 1e-3
solver = tp.DynamicsSolver(robot, dt=dt)
for foot in robot.feet:                       # both soles flat on the ground
    solver.add_contact(tp.PlanarContact(foot, length=0.20, width=0.13, mu=0.8))
# soft tasks: weighted costs
com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))
solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=100.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
solver.add_constraint(tp.constraints.TorqueLimits())

q, v = robot.q_ref.copy(), robot.zero_velocity()
robot.update(q, v)
start = robot.com.copy()
com.set_target(start + [0.0, 0.03, 0.0])      # 3 cm to the left

for step in range(1000):                      # 1 s of control at 1 kHz
    sol = solver.solve(q, v)                  # q̈, τ and the contact wrenches
    v = v + dt * sol.ddq
    q = pin.integrate(robot.model, q, dt * v)

moved = 100 * (robot.com - start)
print(f"CoM moved {moved[1]:.2f} cm left, {moved[0]:.2f} cm forward, "
      f"{moved[2]:.2f} cm up; error {1e3 * np.linalg.norm(com.error):.1f} mm")
left, right = (sol.wrenches[foot] for foot in robot.feet)
print(f"normal forces: left sole {left[2]:.0f} N, right sole {right[2]:.0f} N "
      f"(weight {robot.weight:.0f} N)")
print(f"largest torque {np.abs(sol.tau_actuated).max():.0f} N·m")
print("good: 3 cm left within a millimetre, the weight shared about evenly")
