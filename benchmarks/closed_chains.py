"""Parallel ankles judged in MuJoCo: the closed-chain biped under the balance controller.

    python benchmarks/closed_chains.py [--duration 5] [--forces 20 40 60] [--json FILE]

``tests/data/parallel_ankles.xml`` (each ankle driven by two motors through rods closed by
``<equality connect>``, the ankle and rod joints passive) and, for comparison,
``tests/data/biped.xml`` (the same legs with motors on the ankles) stand under the balance
controller (the balance demo's: ground-truth state, the file simulated as shipped) for
``duration`` s: once unpushed, then pushed at 1 s for 0.1 s with each force toward each
horizontal direction. Reported per run: fell or survived (the balance demo's judge: base
height, soles' slip and tilt, coming to rest), the largest sole tilt (deg) and slip (m), and for
the closed chains, over every step: the largest residual of the loops' acceleration rows in
the QP's solution, the largest |τ| the solution gives a passive joint, and the largest gap of
MuJoCo's connect equalities (m, ``efc_pos``); the median control step (µs).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import mujoco
import numpy as np

import tsid_py as tp
from tsid_py.scenarios.push_recovery import run_pushes

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
ROBOTS = {"parallel ankles": DATA / "parallel_ankles.xml", "serial ankles": DATA / "biped.xml"}


class LoopWatch:
    """``on_step`` for :func:`run_pushes`: before each control step, the last step's QP rows
    of the closures and the passive joints' torques in its solution, and MuJoCo's gaps."""

    def __init__(self, robot: tp.Robot):
        self.passive = [robot.joint_v_index(joint) for joint in robot.passive_joints]
        self.rows = self.torque = self.gap = 0.0

    def __call__(self, t, controller, sim) -> None:
        solution = controller.state.solution
        if solution is not None:
            layout, qp = controller.solver.last_layout, controller.solver.last_qp
            rows = [i for i, label in enumerate(layout.labels["equalities"]) if label.startswith("closure ")]
            if rows:
                self.rows = max(self.rows, float(np.abs(qp.A[rows] @ solution.x - qp.b[rows]).max()))
            if self.passive:
                self.torque = max(self.torque, float(np.abs(solution.tau[self.passive]).max()))
        equality = sim.data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        if np.any(equality):
            self.gap = max(self.gap, float(np.abs(sim.data.efc_pos[equality]).max()))


def run(name: str, direction: str | None, force: float, duration: float) -> dict:
    robot = tp.robots.load(ROBOTS[name])
    watch = LoopWatch(robot)
    pushes = [(1.0, direction, force)] if direction else []
    summary, _ = run_pushes(robot, pushes, duration=duration, on_step=watch, settle_timeout=4.0)
    return {"robot": name, "direction": direction, "force": force, "fell": summary["fell"],
            "survived": summary["survived"], "max_tilt_deg": summary["max_sole_tilt_deg"],
            "max_slip_m": summary["max_sole_slip_m"], "median_step_us": summary["median_step_us"],
            "closure_rows": watch.rows, "passive_torque": watch.torque, "mujoco_gap_m": watch.gap}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--forces", type=float, nargs="+", default=[20.0, 40.0, 60.0])
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = []
    for name in ROBOTS:
        cases = [(None, 0.0)] + [(d, f) for f in args.forces for d in ("+x", "-x", "+y", "-y")]
        for direction, force in cases:
            result = run(name, direction, force, args.duration)
            results.append(result)
            push = f"{force:4.0f} N {direction}" if direction else "no push  "
            loops = (f"  rows {result['closure_rows']:.1e}  passive |tau| {result['passive_torque']:.1e} N·m  "
                     f"MuJoCo gap {result['mujoco_gap_m'] * 1e6:.2f} um" if name == "parallel ankles" else "")
            print(f"{name:15s} {push}  {'FELL' if result['fell'] else 'survived' if result['survived'] else 'stood'}"
                  f"  tilt {result['max_tilt_deg']:.2f} deg  slip {result['max_slip_m'] * 1e3:.2f} mm"
                  f"  step {result['median_step_us']:.0f} us{loops}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
