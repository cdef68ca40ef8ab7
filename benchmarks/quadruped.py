"""Issue 29's must-shows for quadruped locomotion, measured in MuJoCo.

    python benchmarks/quadruped.py [--only GROUP ...] [--jobs 2] [--unitree PATH/go2.xml] [--json FILE]
                                   [--timing-seconds S]

Groups (each a set of runs of :func:`tsid_py.scenarios.trot.run_trot`, library defaults, no
robot-specific setting; a robot's name only picks its files):

* ``gaits``: Go2 and Solo12 trot 5 m at 0.5 m/s and at their top speed — the fastest of
  :data:`SPEEDS` at which each trots 5 m with a measured speed within 10 % of the command
  and no fall (the sweep is printed); turn 180° in place; walk 2 m sideways at 0.3 m/s;
* ``robots``: every quadruped of example-robot-data (a1, anymal_c, hyq, go1, b1: URDF with
  its SRDF's standing posture, feet from the robot profile, :mod:`tsid_py.models.feet`), the
  built-in go2 and solo12, and Unitree's MJCF Go2 simulated as shipped (``--unitree``: the
  ``go2.xml`` of unitree_mujoco's ``unitree_robots/go2``) trot 3 m at 0.4 m/s;
* ``push``: Go2 trotting at 0.5 m/s is pushed sideways (+y and −y) for 0.1 s with 40 % of
  its weight, 2.0 s and 2.09 s after it set off (two phases of its gait);
* ``terrain``: Go2 trots 4.5 m at 0.5 m/s up a 10° ramp (3 m long, starting 0.8 + 0.1·seed m
  ahead) and 4 m over ±2 cm rough ground (random heights on a 10 cm grid, the seed's), seeds
  0–4; the controller is given the terrain;
* ``realistic``: Go2, Solo12 and (``--unitree``) Unitree's MJCF Go2 trot 3 m at 0.5 m/s under
  :meth:`~tsid_py.scenarios.conditions.Conditions.realistic` (the ``--realistic`` preset: the
  controller on the state estimator, noisy encoders and IMU, no force sensors, the drives'
  armature, damping and friction, masses ±15 %, 2 ms delay), seeds 0–4; Solo12 twice: with
  the drives the typical-drive rule gives its URDF's 1000 N·m placeholder limits, and with
  those of its real 2.7 N·m actuators (:data:`SOLO12_TORQUE`); each run reports the
  estimator's drift against MuJoCo's state (``estimator_drift``);
* ``timing``: Go2 trotting at 0.5 m/s for 4 s, the controller step alone (MPC included) on one
  pinned core with BLAS on one thread: median, mean, p99, the MPC's rate and solve time, and
  the steps that rebuilt the QP's layout (a contact made or broken) — on MuJoCo's exact state
  and, stepped in turn in the same loop, on the estimator with exact sensors and under
  ``--realistic`` (the estimator's update and the drives' friction feed-forward included).

Every run reports the summary's ``fell``, ``speed_mps``, ``yaw_change_deg``,
``max_foot_slip_m`` and ``slip_per_metre``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

#: example-robot-data's quadrupeds: name -> (URDF, SRDF) under its robots/ folder.
FILES = {
    "a1": ("a1_description/urdf/a1.urdf", "a1_description/srdf/a1.srdf"),
    "anymal_c": ("anymal_c_simple_description/urdf/anymal.urdf", "anymal_c_simple_description/srdf/anymal.srdf"),
    "hyq": ("hyq_description/robots/hyq_no_sensors.urdf", "hyq_description/srdf/hyq.srdf"),
    "go1": ("go1_description/urdf/go1.urdf", "go1_description/srdf/go1.srdf"),
    "b1": ("b1_description/urdf/b1.urdf", "b1_description/srdf/b1.srdf"),
}
#: The speeds (m/s) tried for the top speed.
SPEEDS = (1.0, 1.25, 1.5, 2.0, 2.5)
PUSH_SHARE, PUSH_TIMES = 0.4, (2.3, 2.39)
SEEDS = range(5)
#: Solo12's joint torque limit, N·m: its actuators' 0.025 N·m/A × a 9:1 belt drive × 12 A (the
#: Open Dynamic Robot Initiative's actuator module); its URDF declares a 1000 N·m placeholder.
SOLO12_TORQUE = 2.7
KEYS = ("fell", "fall_reason", "distance_m", "speed_mps", "yaw_change_deg", "max_foot_slip_m", "slip_per_metre",
        "failure_policy_step_count", "median_step_us", "mpc_rate_hz", "estimator_drift")


def load(name: str, unitree: str | None = None):
    """The robot ``name``: built in, example-robot-data's URDF with its SRDF, or Unitree's
    MJCF file — feet and every default from its profile (:func:`tsid_py.robots.load`)."""
    import tsid_py as tp
    from tsid_py.robots import data_root

    if name in ("go2", "solo12"):
        return tp.robots.load(name)
    if name == "unitree_go2":
        return tp.robots.load(unitree)
    urdf, srdf = FILES[name]
    return tp.robots.load(data_root() / urdf, srdf=data_root() / srdf)


def run(case: dict) -> dict:
    """One run of :func:`~tsid_py.scenarios.trot.run_trot` (in a worker process)."""
    from tsid_py.control.terrain import Terrain
    from tsid_py.scenarios.trot import run_trot

    warnings.simplefilter("ignore")
    options = dict(case["options"])
    terrain = options.pop("terrain", None)
    if terrain is not None:
        kind, value, seed = terrain
        options["terrain"] = (Terrain.slope(value, start=0.8 + 0.1 * seed) if kind == "slope"
                              else Terrain.rough(value, seed=seed))
    if "push" in options:
        at, share, sign = options.pop("push")
        robot = load(case["robot"], case.get("unitree"))
        options["push"] = (at, np.array([0.0, sign * share * robot.weight, 0.0]))
    else:
        robot = load(case["robot"], case.get("unitree"))
    if "conditions" in options:
        options["conditions"] = realistic(*options["conditions"])
    tic = time.perf_counter()
    summary, _, _ = run_trot(robot, **options)
    result = {key: summary[key] for key in KEYS if key in summary}
    result.update(case=case["name"], robot=case["robot"], wall_s=time.perf_counter() - tic)
    return result


def realistic(seed: int, drives_torque: float | None = None):
    """The ``--realistic`` conditions of ``seed``; with ``drives_torque`` (N·m) the plant's
    drives are the typical drive of that torque limit
    (:data:`tsid_py.models.actuators.TYPICAL_ARMATURE` and its kin) on every joint."""
    from dataclasses import replace

    from tsid_py.models.actuators import TYPICAL_ARMATURE, TYPICAL_DAMPING, TYPICAL_FRICTION
    from tsid_py.scenarios.conditions import Conditions

    conditions = Conditions.realistic(seed)
    if drives_torque is None:
        return conditions
    return replace(conditions, plant=replace(conditions.plant, armature=TYPICAL_ARMATURE * drives_torque,
                                             damping=TYPICAL_DAMPING * drives_torque,
                                             friction_loss=TYPICAL_FRICTION * drives_torque))


def cases(groups, unitree: str | None) -> list[dict]:
    found = []
    if "gaits" in groups:
        for robot in ("go2", "solo12"):
            found.append(dict(name=f"{robot}: trot 5 m at 0.5 m/s", robot=robot,
                              options=dict(speed=0.5, distance=5.0)))
            for speed in SPEEDS:
                found.append(dict(name=f"{robot}: trot 5 m at {speed} m/s", robot=robot,
                                  options=dict(speed=speed, distance=5.0)))
            found.append(dict(name=f"{robot}: turn 180° in place", robot=robot, options=dict(speed=0.0, turn=180.0)))
            found.append(dict(name=f"{robot}: 2 m sideways at 0.3 m/s", robot=robot,
                              options=dict(speed=0.0, lateral=0.3, distance=2.0)))
    if "robots" in groups:
        for robot in [*FILES, "go2", "solo12"] + (["unitree_go2"] if unitree else []):
            found.append(dict(name=f"{robot}: trot 3 m at 0.4 m/s", robot=robot, unitree=unitree,
                              options=dict(speed=0.4, distance=3.0)))
    if "push" in groups:
        for at in PUSH_TIMES:
            for sign in (1.0, -1.0):
                found.append(dict(name=f"go2: trot at 0.5 m/s, {'+' if sign > 0 else '-'}y push "
                                       f"{PUSH_SHARE:.0%} of the weight at {at} s", robot="go2",
                                  options=dict(speed=0.5, duration=4.0, push=(at, PUSH_SHARE, sign))))
    if "realistic" in groups:
        robots = [("go2", None), ("solo12", None), ("solo12", SOLO12_TORQUE)] + ([("unitree_go2", None)] if unitree
                                                                                 else [])
        for robot, torque in robots:
            for seed in SEEDS:
                drives = "" if torque is None else f" (drives of {torque} N·m actuators)"
                found.append(dict(name=f"{robot}{drives}: realistic trot 3 m at 0.5 m/s, seed {seed}", robot=robot,
                                  unitree=unitree, options=dict(speed=0.5, distance=3.0, conditions=(seed, torque))))
    if "terrain" in groups:
        for seed in SEEDS:
            found.append(dict(name=f"go2: 10° ramp, seed {seed}", robot="go2",
                              options=dict(speed=0.5, distance=4.5, terrain=("slope", 10.0, seed))))
            found.append(dict(name=f"go2: ±2 cm rough ground, seed {seed}", robot="go2",
                              options=dict(speed=0.5, distance=4.0, terrain=("rough", 0.02, seed))))
    return found


def timing(seconds: float = 4.0) -> list[dict]:
    """The controller's step on one pinned core (see the module): on MuJoCo's exact state and
    on the estimator (exact sensors; ``--realistic``), three simulations stepped in turn (the
    same load on each)."""
    from threadpoolctl import threadpool_limits

    import tsid_py as tp
    from tsid_py.control.quadruped import QuadrupedController
    from tsid_py.scenarios.conditions import Conditions
    from tsid_py.scenarios.feedback import Feedback, simulation
    from tsid_py.sim.contact import WALKING_CONTACT

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    runs = {"ground truth": Conditions(feedback="ground-truth"), "estimator, exact sensors": Conditions(),
            "estimator (--realistic)": realistic(0)}
    with threadpool_limits(limits=1, user_api="blas"):
        loops = {}
        for label, conditions in runs.items():
            robot = tp.robots.load("go2")
            sim = simulation(robot, conditions, contact=WALKING_CONTACT)
            controller = QuadrupedController(robot, sim.timestep)
            controller.walk(0.5)
            loops[label] = (sim, controller, Feedback(sim, controller, conditions), {"times": [], "rebuilt": [],
                                                                                    "solves": []})
        for _ in range(int(round(seconds / 1e-3))):
            for label, (sim, controller, feedback, record) in loops.items():
                exact = sim.contact_wrenches() if feedback.estimator is None else None
                built, solved = controller.solver.layouts_built, controller.centroidal_stage.solves
                solution, elapsed = feedback.step(exact)
                record["times"].append(elapsed)
                record["rebuilt"].append(controller.solver.layouts_built > built)
                record["solves"].append(controller.centroidal_stage.solves > solved)
                sim.step(feedback.torque(solution))
    results = []
    for label, (sim, controller, feedback, record) in loops.items():
        steps = np.array(record["times"][500:]) * 1e6
        rebuilt, solves = np.array(record["rebuilt"][500:]), np.array(record["solves"][500:])
        plain = steps[~rebuilt & ~solves]
        results.append({
            "case": f"go2: controller step, trot at 0.5 m/s, {label}", "median_step_us": float(np.median(steps)),
            "mean_step_us": float(steps.mean()), "p99_step_us": float(np.percentile(steps, 99)),
            "median_plain_step_us": float(np.median(plain)),
            "median_mpc_step_us": float(np.median(steps[solves])) if solves.any() else None,
            "median_rebuild_step_us": float(np.median(steps[rebuilt])) if rebuilt.any() else None,
            "mpc_rate_hz": controller.mpc_rate, "mpc_share_of_steps": float(solves.mean()),
            "rebuild_share_of_steps": float(rebuilt.mean()),
            "mpc_median_solve_us": float(np.median(controller.centroidal_stage.solve_times) * 1e6),
            "steps": int(steps.size), "fell": bool(sim.state()[0][2] < 0.5 * controller.robot.q_ref[2])})
    return results


def top_speeds(results: list[dict]) -> dict[str, float]:
    """The fastest speed of :data:`SPEEDS` each robot trots 5 m at, within 10 % and on its feet."""
    tops = {}
    for result in results:
        name = result["case"]
        if ": trot 5 m at " not in name or name.endswith("0.5 m/s"):
            continue
        speed = float(name.rsplit(" at ", 1)[1].split()[0])
        ok = not result["fell"] and abs(result["speed_mps"] - speed) <= 0.1 * speed
        if ok and speed > tops.get(result["robot"], 0.0):
            tops[result["robot"]] = speed
    return tops


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=["gaits", "robots", "push", "terrain", "realistic", "timing"],
                        choices=["gaits", "robots", "push", "terrain", "realistic", "timing"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--unitree", help="Unitree's go2.xml (unitree_mujoco's unitree_robots/go2)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--timing-seconds", type=float, default=4.0, help="simulated seconds of the timing group")
    args = parser.parse_args(argv)
    todo = cases(args.only, args.unitree)
    results = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(run, todo):
            results.append(result)
            print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in result.items()}), flush=True)
    if "gaits" in args.only:
        print("top speeds (m/s):", top_speeds(results))
    if "timing" in args.only:
        for result in timing(args.timing_seconds):
            results.append(result)
            print(json.dumps({k: (round(v, 2) if isinstance(v, float) else v) for k, v in result.items()}))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return results


if __name__ == "__main__":
    main()
