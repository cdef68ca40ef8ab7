"""The walk demo's loop: a :class:`~tsid_py.control.walking.WalkingController` walks a
humanoid in MuJoCo, judged from the simulator.

**Fell**: judged by :class:`~tsid_py.scenarios.judge.StanceJudge` on the soles the controller
holds in contact (a swinging foot is not judged).
"""

from __future__ import annotations


import numpy as np
import pinocchio as pin

from ..control.walking import Gait, WalkingController
from ..control.walking.angles import wrap_angle, yaw_of
from ..control.walking.footsteps import plan_footsteps
from ..sim.model import SOLE_THICKNESS
from ..sim.simulation import Simulation, SimulationDiverged
from ..control.terrain import Terrain
from .conditions import Conditions
from .demo_robots import DemoArgumentError
from .feedback import EstimatorDrift, Feedback, simulation
from .judge import StanceJudge
from .logs import record_step
from .video import Watchers

#: Seconds the robot stands before the walk starts (the simulation starts with the soles
#: just touching the floor: let the contacts settle).
SETTLE = 0.2


def run_walk(robot, *, distance: float | None = None, turn: float | None = None, gait: Gait | None = None,
             duration: float | None = None, viewer: bool = False, video: str | None = None,
             controller_options: dict | None = None, conditions: Conditions | None = None,
             terrain: Terrain | None = None, pushes=(), contact=None) -> tuple[dict, dict, dict]:
    """Walk ``distance`` m forward, or turn ``turn`` degrees in place (default: 3 m forward),
    in MuJoCo; returns ``(summary, log, info)``.

    The robot stands :data:`SETTLE` s, walks the plan and stands until it has settled
    (``duration``: simulated seconds in all, default the plan's length plus 1 s). ``log``:
    per control step, time, CoM and its reference, measured and planned ZMP, feet heights,
    measured and planned normal forces, torques. ``info``: the planned footsteps, the
    measured footholds and the sole size, for the plot. ``conditions``
    (:class:`~tsid_py.scenarios.conditions.Conditions`): the sensors, plant and feedback of
    the run (None: the simulator's exact state, the plant as built); with an estimator, the
    summary reports its drift against the simulator (``estimator_drift``).

    ``terrain`` (a :class:`~tsid_py.control.terrain.Terrain`) is built in MuJoCo and given to
    the controller (its planner places the footsteps on it). With force sensors in the
    conditions the controller lands its swings on contact. ``pushes``: ``(time s, force (3,)
    N, duration s)`` applied to the base during the run (time from the run's start).
    ``contact``: the simulation's :class:`~tsid_py.sim.contact.ContactOptions` (None: the
    harness's default)."""
    if distance is not None and turn is not None:
        raise ValueError("give distance or turn, not both")
    conditions = Conditions(feedback="ground-truth") if conditions is None else conditions
    sim = simulation(robot, conditions, visual=viewer or bool(video), terrain=terrain, contact=contact)
    options = dict(controller_options or {})
    if terrain is not None:
        options.setdefault("terrain", terrain)
    controller = WalkingController(robot, sim.timestep, gait=gait, **options)
    displacement = [0.0, 0.0, np.radians(turn)] if turn is not None else [3.0 if distance is None else distance, 0, 0]
    try:                                    # the walk the plan would refuse, refused before the run
        plan_footsteps(*controller.feet().values(), displacement, controller.gait)
    except ValueError as error:
        raise DemoArgumentError(("turn",) if turn is not None else ("distance",), str(error)) from None
    feedback = Feedback(sim, controller, conditions)
    drift = EstimatorDrift(feedback)
    watchers = Watchers(sim, viewer=viewer, video=video)
    judge, dt = StanceJudge(sim, robot.feet), sim.timestep
    start_feet = {foot: sim.sole_pose(foot)[1][:2] for foot in robot.feet}
    start_yaw = _base_yaw(sim)
    log: dict[str, list] = {}
    step_times, footholds, pending = [], [], []
    plan = None
    total = None if duration is None else int(round(duration / dt))
    k = 0
    while True:
        t = k * dt
        if plan is None and t >= SETTLE - 1e-9:
            plan = (controller.turn(np.radians(turn)) if turn is not None
                    else controller.walk_distance(3.0 if distance is None else distance))
            if total is None:
                total = k + int(round((plan.duration + 1.0) / dt))
        if total is not None and k >= total:
            break
        for at, force, length in pushes:
            if abs(t - at) < 0.5 * dt:
                sim.push(force, length)
        watchers.before_step()
        landed = controller.steps_taken
        solution, seconds = feedback.step()
        step_times.append(seconds)
        if controller.steps_taken > landed:            # measure the foothold once its load is on
            pending.append((t + controller.gait.transition, controller.landed[-1][1]))
        try:
            sim.step(feedback.torque(solution))
        except SimulationDiverged as error:
            judge.diverged(t, error)
            break
        watchers.after_step()
        while pending and pending[0][0] <= t:
            index = pending.pop(0)[1]
            footholds.append((index, sim.sole_pose(plan.footsteps[index].foot)[1][:2]))
        _record(log, t, robot, controller, solution, sim, plan)
        drift.update(k)
        k += 1
        if judge.update(t, controller.solver.contacts):
            break
    watchers.close()
    summary = _summary(judge, controller, plan, sim, start_feet, start_yaw, footholds, step_times)
    summary["conditions"] = conditions.describe()
    if feedback.estimator is not None:
        summary["estimator_drift"] = drift.summary()
    log = {key: np.array(values) for key, values in log.items()}
    footsteps = [] if plan is None else plan.footsteps          # None: the run ended while settling
    info = {"footsteps": [(s.foot, s.x, s.y, s.yaw) for s in footsteps],
            "footstep_heights": [s.z for s in footsteps],
            "start_feet": {f: (*start_feet[f], 0.0) for f in robot.feet},
            "footholds": [(footsteps[i].foot, *xy) for i, xy in footholds], "sole_size": robot.sole_size}
    return summary, log, info


def _base_yaw(sim: Simulation) -> float:
    q = sim.state()[0]
    return yaw_of(pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix())


def _record(log: dict, t: float, robot, controller, solution, sim, plan) -> None:
    """:func:`~.controllers.record_step` with the planned ZMP and the soles' heights (m)."""
    local = controller.time - controller.plan_start if plan is not None else 0.0
    record_step(log, t, robot, controller, solution, sim.contact_wrenches(),
                zmp_ref=plan.zmp(local) if plan is not None else controller.com.position_ref[:2],
                foot_heights=[sim.sole_pose(f)[1][2] - SOLE_THICKNESS / 2 for f in robot.feet])


def _summary(judge, controller, plan, sim, start_feet, start_yaw, footholds, step_times) -> dict:
    steps_us = np.array(step_times) * 1e6
    end_feet = {foot: sim.sole_pose(foot)[1][:2] for foot in start_feet}
    start_mid, end_mid = np.mean(list(start_feet.values()), axis=0), np.mean(list(end_feet.values()), axis=0)
    errors = [float(np.linalg.norm(xy - plan.footsteps[i].xy)) for i, xy in footholds]
    swings = [phase for phase in plan.phases if phase.kind == "single"] if plan is not None else []
    lifted = min(len(swings), controller.steps_taken)
    walking_time = swings[lifted - 1].end - swings[0].start if lifted else 0.0
    distance = float(np.linalg.norm(end_mid - start_mid))
    summary = {"fell": judge.fell_at is not None}
    if judge.fell_at is not None:
        summary.update(fell_at=judge.fell_at, fall_reason=judge.reason)
    summary.update({
        "distance_m": distance,
        "walking_time_s": walking_time,
        "speed_mps": distance / walking_time if walking_time > 0 else 0.0,
        "steps": controller.steps_taken,
        "planned_steps": 0 if plan is None else len(plan.footsteps),
        "yaw_change_deg": float(np.degrees(wrap_angle(_base_yaw(sim) - start_yaw))),
        "recovery_steps": controller.recovery_steps,
        "step_adjustments": controller.plan_stage.adjustments,
        "early_touch_downs": controller.plan_stage.early_touch_downs,
        "delayed_touch_downs": controller.plan_stage.delayed_touch_downs,
        "two_step_captures": controller.plan_stage.sequences,
        "delayed_lift_offs": controller.plan_stage.delayed_lift_offs,
        "advanced_lift_offs": controller.plan_stage.advanced_lift_offs,
        "early_landings": controller.plan_stage.early_landings,
        "late_landings": controller.plan_stage.late_landings,
        "max_foothold_error_m": max(errors, default=0.0),
        "max_sole_slip_m": judge.max_slip,
        "max_sole_tilt_deg": float(np.degrees(judge.max_tilt)),
        "failure_policy_step_count": int(sum(controller.balance.policy.counts.values())),
        "contact_state": _contact_state_counts(controller.balance.contact_state),
        "simulated_time": float(len(steps_us) * sim.timestep),
        "median_step_us": float(np.median(steps_us)),
        "p99_step_us": float(np.percentile(steps_us, 99)),
    })
    return summary


def _contact_state_counts(monitor) -> dict:
    """The contact-state monitor's soles softened, hardened flat on their surface and hardened
    at rest on another (zeros without a monitor)."""
    return {key: 0 if monitor is None else int(getattr(monitor, key))
            for key in ("softenings", "hardenings", "rest_hardenings")}
