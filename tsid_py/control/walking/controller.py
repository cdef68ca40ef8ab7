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

It is a :class:`~tsid_py.control.pipeline.Pipeline` of the balance controller's stages with
two of its own before them::

    step recovery → walk plan → contact state → capture point's support → solve

(:class:`~.recovery_stage.RecoveryStage`, :class:`~.stages.PlanStage`). Its defaults for the robot
(gait, soles' friction, posture weight) come from the robot's profile.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.linalg import norm as np_norm

from ... import tasks
from ..._validation import positive_scalar
from ...models.legs import ankle_tilt_range
from ...models.profile import profile_of
from ...models.reach import NARROWEST, carry_width
from ...models.swing_time import QUINTIC_ACCELERATION, quickest_swing, swing_reaction
from ...robot import Robot
from ...settings import Setting
from ..balance import BalanceController
from ..pipeline import Pipeline
from ..support import WALKING
from ..terrain import Terrain
from .adjustment import StepAdjustment
from .footholds import contact_region, place_footstep, place_footsteps
from .footsteps import Footstep, Gait, footsteps_from_velocity, plan_footsteps
from .plan import WalkPlan
from .recovery import RecoveryStep, StepRecovery
from .recovery_stage import RecoveryStage
from .liftoff import LiftOffTiming
from .sequence import StepSequence
from .stages import PlanStage, footstep_of, standing_feet
from .touchdown import Touchdown

#: Share of the ankles' tilt range (:func:`~tsid_py.models.legs.ankle_tilt_range`) a foothold's
#: surface may take (:func:`~.footholds.place_footstep`'s ``tilt_limits``); the rest is the
#: gait's own: on flat ground G1's stance ankle rolls up to 4° and its swing ankle 11° of
#: their ±15°. Rough ground put a G1 sole on a facet rolled 16.8°: its ankle roll sat at its
#: stop through the stance, and the sole tipped over its edge.
ANKLE_TILT_SHARE = 0.5
#: With the gait's ``free_swing_tilt``, the swing task's weight on the sole's tilt (about the
#: world's horizontal axes), as a share of its ``swing_weight``: low enough that the legs tilt
#: the sole where their ranges need (Simple Humanoid's stance leg reaches over its sole only
#: with the swing sole pitched toes down, ``benchmarks/com_reach.py --parts mid-swing``), the
#: contact flattening it at touch-down.
FREE_TILT_SHARE = 1e-3
#: Step lengths of the straight walk whose middle lift-off gives the walk's CoM sway there
#: (:meth:`WalkingController._lift_off_width`; from the third step on it changes by < 0.5 %).
SWAY_STEPS = 6


def default_gait(robot: Robot) -> Gait:
    """The walking gait of ``robot``'s profile (:func:`tsid_py.models.profile.profile_of`)."""
    return profile_of(robot).gait


class WalkingController(Pipeline):
    """Walking on a humanoid's two soles (see the module).

    Parameters
    ----------
    robot : a humanoid :class:`~tsid_py.Robot` whose profile has two feet with soles.
    dt : control period, s.
    gait : the :class:`~.footsteps.Gait` (default: the robot profile's).
    swing_kp : stiffness of the swing foot's frame task, 1/s² (kd = 2√kp).
    swing_weight : its weight (the CoM task's is 1; on the sole's tilt
        :data:`FREE_TILT_SHARE` of it when the gait's ``free_swing_tilt``).
    leg_posture_weight : weight of the posture task on the legs' joints (those between the
        base and a foot). The balance controller's posture task pulls every joint toward
        ``robot.q_ref``; a walk moves the legs far from it, and with the balance weight that
        pull fights the CoM task (on G1 the DCM lagged its plan by 1.5 cm before the first
        step). The other joints keep the balance controller's ``posture_weight``.
    step_recovery : step when a push carries the capture point out of the soles (True: a
        :class:`~.recovery.StepRecovery` with the robot's defaults, or one configured).
    terrain : the ground (:class:`~tsid_py.control.terrain.Terrain`; None: flat at the feet's
        height): footsteps are placed on it with their height and normal
        (:func:`~.footholds.place_footstep`), swings clear it, the CoM follows it.
    momentum_weight : while a walk is under way, a :class:`~tsid_py.tasks.MomentumTask` damps
        the centroidal angular momentum (``L̇ = −momentum_kp L``) with this weight relative to
        the CoM task's, in its units: a moment error ``δL̇`` (N·m) costs what a CoM
        acceleration error ``δL̇ / (m z)`` does (``m`` the mass, ``z`` the CoM height), so
        the task weighs ``momentum_weight / (m z)²`` on any robot (0: no task). Without it
        the capture-point task sets the net force but leaves the net moment free, and the
        QP draws the swing leg's reaction from the stance sole; with it the upper body
        takes that reaction, yaw included (the measurements: the Controllers page,
        *Walking*).
    momentum_kp : that task's gain, 1/s.
    touchdown : land on contact when :meth:`step` is given measured wrenches (True: a
        :class:`~.touchdown.Touchdown` with the robot's defaults, or one configured; False:
        on the clock always).
    step_adjustment : move the landing footstep (and the rest of the walk), and bring the
        touch-down forward, when no capture point the stance sole can reach at touch-down is
        in the support of the stance and landing soles (True: a
        :class:`~.adjustment.StepAdjustment` with the robot's defaults and the gait's pace,
        or one configured; False: off).
    step_sequence : when step adjustment cannot catch the capture point with the swing under
        way (it would have to cross the legs), land that swing early and step at once with
        the other foot, re-timed (True: a :class:`~.sequence.StepSequence` from ``ω`` and the
        gait, or one configured; False: off). Needs step adjustment. With it, a capture point
        pushed past the staying sole's outer edge in a double support brings the next
        lift-off forward to now (:func:`~.liftoff.advance_lift_off`: the two-step starts
        without waiting for the plan's clock).
    lift_off_timing : a foot does not lift while the measured capture point is where the
        other sole cannot hold it over the swing: the double support lasts longer, re-timed
        from the measured capture point (True, the default: a :class:`~.liftoff.LiftOffTiming`
        from the contact sole, the gait, step adjustment's reach and the legs' carry width, or
        one configured; False: every lift-off on the plan's clock; off for point feet). On,
        walks pushed sideways at ten instants of a step survive 62 of 80 against 54 (G1, Talos,
        iCub, Romeo; docs/walking.md, "The stance the legs carry"). A controller stepped open
        loop (its state never moving) waits at its first lift-off: pass False there.
    balance_options : keyword arguments of the :class:`~tsid_py.control.BalanceController`
        inside (``dcm_gain``, ``torso_weight``, ``qp_solver``, ...), over the profile's
        walking defaults (:class:`~tsid_py.models.profile.WalkDefaults`).

    ``balance`` is that controller, whose parts (``solver``, ``stance``, ``com``, ``torso``,
    ``posture``, ``policy``) and stages the walk shares; ``plan`` the walk under way (None
    when standing), ``time`` the controller's clock (s, advanced by ``dt`` each :meth:`step`).
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, *, gait: Gait | None = None, swing_kp: float = 400.0,
                 swing_weight: float = 10.0, leg_posture_weight: float = 1e-4,
                 step_recovery: bool | StepRecovery = False, terrain: Terrain | None = None,
                 momentum_weight: float = 5.0, momentum_kp: float = 10.0, touchdown: bool | Touchdown = True,
                 step_adjustment: bool | StepAdjustment = True, step_sequence: bool | StepSequence = True,
                 pelvis_weight: float | None = None, lift_off_timing: bool | LiftOffTiming = True,
                 **balance_options):
        profile = balance_options.get("profile") or profile_of(robot)
        self.balance = balance = BalanceController(robot, dt, **{**profile.walk.balance_options(), **balance_options})
        if len(balance.profile.feet) != 2:
            raise ValueError(f"robot must have two feet to walk, got {list(balance.profile.feet)}")
        self.robot, self.solver, self.com, self.stance = robot, balance.solver, balance.com, balance.stance
        self.gait = gait or balance.profile.gait
        if terrain is not None and not isinstance(terrain, Terrain):
            raise ValueError(f"terrain must be a tsid_py.control.terrain.Terrain, got {type(terrain).__name__}")
        self.terrain = terrain
        ranges = [ankle_tilt_range(robot.model, balance.profile.posture, foot) for foot in balance.profile.feet]
        #: ``(roll, pitch)`` rad: the largest tilt of a foothold's surface about the sole's
        #: length and width axes (:data:`ANKLE_TILT_SHARE` of the ankles' range).
        self.foothold_tilt_limits = tuple(ANKLE_TILT_SHARE * min(axis) for axis in zip(*ranges))
        swing_weights = positive_scalar(swing_weight, "swing_weight")
        if self.gait.free_swing_tilt:                    # the sole's tilt weighed less (world x, y rotations)
            swing_weights = np.r_[np.full(3, swing_weights), [FREE_TILT_SHARE * swing_weights] * 2, swing_weights]
        self.swing_tasks = {foot: tasks.FrameTask(foot, kp=positive_scalar(swing_kp, "swing_kp"), weight=swing_weights,
                                                  name=f"swing({foot})") for foot in balance.profile.feet}
        posture = balance.posture
        weights = posture.weight.copy()
        names = posture.joints or robot.scalar_joint_names
        weights[[name in balance.profile.leg_joints for name in names]] = positive_scalar(
            leg_posture_weight, "leg_posture_weight", allow_zero=True)
        posture.weight = weights
        relative = positive_scalar(momentum_weight, "momentum_weight", allow_zero=True)
        scale = robot.mass * robot.gravity / self.com.omega**2
        #: The angular momentum task of walks (None for ``momentum_weight`` 0; in the solver
        #: while a walk is under way).
        self.momentum = None if relative == 0 else tasks.MomentumTask(
            kp=positive_scalar(momentum_kp, "momentum_kp"), weight=relative / scale**2, name="walking momentum")
        if lift_off_timing is True and robot.sole_size is None:     # its rule is about soles: off for point feet
            lift_off_timing = False
        self._derived = {"touchdown": touchdown is True, "adjustment": step_adjustment is True,
                         "sequence": step_sequence is True, "lift_off": lift_off_timing is True}
        if touchdown is True:
            touchdown = Touchdown.for_robot(robot, self.gait)
        elif touchdown is not False and not isinstance(touchdown, Touchdown):
            raise ValueError(f"touchdown must be a bool or a Touchdown, got {type(touchdown).__name__}")
        #: Touch-down on contact (None: on the clock).
        self.touchdown = touchdown or None
        if step_adjustment is True:
            step_adjustment = self._default_adjustment()
        elif step_adjustment is not False and not isinstance(step_adjustment, StepAdjustment):
            raise ValueError(f"step_adjustment must be a bool or a StepAdjustment, got {type(step_adjustment).__name__}")
        #: Step adjustment during walks (None: off).
        self.adjustment = step_adjustment or None
        if step_sequence is True:
            step_sequence = self._default_sequence()
        elif step_sequence is not False and not isinstance(step_sequence, StepSequence):
            raise ValueError(f"step_sequence must be a bool or a StepSequence, got {type(step_sequence).__name__}")
        #: Two-step capture when step adjustment misses (None: off; always off without it).
        self.sequence = (step_sequence or None) if self.adjustment is not None else None
        if lift_off_timing is True:
            lift_off_timing = self._default_lift_off()
        elif lift_off_timing is not False and not isinstance(lift_off_timing, LiftOffTiming):
            raise ValueError(f"lift_off_timing must be a bool or a LiftOffTiming, got {type(lift_off_timing).__name__}")
        #: The lift-offs re-timed on the measured capture point (None: on the plan's clock).
        self.lift_off_timing = lift_off_timing or None
        pelvis = balance.profile.trunk_bodies[0] if balance.profile.trunk_bodies else None
        #: The pelvis's orientation task (None when the torso task's frame is the pelvis, or
        #: ``pelvis_weight`` is 0): upright, turned with the heading like the torso's.
        self.pelvis = None
        weight = balance.torso.weight if pelvis_weight is None else positive_scalar(pelvis_weight, "pelvis_weight",
                                                                                   allow_zero=True)
        if pelvis is not None and pelvis != balance.torso.frame and np.all(np.asarray(weight) > 0):
            self.pelvis = self.solver.add_task(tasks.OrientationTask(pelvis, kp=balance.torso.kp, weight=weight,
                                                                     name="pelvis"))
        self.plan_stage = PlanStage(balance.stance, balance.com, balance.torso, self.swing_tasks, self.gait,
                                    self.momentum, self.touchdown, self.adjustment, self._place, self._region,
                                    self.pelvis, self.sequence, self.lift_off_timing)
        self.recovery: StepRecovery | None = None
        if step_recovery is True:
            height = robot.gravity / self.com.omega**2
            self.recovery = StepRecovery.for_robot(robot, self.feet(), height, sole_size=self._contact_sole())
        elif isinstance(step_recovery, StepRecovery):
            self.recovery = step_recovery
        elif step_recovery is not False:
            raise ValueError(f"step_recovery must be a bool or a StepRecovery, got {type(step_recovery).__name__}")
        self.recovery_stage = None
        if self.recovery is not None:
            self.recovery_stage = RecoveryStage(self.recovery, balance.stance, balance.com, self.swing_tasks,
                                                self.plan_stage, balance.profile.feet, balance.wrench_regularization)
        stages = [self.recovery_stage, self.plan_stage, balance.contact_stage, balance.support_stage,
                  balance.solve_stage]
        super().__init__([stage for stage in stages if stage is not None], solver=balance.solver)

    gait = Setting("_checked_gait", after="_gait_changed")
    """The :class:`~.footsteps.Gait` of the walks (assigned between walks, not during one):
    the plan stage's force ramps, and the touch-down and step adjustment derived from it by
    default, follow it."""

    def _checked_gait(self, value, name: str) -> Gait:
        if not isinstance(value, Gait):
            raise ValueError(f"{name} must be a tsid_py.models.gait.Gait, got {type(value).__name__}")
        if getattr(self, "plan_stage", None) is not None and self.walking:
            raise ValueError(f"{name} cannot change during a walk (its timing is the plan's): assign it once "
                             "`walking` is False")
        return value

    def _gait_changed(self) -> None:
        stage = getattr(self, "plan_stage", None)
        if stage is None:                               # during construction
            return
        stage.gait = self._gait
        if self._derived["touchdown"]:
            self.touchdown = stage.touchdown = Touchdown.for_robot(self.robot, self._gait)
        if self._derived["adjustment"]:
            self.adjustment = stage.adjustment = self._default_adjustment()
        if self._derived["sequence"] and self.adjustment is not None:
            self.sequence = stage.sequence = self._default_sequence()
        if self._derived["lift_off"]:
            self.lift_off_timing = stage.liftoff = self._default_lift_off()

    def _default_adjustment(self) -> StepAdjustment:
        """The step adjustment for this robot and gait (:meth:`_scaled_adjustment`), its nominal
        aim landing no wider than the legs lift a foot off from as the walk does
        (:meth:`_lift_off_width`)."""
        adjustment = self._scaled_adjustment()
        return replace(adjustment, nominal_width=self._lift_off_width(adjustment.max_width))

    def _scaled_adjustment(self) -> StepAdjustment:
        """Step adjustment's reach and timing for this robot and gait
        (:meth:`.adjustment.StepAdjustment.for_robot`)."""
        left, right = self.feet().values()
        width = self.gait.step_width or float(np_norm(left.xy - right.xy))
        return StepAdjustment.for_robot(self.robot.gravity / self.com.omega**2, width, self._contact_sole(), self.gait,
                                        quick_swing=StepSequence.reaim_swing(self.com.omega, self.gait))

    def _lift_off_width(self, widest: float) -> float:
        """The widest stance (m, up to ``widest``) at which the legs hold both soles flat with
        the CoM where the walk has it when a foot lifts off: the fraction of the way from the
        feet's middle to the stance sole's centre of a straight walk of this gait
        (:meth:`~.plan.WalkPlan.sway_at_lift_off` at its middle swing: G1 0.205), given to
        :func:`~tsid_py.models.reach.carry_width` (G1 0.434 m of its 0.479 m reach; Talos and
        Romeo their whole reach)."""
        feet = self.feet()
        steps = plan_footsteps(*feet.values(), (SWAY_STEPS * self.gait.step_length, 0.0, 0.0), self.gait)
        plan = WalkPlan(feet, steps, self.com.position_ref, self.com.omega, self.gait)
        sway = min(max(plan.sway_at_lift_off(len(steps) // 2), 0.0), 1.0)
        profile, sole = self.balance.profile, self.robot.sole_size
        return carry_width(self.robot.model, profile.posture, profile.feet, widest, None if sole is None else sole[1],
                           sway=sway)

    def _default_lift_off(self) -> LiftOffTiming:
        """The lift-off re-timing for this robot and gait (:meth:`.liftoff.LiftOffTiming.for_walk`),
        the landings within step adjustment's reach when it is on, no delay in a stance wider
        than the legs carry the CoM across (:func:`~tsid_py.models.reach.carry_width`, up to
        step adjustment's widest stance)."""
        adjustment = self.adjustment
        reach = None if adjustment is None else (adjustment.forward, adjustment.backward, adjustment.min_width,
                                                 adjustment.max_width)
        widest = (adjustment or self._scaled_adjustment()).max_width
        profile = self.balance.profile
        carried = carry_width(self.robot.model, profile.posture, profile.feet, widest, self.robot.sole_size[1])
        return LiftOffTiming.for_walk(self._contact_sole(), self.gait, reach, carried)

    def _default_sequence(self) -> StepSequence:
        """The two-step capture for this robot and gait (:meth:`.sequence.StepSequence.for_robot`):
        its first landing the narrowest stance of the walk's rule (:data:`~tsid_py.models.reach.NARROWEST`
        sole widths, the soles' inner edges half a sole apart; at most step adjustment's
        ``min_width``), its quick swing no quicker than the legs' joint limits allow across
        the legs' lateral reach (:func:`~tsid_py.models.swing_time.quickest_swing`) nor than
        step adjustment's acceleration bound allows across it (``√((10/√3) span / a_max)``);
        the swing's reaction ``κ / (m g)`` the larger of the legs' across the feet
        (:func:`~tsid_py.models.swing_time.swing_reaction` at the reference posture), which
        times the step resuming the walk."""
        adjustment = self.adjustment or self._scaled_adjustment()
        narrowest = adjustment.min_width
        if self.robot.sole_size is not None:
            narrowest = min(narrowest, NARROWEST * float(self.robot.sole_size[1]))
        left, right = self.feet().values()
        across = np.r_[left.xy - right.xy, 0.0]
        span = adjustment.max_width - narrowest
        quickest = max(quickest_swing(self.robot.model, self.robot.q_ref, foot, span, across)
                       for foot in self.balance.profile.feet)
        if adjustment.max_acceleration is not None:
            quickest = max(quickest, float(np.sqrt(QUINTIC_ACCELERATION * span / adjustment.max_acceleration)))
        reaction = max(swing_reaction(self.robot.model, self.robot.q_ref, foot, across)
                       for foot in self.balance.profile.feet) / (self.robot.mass * self.robot.gravity)
        return StepSequence.for_robot(self.com.omega, self.gait, self._contact_sole(), quickest=quickest,
                                      narrowest=narrowest, reaction=max(reaction, 0.0))

    # ------------------------------------------------------------------ plans
    def feet(self) -> dict[str, Footstep]:
        """Where the feet stand now: each contact's anchor (the pose where it was made)."""
        return standing_feet(self.solver, self.balance.profile.feet)

    def walk(self, footsteps) -> WalkPlan:
        """Start walking through ``footsteps`` (a list of :class:`~.footsteps.Footstep`) now,
        from rest; returns the plan."""
        if self.plan is not None:
            raise RuntimeError("a walk is under way: call stop() to end it at the next double support, then wait "
                               "until `walking` is False")
        if self.recovering:
            raise RuntimeError("a recovery step is under way: wait until `recovering` is False")
        reference = self.com.position_ref.copy()
        feet = self.feet()
        plan = WalkPlan(feet, footsteps, reference, self.com.omega, self.gait, terrain=self.terrain,
                        sole_size=self.balance.profile.sole_size)
        self.plan_stage.start(plan, self.time, feet)
        self.balance.support_stage.apply(WALKING)
        return plan

    def stop(self) -> None:
        """End the walk under way as soon as both feet are on the ground — now in double
        support, else when the swing under way lands — and stand there, the CoM coming to rest
        over the middle of the feet (a foot being unloaded for its lift-off is loaded again).
        Nothing to do when standing."""
        self.plan_stage.stop()

    def walk_distance(self, forward: float, lateral: float = 0.0, turn: float = 0.0) -> WalkPlan:
        """Walk ``forward`` m (negative: back), ``lateral`` m to the left and turn ``turn``
        rad (counter-clockwise) in the current heading's frame
        (:func:`~.footsteps.plan_footsteps`); ``ValueError`` when all three are 0 (nothing to
        walk: :meth:`stop` ends a walk)."""
        if forward == 0 and lateral == 0 and turn == 0:
            raise ValueError("forward, lateral and turn are all 0: there is nothing to walk (stop() ends a walk "
                             "under way)")
        left, right = self.feet().values()
        return self.walk(self._placed(plan_footsteps(left, right, [forward, lateral, turn], self.gait)))

    def turn(self, angle: float) -> WalkPlan:
        """Turn in place by ``angle`` rad (counter-clockwise positive)."""
        return self.walk_distance(0.0, 0.0, angle)

    def walk_velocity(self, velocity, steps: int) -> WalkPlan:
        """``steps`` swings at the command ``(v_forward, v_left, yaw_rate)`` (m/s, m/s, rad/s),
        then the closing step (:func:`~.footsteps.footsteps_from_velocity`)."""
        left, right = self.feet().values()
        return self.walk(self._placed(footsteps_from_velocity(left, right, velocity, steps, self.gait)))

    def _place(self, footstep: Footstep, under_way: bool = False) -> Footstep:
        """One footstep moved during a walk, put on the terrain (as it is without one); the
        landing of the swing ``under_way`` is looked for within a quarter of the sole's
        length of where it was moved (step adjustment put it there to catch the capture
        point)."""
        if self.terrain is None:
            return footstep
        sole = self.balance.profile.sole_size
        return place_footstep(footstep, self.terrain, sole, search=0.25 * sole[0] if under_way else None,
                              tilt_limits=self.foothold_tilt_limits)

    def _region(self, footstep: Footstep):
        """The polygon a sole landing on ``footstep`` bears on, as its contact's bearing
        (:func:`~.footholds.contact_region`; None: all of it)."""
        if footstep.bearing is None:
            return None
        return contact_region(footstep.bearing, self._contact_sole(), self.balance.profile.sole_size)

    def _placed(self, footsteps: list[Footstep]) -> list[Footstep]:
        """``footsteps`` placed on the terrain (:func:`~.footholds.place_footsteps`), or as
        planned without one."""
        if self.terrain is None:
            return footsteps
        return place_footsteps(footsteps, self.terrain, self.balance.profile.sole_size,
                               tilt_limits=self.foothold_tilt_limits)

    # ------------------------------------------------------------------ state
    @property
    def plan(self) -> WalkPlan | None:
        """The walk under way (None when standing)."""
        return self.plan_stage.plan

    @property
    def plan_start(self) -> float:
        """The controller's time (s) when the walk under way started."""
        return self.plan_stage.plan_start

    @property
    def walking(self) -> bool:
        """Whether a plan is under way (until its last touch-down and the CoM's settling)."""
        return self.plan_stage.plan is not None

    @property
    def recovering(self) -> bool:
        """Whether a recovery step is under way (until its landing ramp is over)."""
        return self.recovery_stage is not None and self.recovery_stage.underway is not None

    @property
    def steps_taken(self) -> int:
        """Footsteps of walks landed so far."""
        return self.plan_stage.steps_taken

    @property
    def landed(self) -> list:
        """The contacts made at the walks' touch-downs, with their footstep's index."""
        return self.plan_stage.landed

    @property
    def recovery_steps(self) -> int:
        """Steps taken to recover from pushes so far (closing steps included)."""
        return 0 if self.recovery_stage is None else self.recovery_stage.steps

    @property
    def recovery_log(self) -> list[RecoveryStep]:
        """The recovery steps decided so far (where each was aimed at the decision)."""
        return [] if self.recovery_stage is None else self.recovery_stage.log

    def _contact_sole(self) -> tuple[float, float]:
        """Length and width (m) of the soles' contact rectangles (the CoP's region)."""
        contact = next(iter(self.solver.contacts.values()))
        return contact.length, contact.width

    def footholds(self) -> list[tuple[int, Footstep]]:
        """``(footstep index, where the sole was when its contact was made)`` for each
        touch-down so far: the contact's anchor, fixed at the first solve after it."""
        return [(index, footstep_of(contact.frame, contact.anchor)) for contact, index in self.landed]
