"""``tsid-py``: run the demos, the step benchmark and the offline inverse dynamics.

    tsid-py demo NAME [--robot NAME|PATH [--srdf PATH]] [--duration S] [--json FILE] [--plot FILE] [--video FILE]
                 [--viewer]
    tsid-py demo balance [--push N] [--push-direction {+x,-x,+y,-y}] [--push-at S] [--single-leg]
                         [--trunk-mass F] [--step-recovery]
    tsid-py demo walk [--robot talos|g1|PATH] [--distance M | --turn DEG]
    tsid-py demo walk|trot [--terrain flat|slope:DEG|steps:HEIGHT|stairs:RISE|rough:AMPLITUDE[:SEED]]
    tsid-py demo balance|walk [--realistic] [--seed N] [--ground-truth | --finite-differences]
                         [sensor, plant and drive options: tsid_py.cli_conditions]
    tsid-py demo trot [--robot R|PATH] --speed V [--lateral V] [--yaw-rate W] [--distance M | --duration S]
                      [--gait trot|walk|pace|bound] [--terrain T] (tsid_py.cli_trot)
    tsid-py bench [--robot talos g1 go2] [--steps 2000] [--rate HZ] [--json FILE]
    tsid-py inverse-dynamics FILE --robot R --dt S [--contacts A B] [--friction MU | --no-bounds]
        [--smoothing W] --out RESULT.npz
    tsid-py inverse-dynamics MOTION.mot --robot MODEL.osim [--external-loads LOADS.xml]
        [--lowpass HZ] --out RESULT.sto [--out-grf GRF.mot]
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import textwrap

from . import cli_check as check_command
from . import cli_conditions as conditions_command
from . import cli_inverse_dynamics as inverse_dynamics_command
from .cli_arguments import (Parser, attach_values, input_file, non_negative, nonzero, output_file, parsed,
                            positive, rerun_target)
from . import cli_trot as trot_command


def _plain(text: str) -> str:
    """A docstring's text for a terminal: Sphinx roles as their target's last name, double
    backticks dropped."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda match: match.group(1).rsplit(".", 1)[-1], text)
    return text.replace("``", "")


def _demo_robots(name, function, robots, needs, kinds) -> list[str]:
    default = inspect.signature(function).parameters["robot"].default
    others = [robot for robot in robots[name] if robot != default]
    return [f"robots: {', '.join([default + ' (default)', *others])}",
            f"or a URDF/MJCF file of {' or '.join(kinds[kind] for kind in needs[name])}"]


def _demo_epilog(demos, robots, needs, kinds) -> str:
    """One paragraph a demo for ``tsid-py demo --help``: its docstring's summary line, the
    built-in robots it runs (its default first) and the robot files it runs."""
    lines = ["demos:"]
    for name, function in sorted(demos.items()):
        lines.append(f"  {name:12s} {_plain(inspect.getdoc(function).splitlines()[0])}")
        lines += [f"  {'':12s} {line}" for line in _demo_robots(name, function, robots, needs, kinds)]
    return "\n".join(lines)


#: A help text's option block: its first line (``  --option …``) and the lines under it.
_OPTION_BLOCK = re.compile(r"^  -.*?(?=^  -|^\S|\Z)", flags=re.M | re.S)
#: An option block's help text: after two spaces on its first line, or on the next line.
_HELP_TEXT = re.compile(r"^  -\S*(?:[^\n]*?\s{2,}|[^\n]*\n\s+)(\S.*)", flags=re.S)


def _applies(block: str, name: str, demos) -> bool:
    """Whether an option block of the demo parser's help applies to the demo ``name``: its
    help does not start by naming other demos only (``balance: …``, ``walk, trot: …``)."""
    help_text = _HELP_TEXT.match(block)
    owners = re.match(r"([a-z-]+(?:, [a-z-]+)*): ", help_text.group(1)) if help_text else None
    named = owners.group(1).split(", ") if owners else []
    return not named or not set(named) <= set(demos) or name in named


def demo_help(name: str) -> str:
    """``tsid-py demo NAME --help``: the demo's description (its docstring's summary), the
    robots it runs, and the options that apply to it (an option whose help names other demos,
    or a group whose title does, is left out)."""
    from .scenarios.demo_robots import KINDS, NEEDS
    from .scenarios.demos import DEMOS, ROBOTS

    parser = Parser(prog=f"tsid-py demo {name}", add_help=True)
    add_demo_options(parser)
    text = parser.format_help()
    body = text[text.index("options:"):]
    kept = []
    for section in re.split(r"\n(?=\S)", body):
        title, _, options = section.partition("\n")
        group = re.search(r"\(([a-z-]+(?:, [a-z-]+)*)[;)]", title)
        if group and name not in group.group(1).split(", "):
            continue
        blocks = [block for block in _OPTION_BLOCK.findall(options + "\n") if _applies(block, name, DEMOS)]
        kept.append(title + "\n" + "".join(blocks).rstrip("\n"))
    function = DEMOS[name]
    about = [_plain(inspect.getdoc(function).splitlines()[0]), "",
             *_demo_robots(name, function, ROBOTS, NEEDS, KINDS)]
    return "\n".join([f"usage: tsid-py demo {name} [options]", "",
                      *(textwrap.fill(line, 80, subsequent_indent="  ") for line in about), "",
                      "\n\n".join(kept)]) + "\n"


def _usage_error(message: str) -> int:
    """A one-line error on stderr; 2 is the exit status argparse gives a usage error."""
    print(f"tsid-py demo: error: {message}", file=sys.stderr)
    return 2


def _demo(args) -> int:
    from .scenarios.reports import report_run
    from .scenarios import demos

    from .scenarios.demo_robots import is_path

    if args.terrain is not None and args.name not in ("walk", "trot"):
        return _usage_error("--terrain applies to the walk and trot demos only")
    misused = trot_command.misused(args)
    if misused:
        return _usage_error(misused)
    shared = conditions_command.given(args)          # the sensor, plant and feedback options
    if shared and "conditions" not in inspect.signature(demos.DEMOS[args.name]).parameters:
        takers = [name for name, f in sorted(demos.DEMOS.items()) if "conditions" in inspect.signature(f).parameters]
        return _usage_error(f"{shared[0]} applies to the {', '.join(takers[:-1])} and {takers[-1]} demos only")
    if args.srdf is not None and not (args.robot and is_path(args.robot)):
        return _usage_error("--srdf gives a robot file's postures: it needs --robot PATH")
    if args.name == "trot":                          # its own options and checks (tsid_py.cli_trot)
        return trot_command.run(args)
    if args.robot and not is_path(args.robot) and args.robot not in demos.ROBOTS[args.name]:
        return _usage_error(f"--robot: the {args.name} demo runs {', '.join(demos.ROBOTS[args.name])} or a robot "
                            f"file's path, not {args.robot!r}")
    kwargs = {"robot": args.robot} if args.robot else {}
    if args.srdf is not None:
        kwargs["srdf"] = args.srdf
    if args.duration is not None:
        kwargs["duration"] = args.duration
    options_of = {  # the options each demo owns, by keyword argument of its function
        "balance": {"push": args.push, "push_direction": args.push_direction, "push_at": args.push_at,
                    "trunk_mass": args.trunk_mass,
                    "stance": "single" if args.single_leg else None, "step_recovery": args.step_recovery},
        "walk": {"distance": args.distance, "turn": args.turn, "terrain": args.terrain},
    }
    if args.distance is not None and args.turn is not None:
        return _usage_error("--distance and --turn are exclusive: walk a distance or turn in place")
    if args.name == "balance" and args.push_at is not None and args.push_direction is None:
        return _usage_error("--push-at times the single push: give its --push-direction (without, the demo pushes "
                            "twice, at its own times)")
    if args.single_leg and args.step_recovery:
        return _usage_error("--step-recovery steps from double stance: it does not combine with --single-leg")
    for owner, options in options_of.items():
        for key, value in options.items():
            if value is not None:
                if args.name != owner:
                    option = {"stance": "--single-leg"}.get(key, f"--{key.replace('_', '-')}")
                    return _usage_error(f"{option} applies to the {owner} demo only")
                kwargs[key] = value
    if shared:
        try:
            kwargs["conditions"] = conditions_command.conditions_of(args, demos.DEFAULT_CONDITIONS)
        except ValueError as error:
            return _usage_error(str(error))
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
    try:
        if args.record or args.rerun:        # watch the demo's solver (tsid_py.tools.instruments)
            from .tools.instruments import watching

            with watching(record=args.record, rerun=args.rerun):
                run = function(**kwargs)
        else:
            run = function(**kwargs)
    except demos.DemoArgumentError as error:        # a robot the demo cannot run, an option it cannot carry out
        return _usage_error(f"argument {error.options}: {error}")
    return report_run(run, args.json, args.plot)


#: Options whose value may start with "-" (a direction such as -y, a signed angle): argparse
#: would read that value as another option, so ``OPTION -y`` is handed over as ``OPTION=-y``.
SIGNED_VALUE_OPTIONS = ("--push-direction", "--turn")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:            # bench has its own parser (tsid_py.bench)
        from .bench import main as bench_main

        result = bench_main(argv[1:])
        return result if isinstance(result, int) else 0
    if argv[:1] == ["replay"]:           # replay has its own parser (tsid_py.cli_replay)
        from .cli_replay import main as replay_main

        return replay_main(argv[1:])

    if argv[:1] == ["demo"] and len(argv) > 1 and {"-h", "--help"} & set(argv[2:]):
        from .scenarios.demos import DEMOS

        if argv[1] in DEMOS:              # one demo's description and options
            print(demo_help(argv[1]), end="")
            return 0
    try:
        args = build_parser().parse_args(attach_values(argv, SIGNED_VALUE_OPTIONS))
    except SystemExit as exit:            # a usage error (2) or --help (0), already printed
        return exit.code
    run = {"check-robot": check_command.run, "inverse-dynamics": inverse_dynamics_command.run}.get(args.command, _demo)
    return run(args)


def _parse_terrain(text: str):
    """``--terrain``'s type: :func:`tsid_py.scenarios.terrains.parse_terrain` (imported on use)."""
    from .scenarios.terrains import parse_terrain

    return parse_terrain(text)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``tsid-py`` (``bench`` has its own: :func:`tsid_py.bench.build_parser`)."""
    from .scenarios.demo_robots import KINDS, NEEDS
    from .scenarios.demos import DEMOS, ROBOTS

    parser = Parser(prog="tsid-py", description="tsid_py demos, benchmarks and offline inverse dynamics")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="run a demo against MuJoCo", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a controller against MuJoCo (headless unless --viewer) and print a short summary\n"
                    "(--json FILE writes every measure). The exit status is 1 if the robot fell, 2 for a\n"
                    "usage error.",
        epilog=_demo_epilog(DEMOS, ROBOTS, NEEDS, KINDS))
    demo.add_argument("name", choices=sorted(DEMOS), metavar="NAME", help="which demo (listed below)")
    add_demo_options(demo)
    commands.add_parser("bench", help="time the control step of the reference problem (see tsid-py bench -h)")
    commands.add_parser("replay", help="re-solve a recording's steps, plot, convert (see tsid-py replay -h)")
    inverse_dynamics_command.add_parser(commands)
    check_command.add_parser(commands)
    return parser


def add_demo_options(demo) -> None:
    """The options of ``tsid-py demo`` (every demo's; each says which demos it applies to)."""
    from .scenarios.push_recovery import DEFAULT_PUSH_PER_KG

    demo.add_argument("--robot", metavar="NAME|PATH",
                      help="a built-in robot or a URDF/MJCF file (see below which demo runs which)")
    demo.add_argument("--srdf", metavar="PATH", type=input_file(".srdf"),
                      help="a URDF robot's SRDF (its postures; default: the one beside it)")
    demo.add_argument("--duration", type=positive("seconds"), metavar="S",
                      help="simulated seconds (default: the demo's own)")
    demo.add_argument("--push", type=non_negative("newtons"), metavar="N",
                      help=f"balance, trot: push force in N, applied for 0.1 s on the base (balance: default "
                           f"{DEFAULT_PUSH_PER_KG:g} N per kg of the robot, 0: no push; trot: none unless given)")
    demo.add_argument("--push-direction", choices=["+x", "-x", "+y", "-y"],
                      help="balance, trot: one push this way (balance's default: the two-push schedule, +y then "
                           "+x; trot's: +y)")
    demo.add_argument("--push-at", type=non_negative("seconds"), metavar="S",
                      help="balance, trot: time of the single push, s, before the run's end (balance's default 1; "
                           "trot's 2 s into the gait)")
    demo.add_argument("--trunk-mass", type=positive("times the model's mass"), metavar="F",
                      help="balance: factor on the simulated torso and base mass")
    demo.add_argument("--single-leg", action="store_true", default=None,
                      help="balance: stand on the first foot (the other lifted 3 cm) before the push (at 2 s)")
    demo.add_argument("--step-recovery", action="store_true", default=None,
                      help="balance: step when a push carries the capture point out of the soles")
    demo.add_argument("--distance", type=positive("metres"), metavar="M",
                      help="walk, trot: metres to walk forward (default 3)")
    demo.add_argument("--turn", type=nonzero("degrees"), metavar="DEG",
                      help="walk, trot: turn in place by this many degrees (counter-clockwise positive)")
    demo.add_argument("--terrain", metavar="T", type=parsed("terrain", _parse_terrain),
                      help="walk, trot: the ground, flat (default), slope:DEG (negative: down), steps:HEIGHT (m, "
                           "3 up and 3 back; negative: down), stairs:RISE (m), rough:AMPLITUDE[:SEED] (within "
                           "± AMPLITUDE m)")
    trot_command.add_arguments(demo)
    demo.add_argument("--json", type=output_file(".json"), metavar="FILE", help="write the summary to this file")
    demo.add_argument("--plot", type=output_file(".png", ".pdf", ".svg"), metavar="FILE",
                      help="write a figure of the run (PNG, PDF or SVG): four panels of its signals")
    demo.add_argument("--video", type=output_file(".mp4"), metavar="FILE",
                      help="render the run off-screen into an MP4 (640 x 480, 30 frames per simulated "
                           "second; uses EGL or OSMesa without a display)")
    demo.add_argument("--viewer", action="store_true", help="open MuJoCo's viewer (needs a display)")
    demo.add_argument("--record", metavar="FILE", type=output_file(".tsidrec"),
                      help="record every control step into FILE.tsidrec (tsid-py replay FILE)")
    demo.add_argument("--rerun", metavar="TARGET", type=rerun_target,
                      help="log the run to Rerun: a .rrd path, spawn or connect[=URL]")
    conditions_command.add_arguments(demo)


if __name__ == "__main__":
    sys.exit(main())
