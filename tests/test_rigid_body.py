"""The compiled kinematics and dynamics pass (tsid_py.rigid_body) against its definition,
pinocchio's computeAllTerms, updateFramePlacements, centerOfMass and the centroidal map's
time variation; and the Robot on it: inputs checked, pinocchio's data complete on demand,
frames placed anew on their bodies, models with other joints on pinocchio."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.dynamics_pass import CompiledPass, PinocchioPass

JOINTS_URDF = Path(__file__).parent / "data" / "joints.urdf"


def branched_model() -> pin.Model:
    """A free flyer carrying two branches of every joint kind the pass knows: axis-aligned and
    unaligned revolute and prismatic joints, continuous joints, a second free flyer, and
    frames on them; random inertias and placements (seeded)."""
    rng = np.random.default_rng(3)
    model = pin.Model()
    joints = [pin.JointModelFreeFlyer(), pin.JointModelRX(), pin.JointModelRevoluteUnaligned(0.6, -0.8, 0.0),
              pin.JointModelPZ(), pin.JointModelFreeFlyer(), pin.JointModelRZ(), pin.JointModelRUBY(),
              pin.JointModelPrismaticUnaligned(0.0, 0.6, 0.8), pin.JointModelRevoluteUnboundedUnaligned()]
    parents = [0, 1, 2, 3, 2, 5, 1, 7, 8]           # depth first, as pinocchio's algorithms need
    for index, (joint, parent) in enumerate(zip(joints, parents)):
        placement = pin.SE3(pin.exp3(rng.standard_normal(3)), rng.standard_normal(3) * 0.2)
        joint_id = model.addJoint(parent, joint, placement, f"joint{index}")
        inertia = pin.Inertia.Random()
        model.appendBodyToJoint(joint_id, inertia, pin.SE3.Identity())
        model.addFrame(pin.Frame(f"frame{index}", joint_id, 0, pin.SE3.Random(), pin.FrameType.OP_FRAME))
    model.armature = rng.uniform(0.0, 0.1, model.nv)
    return model


def random_state(model: pin.Model, rng) -> tuple[np.ndarray, np.ndarray]:
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    return q, rng.standard_normal(model.nv)


def reference(model: pin.Model, q, v) -> dict[str, np.ndarray]:
    """The pass's outputs as pinocchio computes them."""
    data = model.createData()
    pin.computeAllTerms(model, data, q, v)
    pin.updateFramePlacements(model, data)
    pin.centerOfMass(model, data, pin.KinematicLevel.ACCELERATION, False)
    pin.computeCentroidalMapTimeVariation(model, data, q, v)
    return dict(mass_matrix=data.M, bias=data.nle, joint_jacobians=data.J, joint_jacobian_rates=data.dJ,
                com=data.com[0], com_velocity=data.vcom[0], com_drift=data.acom[0], com_jacobian=data.Jcom,
                centroidal_matrix=data.Ag, centroidal_momentum=data.hg.vector, centroidal_drift=data.dAg @ v,
                frame_rotations=np.array([placement.rotation for placement in data.oMf]),
                frame_translations=np.array([placement.translation for placement in data.oMf]))


@pytest.mark.parametrize("name", ["branched", "talos", "go2", "panda"])
def test_pass_equals_pinocchio(name):
    model = branched_model() if name == "branched" else tp.robots.load(name).model
    dynamics = CompiledPass.of(model)
    for frame in range(len(model.frames)):
        dynamics.frame_views(frame)
    rng = np.random.default_rng(0)
    q_out, v_out = np.zeros(model.nq), np.zeros(model.nv)
    for _ in range(3):
        q, v = random_state(model, rng)
        assert dynamics.update(q, v, q_out, v_out, 1e-3) == 0
        np.testing.assert_allclose(q_out, q, atol=1e-15)      # (the quaternion normalised)
        for key, expected in reference(model, q, v).items():
            scale = max(1.0, np.abs(expected).max())
            assert np.abs(getattr(dynamics, key) - expected).max() <= 1e-12 * scale, key


def test_update_checks_its_inputs_and_normalises():
    model = branched_model()
    dynamics = CompiledPass.of(model)
    q, v = random_state(model, np.random.default_rng(1))
    q_out, v_out = np.zeros(model.nq), np.zeros(model.nv)
    bad = q.copy()
    bad[5] = np.nan
    assert dynamics.update(bad, v, q_out, v_out, 1e-3) == 1
    assert not q_out.any()                              # nothing written
    assert dynamics.update(q, np.full(model.nv, np.inf), q_out, v_out, 1e-3) == 2
    scaled = q.copy()
    scaled[3:7] *= 1.01
    assert dynamics.update(scaled, v, q_out, v_out, 1e-3) == 3
    scaled[3:7] = q[3:7] * (1 + 5e-4)
    assert dynamics.update(scaled, v, q_out, v_out, 1e-3) == 0
    np.testing.assert_allclose(q_out, q, atol=1e-15)


def test_other_joints_go_through_pinocchio():
    robot = tp.Robot.from_urdf(JOINTS_URDF)                # a planar joint
    assert isinstance(robot.dynamics, PinocchioPass)
    q, v = robot.q_ref, np.linspace(-1.0, 1.0, robot.nv)
    robot.update(q, v)
    expected = reference(robot.model, q, v)
    np.testing.assert_array_equal(robot.mass_matrix, expected["mass_matrix"])
    np.testing.assert_array_equal(robot.bias, expected["bias"])


def test_robot_on_the_pass():
    robot = tp.robots.load("talos")
    assert isinstance(robot.dynamics, CompiledPass)
    foot = robot.frame_id(robot.feet[0])
    rng = np.random.default_rng(2)
    q, v = robot.q_ref.copy(), 0.1 * rng.standard_normal(robot.nv)
    q[7:] += 0.1 * rng.standard_normal(robot.nq - 7)
    robot.update(q, v)
    expected = reference(robot.model, q, v)
    np.testing.assert_allclose(robot.mass_matrix, expected["mass_matrix"], atol=1e-11)
    np.testing.assert_allclose(robot.frame_translation(foot), expected["frame_translations"][foot], atol=1e-14)
    # pinocchio's data is complete at the last update, on demand (here the frame Jacobian reads it)
    np.testing.assert_allclose(robot.data.Ag, expected["centroidal_matrix"], atol=1e-11)
    np.testing.assert_allclose(robot.frame_jacobian(foot), pin.getFrameJacobian(
        robot.model, robot.data, foot, pin.LOCAL_WORLD_ALIGNED), atol=0)
    placement = robot.frame_placement(robot.frame_id(robot.feet[1]))        # a frame not yet asked for
    assert placement.isApprox(robot.data.oMf[robot.frame_id(robot.feet[1])], 1e-14)
    # the inputs' errors name them; a copy is an independent robot on its own pass
    with pytest.raises(ValueError, match=r"q\[3:7\] must be a unit quaternion"):
        robot.update(np.r_[q[:3], 2 * q[3:7], q[7:]], v)
    with pytest.raises(ValueError, match="v must be finite"):
        robot.update(q, np.full(robot.nv, np.nan))
    for twin in (copy.deepcopy(robot), pickle.loads(pickle.dumps(robot))):
        twin.update(robot.q_ref, robot.zero_velocity())
        np.testing.assert_allclose(robot.mass_matrix, expected["mass_matrix"], atol=1e-11)   # untouched
        assert np.abs(twin.mass_matrix - robot.mass_matrix).max() > 1e-3


def test_frames_placed_anew_on_their_bodies():
    robot = tp.robots.load("go2")
    foot = robot.frame_id(robot.feet[0])
    rotation, translation = robot.frame_offset(foot)
    translation += [0.0, 0.0, -0.01]                      # 1 cm lower on its body
    q, v = robot.q_ref, robot.zero_velocity()
    robot.update(q, v)
    joint = robot.model.frames[foot].parentJoint
    np.testing.assert_allclose(robot.frame_translation(foot),
                               robot.data.oMi[joint].act(pin.SE3(rotation, translation)).translation, atol=1e-15)
    np.testing.assert_allclose(robot.joint_rotation(joint), robot.data.oMi[joint].rotation, atol=1e-15)
    assert robot.placement_at(q, foot).isApprox(robot.frame_placement(foot), 1e-14)


@pytest.mark.parametrize("path", [None, JOINTS_URDF])
def test_placed_data_holds_the_last_updates_joint_placements(path):
    """``placed_data``: one object, its ``oMi`` pinocchio's forward kinematics at each update
    (on the compiled pass and on pinocchio's); a copy's is its own."""
    robot = tp.robots.load("talos") if path is None else tp.Robot.from_urdf(path)
    rng = np.random.default_rng(5)
    placed = robot.placed_data
    expected = robot.model.createData()
    for _ in range(3):
        q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
        robot.update(q, rng.standard_normal(robot.nv))
        assert robot.placed_data is placed
        pin.forwardKinematics(robot.model, expected, q)
        for joint in range(1, robot.model.njoints):
            assert placed.oMi[joint].isApprox(expected.oMi[joint], 1e-12)
    twin = pickle.loads(pickle.dumps(robot))
    twin.update(robot.q_ref, robot.zero_velocity())
    assert twin.placed_data is not placed
    assert not twin.placed_data.oMi[robot.model.njoints - 1].isApprox(placed.oMi[robot.model.njoints - 1], 1e-6)
