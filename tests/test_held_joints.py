"""Joints that move no mass (tsid_py.models.held): found from the model, checked against
pinocchio's mass matrix; the failure policy's damping gains against CRBA's diagonal (the
MuJoCo runs: tests/test_held_joints_sim.py)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.failure import damping_gains
from tsid_py.models.check.stance import massless_dof_findings
from tsid_py.models.held import joints_moving_no_mass
from tsid_py.robots import data_root

from .conftest import load_robot

def _load_romeo() -> tp.Robot:
    return tp.robots.load(data_root() / "romeo_description/urdf/romeo.urdf")


@pytest.fixture(scope="module")
def romeo():
    return _load_romeo()


def _v_indices(robot, names):
    return [robot.joint_v_index(name) for name in names]


def test_held_joints_are_those_whose_mass_matrix_row_vanishes(romeo):
    held = joints_moving_no_mass(romeo)
    assert romeo.profile.held_joints == held and len(held) == 24        # both hands: LHand, RHand, 22 fingers
    rng = np.random.default_rng(0)
    model, data = romeo.model, romeo.model.createData()
    lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
    lower[:7], upper[:7] = -1.0, 1.0
    for _ in range(3):                              # M's rows (RNEA's torques) at random states
        q = pin.normalize(model, rng.uniform(lower, upper))
        mass = pin.crba(model, data, q)
        mass = np.triu(mass) + np.triu(mass, 1).T
        h = pin.rnea(model, data, q, rng.normal(size=model.nv), np.zeros(model.nv))
        rows = _v_indices(romeo, held)
        assert np.abs(mass[rows]).max() == 0.0 and np.abs(h[rows]).max() == 0.0
        others = np.setdiff1d(np.arange(6, model.nv), rows)
        assert mass.diagonal()[others].min() > 0.0
    assert joints_moving_no_mass(load_robot("talos")) == ()


def test_a_mimic_coupling_to_a_joint_that_moves_mass_frees_both(tmp_path):
    link = '<link name="{0}"><inertial><mass value="{1}"/><inertia ixx="{2}" iyy="{2}" izz="{2}" ixy="0" ixz="0" iyz="0"/></inertial></link>'
    joint = ('<joint name="{0}" type="revolute"><parent link="{1}"/><child link="{2}"/><axis xyz="0 0 1"/>'
             '<limit lower="-1" upper="1" effort="0" velocity="0"/>{3}</joint>')
    urdf = tmp_path / "toy.urdf"
    urdf.write_text('<robot name="toy">' + link.format("base", 1.0, 0.01) + link.format("a_link", 0.0, 0.0)
                    + link.format("b_link", 0.5, 0.001) + link.format("c_link", 0.0, 0.0)
                    + joint.format("a", "base", "a_link", "") + joint.format("b", "base", "b_link", '<mimic joint="a"/>')
                    + joint.format("c", "base", "c_link", "") + "</robot>")
    toy = tp.Robot.from_urdf(str(urdf), floating_base=False)
    assert joints_moving_no_mass(toy) == ("c",)          # a drives b's mass through the coupling
    independent = tp.Robot.from_urdf(str(urdf), floating_base=False, mimic="independent")
    assert joints_moving_no_mass(independent) == ("a", "c")
    # check-robot tells the held joint (c) from the one M has no row for but the coupling moves (a)
    held, coupled = massless_dof_findings(toy, "toy.urdf")
    assert held.values["joints"] == ["c"] and held.applied_by == "library"
    assert coupled.values["joints"] == ["a"] and coupled.applied_by is None and "mimic coupling" in coupled.problem
    assert [finding.values["joints"] for finding in massless_dof_findings(independent, "toy.urdf")] == [["a", "c"]]


def test_a_held_joints_override_is_checked_against_the_model(tmp_path):
    from tsid_py.models.profile import derive_profile

    link = '<link name="{0}"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
    joint = ('<joint name="{0}" type="{3}"><parent link="{1}"/><child link="{2}"/><axis xyz="0 0 1"/>'
             '<limit lower="-1" upper="1" effort="1" velocity="1"/>{4}</joint>')
    urdf = tmp_path / "pair.urdf"
    urdf.write_text('<robot name="pair">' + link.format("base") + link.format("a_link") + link.format("b_link")
                    + link.format("c_link") + joint.format("a", "base", "a_link", "revolute", "")
                    + joint.format("b", "base", "b_link", "revolute", '<mimic joint="a"/>')
                    + joint.format("c", "base", "c_link", "planar", "") + "</robot>")
    pair = tp.Robot.from_urdf(str(urdf), floating_base=False)
    assert derive_profile(pair, held_joints=("a", "b")).held_joints == ("a", "b")
    with pytest.raises(ValueError, match=r"held_joints holds 'b' but not 'a', which a mimic coupling ties to it"):
        derive_profile(pair, held_joints=("b",))
    with pytest.raises(ValueError, match=r"one-degree-of-freedom joints, got \['c'\] with \[3\] degrees of freedom"):
        derive_profile(pair, held_joints=("c",))
    with pytest.raises(ValueError, match=r"must name joints of the model, got unknown \['d'\]"):
        derive_profile(pair, held_joints=("d",))


def test_damping_gains_stop_a_joint_in_one_period_at_most(romeo):
    q = romeo.q_ref
    mass = pin.crba(romeo.model, romeo.model.createData(), q).diagonal()
    gains = damping_gains(romeo, q, 1e-3, 5.0)
    held = _v_indices(romeo, joints_moving_no_mass(romeo))
    assert np.all(gains[held] == 0.0)                          # M_jj = 0: no torque there
    np.testing.assert_allclose(gains, np.minimum(5.0, mass / 1e-3))
    assert np.all(np.delete(gains, held)[6:] > 0.0) and np.any(gains[6:] < 5.0)     # light joints: less
