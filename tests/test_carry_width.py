"""The widest stance the legs carry the CoM across (models.reach.carry_width), against the fits."""

import numpy as np
import pytest

from tsid_py import robots
from tsid_py.control.walking import WalkingController
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
