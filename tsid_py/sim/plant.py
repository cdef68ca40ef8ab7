"""How the simulated robot differs from the controller's model: its drives, its links, its floor.

A :class:`PlantModel` lists the differences; :meth:`PlantModel.apply` writes the static ones
into a compiled MuJoCo model and :class:`DriveModel` applies the dynamic ones to each torque
command. All draws come from one seeded generator, so a run is repeatable.

**Drives** (MuJoCo joint properties, per actuated dof): ``armature`` (kg·m², added to the
mass matrix's diagonal), ``damping`` (N·m·s/rad, integrated implicitly) and ``friction_loss``
(N·m, MuJoCo's dry-friction constraint). Each is ``None`` (as built: 0 for a plant built from a
URDF, the file's own for an MJCF plant), ``"model"`` (the robot's drives,
:func:`tsid_py.models.actuators.drive_parameters`: the file's values where it has them, the
typical drive of the joint's torque limit elsewhere) or a number for every joint.

**Torque tracking** (:class:`DriveModel`, per command): a first-order lag of
``torque_bandwidth`` Hz, a gain error ``(1 + e_i)`` with ``e_i ~ U[−torque_gain_error,
+torque_gain_error]`` drawn once per joint, white noise of ``torque_noise`` N·m, and — with
``torque_saturation`` — the model's torque limits (an MJCF plant's motors saturate by
themselves).

**Links**: ``mass_error`` ``e`` scales each body's mass and inertia by ``U[1 − e, 1 + e]``
(drawn per body); ``com_error`` ``c`` moves each body's centre of mass by ``U[−c, c]`` (m) on
each axis of the body's frame. **Floor**: ``friction`` (sliding coefficient; None: the
harness's default). **Delay**: ``delay`` s from measurement to applied torque (the harness's
``actuation_delay``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..models.actuators import drive_parameters


def _drive_value(value, name: str):
    if value is None or value == "model":
        return value
    if isinstance(value, (int, float)) and math.isfinite(value) and value >= 0:
        return float(value)
    raise ValueError(f"{name} must be None, 'model' or a non-negative number, got {value!r}")


@dataclass(frozen=True)
class PlantModel:
    """The plant's differences from the controller's model (see the module; SI units)."""

    armature: float | str | None = None
    damping: float | str | None = None
    friction_loss: float | str | None = None
    torque_saturation: bool = False
    torque_gain_error: float = 0.0
    torque_bandwidth: float | None = None
    torque_noise: float = 0.0
    mass_error: float = 0.0
    com_error: float = 0.0
    friction: float | None = None
    delay: float = 0.0

    def __post_init__(self):
        for name in ("armature", "damping", "friction_loss"):
            object.__setattr__(self, name, _drive_value(getattr(self, name), name))
        for name in ("torque_gain_error", "torque_noise", "mass_error", "com_error", "delay"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")
        if self.mass_error >= 1:
            raise ValueError(f"mass_error must be below 1 (a factor U[1 - e, 1 + e]), got {self.mass_error!r}")
        for name in ("torque_bandwidth", "friction"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0):
                raise ValueError(f"{name} must be None or a positive number, got {value!r}")

    @property
    def ideal(self) -> bool:
        """Whether the plant is the controller's model (nothing differs)."""
        return all(getattr(self, f.name) == f.default for f in fields(self))

    @property
    def tracks_torque(self) -> bool:
        """Whether the drives change the commanded torques (a :class:`DriveModel` is needed)."""
        return (self.torque_saturation or self.torque_gain_error > 0 or self.torque_bandwidth is not None
                or self.torque_noise > 0)

    def apply(self, model, robot, dofs: np.ndarray, rng: np.random.Generator) -> dict:
        """Write the drives and links into the compiled MuJoCo ``model`` (``dofs``: MuJoCo's
        dof of each actuated joint, pinocchio's order); returns what was drawn
        (``{"mass_factors": {body: f}, "com_offsets": {body: (3,)}}``)."""
        if any(getattr(self, name) is not None for name in ("armature", "damping", "friction_loss")):
            drives = drive_parameters(robot)
            for name, array, values in (("armature", model.dof_armature, drives.armature),
                                        ("damping", model.dof_damping, drives.damping),
                                        ("friction_loss", model.dof_frictionloss, drives.friction)):
                setting = getattr(self, name)
                if setting is not None:
                    array[dofs] = values if setting == "model" else setting
        drawn = {"mass_factors": {}, "com_offsets": {}}
        for body in range(1, model.nbody):
            if model.body_mass[body] <= 0:
                continue
            name = model.body(body).name
            if self.mass_error > 0:
                factor = float(rng.uniform(1.0 - self.mass_error, 1.0 + self.mass_error))
                model.body_mass[body] *= factor
                model.body_inertia[body] *= factor
                drawn["mass_factors"][name] = factor
            if self.com_error > 0:
                offset = rng.uniform(-self.com_error, self.com_error, 3)
                model.body_ipos[body] += offset
                drawn["com_offsets"][name] = offset
        return drawn


class DriveModel:
    """The drives' torque tracking (see the module) for ``robot`` at physics step ``dt`` (s)."""

    def __init__(self, plant: PlantModel, robot, dt: float, rng: np.random.Generator):
        self.plant = plant
        n = robot.na
        self.gains = 1.0 + rng.uniform(-plant.torque_gain_error, plant.torque_gain_error, n)
        self.limits = np.asarray(robot.effort_limits, dtype=float) if plant.torque_saturation else None
        self.blend = (1.0 - math.exp(-2.0 * math.pi * plant.torque_bandwidth * dt)
                      if plant.torque_bandwidth is not None else 1.0)
        self.rng = rng
        self.torque = np.zeros(n)                   # the torque the drives apply now

    def __call__(self, command: np.ndarray) -> np.ndarray:
        """The torque applied for ``command`` (na,) this physics step."""
        torque = self.torque
        torque += self.blend * (self.gains * command - torque)
        applied = torque if self.plant.torque_noise == 0 else torque + self.rng.normal(
            0.0, self.plant.torque_noise, torque.size)
        if self.limits is not None:
            applied = np.clip(applied, -self.limits, self.limits)
        return applied
