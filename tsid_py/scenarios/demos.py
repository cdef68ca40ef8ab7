"""The demos behind ``tsid-py demo NAME``: the controller against MuJoCo.

Every demo runs the same loop — read the state from MuJoCo, move the task targets, solve one
QP, apply ``tau_actuated`` for one physics step — and returns a :class:`DemoRun` with a
JSON-ready ``summary`` and the time series behind the plot.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from .. import robots
from ..control.capture_point import push_bounds as capture_point_bounds
from ..control import BalanceController
from ..control.reference import Controller, arm_tracking, quadruped_stance
from ..errors import SolverError
from ..inverse_dynamics import multiple_contact_inverse_dynamics_over_time
from ..sim.simulation import Simulation, SimulationDiverged
from ..tasks import FrameTask
from . import recordings
from .demo_robots import (NEEDS, DemoArgumentError, UnsupportedRobot, built_in_robots,  # noqa: F401 (re-exported)
                          demo_robot)
from .conditions import Conditions
from .logs import zmp_from_frames
from .push_recovery import FALL_HEIGHT_RATIO, PUSH_DURATION, default_push, push_force, run_pushes
from .video import Watchers
from .terrains import TerrainChoice, walk_terrain
from .trot import load_robot as load_quadruped, run_trot
from .walk import run_walk



#: The conditions of the demos that take them (balance, walk, trot): the controller on the state
#: estimator, with exact sensors and the plant as built (``tsid-py demo --ground-truth``: the
#: simulator's state; ``--realistic``: :meth:`Conditions.realistic`).
DEFAULT_CONDITIONS = Conditions()


@dataclass
class DemoRun:
    """One demo's result: ``summary`` (JSON-ready), ``log`` (time series, one row a control
    step, keyed by signal) and ``info`` (what the plots need besides the series: the feet
    and their outlines, the actuated joints' names and torque limits, the pushes applied)."""

    name: str
    robot: str
    summary: dict
    log: dict = field(default_factory=dict, repr=False)
    info: dict = field(default_factory=dict, repr=False)


def robot_info(robot, **extra) -> dict:
    """:attr:`DemoRun.info` for ``robot``: actuated joint names and torque limits (N·m), and
    each foot's outline on the ground at the reference posture ``q_ref`` (x, y corners of its
    sole rectangle, or its contact point), m."""
    first = 2 if robot.floating_base else 1
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    outlines = {}
    for foot in robot.feet:
        placement = data.oMf[robot.frame_id(foot)]
        if robot.sole_size is None:
            outlines[foot] = placement.translation[None, :2].copy()
        else:
            half = np.array(robot.sole_size) / 2
            corners = np.array([[1, 1, 0], [-1, 1, 0], [-1, -1, 0], [1, -1, 0]]) * [half[0], half[1], 0]
            outlines[foot] = (placement.translation + corners @ placement.rotation.T)[:, :2]
    return {"feet": list(robot.feet), "foot_outlines": outlines,
            "joint_names": list(robot.model.names[first:]), "torque_limits": robot.effort_limits.copy(),
            "weight": float(robot.weight) if robot.floating_base else None, **extra}


class Recorder:
    """Collects per-step signals; ``arrays()`` stacks them."""

    def __init__(self):
        self.columns: dict[str, list] = {}

    def add(self, **values) -> None:
        for key, value in values.items():
            self.columns.setdefault(key, []).append(np.array(value, dtype=float))

    def arrays(self) -> dict[str, np.ndarray]:
        return {key: np.array(values) for key, values in self.columns.items()}


def _run(sim: Simulation, controller: Controller, duration: float, update_targets, *,
         viewer: bool = False, video: str | None = None, record_wrenches: bool = True,
         record: Callable[[], dict] | None = None) -> tuple[dict, dict]:
    """The control loop; ``update_targets(t, q, v)`` moves targets (and may push); ``record()``
    returns extra signals to log after each solve. With ``viewer`` MuJoCo's passive viewer
    shows the simulation as it runs; with ``video`` an MP4 of it is written off-screen."""
    watchers = Watchers(sim, viewer=viewer, video=video)
    robot = sim.robot
    dt = sim.timestep
    recorder, step_times = Recorder(), []
    start_height = sim.state()[0][2]
    fell_at, failure = None, None
    for k in range(int(round(duration / dt))):
        t = k * dt
        q, v = sim.state()
        watchers.before_step()
        update_targets(t, q, v)
        tic = time.perf_counter()
        try:
            solution = controller.step(q, v)
        except SolverError as error:       # no torques can hold the stance: the robot is lost
            fell_at, failure = t, str(error)
            break
        step_times.append(time.perf_counter() - tic)
        try:
            sim.step(solution.tau_actuated)
        except SimulationDiverged as error:
            fell_at, failure = t, str(error)
            break
        entry = {"time": t, "tau": solution.tau_actuated}
        if controller.com is not None:
            entry.update(com=robot.com.copy(), com_ref=controller.com.position_ref.copy())
        if record_wrenches and robot.feet:
            measured = sim.contact_wrenches()
            entry.update(normal_forces=[measured[f][2] for f in robot.feet],
                         planned_normal_forces=[solution.wrenches[f][2] if f in solution.wrenches else 0.0
                                                for f in robot.feet],
                         zmp=zmp_from_frames(robot, measured))
        if record is not None:
            entry.update(record())
        recorder.add(**entry)
        watchers.after_step()
        if robot.floating_base and q[2] < FALL_HEIGHT_RATIO * start_height:
            fell_at = t
            break
    watchers.close()
    log = recorder.arrays()
    steps_us = np.array(step_times) * 1e6
    summary = {"fell": fell_at is not None}
    if fell_at is not None:                     # only what happened: when, and why if the solver gave up
        summary["fell_at"] = fell_at
    if failure is not None:
        summary["controller_failure"] = failure
    summary.update({
        "simulated_time": float(len(steps_us) * dt),
        "median_step_us": float(np.median(steps_us)),
        "p99_step_us": float(np.percentile(steps_us, 99)),
    })
    if "com" in log:
        summary["max_com_error"] = float(np.linalg.norm(log["com"] - log["com_ref"], axis=1).max())
    return summary, log


def _load(robot, demo: str, srdf=None):
    """The robot (a built-in name or a file's path) for ``demo``, or :class:`UnsupportedRobot`
    naming what the demo needs (:func:`~tsid_py.scenarios.demo_robots.demo_robot`)."""
    return demo_robot(robot, demo, srdf=srdf)


def _humanoid(robot, demo: str, srdf=None, *, visual=False):
    robot = _load(robot, demo, srdf)
    return robot, Simulation(robot, visual=visual)


def _name(robot) -> str:
    """The robot as the summary names it: a built-in name, or the path given."""
    return os.fspath(robot)


# ------------------------------------------------------------------------------ demos
def balance(robot: str = robots.DEFAULT_HUMANOID, duration: float | None = None, push: float | None = None, viewer: bool = False,
            push_direction: str | None = None, push_at: float = 1.0, push_times: tuple[float, float] = (3.0, 6.0),
            actuation_delay: float = 0.0, trunk_mass: float = 1.0, stance: str = "double",
            step_recovery: bool = False, video: str | None = None, srdf=None,
            conditions: Conditions | None = None) -> DemoRun:
    """A legged robot keeps its balance under pushes on the base (capture-point controller).

    ``robot``: a built-in robot's name or a robot file's path (``srdf``: a URDF's postures) —
    a humanoid on its soles or a robot on three or more point feet
    (:mod:`~tsid_py.scenarios.demo_robots`). The summary's ``push_bounds`` are, per direction,
    the largest 0.1 s push (N) its feet allow (:func:`tsid_py.control.push_bounds`, the
    centre of pressure held at the support's edge); ``max_sole_slip_m`` is the largest slide
    of a sole, or of a point foot's contact point.

    Each push is ``push`` N (default :func:`~tsid_py.scenarios.push_recovery.default_push`: it scales
    with the robot's mass) for 0.1 s. With ``push_direction`` (``+x``, ``-x``, ``+y``, ``-y``):
    one push at ``push_at`` s (``duration`` default 3 s). Without: the two-push schedule,
    lateral (+y) then forward (+x) at ``push_times`` (``duration`` default 10 s); the summary
    lists the pushes that happened within ``duration``. ``actuation_delay`` (s) and
    ``trunk_mass`` (factor on the simulated torso and base mass) perturb the simulation;
    ``stance="single"`` pushes the robot on one foot (see
    :class:`~tsid_py.scenarios.push_recovery.SingleLegStance`). ``step_recovery``: the robot steps
    when a push carries its capture point out of the soles
    (:class:`~tsid_py.control.walking.StepRecovery`). Fell/clean are judged as
    :mod:`tsid_py.scenarios.push_recovery` documents. ``conditions``: the sensors, plant and
    feedback (:class:`~tsid_py.scenarios.conditions.Conditions`; default
    :data:`DEFAULT_CONDITIONS`, the estimator on exact sensors)."""
    model = _load(robot, "balance", srdf)
    if (stance != "double" or step_recovery) and model.sole_size is None:
        raise UnsupportedRobot(f"stance={stance!r} and step_recovery need a humanoid's soles; {_name(robot)} stands on "
                               "point feet")
    push = default_push(model) if push is None else push
    if push_direction is not None:
        pushes = [(push_at, push_direction, push)]
        duration = 3.0 if duration is None else duration
        if push > 0 and push_at + PUSH_DURATION > duration + 1e-9:
            raise DemoArgumentError(("push_at",), f"a push at {push_at:g} s lasts {PUSH_DURATION:g} s: it must end "
                                                  f"by the run's end ({duration:g} s), or it is not the push asked for")
    else:
        pushes = [(push_times[0], "+y", push), (push_times[1], "+x", push)]
        duration = 10.0 if duration is None else duration
    pushes = [entry for entry in pushes if entry[0] < duration]       # only those that happen
    summary, log = run_pushes(model, pushes, duration=duration, actuation_delay=actuation_delay,
                              trunk_mass=trunk_mass, stance=stance, step_recovery=step_recovery, record=True,
                              viewer=viewer, stop_at_fall=True, video=video,
                              conditions=DEFAULT_CONDITIONS if conditions is None else conditions)
    applied = [{"at": push["at"], "direction": push["direction"], "duration": PUSH_DURATION,
                "force": push_force(push["newtons"], push["direction"]).tolist()} for push in summary["pushes"]]
    summary.update(push_newtons=push, push_bounds={direction: bound.cop_at_edge for direction, bound
                                                   in capture_point_bounds(model, 0.1).items()})
    if not summary["fell"]:                   # the summary lists what happened
        summary.pop("fell_at")
        summary.pop("fall_reason")
    return DemoRun("balance", _name(robot), summary, log, dict(robot_info(model), pushes=applied))


def com_sway(robot: str = robots.DEFAULT_HUMANOID, duration: float = 6.0, amplitude: float = 0.04, frequency: float = 0.5,
             viewer: bool = False, video: str | None = None, srdf=None, **_) -> DemoRun:
    """A humanoid sways its centre of mass sideways over its two feet.

    ``amplitude`` m at ``frequency`` Hz, with velocity and acceleration feed-forward."""
    model, sim = _humanoid(robot, "com-sway", srdf, visual=viewer or bool(video))
    controller = BalanceController(model, sim.timestep)
    model.update(model.q_ref, model.zero_velocity())
    centre = model.com.copy()
    omega = 2 * np.pi * frequency

    def update(t, q, v):
        s, c = np.sin(omega * t), np.cos(omega * t)
        controller.com.set_target(centre + [0, amplitude * s, 0], velocity=[0, amplitude * omega * c, 0],
                                  acceleration=[0, -amplitude * omega**2 * s, 0])

    info = robot_info(model)
    summary, log = _run(sim, controller, duration, update, viewer=viewer, video=video)
    summary.update(amplitude=amplitude, frequency=frequency)
    return DemoRun("com-sway", _name(robot), summary, log, info)


def _smooth(ratio: float) -> float:
    """Minimum-jerk profile from 0 to 1 over ratio ∈ [0, 1]."""
    r = min(max(ratio, 0.0), 1.0)
    return r**3 * (10 - 15 * r + 6 * r**2)


def single_leg(robot: str = robots.DEFAULT_HUMANOID, duration: float = 7.5, hold: float = 3.0, viewer: bool = False,
               video: str | None = None, srdf=None, **_) -> DemoRun:
    """A humanoid stands on one leg: CoM over the left foot, right foot lifted, then back.

    The right foot is unloaded (0.1 s contact transition) and lifted 5 cm, held ``hold`` s,
    put back, and the CoM shifts back."""
    model, sim = _humanoid(robot, "single-leg", srdf, visual=viewer or bool(video))
    controller = BalanceController(model, sim.timestep)
    solver = controller.solver
    support, swing = model.feet
    model.update(model.q_ref, model.zero_velocity())
    start_com = model.com.copy()
    over_support = start_com.copy()
    over_support[:2] = model.frame_placement(model.frame_id(support)).translation[:2]
    swing_home = model.frame_placement(model.frame_id(swing)).copy()
    lift = 0.05
    t_shift, t_unload, t_lift = 1.5, 0.1, 0.5
    t_hold_end = t_shift + t_unload + t_lift + hold
    t_down_end = t_hold_end + t_lift
    state = {"phase": "shift", "foot_task": None, "single_support": 0.0}

    def update(t, q, v):
        if t < t_shift:
            controller.com.set_target(start_com + _smooth(t / t_shift) * (over_support - start_com))
        elif state["phase"] == "shift":
            controller.remove_contact(swing, transition=t_unload)
            state["foot_task"] = solver.add_task(FrameTask(swing, swing_home, kp=300.0, weight=10.0))
            state["phase"] = "unload"
        elif state["phase"] in ("unload", "lift", "hold") and t < t_hold_end:
            ratio = _smooth((t - t_shift - t_unload) / t_lift)
            target = swing_home.copy()
            target.translation[2] += lift * ratio
            state["foot_task"].set_target(target)
            state["phase"] = "hold" if ratio >= 1 else "lift"
            state["single_support"] = t - t_shift - t_unload if swing not in solver.contacts else 0.0
        elif t < t_down_end:
            target = swing_home.copy()
            target.translation[2] += lift * (1 - _smooth((t - t_hold_end) / t_lift))
            state["foot_task"].set_target(target)
            state["phase"] = "down"
        elif state["phase"] == "down":
            solver.remove_task(state["foot_task"])
            controller.add_contact(swing, transition=0.1)
            state["phase"] = "back"
            state["back_start"] = t
        else:
            ratio = _smooth((t - state["back_start"]) / t_shift)
            controller.com.set_target(over_support + ratio * (start_com - over_support))

    info = robot_info(model)
    summary, log = _run(sim, controller, duration, update, viewer=viewer, video=video)
    summary.update(single_support_seconds=float(state["single_support"]), lift_height=lift)
    return DemoRun("single-leg", _name(robot), summary, log, info)


def quadruped(robot: str = robots.DEFAULT_QUADRUPED, duration: float = 5.0, viewer: bool = False, video: str | None = None,
              srdf=None, **_) -> DemoRun:
    """A quadruped on four point feet sways its body sideways and bobs it up and down.

    ``robot``: a built-in robot's name or a robot file's path (``srdf``: a URDF's postures)
    standing on three or more point feet. ``max_foot_slip_m``: the largest slide of a foot's
    contact point."""
    model = _load(robot, "quadruped", srdf)
    sim = Simulation(model, visual=viewer or bool(video))
    controller = quadruped_stance(model, sim.timestep)
    model.update(model.q_ref, model.zero_velocity())
    centre = model.com.copy()
    amplitude = np.array([0.0, 0.03, 0.02])
    omega = 2 * np.pi * np.array([0.0, 0.5, 1.0])

    def update(t, q, v):
        controller.com.set_target(centre + amplitude * np.sin(omega * t),
                                  velocity=amplitude * omega * np.cos(omega * t),
                                  acceleration=-amplitude * omega**2 * np.sin(omega * t))

    info = robot_info(model)
    start = {foot: sim.foot_pose(foot)[1][:2].copy() for foot in model.feet}
    slip = {"max": 0.0}

    def record():
        slip["max"] = max(slip["max"], max(float(np.linalg.norm(sim.foot_pose(foot)[1][:2] - start[foot]))
                                           for foot in model.feet))
        return {}

    summary, log = _run(sim, controller, duration, update, viewer=viewer, video=video, record=record)
    summary["max_foot_slip_m"] = slip["max"]
    return DemoRun("quadruped", _name(robot), summary, log, info)


def arm(robot: str = robots.DEFAULT_ARM, duration: float = 4.0, viewer: bool = False, video: str | None = None,
        srdf=None, **_) -> DemoRun:
    """A fixed-base arm's end effector follows a 5 cm circle at 0.5 Hz under torque control.

    ``robot``: a built-in robot's name or a robot file's path (``srdf``: a URDF's postures);
    the end effector is its profile's (:mod:`tsid_py.models.loading`: the SRDF's, else the
    deepest frame of the tree)."""
    model = _load(robot, "arm", srdf)
    sim = Simulation(model, visual=viewer or bool(video))
    controller = arm_tracking(model, sim.timestep)
    effector = controller.frames["effector"]
    model.update(model.q_ref, model.zero_velocity())
    frame = model.frame_id(model.end_effector)
    centre = model.frame_placement(frame).translation.copy()
    radius, omega = 0.05, 2 * np.pi * 0.5
    errors, target = [], {"position": centre}

    def update(t, q, v):
        s, c = np.sin(omega * t), np.cos(omega * t)
        target["position"] = centre + radius * np.array([0, c - 1, s])
        effector.set_target(target["position"], velocity=radius * omega * np.array([0, -s, c]),
                            acceleration=-radius * omega**2 * np.array([0, c, s]))
        if t > 0:
            errors.append(np.linalg.norm(effector.error))

    def positions():        # after the solve: the robot's kinematics are at this step's state
        return {"effector": model.frame_translation(frame).copy(), "effector_ref": target["position"]}

    info = robot_info(model, effector=model.end_effector)
    summary, log = _run(sim, controller, duration, update, viewer=viewer, video=video, record_wrenches=False,
                        record=positions)
    errors = np.array(errors)
    summary.update(max_tracking_error=float(errors.max()), rms_tracking_error=float(np.sqrt(np.mean(errors**2))))
    return DemoRun("arm", _name(robot), summary, log, info)


def reconstruct(robot: str = robots.DEFAULT_HUMANOID, duration: float = 3.0, viewer: bool = False, settle: float = 0.2,
                video: str | None = None, srdf=None, **_) -> DemoRun:
    """Recover torques and ground-reaction forces of a simulated motion from positions alone.

    Simulate an asymmetric sway with a squat (:func:`~tsid_py.scenarios.recordings.sway_and_squat`),
    keep only the base and joint positions, recover torques and ground-reaction forces with
    the documented over-time inverse dynamics (default smoothing and contact bounds: the
    robot's soles, friction 1) and compare with MuJoCo's.

    Recording starts after ``settle`` s: the simulation starts with the soles just touching
    the floor, and MuJoCo's contact settling is an impact, not the motion."""
    model = _load(robot, "reconstruct", srdf)
    simulated = recordings.sway_and_squat(model, duration, settle=settle, viewer=viewer, video=video)
    recording = simulated.recording
    tic = time.perf_counter()
    result = multiple_contact_inverse_dynamics_over_time(model, recording.positions, recording.dt,
                                                         list(recording.contacts))
    solve_seconds = time.perf_counter() - tic
    errors = recordings.force_errors(simulated, result)
    applied = simulated.torques[1:-1]
    summary = {
        "fell": bool(recording.positions[-1][2] < FALL_HEIGHT_RATIO * recording.positions[0][2]),
        "frames": int(len(recording.positions)),
        "recording_starts_s": settle,
        "id_solve_seconds": solve_seconds,
        "id_relaxed_frames": int(len(result.relaxed_frames)),
        "grf_vertical_rms_error_per_foot_pct_weight": errors["per_foot_pct_weight"],
        "grf_vertical_rms_error_total_pct_weight": errors["total_pct_weight"],
        "torque_rms_error": float(np.sqrt(np.mean((result.tau[:, 6:] - applied) ** 2))),
        "torque_rms": float(np.sqrt(np.mean(applied**2))),
    }
    truth = simulated.wrenches[1:-1]
    log = {"time": np.arange(len(truth)) * recording.dt, "normal_forces": truth[..., 2],
           "recovered_normal_forces": result.wrenches[..., 2], "tau": result.tau[:, 6:], "tau_applied": applied}
    return DemoRun("reconstruct", _name(robot), summary, log, robot_info(model))


def walk(robot: str = robots.DEFAULT_HUMANOID, duration: float | None = None, distance: float | None = None,
         turn: float | None = None, viewer: bool = False, video: str | None = None, srdf=None,
         conditions: Conditions | None = None, terrain: TerrainChoice | None = None, contact=None) -> DemoRun:
    """A humanoid walks forward (3 m by default) or turns in place.

    It walks ``distance`` m forward, or turns ``turn`` degrees. ``robot``: a built-in robot's name or a humanoid's URDF or MJCF file (``srdf``: a URDF's
    postures). A :class:`~tsid_py.control.walking.WalkingController` follows the footstep plan
    of the robot profile's gait (measured on the built-in robots, :mod:`tsid_py.robots`;
    derived from the leg length and the CoM height otherwise, :mod:`tsid_py.models.gait`)
    after 0.2 s of standing, then stands
    until the plan has settled (``duration``: simulated seconds in all, default the plan's
    length plus 1 s). Fell is judged on the soles in contact
    (:class:`~tsid_py.scenarios.judge.StanceJudge`); the summary reports the distance between the
    feet's midpoints at the start and the end, the walking time (first lift-off to last
    touch-down), the steps, the base's change of yaw and each foothold's error from the plan, and
    the estimator's drift. ``conditions`` as :func:`balance`'s (the floor's friction among them).

    ``terrain`` (a :class:`~tsid_py.scenarios.terrains.TerrainChoice`, parsed from
    ``slope:DEG``, ``steps:HEIGHT``, ``rough:AMPLITUDE``…) is the ground in MuJoCo and the
    controller's planner, sized to the robot and drawn with the conditions' seed
    (:func:`~tsid_py.scenarios.terrains.walk_terrain`). ``contact``: the simulation's
    :class:`~tsid_py.sim.contact.ContactOptions` (None: the harness's default)."""
    model = _load(robot, "walk", srdf)
    conditions = DEFAULT_CONDITIONS if conditions is None else conditions
    ground = walk_terrain(terrain, model, conditions.seed)
    summary, log, info = run_walk(model, distance=distance, turn=turn, duration=duration, viewer=viewer, video=video,
                                  conditions=conditions, terrain=ground, contact=contact)
    summary["terrain"] = "flat" if terrain is None else str(terrain)
    return DemoRun("walk", _name(robot), summary, log, dict(robot_info(model), **info))


def trot(robot: str = robots.DEFAULT_QUADRUPED, speed: float = 0.5, lateral: float = 0.0, yaw_rate: float = 0.0,
         distance: float | None = None, duration: float | None = None, turn: float | None = None, gait: str = "trot",
         terrain=None,
         push: float | None = None, push_direction: str = "+y", push_at: float | None = None, srdf: str | None = None,
         viewer: bool = False, video: str | None = None, conditions: Conditions | None = None) -> DemoRun:
    """A quadruped trots (walks, paces, bounds) at a commanded velocity (a built-in or a file).

    :func:`~tsid_py.scenarios.trot.run_trot` (its module says what the summary measures);
    ``push`` N toward ``push_direction`` for 0.1 s at ``push_at`` s (default: 2 s into the gait).
    ``conditions`` as :func:`balance`'s (default :data:`DEFAULT_CONDITIONS`: the controller on
    the state estimator; ``Conditions(feedback="ground-truth")``: the simulator's exact state
    and contact forces)."""
    model = load_quadruped(robot, srdf=srdf)
    at = (2.0 + 0.3) if push_at is None else push_at
    kick = None if push is None else (at, push_force(push, push_direction))
    summary, log, info = run_trot(model, speed=speed, lateral=lateral, yaw_rate=yaw_rate, distance=distance,
                                  duration=duration, turn=turn, gait=gait, terrain=terrain, push=kick, viewer=viewer,
                                  video=video, conditions=DEFAULT_CONDITIONS if conditions is None else conditions)
    if kick is not None:
        info["pushes"][0]["direction"] = push_direction
    return DemoRun("trot", model.name, summary, log, dict(robot_info(model), **info))


DEMOS = {"balance": balance, "com-sway": com_sway, "single-leg": single_leg, "quadruped": quadruped,
         "arm": arm, "reconstruct": reconstruct, "walk": walk, "trot": trot}

#: The built-in robots each demo runs (any robot file of a kind it needs runs too:
#: :data:`~tsid_py.scenarios.demo_robots.NEEDS`).
ROBOTS = {name: built_in_robots(name) for name in DEMOS}
