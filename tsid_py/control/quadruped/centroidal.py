"""The centroidal stage: the MPC's plan each gait tick, its targets for the whole-body QP each step.

Every ``δ`` s (the MPC's interval: its rate is ``1/δ``) :class:`CentroidalStage` solves the
:class:`~.mpc.CentroidalMPC` from the measured body (:class:`~.body.Body`):

* **reference** ``x_1 … x_N``: the commanded velocity (rotated with the commanded heading,
  which turns at the commanded yaw rate) integrated from the CoM's position now; the CoM
  at its standing height above the ground under it and the body parallel to the ground
  (:meth:`~.ground.Ground.local_plane` at the horizon's first and last states, linear
  between); zero roll and pitch rates;
* **contacts**: interval 0 the feet on the ground now (a foot landing late is not); the
  next intervals the gait's schedule (:class:`~.gaits.GaitSchedule`), all four when standing;
* **levers**: a foot on the ground pushes where it stands until its next lift-off, then from
  the foothold it will land on (the one its swing aims at, or for a foot still to lift, the
  Raibert foothold of its next touch-down); each relative to the reference CoM of the
  interval; the ground frames where the feet stand or will land (the rolling feet's).

Each control step it samples the plan at the step's time (:meth:`~.mpc.MPCPlan.state`) and
hands the whole-body QP its inputs: the CoM task the predicted CoM position, velocity and
acceleration; the base orientation task the predicted roll, pitch and yaw, angular velocity
and acceleration (world axes); the force targets (:class:`~.forces.ForceTargets`) the
interval's force of each foot on the ground (a foot that landed early: the first force the
plan gives it).

Units: m, s, rad, N.
"""

from __future__ import annotations

import math

import numpy as np

from ..pipeline import Stage, StepState
from .body import Body, CommandFilter
from .forces import ForceTargets
from .ground import Ground, ground_frame
from .mpc import ANGULAR_VELOCITY, POSITION, VELOCITY, CentroidalMPC, MPCPlan
from .stepping import GaitStage

#: The base orientation task's target is refreshed when the plan's angles have moved this far
#: (rad) or its angular velocity this much (rad/s) since the last refresh, and at each MPC
#: interval (a validated rotation target costs ~30 µs: not at every step).
ORIENTATION_STEP, ANGULAR_VELOCITY_STEP = 2e-3, 0.05


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """``R_z(yaw) R_y(pitch) R_x(roll)`` (3, 3)."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch), math.cos(yaw),
                              math.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


class CentroidalStage(Stage):
    """Plan and targets: the MPC (see the module).

    Parameters
    ----------
    mpc : the :class:`~.mpc.CentroidalMPC`.
    gait : the controller's :class:`~.stepping.GaitStage` (feet, schedule, footholds).
    body, command, ground : the shared body estimate, command and ground.
    com, orientation, forces : the whole-body QP's CoM task, base orientation task and
        :class:`~.forces.ForceTargets`.
    """

    def __init__(self, mpc: CentroidalMPC, gait: GaitStage, body: Body, command: CommandFilter, ground: Ground,
                 com, orientation, forces: ForceTargets):
        self.mpc, self.gait, self.body, self.command, self.ground = mpc, gait, body, command, ground
        self.com, self.orientation, self.forces = com, orientation, forces
        self.geometry = gait.geometry
        self.plan: MPCPlan | None = None
        self.next_tick = 0.0
        self._aligned_to = None
        #: MPC solves so far, and their solve times (s).
        self.solves, self.solve_times = 0, []
        self._neutral = np.array([leg.neutral[:2] for leg in self.geometry.legs])
        self._orientation_set = None
        self._forces_of, self._interval = [], None
        self._sample = np.empty(12)

    # ------------------------------------------------------------------ each step
    def step(self, state: StepState) -> None:
        t = state.time
        schedule = self.gait.schedule
        if schedule is not None and schedule.start != self._aligned_to:
            self._aligned_to, self.next_tick = schedule.start, schedule.start     # a gait starts: tick now
        if t >= self.next_tick - 1e-9:
            self.plan = self.solve(t)
            self.next_tick += self.mpc.step * max(1.0, math.floor((t - self.next_tick) / self.mpc.step + 1e-9) + 1.0)
            self._forces_of = self._force_targets(self.plan)
            self._interval = None
        self._targets_at(t)

    def _targets_at(self, t: float) -> None:
        plan, x = self.plan, self._sample
        plan.state(t, x)
        k = plan.interval(t)
        acceleration = plan.accelerations[k]
        self.com.set_target(x[POSITION], velocity=x[VELOCITY], acceleration=acceleration[3:])
        roll, pitch, yaw, _, _, _, wx, wy, wz = x[:9].tolist()
        last = self._orientation_set
        if (last is None or last[0] != k
                or max(abs(roll - last[1]), abs(pitch - last[2]), abs(yaw - last[3])) > ORIENTATION_STEP
                or max(abs(wx - last[4]), abs(wy - last[5]), abs(wz - last[6])) > ANGULAR_VELOCITY_STEP):
            self.orientation.set_target(rpy_matrix(roll, pitch, yaw), velocity=x[ANGULAR_VELOCITY].copy(),
                                        acceleration=acceleration[:3])
            self._orientation_set = (k, roll, pitch, yaw, wx, wy, wz)
        if k != self._interval:
            self._interval = k
            self.forces.set_target(self._forces_of[k])

    def _force_targets(self, plan: MPCPlan) -> list[dict]:
        """Per interval ``k``: each foot's force at ``k``, or the first the plan gives it after
        ``k`` (a foot that lands early), else zero; the task applies those of the feet on
        the ground."""
        N = len(plan.forces)
        per_interval = [{} for _ in range(N)]
        zero = np.zeros(3)
        for foot in self.gait.feet:
            column, nearest = plan.contacts[:, foot.index].tolist(), None
            for k in range(N - 1, -1, -1):                  # the first planned interval at or after k
                nearest = k if column[k] else nearest
                per_interval[k][foot.name] = zero if nearest is None else plan.forces[nearest, foot.index]
        return per_interval

    # ------------------------------------------------------------------ the plan
    def reference(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(x_ref (N, 12), yaws (N,))``: the reference states of the horizon from ``t``."""
        mpc, body, command = self.mpc, self.body, self.command
        N, delta = mpc.horizon, mpc.step
        steps = delta * np.arange(1, N + 1)
        yaw_rate = command.current.yaw_rate
        yaws = command.heading + yaw_rate * steps
        c, s = np.cos(yaws), np.sin(yaws)
        forward, lateral = command.current.forward, command.current.lateral
        vx, vy = c * forward - s * lateral, s * forward + c * lateral
        reference = np.zeros((N, 12))
        reference[:, 3] = body.com[0] + np.cumsum(vx) * delta
        reference[:, 4] = body.com[1] + np.cumsum(vy) * delta
        # the ground under the body at the horizon's ends, linear between (a plane fit each)
        first = self.ground.local_plane(reference[0, 3:5], yaws[0], self._neutral)
        last = self.ground.local_plane(reference[-1, 3:5], yaws[-1], self._neutral) if N > 1 else first
        share = np.linspace(0.0, 1.0, N)
        ground, roll, pitch = (a + share * (b - a) for a, b in zip(first, last))
        reference[:, 0], reference[:, 1] = roll, pitch
        reference[:, 5] = ground + self.geometry.com_height
        reference[:, 2] = yaws
        reference[:, 8] = yaw_rate
        reference[:, 9], reference[:, 10] = vx, vy
        reference[:, 11] = (last[0] - first[0]) / ((N - 1) * delta) if N > 1 else 0.0    # the ground's rise
        return reference, np.concatenate([[command.heading], yaws[:-1]])

    def solve(self, t: float) -> MPCPlan:
        """Solve the MPC from the measured body at ``t`` (see the module)."""
        mpc, gait = self.mpc, self.gait
        N, delta = mpc.horizon, mpc.step
        reference, yaws = self.reference(t)
        contacts_now = gait.solver.contacts
        schedule = gait.schedule
        table = (np.ones((N, 4), dtype=bool) if schedule is None
                 else schedule.contact_table(t, delta, N))
        levers = np.zeros((N, 4, 3))
        frames = np.array(gait.rolling.axes) if gait.rolling is not None else np.array(
            [ground_frame(self.ground.normal(*foot.foothold[:2]), 0.0) for foot in gait.feet])
        times = t + delta * (np.arange(N) + 0.5)
        com_ref = np.vstack([self.body.com, reference[:-1, 3:6]])
        for foot in gait.feet:
            i = foot.index
            on_ground = foot.name in contacts_now
            table[0, i] = on_ground
            here = contacts_now[foot.name].anchor.translation if on_ground else foot.foothold
            position = np.repeat(here[None], N, axis=0)
            if on_ground and schedule is not None and not gait.stopping:
                lift = schedule.next_touchdown(i, t) - (1.0 - schedule.pattern.duty) * schedule.period
                if lift <= t:
                    lift += schedule.period
                landing = lift + gait.swing_time
                later = times >= landing
                if later.any():
                    position[later] = gait.foothold(foot, landing, t)
            if gait.stopping:                        # no foot lifts; one in the air lands and stays down
                table[1:, i] = True
            levers[:, i] = position - com_ref
        plan = mpc.solve(t, self.body.state(), reference, yaws, table, levers, frames)
        self.solves += 1
        self.solve_times.append(plan.solve_time)
        return plan
