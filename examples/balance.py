"""Talos keeps its balance in MuJoCo while being pushed: the loop of `tsid-py demo balance`."""

import tsid_py as tp
from tsid_py.control import BalanceController, push_bounds
from tsid_py.sim import Simulation

robot = tp.robots.load("talos")
sim = Simulation(robot, timestep=1e-3)                    # MuJoCo, same URDF
controller = BalanceController(robot, dt=1e-3)            # capture-point feedback, soles, torso, posture, limits

bound = push_bounds(robot, duration=0.1)["+y"]            # what the soles allow for a 0.1 s push
push = 0.8 * bound.cop_at_edge
for step in range(3000):                                  # 3 s
    if step == 1000:
        sim.push([0.0, push, 0.0], duration=0.1)          # sideways, on the base
    q, v = sim.state()                                    # pinocchio conventions
    sol = controller.step(q, v)                           # never raises: sol.relaxed says what gave way
    sim.step(sol.tau_actuated)

print(f"push {push:.0f} N (bound {bound.cop_at_edge:.0f} N): base height {sim.state()[0][2]:.3f} m,"
      f" failure policy steps {sum(controller.policy.counts.values())}")
