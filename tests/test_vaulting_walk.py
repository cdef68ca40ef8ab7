"""A vaulting walk: a biped whose legs cannot put its CoM over a sole at its standing height
rises in single support (:func:`tsid_py.models.reach.com_rise`), its swing sole free to tilt."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.walking import WalkingController
from tsid_py.control.walking.controller import FREE_TILT_SHARE
from tsid_py.control.walking.footsteps import Footstep, plan_footsteps
from tsid_py.control.walking.height import RiseProfile
from tsid_py.control.walking.plan import WalkPlan
from tsid_py.models.gait import Gait
from tsid_py.models.reach import RISE_EXTENSION
from tsid_py.robots import data_root

SIMPLE_HUMANOID = "simple_humanoid_description/urdf/simple_humanoid.urdf"


@pytest.fixture(scope="module")
def simple_humanoid():
    return tp.robots.load(data_root() / SIMPLE_HUMANOID)


def test_a_robot_that_cannot_reach_over_its_soles_vaults_by_its_straightened_stance_leg(simple_humanoid):
    """Simple Humanoid's ankles only turn its shanks back: its gait rises by ``RISE_EXTENSION
    ℓ_s − h``, the smaller over its legs, ``ℓ_s`` the thigh and shank lengths of the URDF
    (its joints' offsets from hip to ankle, 0.3535 + 0.3 m) and ``h`` the hip joint's height over
    the ankle joint's by pinocchio's forward kinematics; a robot that reaches keeps a level walk."""
    robot = simple_humanoid
    model, q = robot.model, robot.profile.posture
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    rises = []
    for side in ("LLEG", "RLEG"):
        hip, ankle = (model.getJointId(f"{side}_{name}") for name in ("HIP_R", "ANKLE_P"))
        straight = sum(np.linalg.norm(model.jointPlacements[model.getJointId(f"{side}_{name}")].translation)
                       for name in ("HIP_P", "HIP_Y", "KNEE", "ANKLE_P"))    # the thigh's and shank's offsets
        assert straight == pytest.approx(0.6535)
        rises.append(RISE_EXTENSION * straight - (data.oMi[hip].translation[2] - data.oMi[ankle].translation[2]))
    gait = robot.profile.gait
    assert gait.com_rise == pytest.approx(min(rises), abs=1e-9)
    assert 0.02 < gait.com_rise < 0.035 and gait.free_swing_tilt
    level = tp.robots.load(data_root() / "romeo_description/urdf/romeo.urdf").profile.gait
    assert level.com_rise == 0.0 and not level.free_swing_tilt


def test_the_rise_is_a_bump_over_each_single_support_with_its_derivatives():
    """``64 H r³ (1 − r)³``: ``H`` at mid-swing, 0 outside the swings; its rate and
    acceleration are the central differences of its height."""
    rise = RiseProfile([(1.0, 1.8), (2.0, 2.8)], 0.03)
    assert rise.state(1.4)[0] == pytest.approx(0.03) and rise.state(2.4)[0] == pytest.approx(0.03)
    assert rise.state(0.5) == (0.0, 0.0, 0.0) and rise.state(1.9) == (0.0, 0.0, 0.0)
    h = 1e-5
    for t in (1.1, 1.3, 2.65):
        _, dz, ddz = rise.state(t)
        assert dz == pytest.approx((rise.state(t + h)[0] - rise.state(t - h)[0]) / (2 * h), rel=1e-6)
        assert ddz == pytest.approx((rise.state(t + h)[1] - rise.state(t - h)[1]) / (2 * h), rel=1e-5)


def test_the_plan_rises_in_single_support_only_with_a_rise():
    """The plan's CoM height at mid-swing is its start height plus the gait's rise (its rate
    0 there), the start height in double support; without a rise, the start height."""
    feet = {"left": Footstep("left", 0.0, 0.1, 0.0), "right": Footstep("right", 0.0, -0.1, 0.0)}
    omega = np.sqrt(9.81 / 0.8)
    for rise in (0.02, 0.0):
        gait = Gait(step_length=0.1, com_rise=rise)
        footsteps = plan_footsteps(feet["left"], feet["right"], [0.3, 0.0, 0.0], gait)
        plan = WalkPlan(feet, footsteps, [0.0, 0.0, 0.8], omega, gait)
        single = next(phase for phase in plan.phases if phase.kind == "single")
        middle = 0.5 * (single.start + single.end)
        assert plan.com_state(middle)[2] == pytest.approx(0.8 + rise)
        assert plan.com_state(middle)[5] == pytest.approx(0.0, abs=1e-12)
        assert plan.com(middle)[0][2] == pytest.approx(0.8 + rise)
        assert plan.com_state(single.end + 0.5 * gait.double_support)[2] == pytest.approx(0.8)


def test_a_free_swing_tilt_weighs_the_soles_tilt_little(simple_humanoid):
    """With the gait's ``free_swing_tilt`` the swing task weighs rotations about the world's
    horizontal axes ``FREE_TILT_SHARE`` of its other axes."""
    controller = WalkingController(simple_humanoid, 1e-3, swing_weight=10.0)
    weight = np.broadcast_to(controller.swing_tasks[simple_humanoid.feet[0]].weight, (6,))
    np.testing.assert_allclose(weight, [10.0, 10.0, 10.0, 10.0 * FREE_TILT_SHARE, 10.0 * FREE_TILT_SHARE, 10.0])
    level = WalkingController(simple_humanoid, 1e-3, gait=simple_humanoid.profile.gait.with_(free_swing_tilt=False))
    np.testing.assert_allclose(np.broadcast_to(level.swing_tasks[simple_humanoid.feet[0]].weight, (6,)), 10.0)
