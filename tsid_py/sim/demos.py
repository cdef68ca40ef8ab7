"""The demos behind ``tsid-py demo NAME``: the controller against MuJoCo.

Every demo runs the same loop — read the state from MuJoCo, move the task targets, solve one
QP, apply ``tau_actuated`` for one physics step — and returns a :class:`DemoRun` with a
JSON-ready ``summary`` and the time series behind the plot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .. import robots
from ..contacts import PlanarContact
from ..errors import SolverError
from ..inverse_dynamics import multiple_contact_inverse_dynamics_over_time
from ..tasks import FrameTask
from . import recordings
from .controllers import Controller, arm_tracking, humanoid_balance, quadruped_stance, zmp_from_frames
from .simulation import Simulation

#: A floating-base robot has fallen when its base drops below this fraction of its start height.
FALL_HEIGHT_RATIO = 0.7


@dataclass
class DemoRun:
    name: str
    robot: str
    summary: dict
    log: dict = field(default_factory=dict, repr=False)


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
         viewer: bool = False, record_wrenches: bool = True) -> tuple[dict, dict]:
    """The control loop; ``update_targets(t, q, v)`` moves targets (and may push).
    With ``viewer`` MuJoCo's passive viewer shows the simulation as it runs."""
    handle = None
    if viewer:
        import mujoco.viewer

        handle = mujoco.viewer.launch_passive(sim.model, sim.data)
    robot = sim.robot
    dt = sim.timestep
    recorder, step_times = Recorder(), []
    start_height = sim.state()[0][2]
    fell_at, failure = None, None
    for k in range(int(round(duration / dt))):
        t = k * dt
        q, v = sim.state()
        update_targets(t, q, v)
        tic = time.perf_counter()
        try:
            solution = controller.step(q, v)
        except SolverError as error:       # no torques can hold the stance: the robot is lost
            fell_at, failure = t, str(error)
            break
        step_times.append(time.perf_counter() - tic)
        sim.step(solution.tau_actuated)
        entry = {"time": t, "tau": solution.tau_actuated}
        if controller.com is not None:
            entry.update(com=robot.com.copy(), com_ref=controller.com.position_ref.copy())
        if record_wrenches and robot.feet:
            measured = sim.contact_wrenches()
            entry.update(normal_forces=[measured[f][2] for f in robot.feet],
                         planned_normal_forces=[solution.wrenches[f][2] if f in solution.wrenches else 0.0
                                                for f in robot.feet],
                         zmp=zmp_from_frames(robot, measured))
        recorder.add(**entry)
        if handle is not None:
            handle.sync()
        if robot.floating_base and q[2] < FALL_HEIGHT_RATIO * start_height:
            fell_at = t
            break
    if handle is not None:
        handle.close()
    log = recorder.arrays()
    steps_us = np.array(step_times) * 1e6
    summary = {
        "fell": fell_at is not None,
        "fell_at": fell_at,
        "controller_failure": failure,
        "simulated_time": float(len(steps_us) * dt),
        "median_step_us": float(np.median(steps_us)),
        "p99_step_us": float(np.percentile(steps_us, 99)),
    }
    if "com" in log:
        summary["max_com_error"] = float(np.linalg.norm(log["com"] - log["com_ref"], axis=1).max())
    return summary, log


def _humanoid(robot_name: str, *, visual=False):
    robot = robots.load(robot_name)
    if robot.sole_size is None:
        raise ValueError(f"robot must be a humanoid with soles (talos, g1), got {robot_name!r}")
    return robot, Simulation(robot, visual=visual)


# ------------------------------------------------------------------------------ demos
def balance(robot: str = "talos", duration: float = 10.0, push: float = 150.0, viewer: bool = False,
            push_times: tuple[float, float] = (3.0, 6.0)) -> DemoRun:
    """Stand still; a lateral push then a forward push (at ``push_times``, s), each ``push`` N
    for 0.1 s on the base."""
    model, sim = _humanoid(robot, visual=viewer)
    controller = humanoid_balance(model, sim.timestep)
    pushes = [(push_times[0], np.array([0.0, push, 0.0])), (push_times[1], np.array([push, 0.0, 0.0]))]

    def update(t, q, v):
        for at, force in pushes:
            if abs(t - at) < sim.timestep / 2:
                sim.push(force, 0.1)

    summary, log = _run(sim, controller, duration, update, viewer=viewer)
    summary.update(push_newtons=push, push_duration=0.1,
                   pushes=[f"lateral at {push_times[0]} s", f"forward at {push_times[1]} s"])
    return DemoRun("balance", robot, summary, log)


def com_sway(robot: str = "talos", duration: float = 6.0, amplitude: float = 0.04, frequency: float = 0.5,
             viewer: bool = False, **_) -> DemoRun:
    """Sway the CoM sideways, ``amplitude`` m at ``frequency`` Hz, with velocity and
    acceleration feed-forward."""
    model, sim = _humanoid(robot, visual=viewer)
    controller = humanoid_balance(model, sim.timestep)
    model.update(model.q_ref, model.zero_velocity())
    centre = model.com.copy()
    omega = 2 * np.pi * frequency

    def update(t, q, v):
        s, c = np.sin(omega * t), np.cos(omega * t)
        controller.com.set_target(centre + [0, amplitude * s, 0], velocity=[0, amplitude * omega * c, 0],
                                  acceleration=[0, -amplitude * omega**2 * s, 0])

    summary, log = _run(sim, controller, duration, update, viewer=viewer)
    summary.update(amplitude=amplitude, frequency=frequency)
    return DemoRun("com-sway", robot, summary, log)


def _smooth(ratio: float) -> float:
    """Minimum-jerk profile from 0 to 1 over ratio ∈ [0, 1]."""
    r = min(max(ratio, 0.0), 1.0)
    return r**3 * (10 - 15 * r + 6 * r**2)


def single_leg(robot: str = "talos", duration: float = 7.5, hold: float = 3.0, viewer: bool = False,
               **_) -> DemoRun:
    """Shift the CoM over the left foot, unload and lift the right foot 5 cm (0.1 s contact
    transition), hold ``hold`` s on one leg, put it back and shift the CoM back."""
    model, sim = _humanoid(robot, visual=viewer)
    controller = humanoid_balance(model, sim.timestep)
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
    length, width = model.sole_size

    def update(t, q, v):
        if t < t_shift:
            controller.com.set_target(start_com + _smooth(t / t_shift) * (over_support - start_com))
        elif state["phase"] == "shift":
            solver.remove_contact(swing, transition=t_unload)
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
            solver.add_contact(PlanarContact(swing, length=0.9 * length, width=0.9 * width, mu=0.8), transition=0.1)
            state["phase"] = "back"
            state["back_start"] = t
        else:
            ratio = _smooth((t - state["back_start"]) / t_shift)
            controller.com.set_target(over_support + ratio * (start_com - over_support))

    summary, log = _run(sim, controller, duration, update, viewer=viewer)
    summary.update(single_support_seconds=float(state["single_support"]), lift_height=lift)
    return DemoRun("single-leg", robot, summary, log)


def quadruped(robot: str = "go2", duration: float = 5.0, viewer: bool = False, **_) -> DemoRun:
    """Four point contacts; the base sways sideways and bobs up and down."""
    model = robots.load(robot)
    if len(model.feet) != 4:
        raise ValueError(f"robot must be a quadruped (go2, solo12), got {robot!r}")
    sim = Simulation(model, visual=viewer)
    controller = quadruped_stance(model, sim.timestep)
    model.update(model.q_ref, model.zero_velocity())
    centre = model.com.copy()
    amplitude = np.array([0.0, 0.03, 0.02])
    omega = 2 * np.pi * np.array([0.0, 0.5, 1.0])

    def update(t, q, v):
        controller.com.set_target(centre + amplitude * np.sin(omega * t),
                                  velocity=amplitude * omega * np.cos(omega * t),
                                  acceleration=-amplitude * omega**2 * np.sin(omega * t))

    summary, log = _run(sim, controller, duration, update, viewer=viewer)
    return DemoRun("quadruped", robot, summary, log)


def arm(robot: str = "panda", duration: float = 4.0, viewer: bool = False, **_) -> DemoRun:
    """Track a 5 cm circle at 0.5 Hz with the end effector under torque control."""
    model = robots.load(robot)
    if model.floating_base:
        raise ValueError(f"robot must be a fixed-base arm (panda, ur5), got {robot!r}")
    sim = Simulation(model, visual=viewer)
    controller = arm_tracking(model, sim.timestep)
    effector = controller.frames["effector"]
    model.update(model.q_ref, model.zero_velocity())
    centre = model.frame_placement(model.frame_id(model.end_effector)).translation.copy()
    radius, omega = 0.05, 2 * np.pi * 0.5
    errors = []

    def update(t, q, v):
        s, c = np.sin(omega * t), np.cos(omega * t)
        effector.set_target(centre + radius * np.array([0, c - 1, s]),
                            velocity=radius * omega * np.array([0, -s, c]),
                            acceleration=-radius * omega**2 * np.array([0, c, s]))
        if t > 0:
            errors.append(np.linalg.norm(effector.error))

    summary, log = _run(sim, controller, duration, update, viewer=viewer, record_wrenches=False)
    errors = np.array(errors)
    summary.update(max_tracking_error=float(errors.max()), rms_tracking_error=float(np.sqrt(np.mean(errors**2))))
    return DemoRun("arm", robot, summary, log)


def reconstruct(robot: str = "talos", duration: float = 3.0, viewer: bool = False, settle: float = 0.2,
                **_) -> DemoRun:
    """Simulate an asymmetric sway with a squat (:func:`~tsid_py.sim.recordings.sway_and_squat`),
    keep only the base and joint positions, recover torques and ground-reaction forces with
    the documented over-time inverse dynamics (default smoothing and contact bounds: the
    robot's soles, friction 1) and compare with MuJoCo's.

    Recording starts after ``settle`` s: the simulation starts with the soles just touching
    the floor, and MuJoCo's contact settling is an impact, not the motion."""
    simulated = recordings.sway_and_squat(robot, duration, settle=settle, viewer=viewer)
    model = robots.load(robot)
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
           "recovered_normal_forces": result.wrenches[..., 2], "tau": result.tau[:, 6:]}
    return DemoRun("reconstruct", robot, summary, log)


DEMOS = {"balance": balance, "com-sway": com_sway, "single-leg": single_leg, "quadruped": quadruped,
         "arm": arm, "reconstruct": reconstruct}
