"""Step recovery: the decision against the LIPM's closed form, and the step in MuJoCo."""

import math

import numpy as np
import pytest

from tsid_py.cli import main as cli_main
from tsid_py.control.capture_point import SupportPolygon
from tsid_py.control.walking import Footstep, StepRecovery, WalkingController
from tsid_py.control.wrench_regularization import DEFAULT_WEIGHTS as WRENCH_WEIGHTS
from tsid_py.scenarios.push_recovery import push_trial

OMEGA = math.sqrt(9.81 / 0.87)
LEFT, RIGHT = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
SOLE = (0.18, 0.11)


def recovery(**options) -> StepRecovery:
    return StepRecovery(SOLE, **options)


def sole_hull(*steps) -> SupportPolygon:
    length, width = SOLE
    corners = [(s.x + dx * length / 2, s.y + dy * width / 2) for s in steps for dx in (1, -1) for dy in (1, -1)]
    return SupportPolygon(np.array(corners))


def test_the_step_is_needed_once_the_capture_point_leaves_the_support():
    support = sole_hull(LEFT, RIGHT)
    rule = recovery(trigger_margin=0.01)
    assert not rule.needed([0.05, 0.0], support)
    assert not rule.needed([SOLE[0] / 2 + 0.005, 0.0], support)          # outside by less than the margin
    assert rule.needed([SOLE[0] / 2 + 0.02, 0.0], support)
    assert support.outside_xy(SOLE[0] / 2 + 0.02, 0.0) == pytest.approx(0.02)
    assert support.outside_xy(0.0, 0.0) == pytest.approx(-SOLE[0] / 2)


def test_the_landing_point_follows_the_pendulum_closed_form():
    """ξ_L = p_s + (ξ − p_s) e^{ωT} with p_s the stance sole's point nearest ξ (shrunk by
    the stance margin); the foot lands ``overshoot`` past it, away from p_s."""
    rule = recovery(stance_margin=0.02, overshoot=0.03, forward=1.0)
    dcm = np.array([0.16, 0.02])
    step = rule.landing(dcm, RIGHT, LEFT, OMEGA, rule.duration)
    pivot = np.array([SOLE[0] / 2 - 0.02, RIGHT.y + SOLE[1] / 2 - 0.02])     # the shrunk sole's front-left corner
    predicted = pivot + (dcm - pivot) * math.exp(OMEGA * rule.duration)
    np.testing.assert_allclose(step.predicted_dcm, predicted, atol=1e-12)
    away = (predicted - pivot) / np.linalg.norm(predicted - pivot)
    np.testing.assert_allclose(step.footstep.xy, predicted + 0.03 * away, atol=1e-12)
    assert step.footstep.foot == "left" and step.stance == "right"
    assert sole_hull(RIGHT, step.footstep).contains(predicted) and step.depth > 0


def test_a_sideways_push_is_taken_by_the_foot_on_that_side_and_the_feet_never_cross():
    rule = recovery(max_width=0.5)
    to_the_left = rule.choose([0.0, 0.2], {"left": LEFT, "right": RIGHT}, OMEGA)
    assert to_the_left.footstep.foot == "left"
    assert RIGHT.y + rule.min_width <= to_the_left.footstep.y <= RIGHT.y + rule.max_width + 1e-12
    to_the_right = rule.choose([0.0, -0.2], {"left": LEFT, "right": RIGHT}, OMEGA)
    assert to_the_right.footstep.foot == "right" and to_the_right.footstep.y < LEFT.y - rule.min_width
    # beyond the reach the landing is clamped to it (and its depth says it falls short)
    far = rule.landing([0.0, 0.6], RIGHT, LEFT, OMEGA, rule.duration)
    assert far.footstep.y == pytest.approx(RIGHT.y + rule.max_width) and far.depth < 0


def test_a_forward_step_stays_within_reach():
    rule = recovery(forward=0.3)
    step = rule.choose([0.4, 0.0], {"left": LEFT, "right": RIGHT}, OMEGA)
    stance = LEFT if step.stance == "left" else RIGHT
    assert step.footstep.x - stance.x == pytest.approx(0.3)
    assert abs(step.footstep.y - stance.y) >= rule.min_width - 1e-12


@pytest.mark.parametrize("bad", [dict(swing_time=0.0), dict(min_width=0.5, max_width=0.4), dict(retarget_until=2.0),
                                 dict(stance_margin=-0.01)])
def test_bad_options_are_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        recovery(**bad)


def test_a_walking_controller_rejects_a_step_recovery_of_the_wrong_kind(talos):
    with pytest.raises(ValueError, match="step_recovery"):
        WalkingController(talos, step_recovery="yes")


def test_talos_steps_out_of_a_push_it_cannot_stand_in_mujoco(talos):
    """380 N for 0.1 s forward (above the CoP-at-edge bound, 310 N): standing, Talos falls;
    with step recovery it takes one step and brings the other foot beside it (two steps),
    comes to rest, and no sole in contact slides or tips past the fall limits."""
    standing = push_trial(talos, 380.0, "+x")
    assert standing["fell"] and standing["recovery_steps"] == 0
    stepping = push_trial(talos, 380.0, "+x", step_recovery=True, duration=2.0)
    assert stepping["survived"], stepping
    assert stepping["recovery_steps"] == 2


@pytest.mark.parametrize("direction", ["+y", "-y"])
def test_talos_steps_out_of_a_600_newton_sideways_push(talos, direction):
    """600 N for 0.1 s sideways (the no-step CoP-at-edge bounds are 489 and 498 N): standing,
    Talos falls; with step recovery the loaded foot steps out and the other closes in, and
    the stance sole holds through the wide, fast swing (no slide or tip past the limits)."""
    standing = push_trial(talos, 600.0, direction)
    assert standing["fell"]
    torsion = {}                     # recovering -> the soles' torsion weights seen

    def watch(t, controller, sim):
        weight = controller.weight_in_force(controller.balance.wrench_regularization)[5]
        torsion.setdefault(controller.recovering, set()).add(weight)

    stepping = push_trial(talos, 600.0, direction, step_recovery=True, duration=2.0, on_step=watch)
    assert stepping["survived"], stepping
    assert stepping["recovery_steps"] >= 2
    # the upper body takes the swing's yaw reaction only while recovering
    assert torsion == {False: {WRENCH_WEIGHTS[5]}, True: {recovery().torsion_weight}}


def test_a_push_the_soles_absorb_takes_no_step(talos):
    summary = push_trial(talos, 150.0, "+x", step_recovery=True, duration=1.5, settle_timeout=1.5)
    assert summary["survived"] and summary["recovery_steps"] == 0


def test_the_cli_refuses_step_recovery_where_it_does_not_apply(capsys):
    assert cli_main(["demo", "balance", "--step-recovery", "--single-leg"]) == 2
    assert "--step-recovery" in capsys.readouterr().err
    assert cli_main(["demo", "com-sway", "--step-recovery"]) == 2
    assert "--step-recovery applies to the balance demo only" in capsys.readouterr().err


def test_the_closing_step_puts_the_trailing_foot_beside_the_landed_one_at_the_standing_width():
    rule = recovery(min_width=0.17)
    landed = Footstep("left", 0.3, 0.4, math.radians(30.0))
    closing = rule.closing_step(landed, Footstep("right", 0.0, -0.085, 0.0))
    across = np.array([-math.sin(landed.yaw), math.cos(landed.yaw)])
    np.testing.assert_allclose(closing.xy, landed.xy - 0.17 * across, atol=1e-12)
    assert closing.foot == "right" and closing.yaw == landed.yaw

