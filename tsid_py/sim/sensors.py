"""The simulated robot's sensors: encoders, an IMU at the base and, optionally, foot force
sensors, with the noise of a :class:`~tsid_py.estimation.readings.SensorSpec` datasheet.

:class:`Sensors` reads a :class:`~tsid_py.sim.simulation.Simulation` into a
:class:`~tsid_py.estimation.readings.SensorReadings` (refreshed in place), once per control
period:

* **encoders** — each actuated joint's coordinate plus white noise ``N(0, encoder_noise²)``,
  then quantised to ``encoder_resolution`` (rounded to the nearest step);
* **gyroscope** — the base's angular velocity in base axes plus a constant bias drawn once
  per axis from ``N(0, gyro_bias²)`` plus white noise of density ``gyro_noise``: a sample
  over ``Δt`` s has ``σ = gyro_noise / √Δt``;
* **accelerometer** — the specific force ``Rᵀ (a − g)`` at the base's origin, with ``a`` the
  base's mean acceleration since the last reading (the change of its world velocity over
  ``Δt``: what an accelerometer integrating over its sample period reports, and what the
  plant's semi-implicit integration makes consistent with the velocity), plus a constant
  bias ``N(0, accel_bias²)`` per axis and white noise of density ``accel_noise``;
* **force sensors** (when ``force_noise`` is not None) — MuJoCo's contact wrench on each foot
  (world-aligned at the foot frame) plus white noise of ``force_noise`` N on the forces and
  ``force_noise × 0.02 m`` N·m on the moments.

The IMU sits at the base's frame (the free flyer's), so its readings need no lever arm.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from ..estimation.readings import SensorReadings, SensorSpec

#: Moment noise of a force sensor per newton of its force noise, m (a 2 cm lever).
MOMENT_NOISE_ARM = 0.02


class Sensors:
    """Reads ``sim`` with the noise of ``spec``; the draws come from ``seed``."""

    def __init__(self, sim, spec: SensorSpec, seed: int = 0):
        if not isinstance(spec, SensorSpec):
            raise ValueError(f"spec must be a tsid_py.estimation.SensorSpec, got {type(spec).__name__}")
        robot = sim.robot
        if not robot.floating_base:
            raise ValueError(f"robot {robot.name!r} has a fixed base: these sensors are a floating base's")
        self.sim, self.spec = sim, spec
        self.rng = np.random.default_rng(seed)
        self.gyro_bias = self.rng.normal(0.0, spec.gyro_bias, 3) if spec.gyro_bias > 0 else np.zeros(3)
        self.accel_bias = self.rng.normal(0.0, spec.accel_bias, 3) if spec.accel_bias > 0 else np.zeros(3)
        self.readings = SensorReadings(robot.na)
        self.gravity = robot.model.gravity.linear.copy()
        self._world_velocity: np.ndarray | None = None
        self._time = sim.time

    def read(self) -> SensorReadings:
        """The sensors' readings now (the same object each call, refreshed)."""
        sim, spec, rng, readings = self.sim, self.spec, self.rng, self.readings
        q, v = sim.state()
        rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        world_velocity = rotation @ v[:3]
        elapsed = sim.time - self._time
        acceleration = (np.zeros(3) if self._world_velocity is None or elapsed <= 0
                        else (world_velocity - self._world_velocity) / elapsed)
        self._world_velocity, self._time = world_velocity, sim.time
        period = elapsed if elapsed > 0 else sim.timestep
        joints = q[7:]
        if spec.encoder_noise > 0:
            joints = joints + rng.normal(0.0, spec.encoder_noise, joints.size)
        if spec.encoder_resolution > 0:
            joints = np.round(joints / spec.encoder_resolution) * spec.encoder_resolution
        readings.joint_positions[:] = joints
        readings.gyro[:] = v[3:6] + self.gyro_bias
        readings.accel[:] = rotation.T @ (acceleration - self.gravity) + self.accel_bias
        if spec.gyro_noise > 0:
            readings.gyro += rng.normal(0.0, spec.gyro_noise / np.sqrt(period), 3)
        if spec.accel_noise > 0:
            readings.accel += rng.normal(0.0, spec.accel_noise / np.sqrt(period), 3)
        if spec.force_noise is not None:
            sigma = np.r_[np.full(3, spec.force_noise), np.full(3, spec.force_noise * MOMENT_NOISE_ARM)]
            readings.wrenches = {foot: wrench + rng.normal(0.0, 1.0, 6) * sigma
                                 for foot, wrench in sim.contact_wrenches().items()}
        readings.time = sim.time
        return readings
