"""A control loop's failure policy: one infeasible QP must not stop the robot's controller.

:meth:`tsid_py.DynamicsSolver.solve` raises when its QP has no solution — right for offline
use, fatal in a loop that has to send torques every millisecond. :class:`FailurePolicy`
wraps a solver and, when a step fails, walks down a ladder of relaxations, each tried only
if the one before failed too:

0. **levels dropped** (with priority levels only, :mod:`tsid_py.hierarchy`): when the QP of a
   level ``k ≥ 1`` failed although the hard rows and the levels above it were solved (a
   numerical failure: each level's QP contains the answer of the level above), the step is
   solved again without levels ``k, k + 1, …``: the hard rows and the levels above stay exact;
1. **constraints relaxed**: the relaxable constraints that had rows this step
   (:attr:`~tsid_py.constraints.Constraint.relaxable`: self-collision avoidance, a safeguard
   that must never be the reason a step fails) take their relaxed form for this step
   (:meth:`~tsid_py.constraints.Constraint.relax_rows`; skipped when none had rows); the
   rungs below keep them relaxed;
2. **contacts softened**: every hard contact's no-slip rows become a cost (weight
   ``soft_contact_weight``) for this step, so a rocking or sliding sole no longer makes the
   equalities contradict the friction and centre-of-pressure rows (skipped when no contact
   is hard). With priority levels they become level 0, solved before level 1, so that a
   softened contact slips only as much as the hard rows force, never to serve a task;
3. **torque limits slackened**: as 2, with every :class:`~tsid_py.constraints.TorqueLimits`
   scaled by ``torque_slack``; the torques sent are then clipped to the true limits;
4. **damping command**: no QP; the last torques that were sent, minus joint damping
   ``−d_j v_j``, clipped to the limits (0 on passive joints): a command that holds the
   posture's effort and removes energy. ``d_j = min(damping, M_jj(q) / dt)`` (N·m·s/rad, ``dt``
   the solver's period): held for one period, a damping torque changes the joint's velocity
   by ``−d_j dt / M_jj · v_j``, so a larger ``d_j`` would reverse it (and past ``2 M_jj / dt``
   make it grow, step after step); a light joint gets less damping, a joint that moves no
   mass (``M_jj = 0``, :mod:`tsid_py.models.held`) none — any torque there is an unbounded
   acceleration.

Each rung is a per-step override (:class:`~tsid_py.overrides.StepOverrides`, on top of the
step's own): the solver's contacts and constraints keep their settings, and the softened
contacts' layout is built once, the first time that set of contacts is softened.

The step's :class:`~tsid_py.Solution` then has ``success=False`` and ``relaxed`` names the
rungs used. A level that gives way (cannot be met given the levels above it and the hard rows)
is not a failure: the step succeeds, every level above it exact, and ``solution.gave_way``
names it (:attr:`FailurePolicy.gave_way` counts such steps per level). Only :class:`~tsid_py.SolverError` (the QP failed) is handled; invalid input
still raises. Build the solver with ``diagnose=False`` to keep even the feasibility check of
a failed step off the control path; the policy never reads an error's
conflicts.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pinocchio as pin

from .._validation import positive_scalar
from ..constraints import TorqueLimits
from ..errors import SolverError
from ..overrides import StepOverrides
from ..solution import Solution
from ..solver import DynamicsSolver

#: The names ``Solution.relaxed`` uses for the ladder's rungs.
RELAXED, SOFTENED, SLACKENED, DAMPING = ("constraints relaxed", "contacts softened", "torque limits slackened",
                                         "damping command")
#: The name of rung 0 (``Solution.relaxed``): ``"levels dropped from 3"``.
DROPPED = "levels dropped from {}"


class FailurePolicy:
    """``policy.solve(q, v)``: ``solver.solve(q, v)``, or the best relaxation of it.

    Parameters
    ----------
    solver : the :class:`~tsid_py.DynamicsSolver` to protect (its configuration is restored
        after each relaxed step).
    soft_contact_weight : weight of a softened contact's no-slip rows, (s²/m)².
    torque_slack : factor (≥ 1) on the torque limits in rung 2.
    damping : joint damping of rung 3's command, N·m·s/rad.
    """

    def __init__(self, solver: DynamicsSolver, *, soft_contact_weight: float = 1e3, torque_slack: float = 2.0,
                 damping: float = 5.0):
        if not isinstance(solver, DynamicsSolver):
            raise ValueError(f"solver must be a tsid_py.DynamicsSolver, got {type(solver).__name__}")
        self.solver = solver
        self.soft_contact_weight = positive_scalar(soft_contact_weight, "soft_contact_weight")
        self.torque_slack = positive_scalar(torque_slack, "torque_slack")
        if self.torque_slack < 1.0:
            raise ValueError(f"torque_slack must be ≥ 1 (a factor on the limits), got {torque_slack}")
        self.damping = positive_scalar(damping, "damping", allow_zero=True)
        self.last_tau_actuated = np.zeros(solver.robot.na)
        #: How many steps each rung produced since construction (the loop's failure count;
        #: rung 0 counted by the first level it dropped, ``DROPPED.format(level)``).
        self.counts = {RELAXED: 0, SOFTENED: 0, SLACKENED: 0, DAMPING: 0}
        #: With priority levels: how many steps each level gave way in (by priority).
        self.gave_way: dict = {}

    def solve(self, q, v, overrides: StepOverrides | None = None, out: Solution | None = None) -> Solution:
        """One control step that returns a Solution whatever the QP does (see the module);
        ``overrides``: the step's own, which each rung of the ladder adds to; ``out``: a
        solution of this solver's to refill (:meth:`~tsid_py.DynamicsSolver.solve`'s; a
        relaxed step returns a new one)."""
        try:
            solution = self.solver.solve(q, v, overrides, out=out)
        except SolverError as error:
            solution = self._relaxed(q, v, overrides, error)
        if solution.levels:
            for level in solution.gave_way:
                self.gave_way[level] = self.gave_way.get(level, 0) + 1
        np.copyto(self.last_tau_actuated, solution.tau_actuated)      # (a refilled solution's change)
        return solution

    # ------------------------------------------------------------------ the ladder
    def _relaxed(self, q, v, overrides: StepOverrides | None, error: SolverError) -> Solution:
        relaxed = overrides.copy() if overrides else StepOverrides()
        done = ()
        if isinstance(error.level, int) and error.level >= 1:      # rung 0: a level's QP failed
            relaxed.drop_levels(error.level)
            done = (DROPPED.format(error.level),)
            self.counts[done[0]] = self.counts.get(done[0], 0)
            try:
                return self._failed(self.solver.solve(q, v, relaxed), done)
            except SolverError:
                pass
        engaged = [c for c in self.solver.constraints if c.relaxable and c.engaged]
        if engaged:
            for constraint in engaged:
                relaxed.relax(constraint)
            done += (RELAXED,)
            try:
                return self._failed(self.solver.solve(q, v, relaxed), done)
            except SolverError:
                pass
        softened = self._soften_contacts(relaxed)
        done += (SOFTENED,) if softened else ()
        if softened:
            try:
                return self._failed(self.solver.solve(q, v, relaxed), done)
            except SolverError:
                pass
        relaxed.scale_torque_limits(relaxed.torque_limit_scale * self.torque_slack)
        try:
            solution = self.solver.solve(q, v, relaxed)
        except SolverError:
            return self._damping_command(q, v, done)
        solution = self._failed(solution, done + (SLACKENED,))
        solution.tau_actuated[:] = self._clip(solution.tau_actuated)
        return solution

    def _soften_contacts(self, overrides: StepOverrides) -> list[str]:
        """Soften, in ``overrides``, the hard contacts that are not in a force ramp and not
        softened already; return their names."""
        ramping, softened = self.solver.normal_force_limits(), []
        already = overrides.softened()
        for name, contact in self.solver.contacts.items():
            if contact.priority != "hard" or name in ramping or name in already:
                continue
            overrides.soften(name, self.soft_contact_weight)
            softened.append(name)
        return softened

    def _clip(self, tau_actuated: np.ndarray) -> np.ndarray:
        """Torques clipped to the solver's torque limits (the URDF efforts when it has none;
        joints without a finite limit are left alone)."""
        robot = self.solver.robot
        limit = np.full(robot.na, np.inf)
        limits = [c for c in self.solver.constraints if isinstance(c, TorqueLimits)]
        for constraint in limits:
            limit[constraint.index] = np.minimum(limit[constraint.index], constraint.effort)
        if not limits:
            efforts = robot.effort_limits
            limit = np.where(efforts > 0, efforts, np.inf)
        return np.clip(tau_actuated, -limit, limit)

    def _failed(self, solution: Solution, relaxed: tuple[str, ...]) -> Solution:
        for rung in relaxed[-1:]:
            self.counts[rung] += 1
        return replace(solution, success=False, status=f"relaxed ({', '.join(relaxed)}): {solution.status}",
                       relaxed=relaxed)

    def _damping_command(self, q, v, done: tuple[str, ...]) -> Solution:
        robot = self.solver.robot
        offset = robot.nv - robot.na
        damping = damping_gains(robot, q, self.solver.dt, self.damping)[offset:]
        tau_actuated = self._clip(self.last_tau_actuated - damping * np.asarray(v, dtype=float)[offset:])
        tau = np.zeros(robot.nv)
        tau[offset:] = tau_actuated
        tau[[robot.joint_v_index(joint) for joint in self.solver.passive_joints]] = 0.0     # no motor there
        self.counts[DAMPING] += 1
        relaxed = done + (SLACKENED, DAMPING)
        return Solution(np.zeros(robot.nv), tau, tau[offset:], {}, {}, False,
                        f"relaxed ({', '.join(relaxed)}): no QP solved", None, 0, relaxed)


def damping_gains(robot, q, dt: float, damping: float) -> np.ndarray:
    """The damping command's gains (nv,), N·m·s/rad (N·s/m): ``min(damping, M_jj(q) / dt)``,
    the largest damping held for ``dt`` s that stops joint ``j`` (the others held) without
    reversing it (see the module); ``M_jj`` by pinocchio's CRBA, on a data of its own."""
    model = robot.model
    inertia = pin.crba(model, model.createData(), robot.check_configuration(q, "q")).diagonal()
    return np.minimum(damping, inertia / dt)
