"""Push sweep of the balance controller: per direction, the largest push survived, the
largest recovered cleanly, and the capture-point bounds beside them.

    python benchmarks/balance_sweep.py [--robot talos] [--directions=+x --directions=-y ...] [--step 10]
        [--stance double|single] [--actuation-delay 0.002] [--trunk-mass 1.1] [--json FILE]

Each run is one 0.1 s push on the base at t = 1 s (single stance: at 2 s, after the CoM
shift and the foot lift), judged by ``tsid_py.scenarios.push_recovery`` (survived: not fallen —
base below 70 % of its start height, a sole tipped past 15° or slid 5 cm — and come to rest
after the push, the capture point back inside the soles; clean: survived with the soles
within 2° and 1 cm).
The targets printed are the issue's: survive every push up to 0.9 × the CoP-at-edge bound
(single stance: 0.8 ×), recover cleanly up to 0.75 × the impulse bound (double stance). The
targets fall between grid points, so each is also run at its exact force (``@tgt``: S
survived, C clean, ``-`` not); ``meets`` says whether every grid push up to the target and
the target itself passed.
"""

from __future__ import annotations

import argparse
import time

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.control import push_bounds
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.push_recovery import SingleLegStance
from tsid_py.scenarios.sweep import add_sweep_arguments, sweep_direction, swept_directions


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sweep_arguments(parser, step=10.0)
    parser.add_argument("--stance", default="double", choices=["double", "single"])
    parser.add_argument("--actuation-delay", type=float, default=0.0, help="s")
    parser.add_argument("--trunk-mass", type=float, default=1.0, help="factor on the simulated torso and base mass")
    parser.add_argument("--estimator", action="store_true",
                        help="the controller on the state estimator with exact sensors, as the demos run it "
                             "(default: on the simulator's exact state)")
    args = parser.parse_args(argv)
    conditions = Conditions() if args.estimator else None
    robot = tp.robots.load(args.robot)
    survive_ratio = 0.8 if args.stance == "single" else 0.9
    reports = []
    print(f"{args.robot} ({args.stance} stance, delay {args.actuation_delay * 1e3:.1f} ms,"
          f" trunk mass ×{args.trunk_mass}), {args.step:.0f} N grid")
    feet, com = SingleLegStance(robot).bounds_geometry() if args.stance == "single" else (None, None)
    bounds = push_bounds(robot, 0.1, feet=feet, com=com)
    print(f"{'dir':4s} {'survived':>9s} {'target':>7s} {'@tgt':>4s} {'clean':>7s} {'target':>7s} {'@tgt':>4s}"
          f" {'edge':>7s} {'impulse':>8s} {'1st fall':>9s} {'monotonic':>9s} {'policy':>6s} {'errors':>6s}"
          f" {'meets':>5s} {'time':>6s}")
    for direction in swept_directions(args):
        tic = time.time()
        survive_target = survive_ratio * bounds[direction].cop_at_edge
        clean_target = 0.75 * bounds[direction].impulse
        checks = [round(survive_target, 1)] + ([round(clean_target, 1)] if args.stance == "double" else [])
        report = sweep_direction(robot, direction, step=args.step, stance=args.stance, checks=checks,
                                 actuation_delay=args.actuation_delay, trunk_mass=args.trunk_mass,
                                 conditions=conditions)
        report["survive_target"], report["clean_target"] = survive_target, clean_target
        survive_check = report["check_runs"][0]
        clean_check = report["check_runs"][1] if args.stance == "double" else None
        meets = (report["survived_up_to"] >= args.step * (survive_target // args.step) and survive_check["survived"]
                 and report["monotonic"] and not report["errors"])
        if clean_check is not None:
            meets = meets and report["clean_up_to"] >= args.step * (clean_target // args.step) and clean_check["clean"]
        report["meets_targets"] = bool(meets)
        report["seconds"] = time.time() - tic
        reports.append(report)
        flags = [("C" if run["clean"] else "S" if run["survived"] else "-") for run in report["check_runs"]]
        print(f"{direction:4s} {report['survived_up_to']:9.0f} {survive_target:7.1f} {flags[0]:>4s}"
              f" {report['clean_up_to']:7.0f} {clean_target:7.1f} {(flags[1] if clean_check else ''):>4s}"
              f" {report['bound_cop_at_edge']:7.0f} {report['bound_impulse']:8.0f}"
              f" {report['first_fall'] or float('nan'):9.0f} {report['monotonic']!s:>9s} {report['policy_steps']:6d}"
              f" {len(report['errors']):6d} {meets!s:>5s} {report['seconds']:5.0f}s", flush=True)
    write_json(args.json, reports)
    return reports


if __name__ == "__main__":
    main()
