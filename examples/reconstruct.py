"""Recover torques and ground-reaction forces from recorded positions alone."""


import tsid_py as tp
import tsid_py.scenarios.demos

robot = tp.robots.load("talos")
run = tp.sim.demos.reconstruct(duration=2.0)      # simulate a sway with a squat in MuJoCo, then invert
print({key: value for key, value in run.summary.items() if "error" in key or key == "id_solve_seconds"})

# With your own recording `positions` (T, nq) sampled every dt seconds:
#   result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)
#   result.tau (T-2, nv), result.wrenches (T-2, 2, 6), result.relaxed_frames (impacts)
# The contact bounds (friction 1, the robot's soles) are on by default; friction=None turns them off.
# Many recordings in parallel (a local Dask cluster, or client=your dask.distributed.Client):
#   batch = tp.inverse_dynamics_over_time_batch("talos", [(positions, dt, robot.feet), ...])
#   batch.results[i], batch.errors  # {index: "ValueError: ..."} for recordings that failed
# From the shell: tsid-py inverse-dynamics motion.npz --robot talos --dt 0.001 --out result.npz
