"""``tsid-py``: run the demos, the step benchmark and the offline inverse dynamics.

    tsid-py demo NAME [--robot R] [--duration S] [--push N] [--json FILE] [--plot FILE] [--viewer]
    tsid-py bench [--robot talos g1 go2] [--steps 2000] [--json FILE]
    tsid-py inverse-dynamics FILE --robot R --dt S [--contacts A B] [--friction MU | --no-bounds]
        [--smoothing W] --out RESULT.npz
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _plot(run, path: str) -> None:
    """CoM vs reference, ZMP, contact forces and torques over time, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    log = run.log
    figure, axes = plt.subplots(2, 2, figsize=(12, 8))
    time = log.get("time")
    if "com" in log:
        for axis, label in ((0, "x"), (1, "y"), (2, "z")):
            axes[0, 0].plot(time, log["com"][:, axis] - log["com_ref"][0, axis], label=f"CoM {label}")
            axes[0, 0].plot(time, log["com_ref"][:, axis] - log["com_ref"][0, axis], "--", label=f"ref {label}")
        axes[0, 0].set_title("CoM − initial (m)")
        axes[0, 0].legend(fontsize=7)
    if "zmp" in log:
        axes[0, 1].plot(log["zmp"][:, 0], log["zmp"][:, 1], ".", markersize=1, label="ZMP (MuJoCo)")
        if "com" in log:
            axes[0, 1].plot(log["com"][:, 0], log["com"][:, 1], label="CoM ground projection")
        axes[0, 1].set_title("ZMP in the support polygon (x, y, m)")
        axes[0, 1].axis("equal")
        axes[0, 1].legend(fontsize=7)
    forces = [(key, style) for key, style in (("normal_forces", "-"), ("planned_normal_forces", "--"),
                                              ("recovered_normal_forces", ":")) if key in log]
    for key, style in forces:
        axes[1, 0].plot(time[: len(log[key])], log[key], style, label=key.replace("_", " "))
    axes[1, 0].set_title("normal contact forces (N)")
    if forces:                  # a demo without contacts (the arm) has nothing to label
        axes[1, 0].legend(fontsize=7)
    if "tau" in log:
        axes[1, 1].plot(time[: len(log["tau"])], log["tau"])
        axes[1, 1].set_title("joint torques (N·m)")
    for axis in axes.flat:
        axis.grid(alpha=0.3)
    figure.suptitle(f"tsid-py demo {run.name} ({run.robot})")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def _demo(args) -> int:
    from .bench import write_json
    from .sim import demos

    kwargs = {"robot": args.robot} if args.robot else {}
    if args.duration is not None:
        kwargs["duration"] = args.duration
    if args.push is not None:
        if args.name != "balance":
            raise SystemExit("--push applies to the balance demo only")
        kwargs["push"] = args.push
    if args.viewer:
        if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
            print("--viewer: no display here (DISPLAY is unset); running headless", file=sys.stderr)
        else:
            kwargs["viewer"] = True
    function = demos.DEMOS[args.name]
    run = function(**kwargs)
    summary = {"demo": run.name, "robot": run.robot, **run.summary}
    print(json.dumps(summary, indent=2))
    write_json(args.json, summary)
    if args.plot:
        _plot(run, args.plot)
    return 1 if summary.get("fell") else 0


def _inverse_dynamics(args) -> int:
    """Recorded positions (.npz/.csv) → torques and contact wrenches (.npz). Bad input is
    reported on stderr with exit code 2, naming the problem."""
    import time

    from .offline.batch import RobotSource
    from .offline.files import load_positions, save_result
    from .offline.frames import align_quaternions
    from .offline.over_time import multiple_contact_inverse_dynamics_over_time

    try:
        if args.dt <= 0:
            raise ValueError(f"--dt must be the sampling period in seconds (> 0), got {args.dt}")
        if not args.out.lower().endswith(".npz"):
            raise ValueError(f"--out must be an .npz file, got {args.out!r}")
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
    except (ValueError, KeyError) as error:
        message = f"--contacts: {error.args[0]}" if isinstance(error, KeyError) and error.args else str(error)
        print(f"tsid-py inverse-dynamics: error: {message}", file=sys.stderr)
        return 2
    print(json.dumps({"frames": len(positions), "solved_frames": len(result.tau), "seconds": round(seconds, 3),
                      "relaxed_frames": result.relaxed_frames.tolist(),
                      "quaternion_sign_flips_fixed": [int(f) for f in flips], "out": args.out}, indent=2))
    return 0


def _add_inverse_dynamics_parser(commands) -> None:
    from .offline.over_time import DEFAULT_FRICTION

    command = commands.add_parser(
        "inverse-dynamics", help="torques and contact wrenches behind recorded positions",
        description="Torques and contact wrenches behind a recorded motion (over-time inverse dynamics). "
                    "FILE holds positions, one frame a row (pinocchio q: x y z qx qy qz qw, then the joints), "
                    "as .npz (array 'positions') or .csv. Quaternion sign flips between frames are fixed.")
    command.add_argument("file", metavar="FILE", help="recorded positions (.npz or .csv)")
    command.add_argument("--robot", required=True, help="robot name (talos, g1, ...) or a URDF file")
    command.add_argument("--dt", type=float, required=True, help="sampling period, s")
    command.add_argument("--contacts", nargs="+", help="contact frames (default: the robot's feet)")
    command.add_argument("--friction", type=float, default=DEFAULT_FRICTION,
                         help=f"friction coefficient of the contact bounds (default {DEFAULT_FRICTION})")
    command.add_argument("--no-bounds", action="store_true",
                         help="no friction / centre-of-pressure bounds (contacts may pull)")
    command.add_argument("--smoothing", type=float, default=1.0, help="smoothing weight (default 1)")
    command.add_argument("--out", required=True, help="result file (.npz)")
    command.add_argument("--quiet", action="store_true", help="no progress bar")


def main(argv=None) -> int:
    from .sim.demos import DEMOS

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:            # bench has its own parser (tsid_py.bench)
        from .bench import main as bench_main

        bench_main(argv[1:])
        return 0

    parser = argparse.ArgumentParser(prog="tsid-py", description="tsid_py demos, benchmarks and offline inverse dynamics")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run a demo against MuJoCo")
    demo.add_argument("name", choices=sorted(DEMOS))
    demo.add_argument("--robot", help="robot name (talos, g1, go2, solo12, panda, ur5)")
    demo.add_argument("--duration", type=float, help="simulated seconds")
    demo.add_argument("--push", type=float, help="balance: push force in N, applied for 0.1 s")
    demo.add_argument("--json", help="write the summary to this file")
    demo.add_argument("--plot", help="write a PNG of CoM, ZMP, forces and torques")
    demo.add_argument("--viewer", action="store_true", help="open MuJoCo's viewer (needs a display)")
    commands.add_parser("bench", help="time the control step of the reference problem (see tsid-py bench -h)")
    _add_inverse_dynamics_parser(commands)
    args = parser.parse_args(argv)
    return _inverse_dynamics(args) if args.command == "inverse-dynamics" else _demo(args)


if __name__ == "__main__":
    sys.exit(main())
