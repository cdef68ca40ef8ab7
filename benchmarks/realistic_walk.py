"""3 m walks under the ``--realistic`` conditions, and the estimator's drift against the
simulator over each.

    python benchmarks/realistic_walk.py [--robots talos g1] [--seeds 0 1 2 3 4] [--distance 3]
        [--feedback estimator|finite-differences|ground-truth] [--ideal-sensors] [--json FILE]

Each run is ``tsid_py.scenarios.walk.run_walk`` under
``tsid_py.scenarios.conditions.Conditions.realistic(seed)``: the robot stands 0.2 s, walks
the distance with its profile's gait and stands until the plan has settled. Reported per
run: fell, the distance the feet's midpoint moved, and the estimator's drift — the largest
and final horizontal position error (the base's, m) and yaw error (°) against the
simulator's truth, sampled every 10 ms. ``--ideal-sensors`` keeps the realistic plant but
exact sensors (the drift that is the feet's own slip).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import tsid_py as tp
from tsid_py.estimation import SensorSpec
from tsid_py.scenarios.conditions import FEEDBACK, Conditions
from tsid_py.scenarios.reports import write_json
from tsid_py.scenarios.walk import run_walk


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", default=["talos", "g1"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--distance", type=float, default=3.0)
    parser.add_argument("--feedback", choices=FEEDBACK, default="estimator")
    parser.add_argument("--ideal-sensors", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    results = []
    print(f"{'robot':6s} {'seed':>4s} {'fell':>5s} {'dist_m':>7s} {'steps':>5s} {'drift_mm':>8s} {'max_mm':>7s}"
          f" {'yaw°':>6s} {'max_yaw°':>8s} {'slip_mm':>7s} {'step_us':>7s} {'time':>5s}", flush=True)
    for name in args.robots:
        for seed in args.seeds:
            conditions = replace(Conditions.realistic(seed), feedback=args.feedback)
            if args.ideal_sensors:
                conditions = replace(conditions, sensors=SensorSpec())
            tic = time.time()
            summary, _, _ = run_walk(tp.robots.load(name), distance=args.distance, conditions=conditions)
            drift = summary.get("estimator_drift", {"final": {}, "max": {}})
            row = {"robot": name, "seed": seed, "fell": summary["fell"], "distance_m": summary["distance_m"],
                   "steps": summary["steps"], "planned_steps": summary["planned_steps"],
                   "drift_final_m": drift["final"].get("horizontal_m", float("nan")),
                   "drift_max_m": drift["max"].get("horizontal_m", float("nan")),
                   "yaw_final_deg": drift["final"].get("yaw_deg", float("nan")),
                   "yaw_max_deg": drift["max"].get("yaw_deg", float("nan")),
                   "max_sole_slip_m": summary["max_sole_slip_m"], "median_step_us": summary["median_step_us"],
                   "fall_reason": summary.get("fall_reason")}
            results.append(row)
            print(f"{Path(name).stem:6s} {seed:4d} {row['fell']!s:>5s} {row['distance_m']:7.2f} {row['steps']:5d}"
                  f" {row['drift_final_m'] * 1e3:8.1f} {row['drift_max_m'] * 1e3:7.1f} {row['yaw_final_deg']:6.2f}"
                  f" {row['yaw_max_deg']:8.2f} {row['max_sole_slip_m'] * 1e3:7.1f} {row['median_step_us']:7.0f}"
                  f" {time.time() - tic:4.0f}s", flush=True)
    walked = sum(not r["fell"] and r["distance_m"] > 0.95 * args.distance for r in results)
    print(f"walked {walked} of {len(results)}; largest drift {np.nanmax([r['drift_max_m'] for r in results]) * 1e3:.1f} mm,"
          f" largest yaw error {np.nanmax([r['yaw_max_deg'] for r in results]):.2f} deg")
    write_json(args.json, results)
    return results


if __name__ == "__main__":
    main()
