"""Soak: the reference balance controller in MuJoCo with random pushes and contact switches
(ramped and instant), for every listed backend.

    python benchmarks/soak.py [--steps 20000] [--seed 0] [--robot talos]
                              [--qp-solver reduced proxsuite osqp daqp quadprog proxqp] [--json FILE]

Prints, per backend, the counts of false failures, infeasible steps, NaN outputs and falls
(false failures, NaNs and falls must be 0), the pushes and contact switches made, step
times, and the resident memory at the first and last thousandth step (see
tsid_py/sim/soak.py for the schedule).
"""

from __future__ import annotations

import argparse
import json

from tsid_py.scenarios.reports import write_json
from tsid_py.scenarios.soak import soak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--qp-solver", nargs="+", default=["reduced", "proxsuite", "osqp", "daqp", "quadprog", "proxqp"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--json")
    args = parser.parse_args()
    report = []
    for qp_solver in args.qp_solver:
        report.append(soak(args.steps, robot=args.robot, seed=args.seed, qp_solver=qp_solver))
        print(json.dumps(report[-1]), flush=True)
    write_json(args.json, report)


if __name__ == "__main__":
    main()
