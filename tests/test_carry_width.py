"""The widest stance the legs carry the CoM across (models.reach.carry_width), against the fits."""

import numpy as np
import pytest

from tsid_py import robots
from tsid_py.control.walking import WalkingController, plan_footsteps
from tsid_py.models import reach
from tsid_py.models.reach import CARRY_RESOLUTION, carry_width, over_each_sole, stance, standing_soles


def test_g1_carries_its_com_across_a_stance_up_to_where_its_ankle_rolls_stop_it():
    """At the carry width the fit puts G1's CoM over either sole's centre with both soles flat;
    one resolution step wider it does not, and the fit it stops at has an ankle roll at its
    bound. The walking controller's lift-off re-timing uses that width."""
    robot = robots.load("g1")
    model, posture, feet = robot.model, robot.profile.posture, list(robot.profile.feet)
    controller = WalkingController(robot)
    widest = controller.adjustment.max_width                       # step adjustment's widest stance
    width = carry_width(model, posture, feet, widest, robot.sole_size[1])
    soles = standing_soles(model, posture, feet)
    standing = float(np.linalg.norm((soles[0].translation - soles[1].translation)[:2]))
    assert standing < width < widest
    assert all(fit.reached for fit in over_each_sole(model, posture, feet, stance(soles, width=width)))
    wider = over_each_sole(model, posture, feet, stance(soles, width=width + CARRY_RESOLUTION))
    assert not all(fit.reached for fit in wider)
    assert any("ankle_roll" in name for fit in wider if not fit.reached for name in fit.at_limits)
    assert controller.lift_off_timing.carry_width == width
    assert WalkingController(robot, lift_off_timing=False).lift_off_timing is None


def test_the_kept_width_is_the_models_own():
    """A model of another geometry (G1's joints placed 1.3 times as far apart) is fitted anew,
    not given G1's kept width; a robot with other than two feet is refused."""
    robot = robots.load("g1")
    model, posture, feet = robot.model, robot.profile.posture, list(robot.profile.feet)
    width = carry_width(model, posture, feet, 0.479, robot.sole_size[1])
    scaled = model.copy()
    for index, placement in enumerate(scaled.jointPlacements):
        scaled.jointPlacements[index] = type(placement)(placement.rotation, 1.3 * placement.translation)
    assert carry_width(scaled, posture, feet, 0.479, robot.sole_size[1]) != width
    with pytest.raises(ValueError, match="two contact frames"):
        carry_width(model, posture, feet[:1], 0.479)


def test_the_kept_widths_are_bounded(monkeypatch):
    """The kept widths stay at most ``CARRIED_KEPT``, the oldest dropped first; a width dropped
    is fitted again to the same value."""
    robot = robots.load("g1")
    model, posture, feet = robot.model, robot.profile.posture, list(robot.profile.feet)
    monkeypatch.setattr(reach, "_CARRIED", {})
    monkeypatch.setattr(reach, "CARRIED_KEPT", 1)
    first = carry_width(model, posture, feet, 0.3, robot.sole_size[1])
    carry_width(model, posture, feet, 0.31, robot.sole_size[1])
    assert len(reach._CARRIED) == 1 and next(iter(reach._CARRIED))[1] == 0.31
    assert carry_width(model, posture, feet, 0.3, robot.sole_size[1]) == first


def test_g1s_nominal_aim_lands_no_wider_than_its_legs_lift_a_foot_off_from_as_the_walk_does():
    """Step adjustment's ``nominal_width`` on G1: the widest stance at which the fits hold both
    soles flat with the CoM where G1's own walk plan has it at a lift-off (about a fifth of the
    way from the feet's middle to the stance sole), not two resolution steps wider; narrower
    than the reach, wider than the stance the legs carry the CoM over a sole's centre in.
    ``sway`` is a fraction: anything else is refused."""
    robot = robots.load("g1")
    model, posture, feet = robot.model, robot.profile.posture, list(robot.profile.feet)
    controller = WalkingController(robot)
    left, right = controller.feet().values()
    plan = controller.walk(plan_footsteps(left, right, [1.2, 0.0, 0.0], controller.gait))
    sway = plan.sway_at_lift_off(3)
    assert 0.15 < sway < 0.25
    width = controller.adjustment.nominal_width
    soles = standing_soles(model, posture, feet)
    assert all(fit.reached for fit in over_each_sole(model, posture, feet, stance(soles, width=width), sway))
    wider = over_each_sole(model, posture, feet, stance(soles, width=width + 2 * CARRY_RESOLUTION), sway)
    assert not all(fit.reached for fit in wider)
    carried = carry_width(model, posture, feet, controller.adjustment.max_width, robot.sole_size[1])
    assert carried < width < controller.adjustment.max_width
    with pytest.raises(ValueError, match="sway"):
        carry_width(model, posture, feet, 0.479, robot.sole_size[1], sway=1.5)
