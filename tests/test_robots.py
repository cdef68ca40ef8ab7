import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp

from .conftest import load_robot


@pytest.mark.parametrize("name", ["talos", "g1", "solo12", "go2", "ur5", "panda"])
def test_load_puts_feet_on_the_ground(name):
    robot = load_robot(name)
    assert robot.q_ref.shape == (robot.nq,)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    for foot in robot.feet:
        height = data.oMf[robot.frame_id(foot)].translation[2]
        assert height == pytest.approx(0.0, abs=1e-9)
    assert robot.floating_base == bool(robot.feet)


def test_point_feet_contact_frames_are_sphere_bottoms_with_vertical_axes():
    robot = load_robot("go2")
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    for foot in robot.feet:
        placement = data.oMf[robot.frame_id(foot)]
        centre = data.oMf[robot.frame_id(foot.removesuffix("_contact"))].translation
        np.testing.assert_allclose(placement.rotation, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(centre - placement.translation, [0, 0, robot.foot_radius], atol=1e-12)


def test_talos_reference_is_half_sitting_from_srdf():
    robot = load_robot("talos")
    assert robot.nv == 38 and robot.na == 32
    assert robot.q_ref[robot.joint_q_index("leg_left_4_joint")] == pytest.approx(0.859395)
    assert robot.feet == ["left_sole_link", "right_sole_link"]
    assert robot.mass == pytest.approx(90.272192)


def test_unknown_robot_names_the_choices():
    with pytest.raises(KeyError, match="available"):
        tp.robots.load("atlas")


def test_urdf_files_come_from_the_installed_distribution():
    root = tp.robots.data_root()
    assert (root / "talos_data" / "robots" / "talos_reduced.urdf").is_file()
