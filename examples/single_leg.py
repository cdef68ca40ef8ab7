"""Talos stands on its left foot, lifts the right one 5 cm, then puts it down.

The CoM moves over the left sole; the right contact is removed with a 0.1 s
transition (its largest normal force ramps to zero, so the weight moves over
smoothly) and a frame task lifts the foot, holds it, and lowers it; the contact
is made again with a ramp and the CoM returns between the feet. Good: the foot
rises 5 cm, and at the end each sole carries about half the weight again.

    python examples/single_leg.py [--duration S] [--plot F.png] [--video F.mp4]

(the foot is held up for the duration less 4.1 s: 3.4 s by default)
"""

import numpy as np

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=7.5)
robot = tp.robots.load("talos")
sim = Simulation(robot, visual=bool(options.video))
controller = BalanceController(robot, dt=sim.timestep)
left, right = robot.feet
start = controller.com.position_ref.copy()
over_left = start.copy()
over_left[:2] = robot.frame_placement(robot.frame_id(left)).translation[:2]
home = robot.frame_placement(robot.frame_id(right)).copy()
hold = max(options.duration - 4.1, 0.0)
lift_at, down_at = 1.6, 2.1 + hold        # s: the foot rises, then comes down
back_at = down_at + 0.5                   # s: on the ground again
camera = Watchers(sim, video=options.video)
foot, times, heights = None, [], []


def smooth(r):                            # 0 → 1, minimum jerk, r within [0, 1]
    r = min(max(r, 0.0), 1.0)
    return r**3 * (10 - 15 * r + 6 * r**2)


for step in range(round(options.duration / sim.timestep)):
    t = step * sim.timestep
    if t < 1.5:                                   # weight over the left foot
        controller.com.set_target(start + smooth(t / 1.5) * (over_left - start))
    elif foot is None and t < back_at:            # unload the right foot
        controller.remove_contact(right, transition=0.1)
        foot = controller.solver.add_task(
            tp.tasks.FrameTask(right, home, kp=300.0, weight=10.0))
    elif foot is not None and t < back_at:        # lift, hold, lower
        target = home.copy()
        up = smooth((t - lift_at) / 0.5) - smooth((t - down_at) / 0.5)
        target.translation[2] += 0.05 * up
        foot.set_target(target)
    elif foot is not None:                        # load it again, CoM back
        controller.solver.remove_task(foot)
        controller.add_contact(right, transition=0.1)
        foot, shift_back = None, t
    elif t >= back_at:
        ratio = smooth((t - shift_back) / 1.5)
        controller.com.set_target(over_left + ratio * (start - over_left))
    q, v = sim.state()
    camera.before_step()
    sim.step(controller.step(q, v).tau_actuated)
    times.append(t)
    heights.append(sim.foot_pose(right)[1][2])
camera.close()

forces = sim.contact_wrenches()
print(f"right foot lifted {100 * max(heights):.1f} cm, "
      f"held up {hold:.1f} s")
print(f"at the end: left sole {forces[left][2]:.0f} N, right sole "
      f"{forces[right][2]:.0f} N (half the weight: {robot.weight / 2:.0f} N); "
      f"base height {sim.state()[0][2]:.3f} m")
print("good: the foot 5 cm up, then both soles near half the weight")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    axis.plot(times, 100 * np.array(heights))
    axis.set(xlabel="time (s)", ylabel="cm", title="right sole above the floor")
    figure.savefig(options.plot)
