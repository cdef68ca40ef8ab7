"""Walking in MuJoCo: short walks checked against the plan and the simulator."""

import dataclasses
import json
import math
import re

import numpy as np
import pytest

import tsid_py as tp
from tests.conftest import load_robot
from tests.test_examples import run_example
from tsid_py.cli import main as cli_main
from tsid_py.control.walking import Footstep, WalkingController, default_gait, plan_footsteps
from tsid_py.scenarios.walk import SETTLE, run_walk


@pytest.mark.parametrize("robot_name", ["talos", "g1"])
def test_two_steps_land_where_the_plan_puts_them(robot_name):
    """A walk of one step length: a swing and the closing step. MuJoCo's footholds (the sole
    after its landing ramp) within 2 cm of the planned footsteps, no fall."""
    robot = load_robot(robot_name)
    gait = default_gait(robot)
    summary, log, info = run_walk(robot, distance=gait.step_length)
    assert not summary["fell"], summary
    assert summary["steps"] == summary["planned_steps"] == 2
    planned = {index: step for index, step in enumerate(info["footsteps"])}
    assert len(info["footholds"]) == 2
    for index, (foot, x, y) in enumerate(info["footholds"]):
        planned_foot, px, py, _ = planned[index]
        assert foot == planned_foot
        assert math.hypot(x - px, y - py) < 0.02
    # the feet's midpoint moved one step length forward (the simulator's soles)
    assert summary["distance_m"] == pytest.approx(gait.step_length, abs=0.02)
    # each foot was in the air once, by about the gait's step height
    heights = log["foot_heights"]
    assert np.all(heights.max(axis=0) == pytest.approx(gait.step_height, abs=0.01))


def test_a_turn_plan_ends_at_the_angle_and_the_feet_never_cross():
    left, right = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
    steps = plan_footsteps(left, right, [0.0, 0.0, math.radians(90.0)], default_gait(load_robot("talos")))
    assert steps[-1].yaw == pytest.approx(math.radians(90.0)) and steps[-2].yaw == pytest.approx(math.radians(90.0))
    where = {"left": left, "right": right}
    for step in steps:
        where[step.foot] = step
        heading = 0.5 * (where["left"].yaw + where["right"].yaw)
        across = np.array([-math.sin(heading), math.cos(heading)])
        assert across @ (where["left"].xy - where["right"].xy) > 0.1          # left stays on the left


def test_the_walk_demo_writes_its_summary_and_plot(tmp_path, capsys):
    summary_file, plot_file = tmp_path / "walk.json", tmp_path / "walk.png"
    assert cli_main(["demo", "walk", "--distance", "0.25", "--json", str(summary_file), "--plot", str(plot_file)]) == 0
    summary = json.loads(summary_file.read_text())
    for key in ("fell", "distance_m", "walking_time_s", "steps", "yaw_change_deg", "recovery_steps", "median_step_us"):
        assert key in summary
    assert summary["fell"] is False and summary["steps"] == 2 and summary["recovery_steps"] == 0
    assert summary["distance_m"] == pytest.approx(0.25, abs=0.02)
    assert plot_file.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot_file.stat().st_size > 10_000


@pytest.mark.parametrize("argv, message", [
    (["demo", "walk", "--distance", "1", "--turn", "90"], "--distance and --turn are exclusive"),
    (["demo", "balance", "--turn", "90"], "--turn applies to the walk demo only"),
    (["demo", "walk", "--distance", "-1"], "argument --distance: must be a positive number of metres, got '-1'"),
    (["demo", "walk", "--robot", "go2"], "--robot: the walk demo runs g1, talos or a robot file's path, not 'go2'"),
])
def test_walk_demo_usage_errors_name_the_option(argv, message, capsys):
    assert cli_main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_walk_example_walks_a_metre(capsys):
    out = run_example("walk.py", capsys)
    forward, sideways = (float(v) for v in re.search(r"walked (\S+) m forward, (\S+) m sideways", out).groups())
    assert forward == pytest.approx(1.0, abs=0.03) and abs(sideways) < 0.03
    assert float(re.search(r"base height (\S+) m", out).group(1)) > 0.9


def test_a_walk_follows_its_planned_capture_point_out_of_the_stance_sole(talos):
    """Walking, the reference capture point is not clamped into the support (during a swing
    the plan takes it toward the next foothold); standing again, the balance margin is back."""

    controller = WalkingController(talos)
    standing = controller.com.reference_margin
    assert standing == pytest.approx(0.01)
    controller.walk_distance(0.2)
    assert controller.com.reference_margin is None
    with pytest.raises(ValueError, match="reference_margin"):
        controller.com.reference_margin = -0.01


def test_simple_humanoid_takes_its_first_steps_vaulting_in_mujoco():
    """Simple Humanoid's walk with its derived (vaulting) gait in MuJoCo: three steps and the
    closing one without falling (with a level walk it fell in its first swing, 2.3 s in)."""
    from tsid_py.robots import data_root

    simple_humanoid = tp.robots.load(data_root() / "simple_humanoid_description/urdf/simple_humanoid.urdf")
    assert simple_humanoid.profile.gait.com_rise > 0                # a vaulting walk (tests/test_vaulting_walk.py)
    summary, _, _ = run_walk(simple_humanoid, distance=3 * simple_humanoid.profile.gait.step_length)
    assert not summary["fell"] and summary["steps"] == summary["planned_steps"] == 4
    assert summary["distance_m"] > 2.5 * simple_humanoid.profile.gait.step_length


def test_g1_pushed_toward_its_stance_foot_at_a_lift_off_lands_early_and_steps_out_in_mujoco():
    """G1 walking, pushed 60 N (0.3 × its standing bound) toward the stance foot for 0.1 s at
    its 3rd lift-off: a single landing cannot catch the capture point (the swing foot would
    cross), and without the sequence G1 falls 1.3 s later (``step_sequence=False``, as before
    it). With it the swing lands early beside the stance foot, the stance foot steps out at
    once, and G1 is up 1.5 s after the push (and to the end of the walk: docs/walking.md)."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 2 * gait.step_period
    push = [(at, np.array([0.0, -60.0, 0.0]), 0.1)]
    without, _, _ = run_walk(robot, distance=3.0, duration=at + 1.5, pushes=push,
                             controller_options={"step_sequence": False})
    assert without["fell"]
    summary, _, info = run_walk(robot, distance=3.0, duration=at + 1.5, pushes=push)
    assert not summary["fell"] and summary["two_step_captures"] == 1
    right = [y for foot, _, y in info["footholds"] if foot == "right_sole"]
    assert min(right) < -0.3                 # the stance foot stepped out, 0.2 m past its track


def test_g1_pushed_half_its_bound_toward_its_stance_foot_at_a_lift_off_is_caught_in_two_steps_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward the stance foot for 0.1 s at
    its 5th lift-off (issue 28's walk push; the pendulum's two-step bound there is 111 N with
    the model's timing, docs/walking.md): with the two-step timed as before (both swings
    ``0.8 / ω``, the first landing at step adjustment's narrowest stance, the second 1 cm past
    the capture point) G1 falls within 1.2 s; with the model's timing it stands."""
    from tsid_py.control.walking.sequence import StepSequence

    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4 * gait.step_period
    push, duration = [(at, np.array([0.0, -100.0, 0.0]), 0.1)], at + 1.2
    walker = WalkingController(robot)
    quick = 0.8 / walker.com.omega
    before = StepSequence(double=gait.transition, single=quick, min_time=quick, sole_size=walker._contact_sole())
    fell, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                          controller_options={"step_sequence": before})
    assert fell["fell"]
    summary, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"] and summary["two_step_captures"] >= 1


def test_g1_caught_in_two_steps_resumes_its_walk_with_a_swing_its_sole_bears_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward the landing foot for 0.1 s at
    its 5th touch-down: a two-step capture leaves it on a stance 0.49 m wide, and the walk
    resumes by carrying the inner foot 0.3 m across. Planned for the gait's 0.6 s (and brought
    down after 0.3 s by step adjustment), that leg's reaction drives the capture point out
    past the stance sole, and a second two-step capture follows within 0.9 s (docs/walking.md,
    "The step that resumes the walk"); planned as long as its reaction needs
    (``StepSequence.resumption``, 0.88 s), the one capture holds."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4 * gait.step_period + 0.8 * gait.step_period
    push, duration = [(at, np.array([0.0, 100.0, 0.0]), 0.1)], at + 1.0
    walker = WalkingController(robot)
    assert walker.sequence.reaction > 0.0
    as_planned = dataclasses.replace(walker.sequence, reaction=0.0)
    before, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                            controller_options={"step_sequence": as_planned})
    assert before["two_step_captures"] == 2
    summary, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"] and summary["two_step_captures"] == 1


def test_g1_pushed_toward_its_lifting_foot_steps_out_no_wider_than_it_walks_on_from_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward its right foot for 0.1 s
    late in the double support before that foot lifts (0.95 of the 5th step period): aimed at
    the nominal DCM offset without a width (``nominal_width`` None, as before) the landing goes
    to the legs' reach, a 0.48 m stance, and a sole slides within 0.6 s; held to the stance the
    legs lift a foot off from (the default, 0.434 m) G1 is up 1 s after the push (and to the end
    of the walk: docs/walking.md, "How wide the nominal aim lands")."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4 * gait.step_period + 0.95 * gait.step_period
    push, duration = [(at, np.array([0.0, -100.0, 0.0]), 0.1)], at + 1.0
    default = WalkingController(robot, 1e-3).adjustment
    assert default.nominal_width < default.max_width
    unheld = dataclasses.replace(default, nominal_width=None)
    before, _, wide = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                               controller_options={"step_adjustment": unheld})
    assert before["fell"] and "slid" in before["fall_reason"]
    summary, _, held = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"]
    for info, widest in ((wide, default.max_width), (held, default.nominal_width)):
        left = max(y for foot, _, y in info["footholds"] if foot == "left_sole")
        right = min(y for foot, _, y in info["footholds"] if foot == "right_sole")
        assert left - right == pytest.approx(widest, abs=0.01)


def test_g1_lifts_a_foot_early_when_its_leg_runs_out_of_range_in_a_wide_stance_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward its right foot for 0.1 s at
    0.9 of the 5th step period: the right foot lands wide and ahead, and in the double support
    that follows the left leg, its sole held flat, stretches as the CoM moves onto the right
    sole. Lifted on the plan's clock (``range_horizon`` None) its ankle roll passes its stop
    before the unloading, the QP drops that sole's force in one period and the right sole
    slides within the second after the push (0.6–0.8 s after it, by the kernels' last bits);
    with the lift-off brought forward as the leg reaches its range (the default) G1 is up 1 s
    after the push (and to the end of the walk: docs/walking.md, "A leg at its range")."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4 * gait.step_period + 0.9 * gait.step_period
    push, duration = [(at, np.array([0.0, -100.0, 0.0]), 0.1)], at + 1.0
    timing = WalkingController(robot, 1e-3).lift_off_timing
    assert timing.range_horizon == pytest.approx(0.5 * gait.transition)
    clocked = dataclasses.replace(timing, range_horizon=None)
    before, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                            controller_options={"lift_off_timing": clocked})
    assert before["fell"] and "slid" in before["fall_reason"] and before["fell_at"] < at + 1.0
    summary, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"] and summary["advanced_lift_offs"] >= 1


def test_g1_pushed_toward_its_swing_foot_late_in_the_swing_steps_out_to_its_nominal_offset_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward the swing foot for 0.1 s at
    62.5 % of its 3rd swing: with step adjustment's old fixed window (``until`` 60 % of the
    swing, no acceleration bound) the landing is no longer moved and G1 falls 0.5 s after the
    push; re-aimed while the swing's peak acceleration allows (the default), the landing
    steps out to the plan's nominal DCM offset and G1 is up 1 s after the push (and to the end
    of the walk at the 5th swing: docs/walking.md)."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 2 * gait.step_period + 0.625 * gait.single_support
    push = [(at, np.array([0.0, 100.0, 0.0]), 0.1)]
    default = WalkingController(robot, 1e-3).adjustment
    assert default.until == 1.0 and default.max_acceleration > 0
    windowed = dataclasses.replace(default, until=0.6, max_acceleration=None)
    without, _, _ = run_walk(robot, distance=3.0, duration=at + 1.0, pushes=push,
                             controller_options={"step_adjustment": windowed})
    assert without["fell"]
    summary, _, info = run_walk(robot, distance=3.0, duration=at + 1.0, pushes=push)
    assert not summary["fell"] and summary["step_adjustments"] >= 1
    left = [y for foot, _, y in info["footholds"] if foot == "left_sole"]
    assert max(left) > gait.step_width / 2 + 0.03              # the swing foot stepped out


def test_icub_pushed_toward_the_foot_about_to_lift_waits_for_the_capture_point_in_mujoco():
    """iCub walking, pushed 70 N toward its stance foot for 0.1 s at mid-swing (the 5th swing;
    issue 28's walk push at 0.4 of its standing bound): the stance sole holds the capture
    point, and the plan lifts that foot next with the capture point still on it. On the
    plan's clock iCub falls within 0.9 s; with the lift-off re-timed it waits in the double
    support until the other sole can hold the capture point and is up 1.5 s after the push
    (and to the end of the 3 m walk: docs/walking.md)."""
    from tsid_py.robots import data_root

    robot = tp.robots.load(data_root() / "icub_description/robots/icub.urdf")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4.5 * gait.step_period
    push, duration = [(at, np.array([0.0, -70.0, 0.0]), 0.1)], at + 1.5
    on_the_clock, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                                  controller_options={"lift_off_timing": False})
    assert on_the_clock["fell"] and on_the_clock["delayed_lift_offs"] == 0
    summary, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                             controller_options={"lift_off_timing": True})
    assert not summary["fell"] and summary["delayed_lift_offs"] >= 1


def test_g1_pushed_toward_its_swing_foot_just_before_it_lands_lands_later_and_farther_out_in_mujoco():
    """G1 walking, pushed 100 N (0.5 × its standing bound) toward the swing foot for 0.1 s at
    75 % of its 5th swing (0.15 s before the touch-down): by the time the push has moved the
    capture point past the landing sole, the foot is coming down with too little time left to
    reach a landing that catches it. Without landing later (``latest`` 0) it lands as planned
    and G1 falls within 1.2 s; allowed a quick swing's time more (the default), the
    touch-down is delayed once, the foot lands farther out and G1 is up 1.2 s after the push
    (and to the end of the walk: docs/walking.md, "Landing later")."""
    robot = tp.robots.load("g1")
    gait = robot.profile.gait
    at = SETTLE + gait.start_time + 4 * gait.step_period + 0.75 * gait.single_support
    push, duration = [(at, np.array([0.0, 100.0, 0.0]), 0.1)], at + 1.2
    default = WalkingController(robot, 1e-3).adjustment
    assert default.latest > 0
    on_time = dataclasses.replace(default, latest=0.0)
    before, _, _ = run_walk(robot, distance=3.0, duration=duration, pushes=push,
                            controller_options={"step_adjustment": on_time})
    assert before["fell"] and before["delayed_touch_downs"] == 0
    summary, _, info = run_walk(robot, distance=3.0, duration=duration, pushes=push)
    assert not summary["fell"] and summary["delayed_touch_downs"] == 1
    left = [y for foot, _, y in info["footholds"] if foot == "left_sole"]
    assert max(left) > gait.step_width / 2 + 0.1               # stepped out 10 cm and more
