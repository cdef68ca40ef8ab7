"""A robot's drives: rotor inertia (armature), viscous damping and dry friction per joint.

A geared drive adds its rotor's inertia reflected through the gear, ``I_a = I_rotor N²``
(kg·m²), to its joint's diagonal of the mass matrix — the *armature*: ``M(q) + diag(I_a)``.
Its gear and seals add viscous damping ``b q̇`` (N·m·s/rad) and dry (Coulomb) friction up
to ``f_c`` (N·m) against the motion. :func:`drive_parameters` reads them from the model:

* **MJCF** — the joints' ``armature``, ``damping`` and ``frictionloss`` (pinocchio's reader
  fills ``model.armature``, ``model.damping``, ``model.friction``);
* **URDF** — ``<dynamics damping="…" friction="…">`` (``model.damping``, ``model.friction``),
  and the SRDF's ``<rotor_params>`` (rotor inertia and gear ratio per joint, which the
  loaders read into ``model.rotorInertia`` and ``model.rotorGearRatio``: ``I_a = I N²``;
  Talos's SRDF gives 1e-5 kg·m² × 100² = 0.1 kg·m² on every joint);
* **a profile override** — ``RobotProfile(drives=DriveParameters(...))``;

and, for a joint the files say nothing about, the **typical drive** of its torque limit
``τ_max`` (N·m): ``I_a = 2e-4 s² · τ_max``, ``b = 2e-3 s · τ_max``, ``f_c = 5e-3 · τ_max``.
These ratios sit between what two published models give: Unitree's MuJoCo model of G1
(``unitree_mujoco``'s ``g1_29dof.xml``: 0.01 kg·m², 0.05 N·m·s/rad, 0.2 N·m on joints of
25–139 N·m, i.e. 0.7–4e-4 s², 0.4–2e-3 s, 0.1–0.8 %) and Talos's URDF and SRDF (0.1 kg·m²,
0.5–1 N·m·s/rad, 1 N·m on joints of 45–300 N·m). A joint without a torque limit gets none.

The loaders never put the SRDF's rotor inertia into ``model.armature``: the controller's
mass matrix is the file's rigid-body one unless it is told of the drives
(:func:`set_armature`), as the harness's plant is (``tsid_py.sim``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

#: The typical drive's ratios to the joint's torque limit (see the module): armature (s²),
#: viscous damping (s), dry friction (dimensionless).
TYPICAL_ARMATURE, TYPICAL_DAMPING, TYPICAL_FRICTION = 2e-4, 2e-3, 5e-3


@dataclass(frozen=True)
class DriveParameters:
    """Per actuated joint (``robot.na``, the robot's joint order): ``armature`` kg·m²,
    ``damping`` N·m·s/rad, ``friction`` N·m (dry), each ≥ 0."""

    armature: np.ndarray
    damping: np.ndarray
    friction: np.ndarray

    def __post_init__(self):
        sizes = set()
        for name in ("armature", "damping", "friction"):
            value = np.asarray(getattr(self, name), dtype=float)
            if value.ndim != 1 or not np.all(np.isfinite(value)) or np.any(value < 0):
                raise ValueError(f"{name} must be a 1-D array of non-negative numbers, got {getattr(self, name)!r}")
            object.__setattr__(self, name, value)
            sizes.add(value.size)
        if len(sizes) != 1:
            raise ValueError(f"armature, damping and friction must have one entry per actuated joint, got sizes {sizes}")

    def scaled(self, factor: float) -> DriveParameters:
        """These parameters times ``factor`` (≥ 0)."""
        if not factor >= 0:
            raise ValueError(f"factor must be >= 0, got {factor!r}")
        return DriveParameters(self.armature * factor, self.damping * factor, self.friction * factor)


def read_rotor_parameters(model: pin.Model, srdf: str) -> bool:
    """Read an SRDF's ``<rotor_params>`` into ``model.rotorInertia`` and
    ``model.rotorGearRatio`` (pinocchio's reader), leaving ``model.armature`` as it was.
    Returns whether the file had any."""
    armature = model.armature.copy()
    try:
        found = bool(pin.loadRotorParameters(model, str(srdf), False))
    except (RuntimeError, ValueError):            # no rotor_params section, or a joint it does not know
        found = False
    model.armature[:] = armature
    return found and bool(np.any(model.rotorInertia > 0))


def drive_parameters(robot) -> DriveParameters:
    """The robot's drives (see the module): its profile's override, else the model's values
    where it has them and the typical drive elsewhere."""
    profile = getattr(robot, "profile", None)
    override = getattr(profile, "drives", None) if profile is not None else None
    if override is not None:
        return override
    model, first = robot.model, robot.nv - robot.na
    limits = np.asarray(robot.effort_limits, dtype=float)
    limits = np.where(np.isfinite(limits), limits, 0.0)
    rotor = model.rotorInertia[first:] * model.rotorGearRatio[first:] ** 2
    armature = np.where(model.armature[first:] > 0, model.armature[first:],
                        np.where(rotor > 0, rotor, TYPICAL_ARMATURE * limits))
    damping = np.where(model.damping[first:] > 0, model.damping[first:], TYPICAL_DAMPING * limits)
    friction = np.where(model.friction[first:] > 0, model.friction[first:], TYPICAL_FRICTION * limits)
    return DriveParameters(armature, damping, friction)


def set_armature(robot, armature) -> None:
    """Tell ``robot``'s model of its drives' armature (na,), kg·m²: the mass matrix of every
    later update is ``M(q) + diag(0, I_a)`` (pinocchio adds ``model.armature`` to the joint
    space inertia in its CRBA and RNEA). ``0`` forgets it."""
    armature = np.broadcast_to(np.asarray(armature, dtype=float), (robot.na,))
    if not np.all(np.isfinite(armature)) or np.any(armature < 0):
        raise ValueError(f"armature must be {robot.na} non-negative numbers (kg m^2), got {armature!r}")
    robot.model.armature[robot.nv - robot.na:] = armature
