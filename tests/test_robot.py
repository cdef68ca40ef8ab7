import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.robots import data_root

from .conftest import perturbed_state


def test_one_pass_matches_pinocchio_algorithms(talos, rng):
    q, v = perturbed_state(talos, rng, velocity_spread=0.5)
    talos.update(q, v)
    model, data = talos.model, talos.model.createData()
    upper = np.triu(pin.crba(model, data, q))
    np.testing.assert_allclose(talos.mass_matrix, upper + np.triu(upper, 1).T, atol=1e-10)
    np.testing.assert_allclose(talos.bias, pin.rnea(model, data, q, v, np.zeros(talos.nv)), atol=1e-9)
    # frame drift = classical acceleration at zero q̈, and the CoM drift likewise
    foot = talos.frame_id("left_sole_link")
    pin.forwardKinematics(model, data, q, v, np.zeros(talos.nv))
    pin.updateFramePlacements(model, data)
    expected = pin.getFrameClassicalAcceleration(model, data, foot, pin.LOCAL_WORLD_ALIGNED).vector
    np.testing.assert_allclose(talos.frame_drift(foot), expected, atol=1e-10)
    pin.centerOfMass(model, data, q, v, np.zeros(talos.nv))
    np.testing.assert_allclose(talos.com_drift, data.acom[0], atol=1e-10)
    np.testing.assert_allclose(talos.com_jacobian, pin.jacobianCenterOfMass(model, data, q), atol=1e-10)


def test_com_drift_matches_finite_difference(talos, rng):
    """d/dt (J_com v) at constant v, by central differences along the motion."""
    q, v = perturbed_state(talos, rng, velocity_spread=0.5)
    eps = 1e-6
    talos.update(q, v)
    drift = talos.com_drift.copy()
    vcom = []
    for sign in (-1, 1):
        talos.update(pin.integrate(talos.model, q, sign * eps * v), v)
        vcom.append(talos.com_velocity.copy())
    np.testing.assert_allclose(drift, (vcom[1] - vcom[0]) / (2 * eps), atol=1e-5)


def test_frame_drift_beyond_composite_joints_is_the_derivative_of_its_velocity(rng):
    """An MJCF body with several joints is one composite joint in pinocchio, whose ``J̇``
    columns pinocchio forms with the last body's velocity; the robot corrects them, so that
    the compiled frame kernel's drift (what contacts and frame tasks use) is the central
    difference of ``J v`` along ``q ⊕ t v`` — for biped.xml's soles beyond a two-hinge ankle
    and a three-hinge hip (0.4 m/s² off uncorrected)."""
    from pathlib import Path

    from tsid_py.frames import frame_motion

    robot = tp.Robot.from_mjcf(Path(__file__).parent / "data" / "biped.xml")
    assert robot.dynamics.composites is not None and len(robot.dynamics.composites[0]) == 4
    q = robot.q_ref.copy()
    q[7:] += rng.uniform(-0.3, 0.3, robot.nq - 7)
    v = rng.normal(size=robot.nv)
    foot = robot.frame_id("left_sole")

    def velocity(t):
        robot.update(pin.integrate(robot.model, q, t * v), v)
        return robot.frame_jacobian(foot) @ v

    expected = (velocity(1e-6) - velocity(-1e-6)) / 2e-6
    robot.update(q, v)
    jacobian, drift = np.zeros((6, robot.nv)), np.zeros(6)
    frame_motion(*robot.frame_sources(foot), robot.v, False, jacobian, drift)
    np.testing.assert_allclose(drift, expected, atol=1e-6)        # world axes: d/dt (J v) is the classical drift
    np.testing.assert_allclose(drift, robot.frame_drift(foot), atol=1e-10)


def test_near_unit_quaternion_is_normalised_and_far_one_rejected(talos):
    q = talos.q_ref.copy()
    q[3:7] *= 1.0005
    assert np.linalg.norm(talos.check_configuration(q)[3:7]) == pytest.approx(1.0)
    q[3:7] *= 1.5
    with pytest.raises(ValueError, match="unit quaternion"):
        talos.check_configuration(q)


def test_unknown_frame_is_a_key_error(talos):
    with pytest.raises(KeyError, match="left_sole"):
        talos.frame_id("left_sole")


def test_a_frame_name_shared_by_a_joint_and_its_link_is_the_link(talos):
    """ANYmal's URDF names a joint and its child link alike ("LF_HAA"): pinocchio refuses the
    bare name; the robot takes the link's body frame (in a URDF, at the joint's placement).
    Two frames of one name that are not bodies stay ambiguous: a KeyError says so."""
    anymal = tp.Robot.from_urdf(next((data_root() / "anymal_c_simple_description/urdf").glob("*.urdf")))
    frame = anymal.model.frames[anymal.frame_id("LF_HAA")]
    assert frame.name == "LF_HAA" and frame.type == pin.FrameType.BODY
    model = talos.model.copy()
    parent = model.frames[model.getFrameId("left_sole_link")]
    for kind in (pin.FrameType.OP_FRAME, pin.FrameType.SENSOR):
        model.addFrame(pin.Frame("marker", parent.parentJoint, model.getFrameId("left_sole_link"), pin.SE3.Identity(),
                                 kind))
    robot = tp.Robot(model, name="marked")
    with pytest.raises(KeyError, match=r"frame name 'marker' is ambiguous in robot 'marked': 2 frames"):
        robot.frame_id("marker")
