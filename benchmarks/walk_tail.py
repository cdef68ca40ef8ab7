"""Count the walking control steps that miss a 1 kHz period, and tell what they were doing.

    python benchmarks/walk_tail.py [--robot g1] [--push-at 4.0] [--push -100] [--json FILE]

A 3 m walk in MuJoCo (:func:`tsid_py.scenarios.walk.run_walk`), pushed along −y/+y at the
base for 0.1 s at ``--push-at`` s (``--push 0``: not pushed), the whole
:meth:`~tsid_py.control.walking.WalkingController.step` timed, one BLAS thread on one core.
Each step over 1 ms is counted as a **configuration change** (the solver's
``configuration_epoch`` moved: a contact made or broken, a swing task added or removed, a
force ramp started or ended), a **re-aim** (the plan stage checked its adjustment to a push:
a two-step capture chosen and the walk re-planned) or other. Also reported: the layouts the
solver built (:attr:`~tsid_py.DynamicsSolver.layouts_built`) and the median of the steps
with a configuration change. Only counters are kept per step: nothing else is timed.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

import tsid_py as tp
from tsid_py.control.walking import WalkingController, stages
from tsid_py.scenarios.reports import write_json
from tsid_py.scenarios.walk import run_walk


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="g1")
    parser.add_argument("--push-at", type=float, default=4.0, help="s from the run's start (default 4.0)")
    parser.add_argument("--push", type=float, default=-100.0, help="N along y for 0.1 s (default -100; 0: none)")
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    checks, records, controllers = [0], [], []
    check, step = stages.PlanStage._check_adjustment, WalkingController.step

    def counted_check(stage, *arguments, **options):
        checks[0] += 1
        return check(stage, *arguments, **options)

    def timed_step(controller, *arguments, **options):
        epoch, checked = controller.solver.configuration_epoch, checks[0]
        tic = time.perf_counter()
        solution = step(controller, *arguments, **options)
        records.append((time.perf_counter() - tic, controller.solver.configuration_epoch != epoch,
                        checks[0] != checked))
        if not controllers:
            controllers.append(controller)
        return solution

    pushes = [(args.push_at, np.array([0.0, args.push, 0.0]), 0.1)] if args.push else []
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
    stages.PlanStage._check_adjustment, WalkingController.step = counted_check, timed_step
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            if allowed:
                os.sched_setaffinity(0, {max(allowed)})
            run_walk(tp.robots.load(args.robot), distance=3.0, pushes=pushes)
    finally:
        stages.PlanStage._check_adjustment, WalkingController.step = check, step
        if allowed:
            os.sched_setaffinity(0, allowed)
    seconds = np.array([record[0] for record in records])
    changed = np.array([record[1] for record in records])
    reaimed = np.array([record[2] for record in records]) & ~changed
    slow = seconds > 1e-3
    report = {"robot": args.robot, "steps": int(seconds.size), "over_1ms": int(slow.sum()),
              "over_1ms_configuration_change": int(np.sum(slow & changed)),
              "over_1ms_reaim": int(np.sum(slow & reaimed)), "over_1ms_other": int(np.sum(slow & ~changed & ~reaimed)),
              "configuration_changes": int(changed.sum()),
              "configuration_change_median_us": float(np.median(seconds[changed]) * 1e6),
              "median_us": float(np.median(seconds) * 1e6), "layouts_built": controllers[0].solver.layouts_built}
    print(" ".join(f"{key}={value:.1f}" if isinstance(value, float) else f"{key}={value}"
                   for key, value in report.items()))
    if args.json:
        write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
