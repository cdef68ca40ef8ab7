"""What an estimator reads: a robot's sensor readings each control period, and the
datasheet figures of its sensors that its tuning is derived from."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np


class SensorReadings:
    """One control period's readings. The three arrays are the object's own (float64,
    refreshed in place: ``readings.gyro[:] = …``; assigning one copies into it, checking its
    shape), views of one buffer (:attr:`values`), so that the estimator reads them as one
    array without converting anything.

    Attributes
    ----------
    time : s, when they were read.
    joint_positions : (na,) the encoders' angles (rad) or positions (m) of the actuated
        joints, in the robot's joint order (``robot.scalar_joint_names``).
    gyro : (3,) the base's angular velocity in base axes, rad/s (bias and noise included).
    accel : (3,) the specific force ``Rᵀ (a − g)`` at the base's origin in base axes, m/s²
        (at rest on level ground ``(0, 0, 9.81)``), over the last period.
    wrenches : measured contact wrenches by foot (6,) world-aligned at the foot frames, or
        None when the robot has no force sensors.
    """

    __slots__ = ("time", "_values", "_joint_positions", "_gyro", "_accel", "wrenches")

    def __init__(self, joints: int):
        joints = int(joints)
        self.time = 0.0
        self._values = np.zeros(joints + 6)
        self._joint_positions = self._values[:joints]
        self._gyro = self._values[joints:joints + 3]
        self._accel = self._values[joints + 3:]
        self.wrenches: dict | None = None

    @property
    def values(self) -> np.ndarray:
        """(na + 6,) the joint positions, the gyroscope's and the accelerometer's readings back
        to back (the three arrays are views of it)."""
        return self._values

    def _assign(self, array: np.ndarray, value, name: str) -> None:
        value = np.asarray(value, dtype=float)
        if value.shape != array.shape or not np.all(np.isfinite(value)):
            raise ValueError(f"{name} must be {array.shape[0]} finite numbers, got shape {value.shape}")
        array[:] = value

    @property
    def joint_positions(self) -> np.ndarray:
        """(na,) the encoders' readings."""
        return self._joint_positions

    @joint_positions.setter
    def joint_positions(self, value) -> None:
        self._assign(self._joint_positions, value, "joint_positions")

    @property
    def gyro(self) -> np.ndarray:
        """(3,) the gyroscope's reading, rad/s, base axes."""
        return self._gyro

    @gyro.setter
    def gyro(self, value) -> None:
        self._assign(self._gyro, value, "gyro")

    @property
    def accel(self) -> np.ndarray:
        """(3,) the accelerometer's reading, m/s², base axes."""
        return self._accel

    @accel.setter
    def accel(self, value) -> None:
        self._assign(self._accel, value, "accel")


@dataclass(frozen=True)
class SensorSpec:
    """Datasheet figures of a robot's sensors: the estimator's noise settings come from them
    (:class:`~tsid_py.estimation.estimator.EstimatorSettings.for_sensors`).

    Parameters
    ----------
    encoder_noise : σ of an encoder's white noise, rad.
    encoder_resolution : an encoder's quantisation step, rad (0: none); it counts as white
        noise of ``step / √12``.
    gyro_noise : the gyroscope's white-noise density, rad/s/√Hz.
    gyro_bias : σ of its bias at start (after the robot's own calibration), rad/s.
    accel_noise : the accelerometer's white-noise density, m/s²/√Hz.
    accel_bias : σ of its bias, m/s².
    force_noise : σ of a foot force sensor's noise, N (None: no force sensors).
    """

    encoder_noise: float = 0.0
    encoder_resolution: float = 0.0
    gyro_noise: float = 0.0
    gyro_bias: float = 0.0
    accel_noise: float = 0.0
    accel_bias: float = 0.0
    force_noise: float | None = None

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None and field.name == "force_noise":
                continue
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{field.name} must be a non-negative number, got {value!r}")

    @property
    def encoder_sigma(self) -> float:
        """An encoder's total white-noise σ, rad: ``√(σ² + step²/12)``."""
        return math.sqrt(self.encoder_noise ** 2 + self.encoder_resolution ** 2 / 12.0)
