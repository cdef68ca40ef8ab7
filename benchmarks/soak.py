"""10 000 steps of the balance controller in MuJoCo with random pushes and contact switches.

    python benchmarks/soak.py [--steps 10000] [--seed 0] [--robot talos] [--json FILE]

Prints the counts of solver failures, NaN outputs and falls (all must be 0), the pushes and
contact switches made, step times, and the resident memory at the first and last
thousandth step (see tsid_py/sim/soak.py for the schedule).
"""

from __future__ import annotations

import argparse
import json

from tsid_py.bench import write_json
from tsid_py.sim.soak import soak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--json")
    args = parser.parse_args()
    report = soak(args.steps, robot=args.robot, seed=args.seed)
    print(json.dumps(report, indent=2))
    write_json(args.json, report)


if __name__ == "__main__":
    main()
