"""``tsid-py``: run the demos, the step benchmark and the offline inverse dynamics.

    tsid-py demo NAME [--robot R] [--duration S] [--json FILE] [--plot FILE] [--video FILE] [--viewer]
    tsid-py demo balance [--push N] [--push-direction {+x,-x,+y,-y}] [--push-at S] [--single-leg]
                         [--actuation-delay S] [--trunk-mass F] [--step-recovery]
    tsid-py demo walk [--robot talos|g1] [--distance M | --turn DEG] [--terrain KIND:VALUE] [--friction MU]
    tsid-py bench [--robot talos g1 go2] [--steps 2000] [--json FILE]
    tsid-py inverse-dynamics FILE --robot R --dt S [--contacts A B] [--friction MU | --no-bounds]
        [--smoothing W] --out RESULT.npz
    tsid-py inverse-dynamics MOTION.mot --robot MODEL.osim [--external-loads LOADS.xml]
        [--lowpass HZ] --out RESULT.sto [--out-grf GRF.mot]
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys

from . import cli_inverse_dynamics as inverse_dynamics_command


def _demo_epilog(demos, robots) -> str:
    """One paragraph a demo for ``tsid-py demo --help``: its docstring's summary line and
    the robots it runs (its default first)."""
    lines = ["demos:"]
    for name, function in sorted(demos.items()):
        default = inspect.signature(function).parameters["robot"].default
        others = [robot for robot in robots[name] if robot != default]
        lines.append(f"  {name:12s} {inspect.getdoc(function).splitlines()[0]}")
        lines.append(f"  {'':12s} robots: {', '.join([default + ' (default)', *others])}")
    return "\n".join(lines)


def _usage_error(message: str) -> int:
    """A one-line error on stderr; 2 is the exit status argparse gives a usage error."""
    print(f"tsid-py demo: error: {message}", file=sys.stderr)
    return 2


def _demo(args) -> int:
    from .scenarios.reports import write_json
    from .scenarios import demos

    if args.robot and args.robot not in demos.ROBOTS[args.name]:
        return _usage_error(f"the {args.name} demo runs {', '.join(demos.ROBOTS[args.name])}, not {args.robot!r}")
    kwargs = {"robot": args.robot} if args.robot else {}
    if args.duration is not None:
        kwargs["duration"] = args.duration
    options_of = {  # the options each demo owns, by keyword argument of its function
        "balance": {"push": args.push, "push_direction": args.push_direction, "push_at": args.push_at,
                    "actuation_delay": args.actuation_delay, "trunk_mass": args.trunk_mass,
                    "stance": "single" if args.single_leg else None, "step_recovery": args.step_recovery},
        "walk": {"distance": args.distance, "turn": args.turn, "terrain": args.terrain, "friction": args.friction,
                 "seed": args.seed},
    }
    if args.distance is not None and args.turn is not None:
        return _usage_error("--distance and --turn are exclusive: walk a distance or turn in place")
    if args.single_leg and args.step_recovery:
        return _usage_error("--step-recovery steps from double stance: it does not combine with --single-leg")
    for owner, options in options_of.items():
        for key, value in options.items():
            if value is not None:
                if args.name != owner:
                    option = {"stance": "--single-leg"}.get(key, f"--{key.replace('_', '-')}")
                    return _usage_error(f"{option} applies to the {owner} demo only")
                kwargs[key] = value
    if args.distance is not None and not args.distance > 0:
        return _usage_error(f"--distance must be a positive number of metres, got {args.distance}")
    if args.terrain is not None:
        from .scenarios.terrains import parse_terrain

        try:
            parse_terrain(args.terrain)
        except ValueError as error:
            return _usage_error(f"--terrain {error}")
    if args.friction is not None and not (math.isfinite(args.friction) and args.friction > 0):
        return _usage_error(f"--friction must be a positive friction coefficient, got {args.friction}")
    if args.viewer:
        if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
            print("--viewer: no display here (DISPLAY is unset); running headless", file=sys.stderr)
        else:
            kwargs["viewer"] = True
    if args.video:
        from .scenarios.video import select_offscreen_gl

        select_offscreen_gl()           # before MuJoCo is imported: it fixes its OpenGL then
        kwargs["video"] = args.video
    function = demos.DEMOS[args.name]
    run = function(**kwargs)
    summary = {"demo": run.name, "robot": run.robot, **run.summary}
    print(json.dumps(summary, indent=2))
    write_json(args.json, summary)
    if args.plot:
        from .scenarios.plots import save_plot

        save_plot(run, args.plot)
    return 1 if summary.get("fell") else 0


#: Options whose value may start with "-" (a direction such as -y): argparse would read that
#: value as another option, so ``OPTION -y`` is handed over as ``OPTION=-y``.
SIGNED_VALUE_OPTIONS = ("--push-direction",)


def _attach_signed_values(argv: list[str]) -> list[str]:
    """``argv`` with each :data:`SIGNED_VALUE_OPTIONS` joined to the value that follows it."""
    joined, tokens = [], iter(argv)
    for token in tokens:
        value = next(tokens, None) if token in SIGNED_VALUE_OPTIONS else None
        joined.append(token if value is None else f"{token}={value}")
    return joined


def main(argv=None) -> int:
    from .scenarios.demos import DEMOS, ROBOTS

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:            # bench has its own parser (tsid_py.bench)
        from .bench import main as bench_main

        bench_main(argv[1:])
        return 0

    parser = argparse.ArgumentParser(prog="tsid-py", description="tsid_py demos, benchmarks and offline inverse dynamics")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="run a demo against MuJoCo", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a controller against MuJoCo (headless unless --viewer) and print a summary.\n"
                    "The exit status is 1 if the robot fell, 2 for a usage error.", epilog=_demo_epilog(DEMOS, ROBOTS))
    demo.add_argument("name", choices=sorted(DEMOS), metavar="NAME", help="which demo (listed below)")
    demo.add_argument("--robot", metavar="R", help="robot to run (see below which demo runs which)")
    demo.add_argument("--duration", type=float, metavar="S", help="simulated seconds (default: the demo's own)")
    demo.add_argument("--push", type=float, metavar="N",
                      help="balance: push force in N, applied for 0.1 s (default 1.6 N per kg of the robot)")
    demo.add_argument("--push-direction", choices=["+x", "-x", "+y", "-y"],
                      help="balance: one push this way (default: the two-push schedule, +y then +x)")
    demo.add_argument("--push-at", type=float, metavar="S", help="balance: time of the single push, s (default 1)")
    demo.add_argument("--actuation-delay", type=float, metavar="S", help="balance: simulated actuation delay, s")
    demo.add_argument("--trunk-mass", type=float, metavar="F",
                      help="balance: factor on the simulated torso and base mass")
    demo.add_argument("--single-leg", action="store_true", default=None,
                      help="balance: stand on the first foot (the other lifted 3 cm) before the push (at 2 s)")
    demo.add_argument("--step-recovery", action="store_true", default=None,
                      help="balance: step when a push carries the capture point out of the soles")
    demo.add_argument("--distance", type=float, metavar="M", help="walk: metres to walk forward (default 3)")
    demo.add_argument("--turn", type=float, metavar="DEG",
                      help="walk: turn in place by this many degrees (counter-clockwise positive)")
    demo.add_argument("--terrain", metavar="KIND:VALUE",
                      help="walk: the ground, slope:DEG (negative: down), steps:HEIGHT (m, negative: down) or "
                           "rough:AMPLITUDE (m); default flat")
    demo.add_argument("--friction", type=float, metavar="MU", help="walk: the floor's sliding friction (default 1)")
    demo.add_argument("--seed", type=int, metavar="N", help="walk: seed of the terrain's draw (default 0)")
    demo.add_argument("--json", metavar="FILE", help="write the summary to this file")
    demo.add_argument("--plot", metavar="FILE", help="write a figure of the run (PNG): four panels of its signals")
    demo.add_argument("--video", metavar="FILE",
                      help="render the run off-screen into an MP4 (30 frames per simulated second; "
                           "uses EGL or OSMesa without a display)")
    demo.add_argument("--viewer", action="store_true", help="open MuJoCo's viewer (needs a display)")
    commands.add_parser("bench", help="time the control step of the reference problem (see tsid-py bench -h)")
    inverse_dynamics_command.add_parser(commands)
    args = parser.parse_args(_attach_signed_values(argv))
    return inverse_dynamics_command.run(args) if args.command == "inverse-dynamics" else _demo(args)


if __name__ == "__main__":
    sys.exit(main())
