"""What priority levels cost: the control step of Talos standing with the same tasks as one
weighted cost (hard + soft), as three levels and as four with inequalities at level 2.

    python benchmarks/levels_time.py [--steps 1000] [--qp-solver reduced] [--json FILE]

Feet in contact (planar, friction and centre-of-pressure rows), torque limits; the left hand
moves along a 5 cm circle at 0.5 Hz and the CoM sways 2 cm at 0.5 Hz. ``soft``: the hand
(weight 10), CoM (1) and posture (10⁻²) as one weighted cost; ``3 levels``: hand at level 1,
CoM at level 2, posture at level 3; ``4 levels``: hand 1, acceleration limits of 20 rad/s² at
level 2, CoM 3, torso orientation 4, posture soft. The state follows the solver's own q̈
(semi-implicit Euler): a timing harness, not a simulation. BLAS runs on one thread. Reports
the median and p99 step (µs) and, for the levelled problems, the mean backend solves per
level.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pinocchio as pin
from threadpoolctl import threadpool_limits

import tsid_py as tp

HAND, TORSO = "arm_left_7_link", "torso_2_link"


def build(robot: tp.Robot, case: str, qp_solver: str):
    """The solver of ``case`` and its hand and CoM tasks (to move their targets)."""
    solver = tp.DynamicsSolver(robot, qp_solver=qp_solver)
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
    solver.add_constraint(tp.constraints.TorqueLimits())
    levels = {"soft": ("soft", "soft", "soft"), "3 levels": (1, 2, 3), "4 levels": (1, 3, "soft")}[case]
    hand = solver.add_task(tp.tasks.PositionTask(HAND, kp=100.0, weight=10.0, priority=levels[0]))
    com = solver.add_task(tp.tasks.CoMTask(kp=100.0, priority=levels[1]))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2, priority=levels[2]))
    if case == "4 levels":
        solver.add_constraint(tp.constraints.AccelerationLimits(20.0, priority=2))
        solver.add_task(tp.tasks.OrientationTask(TORSO, kp=50.0, priority=4))
    return solver, hand, com


def run(case: str, steps: int, qp_solver: str = "reduced", dt: float = 1e-3) -> dict:
    robot = tp.robots.load("talos")
    solver, hand, com = build(robot, case, qp_solver)
    hand_home = robot.placement_at(robot.q_ref, robot.model.getFrameId(HAND)).translation.copy()
    com_home = com.position_ref.copy()
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    times, solves, solution = [], [], None
    for step in range(steps + 100):
        phase = 2 * np.pi * 0.5 * step * dt
        hand.set_target(hand_home + 0.05 * np.array([0.0, np.cos(phase) - 1.0, np.sin(phase)]))
        com.set_target(com_home + [0.0, 0.02 * np.sin(phase), 0.0])
        start = time.perf_counter()
        solution = solver.solve(q, v, out=solution)
        elapsed = time.perf_counter() - start
        if step >= 100:                                   # the first 100 steps warm up
            times.append(elapsed)
            solves.append([level.solves for level in solution.levels])
        v = v + dt * solution.ddq
        q = pin.integrate(robot.model, q, dt * v)
    report = {"case": case, "qp_solver": qp_solver, "median_us": 1e6 * float(np.median(times)),
              "p99_us": 1e6 * float(np.percentile(times, 99))}
    if solves and solves[0]:
        report["solves_per_level"] = np.mean(solves, axis=0).round(2).tolist()
        report["gave_way"] = [str(p) for p in solution.gave_way]
    return report


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--qp-solver", default="reduced")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    reports = []
    with threadpool_limits(limits=1, user_api="blas"):
        for case in ("soft", "3 levels", "4 levels"):
            reports.append(run(case, args.steps, args.qp_solver))
            report = reports[-1]
            print(f"{case:<9s} median {report['median_us']:8.1f} µs  p99 {report['p99_us']:8.1f} µs"
                  + (f"  solves per level {report['solves_per_level']}" if "solves_per_level" in report else ""))
    if args.json:
        with open(args.json, "w") as file:
            json.dump(reports, file, indent=2)


if __name__ == "__main__":
    main()
