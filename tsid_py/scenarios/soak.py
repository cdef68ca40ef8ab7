"""Soak run: the balance controller for many steps in MuJoCo under random pushes and
contact switches, counting anything that goes wrong.

Each cycle (2 s) is: double support with a push of random direction and magnitude at a
random time, then a contact switch — shift the CoM over a random foot, unload the other
foot, hold it 1 cm up with a frame task, put it down and shift the CoM back. The switches
alternate between ramped (0.1 s transitions) and instant ones, cycle by cycle.

A failed step is counted as ``infeasible_steps`` when the diagnosis finds the hard
constraints infeasible (:class:`~tsid_py.InfeasibleError`), else as ``false_failures``
(the backend failed on a feasible problem).
"""

from __future__ import annotations

import math
import time

import numpy as np

import os

from .. import robots
from ..contacts import PlanarContact
from ..control.reference import REFERENCE_SOLE_SCALE, humanoid_balance
from ..errors import InfeasibleError, SolverError
from ..sim.simulation import Simulation
from ..tasks import FrameTask

CYCLE = 2.0            # s
PUSH_WINDOW = (0.1, 0.3)
SHIFT = (0.5, 1.0)     # CoM moves over the support foot
UNLOADED = (1.1, 1.5)  # the other foot is off the ground (after a 0.1 s unloading ramp)
RETURN = (1.6, 2.0)    # CoM moves back after the 0.1 s loading ramp


def _ramp(t: float, window: tuple[float, float]) -> float:
    """Minimum-jerk 0 → 1 across ``window``."""
    r = min(max((t - window[0]) / (window[1] - window[0]), 0.0), 1.0)
    return r**3 * (10 - 15 * r + 6 * r**2)


def soak(steps: int = 10_000, *, robot: str = robots.DEFAULT_HUMANOID, seed: int = 0, qp_solver: str = "reduced",
         push_newtons: tuple[float, float] = (30.0, 100.0)) -> dict:
    """Run ``steps`` control steps with the backend ``qp_solver``; return counts of solver
    failures (false ones and infeasible steps), NaNs and falls, the pushes and contact
    switches made, step times and resident memory."""
    rng = np.random.default_rng(seed)
    model = robots.load(robot)
    sim = Simulation(model)
    dt = sim.timestep
    controller = humanoid_balance(model, dt, qp_solver=qp_solver)
    solver = controller.solver
    model.update(model.q_ref, model.zero_velocity())
    centre = model.com.copy()
    homes = {foot: model.frame_placement(model.frame_id(foot)).copy() for foot in model.feet}
    length, width = model.sole_size
    start_height = sim.state()[0][2]
    counts = {"false_failures": 0, "infeasible_steps": 0, "nan_outputs": 0, "pushes": 0, "contact_switches": 0,
              "instant_switches": 0}
    # Step times in a preallocated array: a growing list would show in the memory measured.
    step_times, taken = np.empty(steps), 0
    memory, fell_at, now_cycle, now = [], None, None, None
    for k in range(steps):
        t = k * dt
        phase, cycle = math.fmod(t, CYCLE), int(t // CYCLE)
        if cycle != now_cycle:                      # draw this cycle's push and support foot
            support = model.feet[rng.integers(2)]
            now_cycle, now = cycle, {"push_at": rng.uniform(*PUSH_WINDOW), "pushed": False,
                                     "force": _horizontal(rng, push_newtons), "support": support,
                                     "swing": next(f for f in model.feet if f != support), "task": None,
                                     "transition": 0.0 if cycle % 2 else 0.1}
        over = centre.copy()
        over[:2] = homes[now["support"]].translation[:2]
        if not now["pushed"] and phase >= now["push_at"]:
            sim.push(now["force"], 0.1)
            now["pushed"] = True
            counts["pushes"] += 1
        if phase < SHIFT[1] or now["task"] is None:
            controller.com.set_target(centre + _ramp(phase, SHIFT) * (over - centre))
        if phase >= SHIFT[1] and now["task"] is None and now["swing"] in solver.contacts:
            solver.remove_contact(now["swing"], transition=now["transition"])
            now["task"] = solver.add_task(FrameTask(now["swing"], homes[now["swing"]], kp=300.0, weight=10.0))
            counts["contact_switches"] += 1
            counts["instant_switches"] += now["transition"] == 0.0
        if now["task"] is not None and UNLOADED[0] <= phase < UNLOADED[1]:
            target = homes[now["swing"]].copy()
            target.translation[2] += 0.01 * min(_ramp(phase, (UNLOADED[0], UNLOADED[0] + 0.15)),
                                                1 - _ramp(phase, (UNLOADED[1] - 0.15, UNLOADED[1])))
            now["task"].set_target(target)
        if phase >= UNLOADED[1] and now["task"] is not None and now["swing"] not in solver.contacts:
            solver.remove_task(now["task"])
            solver.add_contact(PlanarContact(now["swing"], length=REFERENCE_SOLE_SCALE * length,
                                             width=REFERENCE_SOLE_SCALE * width, mu=0.8, kp=0.0),
                               transition=now["transition"])
        if phase >= RETURN[0] and now["task"] is not None:
            controller.com.set_target(over + _ramp(phase, RETURN) * (centre - over))
        q, v = sim.state()
        tic = time.perf_counter()
        try:
            solution = solver.solve(q, v)
        except SolverError as error:
            counts["infeasible_steps" if isinstance(error, InfeasibleError) else "false_failures"] += 1
            solution = None
        step_times[taken] = time.perf_counter() - tic
        taken += 1
        if solution is not None and not np.all(np.isfinite(solution.tau_actuated)):
            counts["nan_outputs"] += 1
            solution = None
        sim.step(solution.tau_actuated if solution is not None else np.zeros(model.na))
        if k % 1000 == 0:
            memory.append(resident_megabytes())
        if q[2] < 0.7 * start_height:
            fell_at = t
            break
    steps_us = step_times[:taken] * 1e6
    return {**counts, "robot": robot, "qp_solver": qp_solver, "steps": taken, "fell": fell_at is not None, "fell_at": fell_at,
            "median_step_us": float(np.median(steps_us)), "p99_step_us": float(np.percentile(steps_us, 99)),
            # the first sample after warm-up (step 1000) if the run is that long
            "rss_mb_first": memory[min(1, len(memory) - 1)], "rss_mb_last": memory[-1]}


def _horizontal(rng: np.random.Generator, magnitude: tuple[float, float]) -> np.ndarray:
    angle = rng.uniform(0, 2 * np.pi)
    return rng.uniform(*magnitude) * np.array([np.cos(angle), np.sin(angle), 0.0])


def resident_megabytes() -> float:
    """Resident set size of this process, MB (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
