"""The point feet's contact model under a trot and standing still.

    python benchmarks/trot_contact.py [--robots go2,solo12] [--json FILE]

Per robot and per contact model (:class:`tsid_py.sim.contact.ContactOptions`: the harness's
default, ``WALKING_CONTACT`` and a few in between), the table gives, for a trot at 0.5 m/s
(3 s, :class:`~tsid_py.control.quadruped.QuadrupedController`): the physics steps at which a
foot the controller holds on the ground carried no force in MuJoCo (its contact dropped), and
the median slip of a stance (MuJoCo's contact point, from where the contact was made to where
the foot lifted); and for the stance controller standing still 5 s (``quadruped_stance``, as
``benchmarks/foot_creep.py``) the worst foot's creep. Measured on this machine (MuJoCo 4.0):

=========================================  ================  ================  ================
contact model (point feet: d, correction)  drops go2/solo12  slip go2/solo12   creep go2/solo12
=========================================  ================  ================  ================
d 0.9999, 20 ms (the harness's default)    41 / 52           5.40 / 4.92 mm    0.15 / 0.11 mm
d 0.999, 5 ms                              99 / 122          3.08 / 2.58 mm    0.38 / 0.27 mm
d 0.99, 5 ms                               0 / 28            0.06 / 0.14 mm    3.83 / 2.73 mm
d 0.99, 2 ms                               0 / 20            0.04 / 0.04 mm    1.52 / 1.09 mm
d 0.993, 2 ms (WALKING_CONTACT)            0 / 34            0.03 / 0.06 mm    1.07 / 0.76 mm
=========================================  ================  ================  ================

(drops: over the last 2 s of the trot; a drop under WALKING_CONTACT is a foot about to lift
whose planned force had reached zero, not a contact lost under load.)
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import tsid_py as tp
from tsid_py.control.quadruped import QuadrupedController
from tsid_py.control.reference import quadruped_stance
from tsid_py.sim import Simulation
from tsid_py.sim.contact import MUJOCO_OPTIONS, WALKING_CONTACT, ContactOptions

MODELS = {
    "d 0.9999, 20 ms (the default's feet)": ContactOptions(**MUJOCO_OPTIONS),
    "d 0.999, 5 ms": ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=0.999, point_foot_timeconst=0.005),
    "d 0.99, 5 ms": ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=0.99, point_foot_timeconst=0.005),
    "d 0.99, 2 ms": ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=0.99, point_foot_timeconst=0.002),
    "d 0.993, 2 ms (WALKING_CONTACT)": WALKING_CONTACT,
}


def trot(name: str, contact: ContactOptions, seconds: float = 3.0) -> tuple[int, float]:
    """Contact drops and the median stance slip (m) of a 0.5 m/s trot."""
    robot = tp.robots.load(name)
    sim = Simulation(robot, contact=contact)
    controller = QuadrupedController(robot, sim.timestep)
    controller.walk(0.5)
    drops, planted, slips = 0, {}, []
    for step in range(int(round(seconds / sim.timestep))):
        q, v = sim.state()
        sim.step(controller.step(q, v, sim.contact_wrenches()).tau_actuated)
        wrenches = sim.contact_wrenches()
        for foot in robot.feet:
            position = sim.foot_pose(foot)[1][:2]
            if foot in controller.solver.contacts:
                drops += int(step > 1000 and wrenches[foot][2] <= 0.0)
                planted.setdefault(foot, position.copy())
            elif foot in planted:
                slips.append(float(np.linalg.norm(position - planted.pop(foot))))
    return drops, float(np.median(slips))


def creep(name: str, contact: ContactOptions, seconds: float = 5.0) -> float:
    """The worst foot's horizontal creep (m) standing still."""
    robot = tp.robots.load(name)
    sim = Simulation(robot, contact=contact)
    controller = quadruped_stance(robot, sim.timestep)
    robot.update(robot.q_ref, robot.zero_velocity())
    controller.com.set_target(robot.com.copy())
    start = {foot: sim.foot_pose(foot)[1][:2].copy() for foot in robot.feet}
    for _ in range(int(round(seconds / sim.timestep))):
        sim.step(controller.step(*sim.state()).tau_actuated)
    return max(float(np.linalg.norm(sim.foot_pose(foot)[1][:2] - start[foot])) for foot in robot.feet)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", default="go2,solo12")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    results = []
    print(f"{'robot':8s} {'contact model':34s} {'drops':>6s} {'slip mm':>8s} {'creep mm':>9s}")
    for name in args.robots.split(","):
        for label, contact in MODELS.items():
            drops, slip = trot(name, contact)
            result = {"robot": name, "contact": label, "drops": drops, "stance_slip_m": slip,
                      "standing_creep_m": creep(name, contact)}
            results.append(result)
            print(f"{name:8s} {label:34s} {drops:6d} {slip * 1e3:8.2f} {result['standing_creep_m'] * 1e3:9.2f}",
                  flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return results


if __name__ == "__main__":
    main()
