"""Creep of feet under MuJoCo's contact options: point feet standing, soles on a slope.

    python benchmarks/foot_creep.py [--robots go2,solo12] [--duration 5] [--json FILE]
        [--mjcf PATH --feet FL_foot,FR_foot,RL_foot,RR_foot --foot-radius 0.022]
    python benchmarks/foot_creep.py --soles [--humanoids g1,talos] [--slope 10] [--seed 0]
        [--duration 5] [--json FILE]

A quadruped holds still on four point feet under the stance controller (``quadruped_stance``,
CoM and base orientation held at the start): the feet carry steady tangential forces, which
MuJoCo's soft friction turns into a steady slide. Per robot and per contact model
(:class:`tsid_py.sim.contact.ContactOptions`: cone, impratio, no-slip iterations), the table
gives the largest horizontal displacement of a foot's contact point over ``--duration`` s and
the median time of a physics step. ``--mjcf`` adds a robot read from an MJCF file, simulated as
shipped (its own options, then each option set), its contact points ``--foot-radius`` below
the ``--feet`` frames (sphere centres). Measured on this machine (MuJoCo 4.0), 5 s, slip of the
worst foot and median physics step (``feet d``: the impedance of the harness's sphere feet,
:attr:`~tsid_py.sim.contact.ContactOptions.point_foot_impedance`; a file's own feet keep theirs):

======================================  ================  ================  ================
contact model                           go2 (URDF)        solo12 (URDF)     Unitree go2.xml
======================================  ================  ================  ================
pyramidal, impratio 1 (MuJoCo's)        94.2 mm, 15.9 µs  59.3 mm, 15.9 µs  35.6 mm, 26.8 µs
pyramidal, impratio 10                  13.8 mm, 15.8 µs  10.4 mm, 15.9 µs   4.6 mm, 26.9 µs
elliptic, impratio 1                    42.9 mm, 15.4 µs  28.5 mm, 15.4 µs  14.2 mm, 24.9 µs
elliptic, impratio 10                    3.9 mm, 15.6 µs   2.7 mm, 15.6 µs   1.7 mm, 25.0 µs
elliptic, impratio 100                   0.4 mm, 15.5 µs   0.3 mm, 15.5 µs   0.2 mm, 24.9 µs
pyramidal, no-slip 3 iterations          0.0 mm, 19.4 µs   0.0 mm, 19.3 µs   3.1 mm, 44.8 µs
pyramidal, feet d 0.999                  1.5 mm, 15.9 µs   1.1 mm, 15.9 µs
pyramidal, feet d 0.9999                 0.15 mm, 16.0 µs  0.11 mm, 15.9 µs
the file's own (elliptic, impratio 100)                                      0.2 mm, 25.0 µs
======================================  ================  ================  ================

**Soles** (``--soles``): a humanoid stands on a slope of ``--slope`` degrees
(:func:`tsid_py.scenarios.terrains.slope_stance`: its soles turned onto the slope, a tilted
block under them) under the :class:`~tsid_py.control.BalanceController` on the simulator's
exact state for ``--duration`` s (``stand``: the soles' largest displacement; ``step``: the
median physics step), then walks the walk demo's 3 m up ``slope:SLOPE`` with the
``--realistic`` preset of ``--seed`` (``walk``: distance, m; ``stance``: the largest slide of
a sole in one stance, the fall judge's; ``drift``: the estimator's largest horizontal error
against the simulator). Measured on this machine (MuJoCo 4.0), 10°, 5 s, seed 0 (the step
times were taken on a loaded machine: ±10 %):

=================================  =====  ========  =======  ======  =========  ========
contact model                      robot  stand mm  step µs  walk m  stance mm  drift cm
=================================  =====  ========  =======  ======  =========  ========
MuJoCo's                           G1     37.9      42.7     2.818   26.9       18.7
elliptic, impratio 100             G1     1.06      42.7     2.965   5.7        3.9
pyramidal, no-slip 3               G1     0.81      58.1     2.965   5.7        4.0
soles d 0.999                      G1     1.18      45.4     2.957   5.1        4.4
soles d 0.9999                     G1     0.70      48.6     2.959   5.2        4.1
MuJoCo's                           Talos  37.3      56.8     2.888   24.8       10.9
elliptic, impratio 100             Talos  0.73      49.6     2.997   2.1        0.46
pyramidal, no-slip 3               Talos  0.62      71.6     2.993   2.2        0.48
soles d 0.999                      Talos  0.53      48.2     2.997   3.0        0.40
soles d 0.9999                     Talos  0.06      51.3     2.999   2.8        0.48
=================================  =====  ========  =======  ======  =========  ========

No walk fell. What is left of G1's drift is not creep: it is the same under every stiff
option, the no-slip post-solve included. Its stance soles still move 1.6–4.9 mm down the
slope a stance (d 0.999), which the estimator adds up (3.5 mm a stance); in the stance
examined (the fourth) the sole slid 3.4 mm within 0.15 s early in single support, while the
CoM, which had lagged its height reference up the slope, overshot it and the sole's load
dipped to 40 % of the weight, its centre of pressure at the toe.

The global options stiffen every contact; each foot's own impedance only the feet, at no
cost per step, but it stiffens their normal rows as well: rigid soles bear on the three
highest points of rough ground and G1 tips them there (0/5), and lose the slide with which G1
rides out its 130 N standing push. The default is an elliptic cone with ``impratio`` 10
(friction rows only; not measured in these tables), MuJoCo's ``solimp`` on the soles and ``d`` = 0.9999 on point feet
(:mod:`tsid_py.sim.contact`).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.bench import write_json
from tsid_py.control import BalanceController
from tsid_py.control.reference import quadruped_stance
from tsid_py.scenarios import terrains as tsid_terrains
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.walk import run_walk
from tsid_py.sim import Simulation
from tsid_py.sim.contact import MUJOCO_OPTIONS, ContactOptions

#: The contact models compared (None: MuJoCo's own for a built model, the file's for MJCF).
OPTIONS = {
    "pyramidal, impratio 1": ContactOptions(cone="pyramidal", impratio=1.0, point_foot_impedance=None),
    "pyramidal, impratio 10": ContactOptions(cone="pyramidal", impratio=10.0, point_foot_impedance=None),
    "elliptic, impratio 1": ContactOptions(cone="elliptic", impratio=1.0, point_foot_impedance=None),
    "elliptic, impratio 10": ContactOptions(cone="elliptic", impratio=10.0, point_foot_impedance=None),
    "elliptic, impratio 100": ContactOptions(cone="elliptic", impratio=100.0, point_foot_impedance=None),
    "pyramidal, no-slip 3": ContactOptions(**MUJOCO_OPTIONS, noslip_iterations=3, point_foot_impedance=None),
    "pyramidal, feet d 0.999": ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=0.999),
    "pyramidal, feet d 0.9999": ContactOptions(**MUJOCO_OPTIONS),
    "elliptic, impratio 10, feet d 0.9999 (the default)": ContactOptions(),
}

#: The contact models compared for soles (the harness's sole boxes).
SOLE_OPTIONS = {
    "pyramidal, impratio 1 (MuJoCo's)": ContactOptions(**MUJOCO_OPTIONS),
    "elliptic, impratio 100": ContactOptions(cone="elliptic", impratio=100.0),
    "elliptic, impratio 10 (the default)": ContactOptions(),
    "pyramidal, no-slip 3": ContactOptions(**MUJOCO_OPTIONS, noslip_iterations=3),
    "pyramidal, soles d 0.999": ContactOptions(**MUJOCO_OPTIONS, sole_impedance=0.999),
    "pyramidal, soles d 0.9999": ContactOptions(**MUJOCO_OPTIONS, sole_impedance=0.9999),
}


def hold(sim: Simulation, controller, duration: float, position) -> dict:
    """Run ``controller`` on ``sim`` for ``duration`` s; the feet's largest displacement
    (``position(foot)``: a foot's point, m) and the median physics step (µs)."""
    feet = sim.robot.feet
    start = {foot: position(foot).copy() for foot in feet}
    step_times = []
    for _ in range(int(round(duration / sim.timestep))):
        solution = controller.step(*sim.state())
        tic = time.perf_counter()
        sim.step(solution.tau_actuated)
        step_times.append(time.perf_counter() - tic)
    slip = max(float(np.linalg.norm(position(foot) - start[foot])) for foot in feet)
    return {"slip_m": slip, "median_step_us": float(np.median(step_times) * 1e6)}


def stand(robot: tp.Robot, contact: ContactOptions | None, duration: float) -> dict:
    """Hold ``robot`` still for ``duration`` s; the feet's largest slip and the step time."""
    sim = Simulation(robot, contact=contact)
    controller = quadruped_stance(robot, sim.timestep)
    robot.update(robot.q_ref, robot.zero_velocity())
    controller.com.set_target(robot.com.copy())
    result = hold(sim, controller, duration, lambda foot: sim.foot_pose(foot)[1][:2])
    return dict(result, base_height_m=float(sim.state()[0][2]))


def stand_on_slope(name: str, contact: ContactOptions, degrees: float, duration: float) -> dict:
    """A humanoid holds still on a slope of ``degrees`` under the
    :class:`~tsid_py.control.BalanceController` (the simulator's exact state): the soles'
    largest displacement over ``duration`` s and the median physics step."""
    robot = tp.robots.load(name)
    robot.q_ref, terrain = tsid_terrains.slope_stance(robot, degrees)
    sim = Simulation(robot, terrain=terrain, contact=contact)
    return hold(sim, BalanceController(robot, sim.timestep), duration, lambda foot: sim.sole_pose(foot)[1])


def walk_on(name: str, contact: ContactOptions, terrain: str, seed: int) -> dict:
    """The walk demo's 3 m walk on ``terrain`` with the ``--realistic`` preset of ``seed``:
    its distance, fall, the soles' largest slip in a stance and the estimator's largest
    horizontal drift and yaw drift."""
    robot = tp.robots.load(name)
    conditions = Conditions.realistic(seed)
    summary, _, _ = run_walk(robot, distance=3.0, conditions=conditions, contact=contact,
                             terrain=tsid_terrains.walk_terrain(tsid_terrains.parse_terrain(terrain), robot, seed))
    drift = summary["estimator_drift"]["max"]
    return {"distance_m": summary["distance_m"], "fell": summary["fell"], "stance_slip_m": summary["max_sole_slip_m"],
            "drift_m": drift["horizontal_m"], "drift_yaw_deg": drift["yaw_deg"]}


def soles(args) -> list[dict]:
    """The sole table: per humanoid and contact model, standing on a slope and walking up it."""
    results = []
    print(f"{'robot':6s} {'contact model':44s} {'stand mm':>8s} {'step us':>8s} {'walk m':>7s} {'fell':>5s}"
          f" {'stance mm':>9s} {'drift cm':>8s} {'yaw deg':>7s}")
    for name in args.humanoids.split(","):
        for label, contact in SOLE_OPTIONS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = stand_on_slope(name, contact, args.slope, args.duration)
                result.update(walk_on(name, contact, f"slope:{args.slope:g}", args.seed))
            result.update(robot=name, contact=label)
            results.append(result)
            print(f"{name:6s} {label:44s} {result['slip_m'] * 1e3:8.2f} {result['median_step_us']:8.1f}"
                  f" {result['distance_m']:7.3f} {result['fell']!s:>5s} {result['stance_slip_m'] * 1e3:9.2f}"
                  f" {result['drift_m'] * 1e2:8.2f} {result['drift_yaw_deg']:7.2f}", flush=True)
    return results


def mjcf_quadruped(path: str, feet: list[str], radius: float) -> tp.Robot:
    """A robot from an MJCF file whose point contacts are ``radius`` below the ``feet`` frames
    (sphere centres) at the first keyframe, world-aligned there (the ground normal)."""
    plain = tp.Robot.from_mjcf(path)
    model, data = plain.model, plain.model.createData()
    pin.framesForwardKinematics(model, data, plain.q_ref)
    names = []
    for foot in feet:
        frame = model.frames[model.getFrameId(foot)]
        below = pin.SE3(np.eye(3), data.oMf[model.getFrameId(foot)].translation - [0.0, 0.0, radius])
        model.addFrame(pin.Frame(f"{foot}_contact", frame.parentJoint, model.getFrameId(foot),
                                 data.oMi[frame.parentJoint].actInv(below), pin.FrameType.OP_FRAME))
        names.append(f"{foot}_contact")
    q_ref = plain.q_ref.copy()
    q_ref[2] -= min(data.oMf[model.getFrameId(foot)].translation[2] for foot in feet) - radius
    return tp.Robot(model, name=plain.name, feet=names, foot_radius=radius, q_ref=q_ref, source=plain.source,
                    postures=plain.postures)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", default="go2,solo12", help="built-in quadrupeds, comma-separated")
    parser.add_argument("--duration", type=float, default=5.0, help="s")
    parser.add_argument("--mjcf", help="an MJCF quadruped, simulated as shipped")
    parser.add_argument("--feet", default="FL_foot,FR_foot,RL_foot,RR_foot", help="its foot frames (sphere centres)")
    parser.add_argument("--foot-radius", type=float, default=0.022, help="m")
    parser.add_argument("--soles", action="store_true", help="the humanoids' soles instead (see the module)")
    parser.add_argument("--humanoids", default="g1,talos", help="with --soles: built-in humanoids, comma-separated")
    parser.add_argument("--slope", type=float, default=10.0, help="with --soles: the slope, degrees")
    parser.add_argument("--seed", type=int, default=0, help="with --soles: the walk's seed")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    if args.soles:
        results = soles(args)
        if args.json:
            write_json(args.json, results)
        return results
    robots = {name: (lambda name=name: tp.robots.load(name)) for name in args.robots.split(",") if name}
    if args.mjcf:
        robots[args.mjcf] = lambda: mjcf_quadruped(args.mjcf, args.feet.split(","), args.foot_radius)
    results = []
    print(f"{'robot':28s} {'contact model':28s} {'slip mm':>8s} {'step us':>8s} {'base z':>7s}")
    for name, load in robots.items():
        options = dict(OPTIONS)
        if args.mjcf == name:
            options = {"as shipped": None, **options}
        for label, contact in options.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = stand(load(), contact, args.duration)
            result.update(robot=name, contact=label)
            results.append(result)
            print(f"{name[-28:]:28s} {label:28s} {result['slip_m'] * 1e3:8.2f} {result['median_step_us']:8.1f}"
                  f" {result['base_height_m']:7.3f}", flush=True)
    if args.json:
        write_json(args.json, results)
    return results


if __name__ == "__main__":
    main()
