"""Talos walks 1 m forward in MuJoCo, then stands: the walking controller.

``walk_distance`` plans the footsteps (the robot profile's gait), the CoM from
the linear inverted pendulum and the swing feet; each control step moves the
tasks along the plan, makes and breaks the contacts with force ramps and solves.
``tsid-py demo walk --distance 1`` runs the same walk with the demo's figure.
Good: 1 m forward within a few centimetres, no sideways drift, standing.

    python examples/walk.py [--video walk.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.control.walking import WalkingController
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=None, plot=False)
robot = tp.robots.load("talos")
sim = Simulation(robot, visual=bool(options.video))     # MuJoCo, same URDF
# a balance controller, footsteps, the LIPM's CoM, swing feet:
controller = WalkingController(robot, dt=sim.timestep)
camera = Watchers(sim, video=options.video)


def feet_midpoint():
    return np.mean([sim.sole_pose(foot)[1][:2] for foot in robot.feet], axis=0)


def step():
    q, v = sim.state()
    camera.before_step()
    solution = controller.step(q, v)    # never raises: .relaxed says what gave
    sim.step(solution.tau_actuated)


start = feet_midpoint()
for _ in range(200):                    # stand 0.2 s: the soles settle
    step()
plan = controller.walk_distance(1.0)    # or turn(angle), walk_velocity(...)
print(f"{len(plan.footsteps)} footsteps, {plan.duration:.1f} s")
while controller.walking:               # until the last step has settled
    step()
camera.close()

moved = feet_midpoint() - start
print(f"walked {moved[0]:.3f} m forward, {moved[1]:.3f} m sideways in "
      f"{controller.steps_taken} steps; base height {sim.state()[0][2]:.3f} m")
print("good: 1 m within a few cm, sideways within a few cm, the base at ~1 m")
