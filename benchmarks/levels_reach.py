"""Priority levels judged in MuJoCo: Talos reaches with its left hand while standing.

    python benchmarks/levels_reach.py [--duration 3] [--seeds 0 1 2] [--json FILE]

Talos stands on both feet (planar contacts, torque limits, joint limits); its left hand
reaches 30 cm forward and 10 cm up over 1 s (a smooth ramp, PD task, kp = 100) and holds
there. Two set-ups of the same tasks: ``soft`` (hand weight 10, CoM 1, torso 1, posture 10⁻²:
one weighted cost, the demos' way) and ``levels`` (hand level 1, CoM level 2, torso level 3,
posture soft). Each seed adds a 40 N push on the pelvis, 0.2 s at t = 1.5 s, in a random
horizontal direction, and measurement noise of 1 mrad / 0.01 rad/s on the joints. The
simulator is MuJoCo (the harness's plant built from the URDF): the controller sees the
simulator's state, its torques are applied each physics step.

Reported per set-up and seed: whether the robot fell (base below 70 % of its height), the
hand's largest and final distance to its target (m), the CoM's largest horizontal excursion
from its start (m), the median control step (µs) and, with levels, the steps in which each
level gave way.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import tsid_py as tp
from tsid_py.control import FailurePolicy
from tsid_py.sim import Simulation

HAND, TORSO = "arm_left_7_link", "torso_2_link"


def controller(robot: tp.Robot, levelled: bool):
    solver = tp.DynamicsSolver(robot)
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
    solver.add_constraint(tp.constraints.TorqueLimits())
    solver.add_constraint(tp.constraints.JointLimits())
    priority = (1, 2, 3) if levelled else ("soft", "soft", "soft")
    hand = solver.add_task(tp.tasks.PositionTask(HAND, kp=100.0, weight=10.0, priority=priority[0]))
    com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0, priority=priority[1]))
    solver.add_task(tp.tasks.OrientationTask(TORSO, kp=50.0, weight=1.0, priority=priority[2]))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    return solver, hand, com


def run(levelled: bool, seed: int, duration: float, dt: float = 1e-3) -> dict:
    rng = np.random.default_rng(seed)
    robot = tp.robots.load("talos")
    sim = Simulation(robot, timestep=dt)
    solver, hand, com = controller(robot, levelled)
    policy = FailurePolicy(solver)
    start = robot.placement_at(robot.q_ref, robot.model.getFrameId(HAND)).translation.copy()
    goal = start + [0.3, 0.0, 0.1]
    com_start = com.position_ref.copy()
    angle = rng.uniform(0, 2 * np.pi)
    push = 40.0 * np.array([np.cos(angle), np.sin(angle), 0.0])
    hand_error, com_excursion, step_times, gave_way, fell = [], [], [], {}, False
    for k in range(int(duration / dt)):
        t = k * dt
        ramp = min(t / 1.0, 1.0)
        ramp = ramp * ramp * (3 - 2 * ramp)                       # smoothstep
        hand.set_target(start + ramp * (goal - start))
        if abs(t - 1.5) < dt / 2:
            sim.push(push, 0.2)
        q, v = sim.state()
        q, v = q.copy(), v.copy()
        q[7:] += rng.normal(0, 1e-3, robot.nq - 7)
        v[6:] += rng.normal(0, 1e-2, robot.nv - 6)
        tic = time.perf_counter()
        solution = policy.solve(q, v)
        step_times.append(time.perf_counter() - tic)
        for level in solution.gave_way:
            gave_way[str(level)] = gave_way.get(str(level), 0) + 1
        sim.step(solution.tau_actuated)
        q_true, _ = sim.state()
        if q_true[2] < 0.7 * robot.q_ref[2]:
            fell = True
            break
        hand_error.append(np.linalg.norm(robot.placement_at(q_true, robot.model.getFrameId(HAND)).translation - goal))
        com_excursion.append(np.linalg.norm(sim.com_state()[0][:2] - com_start[:2]))
    return {"setup": "levels" if levelled else "soft", "seed": seed, "fell": fell,
            "hand_final_error_m": float(hand_error[-1]), "hand_max_error_after_1s_m": float(max(hand_error[1000:])),
            "com_max_excursion_m": float(max(com_excursion)), "median_step_us": 1e6 * float(np.median(step_times)),
            "relaxed_steps": int(sum(policy.counts.values())), "gave_way_steps": gave_way}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    reports = []
    for seed in args.seeds:
        for levelled in (False, True):
            report = run(levelled, seed, args.duration)
            reports.append(report)
            print(json.dumps(report))
    if args.json:
        with open(args.json, "w") as file:
            json.dump(reports, file, indent=2)


if __name__ == "__main__":
    main()
