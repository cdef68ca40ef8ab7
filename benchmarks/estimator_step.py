"""The balance controller's step with the state estimator at its head against the step
without it, in interleaved runs of ``tsid-py demo balance``.

    python benchmarks/estimator_step.py [--base /path/to/other/checkout] [--rounds 5]
        [--robot talos] [--duration 3] [--json FILE]

Each round runs, one after the other, ``tsid-py demo balance --ground-truth`` (the controller
on the simulator's exact state: today's step), ``tsid-py demo balance`` (the estimator on exact
sensors, the demo's default) and ``tsid-py demo balance --realistic`` (the estimator on noisy
sensors) in this checkout, and — with ``--base`` — ``tsid-py demo balance`` in another
checkout (e.g. the main branch before the estimator), each in its own process; it reports
the median of the runs' ``median_step_us`` (the controller's step as the demo times it: the
estimation stage included, the simulation and the sensors' simulation not). The machine's
load changes between runs: compare medians of interleaved rounds, not single runs. Each
variant's ratio to the ground truth's step within a round (runs seconds apart) is reported
too, with its median over the rounds: it follows the load less than the ratio of medians.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent


def run(checkout: Path, robot: str, duration: float, options: list[str]) -> float:
    """One demo run in ``checkout``; its median step, µs."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        env = dict(os.environ, PYTHONPATH=str(checkout))
        subprocess.run([sys.executable, "-W", "ignore", "-m", "tsid_py.cli", "demo", "balance", "--robot", robot,
                        "--duration", str(duration), "--json", str(out), *options],
                       env=env, cwd=checkout, check=False, stdout=subprocess.DEVNULL)
        return float(json.loads(out.read_text())["median_step_us"])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to time `tsid-py demo balance` in")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    variants = {"ground truth": (HERE, ["--ground-truth"]), "estimator": (HERE, []),
                "estimator, realistic": (HERE, ["--realistic"])}
    if args.base is not None:
        variants = {"base checkout": (args.base, []), **variants}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(args.rounds):
        for name, (checkout, options) in variants.items():
            times[name].append(run(checkout, args.robot, args.duration, options))
        print(f"round {round_ + 1}: " + ", ".join(f"{name} {values[-1]:.1f}" for name, values in times.items()),
              flush=True)
    reference = "base checkout" if args.base is not None else "ground truth"
    medians = {name: float(np.median(values)) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name:22s} median {value:7.1f} us  ({value / medians[reference] - 1:+.1%} vs {reference})")
    truth = times["ground truth"]
    ratios = {name: [value / truth_value - 1 for value, truth_value in zip(values, truth)]
              for name, values in times.items() if name != "ground truth"}
    for name, values in ratios.items():
        print(f"{name:22s} per round {', '.join(f'{value:+.1%}' for value in values)}  (median "
              f"{np.median(values):+.1%} vs ground truth)")
    report = {"robot": args.robot, "rounds": args.rounds, "times_us": times, "medians_us": medians,
              "round_ratios": {name: [float(value) for value in values] for name, values in ratios.items()}}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
