"""The trot demo's loop: a :class:`~tsid_py.control.quadruped.QuadrupedController` walks a
quadruped in MuJoCo at a commanded velocity, judged from the simulator.

The robot stands :data:`SETTLE` s, then walks at the command (forward ``speed``, ``lateral``
m/s in its heading frame, ``yaw_rate`` rad/s) with ``gait`` until its base has covered
``distance`` m or turned ``turn`` degrees (less what the command's deceleration still
covers: ``v²/2a``), or for ``duration`` s; then it stops (the feet in the air land) and stands
:data:`SETTLE_AFTER` s. The controller reads what the run's
:class:`~tsid_py.scenarios.conditions.Conditions` say (:class:`~.feedback.Feedback`): MuJoCo's
exact state and contact wrenches (``ground-truth``, the library function's default: ideal
force sensors, touch-down on contact), or the sensors through the state estimator (the
demo's default), the force sensors' readings when the sensors have them; and, when there is
one, the terrain. The harness's point feet are :data:`~tsid_py.sim.contact.WALKING_CONTACT`
(an MJCF robot keeps its file's contact model, as shipped).

What the summary reports, all measured in the simulator:

* ``fell``: the base dropped below :data:`FALL_HEIGHT_RATIO` of its start height above the
  ground under it, or tipped more than :data:`FALL_TILT` from upright (a fall is also the
  end of the run);
* ``distance_m``: the base's horizontal displacement from the start to the end;
  ``speed_mps``: its mean horizontal speed while walking steadily — from one gait period after
  the command reached its target to the stop (the displacement over that window over its
  duration); ``yaw_change_deg``: the base's change of heading (continuous);
* ``max_foot_slip_m``: the farthest a stance foot's contact point moved horizontally from
  where it was when its contact was made, until it lifted (MuJoCo's foot position, see
  :meth:`~tsid_py.sim.Simulation.foot_pose`); ``slip_per_metre``: per foot, the sum of its
  stances' slips (each the distance from where it was made to where it lifted) over the
  distance travelled, the largest of the four;
* ``median_step_us``, ``p99_step_us``, ``mean_step_us``: the controller's step (MPC and
  estimator included), and the MPC's rate (Hz) and median solve time;
* ``conditions`` and, on the estimator, ``estimator_drift``
  (:class:`~.feedback.EstimatorDrift`: the estimate's largest and final errors against
  MuJoCo's state).
"""

from __future__ import annotations

import math

import numpy as np

from ..control.quadruped import QuadrupedController
from ..control.quadruped.body import VelocityCommand
from ..control.quadruped.gaits import gait_named
from ..control.terrain import Terrain
from ..sim.contact import WALKING_CONTACT
from ..sim.simulation import Simulation, SimulationDiverged
from .conditions import Conditions
from .demo_robots import DemoArgumentError, demo_robot
from .feedback import EstimatorDrift, Feedback, simulation
from .video import Watchers

SETTLE, SETTLE_AFTER = 0.3, 1.0
#: A fall: the base below this share of its start height above the ground, or tipped past FALL_TILT.
FALL_HEIGHT_RATIO, FALL_TILT = 0.6, math.radians(60.0)
#: The push lasts this long, s.
PUSH_DURATION = 0.1
#: Runs stop at this many times the time the command needs to cover the distance (plus settling).
TIME_MARGIN = 3.0
#: The yaw rate of a turn by an angle when none is given, rad/s.
TURN_RATE = 1.0


def load_robot(robot: str, srdf: str | None = None):
    """A built-in quadruped by name, or a quadruped's URDF or MJCF file, its feet and every
    default from its profile (:func:`~.demo_robots.demo_robot`; ``ValueError`` for a robot
    that does not stand on point feet)."""
    return demo_robot(robot, "trot", srdf=srdf)


def run_trot(robot, *, speed: float = 0.5, lateral: float = 0.0, yaw_rate: float = 0.0,
             distance: float | None = None, duration: float | None = None, turn: float | None = None,
             gait: str = "trot",
             terrain: Terrain | None = None, push: tuple[float, np.ndarray] | None = None, viewer: bool = False,
             video: str | None = None, controller_options: dict | None = None,
             conditions: Conditions | None = None) -> tuple[dict, dict, dict]:
    """Walk ``robot`` in MuJoCo (see the module); returns ``(summary, log, info)``.

    ``distance`` (m), ``turn`` (degrees, counter-clockwise positive; the yaw rate defaults to
    :data:`TURN_RATE` that way) or ``duration`` (s, default 5 when none is given) ends the
    command; ``push``: ``(time s, force (3,) N)`` applied to the base for
    :data:`PUSH_DURATION` s. ``conditions``
    (:class:`~tsid_py.scenarios.conditions.Conditions`): the sensors, plant and feedback of
    the run (None: the simulator's exact state and contact forces, the plant as built); with
    an estimator the summary reports its drift against the simulator
    (``estimator_drift``)."""
    if sum(x is not None for x in (distance, duration, turn)) > 1:
        raise ValueError("give one of distance, duration and turn")
    if turn is not None:
        if not turn:
            raise ValueError("turn must be a nonzero angle, degrees")
        yaw_rate = math.copysign(abs(yaw_rate) or TURN_RATE, turn)
    if distance is not None and not distance > 0:
        raise ValueError(f"distance must be > 0 m, got {distance!r}")
    if distance is not None and math.hypot(speed, lateral) == 0:
        raise ValueError("distance needs a nonzero speed or lateral velocity")
    duration = 5.0 if distance is None and duration is None and turn is None else duration
    conditions = Conditions(feedback="ground-truth") if conditions is None else conditions
    shipped = robot.source is not None and robot.source.kind == "mjcf"
    sim = simulation(robot, conditions, visual=viewer or bool(video), terrain=terrain,
                     contact=None if shipped else WALKING_CONTACT)
    exact_forces = conditions.feedback == "ground-truth"      # else: the force sensors', if any
    options = dict(controller_options or {})
    if not exact_forces and conditions.sensors.force_noise is not None:
        options.setdefault("force_noise", conditions.sensors.force_noise)
    controller = QuadrupedController(robot, sim.timestep, terrain=terrain, **options)
    feedback = Feedback(sim, controller, conditions)
    drift = EstimatorDrift(feedback)
    try:                                    # a command out of the legs' reach, refused before the run
        controller.check_command(VelocityCommand(speed, lateral, yaw_rate), gait_named(gait))
    except ValueError as error:
        raise DemoArgumentError(("speed", "lateral", "yaw_rate"), str(error)) from None
    watchers = Watchers(sim, viewer=viewer, video=video)
    dt, feet = sim.timestep, list(controller.geometry.feet)
    ground = terrain or Terrain.flat()
    start_q = sim.state()[0]
    start_height = start_q[2] - ground.height(*start_q[:2])
    ramp = max(abs(speed), abs(lateral)) / controller.command_filter.acceleration
    ramp = max(ramp, abs(yaw_rate) / controller.command_filter.yaw_acceleration)
    filter_ = controller.command_filter
    if distance is not None:
        limit = SETTLE + TIME_MARGIN * (distance / math.hypot(speed, lateral) + ramp) + SETTLE_AFTER
        stop_distance = distance - 0.5 * (speed**2 + lateral**2) / filter_.acceleration
    elif turn is not None:
        limit = SETTLE + TIME_MARGIN * (math.radians(abs(turn)) / abs(yaw_rate) + ramp) + SETTLE_AFTER
        stop_turn = math.radians(abs(turn)) - 0.5 * yaw_rate**2 / filter_.yaw_acceleration
    else:
        limit = SETTLE + duration + SETTLE_AFTER + 2.0
    log: dict[str, list] = {k: [] for k in ("time", "base", "yaw", "contacts", "normal_forces", "planned_normal_forces",
                                            "com", "com_ref", "speed")}
    slips = _SlipMeter(sim, feet)
    footholds, step_times = [], []
    stop_at = None
    fell_at, reason = None, None
    pushed = False
    yaw = _Yaw(start_q)
    k = 0
    while k * dt < limit:
        t = k * dt
        q = sim.state()[0]
        if k == int(round(SETTLE / dt)):
            controller.walk(speed, lateral, yaw_rate, gait=gait)
        if push is not None and k == int(round(push[0] / dt)):
            sim.push(push[1], PUSH_DURATION)
            pushed = True
        walking_done = ((distance is not None and math.hypot(*(q[:2] - start_q[:2])) >= stop_distance)
                        or (turn is not None and abs(yaw.value - yaw.start) >= stop_turn)
                        or (duration is not None and t >= SETTLE + duration))
        if stop_at is None and t > SETTLE and walking_done:
            controller.stop()
            stop_at = t
        if stop_at is not None and t >= stop_at + SETTLE_AFTER and controller.standing:
            break
        wrenches = sim.contact_wrenches()
        watchers.before_step()
        landed = {foot.name: foot.touchdowns for foot in controller.feet}
        solution, seconds = feedback.step(wrenches if exact_forces else None)
        step_times.append(seconds)
        for foot in controller.feet:
            if foot.touchdowns > landed[foot.name]:
                footholds.append((foot.name, *sim.foot_pose(foot.name)[1]))
        try:
            sim.step(feedback.torque(solution))
        except SimulationDiverged as error:
            fell_at, reason = t, f"the simulation diverged: {error}"
            break
        watchers.after_step()
        slips.update(controller.solver.contacts)
        drift.update(k)
        q_after = sim.state()[0]
        _record(log, t, q_after, yaw, controller, wrenches, solution, feet)
        height = q_after[2] - ground.height(*q_after[:2])
        tilt = math.acos(min(1.0, max(-1.0, _up(q_after))))
        if height < FALL_HEIGHT_RATIO * start_height or tilt > FALL_TILT:
            fell_at = t
            reason = ("base below {:.0f} % of its start height".format(100 * FALL_HEIGHT_RATIO)
                      if height < FALL_HEIGHT_RATIO * start_height else "base tipped past 60°")
            break
        k += 1
    watchers.close()
    log = {key: np.array(values) for key, values in log.items()}
    summary = _summary(log, controller, start_q, stop_at, ramp, slips, step_times, fell_at, reason, sim)
    summary.update(command={"forward": speed, "lateral": lateral, "yaw_rate": yaw_rate, "gait": gait,
                            **({"distance": distance} if distance is not None else {}),
                            **({"turn_deg": turn} if turn is not None else {})},
                   terrain=repr(terrain) if terrain is not None else "flat", conditions=conditions.describe())
    if feedback.estimator is not None:
        summary["estimator_drift"] = drift.summary()
    if pushed:                              # reported once applied (a run that ended first had none)
        summary["push"] = {"at": float(push[0]), "force": [float(f) for f in push[1]], "duration": PUSH_DURATION}
    info = {"feet": feet, "footholds": footholds, "stop_at": stop_at, "pushes": [] if not pushed else [
        {"at": float(push[0]), "direction": "", "force": list(map(float, push[1])), "duration": PUSH_DURATION}],
        "mpc_step": controller.mpc.step, "weight": controller.geometry.weight}
    return summary, log, info


def _up(q) -> float:
    """The world z component of the base's z axis (1: upright)."""
    x, y = q[3], q[4]
    return 1.0 - 2.0 * (x * x + y * y)


class _Yaw:
    """The base's heading, unwrapped from step to step."""

    def __init__(self, q):
        self.value = self.start = self._raw(q)

    @staticmethod
    def _raw(q) -> float:
        x, y, z, w = q[3:7]
        return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))

    def update(self, q) -> float:
        raw = self._raw(q)
        self.value += (raw - self.value + math.pi) % (2 * math.pi) - math.pi
        return self.value


class _SlipMeter:
    """Each stance's slip (see the module), from MuJoCo's foot positions."""

    def __init__(self, sim: Simulation, feet):
        self.sim, self.feet = sim, list(feet)
        self.planted: dict[str, np.ndarray] = {}
        self.current: dict[str, float] = {}
        self.worst = 0.0
        self.totals = dict.fromkeys(self.feet, 0.0)

    def update(self, in_contact) -> None:
        for foot in self.feet:
            if foot in in_contact:
                position = self.sim.foot_pose(foot)[1][:2]
                start = self.planted.setdefault(foot, position.copy())
                slip = float(np.hypot(*(position - start)))
                self.current[foot] = slip
                self.worst = max(self.worst, slip)
            elif foot in self.planted:
                self.totals[foot] += float(np.hypot(*(self.sim.foot_pose(foot)[1][:2] - self.planted.pop(foot))))
                self.current.pop(foot, None)

    def per_metre(self, distance: float) -> float:
        totals = dict(self.totals)
        for foot, start in self.planted.items():          # stances still under way
            totals[foot] += float(np.hypot(*(self.sim.foot_pose(foot)[1][:2] - start)))
        return max(totals.values()) / distance if distance > 1e-6 else 0.0


def _record(log, t, q, yaw, controller, wrenches, solution, feet) -> None:
    plan = controller.plan
    log["time"].append(t)
    log["base"].append(q[:3].copy())
    log["yaw"].append(yaw.update(q))
    log["contacts"].append([foot in controller.solver.contacts for foot in feet])
    log["normal_forces"].append([wrenches[foot][2] for foot in feet])
    k = plan.interval(t)
    log["planned_normal_forces"].append([plan.forces[k, i, 2] for i in range(len(feet))])
    log["com"].append(controller.body.com.copy())
    log["com_ref"].append(controller.com.position_ref.copy())
    log["speed"].append(float(np.hypot(*controller.body.com_velocity[:2])))


def _summary(log, controller, start_q, stop_at, ramp, slips, step_times, fell_at, reason, sim) -> dict:
    end_q = sim.state()[0]
    times, base = log["time"], log["base"]
    distance = float(np.hypot(*(end_q[:2] - start_q[:2])))
    summary = {"fell": fell_at is not None}
    if fell_at is not None:
        summary.update(fell_at=fell_at, fall_reason=reason)
    period = controller.gait_stage.schedule.period if controller.gait_stage.schedule else controller.swing_time
    begin = SETTLE + ramp + (period if math.isfinite(period) else controller.swing_time)
    end = stop_at if stop_at is not None else (times[-1] if len(times) else 0.0)
    window = (times >= begin) & (times <= end)
    speed = 0.0
    if window.sum() > 1:
        first, last = np.flatnonzero(window)[[0, -1]]
        speed = float(np.hypot(*(base[last, :2] - base[first, :2])) / (times[last] - times[first]))
    steps_us = np.array(step_times) * 1e6
    solves = np.array(controller.centroidal_stage.solve_times) * 1e6
    summary.update({
        "distance_m": distance,
        "speed_mps": speed,
        "yaw_change_deg": float(math.degrees(log["yaw"][-1] - log["yaw"][0])) if len(times) else 0.0,
        "max_foot_slip_m": slips.worst,
        "slip_per_metre": slips.per_metre(distance) if distance > 0.1 else None,
        "touchdowns": int(sum(foot.touchdowns for foot in controller.feet)),
        "failure_policy_step_count": int(sum(controller.policy.counts.values())),
        "simulated_time": float(len(steps_us) * sim.timestep),
        "median_step_us": float(np.median(steps_us)),
        "mean_step_us": float(np.mean(steps_us)),
        "p99_step_us": float(np.percentile(steps_us, 99)),
        "mpc_rate_hz": controller.mpc_rate,
        "mpc_median_solve_us": float(np.median(solves)) if solves.size else 0.0,
        "mpc_horizon_s": controller.mpc.horizon * controller.mpc.step,
    })
    return summary
