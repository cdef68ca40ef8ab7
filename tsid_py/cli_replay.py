"""``tsid-py replay FILE``: re-solve a flight recording's steps and compare, plot, convert.

    tsid-py replay walk.tsidrec                                   # re-solve every step, report the difference
    tsid-py replay walk.tsidrec --set CoMTask.kp=400 --set regularization.acceleration=1e-4
    tsid-py replay walk.tsidrec --steps 1000:2000 --plot tau.png --signal tau[8] --signal x[40]
    tsid-py replay walk.tsidrec --rerun walk.rrd                  # the replayed steps in Rerun

``--set ITEM.SETTING=VALUE`` changes a setting of each keyframe's solver before its steps are
re-solved: ITEM is a task's name, a contact's name or ``solver``, SETTING one of its
settings (a name that is none is a usage error; ``regularization.KEY`` sets a regularisation
weight; ``--qp-solver`` picks another backend). The report gives, per step,
``max |x_replayed − x_recorded|``; a plot shows recorded and replayed signals: ``q[i]``,
``v[i]``, ``x[i]`` (q̈ first, then the contacts' forces), ``tau[i]`` (replayed), ``step_us``; a last panel gives each step's ``max |Δx|`` (1e-17 where identical).
Exit status 0, 1 when a replay as recorded is not bit-exact, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import numpy as np

from .scenarios.reports import write_json


def _usage_error(message: str) -> int:
    print(f"tsid-py replay: error: {message}", file=sys.stderr)
    return 2


def _change(settings: list[tuple[str, str, object]], qp_solver: str | None):
    """``change(solver)`` applying the ``--set`` settings (and another backend)."""
    def change(solver):
        from .backends import make_backend

        if qp_solver:
            solver.backend = make_backend(qp_solver)
        for item_name, setting, value in settings:
            if item_name == "regularization":
                solver.regularization = {**solver.regularization, setting: value}
                continue
            items = {task.name: task for task in solver.tasks} | dict(solver.contacts) | {"solver": solver}
            item = items.get(item_name)
            if item is None:
                raise KeyError(f"--set names {item_name!r}, not a task, contact or 'solver'; known: {sorted(items)}")
            known = settings_of(item)
            if setting not in known:
                raise ValueError(f"--set {item_name}.{setting}: {setting!r} is not a setting of {item_name!r}; its "
                                 f"settings: {', '.join(known)}")
            try:
                setattr(item, setting, value)
            except (TypeError, ValueError) as error:
                raise ValueError(f"--set {item_name}.{setting}={value!r}: {error}") from None
    return change


def settings_of(item) -> list[str]:
    """The names of ``item``'s assignable settings: its :class:`~tsid_py.settings.Setting`
    descriptors and properties with a setter."""
    from .settings import setting_names

    names = {name for name in setting_names(type(item)) if not name.startswith("_")}
    for klass in type(item).__mro__:
        names.update(name for name, attribute in vars(klass).items()
                     if not name.startswith("_") and isinstance(attribute, property) and attribute.fset is not None)
    return sorted(names)


def _checked_selection(recording, robot, steps, signals) -> tuple[int, int]:
    """The kept steps ``[first, last)`` that ``--steps`` selects, and each ``--signal``,
    checked against the recording; ``ValueError`` naming the option otherwise."""
    count = len(recording)
    first, last = 0, count
    if steps:
        first = steps[0] or 0
        last = count if steps[1] is None else steps[1]
        if not 0 <= first < last <= count:
            raise ValueError(f"argument --steps: must select kept steps A:B with 0 ≤ A < B ≤ {count} (the recording "
                             f"keeps {count}), got {first}:{last}")
    sizes = {"q": recording.arrays["q"].shape[1], "v": recording.arrays["v"].shape[1], "tau": robot.nv,
             "x": int(np.max(recording.arrays["x_size"], initial=0))}
    for name in signals:
        match = re.fullmatch(r"(q|v|x|tau)\[(\d+)\]", name)
        if match and int(match[2]) >= sizes[match[1]]:
            raise ValueError(f"argument --signal: {name} is out of range ({match[1]} has {sizes[match[1]]} entries)")
    return first, last


def _parse_set(text: str):
    match = re.fullmatch(r"(.+)\.([A-Za-z_]\w*)=(.+)", text)
    if not match:
        raise ValueError(f"takes ITEM.SETTING=VALUE, got {text!r}")
    value = match[3]
    try:
        value = json.loads(value)
    except json.JSONDecodeError:
        pass
    return match[1], match[2], value


def _signal(recording, replayed, name: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(recorded, replayed) values of a signal over the steps."""
    match = re.fullmatch(r"(q|v|x|tau)\[(\d+)\]|step_us", name)
    if name == "step_us":
        return recording.arrays["step_us"], None
    kind, index = match[1], int(match[2])
    if kind in ("q", "v"):
        values = recording.arrays[kind]
        if index >= values.shape[1]:
            raise ValueError(f"{name}: {kind} has {values.shape[1]} entries")
        return values[:, index], None
    series = replayed.x if kind == "x" else replayed.tau
    again = np.array([np.nan if s is None or index >= s.size else s[index] for s in series])
    if kind == "tau":
        return again, None
    recorded = np.array([np.nan if (x := recording.x(i)) is None or index >= x.size else x[index]
                         for i in range(len(recording))])
    return recorded, again


def _parse_steps(text: str) -> tuple[int | None, int | None]:
    match = re.fullmatch(r"(\d*):(\d*)", text)
    if not match:
        raise ValueError(f"takes A:B (step indices, either may be left out), got {text!r}")
    return (int(match[1]) if match[1] else None), (int(match[2]) if match[2] else None)


def _parse_signal(text: str) -> str:
    if not re.fullmatch(r"(q|v|x|tau)\[(\d+)\]|step_us", text):
        raise ValueError(f"takes q[i], v[i], x[i], tau[i] or step_us, got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``tsid-py replay``."""
    from .cli_arguments import Parser, input_file, output_file, parsed, qp_solver, rerun_target

    parser = Parser(prog="tsid-py replay", description=__doc__.splitlines()[0],
                    formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("file", type=input_file(), help="a recording (tsid-py demo NAME --record FILE, or "
                                                         "FlightRecorder.save)")
    parser.add_argument("--steps", metavar="A:B", type=parsed("step range", _parse_steps),
                        help="the kept steps to re-solve, by index (default: all)")
    parser.add_argument("--set", action="append", default=[], metavar="ITEM.SETTING=VALUE",
                        type=parsed("setting", _parse_set), help="change a setting before re-solving (repeatable)")
    parser.add_argument("--qp-solver", type=qp_solver, help="re-solve with this backend")
    parser.add_argument("--plot", metavar="FILE", type=output_file(".png", ".pdf", ".svg"),
                        help="plot --signal's recorded and replayed values (PNG, PDF or SVG)")
    parser.add_argument("--signal", action="append", default=[], type=parsed("signal", _parse_signal),
                        help="a signal to plot (repeatable)")
    parser.add_argument("--rerun", metavar="TARGET", type=rerun_target,
                        help="log the replayed steps to Rerun (a .rrd path, spawn, connect)")
    parser.add_argument("--json", metavar="FILE", type=output_file(".json"), help="write the report to this file")
    return parser


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit:
        return exit.code
    from .tools.replay import Recording, load_robot, replay

    try:
        recording = Recording.load(args.file)
        settings = args.set
        if args.signal and not args.plot:
            raise ValueError("--signal needs --plot FILE")
        robot = load_robot(recording)
        first, last = _checked_selection(recording, robot, args.steps, args.signal)
    except ValueError as exc:
        return _usage_error(str(exc))
    changed = bool(settings or args.qp_solver)
    view = None
    change = _change(settings, args.qp_solver) if changed else None
    if args.rerun:
        from .tools.viewer import RerunView

        views = []

        def change_and_view(solver, inner=change):
            if inner is not None:
                inner(solver)
            views.append(RerunView(solver, args.rerun) if not views else None)
            if views[0] is not None and solver.recorder is None:
                solver.recorder = views[0]
        change = change_and_view
    try:
        replayed = replay(recording, robot=robot, change=change, indices=range(first, last))
    except (KeyError, ValueError) as exc:
        return _usage_error(str(exc))
    if args.rerun and views and views[0] is not None:
        view = views[0]
        view.close()
    report = {"file": args.file, "steps": last - first, "changed": [f"{a}.{b}={c}" for a, b, c in settings]
              + ([f"qp_solver={args.qp_solver}"] if args.qp_solver else []),
              "identical_steps": replayed.identical_steps(), "max_difference": replayed.max_difference(),
              "errors": {str(k): v for k, v in replayed.errors.items()}}
    print(json.dumps(report, indent=2))
    write_json(args.json, report)
    if args.plot:
        _plot(recording, replayed, args.signal or ["x[0]"], args.plot, first)
    if not changed and (report["identical_steps"] != report["steps"]):
        return 1
    return 0


def _plot(recording, replayed, signals, path, first) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .scenarios.plots import save_figure

    figure, axes = plt.subplots(len(signals) + 1, 1, figsize=(9, 2.6 * (len(signals) + 1)), squeeze=False)
    steps = recording.steps[first:first + len(replayed.x)]
    difference = axes[-1, 0]                 # the last panel: how far each replayed step is from the recorded one
    difference.semilogy(steps, np.maximum(replayed.differences(), 1e-17), ".", markersize=2)
    difference.set_ylabel("max |Δx|")
    difference.set_xlabel("step")
    for axis, name in zip(axes[:-1, 0], signals):
        recorded, again = _signal(recording, replayed, name)
        recorded = recorded[first:first + len(replayed.x)] if recorded.size == len(recording) else recorded
        axis.plot(steps, recorded, label=f"{name} recorded" if again is not None else name)
        if again is not None:
            axis.plot(steps, again, "--", label=f"{name} replayed")
        axis.legend(loc="upper right")
        axis.set_xlabel("step")
    figure.tight_layout()
    save_figure(figure, path, dpi=figure.dpi)
