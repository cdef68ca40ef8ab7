"""Push sweep of the balance controller: per direction, the largest push survived, the
largest recovered cleanly, and the capture-point bounds beside them.

    python benchmarks/balance_sweep.py [--robot talos] [--directions +x -x +y -y] [--step 10]
        [--stance double|single] [--actuation-delay 0.002] [--trunk-mass 1.1] [--json FILE]

Each run is one 0.1 s push on the base at t = 1 s (single stance: at 2 s, after the CoM
shift and the foot lift), judged by ``tsid_py.sim.push_recovery`` (survived: not fallen —
base below 70 % of its start height, a sole tipped past 15° or slid 5 cm — and come to rest
after the push, the capture point back inside the soles; clean: survived with the soles
within 2° and 1 cm).
The targets printed are the issue's: survive every push up to 0.9 × the CoP-at-edge bound
(single stance: 0.8 ×), recover cleanly up to 0.75 × the impulse bound.
"""

from __future__ import annotations

import argparse
import json
import time

import tsid_py as tp
from tsid_py.control.capture_point import DIRECTIONS
from tsid_py.sim.sweep import sweep_direction


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--directions", nargs="+", default=list(DIRECTIONS), choices=list(DIRECTIONS))
    parser.add_argument("--step", type=float, default=10.0, help="force grid, N")
    parser.add_argument("--stance", default="double", choices=["double", "single"])
    parser.add_argument("--actuation-delay", type=float, default=0.0, help="s")
    parser.add_argument("--trunk-mass", type=float, default=1.0, help="factor on the simulated torso and base mass")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    robot = tp.robots.load(args.robot)
    survive_ratio = 0.8 if args.stance == "single" else 0.9
    reports = []
    print(f"{args.robot} ({args.stance} stance, delay {args.actuation_delay * 1e3:.1f} ms,"
          f" trunk mass ×{args.trunk_mass}), {args.step:.0f} N grid")
    print(f"{'dir':4s} {'survived':>9s} {'target':>7s} {'clean':>7s} {'target':>7s} {'edge':>7s} {'impulse':>8s}"
          f" {'1st fall':>9s} {'monotonic':>9s} {'policy':>6s} {'errors':>6s} {'time':>6s}")
    for direction in args.directions:
        tic = time.time()
        report = sweep_direction(robot, direction, step=args.step, stance=args.stance,
                                 actuation_delay=args.actuation_delay, trunk_mass=args.trunk_mass)
        report["survive_target"] = survive_ratio * report["bound_cop_at_edge"]
        report["clean_target"] = 0.75 * report["bound_impulse"]
        report["seconds"] = time.time() - tic
        reports.append(report)
        print(f"{direction:4s} {report['survived_up_to']:9.0f} {report['survive_target']:7.0f}"
              f" {report['clean_up_to']:7.0f} {report['clean_target']:7.0f} {report['bound_cop_at_edge']:7.0f}"
              f" {report['bound_impulse']:8.0f} {report['first_fall'] or float('nan'):9.0f}"
              f" {report['monotonic']!s:>9s} {report['policy_steps']:6d} {len(report['errors']):6d}"
              f" {report['seconds']:5.0f}s", flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(reports, handle, indent=2)
    return reports


if __name__ == "__main__":
    main()
