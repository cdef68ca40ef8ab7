"""Hands driven into each other on a standing humanoid, with and without self-collision avoidance.

The robot stands under a :class:`~tsid_py.control.BalanceController` whose CoM task weighs
:data:`COM_WEIGHT` (the arms' motion must not pull the CoM off the soles), and each hand
(:func:`~tsid_py.models.hands.hands`) follows a :class:`~tsid_py.tasks.PositionTask` of
weight :data:`HAND_WEIGHT` — far above the posture, the hard-ish tasks of the issue. The plant
has the robot's collision geometry, its pairs colliding as on the real robot
(:mod:`tsid_py.sim.self_collision`), and measures their distances itself (MuJoCo's, not the
controller's).

* :func:`crossing_trial`: both hands go, over ``travel`` s, to targets in front of the chest
  past each other (each ``overlap`` m beyond the midline), and stay there.
* :func:`random_targets_trial`: every 0.8–1.6 s (``holds``, drawn from ``seed``) each hand gets a new
  target in a box in front of the chest that spans both sides, for ``duration`` s.

The summary: fell (:class:`~tsid_py.scenarios.judge.StanceJudge`), the smallest distance the
plant measured over the watched pairs and which, how many contacts MuJoCo found between them
(at most, at once), the safety distance, the steps the failure policy relaxed, the largest
number of pairs with rows, and the median step time.
"""

from __future__ import annotations

import time

import numpy as np

from ..constraints import SelfCollisionAvoidance
from ..control import BalanceController
from ..models.hands import hands
from ..sim.simulation import Simulation, SimulationDiverged
from ..tasks import PositionTask
from .judge import StanceJudge

#: Weight and stiffness (1/s²) of the hands' position tasks: the posture weighs 1e-2.
HAND_WEIGHT, HAND_KP = 10.0, 100.0
#: Weight of the balance controller's CoM task here (its default, 1, lets arms reaching
#: forward pull the CoM past the soles' front edges: measured on Talos).
COM_WEIGHT = 100.0
#: The plant's distances are measured every this many physics steps (all pairs: ~2 ms).
MEASURE_EVERY = 5


def _smooth(ratio: float) -> float:
    """Minimum-jerk profile from 0 to 1 over ratio ∈ [0, 1]."""
    r = min(max(ratio, 0.0), 1.0)
    return r**3 * (10 - 15 * r + 6 * r**2)


class _HandsRun:
    """The standing robot, its hands' tasks and the plant, for one trial."""

    def __init__(self, robot, avoid: bool, constraint: SelfCollisionAvoidance | None):
        self.robot = robot
        self.constraint = constraint or SelfCollisionAvoidance()
        self.sim = Simulation(robot, self_collision=self.constraint)
        self.controller = BalanceController(robot, self.sim.timestep, joint_limits=True)
        self.controller.com.weight = COM_WEIGHT
        if avoid:
            self.controller.solver.add_constraint(self.constraint)
        self.avoid = avoid
        robot.update(robot.q_ref, robot.zero_velocity())
        self.frames = hands(robot)
        self.starts = [robot.frame_translation(robot.frame_id(frame)).copy() for frame in self.frames]
        self.tasks = [self.controller.solver.add_task(PositionTask(frame, kp=HAND_KP, weight=HAND_WEIGHT))
                      for frame in self.frames]

    def run(self, duration: float, targets) -> dict:
        """Step for ``duration`` s, ``targets(t)`` giving both hands' targets (2, 3)."""
        sim, controller, robot = self.sim, self.controller, self.robot
        judge = StanceJudge(sim, robot.feet)
        closest, pair, contacts, relaxed, rows, times = np.inf, None, 0, 0, 0, []
        for k in range(int(round(duration / sim.timestep))):
            for task, target in zip(self.tasks, targets(k * sim.timestep)):
                task.set_target(target)
            q, v = sim.state()
            tic = time.perf_counter()
            solution = controller.step(q, v)
            times.append(time.perf_counter() - tic)
            relaxed += not solution.success
            if self.avoid:
                rows = max(rows, len(self.constraint.active_pairs))
            try:
                sim.step(solution.tau_actuated)
            except SimulationDiverged as error:
                judge.diverged(sim.time, error)
                break
            if k % MEASURE_EVERY == 0:
                distance, names = sim.pair_distances.closest(sim.data)
                if distance < closest:
                    closest, pair = distance, names
                contacts = max(contacts, sim.pair_distances.contacts(sim.data))
            if judge.update(sim.time, robot.feet):
                break
        return {"robot": robot.name, "avoidance": self.avoid, "fell": judge.fell_at is not None,
                "fell_at": judge.fell_at, "simulated_s": round(sim.time, 3),
                "closest_mm": 1e3 * closest, "closest_pair": list(pair) if pair else None,
                "safety_distance_mm": 1e3 * self.constraint.distances[0], "self_contacts_max": contacts,
                "relaxed_steps": relaxed, "rows_max": rows, "median_step_us": float(np.median(times) * 1e6)}


def crossing_trial(robot, *, avoid: bool = True, duration: float = 3.0, travel: float = 1.5, reach: float = 0.3,
                   lift: float = 0.1, overlap: float = 0.1, constraint: SelfCollisionAvoidance | None = None) -> dict:
    """Both hands driven past each other in front of the chest (see the module): ``reach``
    m forward and ``lift`` m up from their midpoint, each ``overlap`` m beyond it."""
    run = _HandsRun(robot, avoid, constraint)
    left, right = run.starts
    middle = (left + right) / 2 + [reach, 0.0, lift]
    across = np.array([0.0, overlap, 0.0]) * np.sign(left[1] - right[1])
    goals = [middle - across, middle + across]          # each hand past the other's side

    def targets(t):
        s = _smooth(t / travel)
        return [start + s * (goal - start) for start, goal in zip(run.starts, goals)]

    summary = run.run(duration, targets)
    summary.update(trial="crossing", travel_s=travel)
    return summary


def random_targets_trial(robot, *, seed: int = 0, avoid: bool = True, duration: float = 10.0, holds=(0.8, 1.6),
                         reach=(0.15, 0.4),
                         height=(-0.1, 0.25), span: float = 0.25,
                         constraint: SelfCollisionAvoidance | None = None) -> dict:
    """Random hand targets (see the module): ``reach`` and ``height`` ranges (m) forward and
    up from the hands' midpoint, ``span`` m to either side of it for both hands."""
    run = _HandsRun(robot, avoid, constraint)
    middle = sum(run.starts) / 2
    schedule = []                                       # (start time, duration, from, to) per hand
    for hand, start in enumerate(run.starts):
        rng = np.random.default_rng([seed, hand])       # a hand's draws do not depend on the duration
        moves, t, here = [], 0.0, start
        while t < duration:
            hold = rng.uniform(*holds)
            goal = middle + [rng.uniform(*reach), rng.uniform(-span, span), rng.uniform(*height)]
            moves.append((t, hold, here, goal))
            t, here = t + hold, goal
        schedule.append(moves)

    def targets(t):
        out = []
        for moves in schedule:
            begin, hold, here, goal = next(move for move in reversed(moves) if move[0] <= t)
            out.append(here + _smooth((t - begin) / (0.8 * hold)) * (goal - here))
        return out

    summary = run.run(duration, targets)
    summary.update(trial="random targets", seed=seed)
    return summary
