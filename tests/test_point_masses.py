"""Point-mass links given the inertia of a body of their size (tsid_py.models.point_masses),
and the walk's stance width within the legs'
joint ranges (tsid_py.models.reach): checked against closed forms, pinocchio's mass matrix
from the file, MuJoCo's mass matrix, and iCub's file."""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.models.check import check_robot
from tsid_py.models.point_masses import DENSITY
from tsid_py.models.reach import SWAY, between_soles, reach, stance, standing_soles, step_length, walking_width
from tsid_py.robots import data_root

from .test_check import bent, write_biped

HEAD_MASS = 1.5
ZERO = 'ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"'


def head(geometry: str = '<collision><geometry><box size="0.2 0.1 0.1"/></geometry></collision>') -> str:
    """A neck turning a point-mass head about the vertical axis through its centre of mass."""
    return ('<joint name="neck" type="revolute"><parent link="pelvis"/><child link="head"/><origin xyz="0 0 0.3"/>'
            '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="10" velocity="5"/></joint>'
            f'<link name="head"><inertial><mass value="{HEAD_MASS}"/><inertia {ZERO}/></inertial>{geometry}</link>')


def effective_inertia(model: pin.Model, q: np.ndarray, joint: str) -> float:
    """``1 / (M⁻¹)ᵢᵢ`` of ``joint`` at ``q`` (kg·m²): what a torque on it alone accelerates."""
    mass = pin.crba(model, model.createData(), q)
    mass = np.triu(mass) + np.triu(mass, 1).T
    index = model.joints[model.getJointId(joint)].idx_v
    return 1.0 / np.linalg.inv(mass)[index, index]


def loaded(path: str) -> tp.Robot:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tp.robots.load(path)


def test_a_point_mass_gets_the_isotropic_inertia_of_the_box_of_its_geometry(tmp_path):
    """The file's neck turns nothing (M singular: 1/(M⁻¹)ᵢᵢ = 0); loaded, the head has
    I = m (a² + b² + c²) / 18 · 1 for its 0.2 × 0.1 × 0.1 m box, the mass and CoM unchanged
    (MuJoCo's mass matrix: tests/test_harness_models.py)."""
    path = write_biped(tmp_path, extra=head(), srdf=bent())
    robot = loaded(path)
    moment = HEAD_MASS * (0.2**2 + 0.1**2 + 0.1**2) / 18.0
    assert dict(robot.source.added_inertias) == pytest.approx({"head": moment})
    raw = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(np.triu(pin.crba(raw, raw.createData(), robot.q_ref))
                           + np.triu(pin.crba(raw, raw.createData(), robot.q_ref), 1).T)
    assert effective_inertia(robot.model, robot.q_ref, "neck") == pytest.approx(moment, rel=0.05)
    data, raw_data = robot.model.createData(), raw.createData()
    assert robot.mass == pytest.approx(pin.computeTotalMass(raw))
    np.testing.assert_allclose(pin.centerOfMass(robot.model, data, robot.q_ref),
                               pin.centerOfMass(raw, raw_data, robot.q_ref), atol=1e-12)
    finding = next(f for f in check_robot(path).findings if f.code == "point-mass-links")
    assert finding.applied_by == "loader" and finding.values["links"] == {"head": HEAD_MASS}


def test_a_point_mass_without_geometry_is_a_sphere_of_water(tmp_path):
    robot = loaded(write_biped(tmp_path, extra=head(geometry=""), srdf=bent()))
    radius = (3.0 * HEAD_MASS / (4.0 * np.pi * DENSITY)) ** (1.0 / 3.0)
    assert dict(robot.source.added_inertias) == pytest.approx({"head": 0.4 * HEAD_MASS * radius**2})


def test_icub_neck_and_legs_move_inertia_again():
    """iCub's URDF makes its head, neck and right leg point masses: its neck's roll and yaw
    turned nothing (1/(M⁻¹)ᵢᵢ ~ 1e-16 kg·m²) and MuJoCo diverged within 6 ms of the first
    estimated state. Loaded, every joint moves at least 1e-4 kg·m²."""
    path = data_root() / "icub_description/robots/icub.urdf"
    robot = loaded(path)
    raw = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    assert effective_inertia(raw, robot.q_ref, "neck_yaw") < 1e-12
    assert {"head", "neck_1", "neck_2", "r_upper_leg"} <= set(dict(robot.source.added_inertias))
    model = robot.model
    assert min(effective_inertia(model, robot.q_ref, model.names[j]) for j in range(2, model.njoints)) > 1e-4


def test_icub_walks_narrower_than_it_stands_where_its_hip_roll_reaches():
    """iCub stands its feet 0.214 m apart, 3.9 cm outside its hips, and its hip roll stops at
    0.30 rad: with the soles there its legs cannot put the CoM over a sole within their ranges.
    The derived gait walks at the widest width at which they can with the base upright (0.16 m,
    75 %); Romeo keeps its standing width."""
    robot = loaded(data_root() / "icub_description/robots/icub.urdf")
    model, q = robot.model, robot.q_ref
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    soles = [data.oMf[model.getFrameId(foot)].copy() for foot in robot.feet]
    standing = abs(soles[0].translation[1] - soles[1].translation[1])
    assert standing == pytest.approx(0.214, abs=0.002)
    middle = 0.5 * (soles[0].translation[:2] + soles[1].translation[:2])
    assert not reach(model, q, robot.feet, soles, middle + SWAY * (soles[0].translation[:2] - middle)).reached
    width = robot.profile.gait.step_width
    assert width == pytest.approx(0.75 * standing, abs=1e-6)
    assert walking_width(model, q, robot.feet, robot.sole_size[1]) == width
    romeo = loaded(data_root() / "romeo_description/urdf/romeo.urdf")
    assert romeo.profile.gait.step_width is None


def test_a_step_longer_than_the_legs_reach_is_shortened_to_the_longest_they_reach():
    """iCub's legs (0.45 m standing) cannot hold its feet 0.6 m apart with the soles flat and
    the base upright: the rule shortens such a step by tenths to the longest they can hold,
    and a tenth more is out of reach; the soles of a stance are where it says."""
    robot = loaded(data_root() / "icub_description/robots/icub.urdf")
    model, q, feet = robot.model, robot.q_ref, robot.feet
    soles = standing_soles(model, q, feet)
    placed = stance(soles, width=0.16, split=0.3)
    assert placed[0].translation[0] - placed[1].translation[0] == pytest.approx(0.3, abs=1e-4)    # along the soles
    assert placed[0].translation[1] - placed[1].translation[1] == pytest.approx(0.16, abs=1e-4)
    np.testing.assert_allclose(placed[0].rotation, soles[0].rotation)
    assert not all(result.reached for result in between_soles(model, q, feet, soles, 0.6))
    length = step_length(model, q, feet, 0.6)
    assert 0.0 < length < 0.6
    assert all(result.reached for result in between_soles(model, q, feet, soles, length))
    assert not all(result.reached for result in between_soles(model, q, feet, soles, length + 0.06))
    assert step_length(model, q, feet, robot.profile.gait.step_length, robot.profile.gait.step_width) is None
