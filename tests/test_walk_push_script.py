"""benchmarks/walk_push.py's command line: the directions as one comma-separated argument
(``--directions=+y,-y``: argparse takes a bare ``-y`` for an option), several ratios, and
usage errors that name the argument (exit 2)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "walk_push.py"


@pytest.fixture(scope="module")
def walk_push():
    spec = importlib.util.spec_from_file_location("walk_push", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_directions_and_ratios_parse(walk_push, monkeypatch):
    seen = {}

    class NoPool:                                     # record the jobs instead of walking
        def __init__(self, max_workers):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def map(self, function, jobs):
            seen["jobs"] = list(jobs)
            return [{"robot": robot, "direction": direction, "force_N": force, "push_at_s": 4.0, "fell": False,
                     "fall_reason": None, "step_adjustments": 0, "early_touch_downs": 0, "two_step_captures": 0}
                    for robot, direction, force, *_ in seen["jobs"]]

    monkeypatch.setattr(walk_push, "ProcessPoolExecutor", NoPool)
    report = walk_push.main(["--robot", "g1", "--directions=+y,-y", "--ratio", "0.3", "0.5", "--phases", "2"])
    forces = sorted({(job[1], job[2]) for job in seen["jobs"]})
    assert forces == [("+y", 60.0), ("+y", 100.0), ("-y", 60.0), ("-y", 100.0)]
    assert len(seen["jobs"]) == 8                                  # 2 directions × 2 ratios × 2 phases
    assert [(row["direction"], row["force_N"], row["survived"]) for row in report["rows"]] == [
        ("+y", 60.0, "2/2"), ("+y", 100.0, "2/2"), ("-y", 60.0, "2/2"), ("-y", 100.0, "2/2")]
    assert all("coupled_torsion" not in job[4] for job in seen["jobs"])          # the controller's default
    report = walk_push.main(["--robot", "g1", "--directions=+x", "--phases", "1", "--coupled-torsion"])
    assert [job[4]["coupled_torsion"] for job in seen["jobs"]] == [True]         # passed to the controller
    assert report["coupled_torsion"] is True


@pytest.mark.parametrize("argv, named", [(["--directions=+y,-z"], "--directions"), (["--ratio", "-1"], "--ratio"),
                                         (["--robot", "icub"], "--robot")])
def test_bad_arguments_exit_2_naming_them(walk_push, argv, named, capsys):
    with pytest.raises(SystemExit) as exit_:
        walk_push.main(argv)
    assert exit_.value.code == 2
    assert named in capsys.readouterr().err
