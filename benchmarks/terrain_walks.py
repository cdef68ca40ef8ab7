"""Walks on real floors: 3 m walks of the walk demo on terrains, over seeds, robots in MuJoCo.

    python benchmarks/terrain_walks.py [--robot talos g1] [--terrain slope:10 slope:-10 steps:0.05 rough:0.02 flat]
        [--friction MU ...] [--seeds 5] [--first-seed 0] [--distance 3] [--ideal] [--force-noise N] [--sole-impedance D]
        [--no-drive-estimate] [--workers 2] [--json FILE]

Each run is ``tsid-py demo walk --robot R --terrain T --realistic --friction MU --seed S`` (the
terrain sized to the robot and drawn with the seed: :mod:`tsid_py.scenarios.terrains`;
``flat`` is no terrain; ``--ideal``: the simulator's exact state and plant instead of the
``--realistic`` preset; ``--force-noise``: foot force sensors of that noise, N, so that swings
land on contact; ``--sole-impedance``: the soles' contact impedance,
:attr:`~tsid_py.sim.contact.ContactOptions.sole_impedance`, instead of MuJoCo's), judged by the demo (fell, distance between the feet's midpoints at the start and the
end; a walk whose plan is rejected — ``ValueError``, e.g. footholds that cross the legs — is
not done and its error reported). Reported per (robot, terrain, friction): walks completed of
the seeds, the distances, the worst sole slip and tilt, the estimator's largest horizontal
and yaw drift against the simulator (cm, degrees; none with ``--ideal``), early and late
touch-downs, the failure policy's relaxed steps, each walk's contact-state counts (softenings, hardenings flat on the contact's surface, hardenings at rest on another surface); each fall's time and reason, each rejected plan's error.
Runs go in ``--workers`` processes (MuJoCo is single threaded; timings are not the point).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tsid_py.scenarios.reports import write_json  # noqa: E402


def one_walk(job: tuple) -> dict:
    """One demo walk; its summary with the job's keys."""
    from threadpoolctl import threadpool_limits

    from tsid_py.scenarios.demos import walk

    from dataclasses import replace

    from tsid_py.scenarios.conditions import Conditions
    from tsid_py.scenarios.terrains import parse_terrain

    from tsid_py.sim.contact import ContactOptions

    robot, terrain, friction, seed, distance, ideal, force_noise, sole_impedance, drive_estimate = job
    conditions = Conditions(feedback="ground-truth", seed=seed) if ideal else Conditions.realistic(seed)
    conditions = replace(conditions, drive_estimate=(conditions.drive_estimate if drive_estimate is None
                                                     else drive_estimate and not ideal),
                         plant=replace(conditions.plant, friction=friction),
                         sensors=replace(conditions.sensors, force_noise=force_noise))
    keys = dict(robot=robot, terrain=terrain, friction=friction, seed=seed)
    with threadpool_limits(limits=1, user_api="blas"):
        try:
            run = walk(robot, terrain=parse_terrain(terrain), conditions=conditions, distance=distance,
                       contact=None if sole_impedance is None else ContactOptions(sole_impedance=sole_impedance))
        except ValueError as error:             # the walk's plan was rejected: no walk
            return {**keys, "plan_error": str(error)}
    summary = dict(run.summary)
    summary.pop("conditions", None)
    summary.update(keys)
    return summary


def table(results: list[dict], distance: float) -> list[dict]:
    """Per (robot, terrain, friction): walks completed (no fall, ≥ 95 % of the distance)."""
    rows = {}
    for result in results:
        key = (result["robot"], result["terrain"], result["friction"])
        rows.setdefault(key, []).append(result)
    report = []
    for (robot, terrain, friction), every in sorted(rows.items(), key=lambda item: str(item[0])):
        runs = [run for run in every if "plan_error" not in run]
        done = [run for run in runs if not run["fell"] and run["distance_m"] >= 0.95 * distance]
        report.append({
            "robot": robot, "terrain": terrain, "friction": friction, "completed": f"{len(done)}/{len(every)}",
            "distance_m": [round(run["distance_m"], 3) if "plan_error" not in run else None for run in every],
            "plan_errors": [{"seed": run["seed"], "error": run["plan_error"]} for run in every if "plan_error" in run],
            "max_sole_slip_mm": round(1000 * max((run["max_sole_slip_m"] for run in runs), default=float("nan")), 1),
            "max_sole_tilt_deg": round(max((run["max_sole_tilt_deg"] for run in runs), default=float("nan")), 2),
            "max_estimator_drift_cm": _largest_drift(runs, "horizontal_m", 100.0),
            "max_estimator_yaw_drift_deg": _largest_drift(runs, "yaw_deg", 1.0),
            "early_landings": sum(run.get("early_landings", 0) for run in runs),
            "late_landings": sum(run.get("late_landings", 0) for run in runs),
            "relaxed_steps": sum(run["failure_policy_step_count"] for run in runs),
            "softened_hardened_at_rest": [[run["contact_state"][key] for key in
                                           ("softenings", "hardenings", "rest_hardenings")] for run in runs],
            "falls": [{"seed": run["seed"], "at": round(run["fell_at"], 3), "reason": run["fall_reason"],
                       "distance_m": round(run["distance_m"], 3)} for run in runs if run["fell"]],
        })
    return report


def _largest_drift(runs: list[dict], key: str, scale: float) -> float | None:
    """The estimator's largest drift of ``key`` over ``runs`` (times ``scale``), None without one."""
    drifts = [run["estimator_drift"]["max"][key] for run in runs if "estimator_drift" in run]
    return round(scale * max(drifts), 2) if drifts else None


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", default=["talos", "g1"])
    parser.add_argument("--terrain", nargs="+", default=["slope:10", "slope:-10", "steps:0.05", "rough:0.02"])
    parser.add_argument("--friction", nargs="+", type=float, default=[None])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed … first-seed + seeds − 1")
    parser.add_argument("--distance", type=float, default=3.0)
    parser.add_argument("--ideal", action="store_true", help="the simulator's exact state and plant")
    parser.add_argument("--force-noise", type=float, help="foot force sensors of this noise, N")
    parser.add_argument("--sole-impedance", type=float, help="the soles' contact impedance d, in (0, 1)")
    parser.add_argument("--drive-estimate", action=argparse.BooleanOptionalAction, default=None,
                        help="the controller learns the drives' damping and friction online (control.drive_estimation; "
                             "default: the preset's, on)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    jobs = [(robot, terrain, friction, seed, args.distance, args.ideal, args.force_noise, args.sole_impedance,
             args.drive_estimate)
            for robot in args.robot for terrain in args.terrain
            for friction in args.friction for seed in range(args.first_seed, args.first_seed + args.seeds)]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(one_walk, jobs))
    report = {"distance_m": args.distance, "seeds": args.seeds, "realistic": not args.ideal,
              "force_noise": args.force_noise, "sole_impedance": args.sole_impedance, "rows": table(results, args.distance),
              "runs": results}
    for row in report["rows"]:
        print(json.dumps(row))
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
