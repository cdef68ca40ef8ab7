"""The control step's cost with and without self-collision avoidance, interleaved.

    python benchmarks/self_collision_step.py [--robot talos] [--rounds 5] [--steps 1000] [--still] [--json FILE]

The reference problem of ``tsid-py bench`` (:class:`tsid_py.bench.ReferenceProblem`: the
robot standing, its CoM swaying 4 cm at 0.5 Hz; with ``--still``, held at its reference
posture: no pair comes within activation) timed in alternating rounds with and without a
:class:`~tsid_py.constraints.SelfCollisionAvoidance` (default settings), one core and one
BLAS thread (:func:`tsid_py.loop.prepare_loop`); medians over all rounds, the steps in which
the constraint computed an exact distance, and the most rows in a step. Results are in
``docs/constraints.md`` (Self-collision avoidance).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tsid_py as tp
from tsid_py.bench import ReferenceProblem, write_json
from tsid_py.loop import prepare_loop


def timed_round(problem: ReferenceProblem, steps: int, constraint=None, still: bool = False):
    """``steps`` timed steps (µs) and, with ``constraint``, per step its rows and whether it
    computed an exact distance."""
    times, rows, computed = [], [], []
    q, v = problem.robot.q_ref, problem.robot.zero_velocity()
    with prepare_loop():
        for _ in range(steps):
            if still:
                tic = time.perf_counter()
                problem.solver.solve(q, v)
                times.append((time.perf_counter() - tic) * 1e6)
            else:
                times.append(problem.step() * 1e6)
            if constraint is not None:
                rows.append(len(constraint.active_pairs))
                computed.append(len(constraint.evaluated_pairs()) > 0)
    return times, rows, computed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--still", action="store_true", help="hold the reference posture instead of the sway")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    plain, guarded = ReferenceProblem(args.robot), ReferenceProblem(args.robot)
    constraint = guarded.solver.add_constraint(tp.constraints.SelfCollisionAvoidance())
    for problem in (plain, guarded):
        for _ in range(args.warmup):
            problem.step()
    times = {"off": [], "on": []}
    rows, computed = [], []
    for _ in range(args.rounds):
        times["off"] += timed_round(plain, args.steps, still=args.still)[0]
        on, counts, exact = timed_round(guarded, args.steps, constraint, still=args.still)
        times["on"] += on
        rows += counts
        computed += exact
    report = {"robot": args.robot, "steps": args.rounds * args.steps, "pairs": len(constraint.pairs.pieces),
              "distances_m": constraint.distances,
              **{f"median_{key}_us": float(np.median(value)) for key, value in times.items()},
              **{f"p99_{key}_us": float(np.percentile(value, 99)) for key, value in times.items()},
              "rows_per_step_max": int(max(rows)), "still": args.still,
              "steps_with_an_exact_distance": float(np.mean(computed))}
    report["ratio"] = report["median_on_us"] / report["median_off_us"]
    print(f"{args.robot}: {report['pairs']} pairs, median off {report['median_off_us']:.1f} µs, on "
          f"{report['median_on_us']:.1f} µs ({100 * (report['ratio'] - 1):+.1f} %); p99 off {report['p99_off_us']:.1f}"
          f" µs, on {report['p99_on_us']:.1f} µs; rows per step at most {report['rows_per_step_max']}; an exact "
          f"distance in {100 * report['steps_with_an_exact_distance']:.0f} % of the steps")
    write_json(args.json, report)


if __name__ == "__main__":
    main()
