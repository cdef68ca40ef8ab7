"""Standing creep of point feet under MuJoCo's contact options.

    python benchmarks/foot_creep.py [--robots go2,solo12] [--duration 5] [--json FILE]
        [--mjcf PATH --feet FL_foot,FR_foot,RL_foot,RR_foot --foot-radius 0.022]

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
pyramidal, feet d 0.9999 (the default)   0.15 mm, 16.0 µs  0.11 mm, 15.9 µs
the file's own (elliptic, impratio 100)                                      0.2 mm, 25.0 µs
======================================  ================  ================  ================

The global options stiffen the humanoids' soles too, and the built-in G1 then falls on its 3 m
walk (see :mod:`tsid_py.sim.contact`): the default stiffens the point feet only.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.bench import write_json
from tsid_py.sim import Simulation
from tsid_py.sim.contact import ContactOptions
from tsid_py.control.reference import quadruped_stance

#: The contact models compared (None: MuJoCo's own for a built model, the file's for MJCF).
OPTIONS = {
    "pyramidal, impratio 1": ContactOptions(cone="pyramidal", impratio=1.0, point_foot_impedance=None),
    "pyramidal, impratio 10": ContactOptions(cone="pyramidal", impratio=10.0, point_foot_impedance=None),
    "elliptic, impratio 1": ContactOptions(cone="elliptic", impratio=1.0, point_foot_impedance=None),
    "elliptic, impratio 10": ContactOptions(cone="elliptic", impratio=10.0, point_foot_impedance=None),
    "elliptic, impratio 100": ContactOptions(cone="elliptic", impratio=100.0, point_foot_impedance=None),
    "pyramidal, no-slip 3": ContactOptions(noslip_iterations=3, point_foot_impedance=None),
    "feet d 0.999": ContactOptions(point_foot_impedance=0.999),
    "feet d 0.9999 (default)": ContactOptions(),
}


def stand(robot: tp.Robot, contact: ContactOptions | None, duration: float) -> dict:
    """Hold ``robot`` still for ``duration`` s; the feet's largest slip and the step time."""
    sim = Simulation(robot, contact=contact)
    controller = quadruped_stance(robot, sim.timestep)
    robot.update(robot.q_ref, robot.zero_velocity())
    controller.com.set_target(robot.com.copy())
    start = {foot: sim.foot_pose(foot)[1][:2].copy() for foot in robot.feet}
    step_times = []
    for _ in range(int(round(duration / sim.timestep))):
        solution = controller.step(*sim.state())
        tic = time.perf_counter()
        sim.step(solution.tau_actuated)
        step_times.append(time.perf_counter() - tic)
    slip = max(float(np.linalg.norm(sim.foot_pose(foot)[1][:2] - start[foot])) for foot in robot.feet)
    return {"slip_m": slip, "median_step_us": float(np.median(step_times) * 1e6),
            "base_height_m": float(sim.state()[0][2])}


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
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
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
