"""Time the documented over-time inverse dynamics on Talos standing on two feet.

    python benchmarks/inverse_dynamics_over_time.py [--frames 1000 4000] [--repeat 3]
        [--motion controller sway] [--json FILE]

The call is the documented one: friction and the robot's soles as contact bounds, default
smoothing (weight 1). Two motions: ``controller`` — the balance controller swaying the CoM
(its own q̈ integrated at 1 kHz: every frame's wrenches can satisfy the bounds); ``sway`` —
joints and base swaying sinusoidally at 100 Hz, which moves the feet, so some frames cannot
satisfy the bounds and are relaxed. Prints the median wall time over ``--repeat`` runs for
each length T, the time per frame (constant = linear in T), the interior-point iterations,
the relaxed frames and the largest violation of the true friction cone and the soles by the
other frames' wrenches. Targets (issue 18): T = 1000 in < 1 s, T = 4000 in < 4.5 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.offline.over_time import DEFAULT_FRICTION
from tsid_py.control.reference import balance_rollout


def swaying_trajectory(robot: tp.Robot, count: int, dt: float) -> np.ndarray:
    """Joints and base swaying at 0.5–1.5 Hz around the reference posture."""
    rng = np.random.default_rng(0)
    phases = rng.uniform(0, 2 * np.pi, robot.nv)
    frequency = rng.uniform(0.5, 1.5, robot.nv)
    amplitude = np.r_[np.full(6, 0.01), np.full(robot.nv - 6, 0.05)]
    times = np.arange(count) * dt
    return np.array([pin.integrate(robot.model, robot.q_ref, amplitude * np.sin(2 * np.pi * frequency * t + phases))
                     for t in times])


def motion(robot: tp.Robot, name: str, count: int) -> tuple[np.ndarray, float]:
    if name == "controller":
        return balance_rollout(robot, count - 1, dt=1e-3, sway=0.04)[0], 1e-3
    return swaying_trajectory(robot, count, 0.01), 0.01


def bound_violation(robot: tp.Robot, result) -> float:
    """Largest violation (N or N·m) of the true friction cone (μ = the default friction),
    ``f_z ≥ 0`` and the sole rectangle, over the frames not reported relaxed."""
    kept = np.setdiff1d(np.arange(len(result.tau)), result.relaxed_frames)
    local = result.local_wrenches[kept]
    force, moment = local[..., :3], local[..., 3:]
    length, width = robot.sole_size
    normal = force[..., 2]
    excess = [np.hypot(force[..., 0], force[..., 1]) - DEFAULT_FRICTION * normal, -normal,
              np.abs(moment[..., 1]) - length / 2 * normal, np.abs(moment[..., 0]) - width / 2 * normal]
    return float(max(np.max(e, initial=0.0) for e in excess))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--motion", nargs="+", default=["controller", "sway"], choices=["controller", "sway"])
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    robot = tp.robots.load("talos")
    report = {}
    for name in args.motion:
        for count in args.frames:
            positions, dt = motion(robot, name, count)
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)
                times.append(time.perf_counter() - start)
            median = float(np.median(times))
            report[f"{name}/{count}"] = {"median_s": median, "per_frame_us": median / count * 1e6,
                                         "iterations": result.iterations,
                                         "relaxed_frames": int(result.relaxed_frames.size),
                                         "bound_violation": bound_violation(robot, result)}
            print(f"{name:10s} T = {count:5d}: median {median:7.3f} s ({median / count * 1e6:6.1f} µs per frame), "
                  f"{result.iterations} iterations, {result.relaxed_frames.size} relaxed frames, largest cone/sole "
                  f"violation elsewhere {report[f'{name}/{count}']['bound_violation']:.1e}")
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
