"""Every option of every subcommand (the demo command's with every demo), tried with the values
its domain refuses: the command ends at once with exit status 2, a message naming the option,
and no traceback.

The options are read from the parsers themselves (their argparse ``type`` carries its domain,
:mod:`tsid_py.cli_arguments`), so an option added later is swept too — or, if it takes a
value with no domain, fails :func:`test_every_option_has_a_checked_domain`.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from tsid_py import bench, cli_replay
from tsid_py.cli import build_parser, main as cli_main

from .conftest import load_robot

DATA = Path(__file__).parent / "data"

#: Values each domain refuses (file domains are built per test, in its temporary folder).
REFUSED = {
    "positive": ["0", "-1", "nan", "inf", "-inf", "abc"],
    "non-negative": ["-1", "nan", "inf", "abc"],
    "nonzero": ["0", "nan", "inf", "abc"],
    "fraction": ["-0.1", "1", "nan", "abc"],
    "finite": ["nan", "inf", "-inf", "abc"],
    "terrain": ["bogus", "slope:abc", "slope", "rough:1:x"],
    "drive parameter": ["-1", "nan", "inf", "abc"],
    "robot": ["no-such-robot"],
    "qp solver": ["no-such-solver"],
    "peer": ["bogus=python", "placo=", "placo=/no/such/python"],
    "step range": ["1-2", "a:b", "5"],
    "setting": ["no-dot", "task.kp"],
    "signal": ["q", "w[1]", "x[a]"],
    "rerun target": ["log.txt", "/no/such/folder/log.rrd"],
}

#: Options that take a value with no argparse domain, and where their check is tested: the
#: value is only known to be wrong against the robot or the model it names.
CHECKED_ELSEWHERE = {
    ("demo", "--robot"): "test_walk_demo_usage_errors_name_the_option, test_an_unknown_robot_is_named",
    ("inverse-dynamics", "--robot"): "test_offline_files.test_bad_input_is_named",
    ("inverse-dynamics", "--contacts"): "test_offline_files.test_bad_input_is_named",
    ("inverse-dynamics", "--plate-bodies"): "test_recorded_files.test_cli_bad_plate_and_reduction_options_are_named",
    ("inverse-dynamics", "--residual-bodies"): "test_recorded_files.test_cli_bad_plate_and_reduction_options_are_named",
    ("check-robot", "--posture"): "test_check (a posture that is not in the file is an error of the check)",
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser (``bench`` and ``replay`` have their own)."""
    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices) | {"bench": bench.build_parser(), "replay": cli_replay.build_parser()}


def value_options(name: str) -> list[argparse.Action]:
    """The options of subcommand ``name`` that take a value (positional FILE included)."""
    return [action for action in subcommands()[name]._actions
            if action.nargs != 0 and action.dest != "help"]


def label(action: argparse.Action) -> str:
    return action.option_strings[-1] if action.option_strings else action.metavar or action.dest


@pytest.fixture(scope="module")
def positions_file(tmp_path_factory):
    robot = load_robot("talos")
    path = tmp_path_factory.mktemp("motion") / "motion.npz"
    np.savez(path, positions=np.tile(robot.q_ref, (5, 1)))
    return path


def demo_names() -> list[str]:
    """Every demo (``tsid-py demo NAME``), from the parser's choices."""
    return sorted(next(a for a in subcommands()["demo"]._actions if a.dest == "name").choices)


def valid_command(name: str, positions_file, folder, demo: str = "balance") -> list[str]:
    """A command of subcommand ``name`` (of ``demo`` for ``demo``) that would run (none is run
    here: each sweep case makes one of its values wrong)."""
    if name == "demo":
        return ["demo", demo, "--duration", "0.5"]
    if name == "check-robot":
        return ["check-robot", str(DATA / "biped.xml")]
    if name == "bench":
        return ["bench", "--robot", "go2", "--steps", "10", "--warmup", "1"]
    if name == "replay":
        return ["replay", str(positions_file)]           # read only once the options hold
    return ["inverse-dynamics", str(positions_file), "--robot", "talos", "--dt", "0.002",
            "--out", str(folder / "result.npz"), "--quiet"]


def refused_values(action, folder) -> list[str]:
    """The values ``action``'s domain refuses."""
    if action.choices is not None:
        return ["bogus", ""]
    domain = action.type.domain
    if domain in REFUSED:
        return REFUSED[domain]
    if domain == "folder":
        (folder / "a-file").write_text("")
        return [str(folder / "missing-folder"), str(folder / "a-file")]
    if domain == "robot":
        (folder / "garbage.urdf").write_text("not a robot")
        (folder / "folder.urdf").mkdir(exist_ok=True)
        return [*REFUSED[domain], str(folder / "garbage.urdf"), str(folder / "folder.urdf")]
    if domain.startswith("count"):
        minimum = int(domain.split("≥")[1])
        return [str(minimum - 1), "-1", "1.5", "nan", "inf", "abc"]
    suffix = action.type.suffixes[0] if action.type.suffixes else ".txt"
    (folder / f"folder{suffix}").mkdir(exist_ok=True)
    wrong_suffix = str(folder / "file.wrong-suffix")
    if domain == "input file":
        return [str(folder / f"missing{suffix}"), str(folder / f"folder{suffix}"), wrong_suffix]
    locked = folder / "locked"
    locked.mkdir(exist_ok=True)
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    unwritable = locked if not os.access(locked, os.W_OK) else "/proc/1"        # root writes anywhere but /proc
    return [str(folder / "missing" / f"out{suffix}"), str(folder / f"folder{suffix}"), wrong_suffix,
            f"{unwritable}/out{suffix}"]


def sweep_cases():
    """Every subcommand's options, the demo command's for every demo."""
    for name in subcommands():
        for demo in demo_names() if name == "demo" else [None]:
            for action in value_options(name):
                if (name, label(action)) not in CHECKED_ELSEWHERE:
                    yield pytest.param(name, demo, action.dest, id=f"{name}{' ' + demo if demo else ''}:{label(action)}")


def test_every_option_has_a_checked_domain():
    for name in subcommands():
        assert value_options(name), (f"tsid-py {name} shows no option here: a subcommand with a parser of its own "
                                     "belongs in subcommands() so that the sweep sees its options")
        for action in value_options(name):
            checked = action.choices is not None or hasattr(action.type, "domain")
            assert checked or (name, label(action)) in CHECKED_ELSEWHERE, (
                f"tsid-py {name} {label(action)} takes a value with no domain: give it a tsid_py.cli_arguments "
                "type or choices")


@pytest.mark.parametrize("name, demo, dest", list(sweep_cases()))
def test_a_refused_value_ends_with_exit_2_naming_the_option(name, demo, dest, positions_file, tmp_path, capsys):
    action = next(a for a in value_options(name) if a.dest == dest)
    base = valid_command(name, positions_file, tmp_path, demo)
    for value in refused_values(action, tmp_path):
        if action.option_strings:
            option = action.option_strings[-1]
            argv = base.copy()
            if option in argv:                               # replace the valid command's own value
                argv[argv.index(option) + 1] = value
            else:
                argv += [f"{option}={value}"]
        else:
            argv = [base[0], value, *base[2:]]               # the positional FILE or PATH
        code = cli_main(argv)
        out, err = capsys.readouterr()
        assert code == 2, (argv, code, err)
        assert label(action) in err or f"argument {action.metavar}" in err, (argv, err)
        assert "Traceback" not in err + out, (argv, err)


def test_an_unknown_robot_is_named(capsys, tmp_path):
    """A name that is no built-in robot, a missing file, a folder, a file that is not a robot:
    each names ``--robot`` and what it got."""
    (tmp_path / "folder.urdf").mkdir()
    (tmp_path / "garbage.urdf").write_text("not XML")
    for robot, words in (("no-such-robot", ["no-such-robot"]),
                         (str(tmp_path / "missing.urdf"), ["missing.urdf' does not exist"]),
                         (str(tmp_path / "folder.urdf"), ["folder.urdf' is a folder, not a file"]),
                         (str(tmp_path / "garbage.urdf"), ["garbage.urdf: not a valid XML file"])):
        for demo in ("balance", "walk", "arm"):
            assert cli_main(["demo", demo, "--robot", robot]) == 2
            err = capsys.readouterr().err
            assert "argument --robot: " in err or "--robot:" in err, err
            assert all(word in err for word in words) and "Traceback" not in err, err


@pytest.mark.parametrize("argv, message", [
    (["demo", "balance", "--push-at", "3", "--duration", "2"], "--push-at times the single push: give its "
                                                              "--push-direction"),
    (["demo", "balance", "--push-at", "1.95", "--push-direction", "+x", "--duration", "2"],
     "argument --push-at: a push at 1.95 s lasts 0.1 s: it must end by the run's end (2 s)"),
    (["demo", "balance", "--push-at", "2.95", "--push-direction", "+x"], "(3 s)"),       # the demo's own duration
    (["demo", "balance", "--turn", "-90"], "--turn applies to the walk demo only"),
    (["demo", "walk", "--turn", "-90", "--distance", "1"], "--distance and --turn are exclusive"),
    (["demo", "nosuchdemo"], "argument NAME: invalid choice: 'nosuchdemo'"),
    (["inverse-dynamics"], "the following arguments are required"),
])
def test_usage_errors_between_options_are_named(argv, message, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["demo", "walk", "--distance", "1e6"], "argument --distance: displacement must take fewer than 1000 steps"),
    (["demo", "walk", "--turn", "1e6"], "argument --turn: displacement must take fewer than 1000 steps"),
    (["demo", "trot", "--speed", "100"], "argument --speed/--lateral/--yaw-rate: command VelocityCommand(forward=100.0"),
    (["demo", "trot", "--speed", "3", "--gait", "walk"], "out of reach of the legs with the walk gait"),
])
def test_a_command_the_robot_cannot_carry_out_ends_before_the_run(argv, message, capsys, monkeypatch):
    """Values in their option's domain that the robot's gait or legs cannot carry out (a walk
    of a million metres, a trot at 100 m/s): exit 2 naming the option, before a single step of
    the simulation."""
    from tsid_py.sim.simulation import Simulation

    monkeypatch.setattr(Simulation, "step", lambda *a, **k: pytest.fail("the run started"))
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
