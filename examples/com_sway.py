"""Talos sways its centre of mass 4 cm sideways at 0.5 Hz, in MuJoCo.

The CoM task of the standing problem (``humanoid_balance``: both soles, CoM,
torso, posture, torque limits) is given the sway's velocity and acceleration as
feed-forward: the PD terms only correct what the model misses. Good tracking is
an error of a few millimetres on the 4 cm sway.

    python examples/com_sway.py [--duration S] [--plot sway.png] [--video F.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=4.0)
robot = tp.robots.load("talos")
sim = Simulation(robot, visual=bool(options.video))
controller = humanoid_balance(robot, dt=sim.timestep)  # a solver and its tasks
centre = controller.com.position_ref.copy()             # the CoM at q_ref
amplitude, omega = 0.04, 2 * np.pi * 0.5                # m, rad/s
camera = Watchers(sim, video=options.video)
times, measured, wanted = [], [], []

for step in range(round(options.duration / sim.timestep)):
    t = step * sim.timestep
    s, c = np.sin(omega * t), np.cos(omega * t)
    controller.com.set_target(
        centre + [0, amplitude * s, 0],
        velocity=[0, amplitude * omega * c, 0],
        acceleration=[0, -amplitude * omega**2 * s, 0])
    q, v = sim.state()
    camera.before_step()
    sim.step(controller.solver.solve(q, v).tau_actuated)
    times.append(t)
    measured.append(robot.com[1] - centre[1])           # at the solved state
    wanted.append(amplitude * s)
camera.close()

error = 1e3 * (np.array(measured) - wanted)             # mm
print(f"CoM tracking error: RMS {np.sqrt(np.mean(error**2)):.1f} mm, "
      f"largest {np.abs(error).max():.1f} mm on a 40 mm sway")
print("good: a few millimetres")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    axis.plot(times, 100 * np.array(wanted), "k--", label="reference")
    axis.plot(times, 100 * np.array(measured), label="CoM (MuJoCo)")
    axis.set(xlabel="time (s)", ylabel="sideways (cm)", title="CoM sway")
    axis.legend()
    figure.savefig(options.plot)
