"""Go2 trots 1 m while turning, then stops, in MuJoCo: the quadruped controller.

The ``QuadrupedController`` runs the gait (which feet swing when), the footholds
(Raibert's rule and the capture point), swing feet that land when their force
sensors feel the ground, and a model-predictive control of the centroidal
dynamics that plans the feet's forces; ``tsid-py demo trot`` runs it with the
demo's figure. Good: 1 m covered while turning about 35°, every swing landed,
and the base back at its standing height.

    python examples/trot.py [--video trot.mp4]
"""

import numpy as np

import tsid_py as tp
from tsid_py.control.quadruped import QuadrupedController
from tsid_py.scenarios.video import Watchers
from tsid_py.sim import Simulation
from tsid_py.sim.contact import WALKING_CONTACT
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=None, plot=False)
robot = tp.robots.load("go2")
sim = Simulation(robot, contact=WALKING_CONTACT, visual=bool(options.video))
controller = QuadrupedController(robot, dt=sim.timestep)
camera = Watchers(sim, video=options.video)
mpc = controller.mpc
print(f"swing {controller.swing_time:.3f} s, MPC every {mpc.step * 1e3:.0f} ms "
      f"({controller.mpc_rate:.0f} Hz) over {mpc.horizon * mpc.step:.2f} s")


def step():
    q, v = sim.state()
    camera.before_step()
    # the feet's forces from the simulator: touch-down on contact
    sim.step(controller.step(q, v, sim.contact_wrenches()).tau_actuated)


start = sim.state()[0][:2]
# m/s forward, rad/s; gait "trot", "walk", "pace" or "bound"
controller.walk(forward=0.5, yaw_rate=0.3, gait="trot")
while np.linalg.norm(sim.state()[0][:2] - start) < 1.0:
    step()
controller.stop()                       # the feet in the air land; it stands
while not controller.standing:
    step()
camera.close()

q = sim.state()[0]
x, y, z, w = q[3:7]                     # the base's quaternion
yaw = np.degrees(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
touchdowns = sum(foot.touchdowns for foot in controller.feet)
print(f"moved {np.linalg.norm(q[:2] - start):.2f} m, turned {yaw:.0f}°, "
      f"{touchdowns} touch-downs, base height {q[2]:.3f} m")
print(f"good: 1 m, a turn of about 35° (0.3 rad/s for the 2 s it takes), "
      f"the base back at {robot.q_ref[2]:.3f} m")
