"""What the hip strategy buys per robot: the upper body's bang-bang angular-momentum rate about
x (lateral CMP shift) and y (sagittal), and the extra capture-point offset it catches
(:mod:`tsid_py.control.hip_strategy`), best over the half-duration T.

    python benchmarks/hip_strategy.py [--robot g1 talos]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tsid_py import robots  # noqa: E402
from tsid_py.control.hip_strategy import capacity  # noqa: E402


def push_equivalent(robot, dcm_shift: float, push_time: float = 0.1) -> float:
    """The 0.1 s push (N) whose velocity change moves the DCM by ``dcm_shift``: Δξ = F T / (m ω)."""
    import pinocchio as pin
    model, data = robot.model, robot.model.createData()
    mass = float(sum(i.mass for i in model.inertias))
    pin.framesForwardKinematics(model, data, robot.q_ref)
    sole = min(float(data.oMf[model.getFrameId(f)].translation[2]) for f in robot.feet)
    omega = np.sqrt(9.81 / (float(pin.centerOfMass(model, data, robot.q_ref)[2]) - sole))
    return dcm_shift * mass * omega / push_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", default=["g1", "talos"])
    args = parser.parse_args()
    print("robot axis sign  best_T(s)  rate(N·m)  cmp_shift(mm)  dcm_shift(mm)  push_0.1s(N)")
    for name in args.robot:
        robot = robots.load(name)
        for axis in (0, 1):
            for sign in (1.0, -1.0):
                best = max((capacity(robot.model, robot.q_ref, list(robot.feet), axis, t, sign)
                            for t in np.arange(0.05, 0.61, 0.05)), key=lambda c: c.dcm_shift)
                print(f"{name:6s} {'xy'[axis]}    {sign:+.0f}   {best.duration:.2f}      {best.rate:7.1f}"
                      f"    {1e3 * best.cmp_shift:7.1f}        {1e3 * best.dcm_shift:6.1f}"
                      f"        {push_equivalent(robot, best.dcm_shift):5.1f}")


if __name__ == "__main__":
    main()
