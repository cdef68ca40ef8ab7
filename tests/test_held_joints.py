"""Joints that move no mass (tsid_py.models.held): found from the model, checked against
pinocchio's mass matrix; held by the MuJoCo harness; never given a damping torque that MuJoCo
cannot integrate (the failure policy's damping command)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.failure import damping_gains
from tsid_py.models.held import joints_moving_no_mass
from tsid_py.robots import data_root
from tsid_py.sim import Simulation
from tsid_py.sim.simulation import SimulationDiverged

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


def _swing_the_wrists(robot, seconds=0.15):
    """Romeo in MuJoCo, its wrists driven by ±their limit (0.6 N·m) at 10 Hz: the largest
    angle (rad) and speed (rad/s) of its hands' joints away from the posture."""
    sim = Simulation(robot)
    wrists = [robot.joint_v_index(name) - 6 for name in ("LWristPitch", "RWristPitch")]
    hands = _v_indices(robot, joints_moving_no_mass(robot))
    q_hands = [robot.joint_q_index(name) for name in joints_moving_no_mass(robot)]
    angle = speed = 0.0
    tau = np.zeros(robot.na)
    for k in range(int(seconds / sim.timestep)):
        tau[wrists] = 0.6 * np.sign(np.sin(2 * np.pi * 10 * k * sim.timestep) + 1e-9)
        sim.step(tau)
        q, v = sim.state()
        angle = max(angle, np.abs(q[q_hands] - robot.q_ref[q_hands]).max())
        speed = max(speed, np.abs(v[hands]).max())
    return angle, speed


def test_the_harness_holds_the_joints_that_move_no_mass(romeo):
    angle, speed = _swing_the_wrists(romeo)
    assert angle < 5e-3 and speed < 2.0                       # measured 1.9 mrad, 0.7 rad/s
    free = _load_romeo()
    free.profile = free.profile.with_(held_joints=())         # the harness before: the hands left free
    angle, speed = _swing_the_wrists(free)
    assert angle > 0.5 and speed > 10.0        # thrown about (measured 1.17 rad, past LHand's 1 rad; 23 rad/s)


def test_the_damping_command_is_one_mujoco_integrates(romeo):
    free = _load_romeo()
    free.profile = free.profile.with_(held_joints=())         # the hands swinging, as they did
    q, v = free.q_ref.copy(), free.zero_velocity()
    hands = _v_indices(free, joints_moving_no_mass(free))
    v[hands] = -4.0
    gains = damping_gains(free, q, 1e-3, 5.0)
    assert np.all(gains[hands] == 0.0)                         # M_jj = 0: no torque there
    mass = pin.crba(free.model, free.model.createData(), q).diagonal()
    assert np.all(gains[6:] * 1e-3 <= mass[6:] * (1 + 1e-12))
    for command, diverges in ((-5.0 * v[6:], True), (-gains[6:] * v[6:], False)):
        sim = Simulation(free)
        sim.reset(q, v)
        if diverges:               # the rung's old command: 5 N·m·s/rad on a 1e-10 kg·m² link
            with pytest.raises(SimulationDiverged):
                for _ in range(5):
                    sim.step(command)
        else:
            for _ in range(5):
                sim.step(command)
            assert np.all(np.isfinite(sim.state()[1]))
