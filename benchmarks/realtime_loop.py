"""The real-time loop harness at 1 kHz: the balance controller in its own process against
MuJoCo, pushes every 5 s; deadline misses by cause and the latency distribution.

    python benchmarks/realtime_loop.py [--duration 60] [--rate 1000] [--robot talos] [--wait pipe|spin] [--no-prepare]
                                         [--json FILE]

See :mod:`tsid_py.scenarios.realtime` for what is measured and how misses are attributed.
"""

from __future__ import annotations

import argparse
import json

from tsid_py import robots
from tsid_py.scenarios.realtime import run_realtime
from tsid_py.scenarios.reports import write_json


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--robot", default=robots.DEFAULT_HUMANOID)
    parser.add_argument("--wait", choices=["pipe", "spin"], default="pipe",
                        help="how the processes signal each other: blocking pipes, or polling shared memory")
    parser.add_argument("--no-prepare", action="store_true",
                        help="do not build the controller's layouts before the loop (the first softened sole builds one)")
    parser.add_argument("--no-refill", action="store_true",
                        help="a new solution each step (the general step) instead of one refilled (the steady step)")
    parser.add_argument("--realtime-priority", type=int,
                        help="SCHED_FIFO priority 1-99 for both processes (root or CAP_SYS_NICE)")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    report = run_realtime(args.robot, args.duration, args.rate, wait=args.wait, prepare=not args.no_prepare,
                          realtime_priority=args.realtime_priority, refill=not args.no_refill)
    print(json.dumps(report, indent=2))
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
