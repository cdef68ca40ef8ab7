"""A demo loop's side of its :class:`~tsid_py.scenarios.conditions.Conditions`: the simulation
they build, what the controller reads each step, and the torque sent back.

    sim = simulation(robot, conditions)
    controller = BalanceController(robot, sim.timestep)
    feedback = Feedback(sim, controller, conditions)
    for each step:
        solution, seconds = feedback.step()   # read, estimate, solve (timed)
        sim.step(feedback.torque(solution))
"""

from __future__ import annotations

import time

import numpy as np
import pinocchio as pin

from ..control.actuators import DriveStage
from ..control.estimation import attach_estimator, contact_monitor
from ..estimation.estimator import EstimatorSettings, StateEstimator
from ..models.actuators import DriveParameters, drive_parameters, set_armature
from ..sim.sensors import Sensors
from ..sim.simulation import Simulation
from .conditions import Conditions

#: The sensors' seed is the plant's plus this, so that the two draw different numbers.
SENSOR_SEED_OFFSET = 1000


def simulation(robot, conditions: Conditions, **options) -> Simulation:
    """The :class:`~tsid_py.sim.Simulation` of ``robot`` with the conditions' plant and seed
    (``options``: the simulation's other arguments)."""
    return Simulation(robot, plant=conditions.plant, seed=conditions.seed, **options)


class Feedback:
    """How ``controller`` reads ``sim`` and what it sends back, under ``conditions`` (see
    :mod:`~tsid_py.scenarios.conditions`). The controller is changed as they say: an
    estimation stage at its head, the drives' armature in its robot's model, a drive stage
    after its solve."""

    def __init__(self, sim: Simulation, controller, conditions: Conditions):
        if not isinstance(conditions, Conditions):
            raise ValueError(f"conditions must be a Conditions, got {type(conditions).__name__}")
        self.sim, self.controller, self.conditions = sim, controller, conditions
        robot = sim.robot
        self.drive_stage = self._actuator_model(robot, controller, conditions)
        self.estimator = None
        self.sensors = None
        mode = conditions.feedback
        if mode != "ground-truth":
            self.sensors = Sensors(sim, conditions.sensors, seed=conditions.seed + SENSOR_SEED_OFFSET)
        if mode == "estimator":
            settings = EstimatorSettings.for_sensors(conditions.sensors, sim.timestep, **conditions.estimator)
            self.estimator = StateEstimator(robot, sim.timestep, settings)
            self.estimator.reset(*sim.state())
            attach_estimator(controller, self.estimator)
        elif mode == "finite-differences":           # the monitor is told the encoders' noise
            monitor = contact_monitor(controller)
            if monitor is not None:
                sigma = conditions.sensors.encoder_sigma
                monitor.position_noise, monitor.velocity_noise = sigma, np.sqrt(2.0) * sigma / sim.timestep
        self._previous = None

    @staticmethod
    def _actuator_model(robot, controller, conditions: Conditions) -> DriveStage | None:
        """Tell the controller the plant's drives (see :class:`Conditions`)."""
        plant = conditions.plant
        if not conditions.actuator_model:
            return None
        drives = drive_parameters(robot)

        def values(setting, model_values):
            if setting is None:
                return np.zeros(robot.na)
            return model_values if setting == "model" else np.full(robot.na, setting)

        if plant.armature is not None:
            set_armature(robot, values(plant.armature, drives.armature))
        if plant.damping is None and plant.friction_loss is None:
            return None
        known = DriveParameters(np.zeros(robot.na), values(plant.damping, drives.damping),
                                values(plant.friction_loss, drives.friction))
        encoder_noise = 0.0 if conditions.feedback == "ground-truth" else conditions.sensors.encoder_sigma
        stage = DriveStage(robot, controller.dt, drives=known, friction_scale=conditions.friction_scale,
                           estimate=conditions.drive_estimate, encoder_noise=encoder_noise)
        controller.insert(stage)
        return stage

    def step(self, wrenches: dict | None = None):
        """Read the sensors (or the simulator), step the controller; returns ``(solution,
        seconds)``, the time the controller's step took (the estimator's included).
        ``wrenches``: measured contact wrenches to hand the controller (by foot, world-aligned
        at the foot frames; None: none, or on the estimator the force sensors' readings when
        the sensors have them)."""
        mode, controller = self.conditions.feedback, self.controller
        if mode == "estimator":
            readings = self.sensors.read()
            tic = time.perf_counter()
            solution = controller.step(wrenches=wrenches, sensors=readings)
        else:
            q, v = self.sim.state()
            if mode == "finite-differences":
                encoders = self.sensors.read().joint_positions
                previous = q[7:] if self._previous is None else self._previous
                v[6:] = (encoders - previous) / self.sim.timestep
                q[7:] = self._previous = encoders.copy()
            tic = time.perf_counter()
            solution = controller.step(q, v, wrenches)
        return solution, time.perf_counter() - tic

    def torque(self, solution) -> np.ndarray:
        """The torque to apply: the drive stage's command, else the solution's."""
        return solution.tau_actuated if self.drive_stage is None else self.drive_stage.command.tau

    def estimate_error(self) -> dict | None:
        """The estimate's error against the simulator now (None without an estimator):
        ``position`` (3,) m, ``yaw``, ``tilt`` rad, ``velocity`` (3,) m/s (world), and the
        joints' ``joint_position`` and ``joint_velocity`` RMS errors (rad, rad/s)."""
        if self.estimator is None:
            return None
        q, v = self.sim.state()
        estimate_q, estimate_v = self.estimator.q, self.estimator.v
        rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        estimate = pin.Quaternion(estimate_q[6], estimate_q[3], estimate_q[4], estimate_q[5]).toRotationMatrix()
        error = pin.log3(estimate.T @ rotation)
        world = rotation @ error
        return {"position": estimate_q[:3] - q[:3], "yaw": float(world[2]), "tilt": float(np.hypot(world[0], world[1])),
                "velocity": estimate @ estimate_v[:3] - rotation @ v[:3],
                "joint_position": float(np.sqrt(np.mean((estimate_q[7:] - q[7:]) ** 2))),
                "joint_velocity": float(np.sqrt(np.mean((estimate_v[6:] - v[6:]) ** 2)))}


class EstimatorDrift:
    """The estimate's error against the simulator over a run, sampled every ``period``
    steps (nothing without an estimator): its largest and final horizontal position error (m),
    vertical (m), yaw (rad) and tilt (rad)."""

    def __init__(self, feedback: Feedback, period: int = 10):
        self.feedback, self.period = feedback, period
        self.largest = {"horizontal_m": 0.0, "vertical_m": 0.0, "yaw_deg": 0.0, "tilt_deg": 0.0}
        self.final = dict(self.largest)

    def update(self, step: int) -> None:
        """Sample the error after control step ``step`` (every ``period``-th)."""
        if self.feedback.estimator is None or step % self.period:
            return
        error = self.feedback.estimate_error()
        self.final = {"horizontal_m": float(np.hypot(*error["position"][:2])),
                      "vertical_m": float(abs(error["position"][2])),
                      "yaw_deg": float(np.degrees(abs(error["yaw"]))), "tilt_deg": float(np.degrees(error["tilt"]))}
        for key, value in self.final.items():
            self.largest[key] = max(self.largest[key], value)

    def summary(self) -> dict:
        """``{"max": {...}, "final": {...}}`` (see the class)."""
        return {"max": dict(self.largest), "final": dict(self.final)}
