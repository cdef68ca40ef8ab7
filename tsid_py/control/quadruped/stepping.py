"""The gait stage: feet lifted on the gait's clock, swung to their footholds, put down on contact.

Each control step :class:`GaitStage`

* starts, switches or stops the gait (:mod:`.gaits`; a gait of another ``width`` than the
  feet stand at starts after one trot period at its width, which moves the feet there on the
  diagonal pairs' support; stopping: once the command is at rest
  and the CoM slower than :data:`STAND_SPEED` ``√(g h)``, no foot lifts any more, the feet in
  the air land, then the robot stands);
* **lifts** a foot on the ground when the schedule has passed a lift-off since it landed
  (:meth:`~tsid_py.control.stance.Stance.lift`): its swing starts where it stood and ends at
  the foothold of :func:`~.footholds.raibert_foothold` at the scheduled touch-down, the
  :class:`~tsid_py.control.walking.swing.SwingTrajectory` of the biped (quintic, with a
  clearance bump), followed by the foot's :class:`~tsid_py.tasks.PositionTask`;
* **re-aims** a swinging foot every :data:`AIM_PERIOD` s during the first
  :data:`AIM_UNTIL` of its swing: the foothold follows the measured velocity (a push moves
  it), and the swing is re-planned from its current reference when the foothold moved more
  than :data:`AIM_DISTANCE`;
* **lands** a foot on contact, not on the clock: once half its swing is over, a measured
  normal force above :data:`TOUCHDOWN_FORCE` of the weight (``state.wrenches``, and above
  :data:`TOUCHDOWN_SIGMAS` times the force sensors' noise, :meth:`GaitStage.set_force_noise`)
  makes its contact (:meth:`~tsid_py.control.stance.Stance.make`, where the foot is).
  A foot still in the air at its scheduled touch-down keeps moving down at
  :data:`DESCENT_SPEED` × its leg length per second and lands on contact, or after a further
  :data:`LATE_LIMIT` of a swing at the latest.

**Without force measurements** a foot lands once its height above the ground, in the estimated
state, is within :data:`TOUCHDOWN_HEIGHT` (the estimate is good to about a millimetre: at 2 mm
Go2 under ``--realistic`` put its feet down just above the ground and dropped them, at up to
3.7 times its weight, its worst foot sliding 2.8–4.5 mm a stance over seeds 0–2; at 1 mm, 1.9
times and 0.4–1.5 mm); its contact's force then ramps up over :data:`LANDING_RAMP` of a swing
(at once, the largest normal force was 3.1–3.5 times the weight, seeds 0 and 3). The blind
ground's plane then takes the foot where it stood at the end of its stance, at its lift-off,
not where it was put down: a plane through feet put down a little high rose with them, and the
body with it (10 cm in 6 s).

Units: m, s, N.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import as_vector, positive_scalar
from ...tasks import PositionTask
from ..pipeline import Stage, StepState
from ..stance import Stance
from .body import Body, CommandFilter
from .footholds import raibert_foothold
from .gaits import STAND, TROT, GaitPattern, GaitSchedule, gait_named
from .geometry import QuadrupedGeometry
from .ground import Ground
from .swing import FootSwing

AIM_PERIOD, AIM_UNTIL, AIM_DISTANCE = 0.005, 0.6, 0.005
TOUCHDOWN_FORCE, TOUCHDOWN_HEIGHT, TOUCHDOWN_SIGMAS = 0.01, 0.001, 5.0
#: Without force measurements a landing foot's force ramps up over this share of a swing.
LANDING_RAMP = 0.1
DESCENT_SPEED, LATE_LIMIT = 0.5, 0.5
#: A gait asked to stop goes on stepping until the CoM is slower than this share of ``√(g h)``.
STAND_SPEED = 0.05


class SwingFootTask(PositionTask):
    """A :class:`~tsid_py.tasks.PositionTask` whose point target is written in place (the
    control loop sets it every step; :class:`~tsid_py.tasks.FrameTask`'s general target path
    forms and checks a placement each time)."""

    def apply_target(self, target) -> None:
        point = as_vector(target, "target", 3)
        if self.target is None:
            super().apply_target(point)
            return
        self._translation_ref[:] = point
        self._placement_ref.translation = point


class Foot:
    """One foot's part in the gait: its contact frame ``name``, ``index`` among the feet,
    swing ``task``, the ``swing`` under way (None on the ground), its ``foothold`` (3,) (where
    it stands, or will land), the times its stance began (``since``) and its swing's
    scheduled lift-off (``lifted``)."""

    __slots__ = ("name", "index", "frame_id", "neutral", "task", "swing", "foothold", "since", "lifted",
                 "next_aim", "touchdowns", "felt")

    def __init__(self, name: str, index: int, frame_id: int, neutral: np.ndarray, task: PositionTask):
        self.name, self.index, self.frame_id, self.neutral, self.task = name, index, frame_id, neutral, task
        self.swing: FootSwing | None = None
        self.foothold = np.zeros(3)
        self.since = -math.inf
        self.lifted = -math.inf
        self.next_aim = 0.0
        self.touchdowns = 0
        self.felt = True


class GaitStage(Stage):
    """Plan: the gait's contact changes and the swing feet (see the module).

    Parameters
    ----------
    stance : the controller's :class:`~tsid_py.control.stance.Stance`.
    geometry : the robot's :class:`~.geometry.QuadrupedGeometry`.
    body, command, ground : the shared body estimate, command and ground.
    swing_kp, swing_weight : the swing feet's position tasks (1/s², weight).
    swing_time, step_height : s, m (defaults: the geometry's).
    rolling : the feet's :class:`~.rolling.RollingFeet`, told the ground's normal where each
        foot stands or will land.
    """

    def __init__(self, stance: Stance, geometry: QuadrupedGeometry, body: Body, command: CommandFilter,
                 ground: Ground, *, swing_kp: float, swing_weight: float, swing_time: float, step_height: float,
                 rolling=None):
        self.stance, self.solver, self.robot = stance, stance.solver, stance.solver.robot
        self.geometry, self.body, self.command, self.ground = geometry, body, command, ground
        self.swing_time, self.step_height = swing_time, step_height
        self.rolling = rolling
        self.feet = [Foot(leg.foot, i, self.robot.frame_id(leg.foot), leg.neutral[:2].copy(),
                          SwingFootTask(leg.foot, kp=swing_kp, weight=swing_weight, name=f"swing({leg.foot})"))
                     for i, leg in enumerate(geometry.legs)]
        self.roles = [leg.role for leg in geometry.legs]
        self.schedule: GaitSchedule | None = None
        self.pattern: GaitPattern = STAND
        self.stopping = False
        self._approach_end: float | None = None
        #: The normal force (N) that lands a swinging foot (:meth:`set_force_noise`).
        self.touchdown_force = TOUCHDOWN_FORCE * geometry.weight
        self._reference = np.empty((3, 3))
        for foot in self.feet:                  # where the feet stand at the start
            if foot.name in self.solver.contacts:
                foot.foothold = self.solver.contacts[foot.name].anchor.translation.copy()
                self._ground_at(foot)
        self._neutral = np.array([foot.neutral for foot in self.feet])

    def set_force_noise(self, sigma: float) -> None:
        """The measured foot forces have white noise of ``sigma`` N: a foot lands on a normal
        force above :data:`TOUCHDOWN_FORCE` of the weight and :data:`TOUCHDOWN_SIGMAS` σ
        (noise alone crosses 5σ once in 3.5 million readings)."""
        sigma = positive_scalar(sigma, "force_noise", allow_zero=True)
        self.touchdown_force = max(TOUCHDOWN_FORCE * self.geometry.weight, TOUCHDOWN_SIGMAS * sigma)

    # ------------------------------------------------------------------ the gait
    def request(self, gait) -> None:
        """Walk with ``gait`` (a :class:`~.gaits.GaitPattern` or its name) from the next
        step on; ``"stand"`` stops stepping once the feet in the air have landed."""
        self.pattern = gait_named(gait)

    def _switch(self, t: float) -> None:
        current = None if self.schedule is None else self.schedule.pattern
        if self.pattern.standing:
            if self.schedule is not None and not self.stopping and self._settled():
                self.stopping = True
            if self.stopping and all(foot.swing is None for foot in self.feet):
                self.schedule, self.stopping = None, False
        elif current != self.pattern:
            width = 1.0 if current is None else current.width      # where the feet stand, or go
            if width != self.pattern.width:
                self._approach(t)
            elif self._approach_end is None or t >= self._approach_end - 1e-9:
                self.schedule = GaitSchedule(self.pattern, self.roles, self.swing_time, start=t)
                self.stopping, self._approach_end = False, None

    def _approach(self, t: float) -> None:
        """Trot one period with the requested gait's width (its feet moved in or out, on the
        diagonal pairs' support, which holds at any width) before the gait starts."""
        approach = GaitPattern(f"trot to {self.pattern.name}", TROT.offsets, TROT.duty, width=self.pattern.width)
        self.schedule = GaitSchedule(approach, self.roles, self.swing_time, start=t)
        self._approach_end = t + self.schedule.period
        self.stopping = False

    def step(self, state: StepState) -> None:
        """The gait's events and the swing feet's targets at ``state.time``."""
        t = state.time
        self.command.advance(self.solver.dt, self.body.yaw)       # the solver's period now
        self._switch(t)
        schedule = self.schedule
        contacts = self.solver.contacts
        phases = None
        for foot in self.feet:
            if foot.swing is not None:
                self._follow(foot, t, state.wrenches)
            elif schedule is not None and not self.stopping and foot.name in contacts:
                phases = schedule.phase_list(t) if phases is None else phases
                swinging = phases[foot.index] - schedule.pattern.duty       # ≥ 0: in its swing phase
                lift = t - swinging * schedule.period                        # the phase's lift-off
                if swinging >= 0.0 and lift >= max(foot.since, schedule.start):
                    self._lift(foot, lift, t)

    def _settled(self) -> bool:
        """Whether the gait may stop: the command is at rest and the CoM moves slower than
        :data:`STAND_SPEED` of ``√(g h)`` (the feet keep stepping until then: a body moving
        at speed cannot stop on planted feet)."""
        command = self.command.current
        if command.moving:
            return False
        speed = math.hypot(self.body.com_velocity[0], self.body.com_velocity[1])
        return speed < STAND_SPEED * math.sqrt(self.geometry.gravity * self.geometry.com_height)

    # ------------------------------------------------------------------ footholds
    @property
    def stance_time(self) -> float:
        """A foot's stance time in the gait under way, s (a swing's when standing)."""
        if self.schedule is None or self.schedule.pattern.standing:
            return self.swing_time
        return self.schedule.stance_time

    def foothold(self, foot: Foot, touchdown: float, t: float) -> np.ndarray:
        """Where ``foot`` lands at ``touchdown`` s (:func:`~.footholds.raibert_foothold`),
        on the ground."""
        body, command = self.body, self.command
        neutral = foot.neutral
        width = self.schedule.pattern.width if self.schedule is not None else 1.0
        if width != 1.0:
            neutral = np.array([neutral[0], width * neutral[1]])
        xy = raibert_foothold(body.com[:2], body.com_velocity[:2], command.world_velocity(body.yaw),
                              command.current.yaw_rate, body.yaw, neutral, touchdown - t, self.stance_time,
                              self.geometry.com_height, self.geometry.gravity, self.geometry.reach)
        return np.array([xy[0], xy[1], self.ground.height(xy[0], xy[1])])

    # ------------------------------------------------------------------ events
    def _lift(self, foot: Foot, lift: float, t: float) -> None:
        start = self.solver.contacts[foot.name].anchor.translation.copy()
        if not foot.felt:                    # put down on the schedule: where it stood is the ground
            start = self.robot.frame_translation(foot.frame_id).copy()
            self.ground.touchdown(foot.name, start)
        touchdown = lift + self.swing_time
        foot.foothold = self.foothold(foot, touchdown, t)
        foot.swing = FootSwing(start, foot.foothold, lift, touchdown, self.step_height)
        self._ground_at(foot)
        foot.lifted, foot.next_aim = lift, t + AIM_PERIOD
        self.stance.lift(foot.name)
        foot.task.set_target(start)
        self.solver.add_task(foot.task)

    def _follow(self, foot: Foot, t: float, wrenches) -> None:
        swing = foot.swing
        duration = swing.duration
        progress = (t - swing.lift_off) / duration
        if progress < AIM_UNTIL and t >= foot.next_aim:
            foot.next_aim = t + AIM_PERIOD
            aim = self.foothold(foot, swing.touch_down, t)
            if np.linalg.norm(aim - foot.foothold) > AIM_DISTANCE:
                foot.foothold = aim
                swing.retarget(aim, t)
                self._ground_at(foot)
        reference = swing.point(t, self._reference)
        late = t - swing.touch_down
        if late > 0.0:                           # not down yet: keep moving down
            speed = DESCENT_SPEED * self.geometry.leg_length
            reference[0, 2] -= speed * late
            reference[1] = (0.0, 0.0, -speed)
            reference[2] = 0.0
        foot.task.set_target(reference[0], velocity=reference[1], acceleration=reference[2])
        if progress >= 0.5 and (self._touching(foot, wrenches) or late > LATE_LIMIT * duration):
            self._land(foot, t)

    def _touching(self, foot: Foot, wrenches) -> bool:
        """Whether ``foot`` is on the ground: its measured normal force (``foot.felt``), else its
        height above the ground."""
        foot.felt = wrenches is not None and foot.name in wrenches
        if foot.felt:
            return float(wrenches[foot.name][2]) > self.touchdown_force
        position = self.robot.frame_translation(foot.frame_id)
        return position[2] - self.ground.height(position[0], position[1]) < TOUCHDOWN_HEIGHT

    def _land(self, foot: Foot, t: float) -> None:
        self.solver.remove_task(foot.task)
        contact = self.stance.make(foot.name, transition=0.0 if foot.felt else LANDING_RAMP * self.swing_time)
        foot.swing, foot.since = None, t
        foot.foothold = contact.anchor.translation.copy()
        foot.touchdowns += 1
        if foot.felt:                            # else where it stood, at its lift-off (_lift)
            self.ground.touchdown(foot.name, foot.foothold)
        if self.rolling is not None:
            if self.ground.planar:               # a new plane through the footholds: every foot's
                for other in self.feet:
                    self._ground_at(other)
            else:
                self._ground_at(foot)

    def _ground_at(self, foot: Foot) -> None:
        """Tell the rolling feet the ground's normal at ``foot``'s foothold."""
        if self.rolling is not None:
            self.rolling.set_ground(foot.index, self.ground.normal(foot.foothold[0], foot.foothold[1]))
