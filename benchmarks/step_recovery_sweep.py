"""Push sweep with step recovery: per direction, the largest push survived when the robot may
step, beside the no-step capture-point bounds.

    python benchmarks/step_recovery_sweep.py [--robot talos] [--directions=+x --directions=-y ...] [--step 20]
        [--max-ratio 1.6] [--json FILE]

Each run is one 0.1 s push on the base at t = 1 s, the controller a
``WalkingController(step_recovery=True)``, judged by ``tsid_py.scenarios.push_recovery`` (survived:
not fallen — base below 70 % of its start height, a sole in contact tipped past 15° or slid
5 cm from where its contact was made — and come to rest). The grid runs from ``step`` N to
``max-ratio`` × the CoP-at-edge bound. The target printed is issue 20's: 1.35 × the no-step
survival goal (0.9 × the CoP-at-edge bound), about 380 N along +x and 600 N along +y on Talos;
it is also run at its exact force (``@tgt``).
"""

from __future__ import annotations

import argparse
import time

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.control import push_bounds
from tsid_py.scenarios.sweep import add_sweep_arguments, sweep_direction, swept_directions

#: The stepping target, as a multiple of the no-step survival goal (0.9 × the CoP-at-edge bound).
TARGET_RATIO = 1.35 * 0.9


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sweep_arguments(parser, step=20.0)
    parser.add_argument("--max-ratio", type=float, default=1.6, help="grid end, × the CoP-at-edge bound")
    args = parser.parse_args(argv)
    robot = tp.robots.load(args.robot)
    bounds = push_bounds(robot, 0.1)
    print(f"{args.robot} with step recovery, {args.step:.0f} N grid")
    print(f"{'dir':4s} {'survived':>9s} {'1st fall':>9s} {'target':>7s} {'@tgt':>5s} {'edge':>6s}"
          f" {'stepped from':>12s} {'monotonic':>9s} {'errors':>6s} {'time':>6s}")
    reports = []
    for direction in swept_directions(args):
        tic = time.time()
        target = TARGET_RATIO * bounds[direction].cop_at_edge
        report = sweep_direction(robot, direction, step=args.step, step_recovery=True, checks=[round(target)],
                                 max_force=args.max_ratio * bounds[direction].cop_at_edge)
        stepped = [run["force"] for run in report["runs"] if run["recovery_steps"] > 0]
        check = report["check_runs"][0]
        report.update(target=target, seconds=time.time() - tic)
        reports.append(report)
        print(f"{direction:4s} {report['survived_up_to']:9.0f} {report['first_fall'] or float('nan'):9.0f}"
              f" {target:7.0f} {'S' if check['survived'] else '-':>5s} {report['bound_cop_at_edge']:6.0f}"
              f" {min(stepped, default=float('nan')):12.0f} {report['monotonic']!s:>9s}"
              f" {len(report['errors']):6d} {report['seconds']:5.0f}s", flush=True)
    write_json(args.json, reports)
    return reports


if __name__ == "__main__":
    main()
