"""Where a step's tail comes from: each step of the reference problem timed with its phases,
the QP's repair work, the process's involuntary context switches and garbage collections.

    python benchmarks/tail.py [--robot talos] [--steps 20000] [--core K] [--realtime-priority P]
                              [--rate HZ] [--evict MB]

Inside :func:`tsid_py.loop.prepare_loop` (one core, one BLAS thread, gc frozen), each step
records: its time and phases (``solver.timings``), the reduced backend's active-set changes and
QP rounds (1: the compiled step was optimal; more: DAQP took over), whether the OS switched
the process out during the step or just before it (``getrusage(RUSAGE_THREAD).ru_nivcsw``,
Linux; a step right after another process ran starts with cold caches), whether the kernel
served an interrupt on the loop's core during the step (a timer tick, an inter-processor call:
``/proc/interrupts``, read between steps) and whether a collection ran. The slowest 1 % of the steps are then sorted by cause: preempted by the OS,
else the QP's repair (changes or DAQP rounds), else none of these (the phase that grew is named);
and the slowest 1 % of the steps the OS left alone (``quiet_tail``): their QP repairs, the phase
that grew most, and how much slower each phase ran than usual (all alike: the core itself was
slower — its other hardware thread busy, frequency — not one part of the step).

The machine's own tail, for comparison (``yardstick``): after each step, a block of pinocchio
``rnea`` calls as long as a typical step taken in the loop (the number of calls, a few µs each,
that makes its median the step's), timed the same way. Compiled C++ with no Python, no allocation and no branch on
the data: its p99/median is what this machine does to any code of that length at that moment.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import time

import numpy as np
import pinocchio as pin

from tsid_py.bench import ReferenceProblem
from tsid_py.loop import Pace, prepare_loop
from tsid_py.scenarios.reports import write_json


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--core", type=int, default=-1, help="core to pin the loop to (-1: the last allowed)")
    parser.add_argument("--realtime-priority", type=int, help="SCHED_FIFO priority 1-99 (root or CAP_SYS_NICE)")
    parser.add_argument("--rate", type=float,
                        help="pace the steps at this rate, Hz (each starts on its period, spinning until then), "
                             "as a control loop takes them; default: back to back")
    parser.add_argument("--evict", type=float, metavar="MB",
                        help="write a buffer of MB megabytes before each step: the step with cold caches")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if args.rate is not None and not args.rate > 0:
        parser.error(f"--rate must be > 0 Hz, got {args.rate}")
    if args.evict is not None and not 0 < args.evict < 1e5:
        parser.error(f"--evict must be a size in MB in (0, 1e5), got {args.evict}")
    evicted = None if args.evict is None else np.ones(max(1, int(args.evict * 2**20) // 8))
    problem = ReferenceProblem(args.robot)
    for _ in range(500):                        # compiles, fills the caches
        problem.step()
    steps = args.steps
    times, switches, changes, rounds = np.zeros(steps), np.zeros(steps), np.zeros(steps), np.zeros(steps)
    switched_before = np.zeros(steps)           # switched out between the previous step and this one
    # the solver's phases, and the time in solve() outside them (the lock, input checks, the steady step's
    # currency test)
    phases = {key: np.zeros(steps) for key in ("dynamics", "assembly", "qp", "extraction", "outside_phases")}
    yardstick_times, yardstick_switches = np.zeros(steps), np.zeros(steps)
    collections = []
    gc.callbacks.append(lambda phase, info: collections.append(1) if phase == "start" else None)
    backend = problem.solver.backend
    usage = resource.RUSAGE_THREAD if hasattr(resource, "RUSAGE_THREAD") else resource.RUSAGE_SELF
    interrupted = np.zeros(steps)
    with prepare_loop(args.core, realtime_priority=args.realtime_priority) as settings:
        interrupts = CoreInterrupts(settings.core)
        # the yardstick as long as the steps the loop below takes (pinned, between two reads of
        # the interrupt table): sized from steps taken outside it, it ran a quarter shorter than
        # them, so fewer timer ticks hit it and its tail looked lighter than the machine's
        yardstick = Yardstick(problem.robot, float(np.median([counted_step(problem, interrupts) for _ in range(500)])))
        last = resource.getrusage(usage).ru_nivcsw
        pace = Pace(args.rate)
        for k in range(steps):
            pace.wait()
            if evicted is not None:
                np.add(evicted, 1.0, out=evicted)
            before, count = resource.getrusage(usage).ru_nivcsw, interrupts.count()
            times[k] = problem.step()
            interrupted[k] = interrupts.count() - count
            after = resource.getrusage(usage).ru_nivcsw
            switches[k], switched_before[k], last = after - before, before - last, after
            changes[k], rounds[k] = getattr(backend, "changes", 0), getattr(backend, "rounds", 1)
            for key, value in problem.solver.timings.items():
                phases[key][k] = value
            phases["outside_phases"][k] = times[k] - problem.solver.last_step_seconds
            yardstick_times[k] = yardstick.time()
            last = resource.getrusage(usage).ru_nivcsw
            yardstick_switches[k] = last - after
    times_us = times * 1e6
    median, p99 = float(np.median(times_us)), float(np.percentile(times_us, 99))
    slow = np.flatnonzero(times_us >= p99)
    quiet = (switches == 0) & (switched_before == 0)
    preempted = (switches[slow] > 0) | (switched_before[slow] > 0)      # during it, or just before (cold caches)
    repaired = ~preempted & ((changes[slow] > 0) | (rounds[slow] > 1))
    other = ~preempted & ~repaired
    grew = {key: 0 for key in phases}
    for k in slow[other]:
        excess = {key: values[k] - np.median(values) for key, values in phases.items()}
        grew[max(excess, key=excess.get)] += 1
    quiet_p99 = np.percentile(times_us[quiet], 99)
    quiet_slow = np.flatnonzero(quiet & (times_us >= quiet_p99))
    quiet_repair = int(np.sum((changes[quiet_slow] > 0) | (rounds[quiet_slow] > 1)))
    quiet_phase = {key: 0 for key in phases}
    for k in quiet_slow:
        excess = {key: values[k] - np.median(values) for key, values in phases.items()}
        quiet_phase[max(excess, key=excess.get)] += 1
    spread = {key: float(np.median([values[k] / np.median(values) for k in quiet_slow])) for key, values in phases.items()}
    undisturbed = quiet & (interrupted == 0)
    report = {"robot": args.robot, "steps": steps, "rate_hz": args.rate, "late_periods": pace.late, "evict_mb": args.evict,
              "loop_notes": settings.notes + interrupts.notes,
              "median_us": median, "p99_us": float(p99), "p99_over_median": p99 / median, "max_us": float(times_us.max()),
              "median_without_preempted_us": float(np.median(times_us[quiet])),
              "p99_without_preempted_us": float(np.percentile(times_us[quiet], 99)),
              "p99_over_median_without_preempted": p99_over_median(times_us[quiet]),
              "steps_preempted": int(np.sum(switches > 0)), "slowest_1pc": int(slow.size),
              "steps_interrupted": int(np.sum(interrupted > 0)), "slowest_interrupted": int(np.sum(interrupted[slow] > 0)),
              "p99_over_median_without_preempted_or_interrupted": p99_over_median(times_us[undisturbed]),
              "slowest_preempted_by_os": int(preempted.sum()), "slowest_qp_repair": int(repaired.sum()),
              "slowest_other_by_phase": grew, "steps_with_qp_repair": int(np.sum((changes > 0) | (rounds > 1))),
              "collections": len(collections),
              "median_phase_us": {key: float(np.median(values) * 1e6) for key, values in phases.items()},
              "quiet_tail": {"steps": int(quiet_slow.size), "qp_repair": quiet_repair, "largest_growth_in": quiet_phase,
                             "median_phase_ratio_to_typical": spread},
              "yardstick": yardstick.report(yardstick_times * 1e6, yardstick_switches == 0),
              # the same-length C++ block right after each of the slowest undisturbed steps, over its median:
              # well above 1 when the machine, not the step, was slow at that moment
              "yardstick_after_quiet_tail": float(np.median(yardstick_times[quiet_slow]) / np.median(yardstick_times))}
    print(json.dumps(report, indent=2))
    write_json(args.json, report)
    return report


def counted_step(problem: ReferenceProblem, interrupts: "CoreInterrupts") -> float:
    """One step's seconds, taken between two reads of the interrupt table as the loop takes it."""
    interrupts.count()
    elapsed = problem.step()
    interrupts.count()
    return elapsed


def p99_over_median(times: np.ndarray) -> float:
    """The 99th percentile of ``times`` over their median."""
    return float(np.percentile(times, 99) / np.median(times))


class CoreInterrupts:
    """The interrupts (timer ticks, inter-processor calls, devices) the kernel has served on one
    core so far, read from ``/proc/interrupts`` (Linux) between two steps: an isolated core
    (``isolcpus``, ``nohz_full``, IRQ affinity) serves almost none, a shared one a few hundred a
    second — each a few to tens of µs, with the caches it disturbs."""

    def __init__(self, core: int | None):
        self.core, self.notes = core, []
        if core is None or not os.path.exists("/proc/interrupts"):
            self.core = None
            self.notes.append("interrupts not counted (no pinned core or no /proc/interrupts)")

    def count(self) -> int:
        if self.core is None:
            return 0
        with open("/proc/interrupts") as table:
            columns = next(table).split().index(f"CPU{self.core}") + 1
            return sum(int(fields[columns]) for fields in map(str.split, table)
                       if len(fields) > columns and fields[columns].isdigit())


class Yardstick:
    """A block of ``rnea`` calls as long as a typical control step (one call, a few µs, sets the
    grain: a block of whole ``computeAllTerms`` calls, 12 µs each, missed a 40 µs step by up to
    a sixth, and a shorter block is hit by fewer timer ticks)."""

    def __init__(self, robot, step_seconds: float):
        self.model, self.data = robot.model, robot.model.createData()
        self.q, self.v = robot.q_ref.copy(), robot.zero_velocity()
        self.a = robot.zero_velocity()
        single = np.median([self._block(1) for _ in range(500)])
        self.calls = max(1, round(step_seconds / single))

    def _block(self, calls: int) -> float:
        tic = time.perf_counter()
        for _ in range(calls):
            pin.rnea(self.model, self.data, self.q, self.v, self.a)
        return time.perf_counter() - tic

    def time(self) -> float:
        """Seconds for one block."""
        return self._block(self.calls)

    def report(self, times_us: np.ndarray, quiet: np.ndarray) -> dict:
        return {"calls": self.calls, "median_us": float(np.median(times_us)),
                "p99_us": float(np.percentile(times_us, 99)), "p99_over_median": p99_over_median(times_us),
                "p99_over_median_without_preempted": p99_over_median(times_us[quiet])}


if __name__ == "__main__":
    main()
