"""``tsid-py check-robot``: what is wrong with a robot file, and the fix applied or to apply.

    tsid-py check-robot PATH [--srdf PATH] [--posture NAME] [--package-dir DIR …] [--json FILE]
        [--quiet]

PATH is a URDF (its SRDF beside it or in ``../srdf/``, or ``--srdf``) or an MJCF file. The
report (:func:`tsid_py.models.check.check_robot`) lists each finding — severity, element,
file, what is wrong with its numbers, the fix — errors first; ``--json`` writes it
atomically. Exit status: 0 when nothing is an error (warnings and notes only), 1 when the
check found errors, 2 for a usage error or a file that cannot be read as a robot file (a
one-line message naming it, never a traceback).
"""

from __future__ import annotations

import json
import sys

from .cli_arguments import folder, input_file, output_file

#: The exit statuses.
NO_ERRORS, ERRORS_FOUND, USAGE = 0, 1, 2


def add_parser(commands) -> None:
    """Register ``check-robot`` with the ``tsid-py`` subcommands."""
    import argparse

    command = commands.add_parser(
        "check-robot", help="check a robot file (URDF/MJCF): each problem with the fix applied or to apply",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check a URDF (with its SRDF) or MJCF robot file as tp.robots.load reads it: posture outside "
                    "joint ranges, gravity torques above the torque limits, tilted or misread soles, feet without "
                    "geometry, invalid inertias, ambiguous names, bad SRDF names, mimic and continuous joints, "
                    "the CoM over the feet. Each finding has a severity (error, warning, note), the file and "
                    "element, what is wrong with its numbers, and the fix applied by the loader or harness or "
                    "the one to apply.",
        epilog="exit status: 0 no errors (warnings and notes only), 1 errors found, 2 usage error or unreadable file")
    command.add_argument("path", metavar="PATH", type=input_file(".urdf", ".xml", ".mjcf"), help="the robot file: a URDF (.urdf) or an MJCF file (.xml, .mjcf)")
    command.add_argument("--srdf", metavar="PATH", type=input_file(".srdf"), help="the URDF's SRDF (default: <name>.srdf beside it or in ../srdf/)")
    command.add_argument("--posture", metavar="NAME", help="the SRDF group state or MJCF keyframe to stand in "
                                                            "(default: the loader's)")
    command.add_argument("--package-dir", action="append", metavar="DIR", dest="package_dirs", type=folder(),
                         help="a folder package:// mesh paths resolve against (repeatable; default: the folders "
                              "above the file)")
    command.add_argument("--json", metavar="FILE", type=output_file(".json"), help="also write the report as JSON to FILE")
    command.add_argument("--quiet", action="store_true", help="print the summary and the errors only")


def run(args) -> int:
    """Run the check and print the report; the exit status (see the module)."""
    from .models.check import check_robot
    from ._files import atomic_write

    try:
        report = check_robot(args.path, srdf=args.srdf, posture=args.posture, package_dirs=args.package_dirs)
    except (ValueError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
        print(f"tsid-py check-robot: error: {message}", file=sys.stderr)
        return USAGE
    text = report.format()
    if args.quiet:
        text = text.split("\n\n", 1)[0] + "".join("\n\n" + finding.describe() for finding in report.errors) + "\n"
    print(text, end="")
    if args.json:
        with atomic_write(args.json) as handle:
            json.dump(report.to_dict(), handle, indent=2)
            handle.write("\n")
    return ERRORS_FOUND if report.errors else NO_ERRORS
