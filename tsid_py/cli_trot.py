"""``tsid-py demo trot``: the options of the quadruped gait demo.

    tsid-py demo trot [--robot R|PATH [--srdf PATH]] --speed V [--lateral V] [--yaw-rate W]
                      [--distance M | --duration S | --turn DEG] [--gait trot|walk|pace|bound]
                      [--terrain flat|slope:DEG|steps:H|stairs:M|rough:M[:SEED]]
                      [--push N [--push-direction {+x,-x,+y,-y}] [--push-at S]]
                      [--json FILE] [--plot FILE] [--video FILE] [--viewer]

The shared options (``--robot``, ``--terrain``, ``--duration``, ``--distance``, ``--turn``, ``--push``…, ``--json``,
``--plot``, ``--video``, ``--viewer``) are the ``demo`` command's own; this module adds the
trot's and runs it (:func:`tsid_py.scenarios.demos.trot`).
"""

from __future__ import annotations

import os
import sys

#: The options only the trot demo takes (argparse destinations).
TROT_OPTIONS = {"speed": "--speed", "lateral": "--lateral", "yaw_rate": "--yaw-rate", "gait": "--gait"}


def add_arguments(demo) -> None:
    """Add the trot's options to the ``demo`` parser."""
    from .cli_arguments import finite

    demo.add_argument("--speed", type=finite("m/s"), metavar="V", help="trot: forward speed, m/s (default 0.5)")
    demo.add_argument("--lateral", type=finite("m/s"), metavar="V", help="trot: sideways speed, m/s (+: to the left)")
    demo.add_argument("--yaw-rate", type=finite("rad/s"), metavar="W",
                      help="trot: turning rate, rad/s (+: counter-clockwise)")
    demo.add_argument("--gait", choices=["trot", "walk", "pace", "bound"], help="trot: the gait (default trot)")



def misused(args) -> str | None:
    """The usage error of a trot option given to another demo, else None."""
    if args.name == "trot":
        return None
    for key, option in TROT_OPTIONS.items():
        if getattr(args, key, None) is not None:
            return f"{option} applies to the trot demo only"
    return None


def run(args) -> int:
    """Run the trot demo from the parsed ``args``; exit status 1 if the robot fell, 2 for a
    usage error (one line on stderr, no traceback)."""
    from .scenarios import demos
    from .scenarios.reports import report_run

    def usage(message: str) -> int:
        print(f"tsid-py demo: error: {message}", file=sys.stderr)
        return 2

    ends = [option for option, value in (("--distance", args.distance), ("--duration", args.duration),
                                         ("--turn", args.turn)) if value is not None]
    if len(ends) > 1:
        return usage(f"{' and '.join(ends)} are exclusive: trot a distance, for a time or until turned")
    speed = (0.0 if args.turn is not None else 0.5) if args.speed is None else args.speed
    if args.distance is not None and speed == 0 and not args.lateral:
        return usage("--distance needs a nonzero --speed or --lateral")
    robot = args.robot or demos.trot.__defaults__[0]
    if robot not in demos.ROBOTS["trot"] and not os.path.isfile(robot):
        return usage(f"--robot must be a built-in quadruped ({', '.join(demos.ROBOTS['trot'])}) or a URDF/MJCF "
                     f"file, got {robot!r}")
    from .cli_conditions import conditions_of
    from .scenarios.terrains import trot_terrain

    terrain = trot_terrain(args.terrain)
    try:
        conditions = conditions_of(args, demos.DEFAULT_CONDITIONS)
    except ValueError as exc:
        return usage(str(exc).splitlines()[0])
    options = {"robot": robot, "speed": speed, "lateral": args.lateral or 0.0, "yaw_rate": args.yaw_rate or 0.0,
               "distance": args.distance, "duration": args.duration, "turn": args.turn, "gait": args.gait or "trot",
               "terrain": terrain,
               "push": args.push, "push_direction": args.push_direction or "+y", "push_at": args.push_at,
               "srdf": args.srdf, "viewer": bool(args.viewer), "video": args.video, "conditions": conditions}
    if args.viewer and not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        print("--viewer: no display here (DISPLAY is unset); running headless", file=sys.stderr)
        options["viewer"] = False
    if args.video:
        from .scenarios.video import select_offscreen_gl

        select_offscreen_gl()
    try:
        run_ = demos.trot(**options)
    except demos.DemoArgumentError as exc:  # a command the robot cannot carry out
        return usage(f"argument {exc.options}: {exc}")
    except ValueError as exc:              # a file that is not a quadruped, a bad option value
        return usage(str(exc).splitlines()[0])
    return report_run(run_, args.json, args.plot)
