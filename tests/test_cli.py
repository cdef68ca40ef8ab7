"""``tsid-py demo``: help that describes each demo, one-line usage errors, honest summaries."""

import inspect
import json

import pytest

from tsid_py.cli import main as cli_main
from tsid_py.scenarios import demos


def test_demo_help_describes_every_demo_and_its_robots(capsys):
    assert cli_main(["demo", "--help"]) == 0
    text = capsys.readouterr().out
    for name, function in demos.DEMOS.items():
        summary = function.__doc__.strip().splitlines()[0]
        assert f"{name:12s} {summary}" in text
        default = inspect.signature(function).parameters["robot"].default
        others = [robot for robot in demos.ROBOTS[name] if robot != default]
        assert f"robots: {', '.join([default + ' (default)', *others])}" in text
    assert "--video FILE" in text


@pytest.mark.parametrize("argv, words", [
    (["demo", "arm", "--robot", "talos"], ["arm", "panda", "ur5", "'talos'"]),
    (["demo", "balance", "--robot", "go2"], ["balance", "talos", "'go2'"]),
    (["demo", "quadruped", "--robot", "panda"], ["quadruped", "go2", "solo12"]),
    (["demo", "balance", "--robot", "nao"], ["'nao'"]),
    (["demo", "arm", "--push", "10"], ["--push", "balance"]),
])
def test_an_unsupported_robot_or_option_is_a_one_line_error_with_status_2(argv, words, capsys):
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("tsid-py demo: error: ")
    for word in words:
        assert word in captured.err


def test_the_demo_functions_name_the_robots_they_run():
    with pytest.raises(demos.UnsupportedRobot, match="panda, ur5"):
        demos.arm(robot="go2")


def test_a_short_balance_run_reports_no_push_that_did_not_happen(tmp_path):
    out = tmp_path / "summary.json"
    assert cli_main(["demo", "balance", "--duration", "0.2", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["pushes"] == [] and summary["simulated_time"] == pytest.approx(0.2)
    assert summary["fell"] is False and "fell_at" not in summary and "controller_failure" not in summary


def test_pushes_in_the_summary_are_the_ones_applied():
    run = demos.balance(duration=0.4, push=50.0, push_times=(0.1, 0.3))
    assert [(push["at"], push["direction"], push["newtons"]) for push in run.summary["pushes"]] == [
        (0.1, "+y", 50.0), (0.3, "+x", 50.0)]
    assert [push["force"] for push in run.info["pushes"]] == [[0.0, 50.0, 0.0], [50.0, 0.0, 0.0]]
