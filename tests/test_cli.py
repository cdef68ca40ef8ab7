"""``tsid-py demo``: help that describes each demo, one-line usage errors, honest summaries."""

import inspect
import json
import re

import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.control import push_bounds
from tsid_py.scenarios import demos
from tsid_py.scenarios.summary_text import length

from .test_profiles import write_robot


def test_demo_help_describes_every_demo_and_its_robots(capsys):
    assert cli_main(["demo", "--help"]) == 0
    text = capsys.readouterr().out
    for name, function in demos.DEMOS.items():
        summary = function.__doc__.strip().splitlines()[0]
        assert f"{name:12s} {summary}" in text
        default = inspect.signature(function).parameters["robot"].default
        others = [robot for robot in demos.ROBOTS[name] if robot != default]
        assert f"robots: {', '.join([default + ' (default)', *others])}" in text
    assert "--video FILE" in text and "``" not in text


@pytest.mark.parametrize("argv, words", [
    (["demo", "arm", "--robot", "talos"], ["arm", "panda", "ur5", "'talos'"]),
    (["demo", "balance", "--robot", "panda"], ["balance", "talos", "go2", "'panda'"]),
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


def test_a_robot_file_that_does_not_fit_a_demo_is_a_usage_error_naming_what_it_needs(tmp_path, capsys):
    """A two-legged robot on point feet (a point-footed biped) fits neither the balance nor
    the walk demo; a quadruped is no arm; ``--srdf`` needs a file; a missing file is named."""
    biped = write_robot(tmp_path, 2, '<sphere radius="0.02"/>')
    srdf = tmp_path / "postures.srdf"
    srdf.write_text("<robot name='biped'/>")
    srdf = str(srdf)
    cases = [(["demo", "balance", "--robot", biped], ["balance", "humanoid", "point feet", biped, "2 point feet"]),
             (["demo", "walk", "--robot", biped], ["walk", "two feet with soles", "2 point feet"]),
             (["demo", "balance", "--robot", "talos", "--srdf", srdf], ["--srdf", "--robot PATH"]),
             (["demo", "arm", "--robot", str(tmp_path / "none.urdf")], ["none.urdf", "does not exist"])]
    quadruped = tmp_path / "four"
    quadruped.mkdir()
    cases.append((["demo", "arm", "--robot", write_robot(quadruped, 4, '<sphere radius="0.02"/>')],
                  ["arm", "fixed-base", "4 point feet"]))
    for argv, words in cases:
        assert cli_main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1, captured.err
        for word in words:
            assert word in captured.err


def test_balance_on_a_robot_file_reports_its_push_bounds_and_its_point_feet_slip(tmp_path):
    """A quadruped read from its URDF stands on its four point feet: the summary names the
    file, its push bounds are the capture-point bounds of the loaded robot for a 0.1 s push,
    and its feet are judged by their contact points (no sole tilt)."""
    path = write_robot(tmp_path, 4, '<sphere radius="0.02"/>')
    out = tmp_path / "summary.json"
    assert cli_main(["demo", "balance", "--robot", path, "--duration", "0.3", "--push", "0", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["robot"] == path and summary["fell"] is False
    bounds = push_bounds(tp.robots.load(path), 0.1)
    assert summary["push_bounds"] == pytest.approx({direction: bound.cop_at_edge for direction, bound in bounds.items()})
    assert summary["max_sole_tilt_deg"] == 0.0 and 0.0 < summary["max_sole_slip_m"] < 0.005


def test_a_humanoid_file_walks_with_the_gait_of_its_profile(tmp_path):
    """The walk demo on a biped read from its URDF plans with the gait derived from it: a
    0.3 m walk in ``ceil(0.3 / step_length)`` steps and the closing one (0.4 s simulated:
    the plan, not the walk)."""
    import math

    from .test_profiles import BENT, srdf_of

    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>', srdf=srdf_of(BENT))
    run = demos.walk(path, distance=0.3, duration=0.4)
    gait = tp.robots.load(path).profile.gait
    assert run.robot == path and run.summary["fell"] is False
    assert run.summary["planned_steps"] == math.ceil(0.3 / gait.step_length) + 1


def test_the_balance_demo_prints_a_short_summary_for_a_person_and_the_json_to_its_file(tmp_path, capsys):
    """The printed summary is a few rounded lines (no JSON, no 17-digit floats) that agree
    with the JSON written by ``--json``, which keeps every measure at full precision."""
    out = tmp_path / "summary.json"
    assert cli_main(["demo", "balance", "--duration", "0.6", "--push-direction", "+y", "--push-at", "0.2",
                     "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads(out.read_text())
    with pytest.raises(json.JSONDecodeError):
        json.loads(printed)
    lines = printed.strip().splitlines()
    assert lines[0] == "tsid-py demo balance (talos)" and len(lines) <= 12
    assert not re.search(r"\d\.\d{4,}", printed)
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in lines[1:])
    assert rows["pushes"] == f"+y {summary['push_newtons']:.0f} N at 0.2 s (0.1 s each)"
    assert rows["largest CoM error"] == length(summary["max_com_error"])
    assert rows["outcome"].startswith("did not fall") and summary["fell"] is False
    assert rows["control step"].startswith(f"median {summary['median_step_us']:.0f} µs")


@pytest.mark.parametrize("metres, text", [(0.00214, "2.1 mm"), (0.0116, "1.2 cm"), (-0.5, "-50.0 cm"),
                                          (2.537, "2.54 m")])
def test_lengths_are_printed_in_the_unit_that_reads_best(metres, text):
    assert length(metres) == text


@pytest.mark.parametrize("name, present, absent", [
    ("balance", ["--push-direction", "--step-recovery", "--realistic", "--srdf"], ["--speed", "--gait", "--terrain"]),
    ("walk", ["--distance", "--terrain", "--realistic"], ["--push", "--speed", "--single-leg"]),
    ("trot", ["--speed", "--gait", "--terrain", "--push", "--realistic"], ["--single-leg", "--step-recovery"]),
    ("arm", ["--robot", "--video", "--duration"], ["--push", "--terrain", "--realistic", "--seed"]),
])
def test_a_demo_s_help_describes_it_with_the_options_it_takes(name, present, absent, capsys):
    """``tsid-py demo NAME --help``: the demo's summary, its robots, its options (not the
    other demos' ones), no reStructuredText."""
    assert cli_main(["demo", name, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: tsid-py demo {name} [options]")
    assert demos.DEMOS[name].__doc__.strip().splitlines()[0].replace("``", "")[:40] in text
    assert "robots: " in text and "``" not in text and ":func:" not in text
    for option in present:
        assert f"  {option}" in text, option
    for option in absent:
        assert f"  {option}" not in text, option


def test_every_measure_a_demo_prints_fits_a_terminal():
    """Every row of the printed summary, each at its widest, within 80 columns."""
    from tsid_py.scenarios.summary_text import ROWS, format_summary

    pushes = [{"at": 3.0, "direction": "+y", "newtons": 444.4}, {"at": 6.0, "direction": "-x", "newtons": 444.4}]
    summary = {"demo": "balance", "robot": "talos", "fell": False, "survived": True, "recovered_cleanly": True,
               "pushes": pushes, "push_duration": 0.1, "command": {"forward": 0.55, "lateral": -0.25,
                                                                    "yaw_rate": 0.35, "gait": "bound"},
               "terrain": "rough:0.02:3", "amplitude": 0.04, "frequency": 0.5, "distance_m": 12.345,
               "speed_mps": 0.5, "walking_time_s": 12.3, "steps": 130, "planned_steps": 130, "touchdowns": 600,
               "yaw_change_deg": -179.9, "single_support_seconds": 3.5, "lift_height": 0.05,
               "max_com_error": 0.0999, "rms_tracking_error": 0.0999, "max_tracking_error": 0.0999,
               "max_foothold_error_m": 0.0999, "max_sole_tilt_deg": 14.9, "max_sole_slip_m": 0.0499,
               "max_foot_slip_m": 0.0999, "recovery_steps": 12, "step_recovery": True, "failure_policy_step_count": 9999,
               "frames": 30001, "id_solve_seconds": 12.34, "id_relaxed_frames": 999,
               "grf_vertical_rms_error_per_foot_pct_weight": 12.3, "grf_vertical_rms_error_total_pct_weight": 0.0123,
               "torque_rms_error": 12.3, "torque_rms": 123.4, "mpc_rate_hz": 27.9, "mpc_median_solve_us": 1234.5,
               "conditions": {"feedback": "finite differences"},
               "estimator_drift": {"max": {"horizontal_m": 0.0999, "vertical_m": 0.0999, "yaw_deg": 12.34}},
               "median_step_us": 12345.6, "p99_step_us": 123456.7,
               "push_bounds": {"+x": 1310.3, "-x": 1347.7, "+y": 1488.9, "-y": 1498.2}, "simulated_time": 100.0}
    text = format_summary(summary)
    # the title and every row but the outcome (a summary with an arm's tracking error has none)
    assert len(text.splitlines()) == len(ROWS)
    assert max(len(line) for line in text.splitlines()) <= 80, text
