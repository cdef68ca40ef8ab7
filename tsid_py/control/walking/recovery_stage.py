"""The walking controller's stage that steps to recover from a push while standing
(:class:`~.recovery.StepRecovery` decides the steps; :mod:`.stages` follows walks).

It runs before the plan stage (:class:`~tsid_py.control.walking.WalkingController` lists the
pipeline); it moves the CoM and swing-foot targets, makes and breaks contacts through the
:class:`~tsid_py.control.stance.Stance`, and sets the step's
:class:`~tsid_py.control.support.BalanceMode` and overrides.
"""

from __future__ import annotations

import numpy as np

from ..dcm import CapturePointTask
from ..pipeline import Stage, StepState
from ..stance import Stance
from ..support import BalanceMode
from .footsteps import Footstep
from .recovery import RecoveryStep, StepRecovery
from .stages import RETARGET_DISTANCE, RETARGET_PERIOD, PlanStage, standing_feet
from .swing import SwingTrajectory


class RecoveryStage(Stage):
    """Step recovery (:class:`~.recovery.StepRecovery`): when, standing on two feet with no
    plan under way, the capture point the last step measured has left the support, decide a
    step and swing it (re-aimed on the measured capture point), then close the stance; while
    a recovery is under way the hip strategy is off, the centre of pressure keeps the
    recovery's stance margin inside the stance sole during a swing, and the soles' torsion
    weighs :attr:`~.recovery.StepRecovery.torsion_weight` (a per-step override of the
    wrench regularisation, when there is one)."""

    def __init__(self, recovery: StepRecovery, stance: Stance, com: CapturePointTask, swing_tasks: dict,
                 plan_stage: PlanStage, feet, regularization=None):
        self.recovery, self.stance, self.solver, self.com = recovery, stance, stance.solver, com
        self.swing_tasks, self.plan_stage, self.feet = swing_tasks, plan_stage, list(feet)
        self.regularization = regularization
        #: Steps taken to recover from pushes so far (closing steps included).
        self.steps = 0
        #: The recovery steps decided so far (where each was aimed at the decision).
        self.log: list[RecoveryStep] = []
        self.underway: _RecoverySwing | None = None
        self._torsion = None
        self._swinging_mode = BalanceMode(hip_ratio=0.0, support_margin=recovery.stance_margin)
        self._landed_mode = BalanceMode(hip_ratio=0.0)

    def step(self, state: StepState) -> None:
        """Start a recovery if one is needed, follow the one under way, and set the mode and
        the torsion override while it lasts."""
        if (self.underway is None and self.plan_stage.plan is None and state.previous is not None
                and len(self.solver.contacts) == 2 and self.recovery.needed(self.com.dcm_xy, self.stance.support())):
            self._start(state.time)
        if self.underway is None:
            return
        self._follow(state.time)
        underway = self.underway
        if underway is None:
            return
        state.mode = self._landed_mode if underway.landed else self._swinging_mode
        if self._torsion is not None:
            state.overrides.weigh(self.regularization, self._torsion)

    # ------------------------------------------------------------------ decisions
    def _start(self, time: float) -> None:
        """Decide a recovery step now (:meth:`StepRecovery.choose`) and start it."""
        feet = standing_feet(self.solver, self.feet)
        choice = self.recovery.choose(self.com.dcm_xy, feet, self.com.omega)
        self.log.append(choice)
        if self.underway is None:
            self._enter()
        self._begin_swing(choice.footstep, feet[choice.stance], feet[choice.footstep.foot], time, closing=False)

    def _enter(self) -> None:
        """The soles' torsion weight for the recovery's steps (see the class)."""
        torsion, regularization = self.recovery.torsion_weight, self.regularization
        self._torsion = None
        if regularization is not None and torsion is not None:
            weights = regularization.weight.copy()
            weights[5] = torsion
            self._torsion = weights
            weights.flags.writeable = False

    def _begin_swing(self, target: Footstep, stance: Footstep, start: Footstep, time: float, *,
                     closing: bool) -> None:
        """Unload ``start``'s foot now (the support polygon shrinks to the stance sole at
        once) and swing it to ``target`` after the ramp."""
        recovery = self.recovery
        self.stance.release(target.foot, recovery.transition)
        lift = time + recovery.transition
        trajectory = SwingTrajectory(start.placement, target.placement,
                                     lift, lift + recovery.swing_time, recovery.step_height)
        self.underway = _RecoverySwing(target, stance, start, trajectory, closing)

    def _follow(self, t: float) -> None:
        """Lift, swing (a recovery step retargeted on the measured capture point), land;
        once the landing ramp is over: after a recovery step, close the stance
        (:meth:`StepRecovery.closing_step`); after the closing step, step again if the
        capture point is still outside the support, else stand."""
        underway, recovery = self.underway, self.recovery
        trajectory = underway.trajectory
        foot = underway.target.foot
        task = self.swing_tasks[foot]
        if not underway.lifted and t >= trajectory.lift_off - 1e-9:
            self.stance.lift(foot)               # its ramp is over
            task.set_target(trajectory.sample(t).placement)
            self.solver.add_task(task)
            underway.lifted = True
        if underway.lifted and not underway.landed:
            elapsed = t - trajectory.lift_off
            if (not underway.closing and elapsed < recovery.retarget_until * recovery.swing_time
                    and t >= underway.next_aim - 1e-9):
                underway.next_aim = t + RETARGET_PERIOD
                aim, _ = recovery.aim(self.com.dcm_xy, underway.stance, underway.start, self.com.omega,
                                      trajectory.touch_down - t)
                if np.linalg.norm(aim.xy - underway.target.xy) > RETARGET_DISTANCE:
                    underway.target = aim
                    trajectory.retarget(aim.placement, t)
            sample = trajectory.sample(t)
            task.set_target(sample.placement, velocity=sample.velocity, acceleration=sample.acceleration)
            if t >= trajectory.touch_down - 1e-9:
                self.solver.remove_task(task)
                self.stance.make(foot, recovery.transition)
                self._stand_between(standing_feet(self.solver, self.feet).values())
                underway.landed, underway.landed_at = True, t
                self.steps += 1
        elif underway.landed and t >= underway.landed_at + recovery.transition:
            if recovery.close and not underway.closing:
                feet = standing_feet(self.solver, self.feet)
                trailing = feet[underway.stance.foot]
                closing = recovery.closing_step(feet[foot], trailing)
                self._stand_between([feet[foot], closing])
                self._begin_swing(closing, feet[foot], trailing, t, closing=True)
            elif recovery.needed(self.com.dcm_xy, self.stance.support()):
                self._start(t)
            else:
                self.underway = None               # standing again

    def _stand_between(self, footholds) -> None:
        """CoM target: at rest over the middle of ``footholds``, at the current height."""
        middle = np.mean([step.xy for step in footholds], axis=0)
        self.com.set_target(np.array([middle[0], middle[1], self.com.position_ref[2]]))


class _RecoverySwing:
    """A step of a recovery under way: where it is aimed now (``target``), the stance and
    start footholds, the swing's trajectory, and whether it is the closing step."""

    def __init__(self, target: Footstep, stance: Footstep, start: Footstep, trajectory: SwingTrajectory,
                 closing: bool):
        self.target, self.stance, self.start, self.trajectory = target, stance, start, trajectory
        self.closing = closing
        self.lifted = self.landed = False
        self.landed_at = 0.0
        self.next_aim = trajectory.lift_off

