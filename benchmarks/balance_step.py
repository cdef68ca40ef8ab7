"""Time one step of the balance controller against the plain reference problem.

    python benchmarks/balance_step.py [--robot talos] [--steps 2000] [--warmup 200]

Both follow the reference motion of ``tsid-py bench`` (a 4 cm lateral CoM sinusoid at
0.5 Hz; the state follows the solver's own q̈), one BLAS thread, pinned to one core:

* ``reference``: ``solver.solve`` of ``tsid_py.control.reference.humanoid_balance`` (what
  ``tsid-py bench`` times);
* ``balance``: the whole :meth:`tsid_py.control.BalanceController.step` — capture-point
  task, wrench regularisation, the failure policy's wrapper and the contact-state monitor;
* ``balance_refill``: the same with ``refill`` (:class:`~tsid_py.control.pipeline.SolveStage`:
  one solution refilled in place, the solver's steady step).

The three are timed interleaved, step by step, so that a shared machine's drift hits both.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pinocchio as pin
from threadpoolctl import threadpool_limits

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.control.reference import humanoid_balance


class _Loop:
    def __init__(self, robot, step):
        self.robot, self.step_function = robot, step
        robot.update(robot.q_ref, robot.zero_velocity())
        self.centre = robot.com.copy()
        self.q, self.v, self.k = robot.q_ref.copy(), robot.zero_velocity(), 0

    def step(self, com_task, dt: float = 1e-3) -> float:
        t, omega = self.k * dt, 2 * np.pi * 0.5
        s, c = np.sin(omega * t), np.cos(omega * t)
        com_task.set_target(self.centre + [0, 0.04 * s, 0], velocity=[0, 0.04 * omega * c, 0],
                            acceleration=[0, -0.04 * omega**2 * s, 0])
        tic = time.perf_counter()
        solution = self.step_function(self.q, self.v)
        elapsed = time.perf_counter() - tic
        self.v = self.v + dt * solution.ddq
        self.q = pin.integrate(self.robot.model, self.q, dt * self.v)
        self.k += 1
        return elapsed


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args(argv)
    names = ("reference", "balance", "balance_refill")
    reference_robot, balance_robot, refill_robot = (tp.robots.load(args.robot) for _ in names)
    reference = humanoid_balance(reference_robot)
    balance, refilled = BalanceController(balance_robot), BalanceController(refill_robot)
    refilled.refill = True
    loops = [(_Loop(reference_robot, reference.solver.solve), reference.com),
             (_Loop(balance_robot, balance.step), balance.com), (_Loop(refill_robot, refilled.step), refilled.com)]
    times = [[] for _ in names]
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
    with threadpool_limits(limits=1, user_api="blas"):
        if allowed:
            os.sched_setaffinity(0, {max(allowed)})
        try:
            for k in range(args.warmup + args.steps):
                for index, (loop, com_task) in enumerate(loops):
                    elapsed = loop.step(com_task)
                    if k >= args.warmup:
                        times[index].append(elapsed)
        finally:
            if allowed:
                os.sched_setaffinity(0, allowed)
    report = {name: {"median_us": float(np.median(values) * 1e6), "p99_us": float(np.percentile(values, 99) * 1e6)}
              for name, values in zip(names, times)}
    report["ratio"] = report["balance"]["median_us"] / report["reference"]["median_us"]
    for name in names:
        print(f"{name:14s} median {report[name]['median_us']:6.1f} µs  p99 {report[name]['p99_us']:6.1f} µs")
    print(f"balance / reference: {report['ratio']:.3f}")
    return report


if __name__ == "__main__":
    main()
