"""Go2 trots 1 m forward while turning, then stops, in MuJoCo: the loop of `tsid-py demo trot`."""

import numpy as np

import tsid_py as tp
from tsid_py.control.quadruped import QuadrupedController
from tsid_py.sim import Simulation
from tsid_py.sim.contact import WALKING_CONTACT

robot = tp.robots.load("go2")
sim = Simulation(robot, contact=WALKING_CONTACT)         # MuJoCo, same URDF; built before the controller runs
controller = QuadrupedController(robot, dt=1e-3)         # gait, footholds, swing feet, MPC of the centroidal dynamics
print(f"swing {controller.swing_time:.3f} s, MPC every {controller.mpc.step * 1e3:.0f} ms "
      f"({controller.mpc_rate:.0f} Hz) over {controller.mpc.horizon * controller.mpc.step:.2f} s")

start = sim.state()[0][:2]
controller.walk(forward=0.5, yaw_rate=0.3, gait="trot")  # m/s, m/s sideways, rad/s; "walk", "pace", "bound"
while np.linalg.norm(sim.state()[0][:2] - start) < 1.0:
    q, v = sim.state()
    sol = controller.step(q, v, sim.contact_wrenches())  # the feet's forces: touch-down on contact
    sim.step(sol.tau_actuated)

controller.stop()                                        # the feet in the air land, then it stands
while not controller.standing:
    q, v = sim.state()
    sim.step(controller.step(q, v, sim.contact_wrenches()).tau_actuated)

q = sim.state()[0]
yaw = np.degrees(np.arctan2(2 * (q[6] * q[5] + q[3] * q[4]), 1 - 2 * (q[4] ** 2 + q[5] ** 2)))
print(f"moved {np.linalg.norm(q[:2] - start):.2f} m, turned {yaw:.0f}°, "
      f"{sum(foot.touchdowns for foot in controller.feet)} touch-downs, base height {q[2]:.3f} m")
