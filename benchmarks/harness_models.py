"""Every model into the MuJoCo harness: loaded, built, checked against pinocchio, dropped.

    python benchmarks/harness_models.py [--all] [--mjcf PATH ...] [--menagerie NAME ...] [--json FILE]

Per model file (by default the robots of issue 27 in example-robot-data; ``--all``: every URDF
it ships; ``--mjcf``: MJCF files, simulated as shipped; ``--menagerie``: MuJoCo Menagerie
models, through the optional ``mujoco-menagerie`` package, which downloads them):

* **load**: ``Robot.from_urdf`` (floating base, but for the arms) or ``Robot.from_mjcf``;
* **build**: ``Simulation`` (physics) and ``Simulation(visual=True)`` (meshes), with what the
  harness repaired or dropped (inertias, visual meshes; the mimic joints the loader reported);
* **dynamics**: the largest relative difference between MuJoCo's M and bias and pinocchio's
  CRBA and RNEA over 3 random states, and the state round trip's error;
* **drop**: 1 s uncontrolled (zero torques) from the posture placed 2 cm above the floor: it
  must stay finite (a robot falls, an arm hangs); the median physics step.

No line of robot-specific code: a robot name only picks its file.
"""

from __future__ import annotations

import argparse
import re
import time
import traceback
import warnings

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.bench import write_json
from tsid_py.robots import data_root, package_dir
from tsid_py.sim import Simulation

#: Issue 27's robots: name -> (file under example-robot-data's robots/, floating base)
ROBOTS = {
    "romeo": ("romeo_description/urdf/romeo.urdf", True),
    "icub": ("icub_description/robots/icub.urdf", True),
    "alexander": ("alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf", True),
    "simple_humanoid": ("simple_humanoid_description/urdf/simple_humanoid.urdf", True),
    "talos": ("talos_data/robots/talos_reduced.urdf", True),
    "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", True),
    "a1": ("a1_description/urdf/a1.urdf", True),
    "anymal_c": ("anymal_c_simple_description/urdf/anymal.urdf", True),
    "hyq": ("hyq_description/robots/hyq_no_sensors.urdf", True),
    "go1": ("go1_description/urdf/go1.urdf", True),
    "b1": ("b1_description/urdf/b1.urdf", True),
    "go2": ("go2_description/urdf/go2.urdf", True),
    "solo12": ("solo_description/robots/solo12.urdf", True),
    "kinova": ("kinova_description/robots/kinova.urdf", False),
    "xarm": ("xarm_description/urdf/xarm7.urdf", False),
    "z1": ("z1_description/urdf/z1.urdf", False),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda": ("panda_description/urdf/panda.urdf", False),
}


def try_model(name: str, load) -> dict:
    """The checks of the module on the robot ``load()`` returns."""
    report = {"model": name}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            robot = load()
            report.update(nq=robot.nq, nv=robot.nv)
            tic = time.perf_counter()
            sim = Simulation(robot)
            report["build_s"] = time.perf_counter() - tic
            report.update(**dynamics(robot, sim), **drop(robot, sim))
            Simulation(robot, visual=True)
            report["visual"] = True
        except Exception as exc:  # noqa: BLE001 — reported per model, never hidden
            report["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            report["traceback"] = traceback.format_exc(limit=4)
    report["problems"] = problems([str(warning.message) for warning in caught])
    return report


def problems(messages: list[str]) -> list[str]:
    """What the loader and the harness reported, one short line each."""
    found = []
    for message in dict.fromkeys(messages):
        if "mimic joints" in message:
            found.append(f"{message.count('(mimics')}+ mimic joints loaded independent")
        elif "inertia(s)" in message:
            count = int(re.search(r"(\d+) inertia\(s\)", message).group(1))
            changes = [float(x) for x in re.findall(r"changed by ([0-9.e+-]+) kg", message)]
            masses = message.count("mass 0 ->")
            found.append(f"{count} inertias repaired (largest change {max(changes):.2g} kg m²"
                         + (f", {masses} massless moving bodies given 1 mg" if masses else "") + ")")
        elif "visual meshes" in message or "visual-only mesh" in message:
            found.append("visual meshes replaced or dropped")
        elif "the world holds" in message:
            found.append("extra top-level bodies not controlled")
        else:
            found.append(message.splitlines()[0][:120])
    return list(dict.fromkeys(found))


def dynamics(robot, sim, samples: int = 3, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    worst_m = worst_h = worst_state = 0.0
    lower = np.maximum(robot.model.lowerPositionLimit, -1.5)
    upper = np.minimum(robot.model.upperPositionLimit, 1.5)
    for _ in range(samples):
        q = pin.randomConfiguration(robot.model, lower, upper)
        if robot.floating_base:
            q[:3] = [0.0, 0.0, 5.0]
        v = rng.normal(0.0, 1.0, robot.nv)
        sim.reset(q, v)
        q_back, v_back = sim.state()
        worst_state = max(worst_state, float(np.abs(q_back - q).max()), float(np.abs(v_back - v).max()))
        data = robot.model.createData()
        M = pin.crba(robot.model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
        M_mj, h_mj = sim.mass_matrix_and_bias()
        worst_m = max(worst_m, float(np.abs(M_mj - M).max() / np.abs(M).max()))
        worst_h = max(worst_h, float(np.abs(h_mj - h).max() / np.abs(h).max()))
    return {"mass_matrix_rel_error": worst_m, "bias_rel_error": worst_h, "state_round_trip_error": worst_state}


def drop(robot, sim, duration: float = 1.0) -> dict:
    q = robot.q_ref.copy()
    if robot.floating_base:
        data = robot.model.createData()
        pin.framesForwardKinematics(robot.model, data, q)
        q[2] += 0.02 - min(frame.translation[2] for frame in data.oMf)
    sim.reset(q, robot.zero_velocity())
    times = []
    for _ in range(int(round(duration / sim.timestep))):
        tic = time.perf_counter()
        sim.step(np.zeros(robot.na))
        times.append(time.perf_counter() - tic)
    q_end, v_end = sim.state()
    return {"drop_finite": bool(np.all(np.isfinite(q_end)) and np.abs(v_end).max() < 1e3),
            "drop_base_height_m": float(q_end[2]) if robot.floating_base else None,
            "median_step_us": float(np.median(times) * 1e6)}


def menagerie_file(name: str) -> str:
    """The default robot file of a MuJoCo Menagerie model (downloaded by ``mujoco-menagerie``)."""
    import mujoco_menagerie

    entry = mujoco_menagerie.get(name)
    return str(entry.xml(entry.default_model))


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every URDF example-robot-data ships")
    parser.add_argument("--mjcf", nargs="*", default=[], help="MJCF files")
    parser.add_argument("--menagerie", nargs="*", default=[], help="MuJoCo Menagerie names, e.g. unitree_g1")
    parser.add_argument("--json", help="write the reports here")
    args = parser.parse_args(argv)
    root = data_root()
    models = {name: (lambda path=path, floating=floating: tp.Robot.from_urdf(
        root / path, floating_base=floating, package_dirs=[package_dir()])) for name, (path, floating) in ROBOTS.items()}
    if args.all:
        for path in sorted(root.glob("*/**/*.urdf")):
            models.setdefault(str(path.relative_to(root)), lambda path=path: tp.Robot.from_urdf(
                path, package_dirs=[package_dir()]))
    for path in args.mjcf:
        models[path] = lambda path=path: tp.Robot.from_mjcf(path)
    for name in args.menagerie:
        models[f"menagerie:{name}"] = lambda name=name: tp.Robot.from_mjcf(menagerie_file(name))
    reports = []
    print(f"{'model':36s} {'nv':>3s} {'M err':>8s} {'h err':>8s} {'drop':>5s} {'step us':>7s} {'visual':>6s}  problems")
    for name, load in models.items():
        report = try_model(name, load)
        reports.append(report)
        if "error" in report and "nv" not in report:
            print(f"{name[-36:]:36s} {'':>3s} refused: {report['error']}")
            continue
        line = (f"{name[-36:]:36s} {report['nv']:3d} {report.get('mass_matrix_rel_error', np.nan):8.1e} "
                f"{report.get('bias_rel_error', np.nan):8.1e} {str(report.get('drop_finite', '-')):>5s} "
                f"{report.get('median_step_us', np.nan):7.1f} {str(report.get('visual', False)):>6s}  ")
        print(line + "; ".join(report["problems"]) + (f" ERROR {report['error']}" if "error" in report else ""),
              flush=True)
    write_json(args.json, reports)
    return reports


if __name__ == "__main__":
    main()
