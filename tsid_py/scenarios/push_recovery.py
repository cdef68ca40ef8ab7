"""One push against a balancing humanoid in MuJoCo, judged physically.

:func:`push_trial` stands the robot on its soles under a
:class:`~tsid_py.control.BalanceController`, pushes its base once (``force`` N for
``push_duration`` s in a horizontal direction, at ``push_at`` s) and watches it;
:func:`run_pushes` does the same for a schedule of pushes (the balance demo).

**Fell** (judged from the simulator, not from the controller, by
:class:`~tsid_py.scenarios.judge.StanceJudge`): the base drops below :data:`FALL_HEIGHT_RATIO` of
its start height, or a sole slides more than :data:`FALL_SLIP` m (horizontally, from where
it stood at the start; with step recovery, from where its contact was made, and only while
it is in contact) or tips more than :data:`FALL_TILT` rad from the horizontal: past those
the stance is lost even if the base has not come down yet. **Came to rest**: after the last push, for :data:`REST_HOLD` s on
end, the centre of mass moves slower than :data:`REST_SPEED` and the capture point
``ξ = c + ċ/ω`` (ω of the standing CoM height) lies :data:`REST_MARGIN` inside the hull of
the soles meant to stay down — a robot that is only falling slowly (its capture point beyond
the soles, its trunk unwinding the hip strategy) is not at rest, however long it takes to come
down. **Survived** (:func:`push_trial`): not fallen and came to rest; the run goes on past its
``duration`` (up to ``settle_timeout`` s more) until one or the other is decided.
**Recovered cleanly**: survived, and every sole stayed within :data:`CLEAN_TILT` and
:data:`CLEAN_SLIP`.
"""

from __future__ import annotations


import numpy as np

from ..control import BalanceController
from ..control.walking import WalkingController
from ..control.capture_point import DIRECTIONS, SupportPolygon
from ..control.failure import DAMPING, SLACKENED, SOFTENED
from ..tasks import FrameTask
from ..models.profile import profile_of
from ..sim.model import SOLE_THICKNESS
from ..sim.simulation import SimulationDiverged
from .conditions import Conditions
from .feedback import Feedback, simulation
from .judge import FALL_HEIGHT_RATIO, FALL_SLIP, FALL_TILT, StanceJudge  # noqa: F401 (the criteria, re-exported)
from .logs import record_step
from .video import Watchers

#: Clean recovery: every sole within this tilt (rad, 2°) and slip (m, 1 cm).
CLEAN_TILT, CLEAN_SLIP = np.radians(2.0), 0.01
#: At rest: CoM slower than this (m/s) and capture point this far (m) inside the soles' hull,
#: for this long (s) without a break.
REST_SPEED, REST_MARGIN, REST_HOLD = 0.02, 0.01, 0.3
#: How long (s) :func:`push_trial` may run past its ``duration`` for the robot to come to rest.
SETTLE_TIMEOUT = 4.0
#: How long a push lasts by default, s.
PUSH_DURATION = 0.1
#: The default push, N per kg of the robot's mass (Talos: 144 N; G1: 53 N).
DEFAULT_PUSH_PER_KG = 1.6


def default_push(robot) -> float:
    """The balance demo's default push, N: :data:`DEFAULT_PUSH_PER_KG` × the robot's mass."""
    return DEFAULT_PUSH_PER_KG * robot.mass


def push_force(force: float, direction: str) -> np.ndarray:
    """The world force (3,) of ``force`` N toward ``direction`` (``+x``, ``-x``, ``+y``, ``-y``)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"push direction must be one of {list(DIRECTIONS)}, got {direction!r}")
    return np.r_[float(force) * DIRECTIONS[direction], 0.0]


def trunk_mass_scale(robot, factor: float) -> dict[str, float]:
    """``mass_scale`` for :class:`~tsid_py.sim.Simulation` scaling the trunk's bodies (the
    profile's ``trunk_bodies``: base, waist, torso) by ``factor``."""
    return {body: factor for body in profile_of(robot).trunk_bodies}


class SingleLegStance:
    """``on_step`` for :func:`push_trial`: shift the CoM over the first foot in
    :data:`SHIFT_TIME` s (minimum jerk), then lift the other foot :data:`LIFT_HEIGHT` m (its
    force ramps to 0 in 0.1 s; its frame task lifts it in 0.3 s) and hold it there."""

    SHIFT_TIME, LIFT_HEIGHT = 1.0, 0.03

    def __init__(self, robot):
        self.support, self.swing = robot.feet[0], robot.feet[1]
        robot.update(robot.q_ref, robot.zero_velocity())
        self.start = robot.com.copy()
        self.over_support = self.start.copy()
        self.over_support[:2] = robot.frame_placement(robot.frame_id(self.support)).translation[:2]
        self.swing_home = robot.frame_placement(robot.frame_id(self.swing)).copy()
        self.foot_task = None

    def __call__(self, t: float, controller, sim) -> None:
        if t <= self.SHIFT_TIME:
            r = t / self.SHIFT_TIME
            s, ds, dds = r**3 * (10 - 15 * r + 6 * r**2), 30 * r**2 * (1 - r) ** 2, 60 * r * (1 - r) * (1 - 2 * r)
            delta = self.over_support - self.start
            controller.com.set_target(self.start + s * delta, velocity=ds / self.SHIFT_TIME * delta,
                                      acceleration=dds / self.SHIFT_TIME**2 * delta)
            return
        if self.foot_task is None:
            controller.remove_contact(self.swing, transition=0.1)
            self.foot_task = controller.solver.add_task(FrameTask(self.swing, self.swing_home, kp=300.0, weight=10.0))
        target = self.swing_home.copy()
        target.translation[2] += self.LIFT_HEIGHT * min((t - self.SHIFT_TIME) / 0.3, 1.0)
        self.foot_task.set_target(target)

    def bounds_geometry(self) -> tuple[list[str], np.ndarray]:
        """``(feet, com)`` for :func:`~tsid_py.control.push_bounds` in this stance."""
        return [self.support], self.over_support


def push_trial(robot, force: float, direction: str = "+y", *, push_at: float = 1.0,
               settle_timeout: float = SETTLE_TIMEOUT, **options) -> dict:
    """Simulate one push of ``force`` N toward ``direction`` at ``push_at`` s; return the
    JSON-ready summary (see the module for the criteria; ``options`` as :func:`run_pushes`).
    The run lasts ``duration`` s, and up to ``settle_timeout`` s more until the robot has
    fallen or come to rest; ``survived`` is not fallen and at rest."""
    summary, _ = run_pushes(robot, [(push_at, direction, force)], settle_timeout=settle_timeout, **options)
    summary.update(push_newtons=float(force), push_direction=direction, push_at=push_at)
    return summary


class _RestWatch:
    """Whether the simulated robot has come to rest after the last push (see the module)."""

    def __init__(self, sim, feet, after: float):
        com, _ = sim.com_state()
        ground = (min(sim.foot_pose(foot)[1][2] for foot in feet) if sim.robot.sole_size is None
                  else min(sim.sole_pose(foot)[1][2] for foot in feet) - SOLE_THICKNESS / 2)
        self.omega = float(np.sqrt(sim.robot.gravity / (com[2] - ground)))
        self.sim, self.feet, self.after = sim, list(feet), after
        self.since, self.rest_at = None, None

    def update(self, t: float) -> bool:
        """Look at the state after the step that ended at ``t``; True once at rest."""
        if self.rest_at is not None or t < self.after:
            return self.rest_at is not None
        com, velocity = self.sim.com_state()
        dcm = com[:2] + velocity[:2] / self.omega
        hull = SupportPolygon(self.sim.sole_corners(self.feet))
        inside = bool(np.all(hull.normals @ dcm <= hull.offsets - REST_MARGIN))
        if inside and float(np.hypot(velocity[0], velocity[1])) < REST_SPEED:
            self.since = t if self.since is None else self.since
            if t - self.since >= REST_HOLD - 1e-9:
                self.rest_at = t
        else:
            self.since = None
        return self.rest_at is not None


def run_pushes(robot, pushes, *, push_duration: float = PUSH_DURATION, duration: float = 3.0, actuation_delay: float = 0.0,
               trunk_mass: float = 1.0, stance: str = "double", controller_options: dict | None = None,
               stop_at_fall: bool = True, on_step=None, record: bool = False, settle_timeout: float | None = None,
               step_recovery: bool = False, viewer: bool = False, video: str | None = None,
               conditions: Conditions | None = None) -> tuple[dict, dict]:
    """Simulate the balance controller under ``pushes`` (``(time s, direction, force N)``
    each, ``push_duration`` s long); return ``(summary, log)``.

    ``trunk_mass`` scales the simulated torso and base mass (a model error the controller
    does not know of), ``actuation_delay`` (s) delays the torques. ``step_recovery``: the
    controller is a :class:`~tsid_py.control.walking.WalkingController` that steps when a push
    carries the capture point out of the soles (double stance only); a sole is then judged
    while it is in contact, from where its contact was made. ``stance``: ``"double"``
    or ``"single"`` (:class:`SingleLegStance`; push it after ``SHIFT_TIME + 0.5`` s).
    ``on_step(t, controller, sim)`` is called before each control step (to move targets, …).
    ``settle_timeout`` (s): also watch whether the robot comes to rest after the last push
    (see the module), running up to that much past ``duration`` until it has or has fallen
    (``None``: not watched). ``record`` fills ``log`` (time, CoM and its reference, torques,
    measured and planned normal forces, ZMP) for a plot; ``viewer`` shows MuJoCo's passive viewer; ``video``
    writes an MP4 of the run off-screen (:class:`~tsid_py.scenarios.video.VideoRecorder`).
    ``conditions`` (:class:`~tsid_py.scenarios.conditions.Conditions`): the sensors, plant and
    feedback of the run (None: the simulator's exact state, the plant as built).
    """
    if stance == "single":
        if step_recovery:
            raise ValueError("step_recovery needs stance='double'")
        on_step = SingleLegStance(robot)
    elif stance != "double":
        raise ValueError(f"stance must be 'double' or 'single', got {stance!r}")
    mass_scale = trunk_mass_scale(robot, trunk_mass) if trunk_mass != 1.0 else None
    conditions = Conditions(feedback="ground-truth") if conditions is None else conditions
    sim = simulation(robot, conditions, actuation_delay=actuation_delay, mass_scale=mass_scale,
                     visual=viewer or bool(video))
    controller = (WalkingController(robot, sim.timestep, step_recovery=True, **(controller_options or {}))
                  if step_recovery else BalanceController(robot, sim.timestep, **(controller_options or {})))
    feedback = Feedback(sim, controller, conditions)
    watchers = Watchers(sim, viewer=viewer, video=video)
    dt = sim.timestep
    schedule = {int(round(at / dt)): (at, direction, force) for at, direction, force in pushes if force > 0}
    applied = []                               # the pushes that happened (a run that ended first has fewer)
    watched = [on_step.support] if stance == "single" else list(robot.feet)      # the soles meant to stay
    judge = StanceJudge(sim, watched)
    relaxed_steps: dict[str, list[float]] = {SOFTENED: [], SLACKENED: [], DAMPING: []}
    step_times = []
    log: dict[str, list] = {}
    rest = None
    if settle_timeout is not None:
        last_push = max((at for at, _, force in pushes if force > 0), default=0.0)
        rest = _RestWatch(sim, watched, last_push + push_duration)
    steps = int(round(duration / dt))
    limit = steps + int(round((settle_timeout or 0.0) / dt))
    for k in range(limit):
        t = k * dt
        if k >= steps and (rest is None or rest.rest_at is not None or judge.fell_at is not None):
            break
        if k in schedule:
            at, direction, force = schedule[k]
            sim.push(push_force(force, direction), push_duration)
            applied.append({"at": at, "direction": direction, "newtons": float(force)})
        if on_step is not None:
            on_step(t, controller, sim)
        watchers.before_step()                 # a frame shows the state the controller saw
        solution, seconds = feedback.step()
        step_times.append(seconds)
        for rung in solution.relaxed[-1:]:
            relaxed_steps.setdefault(rung, []).append(round(t, 4))
        try:
            sim.step(feedback.torque(solution))
        except SimulationDiverged as error:
            judge.diverged(t, error)
            break
        if record:
            record_step(log, t, robot, controller, solution, sim.contact_wrenches())
        watchers.after_step()
        if judge.update(t, controller.solver.contacts if step_recovery else watched) and stop_at_fall:
            break
        if rest is not None and judge.fell_at is None:
            rest.update(t + dt)
    watchers.close()
    steps_us = np.array(step_times) * 1e6
    fell_at, max_tilt, max_slip = judge.fell_at, judge.max_tilt, judge.max_slip
    fell = fell_at is not None
    at_rest = None if rest is None else rest.rest_at is not None
    survived = not fell and at_rest is not False
    summary = {
        "fell": fell,
        "fell_at": fell_at,
        "fall_reason": judge.reason,
        "came_to_rest": at_rest,
        "rest_at": None if rest is None else rest.rest_at,
        "survived": survived,
        "recovered_cleanly": bool(survived and max_tilt < CLEAN_TILT and max_slip < CLEAN_SLIP),
        "stance": stance,
        "pushes": applied,
        "push_duration": push_duration,
        "max_sole_tilt_deg": float(np.degrees(max_tilt)),
        "max_sole_slip_m": max_slip,
        "failure_policy_steps": relaxed_steps,
        "failure_policy_step_count": int(sum(len(times) for times in relaxed_steps.values())),
        "simulated_time": float(len(steps_us) * dt),
        "median_step_us": float(np.median(steps_us)),
        "p99_step_us": float(np.percentile(steps_us, 99)),
        "actuation_delay": actuation_delay,
        "trunk_mass_scale": trunk_mass,
        "step_recovery": step_recovery,
        "recovery_steps": controller.recovery_steps if step_recovery else 0,
        "conditions": conditions.describe(),
    }
    log = {key: np.array(values) for key, values in log.items()}
    if "com" in log:
        summary["max_com_error"] = float(np.linalg.norm(log["com"] - log["com_ref"], axis=1).max())
    return summary, log
