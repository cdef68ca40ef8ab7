"""Shift the CoM over the left foot, release the right foot smoothly and lift it."""

import tsid_py as tp
from tsid_py.sim import Simulation
from tsid_py.control.reference import humanoid_balance

robot = tp.robots.load("talos")
sim = Simulation(robot)
controller = humanoid_balance(robot, dt=sim.timestep)
solver, (left, right) = controller.solver, robot.feet
robot.update(robot.q_ref, robot.zero_velocity())
start = robot.com.copy()
over_left = start.copy()
over_left[:2] = robot.frame_placement(robot.frame_id(left)).translation[:2]
foot_task = None

for step in range(4000):
    t = step * sim.timestep
    if t < 1.5:                                            # shift the weight
        controller.com.set_target(start + min(t / 1.2, 1.0) * (over_left - start))
    elif foot_task is None:                                # unload over 0.1 s, then hold the foot
        solver.remove_contact(right, transition=0.1)
        foot_task = solver.add_task(tp.tasks.FrameTask(right, kp=300.0, weight=10.0))
        lifted = foot_task.target.copy()
    elif t > 1.7:                                          # lift it 5 cm
        lifted.translation[2] = min(0.05, (t - 1.7) * 0.1)
        foot_task.set_target(lifted)
    q, v = sim.state()
    sim.step(solver.solve(q, v).tau_actuated)

print("standing on one foot; base height", sim.state()[0][2])
