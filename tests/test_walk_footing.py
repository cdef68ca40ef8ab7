"""A walking humanoid's footing on uneven ground, without the simulator: the ankles' tilt range
read off the model (against forward kinematics), footholds kept within a share of it, the
pelvis held upright and turned with the heading, and landings registered on the stance
foot's height in the controller's state."""

import math

import numpy as np
import pinocchio as pin
import pytest

from tests.conftest import load_robot
from tsid_py.control.terrain import Terrain
from tsid_py.control.walking import Footstep, WalkingController
from tsid_py.control.walking.controller import ANKLE_TILT_SHARE
from tsid_py.control.walking.footholds import place_footstep, sole_tilts
from tsid_py.control.walking.plan import LIFT
from tsid_py.models.legs import ankle_tilt_range, leg_geometry
from tsid_py.models.profile import profile_of


@pytest.mark.parametrize("name", ["talos", "g1"])
def test_the_ankles_tilt_range_is_how_far_their_joints_turn_the_sole_before_a_stop(name):
    """Each joint after the knee, moved to its nearer stop with the others held, turns the
    sole (forward kinematics) by an angle whose components about the sole's x and y axes add
    up to the range (each humanoid ankle joint turns about one of them)."""
    robot = load_robot(name)
    model, q = robot.model, profile_of(robot).posture
    for foot in robot.feet:
        leg = leg_geometry(model, q, foot)
        frame = model.getFrameId(foot)
        data = model.createData()
        pin.framesForwardKinematics(model, data, q)
        rest = data.oMf[frame].rotation.copy()
        turned = np.zeros(2)
        for joint in leg.joints[leg.joints.index(leg.knee) + 1:]:
            index = model.joints[joint].idx_q
            low, high = model.lowerPositionLimit[index], model.upperPositionLimit[index]
            moved = q.copy()
            moved[index] = low if q[index] - low < high - q[index] else high
            pin.framesForwardKinematics(model, data, moved)
            turn = pin.log3(rest.T @ data.oMf[frame].rotation)       # in the sole's own axes
            turned += np.abs(turn[:2])
        np.testing.assert_allclose(ankle_tilt_range(model, q, foot), turned, atol=1e-6)
    roll, pitch = ankle_tilt_range(model, q, robot.feet[0])
    assert 0.0 < roll < pitch                       # both humanoids roll their ankles less than they pitch them


@pytest.mark.parametrize("yaw", [0.0, 0.7, -2.0])
def test_a_sole_s_tilts_are_the_rotations_about_its_own_axes_that_give_the_normal(yaw):
    heading = pin.utils.rotate("z", yaw)
    for roll, pitch in [(0.1, 0.0), (0.0, -0.2), (0.15, 0.05)]:
        normal = heading @ pin.utils.rotate("y", pitch) @ pin.utils.rotate("x", roll) @ np.array([0.0, 0.0, 1.0])
        measured = sole_tilts(normal, yaw)
        if roll == 0.0 or pitch == 0.0:
            assert measured == pytest.approx((roll, pitch), abs=1e-12)
        else:                                        # composed rotations: the normal's own projections
            assert measured[0] == pytest.approx(math.atan2(math.sin(roll), math.cos(roll) * math.cos(pitch)))
            assert measured[1] == pytest.approx(pitch)


def test_a_foothold_steeper_than_the_tilt_limits_moves_off_the_ramp():
    """On a 10° ramp a footstep is good as planned (under ``max_tilt``); with tilt limits of
    2° it is moved back, along its heading, to where the sole's tilts are within them (its
    heel on the level ground before the ramp)."""
    terrain = Terrain.slope(10, start=1.0, length=2.0)
    sole = (0.17, 0.05)
    planned = Footstep("left_sole", 1.15, 0.1, 0.0)
    on_ramp = place_footstep(planned, terrain, sole, search=0.3)
    assert (on_ramp.x, on_ramp.y) == (planned.x, planned.y)
    assert sole_tilts(np.array(on_ramp.normal), 0.0)[1] == pytest.approx(-math.radians(10), abs=1e-9)
    limits = (math.radians(2), math.radians(2))
    limited = place_footstep(planned, terrain, sole, search=0.3, tilt_limits=limits)
    assert limited.y == planned.y and limited.x - sole[0] / 2 < 1.0 - 0.02 < planned.x - sole[0] / 2
    roll, pitch = sole_tilts(np.array(limited.normal), 0.0)
    assert abs(roll) <= limits[0] and abs(pitch) <= limits[1]


@pytest.mark.parametrize("name", ["talos", "g1"])
def test_the_walking_controller_limits_footholds_to_a_share_of_its_ankles_range(name):
    robot = load_robot(name)
    controller = WalkingController(robot)
    posture = profile_of(robot).posture
    ranges = np.array([ankle_tilt_range(robot.model, posture, foot) for foot in robot.feet])
    np.testing.assert_allclose(controller.foothold_tilt_limits, ANKLE_TILT_SHARE * ranges.min(axis=0))


@pytest.mark.parametrize("name", ["talos", "g1"])
def test_the_pelvis_is_held_upright_and_turns_with_the_heading_like_the_torso(name):
    robot = load_robot(name)
    controller = WalkingController(robot, lift_off_timing=False)     # stepped open loop: its state never moves
    profile = profile_of(robot)
    assert controller.pelvis.frame == profile.trunk_bodies[0] != controller.balance.torso.frame
    assert any(task is controller.pelvis for task in controller.solver.tasks)
    np.testing.assert_allclose(controller.pelvis.weight, controller.balance.torso.weight)
    controller.turn(0.3)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for _ in range(1500):                                   # past the first swing's start
        controller.step(q, v)
    yaws = [math.atan2(task.target.rotation[1, 0], task.target.rotation[0, 0])
             for task in (controller.pelvis, controller.balance.torso)]
    assert yaws[0] == pytest.approx(yaws[1], abs=1e-9) and abs(yaws[0]) > 0.01
    assert WalkingController(robot, pelvis_weight=0.0).pelvis is None
    with pytest.raises(ValueError, match="pelvis_weight"):
        WalkingController(robot, pelvis_weight=-1.0)


@pytest.mark.parametrize("offset", [0.0, 0.006])
def test_a_swing_lands_registered_on_the_stance_foot_s_height_offset(offset):
    """The state says the robot stands ``offset`` m higher than the plan's ground (an
    estimate's drift): at lift-off the swing's landing is moved up by it."""
    robot = load_robot("talos")
    controller = WalkingController(robot)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    plan = controller.walk_distance(0.5)
    lift, index = next((time, index) for time, kind, _, index in plan.events if kind == LIFT)
    q[2] += offset
    for _ in range(int(round(lift / controller.solver.dt)) + 2):
        controller.step(q, v)
    assert controller.plan_stage.swinging == plan.footsteps[index].foot
    expected = plan.footsteps[index].placement.translation + [0.0, 0.0, offset]
    np.testing.assert_allclose(plan.swings[index].end.translation, expected, atol=1e-9)
    sample = plan.swings[index].sample(plan.swings[index].touch_down)
    np.testing.assert_allclose(sample.placement.translation, expected, atol=1e-9)
