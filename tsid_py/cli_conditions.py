"""``tsid-py demo``: the sensor, plant and feedback options every simulated demo shares.

    --seed N --realistic --ground-truth --finite-differences
    --encoder-noise RAD --encoder-resolution RAD --gyro-noise D --gyro-bias B --accel-noise D
    --accel-bias B --force-noise N
    --armature model|KGM2 --joint-damping model|NMS --friction-loss model|NM --torque-saturation
    --torque-error F --torque-bandwidth HZ --torque-noise NM --mass-error F --com-error M
    --friction MU --actuation-delay S --no-actuator-model --friction-compensation F
    --drive-estimate | --no-drive-estimate

:func:`add_arguments` adds them to the ``demo`` parser; :func:`conditions_of` turns them into a
:class:`~tsid_py.scenarios.conditions.Conditions` (``--realistic`` first, each other option
over it), and :data:`DEMOS` lists the demos that take them (a demo function with a
``conditions`` keyword). Their meaning and units: :mod:`tsid_py.scenarios.conditions`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from .cli_arguments import count, fraction, non_negative, parsed, positive

#: Sensor options: (flag, SensorSpec field, help, argparse type).
SENSOR_OPTIONS = (
    ("--encoder-noise", "encoder_noise", "encoders' white noise σ, rad", non_negative("rad")),
    ("--encoder-resolution", "encoder_resolution", "encoders' quantisation step, rad", non_negative("rad")),
    ("--gyro-noise", "gyro_noise", "gyroscope's noise density, rad/s/√Hz", non_negative("rad/s/√Hz")),
    ("--gyro-bias", "gyro_bias", "σ of the gyroscope's constant bias, rad/s", non_negative("rad/s")),
    ("--accel-noise", "accel_noise", "accelerometer's noise density, m/s²/√Hz", non_negative("m/s²/√Hz")),
    ("--accel-bias", "accel_bias", "σ of the accelerometer's constant bias, m/s²", non_negative("m/s²")),
    ("--force-noise", "force_noise", "foot force sensors with this noise σ, N (default: none)", non_negative("N")),
)
#: Plant options taking a number: (flag, PlantModel field, help, argparse type).
PLANT_OPTIONS = (
    ("--torque-error", "torque_gain_error", "drives' gain error: each ×U[1-F, 1+F]", fraction("gain error")),
    ("--torque-bandwidth", "torque_bandwidth", "drives' torque bandwidth (first-order lag), Hz", positive("Hz")),
    ("--torque-noise", "torque_noise", "drives' torque noise σ, N·m", non_negative("N·m")),
    ("--mass-error", "mass_error", "each link's mass and inertia ×U[1-F, 1+F]", fraction("mass error")),
    ("--com-error", "com_error", "each link's centre of mass moved U[-M, M] per axis, m", non_negative("m")),
    ("--friction", "friction", "floor friction coefficient", positive("friction coefficient")),
    ("--actuation-delay", "delay", "delay from measurement to applied torque, s", non_negative("seconds")),
)
#: Plant drive options taking ``model`` or a number: (flag, PlantModel field, unit).
DRIVE_OPTIONS = (("--armature", "armature", "kg·m²", None), ("--joint-damping", "damping", "N·m·s/rad", None),
                 ("--friction-loss", "friction_loss", "N·m", None))


def add_arguments(demo: argparse.ArgumentParser) -> None:
    """Add the shared options to the ``demo`` parser (every default None: not given)."""
    group = demo.add_argument_group("sensors, plant and feedback (balance, walk, trot; see docs/estimation.md)")
    group.add_argument("--seed", type=count(0), metavar="N", help="seed of every random draw (default 0)")
    group.add_argument("--realistic", action="store_true", default=None,
                       help="the documented realistic preset: noisy encoders and IMU, the drives' armature, "
                            "damping and friction, link masses ±15 %%, 2 ms delay, the estimator")
    feedback = group.add_mutually_exclusive_group()
    feedback.add_argument("--ground-truth", action="store_true", default=None,
                          help="the controller reads the simulator's exact state (no estimator)")
    feedback.add_argument("--finite-differences", action="store_true", default=None,
                          help="no estimator: the base's exact state, joint velocities by finite differences "
                               "of the encoders")
    for flag, _, text, kind in SENSOR_OPTIONS + PLANT_OPTIONS:
        group.add_argument(flag, type=kind, metavar="X", help=text)
    for flag, _, unit, _ in DRIVE_OPTIONS:
        group.add_argument(flag, metavar="model|X", type=parsed("drive parameter", _drive_value),
                           help=f"the plant's drives' {flag[2:].replace('-', ' ')}: "
                                                         f"'model' (the robot's drives) or {unit} on every joint")
    group.add_argument("--torque-saturation", action="store_true", default=None,
                       help="the plant saturates torques at the model's limits")
    group.add_argument("--no-actuator-model", action="store_true", default=None,
                       help="the controller is not told the plant's drives (armature, friction)")
    group.add_argument("--friction-compensation", type=fraction("fraction of the friction"), metavar="F",
                       help="fraction of the drives' friction fed forward (default 0.5)")
    group.add_argument("--drive-estimate", action=argparse.BooleanOptionalAction, default=None,
                       help="the controller learns the drives' damping and friction it was not told, online "
                            "(on in --realistic)")


def given(args) -> list[str]:
    """The shared options ``args`` holds (as typed on the command line)."""
    flags = ["--seed", "--realistic", "--ground-truth", "--finite-differences", "--torque-saturation",
             "--no-actuator-model", "--friction-compensation", "--drive-estimate"]
    flags += [option[0] for option in SENSOR_OPTIONS + PLANT_OPTIONS + DRIVE_OPTIONS]
    typed = [flag for flag in flags if getattr(args, flag[2:].replace("-", "_"), None) is not None]
    return [("--no-drive-estimate" if flag == "--drive-estimate" and args.drive_estimate is False else flag)
            for flag in typed]


def _drive_value(text: str) -> str | float:
    """``"model"`` or a finite non-negative number (``ValueError`` otherwise)."""
    if text == "model":
        return text
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value >= 0 and value != float("inf")):
        raise ValueError(f"expected 'model' or a finite number >= 0, got {text!r}")
    return value


def conditions_of(args, default):
    """The :class:`~tsid_py.scenarios.conditions.Conditions` the options ask for, over
    ``default`` (the demo's own) or the realistic preset; ``ValueError`` names a bad value."""
    from .scenarios.conditions import Conditions

    seed = 0 if args.seed is None else args.seed
    conditions = Conditions.realistic(seed) if args.realistic else replace(default, seed=seed)
    sensors = {field: getattr(args, flag[2:].replace("-", "_")) for flag, field, _, _ in SENSOR_OPTIONS}
    plant = {field: getattr(args, flag[2:].replace("-", "_")) for flag, field, _, _ in PLANT_OPTIONS + DRIVE_OPTIONS}
    if args.torque_saturation:
        plant["torque_saturation"] = True
    changes = {}
    if args.ground_truth:
        changes["feedback"] = "ground-truth"
    elif args.finite_differences:
        changes["feedback"] = "finite-differences"
    if args.no_actuator_model:
        changes["actuator_model"] = False
    if args.friction_compensation is not None:
        changes["friction_scale"] = args.friction_compensation
    if args.drive_estimate is not None:
        changes["drive_estimate"] = args.drive_estimate
    return replace(conditions, sensors=replace(conditions.sensors, **{k: v for k, v in sensors.items() if v is not None}),
                   plant=replace(conditions.plant, **{k: v for k, v in plant.items() if v is not None}), **changes)
