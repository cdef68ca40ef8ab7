"""Time multiple_contact_inverse_dynamics_over_time on Talos standing on two feet.

    python benchmarks/inverse_dynamics_over_time.py [--frames 250 1000 4000] [--repeat 3] [--json FILE]

Prints the median wall time over ``--repeat`` runs for each trajectory length T and the time
per frame (constant per frame = linear growth with T).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.bench import write_json


def swaying_trajectory(robot: tp.Robot, count: int, dt: float) -> np.ndarray:
    """Joints and base swaying at 0.5–1.5 Hz around the reference posture."""
    rng = np.random.default_rng(0)
    phases = rng.uniform(0, 2 * np.pi, robot.nv)
    frequency = rng.uniform(0.5, 1.5, robot.nv)
    amplitude = np.r_[np.full(6, 0.01), np.full(robot.nv - 6, 0.05)]
    times = np.arange(count) * dt
    return np.array([pin.integrate(robot.model, robot.q_ref, amplitude * np.sin(2 * np.pi * frequency * t + phases))
                     for t in times])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[250, 1000, 4000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    robot = tp.robots.load("talos")
    dt = 0.01
    report = {}
    for count in args.frames:
        positions = swaying_trajectory(robot, count, dt)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)
            times.append(time.perf_counter() - start)
        median = float(np.median(times))
        report[count] = {"median_s": median, "per_frame_us": median / count * 1e6}
        print(f"T = {count:5d}: median {median:7.3f} s   ({median / count * 1e6:6.1f} µs per frame)")
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
