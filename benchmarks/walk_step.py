"""Time the walking controller's control step while it walks in MuJoCo.

    python benchmarks/walk_step.py [--robot talos] [--distance 1.0 | --turn DEG]
        [--no-lift-off-timing] [--json FILE]

The whole :meth:`tsid_py.control.walking.WalkingController.step` is timed — moving the
targets along the plan (CoM, swing foot, torso), the contact events, the QP and the balance
controller's failure policy and contact monitor — not MuJoCo's step. One BLAS thread,
pinned to one core. Reported: the median and 99th percentile over the walk (from the first
control step of the plan to its end), and the median per phase (start, single support,
double support, end).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.control.walking import WalkingController
from tsid_py.sim import Simulation


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--distance", type=float, default=1.0, help="m forward (default 1)")
    parser.add_argument("--turn", type=float, help="degrees to turn in place instead")
    parser.add_argument("--no-lift-off-timing", dest="lift_off_timing", action="store_false",
                        help="lift-offs on the plan's clock (WalkingController's lift_off_timing off)")
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    robot = tp.robots.load(args.robot)
    sim = Simulation(robot)
    controller = WalkingController(robot, sim.timestep, lift_off_timing=args.lift_off_timing)
    times, phases = [], []
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
    with threadpool_limits(limits=1, user_api="blas"):
        if allowed:
            os.sched_setaffinity(0, {max(allowed)})
        try:
            for _ in range(200):                    # settle on the floor, warm the caches
                q, v = sim.state()
                sim.step(controller.step(q, v).tau_actuated)
            plan = (controller.turn(np.radians(args.turn)) if args.turn is not None
                    else controller.walk_distance(args.distance))
            while controller.walking:
                q, v = sim.state()
                phases.append(plan.phase_at(controller.time - controller.plan_start).kind)
                tic = time.perf_counter()
                solution = controller.step(q, v)
                times.append(time.perf_counter() - tic)
                sim.step(solution.tau_actuated)
        finally:
            if allowed:
                os.sched_setaffinity(0, allowed)
    times_us = np.array(times) * 1e6
    phases = np.array(phases)
    report = {"robot": args.robot, "lift_off_timing": args.lift_off_timing, "steps": len(times_us),
              "median_us": float(np.median(times_us)), "p99_us": float(np.percentile(times_us, 99)),
              "base_height_end": float(sim.state()[0][2]),
              "median_us_by_phase": {kind: float(np.median(times_us[phases == kind]))
                                     for kind in ("start", "single", "double", "end") if np.any(phases == kind)}}
    print(json.dumps(report, indent=2))
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
