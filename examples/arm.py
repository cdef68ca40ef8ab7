"""Panda's hand follows a 5 cm circle at 0.5 Hz under torque control, in MuJoCo.

The hand's position task is given the circle's velocity and acceleration as
feed-forward, so that its PD terms only correct what is left. Good tracking is
an RMS error of a millimetre or two, on a circle the hand runs at 16 cm/s.

    python examples/arm.py [--duration S] [--plot arm.png] [--video arm.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=4.0)
robot = tp.robots.load("panda")
sim = Simulation(robot, visual=bool(options.video))     # MuJoCo, same URDF
solver = tp.DynamicsSolver(robot, dt=sim.timestep)
hand = solver.add_task(tp.tasks.PositionTask("panda_hand", kp=200.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=20.0, weight=1e-3))
solver.add_constraint(tp.constraints.TorqueLimits())
centre = hand.target.translation.copy()
radius, omega = 0.05, np.pi                             # m, rad/s
camera = Watchers(sim, video=options.video)
errors, path = [], []

for step in range(round(options.duration / sim.timestep)):
    t = step * sim.timestep
    s, c = np.sin(omega * t), np.cos(omega * t)
    hand.set_target(centre + radius * np.array([0, c - 1, s]),
                    velocity=radius * omega * np.array([0, -s, c]),
                    acceleration=-radius * omega**2 * np.array([0, c, s]))
    q, v = sim.state()
    camera.before_step()
    sim.step(solver.solve(q, v).tau_actuated)
    errors.append(np.linalg.norm(hand.error))           # at the solved state
    path.append(hand.target.translation - hand.error)   # where the hand was
camera.close()

errors = 1e3 * np.array(errors)                         # mm
print(f"hand tracking error: RMS {np.sqrt(np.mean(errors**2)):.1f} mm, "
      f"largest {errors.max():.1f} mm")
print("good: an RMS error of a millimetre or two on the 50 mm circle")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5, 5), layout="constrained")
    axis = figure.subplots()
    angle = np.linspace(0, 2 * np.pi, 200)
    axis.plot(100 * radius * (np.cos(angle) - 1), 100 * radius * np.sin(angle),
              "k--", label="target circle")
    path = 100 * (np.array(path) - centre)
    axis.plot(path[:, 1], path[:, 2], label="hand (MuJoCo)")
    axis.set(xlabel="y (cm)", ylabel="z (cm)", aspect="equal",
             title="Panda's hand, seen from the front")
    axis.legend()
    figure.savefig(options.plot)
