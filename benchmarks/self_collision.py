"""Self-collision avoidance in MuJoCo: hands driven through each other, and random hand targets.

    python benchmarks/self_collision.py [--robot talos] [--seeds 0,1,2,3,4] [--duration 10] [--json FILE]

On a humanoid standing under the balance controller, with its collision geometry colliding
in the plant (:mod:`tsid_py.scenarios.self_collision`):

* **crossing**: both hands driven past each other in front of the chest, with and without a
  :class:`~tsid_py.constraints.SelfCollisionAvoidance` (default settings);
* **random targets**: ``--duration`` s of random hand targets, per seed, with the constraint
  (and, for the first seed, without).

Each row: fell, the smallest distance MuJoCo measured between the watched pairs (mm, and the
pair), the safety distance, the most contacts MuJoCo found between them at once, the steps
the failure policy had to relax (an infeasible QP), the most pairs with rows in a step, and
the median control step. Results are in ``docs/constraints.md`` (Self-collision avoidance).
"""

from __future__ import annotations

import argparse

import tsid_py as tp
from tsid_py.bench import write_json
from tsid_py.scenarios.self_collision import crossing_trial, random_targets_trial


def _row(label: str, summary: dict) -> str:
    pair = " / ".join(summary["closest_pair"] or ["-"])
    return (f"{label:<34} fell {str(summary['fell']):5}  closest {summary['closest_mm']:7.2f} mm ({pair}), "
            f"d_s {summary['safety_distance_mm']:.2f} mm  contacts {summary['self_contacts_max']:2d}  "
            f"relaxed {summary['relaxed_steps']:3d}  rows {summary['rows_max']:2d}  "
            f"step {summary['median_step_us']:6.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    runs = []
    for avoid in (False, True):
        summary = crossing_trial(tp.robots.load(args.robot), avoid=avoid)
        runs.append(summary)
        print(_row(f"crossing, avoidance {'on' if avoid else 'off'}", summary), flush=True)
    seeds = [int(seed) for seed in args.seeds.split(",")]
    for index, seed in enumerate(seeds):
        for avoid in ((True, False) if index == 0 else (True,)):
            summary = random_targets_trial(tp.robots.load(args.robot), seed=seed, avoid=avoid, duration=args.duration)
            runs.append(summary)
            print(_row(f"random seed {seed}, avoidance {'on' if avoid else 'off'}", summary), flush=True)
    write_json(args.json, {"robot": args.robot, "runs": runs})


if __name__ == "__main__":
    main()
