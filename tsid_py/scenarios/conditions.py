"""The conditions a demo's controller meets: its sensors, its plant and how it reads its state.

:class:`Conditions` gathers them for the demos (``balance``, ``walk``, and any loop built on
:class:`Feedback`), all draws seeded by ``seed``:

* ``sensors`` — the datasheet of the simulated sensors
  (:class:`~tsid_py.estimation.readings.SensorSpec`; default: exact), which the estimator
  is told as well (its tuning comes from it);
* ``plant`` — how the simulated robot differs from the controller's model
  (:class:`~tsid_py.sim.plant.PlantModel`; default: not at all);
* ``feedback`` — what the controller reads: ``"estimator"`` (the default: the sensors
  through a :class:`~tsid_py.estimation.StateEstimator` at the head of its pipeline),
  ``"ground-truth"`` (the simulator's exact state), or ``"finite-differences"`` (the base's
  exact state, the joints' from the encoders, their velocities by finite differences: a
  controller without an estimator);
* ``estimator`` — overrides of the estimator's settings
  (:class:`~tsid_py.estimation.EstimatorSettings`; the rest come from the sensors' datasheet);
* ``actuator_model`` — whether the controller knows the plant's drives: their armature in its
  mass matrix (:func:`~tsid_py.models.actuators.set_armature`) and their friction fed forward
  (:class:`~tsid_py.control.actuators.DriveStage`, ``friction_scale``), and with
  ``drive_estimate`` the share it was not told learnt online from the equation of motion's
  residual (:class:`~tsid_py.control.drive_estimation.DriveFrictionEstimate`).

:meth:`Conditions.realistic` is the ``--realistic`` preset (see its docstring for each
figure and where it comes from).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..estimation.readings import SensorSpec
from ..sim.plant import PlantModel

#: The ways a controller may read its state (see the module).
FEEDBACK = ("estimator", "ground-truth", "finite-differences")


@dataclass(frozen=True)
class Conditions:
    """A demo's sensors, plant and feedback (see the module)."""

    sensors: SensorSpec = field(default_factory=SensorSpec)
    plant: PlantModel = field(default_factory=PlantModel)
    feedback: str = "estimator"
    actuator_model: bool = True
    friction_scale: float = 0.5
    drive_estimate: bool = False
    seed: int = 0
    estimator: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.sensors, SensorSpec):
            raise ValueError(f"sensors must be a SensorSpec, got {type(self.sensors).__name__}")
        if not isinstance(self.plant, PlantModel):
            raise ValueError(f"plant must be a PlantModel, got {type(self.plant).__name__}")
        if self.feedback not in FEEDBACK:
            raise ValueError(f"feedback must be one of {FEEDBACK}, got {self.feedback!r}")
        if not 0.0 <= self.friction_scale <= 1.0:
            raise ValueError(f"friction_scale must be in [0, 1], got {self.friction_scale!r}")
        if not isinstance(self.drive_estimate, bool):
            raise ValueError(f"drive_estimate must be a bool, got {self.drive_estimate!r}")
        if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, got {self.seed!r}")

    @classmethod
    def realistic(cls, seed: int = 0, **changes) -> Conditions:
        """The ``--realistic`` preset, a representative legged robot's (``changes`` replace fields):

        * encoders: white noise σ = 1 mrad (the issue's stress case: finite differences of it
          read 1.4 rad/s) and 16-bit resolution (2π/2¹⁶ = 96 µrad);
        * IMU of the MEMS class humanoids carry: gyroscope 0.01 °/s/√Hz (1.7e-4 rad/s/√Hz),
          bias σ 0.01 °/s (1.7e-4 rad/s): what a 1 s start-up calibration at rest leaves with
          that noise density (``N / √T``); accelerometer 100 µg/√Hz (9.8e-4 m/s²/√Hz), bias
          σ 5 mg (0.049 m/s²);
        * plant: the drives' armature, damping and dry friction from the model
          (:func:`~tsid_py.models.actuators.drive_parameters`), torques saturated at the
          model's limits, each link's mass (and inertia) ×U[0.85, 1.15], 2 ms from
          measurement to applied torque;
        * the controller on the estimator, told the drives' armature and feeding half their
          damping and friction forward, the rest learnt online (``drive_estimate=True``:
          :class:`~tsid_py.control.drive_estimation.DriveFrictionEstimate`).
        """
        sensors = SensorSpec(encoder_noise=1e-3, encoder_resolution=2.0 * math.pi / 2 ** 16,
                             gyro_noise=math.radians(0.01), gyro_bias=math.radians(0.01),
                             accel_noise=100e-6 * 9.81, accel_bias=5e-3 * 9.81)
        plant = PlantModel(armature="model", damping="model", friction_loss="model", torque_saturation=True,
                           mass_error=0.15, delay=0.002)
        realistic = cls(sensors=sensors, plant=plant, feedback="estimator", drive_estimate=True, seed=seed)
        return replace(realistic, **changes)

    def describe(self) -> dict:
        """A JSON-ready summary of the conditions."""
        return {"feedback": self.feedback, "seed": self.seed, "actuator_model": self.actuator_model,
                "friction_scale": self.friction_scale, "drive_estimate": self.drive_estimate,
                "sensors": {k: v for k, v in vars(self.sensors).items()},
                "plant": {k: v for k, v in vars(self.plant).items()}}
