"""Talos keeps its balance in MuJoCo when pushed sideways: BalanceController.

One push on the base at 1 s, for 0.1 s, of 80 % of the largest push its soles
can take without a step (``push_bounds``: the capture point's bound, the centre
of pressure held at the soles' edge). The controller reads the simulator's exact
state; ``tsid-py demo balance --push-direction +y --push N --ground-truth`` runs
the same push with the demo's figure. Good: Talos stands, its CoM moves a few
centimetres and comes back, and no step needs the failure policy.

    python examples/balance.py [--duration S] [--plot F.png] [--video F.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.control import BalanceController, push_bounds
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=3.0)
robot = tp.robots.load("talos")
sim = Simulation(robot, visual=bool(options.video))     # MuJoCo, same URDF
# capture-point feedback, soles, torso, posture, torque and joint limits:
controller = BalanceController(robot, dt=sim.timestep)
bound = push_bounds(robot, duration=0.1)["+y"]          # N, the soles' limit
push, push_at = 0.8 * bound.cop_at_edge, 1.0
camera = Watchers(sim, video=options.video)
times, coms = [], []

for step in range(round(options.duration / sim.timestep)):
    t = step * sim.timestep
    if step == round(push_at / sim.timestep):
        sim.push([0.0, push, 0.0], duration=0.1)        # sideways, on the base
    q, v = sim.state()                                  # pinocchio's convention
    camera.before_step()
    solution = controller.step(q, v)    # never raises: .relaxed says what gave
    sim.step(solution.tau_actuated)
    times.append(t)
    coms.append(robot.com.copy())       # the robot's kinematics are at (q, v)
camera.close()

sideways = 100 * (np.array(coms)[:, 1] - coms[0][1])    # cm
height, start = sim.state()[0][2], robot.q_ref[2]
print(f"push +y {push:.0f} N for 0.1 s at {push_at:g} s "
      f"(80 % of the {bound.cop_at_edge:.0f} N the soles allow)")
print(f"CoM: {sideways.max():.1f} cm sideways at most, "
      f"{sideways[-1]:.1f} cm from its start at the end")
print(f"base height {height:.3f} m (standing: {start:.3f} m); "
      f"failure policy steps {sum(controller.policy.counts.values())}")
print("good: standing, the CoM back within a centimetre, no policy step")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    axis.axvspan(push_at, push_at + 0.1, color="tab:red", alpha=0.3,
                 label=f"push {push:.0f} N")
    axis.plot(times, sideways, label="CoM, sideways")
    axis.set(xlabel="time (s)", ylabel="cm", title="Talos pushed sideways")
    axis.legend()
    figure.savefig(options.plot)
