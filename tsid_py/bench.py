"""Time one control step of the reference balance problem.

    python benchmarks/step.py [--robot talos g1 go2] [--steps 2000] [--warmup 200] [--json FILE]
    tsid-py bench  (same options; --rate HZ paces the steps as a control loop takes them)
    tsid-py bench --robot talos --peer placo=PYTHON [--rounds 5]   # against a peer, interleaved

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance, quadruped_stance
from tsid_py.loop import Pace, prepare_loop
from tsid_py.scenarios.reports import write_json  # noqa: F401 (the benchmarks' writer)
from tsid_py.scenarios.soak import resident_megabytes  # noqa: F401 (benchmarks/memory.py)


def benchmark(robot_name: str, steps: int = 2000, warmup: int = 200, qp_solver: str = "reduced",
              samples: bool = False, rate: float | None = None) -> dict:
    """Median/p99/max step time in µs and the share of each phase, in the loop practice of
    :func:`tsid_py.loop.prepare_loop` (one core, BLAS on one thread, the objects alive before
    the timed steps frozen out of the collector's reach) — ``samples``: also every step's
    time, ``samples_us``; ``rate`` (Hz): the steps paced as a control loop takes them, each
    on its period (:class:`tsid_py.loop.Pace`; None: back to back). Back to back, a step
    follows the one before with its caches warm, and an interrupt's cost lands on the next
    step too; paced, each follows a pause, as on a robot."""
    report = _benchmark(robot_name, steps, warmup, qp_solver, rate)
    if not samples:
        report.pop("samples_us")
    return report


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


def _benchmark(robot_name: str, steps: int, warmup: int, qp_solver: str, rate: float | None = None) -> dict:
    problem = ReferenceProblem(robot_name, qp_solver)
    totals, phases = np.zeros(steps), {key: np.zeros(steps) for key in ("dynamics", "assembly", "qp", "extraction")}
    for _ in range(warmup):
        problem.step()
    pace = Pace(rate)
    with prepare_loop():
        for k in range(steps):
            pace.wait()
            totals[k] = problem.step()
            timings = problem.solver.timings
            for key, values in phases.items():
                values[k] = timings[key]
    totals_us = totals * 1e6
    yardstick = _dynamics_pass_us(problem.robot)
    return {
        "robot": robot_name, "nv": problem.robot.nv, "steps": steps, "qp_solver": qp_solver, "rate_hz": rate,
        "late_periods": pace.late,
        "median_us": float(np.median(totals_us)), "p99_us": float(np.percentile(totals_us, 99)),
        "max_us": float(totals_us.max()), "share": _phase_shares(totals, phases),
        "computeAllTerms_us": yardstick[0], "computeAllTerms_p99_us": yardstick[1],
        "samples_us": totals_us.tolist(),
    }


def _phase_shares(totals: np.ndarray, phases: dict[str, np.ndarray]) -> dict[str, float]:
    """Each phase's share of the step time over the undisturbed steps — the 90 % fastest: one
    step switched out by the OS outside the phases (a 10 ms preemption among 50 steps of
    30 µs) would otherwise show as most of the time going to "other"."""
    undisturbed = totals <= np.percentile(totals, 90)
    total_time = totals[undisturbed].sum()
    share = {key: float(values[undisturbed].sum() / total_time) for key, values in phases.items()}
    share["other"] = 1.0 - sum(share.values())      # input checks, transitions, bookkeeping
    return share


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


#: The peers :func:`compare_with_peers` knows: their worker script (run by the peer's own
#: interpreter, which may have another pinocchio than ours).
PEER_WORKERS = {"placo": Path(__file__).resolve().parent / "tools" / "peer_workers.py"}


def peer_spec(robot_name: str, steps: int, warmup: int, core: int | None) -> dict:
    """The reference problem of :class:`ReferenceProblem` as a JSON-able spec for the peers'
    workers (:mod:`tsid_py.tools.peer_workers`): URDF, posture, feet, soles, gains, weights."""
    from tsid_py.control.reference import REFERENCE_SOLE_SCALE
    from tsid_py.models.profile import profile_of

    robot = tp.robots.load(robot_name)
    profile = profile_of(robot)
    if robot.urdf_path is None or not profile.sole_size:
        raise ValueError(f"the peers' problem needs a humanoid loaded from a URDF; {robot_name!r} is not one")
    length, width = profile.sole_size
    return dict(urdf=robot.urdf_path, package_dirs=list(robot.package_dirs), q_ref=robot.q_ref.tolist(),
                feet=list(profile.feet), sole=[REFERENCE_SOLE_SCALE * length, REFERENCE_SOLE_SCALE * width], mu=0.8,
                f_min=0.0, f_max=1e4, torso=profile.torso_frame, com=dict(kp=100.0, weight=1.0),
                torso_task=dict(kp=100.0, weight=1.0), posture=dict(kp=30.0, weight=1e-2), dt=1e-3, frequency=0.5,
                amplitude=0.04, steps=steps, warmup=warmup, core=core)


def compare_with_peers(robot_name: str, peers: dict[str, str], rounds: int = 5, steps: int = 1000,
                       warmup: int = 200) -> dict:
    """Our step and each peer's (``peers``: name → the Python interpreter that has it), timed
    in alternating rounds of ``steps`` steps on the same core with one BLAS thread, so that a
    shared machine's drift hits all alike. Returns each one's median and p99 over all rounds
    (µs), the peers' ``computeAllTerms`` yardsticks and our median over the best peer's."""
    unknown = sorted(set(peers) - set(PEER_WORKERS))
    if unknown:
        raise ValueError(f"unknown peer(s) {unknown}; known: {sorted(PEER_WORKERS)}")
    core = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    times = {"tsid_py": [], **{name: [] for name in peers}}
    yardsticks = {name: [] for name in peers}
    with tempfile.TemporaryDirectory() as folder:
        spec_path = Path(folder) / "spec.json"
        spec_path.write_text(json.dumps(peer_spec(robot_name, steps, warmup, core)))
        environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1")
        for _ in range(rounds):
            ours = benchmark(robot_name, steps, warmup, samples=True)
            times["tsid_py"] += ours["samples_us"]
            for name, python in peers.items():
                done = subprocess.run([python, str(PEER_WORKERS[name]), name, str(spec_path)], env=environment,
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"peer {name} ({python}) failed: {done.stderr.strip()[-2000:]}")
                report = json.loads(done.stdout.strip().splitlines()[-1])
                times[name] += report["times_us"]
                yardsticks[name].append(report["computeAllTerms_us"])
    summary = {name: {"median_us": float(np.median(values)), "p99_us": float(np.percentile(values, 99))}
               for name, values in times.items()}
    for name, values in yardsticks.items():
        summary[name]["computeAllTerms_us"] = float(np.median(values))
    best = min(peers, key=lambda name: summary[name]["median_us"])
    summary["ratio_to_best_peer"] = summary["tsid_py"]["median_us"] / summary[best]["median_us"]
    summary["best_peer"] = best
    return summary


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``tsid-py bench``."""
    from tsid_py.cli_arguments import Parser, count, output_file, parsed, positive, qp_solver, robot

    parser = Parser(prog="tsid-py bench", description=__doc__.splitlines()[0])
    parser.add_argument("--robot", nargs="+", type=robot, default=list(tp.robots.BENCHMARK_ROBOTS),
                        help="built-in robots or robot files (default: %(default)s)")
    parser.add_argument("--steps", type=count(1), default=2000, help="timed steps per robot (default 2000)")
    parser.add_argument("--warmup", type=count(0), default=200, help="untimed steps first (default 200)")
    parser.add_argument("--rate", type=positive("Hz"), metavar="HZ",
                        help="pace the timed steps at this rate, as a control loop takes them (default: back to back)")
    parser.add_argument("--qp-solver", type=qp_solver, default="reduced", help="the QP backend (default reduced)")
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=PYTHON", type=parsed("peer", _peer),
                        help="also time a peer library's step (placo) with that interpreter, in alternating rounds")
    parser.add_argument("--rounds", type=count(1), default=5, help="rounds of --steps steps with --peer")
    parser.add_argument("--json", type=output_file(".json"), help="write the reports to this file")
    return parser


def _peer(text: str) -> tuple[str, str]:
    """``NAME=PYTHON`` of ``--peer``: a known peer and an existing interpreter."""
    name, _, python = text.partition("=")
    if name not in PEER_WORKERS or not python:
        raise ValueError(f"takes NAME=PYTHON with NAME in {sorted(PEER_WORKERS)}, got {text!r}")
    if not Path(python).exists():
        raise ValueError(f"{name}: no interpreter at {python!r}")
    return name, python


def main(argv=None) -> list[dict] | int:
    """Run ``tsid-py bench``: the reports, or 2 after a usage error (printed on stderr)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit:
        return exit.code
    if args.peer:
        summary = _peer_comparison(args)
        return summary if isinstance(summary, int) else [summary]
    reports = []
    for name in args.robot:
        report = benchmark(name, args.steps, args.warmup, args.qp_solver, rate=args.rate)
        reports.append(report)
        share = ", ".join(f"{key} {100 * value:.0f}%" for key, value in report["share"].items())
        print(f"{name:6s} nv={report['nv']:2d}  median {report['median_us']:7.1f} µs  p99 {report['p99_us']:7.1f} µs"
              f"  max {report['max_us']:8.1f} µs   ({share}; computeAllTerms {report['computeAllTerms_us']:.1f} µs,"
              f" p99 {report['computeAllTerms_p99_us']:.1f} µs)")
    write_json(args.json, reports)
    return reports


def _peer_comparison(args) -> dict | int:
    """``--peer``: one robot, ours against each peer, printed and written with ``--json``."""
    peers = dict(args.peer)
    if len(args.robot) != 1:
        print("tsid-py bench: error: --peer compares one robot: give one --robot", file=sys.stderr)
        return 2
    summary = compare_with_peers(args.robot[0], peers, args.rounds, args.steps, args.warmup)
    for name in ["tsid_py", *peers]:
        entry = summary[name]
        extra = f"  computeAllTerms {entry['computeAllTerms_us']:.1f} µs" if "computeAllTerms_us" in entry else ""
        print(f"{name:8s} median {entry['median_us']:7.1f} µs  p99 {entry['p99_us']:7.1f} µs{extra}")
    print(f"tsid_py / {summary['best_peer']}: {summary['ratio_to_best_peer']:.2f}")
    write_json(args.json, summary)
    sys.stdout.flush()
    return summary


if __name__ == "__main__":
    main()
