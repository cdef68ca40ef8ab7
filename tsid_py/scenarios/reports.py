"""A demo run's report: its summary printed for a person, its JSON and its figure written."""

from __future__ import annotations

import json

from .._files import atomic_write


def write_json(path: str | None, report) -> None:
    """Write ``report`` to ``path`` as indented JSON (nothing when no path was asked for),
    atomically (:func:`tsid_py._files.atomic_write`): an interrupted write leaves the
    previous file whole."""
    if not path:
        return
    with atomic_write(path) as stream:
        json.dump(report, stream, indent=2)


#: What ``tsid-py demo`` prints under the summary when no ``--json`` file was asked for.
JSON_HINT = "(every measure at full precision: --json FILE)"


def report_run(run, json_path: str | None = None, plot_path: str | None = None) -> int:
    """Print ``run``'s summary (a :class:`~tsid_py.scenarios.demos.DemoRun`) as
    :func:`~tsid_py.scenarios.summary_text.format_summary` words it, write the JSON summary to
    ``json_path`` and the figure to ``plot_path`` when given; returns the exit status of
    ``tsid-py demo``: 1 if the robot fell, else 0."""
    from .summary_text import format_summary

    summary = {"demo": run.name, "robot": run.robot, **run.summary}
    print(format_summary(summary))
    if not json_path:
        print(JSON_HINT)
    write_json(json_path, summary)
    if plot_path:
        from .plots import save_plot

        save_plot(run, plot_path)
    return 1 if summary.get("fell") else 0
