"""Time one control step of the reference balance problem.

    python benchmarks/step.py [--robot talos g1 go2] [--steps 2000] [--warmup 200] [--json FILE]
    tsid-py bench  (same options)

The reference problem (TSID's and placo's demo): Talos ``talos_reduced`` (nv = 38) at
half-sitting, two planar foot contacts with friction and centre-of-pressure constraints, a
CoM task following a 4 cm sinusoid at 0.5 Hz, a torso orientation task, a posture task and
torque limits. The state follows the solver's own q̈ (semi-implicit Euler on the manifold):
this is a timing harness, not a simulation. A step is the whole ``solver.solve(q, v)``:
state update, assembly, QP solve and extraction of the solution.

BLAS is limited to one thread while timing: the matrices of a control step are small
(50 x 50), and OpenBLAS's threads cost more to wake than they save (about 1.5x slower
steps with two threads on a 2-core machine). The process is also pinned to one core
while timing (Linux), so the scheduler does not move it between steps. Do the same in a
control loop.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from contextlib import contextmanager

import numpy as np
import pinocchio as pin
from threadpoolctl import threadpool_limits

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance, quadruped_stance
from tsid_py.scenarios.reports import write_json  # noqa: F401 (the benchmarks' writer)
from tsid_py.scenarios.soak import resident_megabytes  # noqa: F401 (benchmarks/memory.py)


def benchmark(robot_name: str, steps: int = 2000, warmup: int = 200, qp_solver: str = "reduced") -> dict:
    """Median/p99/max step time in µs and the share of each phase, BLAS on one thread."""
    with threadpool_limits(limits=1, user_api="blas"), _pinned_to_one_core():
        return _benchmark(robot_name, steps, warmup, qp_solver)


@contextmanager
def _pinned_to_one_core():
    """Run on one core (the last one allowed) and restore the affinity afterwards; a no-op
    where the OS has no affinity call."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


class ReferenceProblem:
    """The reference balance problem for ``robot_name``, stepped one control period at a time
    (the CoM target follows the sinusoid; the state follows the solver's own q̈)."""

    def __init__(self, robot_name: str, qp_solver: str = "reduced", dt: float = 1e-3):
        self.robot = robot = tp.robots.load(robot_name)
        self.dt = dt
        build = humanoid_balance if robot.sole_size else quadruped_stance
        self.controller = build(robot, dt, qp_solver=qp_solver)
        self.solver = self.controller.solver
        robot.update(robot.q_ref, robot.zero_velocity())
        self.centre = robot.com.copy()
        self.q, self.v = robot.q_ref.copy(), robot.zero_velocity()
        self.k = 0
        self.solution = None      # refilled by each step (``solve(..., out=)``: no allocation)

    def step(self) -> float:
        """One control step; returns the seconds spent in ``solver.solve``."""
        t, omega = self.k * self.dt, 2 * np.pi * 0.5
        s, c = np.sin(omega * t), np.cos(omega * t)
        self.controller.com.set_target(self.centre + [0, 0.04 * s, 0], velocity=[0, 0.04 * omega * c, 0],
                                       acceleration=[0, -0.04 * omega**2 * s, 0])
        tic = time.perf_counter()
        solution = self.solution = self.solver.solve(self.q, self.v, out=self.solution)
        elapsed = time.perf_counter() - tic
        self.v = self.v + self.dt * solution.ddq
        self.q = pin.integrate(self.robot.model, self.q, self.dt * self.v)
        self.k += 1
        return elapsed


def _benchmark(robot_name: str, steps: int, warmup: int, qp_solver: str) -> dict:
    problem = ReferenceProblem(robot_name, qp_solver)
    totals, phases = [], {key: [] for key in ("dynamics", "assembly", "qp", "extraction")}
    for k in range(warmup + steps):
        elapsed = problem.step()
        if k >= warmup:
            totals.append(elapsed)
            for key in phases:
                phases[key].append(problem.solver.timings[key])
    totals_us = np.array(totals) * 1e6
    total_time = sum(totals)
    yardstick = _dynamics_pass_us(problem.robot)
    share = {key: float(sum(values) / total_time) for key, values in phases.items()}
    share["other"] = 1.0 - sum(share.values())      # input checks, transitions, bookkeeping
    return {
        "robot": robot_name, "nv": problem.robot.nv, "steps": steps, "qp_solver": qp_solver,
        "median_us": float(np.median(totals_us)), "p99_us": float(np.percentile(totals_us, 99)),
        "max_us": float(totals_us.max()), "share": share,
        "computeAllTerms_us": yardstick[0], "computeAllTerms_p99_us": yardstick[1],
    }


def _dynamics_pass_us(robot, calls: int = 2000) -> tuple[float, float]:
    """Median and p99 time of one ``pinocchio.computeAllTerms`` on ``robot``, µs: a yardstick
    for the machine at the time of the run. A shared machine's speed drifts by 20 % or more,
    and its interruptions stretch any code's tail: the yardstick's p99 shows how much."""
    q, v = robot.q_ref, robot.zero_velocity()
    times = []
    for _ in range(calls):
        tic = time.perf_counter()
        pin.computeAllTerms(robot.model, robot.data, q, v)
        times.append(time.perf_counter() - tic)
    return float(np.median(times) * 1e6), float(np.percentile(times, 99) * 1e6)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(prog="tsid-py bench", description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", default=list(tp.robots.BENCHMARK_ROBOTS))
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--qp-solver", default="reduced")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    reports = []
    for name in args.robot:
        report = benchmark(name, args.steps, args.warmup, args.qp_solver)
        reports.append(report)
        share = ", ".join(f"{key} {100 * value:.0f}%" for key, value in report["share"].items())
        print(f"{name:6s} nv={report['nv']:2d}  median {report['median_us']:7.1f} µs  p99 {report['p99_us']:7.1f} µs"
              f"  max {report['max_us']:8.1f} µs   ({share}; computeAllTerms {report['computeAllTerms_us']:.1f} µs,"
              f" p99 {report['computeAllTerms_p99_us']:.1f} µs)")
    write_json(args.json, reports)
    return reports


if __name__ == "__main__":
    main()
