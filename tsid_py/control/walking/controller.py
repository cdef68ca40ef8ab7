"""WalkingController: a humanoid walks a :class:`~.plan.WalkPlan` with the balance
controller's pieces.

Configured in code::

    controller = WalkingController(robot, dt=1e-3)
    controller.walk_distance(3.0)                # or turn(angle), walk_velocity(...), walk(footsteps)
    for each control period:
        sol = controller.step(q, v)              # never raises on an infeasible QP
        send(sol.tau_actuated)

Each step it moves the targets of a :class:`~tsid_py.control.BalanceController` along the
plan, then solves:

* the :class:`~tsid_py.control.CapturePointTask` gets the planned CoM position, velocity and
  acceleration (feed-forward). Its law is DCM tracking: the commanded centre of pressure is
  the planned ZMP plus ``(1 + gain/ω)`` times the DCM error, kept inside the soles on the
  ground (a foot being unloaded still counts until it lifts). During a walk the reference
  capture point is followed wherever the plan puts it (``reference_margin`` None): in a
  swing it leaves the stance sole toward the next foothold by design. Standing (between
  walks, and in step recovery) it keeps the balance controller's margin;
* the swing foot's :class:`~tsid_py.tasks.FrameTask` (added at lift-off, removed at
  touch-down) follows the :class:`~.swing.SwingTrajectory` with velocity and acceleration
  feed-forward;
* the torso's orientation task turns with the feet (yaw = the walker's heading, refreshed
  every :data:`HEADING_STEP` rad);
* contacts are removed before lift-off and added at touch-down, both with force ramps.

Between walks the controller stands (the balance controller with the CoM held where the last
walk left it).
"""

from __future__ import annotations

import numpy as np

from ... import tasks
from ..._validation import positive_scalar
from ...contacts import PlanarContact
from ...robot import Robot
from ...solution import Solution
from ..balance import BalanceController, leg_joints
from .footsteps import Footstep, Gait, default_gait, footsteps_from_velocity, plan_footsteps
from .angles import level_placement, mean_yaw, yaw_of, yaw_rotation
from .plan import LAND, LIFT, UNLOAD, WalkPlan
from .recovery import RecoveryStep, StepRecovery
from .swing import SwingTrajectory

#: Balance-controller options a walk changes from their balance defaults, by robot name.
#: G1: with its 5 cm wide soles the QP's friction and torsion bounds (``mu``) are its
#: yaw budget; at the balance default (0.5) a stance sole held its torsion bound through
#: each swing and crept 16 mm and 10° per step in MuJoCo (soft friction), at 0.3 about 6 mm
#: and 3°, the upper body (a lighter ``posture_weight``) taking up the rest of the swing
#: leg's yaw reaction.
WALK_OPTIONS = {"g1": {"mu": 0.3, "posture_weight": 1e-3}}

#: The torso's yaw target is refreshed when the heading has moved this far (rad) since the
#: last refresh: while turning, not at every step (a validated rotation costs ~20 µs).
HEADING_STEP = 1e-3

#: During a recovery swing the landing point is re-aimed on the measured capture point every
#: RETARGET_PERIOD s, and re-planned when that moves it farther than RETARGET_DISTANCE m.
RETARGET_PERIOD, RETARGET_DISTANCE = 0.005, 0.005

#: A plan counts as done this many LIPM time constants (1/ω) after its end: the CoM has
#: come within e^-4 (2 %) of its last offset from the final ZMP.
SETTLE_TIME_CONSTANTS = 4.0


class WalkingController:
    """Walking on a humanoid's two soles (see the module).

    Parameters
    ----------
    robot : a humanoid :class:`~tsid_py.Robot` with two ``feet`` and ``sole_size``.
    dt : control period, s.
    gait : the :class:`~.footsteps.Gait` (default: :func:`~.footsteps.default_gait` for the
        robot's name).
    swing_kp : stiffness of the swing foot's frame task, 1/s² (kd = 2√kp).
    swing_weight : its weight (the CoM task's is 1).
    leg_posture_weight : weight of the posture task on the legs' joints (those between the
        base and a foot). The balance controller's posture task pulls every joint toward
        ``robot.q_ref``; a walk moves the legs far from it, and with the balance weight that
        pull fights the CoM task (on G1 the DCM lagged its plan by 1.5 cm before the first
        step). The other joints keep the balance controller's ``posture_weight``.
    step_recovery : step when a push carries the capture point out of the soles (True: a
        :class:`~.recovery.StepRecovery` with the robot's defaults, or one configured).
    balance_options : keyword arguments of the :class:`~tsid_py.control.BalanceController`
        inside (``dcm_gain``, ``torso_weight``, ``qp_solver``, ...), over
        :data:`WALK_OPTIONS`'s for the robot.

    ``balance`` is that controller (its ``solver``, ``com``, ``torso``, ``posture``,
    ``policy`` are the walk's), ``plan`` the walk under way (None when standing), ``time``
    the controller's clock (s, advanced by ``dt`` each :meth:`step`).
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, *, gait: Gait | None = None, swing_kp: float = 400.0,
                 swing_weight: float = 10.0, leg_posture_weight: float = 1e-4,
                 step_recovery: bool | StepRecovery = False, **balance_options):
        self.balance = BalanceController(robot, dt, **{**WALK_OPTIONS.get(robot.name, {}), **balance_options})
        if len(robot.feet) != 2:
            raise ValueError(f"robot must have two feet to walk, got {list(robot.feet)}")
        self.robot, self.solver, self.com = robot, self.balance.solver, self.balance.com
        self.gait = gait or default_gait(robot.name)
        self.swing_tasks = {foot: tasks.FrameTask(foot, kp=positive_scalar(swing_kp, "swing_kp"),
                                                  weight=positive_scalar(swing_weight, "swing_weight"),
                                                  name=f"swing({foot})") for foot in robot.feet}
        self.torso_rest = self.balance.torso.target.rotation.copy()
        posture = self.balance.posture
        legs = leg_joints(robot)
        weights = posture.weight.copy()
        names = posture.joints or [name for name in robot.joint_names if robot.has_1dof_joint(name)]
        weights[[name in legs for name in names]] = positive_scalar(
            leg_posture_weight, "leg_posture_weight", allow_zero=True)
        posture.weight = weights
        self.time = 0.0
        self.plan: WalkPlan | None = None
        self.plan_start = 0.0
        self.swinging: str | None = None
        self.steps_taken = 0
        #: The contacts made at touch-down, with their footstep's index.
        self.landed: list[tuple[PlanarContact, int]] = []
        self._event, self._heading, self._footholds = 0, None, {}
        self.recovery: StepRecovery | None = None
        if step_recovery is True:
            height = robot.gravity / self.com.omega**2
            self.recovery = StepRecovery.for_robot(robot, self.feet(), height, sole_size=self._contact_sole())
        elif isinstance(step_recovery, StepRecovery):
            self.recovery = step_recovery
        elif step_recovery is not False:
            raise ValueError(f"step_recovery must be a bool or a StepRecovery, got {type(step_recovery).__name__}")
        #: Steps taken to recover from pushes so far (closing steps included).
        self.recovery_steps = 0
        self._recovering: _RecoverySwing | None = None
        #: The recovery steps decided so far (where each was aimed at the decision).
        self.recovery_log: list[RecoveryStep] = []

    # ------------------------------------------------------------------ plans
    def feet(self) -> dict[str, Footstep]:
        """Where the feet stand now: each contact's anchor (the pose where it was made)."""
        feet = {}
        for name in self.robot.feet:
            contact = self.solver.contacts.get(name)
            if contact is None:
                raise ValueError(f"foot {name!r} is not on the ground: a walk starts on both feet")
            feet[name] = _footstep(name, contact.anchor)
        return feet

    def walk(self, footsteps) -> WalkPlan:
        """Start walking through ``footsteps`` (a list of :class:`~.footsteps.Footstep`) now,
        from rest; returns the plan."""
        if self.plan is not None:
            raise RuntimeError("a walk is under way: wait until `walking` is False")
        if self._recovering is not None:
            raise RuntimeError("a recovery step is under way: wait until `recovering` is False")
        reference = self.com.position_ref.copy()
        feet = self.feet()
        self.plan = WalkPlan(feet, footsteps, reference, self.com.omega, self.gait)
        self._standing_margin, self.com.reference_margin = self.com.reference_margin, None
        self.plan_start, self._event, self._footholds = self.time, 0, feet
        return self.plan

    def walk_distance(self, forward: float, lateral: float = 0.0, turn: float = 0.0) -> WalkPlan:
        """Walk ``forward`` m (negative: back), ``lateral`` m to the left and turn ``turn``
        rad (counter-clockwise) in the current heading's frame
        (:func:`~.footsteps.plan_footsteps`)."""
        left, right = self.feet().values()
        return self.walk(plan_footsteps(left, right, [forward, lateral, turn], self.gait))

    def turn(self, angle: float) -> WalkPlan:
        """Turn in place by ``angle`` rad (counter-clockwise positive)."""
        return self.walk_distance(0.0, 0.0, angle)

    def walk_velocity(self, velocity, steps: int) -> WalkPlan:
        """``steps`` swings at the command ``(v_forward, v_left, yaw_rate)`` (m/s, m/s, rad/s),
        then the closing step (:func:`~.footsteps.footsteps_from_velocity`)."""
        left, right = self.feet().values()
        return self.walk(footsteps_from_velocity(left, right, velocity, steps, self.gait))

    @property
    def recovering(self) -> bool:
        """Whether a recovery step is under way (until its landing ramp is over)."""
        return self._recovering is not None

    @property
    def walking(self) -> bool:
        """Whether a plan is under way (until its last touch-down and the CoM's settling)."""
        return self.plan is not None

    # ------------------------------------------------------------------ the loop
    def step(self, q, v, wrenches: dict | None = None) -> Solution:
        """One control step at the measured state: move the targets along the plan, solve
        (:meth:`BalanceController.step`), advance the clock."""
        if self._recovering is not None:
            self._follow_recovery(self.time)
        elif self.plan is not None:
            self._follow(self.time - self.plan_start)
        solution = self.balance.step(q, v, wrenches)
        if (self.recovery is not None and self.plan is None and self._recovering is None
                and len(self.solver.contacts) == 2 and self.recovery.needed(self.com.dcm_xy, self.balance.support)):
            self._start_recovery()
        self.time += self.solver.dt
        return solution

    # ------------------------------------------------------------------ step recovery
    def _contact_sole(self) -> tuple[float, float]:
        """Length and width (m) of the soles' contact rectangles (the CoP's region)."""
        contact = next(iter(self.solver.contacts.values()))
        return contact.length, contact.width

    def _start_recovery(self) -> None:
        """Decide a recovery step now (:meth:`StepRecovery.choose`) and start it."""
        feet = self.feet()
        choice = self.recovery.choose(self.com.dcm_xy, feet, self.com.omega)
        self.recovery_log.append(choice)
        if self._recovering is None:
            self._enter_recovery()
        self._begin_swing(choice.footstep, feet[choice.stance], feet[choice.footstep.foot], closing=False)

    def _enter_recovery(self) -> None:
        """Change for the recovery what :meth:`_leave_recovery` restores: no hip strategy
        fights the capture point's run toward the landing point, and the soles' torsion
        costs :attr:`StepRecovery.torsion_weight` (the upper body takes the swing's yaw
        reaction)."""
        regularization, torsion = self.balance.wrench_regularization, self.recovery.torsion_weight
        saved_weights = None
        if regularization is not None and torsion is not None:
            saved_weights = regularization.axis_weights
            weights = saved_weights.copy()
            weights[5] = torsion
            regularization.axis_weights = weights
        self._standing_settings = (self.com.hip_ratio, saved_weights)
        self.com.hip_ratio = 0.0

    def _leave_recovery(self) -> None:
        """Stand again with the settings :meth:`_enter_recovery` saved."""
        self._recovering = None
        hip_ratio, weights = self._standing_settings
        self.com.hip_ratio = hip_ratio
        if weights is not None:
            self.balance.wrench_regularization.axis_weights = weights

    def _begin_swing(self, target: Footstep, stance: Footstep, start: Footstep, *, closing: bool) -> None:
        """Unload ``start``'s foot now (the support polygon shrinks to the stance sole at
        once) and swing it to ``target`` after the ramp."""
        recovery = self.recovery
        self.balance.remove_contact(target.foot, transition=recovery.transition)
        # the CoP stays a margin inside the stance sole: at its very edge a compliant sole rolls
        self.com.set_support(self.balance.support.shrunk(recovery.stance_margin))
        lift = self.time + recovery.transition
        trajectory = SwingTrajectory(level_placement(start.position, start.yaw),
                                     level_placement(target.position, target.yaw),
                                     lift, lift + recovery.swing_time, recovery.step_height)
        self._recovering = _RecoverySwing(target, stance, start, trajectory, closing)

    def _follow_recovery(self, t: float) -> None:
        """Lift, swing (a recovery step retargeted on the measured capture point), land;
        once the landing ramp is over: after a recovery step, close the stance
        (:meth:`StepRecovery.closing_step`); after the closing step, step again if the
        capture point is still outside the support, else stand."""
        underway, recovery = self._recovering, self.recovery
        trajectory = underway.trajectory
        foot = underway.target.foot
        task = self.swing_tasks[foot]
        if not underway.lifted and t >= trajectory.lift_off - 1e-9:
            if foot in self.solver.contacts:          # its ramp is over, the solver retires it next solve
                self.solver.remove_contact(foot)
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
                    trajectory.retarget(level_placement(aim.position, aim.yaw), t)
            sample = trajectory.sample(t)
            task.set_target(sample.placement, velocity=sample.velocity, acceleration=sample.acceleration)
            if t >= trajectory.touch_down - 1e-9:
                self.solver.remove_task(task)
                self.balance.add_contact(foot, transition=recovery.transition)
                self._stand_between(self.feet().values())
                underway.landed, underway.landed_at = True, t
                self.recovery_steps += 1
        elif underway.landed and t >= underway.landed_at + recovery.transition:
            if recovery.close and not underway.closing:
                feet = self.feet()
                trailing = feet[underway.stance.foot]
                closing = recovery.closing_step(feet[foot], trailing)
                self._stand_between([feet[foot], closing])
                self._begin_swing(closing, feet[foot], trailing, closing=True)
            elif recovery.needed(self.com.dcm_xy, self.balance.support):
                self._start_recovery()
            else:
                self._leave_recovery()

    def _stand_between(self, footholds) -> None:
        """CoM target: at rest over the middle of ``footholds``, at the current height."""
        middle = np.mean([step.xy for step in footholds], axis=0)
        self.com.set_target(np.array([middle[0], middle[1], self.com.position_ref[2]]))

    def _follow(self, t: float) -> None:
        plan = self.plan
        events = plan.events
        while self._event < len(events) and events[self._event][0] <= t + 1e-9:
            self._apply(*events[self._event])
            self._event += 1
        cx, cy, vx, vy, ax, ay = plan.com_trajectory.state(t)
        height = plan.com_start[2]
        self.com.set_target(np.array([cx, cy, height]), velocity=np.array([vx, vy, 0.0]),
                            acceleration=np.array([ax, ay, 0.0]))
        yaws = [step.yaw for name, step in self._footholds.items() if name != self.swinging]
        if self.swinging is not None:
            sample = plan.swings[self._swing_index].sample(t)
            self.swing_tasks[self.swinging].set_target(sample.placement, velocity=sample.velocity,
                                                       acceleration=sample.acceleration)
            yaws.append(sample.yaw)
        heading = mean_yaw(*yaws)
        if self._heading is None or abs(heading - self._heading) > HEADING_STEP:
            self._heading = heading
            self.balance.torso.set_target(yaw_rotation(heading) @ self.torso_rest)
        if self._event == len(events) and t >= plan.duration + SETTLE_TIME_CONSTANTS / plan.omega:
            self.plan = None                          # standing again; the CoM target stays
            self.com.reference_margin = self._standing_margin

    def _apply(self, _time: float, kind: str, foot: str, index: int) -> None:
        """One contact event of the plan."""
        ramp = self.gait.transition
        if kind == UNLOAD:
            self.solver.remove_contact(foot, transition=ramp)
        elif kind == LIFT:
            if foot in self.solver.contacts:          # its ramp is over, the solver retires it next solve
                self.solver.remove_contact(foot)
            self.balance.update_support()
            task = self.swing_tasks[foot]
            task.set_target(self.plan.swings[index].sample(self.plan.swings[index].lift_off).placement)
            self.solver.add_task(task)
            self.swinging, self._swing_index = foot, index
        elif kind == LAND:
            self.solver.remove_task(self.swing_tasks[foot])
            self.swinging = None
            self._footholds[foot] = self.plan.footsteps[index]
            self.landed.append((self.balance.add_contact(foot, transition=ramp), index))
            self.steps_taken += 1

    def footholds(self) -> list[tuple[int, Footstep]]:
        """``(footstep index, where the sole was when its contact was made)`` for each
        touch-down so far: the contact's anchor, fixed at the first solve after it."""
        return [(index, _footstep(contact.frame, contact.anchor)) for contact, index in self.landed]


def _footstep(foot: str, placement) -> Footstep:
    position = placement.translation
    return Footstep(foot, float(position[0]), float(position[1]), yaw_of(placement.rotation), float(position[2]))


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
