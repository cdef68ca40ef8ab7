"""What the flight recorder adds to a control step (issue 33: at most 5 %).

    python benchmarks/recorder_overhead.py [--robot talos] [--blocks 20] [--steps 500]

The reference balance problem of ``tsid-py bench`` (:class:`tsid_py.bench.ReferenceProblem`)
stepped in alternating blocks, one with a :class:`~tsid_py.scenarios.recorder.FlightRecorder`
attached and one without, in one process inside ``prepare_loop`` (one core, BLAS on one
thread, gc frozen): the machine's drift hits both alike. Each block's median step time (the
whole ``solver.solve``, the recorder's hooks included) is kept; the overhead is the median
over blocks of recorded / bare − 1.
"""

from __future__ import annotations

import argparse

import numpy as np

from tsid_py.bench import ReferenceProblem
from tsid_py.loop import prepare_loop
from tsid_py.scenarios.recorder import FlightRecorder


def block_median_us(problem: ReferenceProblem, steps: int) -> float:
    """The median of ``steps`` steps' times, µs."""
    return 1e6 * float(np.median([problem.step() for _ in range(steps)]))


def measure(robot: str, blocks: int, steps: int, warmup: int = 300) -> dict:
    """Per-block medians with and without the recorder, and the overhead (see the module)."""
    problem = ReferenceProblem(robot)
    recorder = FlightRecorder(problem.solver, capacity=blocks * steps + warmup)
    for _ in range(warmup):                    # compiles the recorder's kernels, fills caches
        problem.step()
    recorder.detach()
    bare, recorded = [], []
    with prepare_loop():
        for _ in range(blocks):
            bare.append(block_median_us(problem, steps))
            recorder.attach()
            recorded.append(block_median_us(problem, steps))
            recorder.detach()
    ratios = np.array(recorded) / np.array(bare)
    return {"robot": robot, "bare_us": float(np.median(bare)), "recorded_us": float(np.median(recorded)),
            "overhead": float(np.median(ratios) - 1.0), "steps_recorded": int(recorder.count)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", default=["talos"])
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args(argv)
    for robot in args.robot:
        report = measure(robot, args.blocks, args.steps)
        print(f"{robot:6s} bare {report['bare_us']:6.1f} µs  recorded {report['recorded_us']:6.1f} µs  "
              f"overhead {100 * report['overhead']:+5.1f} %  ({report['steps_recorded']} steps recorded)")


if __name__ == "__main__":
    main()
