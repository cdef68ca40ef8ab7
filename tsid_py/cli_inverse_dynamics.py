"""``tsid-py inverse-dynamics``: torques and ground reactions behind a recorded motion.

    tsid-py inverse-dynamics FILE --robot R --dt S [--contacts A B] [--friction MU | --no-bounds]
        [--smoothing W] --out RESULT.npz
    tsid-py inverse-dynamics MOTION.mot --robot MODEL.osim [--external-loads LOADS.xml|TRIAL.c3d
        [--plate-bodies BODY|none …]] [--reduce-residuals [--residual-bodies BODY …] [--per-body-masses]
        [--max-mass-change F] [--max-com-offset M] [--out-model ADJUSTED.osim]]
        [--lowpass HZ] --out RESULT.sto [--out-grf GRF.mot]

The first form reads pinocchio positions (.npz/.csv) of a robot of :mod:`tsid_py.robots`
or a URDF; the second an OpenSim motion (its time column gives the sampling) of an OpenSim
model, and writes OpenSim's layout. The force plates come from an external-loads ``.xml``
or a ``.c3d`` file (its lab turned into the model's ground and its plates put on the feet,
unless ``--plate-bodies`` names the body of each); ``--reduce-residuals`` first fits the
model's mass distribution to the residuals (:mod:`tsid_py.offline.residual_reduction`). Output paths are checked before the solve; files are
written atomically. Bad input ends with exit status 2 and a message naming the option,
file, line or column — never a traceback.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from .cli_arguments import fraction, input_file, non_negative, output_file, positive

#: Suffixes of the OpenSim form's files.
OPENSIM_MOTIONS, OPENSIM_RESULTS = (".mot", ".sto"), (".sto", ".mot", ".npz")
#: Suffixes of the positions form's input.
POSITIONS = (".npz", ".csv")


def add_parser(commands) -> None:
    from .offline.gait import DEFAULT_LOWPASS
    from .offline.over_time import DEFAULT_FRICTION
    from .offline.residual_reduction import COM_OFFSET_BOUND, TOTAL_MASS_BOUND
    from .robots import available

    command = commands.add_parser(
        "inverse-dynamics", help="torques and contact wrenches behind recorded positions",
        description="Torques and contact wrenches behind a recorded motion (over-time inverse dynamics). "
                    "FILE holds positions, one frame a row (pinocchio q: x y z qx qy qz qw, then the joints), "
                    "as .npz (array 'positions') or .csv; or, with --robot MODEL.osim, an OpenSim motion "
                    "(.mot/.sto of the model's coordinates, sampled as its time column says). "
                    "Quaternion sign flips between frames are fixed.")
    command.add_argument("file", metavar="FILE", type=input_file(*POSITIONS, *OPENSIM_MOTIONS),
                         help="recorded positions (.npz or .csv) or an OpenSim motion (.mot)")
    command.add_argument("--robot", required=True,
                         help=f"robot name ({', '.join(available())}), a URDF or an OpenSim model (.osim)")
    command.add_argument("--dt", type=positive("seconds"), help="sampling period, s (positions files; a .mot has its time column)")
    command.add_argument("--contacts", nargs="+", help="contact frames (default: the robot's feet)")
    command.add_argument("--friction", type=positive("(a friction coefficient)"), default=DEFAULT_FRICTION,
                         help=f"friction coefficient of the contact bounds (default {DEFAULT_FRICTION})")
    command.add_argument("--no-bounds", action="store_true",
                         help="no friction / centre-of-pressure bounds (contacts may pull)")
    command.add_argument("--smoothing", type=non_negative("(a weight)"), default=1.0,
                         help="smoothing weight (default 1)")
    command.add_argument("--external-loads", metavar="LOADS.xml|TRIAL.c3d", type=input_file(".xml", ".c3d"),
                         help="OpenSim: force plates as known wrenches: an external-loads .xml naming its data file, "
                              "or a .c3d file (its plates put on the feet they are under)")
    command.add_argument("--plate-bodies", nargs="+", metavar="BODY",
                         help="with a .c3d: the body on each force plate, in the file's order ('none' leaves one out)")
    command.add_argument("--reduce-residuals", action="store_true",
                         help="with force plates: fit the total mass and the torso's centre of mass to the pelvis "
                              "residuals first, and report the adjusted model's moments")
    command.add_argument("--residual-bodies", nargs="+", metavar="BODY",
                         help="--reduce-residuals: the bodies whose centre of mass may move (default: the heaviest)")
    command.add_argument("--per-body-masses", action="store_true",
                         help="--reduce-residuals: also move mass between bodies")
    command.add_argument("--max-mass-change", type=fraction("the mass"), default=TOTAL_MASS_BOUND, metavar="F",
                         help=f"--reduce-residuals: bound on the total mass change, a fraction (default "
                              f"{TOTAL_MASS_BOUND:g})")
    command.add_argument("--max-com-offset", type=non_negative("metres"), default=COM_OFFSET_BOUND, metavar="M",
                         help=f"--reduce-residuals: bound on each centre-of-mass offset component, m (default "
                              f"{COM_OFFSET_BOUND:g})")
    command.add_argument("--out-model", metavar="ADJUSTED.osim", type=output_file(".osim"),
                         help="--reduce-residuals: write the adjusted model as an .osim file")
    command.add_argument("--lowpass", type=positive("hertz"), default=DEFAULT_LOWPASS, metavar="HZ",
                         help=f"OpenSim: low-pass cutoff of the angles, Hz (default {DEFAULT_LOWPASS:g})")
    command.add_argument("--out", required=True, type=output_file(*OPENSIM_RESULTS),
                         help="result file (.npz; OpenSim: .sto, .mot or .npz)")
    command.add_argument("--out-grf", metavar="GRF.mot", type=output_file(".mot", ".sto"),
                         help="OpenSim: the feet's ground reactions as a .mot")
    command.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    """Run the subcommand; bad input → a one-line message on stderr and exit status 2."""
    try:
        summary = _opensim(args) if str(args.robot).lower().endswith(".osim") else _positions(args)
    except (ValueError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
        if isinstance(error, KeyError) and "is not in robot" in message:
            message = f"--contacts: {message}"
        print(f"tsid-py inverse-dynamics: error: {message}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


def _positions(args) -> dict:
    from .offline.batch import RobotSource
    from .offline.files import load_positions, save_result
    from .offline.frames import align_quaternions
    from .offline.over_time import multiple_contact_inverse_dynamics_over_time
    from ._files import check_output_path

    if Path(args.file).suffix.lower() not in POSITIONS:
        raise ValueError(f"FILE must hold positions (.npz or .csv) for a robot that is not an OpenSim model, got "
                         f"{args.file!r}")
    if args.dt is None:
        raise ValueError("--dt is required for a positions file (.npz/.csv): the sampling period in seconds")
    if not args.out.lower().endswith(".npz"):
        raise ValueError(f"--out must be an .npz file, got {args.out!r}")
    for option in ("external_loads", "out_grf", "plate_bodies", "reduce_residuals", "out_model"):
        if getattr(args, option):
            raise ValueError(f"--{option.replace('_', '-')} applies to OpenSim models (--robot MODEL.osim) only")
    check_output_path(args.out, (".npz",), "--out")
    robot = RobotSource.of(args.robot).build()
    contacts = args.contacts or robot.feet
    if not contacts:
        raise ValueError(f"robot {robot.name!r} has no feet: name the contact frames with --contacts")
    positions = load_positions(args.file)
    flips = align_quaternions(positions)[1] if robot.floating_base and positions.shape[-1] == robot.nq else []
    tic = time.perf_counter()
    result = multiple_contact_inverse_dynamics_over_time(
        robot, positions, args.dt, contacts, friction=None if args.no_bounds else args.friction,
        smoothing_weight=args.smoothing, progress=not args.quiet)
    seconds = time.perf_counter() - tic
    save_result(args.out, result, contacts=contacts, dt=args.dt, robot=robot.name)
    return {"frames": len(positions), "solved_frames": len(result.tau), "seconds": round(seconds, 3),
            "relaxed_frames": result.relaxed_frames.tolist(),
            "quaternion_sign_flips_fixed": [int(f) for f in flips], "out": args.out}


def _reduction_options(args):
    """The residual-reduction options of the command line, checked; None without
    ``--reduce-residuals``."""
    from .offline.residual_reduction import ResidualReductionOptions

    if not args.reduce_residuals:
        for option in ("residual_bodies", "per_body_masses", "out_model"):
            if getattr(args, option):
                raise ValueError(f"--{option.replace('_', '-')} applies with --reduce-residuals only")
        return None
    if args.external_loads is None:
        raise ValueError("--reduce-residuals needs the force plates (--external-loads): without them the estimated "
                         "contacts absorb the residual")
    return ResidualReductionOptions(total_mass=args.max_mass_change, com_offset=args.max_com_offset,
                                    com_bodies=tuple(args.residual_bodies) if args.residual_bodies else None,
                                    per_body=args.per_body_masses)


def _opensim(args) -> dict:
    from .offline.gait import human_inverse_dynamics
    from .offline.opensim_files import read_storage, write_storage
    from ._files import check_output_path
    from .robot import Robot

    if Path(args.file).suffix.lower() not in OPENSIM_MOTIONS:
        raise ValueError(f"with an OpenSim model, FILE must be a .mot or .sto motion, got {args.file!r}")
    reduction = _reduction_options(args)
    c3d = args.external_loads is not None and args.external_loads.lower().endswith(".c3d")
    if args.plate_bodies and not c3d:
        raise ValueError("--plate-bodies applies to the force plates of a .c3d file (--external-loads TRIAL.c3d)")
    plate_bodies = None if not args.plate_bodies else [None if body.lower() == "none" else body
                                                       for body in args.plate_bodies]
    out = check_output_path(args.out, OPENSIM_RESULTS, "--out")
    grf_out = None if args.out_grf is None else check_output_path(args.out_grf, (".mot", ".sto"), "--out-grf")
    model_out = None if args.out_model is None else check_output_path(args.out_model, (".osim",), "--out-model")
    if not Path(args.robot).is_file():
        raise ValueError(f"--robot: OpenSim model {args.robot!r} does not exist")
    robot = Robot.from_osim(args.robot)
    for option, bodies in (("--plate-bodies", plate_bodies), ("--residual-bodies", args.residual_bodies)):
        unknown = [body for body in bodies or () if body is not None and body not in robot.opensim.bodies]
        if unknown:
            raise ValueError(f"{option}: {unknown} are not bodies of {Path(args.robot).name} "
                             f"(bodies: {', '.join(robot.opensim.bodies)})")
    motion = read_storage(args.file)
    tic = time.perf_counter()
    result = human_inverse_dynamics(robot, motion, external_loads=args.external_loads, lowpass_hz=args.lowpass,
                                    contacts=args.contacts, friction=None if args.no_bounds else args.friction,
                                    smoothing_weight=args.smoothing, dt=args.dt,
                                    reduce_residuals=reduction if reduction is not None else False,
                                    plate_bodies=plate_bodies)
    seconds = time.perf_counter() - tic
    report = result.residual_reduction
    if out.suffix.lower() == ".npz":
        from ._files import atomic_write

        extra = {} if report is None else {"residuals_before": report.residuals_before}
        with atomic_write(out, "wb") as handle:
            np.savez(handle, time=result.time, columns=np.array(result.columns()), forces=result.coordinate_forces,
                     residuals=result.residuals, contacts=np.array(result.contacts, dtype=str),
                     wrenches=result.wrenches, contact_schedule=result.contact_schedule, **extra)
    else:
        write_storage(out, result.columns(), result.time, result.coordinate_forces,
                      title="Inverse Dynamics Generalized Forces (tsid_py)")
    if grf_out is not None:
        names, values = ground_reaction_columns(robot, result)
        write_storage(grf_out, names, result.time, values, title="Ground reactions (tsid_py)")
    if model_out is not None:
        from .offline.opensim_model_file import write_adjusted_model

        write_adjusted_model(args.robot, model_out, report.robot.opensim.inertias)
    residual = np.linalg.norm(result.residuals[:, :3], axis=1)
    summary = {"frames": len(motion.time), "solved_frames": len(result.time), "seconds": round(seconds, 3),
               "plates": args.external_loads is not None, "contacts": result.contacts,
               "relaxed_frames": result.over_time.relaxed_frames.tolist(),
               "max_residual_force_N": round(float(residual.max()), 3), "out": str(out)}
    if result.plate_bodies is not None:
        summary["plate_bodies"] = result.plate_bodies
        summary["lab_to_ground"] = np.round(result.lab_to_ground, 12).tolist()
    if report is not None:
        summary["residual_reduction"] = report.summary()
    for key, path in (("out_grf", grf_out), ("out_model", model_out)):
        if path is not None:
            summary[key] = str(path)
    return summary


def ground_reaction_columns(robot, result) -> tuple[list[str], np.ndarray]:
    """The feet's wrenches in the layout of OpenSim's force files: per foot (prefixes ``""``,
    ``"1_"``, …) ``ground_force_v{x,y,z}`` (N), the centre of pressure ``ground_force_p{x,y,z}``
    (m, on the horizontal plane through the sole frame's origin) and the free torque
    ``ground_torque_{x,y,z}`` (N·m, vertical): with the up direction ``n``, the wrench
    ``(f, m_o)`` at the sole origin ``o`` is ``f`` at ``p = o + n × m_o / (f·n)`` plus
    ``(m_o + (o − p) × f)``, whose horizontal part vanishes. No vertical force: ``p = o``."""
    up = -robot.model.gravity.linear / np.linalg.norm(robot.model.gravity.linear)
    names, columns = [], []
    for j, foot in enumerate(result.contacts):
        prefix = "" if j == 0 else f"{j}_"
        origins = np.array([robot.placement_at(q, robot.frame_id(foot)).translation
                            for q in result.over_time.positions])
        force, moment = result.wrenches[:, j, :3], result.wrenches[:, j, 3:]
        normal = force @ up
        loaded = normal > 1e-6
        shift = np.where(loaded[:, None], np.cross(up, moment) / np.where(loaded, normal, 1.0)[:, None], 0.0)
        points = origins + shift
        torque = moment + np.cross(origins - points, force)
        names += [f"{prefix}ground_force_v{a}" for a in "xyz"] + [f"{prefix}ground_force_p{a}" for a in "xyz"] \
            + [f"{prefix}ground_torque_{a}" for a in "xyz"]
        columns += [force, points, torque]
    return names, np.hstack(columns) if columns else np.zeros((len(result.time), 0))
