"""Go2 on its four point feet bobs its body 2 cm up and down at 1 Hz, in MuJoCo.

Each foot is a ``PointContact`` (a force, no moment); the CoM task is given
the bob's velocity and acceleration as feed-forward. The posture task weighs
little (1e-4): on four feet every body motion moves the legs' joints away from
the posture, and at the usual 1e-2 it held the CoM back by a centimetre. Good
tracking is an error of a millimetre or two on the 2 cm bob.

    python examples/quadruped.py [--duration S] [--plot bob.png] [--video F.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=3.0)
robot = tp.robots.load("go2")                          # or "solo12"
sim = Simulation(robot, visual=bool(options.video))
solver = tp.DynamicsSolver(robot, dt=sim.timestep)
for foot in robot.feet:                                # the bottom of each foot
    solver.add_contact(tp.PointContact(foot, mu=0.8))
com = solver.add_task(tp.tasks.CoMTask(kp=100.0))
solver.add_task(tp.tasks.OrientationTask("root_joint", np.eye(3), kp=100.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=30.0, weight=1e-4))
solver.add_constraint(tp.constraints.TorqueLimits())
centre = com.position_ref.copy()
amplitude, omega = 0.02, 2 * np.pi                     # m, rad/s
camera = Watchers(sim, video=options.video)
times, errors = [], []

for step in range(round(options.duration / sim.timestep)):
    t = step * sim.timestep
    s, c = np.sin(omega * t), np.cos(omega * t)
    com.set_target(centre + [0, 0, amplitude * s],
                   velocity=[0, 0, amplitude * omega * c],
                   acceleration=[0, 0, -amplitude * omega**2 * s])
    q, v = sim.state()
    camera.before_step()
    sim.step(solver.solve(q, v).tau_actuated)
    times.append(t)
    errors.append(np.linalg.norm(com.error))
camera.close()

errors = 1e3 * np.array(errors)                        # mm
print(f"CoM tracking error: RMS {np.sqrt(np.mean(errors**2)):.1f} mm, "
      f"largest {errors.max():.1f} mm on a 20 mm bob")
print("good: a millimetre or two")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    axis.plot(times, errors)
    axis.set(xlabel="time (s)", ylabel="mm", title="Go2's CoM tracking error")
    figure.savefig(options.plot)
