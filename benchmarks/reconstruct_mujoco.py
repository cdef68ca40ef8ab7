"""Recover ground-reaction forces of a MuJoCo recording from positions alone, and time it.

    python benchmarks/reconstruct_mujoco.py [--duration 2.5] [--repeat 3] [--json FILE]

The balance controller performs a motion the library does not plan for — an asymmetric
sideways sway, over the left foot, with a squat (:func:`tsid_py.scenarios.recordings.sway_and_squat`)
— in MuJoCo at 1 kHz. Only the base and joint positions go to the documented call
``tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)`` (default
smoothing, the robot's soles and friction 1 as contact bounds); the vertical forces it
recovers are compared with MuJoCo's contact forces. The same comparison without the bounds
(``friction=None``) shows what they are for. Targets (issue 18), 2500 frames: per-foot
vertical force within 5 % of body weight RMS, the total within 0.5 %, in < 3 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.scenarios.recordings import force_errors, sway_and_squat


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=2.5, help="recorded seconds (1 kHz)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    simulated = sway_and_squat("talos", args.duration)
    robot = tp.robots.load("talos")
    positions, dt = simulated.recording.positions, simulated.recording.dt
    report = {"frames": int(len(positions))}
    for label, options in (("documented call", {}), ("without bounds", {"friction": None})):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet, **options)
            times.append(time.perf_counter() - start)
        errors = force_errors(simulated, result)
        entry = {"median_s": float(np.median(times)), **errors, "relaxed_frames": int(result.relaxed_frames.size)}
        report[label] = entry
        print(f"{label:16s} {len(positions)} frames: {entry['median_s']:.3f} s, vertical force RMS error "
              f"per foot {errors['per_foot_pct_weight']:.2f} % of weight, total {errors['total_pct_weight']:.4f} %, "
              f"{entry['relaxed_frames']} relaxed frames")
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
