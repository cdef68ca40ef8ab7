"""Recover torques and ground-reaction forces from recorded positions alone."""


import tsid_py as tp
import tsid_py.sim.demos

robot = tp.robots.load("talos")
run = tp.sim.demos.reconstruct(duration=2.0)      # simulate the CoM sway in MuJoCo, then invert
print({key: value for key, value in run.summary.items() if "error" in key or key == "id_solve_seconds"})

# With your own recording `positions` (T, nq) sampled every dt seconds:
#   result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)
#   result.tau (T-2, nv), result.wrenches (T-2, 2, 6)
