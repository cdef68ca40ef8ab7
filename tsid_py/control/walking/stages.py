"""The walking controller's stage that follows a walk's plan (stepping to recover from a push
while standing is :mod:`.recovery_stage`'s).

Both run before the capture point's support stage and the solve
(:class:`~tsid_py.control.walking.WalkingController` lists the pipeline); they move the
task targets (CoM, swing foot, torso), make and break contacts through the
:class:`~tsid_py.control.stance.Stance`, and set the step's
:class:`~tsid_py.control.support.BalanceMode` and overrides.
"""

from __future__ import annotations

import math

import numpy as np

from ...contacts import PlanarContact
from ..capture_point import SupportPolygon, rectangle_corners
from ..dcm import CapturePointTask
from ..pipeline import Stage, StepState
from ..stance import Stance
from ..support import WALKING
from ..terrain import surface_placement
from .adjustment import StepAdjustment
from .angles import mean_yaw, yaw_of_sole, yaw_rotation
from .footholds import landed_footstep
from .footsteps import Footstep, Gait
from .liftoff import LiftOffRetiming, LiftOffTiming
from .plan import LAND, LIFT, UNLOAD, WalkPlan
from .sequence import StepSequence, crosses
from .standing import footstep_of, standing_feet  # noqa: F401  (re-exported: recovery_stage, controller)
from .touchdown import Touchdown

#: The torso's yaw target is refreshed when the heading has moved this far (rad) since the
#: last refresh: while turning, not at every step (a validated rotation costs ~20 µs).
HEADING_STEP = 1e-3

#: At each lift-off the stance foot's height in the controller's state (an estimator's, which
#: drifts: G1 on rough ground ±2 cm, 7.5 mm low after 12 steps) less its foothold's planned
#: height is the offset between the terrain's frame and the state's; the swing lands that
#: much higher (the terrain registered on the stance foot) when it is over this (m). Without
#: it the landing aimed 7.5 mm above the ground, and the sole was loaded in the air.
HEIGHT_OFFSET_TOLERANCE = 1e-4

#: During a recovery swing the landing point is re-aimed on the measured capture point every
#: RETARGET_PERIOD s, and re-planned when that moves it farther than RETARGET_DISTANCE m.
RETARGET_PERIOD, RETARGET_DISTANCE = 0.005, 0.005

#: A plan counts as done this many LIPM time constants (1/ω) after its end: the CoM has
#: come within e^-4 (2 %) of its last offset from the final ZMP.
SETTLE_TIME_CONSTANTS = 4.0


class PlanStage(LiftOffRetiming, Stage):
    """Follow a :class:`~.plan.WalkPlan`: its contact events through the stance (a foot being
    unloaded counts in the support until it lifts), the planned CoM position, velocity and
    acceleration into the capture-point task, the swing foot's trajectory into its frame
    task (added at lift-off, removed at touch-down), the torso's yaw with the feet; the mode
    is :data:`~tsid_py.control.support.WALKING` while a plan is under way. ``momentum`` (a
    :class:`~tsid_py.tasks.MomentumTask`, optional) is in the solver while a plan is under
    way. With ``touchdown`` (:class:`~.touchdown.Touchdown`) and measured wrenches, a swing
    lands on contact: early from its apex on, or late with the plan's clock waiting (see
    :mod:`.touchdown`). ``region(footstep)`` (optional) gives the polygon a landing sole bears
    on, its contact's :attr:`~tsid_py.PlanarContact.bearing` (None: all of it), asked of the
    footstep as the sole landed (:func:`~.footholds.landed_footstep`: at its measured
    position, the foothold's polygon seen from there)."""

    def __init__(self, stance: Stance, com: CapturePointTask, torso, swing_tasks: dict, gait: Gait,
                 momentum=None, touchdown: Touchdown | None = None, adjustment: StepAdjustment | None = None,
                 place=None, region=None, pelvis=None, sequence: StepSequence | None = None,
                 liftoff: LiftOffTiming | None = None):
        self.stance, self.solver, self.com, self.torso = stance, stance.solver, com, torso
        #: The orientation tasks turned with the heading, with their rest rotations: the
        #: torso's, and the pelvis's when it has one (``pelvis``).
        self._upright = [(task, task.target.rotation.copy()) for task in (torso, pelvis) if task is not None]
        self.swing_tasks, self.gait, self.momentum, self.touchdown = swing_tasks, gait, momentum, touchdown
        #: Step adjustment (:mod:`.adjustment`; None: off) and ``place(footstep, under_way) ->
        #: footstep``, which puts a moved footstep on the ground (None: as moved; ``under_way``:
        #: the landing of the swing under way, which is to stay near where it was moved).
        self.adjustment, self.place, self.region = adjustment, place, region
        #: Two-step capture (:mod:`.sequence`; None: off), tried when step adjustment misses.
        self.sequence = sequence
        #: The lift-offs re-timed on the measured capture point (:mod:`.liftoff`; None: on the
        #: plan's clock), the lift-offs delayed so far, and how long the one due was (s).
        self.liftoff, self.delayed_lift_offs, self._delayed, self._next_lift_check = liftoff, 0, (None, 0.0), 0.0
        self.advanced_lift_offs = 0                      # brought forward (:func:`~.liftoff.advance_lift_off`)
        self._leg_ranges = {}                            # foot → its LegRange, made on first use
        self._anchored_steps = {}                        # contact name → (its anchor array, its footstep)
        #: Footsteps moved by step adjustment so far (each re-plan counts), the swings it
        #: brought down early or delayed, and the two-step captures among them.
        self.adjustments = self.early_touch_downs = self.delayed_touch_downs = self.sequences = 0
        self._sequenced: int | None = None               # the swing a two-step capture re-planned
        self._engaged: int | None = None                 # the swing step adjustment aims at its nominal offset
        self._next_check, self._target = 0.0, None
        #: Touch-downs so far that came early, and late (the plan's clock waited), by contact.
        self.early_landings = self.late_landings = 0
        self._waiting_since: float | None = None         # the controller's time a late foot started waiting
        self._land_time = 0.0

        self.torso_rest = torso.target.rotation.copy()
        self.plan: WalkPlan | None = None
        self.plan_start = 0.0
        self.swinging: str | None = None
        self.steps_taken = 0
        #: The contacts made at touch-down, with their footstep's index.
        self.landed: list[tuple[PlanarContact, int]] = []
        self._event, self._heading, self._footholds, self._swing_index = 0, None, {}, None
        self._stop_requested = False
        self._height_offset = 0.0

    def start(self, plan: WalkPlan, time: float, feet: dict[str, Footstep]) -> None:
        """Follow ``plan`` from ``time`` (s), the feet standing at ``feet``."""
        self.plan, self.plan_start, self._event, self._footholds = plan, time, 0, feet
        self._sequenced = None
        self._stop_requested, self._waiting_since = False, None
        if self.momentum is not None and not any(task is self.momentum for task in self.solver.tasks):
            self.solver.add_task(self.momentum)

    def _finish(self) -> None:
        """The plan is over: stand (the momentum task leaves the solver)."""
        self.plan = None
        if self.momentum is not None and any(task is self.momentum for task in self.solver.tasks):
            self.solver.remove_task(self.momentum)

    def stop(self) -> None:
        """End the walk under way as soon as both feet are on the ground (see
        :meth:`~tsid_py.control.walking.WalkingController.stop`)."""
        if self.plan is not None:
            self._stop_requested = True

    def step(self, state: StepState) -> None:
        """The plan's events, targets and mode at ``state.time``."""
        if self.plan is None:
            return
        if self._waiting_since is not None:              # a late touch-down: the plan's clock waits
            self.plan_start = state.time - self._land_time
        self._follow(state.time - self.plan_start, state.time, state.wrenches)
        if self._stop_requested and self.swinging is None:
            self._end_here()
        if self.plan is not None:
            state.mode = WALKING

    def _end_here(self) -> None:
        """Stand where the feet are: a foot being unloaded is loaded again, and the CoM is to
        come to rest over the middle of the feet at its height."""
        for foot in self.stance.releasing:
            self.stance.make(foot, self.gait.transition)
        feet = [contact.anchor.translation for contact in self.solver.contacts.values()]
        middle = np.mean(feet, axis=0)
        self.com.set_target(np.array([middle[0], middle[1], self.com.position_ref[2]]))
        self._finish()
        self._stop_requested = False

    def _follow(self, t: float, now: float, wrenches) -> None:
        plan = self.plan
        events = plan.events
        lowered = None
        while self._event < len(events):
            time, kind, foot, index = events[self._event]
            if kind == LAND and self.touchdown is not None and wrenches is not None and foot in wrenches:
                lowered = self._landing(t, now, wrenches[foot], time, foot, index)
                if lowered is not None or self.swinging == foot:
                    break                                # in the air still: the events after it wait
            elif time > t + 1e-9:
                break
            elif kind == UNLOAD and self.liftoff is not None and self._lift_off_delayed(t, index):
                events = plan.events                     # re-timed: this unloading comes later
                continue
            else:
                self._apply(time, kind, foot, index)
            self._event += 1
        if self.swinging is not None and lowered is None and self.adjustment is not None and t >= self._next_check:
            self._check_adjustment(t)
            plan = self.plan
        if self.liftoff is not None and lowered is None and t >= self._next_lift_check:
            self._check_lift_off(t)
        if (self.sequence is not None or self.liftoff is not None) and self.swinging is None \
                and self._advance_lift_off(t):
            self.advanced_lift_offs += 1
        cx, cy, cz, vx, vy, vz, ax, ay, az = plan.com_state(t)
        self.com.set_target(np.array([cx, cy, cz]), velocity=np.array([vx, vy, vz]),
                            acceleration=np.array([ax, ay, az]))
        yaws = [step.yaw for name, step in self._footholds.items() if name != self.swinging]
        if self.swinging is not None:
            sample = plan.swings[self._swing_index].sample(t)
            if lowered is None:
                self.swing_tasks[self.swinging].set_target(sample.placement, velocity=sample.velocity,
                                                           acceleration=sample.acceleration)
            else:
                self.swing_tasks[self.swinging].set_target(lowered[0], velocity=lowered[1])
            yaws.append(sample.yaw)
        heading = mean_yaw(*yaws)
        if self._heading is None or abs(heading - self._heading) > HEADING_STEP:
            self._heading = heading
            turn = yaw_rotation(heading)
            for task, rest in self._upright:
                task.set_target(turn @ rest)
        if self._event == len(events) and t >= plan.duration + SETTLE_TIME_CONSTANTS / plan.omega:
            self._finish()                            # standing again; the CoM target stays

    def _capture_move(self, index: int, t: float, touch_down: float | None = None, nominal: bool = False):
        """The least move of footstep ``index``'s landing that lets the stance sole bring
        the capture point into the support by the end of the double support after its
        touch-down (:meth:`~.adjustment.StepAdjustment.through_double_support`,
        :meth:`~.adjustment.StepAdjustment.shift`), predicted at plan time ``t`` from the
        measured capture point, or None; at ``touch_down`` (s) instead of the planned one when
        given; with ``nominal`` and a landing on a whole sole, the least move that puts it at
        the plan's nominal DCM offset from the moved landing instead
        (:meth:`~.adjustment.StepAdjustment.nominal_gain`)."""
        adjustment, plan = self.adjustment, self.plan
        swing, planned = plan.swings[index], plan.footsteps[index]
        stance_foot = next(name for name in self._footholds if name != planned.foot)
        time_left = (swing.touch_down if touch_down is None else touch_down) - t
        stance_zmp = self._stance_zmp(max(t, swing.lift_off))
        predicted = adjustment.predict(self.com.dcm_xy, stance_zmp, plan.omega, time_left)
        reachable, scale = adjustment.reachable(predicted, self._footholds[stance_foot].yaw, plan.omega, time_left), 1.0
        if planned.bearing is not None:     # a landing on part of its sole: held through the double support
            reachable, scale = adjustment.through_double_support(reachable, stance_zmp, planned.support_point,
                                                                 plan.omega)
        key = (self.solver.contact_epoch, stance_foot, planned)
        if self._target is None or self._target[0] != key:          # the soles' hull, while they stay
            length, width = adjustment.sole_size
            support = SupportPolygon(np.vstack([self.stance.footprint(stance_foot),
                                                rectangle_corners(planned.placement, length, width)]))
            self._target = (key, adjustment.target(support))
        if nominal and planned.bearing is None:     # the plan's own capture point: the nominal DCM offset
            return adjustment.shift(reachable, [plan.dcm(swing.touch_down)], adjustment.nominal_gain(plan.omega))
        return adjustment.shift(reachable, self._target[1], scale)

    def _stance_zmp(self, t: float) -> tuple[float, float]:
        """The plan's ZMP at plan time ``t``: ``c − c̈ / ω²`` (plain floats)."""
        cx, cy, _, _, _, _, ax, ay, _ = self.plan.com_state(t)
        square = self.plan.omega * self.plan.omega
        return cx - ax / square, cy - ay / square

    def _check_adjustment(self, t: float) -> None:
        """Step adjustment (:mod:`.adjustment`): the capture point at touch-down at best;
        outside the support of the stance and landing soles, the footsteps from the swing
        under way on aimed, from then until it lands, at the plan's nominal DCM offset (when
        that moves the landing by more than :data:`RETARGET_DISTANCE`; only to landings and
        touch-downs the swing foot can still reach, :meth:`~.adjustment.StepAdjustment.feasible`,
        later ones for a landing moved outward when none by the planned one is) and the walk
        re-planned. The swings of a two-step capture are re-aimed by the sequence
        instead (:meth:`_capture_in_two`, :meth:`_reaim_second`)."""
        adjustment, plan, index = self.adjustment, self.plan, self._swing_index
        swing = plan.swings[index]
        self._next_check = t + adjustment.period
        if self._sequenced is not None and index == self._sequenced + 1:
            self._reaim_second(t, index)                # the two-step's quick step, aimed by the sequence
            return
        if self._sequenced == index and t <= swing.touch_down - adjustment.min_time:
            self._capture_in_two(t, index, self._stance_footstep(), math.inf)    # re-aimed from the measured
            return
        last = adjustment.latest_touch_down(swing.lift_off, swing.touch_down, self.gait.single_support)
        if (t > min(swing.lift_off + adjustment.until * swing.duration, last - adjustment.min_time)
                or self._sequenced == index):
            self._next_check = swing.touch_down         # until this swing lands
            return
        planned = plan.footsteps[index]
        whole = planned.bearing is None     # a landing on part of a sole is moved by the least, each check
        if (self._engaged != index or not whole) and self._capture_move(index, t) is None:
            return
        self._engaged = index
        stance = self._stance_footstep()
        lifted = self._footholds[self.swinging]
        timing = None                        # the closed form's touch-down (adjustment.timed), on a whole sole
        if whole:
            timing = (self.com.dcm_xy, self._stance_zmp(max(t, swing.lift_off)), plan.dcm(swing.touch_down),
                      plan.omega)
        def cheapest(touch_downs, default=None):        # the first of the cheapest weighed
            return min((self._weigh(index, t, touch_down, stance, lifted) for touch_down in touch_downs),
                       key=lambda weighed: weighed[0], default=default)

        best = cheapest(adjustment.touch_downs(t, swing.lift_off, swing.touch_down, self.gait.single_support,
                                               timing=timing))
        if best[0][0] == math.inf:                       # no landing by the planned touch-down: a later one?
            best = cheapest(adjustment.later_touch_downs(t, swing.lift_off, swing.touch_down,
                                                         self.gait.single_support), default=best)
        key, shift, touch_down, move = best
        if key[0] == math.inf:                           # no landing the swing foot can still reach
            return
        if (key[0] > 0 and self.sequence is not None and crosses(stance, lifted, move - shift)
                and self._capture_in_two(t, index, stance, key[0])):
            return
        early, late = touch_down < swing.touch_down - 1e-9, touch_down > swing.touch_down + 1e-9
        landing = planned.moved_to(planned.x + shift[0], planned.y + shift[1])
        if self.place is not None:
            landing = self.place(landing, True)
        shift = landing.xy - planned.xy                  # as placed: the rest of the walk follows it
        if math.hypot(shift[0], shift[1]) <= RETARGET_DISTANCE and not early:    # (a delay only with a move)
            return
        moved = [landing, *self._moved(plan.footsteps[index + 1:], shift)]
        retimed = touch_down if early or late else None
        robot = self.solver.robot
        try:
            plan.replan(t, index, moved, robot.com[:2], robot.com_velocity[:2], retimed)
        except ValueError:                               # a moved footstep out of reach: keep the plan
            return
        swing.retarget(self._registered(moved[0].placement), t, retimed)
        self.adjustments += 1
        self.early_touch_downs += early
        self.delayed_touch_downs += late

    def _reaim_second(self, t: float, index: int) -> None:
        """The two-step capture's second swing (footstep ``index``) re-aimed on the measured
        capture point (:meth:`~.sequence.StepSequence.second_landing`) while the foot can still
        get there (:meth:`~.adjustment.StepAdjustment.feasible`); the later footsteps follow."""
        plan, adjustment = self.plan, self.adjustment
        swing, planned = plan.swings[index], plan.footsteps[index]
        if t > swing.touch_down - adjustment.min_time:
            self._next_check = swing.touch_down
            return
        landing, _ = self.sequence.second_landing(adjustment, self.com.dcm_xy, plan.omega, swing.touch_down - t,
                                                  self._stance_footstep(), self._footholds[self.swinging], planned)
        if self.place is not None:
            landing = self.place(landing, True)
        shift = landing.xy - planned.xy
        sample = swing.sample(t)
        if math.hypot(shift[0], shift[1]) <= RETARGET_DISTANCE or not adjustment.feasible(
                sample.placement.translation[:2], sample.velocity[:2], sample.acceleration[:2], landing.xy,
                swing.touch_down - t):
            return
        robot = self.solver.robot
        try:
            plan.replan(t, index, [landing, *self._moved(plan.footsteps[index + 1:], shift)], robot.com[:2],
                        robot.com_velocity[:2])
        except ValueError:                               # out of reach: keep the plan
            return
        swing.retarget(self._registered(landing.placement), t)
        self.adjustments += 1

    def _stance_footstep(self) -> Footstep:
        """The stance foot's footstep where its contact is anchored (its foothold without one)."""
        stance_foot = next(name for name in self._footholds if name != self.swinging)
        contact = self.solver.contacts.get(stance_foot)
        return self._anchored_footstep(contact) if contact is not None else self._footholds[stance_foot]

    def _anchored_footstep(self, contact) -> Footstep:
        """The footstep of ``contact``'s anchor, kept while that anchor is (a re-anchor,
        :meth:`~tsid_py.solver.DynamicsSolver.reanchor_contact`, gives it new arrays): 2 µs of
        a 10 µs check, run every 5 ms."""
        entry = self._anchored_steps.get(contact.name)
        if entry is None or entry[0] is not contact.anchor_translation:
            entry = self._anchored_steps[contact.name] = (contact.anchor_translation,
                                                          footstep_of(contact.name, contact.anchor))
        return entry[1]

    def _weigh(self, index: int, t: float, touch_down: float, stance: Footstep, lifted: Footstep):
        """Swing ``index`` landing at ``touch_down`` (plan time) weighed at ``t``:
        ``(cost, shift (2,) of its landing within reach, touch_down, the whole move)``
        (:meth:`~.adjustment.StepAdjustment.cost`; the whole move is the shift when none is
        needed)."""
        adjustment, planned, swing = self.adjustment, self.plan.footsteps[index], self.plan.swings[index]
        move = self._capture_move(index, t, touch_down, nominal=True)
        shift = np.zeros(2)
        if move is not None:
            x, y = adjustment.aimed_landing(planned, move, stance, lifted,
                                            lambda: self._capture_move(index, t, touch_down))
            shift = np.array([x - planned.x, y - planned.y])
        key = adjustment.cost(shift, swing.touch_down, touch_down, missed=None if move is None else move - shift)
        if adjustment.max_acceleration is not None and (move is not None or touch_down < swing.touch_down - 1e-9):
            sample = swing.sample(t)                     # can the foot still get there, and by then?
            if not adjustment.feasible(sample.placement.translation[:2], sample.velocity[:2],
                                       sample.acceleration[:2], planned.xy + shift, touch_down - t):
                key = (math.inf, math.inf)
        if touch_down > swing.touch_down + 1e-9 and (move is None or crosses(stance, lifted, move)):
            key = (math.inf, math.inf)                   # later only to reach a landing moved outward
        return key, shift, touch_down, shift if move is None else move

    def _moved(self, footsteps, shift) -> list[Footstep]:
        """``footsteps`` moved by ``shift`` (2,) m and put on the ground (the rest of a walk
        following a moved landing)."""
        moved = [step.moved_to(step.x + shift[0], step.y + shift[1]) for step in footsteps]
        return moved if self.place is None else [self.place(step, False) for step in moved]

    def _capture_in_two(self, t: float, index: int, stance: Footstep, missed_cm: float) -> bool:
        """Two-step capture (:mod:`.sequence`) when the one-step adjustment misses by
        ``missed_cm`` (cm): the swing under way (footstep ``index``) lands early beside the
        ``stance`` foot and the stance foot steps at once, re-timed; the later footsteps move
        with the second, and the step after them, which resumes the walk, swung as long as
        its reaction needs (:meth:`~.sequence.StepSequence.resumption`, its travel toward
        the second landing). Whether it was taken (predicted to miss by less, and the re-plan
        accepted); once taken for this swing, it is chosen again from the measured capture
        point at each check (taken when it moves a landing or brings the touch-down forward)."""
        plan = self.plan
        if index + 1 >= len(plan.footsteps):
            return False
        swing = plan.swings[index]
        sample, adjustment = swing.sample(t), self.adjustment

        def feasible(landing, duration: float) -> bool:            # can the swing foot get there by then?
            return adjustment.feasible(sample.placement.translation[:2], sample.velocity[:2],
                                       sample.acceleration[:2], landing, duration)

        choice = self.sequence.choose(adjustment, self.com.dcm_xy, plan.omega, t, swing.touch_down, stance,
                                      self._footholds[self.swinging], plan.footsteps[index], plan.footsteps[index + 1],
                                      feasible)
        again = self._sequenced == index                 # re-aimed: when it moves a landing or the touch-down
        if round(100.0 * choice.miss) >= missed_cm or again and choice.touch_down >= swing.touch_down - 1e-9 and max(
                np.hypot(*(choice.first.xy - plan.footsteps[index].xy)),
                np.hypot(*(choice.second.xy - plan.footsteps[index + 1].xy))) <= RETARGET_DISTANCE:
            return False
        first, second = choice.first, choice.second
        if self.place is not None:
            first, second = self.place(first, True), self.place(second, True)
        later = self._moved(plan.footsteps[index + 2:], second.xy - plan.footsteps[index + 1].xy)
        timing = choice.timing
        if later:                                        # the resumption: its swing long enough for its reaction
            toward = second.xy - first.xy
            travel = float(toward @ (later[0].xy - first.xy)) / max(float(np.hypot(*toward)), 1e-9)
            timing = timing + ((self.gait.double_support,
                                self.sequence.resumption(travel, self.gait.single_support)),)
        robot = self.solver.robot
        early = choice.touch_down < swing.touch_down - 1e-9
        try:
            plan.replan(t, index, [first, second, *later], robot.com[:2], robot.com_velocity[:2],
                        choice.touch_down if early else None, next_timing=timing[:len(plan.footsteps) - index - 1])
        except ValueError:                               # out of reach: keep the plan
            return False
        swing.retarget(self._registered(first.placement), t, choice.touch_down if early else None)
        self._sequenced = index
        self.sequences += not again
        self.adjustments += 1
        self.early_touch_downs += early and not again
        return True

    def _landing(self, t: float, now: float, wrench, time: float, foot: str, index: int):
        """The LAND event of a swing with measured wrenches (:mod:`.touchdown`): land now on
        contact from the apex on (returns None, the event applied), or wait past its time
        with the target lowered (returns ``(placement, velocity)``), or nothing yet (None,
        not applied)."""
        normal = self.plan.footsteps[index].normal
        contact = t >= self.plan.swings[index].apex_time and self.touchdown.touched(wrench, normal)
        if contact or time > t + 1e-9:
            if contact:
                if self._waiting_since is not None:
                    self.late_landings += 1
                elif time > t + 1e-9:
                    self.early_landings += 1
                self._waiting_since = None
                self._apply(time, LAND, foot, index)
            return None
        if self._waiting_since is None:                   # due, and not on the ground: wait
            self._waiting_since, self._land_time = now, time
        target, velocity, done = self.touchdown.lowered(self.plan.footsteps[index].placement, normal,
                                                        now - self._waiting_since)
        if done:                                          # lowered as far as it may go: land on the clock
            self._waiting_since = None
            self.late_landings += 1
            self._apply(time, LAND, foot, index)
            return None
        return target, velocity

    def _measured_height(self, foot: str) -> float:
        """The height (m) of ``foot``'s frame in the controller's state (an estimate's)."""
        robot = self.solver.robot
        return float(robot.frame_placement(robot.frame_id(foot)).translation[2])

    def _registered(self, placement):
        """A landing ``placement`` of the plan (the terrain's frame) in the controller's:
        moved up by the height offset measured at this swing's lift-off (see
        :data:`HEIGHT_OFFSET_TOLERANCE`)."""
        if self._height_offset == 0.0:
            return placement
        moved = placement.copy()
        moved.translation = placement.translation + np.array([0.0, 0.0, self._height_offset])
        return moved

    def _apply(self, _time: float, kind: str, foot: str, index: int) -> None:
        """One contact event of the plan."""
        ramp = self.gait.transition
        if kind == UNLOAD:
            self.stance.release(foot, ramp, counted_until_lift=True)
        elif kind == LIFT:
            self.stance.lift(foot)
            task = self.swing_tasks[foot]
            swing = self.plan.swings[index]
            stance = next(name for name in self._footholds if name != foot)
            offset = self._measured_height(stance) - self._footholds[stance].z
            self._height_offset = offset if abs(offset) > HEIGHT_OFFSET_TOLERANCE else 0.0
            if self._height_offset != 0.0:
                swing.retarget(self._registered(swing.end), swing.lift_off)
            task.set_target(swing.sample(swing.lift_off).placement)
            self.solver.add_task(task)
            self.swinging, self._swing_index = foot, index
        elif kind == LAND:
            self.solver.remove_task(self.swing_tasks[foot])
            self.swinging = None
            footstep = self._footholds[foot] = self.plan.footsteps[index]
            placement = self.solver.robot.frame_placement(self.solver.robot.frame_id(foot))
            bearing = None
            if self.region is not None and footstep.bearing is not None:     # seen from where the sole landed
                bearing = self.region(landed_footstep(footstep, placement.translation[0], placement.translation[1]))
            anchor = None
            if not footstep.level or footstep.bearing is not None:      # on the ground's plane there
                anchor = surface_placement(placement.translation, yaw_of_sole(placement.rotation), footstep.normal)
            self.landed.append((self.stance.make(foot, ramp, bearing, anchor), index))
            self.steps_taken += 1
