"""Robots the library has never seen, from their files to standing, walking and recovering.

    python benchmarks/your_robot.py [--robots romeo icub ...] [--unitree DIR] [--json FILE] [--markdown FILE]

Each robot is a file — a URDF of example-robot-data (with the SRDF beside it, if any) or one of
Unitree's MJCF files (``--unitree``: the folder of ``unitreerobotics/unitree_mujoco``'s
``unitree_robots``, simulated as shipped) — loaded by ``tp.robots.load(path)`` and run through
the demos exactly as ``tsid-py demo ... --robot PATH`` runs them, with the library's defaults
and no line of robot-specific code: a robot's name here only picks its file. Its kind comes
from its profile (:mod:`tsid_py.scenarios.demo_robots`), and so do the trials:

* **humanoid** (two soles): stands 5 s (``demo balance --push 0 --duration 5``); survives a
  0.1 s push at 0.6 × its own ``push_bounds`` in +x and in +y (``demo balance --push F
  --push-direction +x``); walks 2 m (``demo walk --distance 2``) without falling;
* **quadruped** (point feet): stands 5 s with every foot's slip under 5 mm; survives a 0.1 s
  push at 15 % of its weight in +x and +y;
* **arm** (fixed base): tracks a 5 cm circle (``demo arm``) with a largest error under 5 mm;
* anything else is reported with what it is.

The demos run as ``tsid-py demo`` runs them: the controller on the state estimator
(:mod:`tsid_py.estimation`) with exact sensors. ``--ground-truth`` runs every trial on the
simulator's exact state instead (``tsid-py demo ... --ground-truth``), and the commands the
table names carry the flag.

The table (``--markdown``) is the one of ``docs/your-robot.md``.
"""

from __future__ import annotations

import argparse
import json
import time
import traceback
import warnings
from pathlib import Path

import tsid_py as tp
from tsid_py.robots import data_root
from tsid_py.scenarios import demos
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.demo_robots import UnsupportedRobot, describe, kind_of

#: The robots tried: name -> file under example-robot-data's robots/ folder ("unitree:" prefix:
#: under --unitree). Every biped, quadruped and arm example-robot-data ships as URDF (Cassie
#: ships SDF only; Alex is an upper body), and its human model and the four-wheeled Centauro.
ROBOTS = {
    "romeo": "romeo_description/urdf/romeo.urdf",
    "icub": "icub_description/robots/icub.urdf",
    "alexander": "alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf",
    "simple_humanoid": "simple_humanoid_description/urdf/simple_humanoid.urdf",
    "talos": "talos_data/robots/talos_reduced.urdf",
    "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "g1 (Unitree MJCF)": "unitree:g1/g1_29dof.xml",
    "bolt": "bolt_description/robots/bolt.urdf",
    "human": "human_description/robots/human.urdf",
    "centauro": "centauro_description/urdf/centauro.urdf",
    "a1": "a1_description/urdf/a1.urdf",
    "anymal_c": "anymal_c_simple_description/urdf/anymal.urdf",
    "hyq": "hyq_description/robots/hyq_no_sensors.urdf",
    "go1": "go1_description/urdf/go1.urdf",
    "b1": "b1_description/urdf/b1.urdf",
    "go2": "go2_description/urdf/go2.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "laikago": "laikago_description/urdf/laikago.urdf",
    "go2 (Unitree MJCF)": "unitree:go2/go2.xml",
    "kinova": "kinova_description/robots/kinova.urdf",
    "xarm": "xarm_description/urdf/xarm7.urdf",
    "z1": "z1_description/urdf/z1.urdf",
}

#: The must-shows' thresholds.
PUSH_RATIO, QUADRUPED_PUSH, MAX_SLIP, MAX_ARM_ERROR, WALK = 0.6, 0.15, 0.005, 0.005, 2.0
#: The conditions of ``--ground-truth``.
GROUND_TRUTH = Conditions(feedback="ground-truth")


def flag_of(conditions: Conditions | None) -> str:
    """The ``tsid-py demo`` flag that gives ``conditions`` (None: the demos' default)."""
    return "" if conditions is None else " --ground-truth"


def robot_file(name: str, unitree: Path | None) -> Path | None:
    entry = ROBOTS[name]
    if entry.startswith("unitree:"):
        return None if unitree is None else unitree / entry.split(":", 1)[1]
    return data_root() / entry


def trial(label: str, command: str, run, check) -> dict:
    """Run one demo (``run()`` → DemoRun), judged by ``check(summary)`` → (passed, number)."""
    tic = time.time()
    try:
        summary = run().summary
        passed, value = check(summary)
        result = {"trial": label, "passed": bool(passed), "value": value, "summary": summary}
    except Exception as error:                     # noqa: BLE001 — reported, never hidden
        result = {"trial": label, "passed": False, "value": f"{type(error).__name__}: {error}",
                  "traceback": traceback.format_exc(limit=4)}
    result.update(command=command, seconds=round(time.time() - tic, 1))
    return result


def humanoid_trials(path: str, conditions: Conditions | None = None) -> list[dict]:
    flag = flag_of(conditions)
    stand = trial("stands 5 s", f"tsid-py demo balance --robot {path} --push 0 --duration 5{flag}",
                  lambda: demos.balance(path, push=0.0, duration=5.0, conditions=conditions),
                  lambda s: (not s["fell"], f"slip {s['max_sole_slip_m'] * 1e3:.1f} mm, tilt "
                                            f"{s['max_sole_tilt_deg']:.1f}°"))
    results = [stand]
    bounds = stand.get("summary", {}).get("push_bounds")
    for direction in ("+x", "+y"):
        if bounds is None:
            continue
        force = round(PUSH_RATIO * bounds[direction], 1)
        results.append(trial(f"push {direction}", f"tsid-py demo balance --robot {path} --push {force} "
                                                  f"--push-direction {direction}{flag}",
                             lambda: demos.balance(path, push=force, push_direction=direction,
                                                   conditions=conditions),
                             lambda s, f=force, b=bounds[direction]: (not s["fell"], f"{f:.0f} N of {b:.0f} N")))
    results.append(trial("walks 2 m", f"tsid-py demo walk --robot {path} --distance {WALK:g}{flag}",
                         lambda: demos.walk(path, distance=WALK, conditions=conditions),
                         lambda s: (not s["fell"] and s["distance_m"] > 0.9 * WALK,
                                    f"{s['distance_m']:.2f} m in {s['steps']} steps"
                                    + (f", fell at {s['fell_at']:.1f} s ({s['fall_reason']})" if s["fell"] else ""))))
    return results


def quadruped_trials(path: str, weight: float, conditions: Conditions | None = None) -> list[dict]:
    flag = flag_of(conditions)
    results = [trial("stands 5 s", f"tsid-py demo balance --robot {path} --push 0 --duration 5{flag}",
                     lambda: demos.balance(path, push=0.0, duration=5.0, conditions=conditions),
                     lambda s: (not s["fell"] and s["max_sole_slip_m"] < MAX_SLIP,
                                f"slip {s['max_sole_slip_m'] * 1e3:.2f} mm"))]
    force = round(QUADRUPED_PUSH * weight, 1)
    for direction in ("+x", "+y"):
        results.append(trial(f"push {direction}", f"tsid-py demo balance --robot {path} --push {force} "
                                                  f"--push-direction {direction}{flag}",
                             lambda: demos.balance(path, push=force, push_direction=direction,
                                                   conditions=conditions),
                             lambda s, f=force: (not s["fell"], f"{f:.0f} N, slip {s['max_sole_slip_m'] * 1e3:.1f} mm")))
    return results


def arm_trials(path: str) -> list[dict]:
    return [trial("5 cm circle", f"tsid-py demo arm --robot {path}", lambda: demos.arm(path),
                  lambda s: (s["max_tracking_error"] < MAX_ARM_ERROR, f"max error {s['max_tracking_error'] * 1e3:.2f} mm"))]


def try_robot(name: str, unitree: Path | None, conditions: Conditions | None = None) -> dict:
    path = robot_file(name, unitree)
    if path is None:
        return {"robot": name, "kind": None, "what": "skipped: no --unitree folder", "trials": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            robot = tp.robots.load(path)
        except Exception as error:                 # noqa: BLE001
            return {"robot": name, "file": str(path), "kind": None, "what": f"does not load: {error}", "trials": []}
    kind = kind_of(robot)
    entry = {"robot": name, "file": str(path), "kind": kind, "what": describe(robot), "mass": robot.mass}
    if kind == "humanoid":
        entry["trials"] = humanoid_trials(str(path), conditions)
    elif kind == "quadruped":
        entry["trials"] = quadruped_trials(str(path), robot.weight, conditions)
    elif kind == "arm":
        entry["trials"] = arm_trials(str(path))
    else:
        entry["trials"] = []
        try:
            demos.balance(str(path), duration=0.01)
        except UnsupportedRobot as error:
            entry["what"] = str(error)
    return entry


def markdown(entries: list[dict]) -> str:
    """The table of ``docs/your-robot.md``: a row a trial, files named from example-robot-data's
    folder."""
    lines = ["| robot | kind | trial | result | passed |", "|---|---|---|---|---|"]
    for entry in entries:
        if not entry["trials"]:
            what = entry["what"].replace(str(data_root()) + "/", "").replace(str(data_root()), "")
            lines.append(f"| {entry['robot']} | — | — | {what} | — |")
        for k, result in enumerate(entry["trials"]):
            head = f"| {entry['robot']} | {entry['kind']} |" if k == 0 else "| | |"
            lines.append(f"{head} {result['trial']} | {result['value']} | {'yes' if result['passed'] else '**no**'} |")
    return "\n".join(lines)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="+", choices=list(ROBOTS), default=list(ROBOTS))
    parser.add_argument("--unitree", type=Path, help="unitree_mujoco's unitree_robots/ folder")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    parser.add_argument("--ground-truth", action="store_true",
                        help="the controller on the simulator's exact state (default: on the state estimator)")
    args = parser.parse_args(argv)
    conditions = GROUND_TRUTH if args.ground_truth else None
    entries = []
    for name in args.robots:
        entry = try_robot(name, args.unitree, conditions)
        entries.append(entry)
        for result in entry["trials"]:
            print(f"{name:20s} {result['trial']:12s} {'pass' if result['passed'] else 'FAIL'}  {result['value']}"
                  f"  ({result['seconds']:.0f} s)", flush=True)
        if not entry["trials"]:
            print(f"{name:20s} {entry['what']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(entries, indent=1, default=str))
    table = markdown(entries)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    print(table)
    return entries


if __name__ == "__main__":
    main()
