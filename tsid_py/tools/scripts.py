"""The command line the scripts of ``examples/`` share: how long to run, a figure, a video.

    python examples/arm.py                  # the default run, its result
    python examples/arm.py --duration 1     # a shorter run (the tests' horizon)
    python examples/arm.py --plot arm.png --video arm.mp4

:func:`script_options` parses them; with ``--video`` it selects an off-screen OpenGL before
MuJoCo is imported (:func:`~tsid_py.scenarios.video.select_offscreen_gl`), so the script
films through :class:`~tsid_py.scenarios.video.Watchers` like the demos.
"""

from __future__ import annotations

import argparse
import sys

from ..cli_arguments import Parser, output_file, positive


def script_options(description: str | None, duration: float | None, *, plot: bool = True, video: bool = True,
                   argv: list[str] | None = None) -> argparse.Namespace:
    """The options of an example script: ``duration`` (simulated seconds, default
    ``duration``; None: a script that runs until its motion ends has no such option), and
    ``plot`` (a figure's path) and ``video`` (an MP4's path), None unless given;
    ``plot``/``video`` False leave those options out. ``description``: the script's
    docstring (its first paragraph is the help's). ``argv`` defaults to ``sys.argv[1:]``."""
    summary = (description or "").strip().split("\n\n")[0]
    parser = Parser(prog=sys.argv[0] if sys.argv and sys.argv[0] else "example", description=summary)
    if duration is not None:
        parser.add_argument("--duration", type=positive("seconds"), default=duration, metavar="S",
                            help=f"simulated seconds (default {duration:g})")
    if plot:
        parser.add_argument("--plot", type=output_file(".png", ".pdf", ".svg"), metavar="FILE",
                            help="write a figure of the run")
    if video:
        parser.add_argument("--video", type=output_file(".mp4"), metavar="FILE",
                            help="film the run off-screen into an MP4")
    options = parser.parse_args(sys.argv[1:] if argv is None else argv)
    options.plot = getattr(options, "plot", None)
    options.video = getattr(options, "video", None)
    if options.video:
        from ..scenarios.video import select_offscreen_gl

        select_offscreen_gl()
    return options
