"""Model files into a Robot: URDF joint kinds, MJCF keyframes and torque limits, and the
messages that name the file, the element and the fix."""

from __future__ import annotations

import copy
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.robots import data_root

DATA = Path(__file__).parent / "data"
BIPED, JOINTS_MJCF, JOINTS_URDF = DATA / "biped.xml", DATA / "joints.xml", DATA / "joints.urdf"


def test_urdf_joint_kinds_become_pinocchio_joints():
    robot = tp.Robot.from_urdf(JOINTS_URDF, mimic="independent")
    kinds = {robot.model.names[j]: robot.model.joints[j].shortname() for j in range(1, robot.model.njoints)}
    # the file's floating joint on the root link is the free flyer: no second one is added
    assert kinds == {"float": "JointModelFreeFlyer", "slider": "JointModelPlanar", "wheel": "JointModelRUBY",
                     "arm": "JointModelRX", "finger": "JointModelRY"}
    assert robot.floating_base and robot.source.root_joint == "float" and not robot.source.root_added
    assert (robot.nq, robot.nv, robot.na) == (7 + 4 + 2 + 1 + 1, 6 + 3 + 1 + 1 + 1, 6)


def test_root_free_flyer_is_added_when_the_file_has_none():
    robot = tp.Robot.from_urdf(data_root() / "solo_description/robots/solo12.urdf")
    assert robot.source.root_added and robot.model.joints[1].shortname() == "JointModelFreeFlyer"
    fixed = tp.Robot.from_urdf(data_root() / "solo_description/robots/solo12.urdf", floating_base=False)
    assert not fixed.floating_base and fixed.nv == robot.nv - 6


def test_mimic_joints_follow_their_primary_in_the_solver(rng):
    """The file's coupling q_finger = −0.5 q_arm + 0.1 is a closure of the solver, the finger
    passive: with the pair off the linkage and a posture target pulling them further apart,
    q̈_m − k q̈_p = −Kp c − Kd ċ exactly (c = q_m − k q_p − b, ċ = v_m − k v_p), τ_m = 0."""
    robot = tp.Robot.from_urdf(JOINTS_URDF)
    (coupling,) = robot.mimic_joints
    assert (coupling.joint, coupling.primary, coupling.multiplier, coupling.offset) == ("finger", "arm", -0.5, 0.1)
    solver = tp.DynamicsSolver(robot)
    assert list(solver.closures) == ["mimic finger"] and solver.passive_joints == ("finger",) and solver.tasks == []
    target = robot.q_ref.copy()
    arm, finger = robot.joint_q_index("arm"), robot.joint_q_index("finger")
    target[arm], target[finger] = 0.8, 0.9                   # the linkage allows finger = −0.3 for arm = 0.8
    solver.add_task(tp.tasks.JointTask(target, kp=50.0))
    q, v = robot.q_ref.copy(), rng.normal(size=robot.nv)
    q[arm], q[finger] = 0.3, 0.2
    solution = solver.solve(q, v)
    a = solution.ddq
    va, vf = robot.joint_v_index("arm"), robot.joint_v_index("finger")
    closure, rate = 0.2 + 0.5 * 0.3 - 0.1, v[vf] + 0.5 * v[va]
    kp = solver.closures["mimic finger"].kp
    np.testing.assert_allclose(a[vf] + 0.5 * a[va], -kp * closure - 2 * np.sqrt(kp) * rate, atol=1e-8)
    assert solution.tau[vf] == 0.0
    free = tp.DynamicsSolver(tp.Robot.from_urdf(JOINTS_URDF, mimic="independent"))
    assert free.robot.mimic_joints == () and free.closures == {} and free.passive_joints == () and free.tasks == []
    with pytest.raises(ValueError, match="mimic must be one of"):
        tp.Robot.from_urdf(JOINTS_URDF, mimic="rigid")


def test_a_mimic_of_a_missing_or_fixed_joint_names_the_file(tmp_path):
    broken = tmp_path / "broken_mimic.urdf"
    broken.write_text(JOINTS_URDF.read_text().replace('<mimic joint="arm"', '<mimic joint="elbow"'))
    with pytest.raises(ValueError, match=r"broken_mimic.urdf: joint 'finger' \(revolute\) mimics 'elbow' \(missing\)"):
        tp.Robot.from_urdf(broken)


def test_bad_urdfs_name_file_element_and_fix(tmp_path):
    with pytest.raises(ValueError, match=r"joint 'float' \(floating\).*floating_base=True.*fixed"):
        tp.Robot.from_urdf(JOINTS_URDF, floating_base=False, mimic="independent")
    tilted = tmp_path / "tilted.urdf"
    tilted.write_text(JOINTS_URDF.read_text().replace('<axis xyz="0 0 1"/>', '<axis xyz="1 0 0"/>'))
    with pytest.raises(ValueError, match=r"tilted.urdf: planar joint 'slider' has <axis xyz=\"1 0 0\"/>.*rotate"):
        tp.Robot.from_urdf(tilted, mimic="independent")
    empty = data_root() / "ur_description/urdf/ur3.urdf"        # shipped without a single link
    with pytest.raises(ValueError, match="ur3.urdf: the <robot> has no <link>"):
        tp.Robot.from_urdf(empty)
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='x'><link name='a'></robot>")
    with pytest.raises(ValueError, match="broken.urdf: not a valid XML file"):
        tp.Robot.from_urdf(broken)
    with pytest.raises(ValueError, match="existing URDF file"):
        tp.Robot.from_urdf(tmp_path / "missing.urdf")


def test_mjcf_keyframes_become_postures_in_file_order():
    robot = tp.Robot.from_mjcf(BIPED)
    assert list(robot.postures) == ["crouch", "straight"] and robot.name == "biped"
    # MuJoCo's keyframe quaternion (w x y z) = (1 0 0 0) is pinocchio's (x y z w) = (0 0 0 1)
    np.testing.assert_array_equal(robot.postures["crouch"][:7], [0, 0, 0.65264, 0, 0, 0, 1])
    np.testing.assert_array_equal(robot.q_ref, robot.postures["crouch"])
    knee = robot.model.joints[robot.model.getJointId("left_knee")].idx_q
    assert robot.q_ref[knee] == 0.8
    straight = tp.Robot.from_mjcf(BIPED, posture="straight")
    np.testing.assert_array_equal(straight.q_ref, robot.postures["straight"])
    with pytest.raises(KeyError, match=r"posture 'sit' is not a keyframe of .*biped.xml; keyframes: \['crouch', "):
        tp.Robot.from_mjcf(BIPED, posture="sit")
    # without keyframes: MuJoCo's qpos0, the bodies as placed in the file
    with pytest.warns(UserWarning, match="the world holds 2 bodies"):
        joints = tp.Robot.from_mjcf(JOINTS_MJCF)
    assert list(joints.postures) == ["qpos0"] and joints.q_ref[2] == 1.0


def test_mjcf_torque_limits_come_from_the_motors():
    """|gear| x max|ctrlrange| per motor, at the dof of its joint (inside a composite joint too)."""
    robot = tp.Robot.from_mjcf(BIPED)
    effort = robot.model.effortLimit
    expected = {"left_hip_yaw": 30.0, "left_hip_roll": 60.0, "left_knee": 2 * 50.0, "right_ankle_roll": 40.0}
    for joint, limit in expected.items():
        assert effort[_dof(robot, joint)] == limit, joint
    assert np.all(np.isinf(effort[:6])) and np.all(np.isfinite(effort[6:]))


def _dof(robot, joint):
    """v index of the biped's MuJoCo joint ``joint`` in pinocchio's model: its own joint, or
    its place in the composite joint of its body."""
    import mujoco

    if robot.model.existJointName(joint):
        return robot.model.idx_vs[robot.model.getJointId(joint)]
    model = mujoco.MjModel.from_xml_path(str(BIPED))
    body = model.joint(joint).bodyid[0]
    composite = robot.model.frames[robot.model.getFrameId(model.body(body).name)].parentJoint
    return robot.model.idx_vs[composite] + int(model.joint(joint).id - model.body_jntadr[body])


def test_passive_joint_of_an_actuated_file_has_no_torque(tmp_path):
    text = BIPED.read_text().replace('<motor name="left_knee" joint="left_knee" gear="2" ctrlrange="-50 50"/>', "")
    passive = tmp_path / "passive.xml"
    passive.write_text(text)
    robot = tp.Robot.from_mjcf(passive)
    assert robot.model.effortLimit[_dof(robot, "left_knee")] == 0.0
    assert robot.model.effortLimit[_dof(robot, "right_knee")] == 100.0


def test_mjcf_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="existing MJCF file"):
        tp.Robot.from_mjcf(tmp_path / "none.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><joint type='hinge'/></worldbody></mujoco>")
    with pytest.raises(ValueError, match="bad.xml: pinocchio cannot read this MJCF file"):
        tp.Robot.from_mjcf(bad)


def test_mjcf_robot_pickles_and_copies_with_its_source_and_postures():
    robot = tp.Robot.from_mjcf(BIPED)
    for clone in (pickle.loads(pickle.dumps(robot)), copy.deepcopy(robot)):
        assert clone.source == robot.source and list(clone.postures) == list(robot.postures)
        np.testing.assert_array_equal(clone.postures["straight"], robot.postures["straight"])
        np.testing.assert_allclose(clone.com_at(clone.postures["straight"]), robot.com_at(robot.postures["straight"]))


def test_joints_inside_composite_joints_are_addressed_by_their_file_names():
    """An MJCF body with several joints is one composite joint in pinocchio; the robot still
    lists and indexes each of the file's joints, so posture tasks and limits include them."""
    import mujoco

    robot = tp.Robot.from_mjcf(BIPED)
    model = mujoco.MjModel.from_xml_path(str(BIPED))
    file_joints = [model.joint(j).name for j in range(1, model.njnt)]       # all but the free joint
    assert robot.joint_names == file_joints
    for name in file_joints:
        assert robot.has_1dof_joint(name)
        assert robot.joint_v_index(name) == _dof(robot, name)
        assert robot.joint_q_index(name) == robot.joint_v_index(name) + 1   # after the free flyer's quaternion
        low, high = model.joint(name).range
        assert robot.model.lowerPositionLimit[robot.joint_q_index(name)] == low
        assert robot.model.upperPositionLimit[robot.joint_q_index(name)] == high
    posture = tp.tasks.JointTask(robot.q_ref)
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    solver.add_task(posture)
    assert posture.dimension(robot) == robot.na == len(file_joints)
    assert sorted(robot.joint_v_index(name) for name in robot.joint_names) == list(range(6, robot.nv))


def test_a_geom_placed_by_its_default_class_is_where_mujoco_puts_it(tmp_path):
    """The biped's soles placed by their default class (``pos`` in ``<default class="sole">``,
    which pinocchio 4.1's reader leaves out) and a visual mesh whose file is missing: the robot
    loads, its soles' contact frames at the boxes' bottom centres where MuJoCo places them."""
    import mujoco

    text = BIPED.read_text()
    text = text.replace('rgba="0.3 0.3 0.3 1"/>', 'rgba="0.3 0.3 0.3 1" pos="0.02 0 -0.04"/>', 1)
    text = text.replace('pos="0.02 0 -0.04"/>\n            <site name="left_sole"', '/>\n            <site name="left_sole"')
    text = text.replace('pos="0.02 0 -0.04"/>\n            <site name="right_sole"', '/>\n            <site name="right_sole"')
    text = text.replace("<worldbody>", '<asset><mesh name="gone" file="gone.stl"/></asset><worldbody>')
    text = text.replace('<freejoint name="root"/>', '<freejoint name="root"/><geom type="mesh" mesh="gone"/>')
    assert text.count('class="sole" name=') == 2 and text.count('pos="0.02 0 -0.04"') == 1
    path = tmp_path / "biped_defaults.xml"
    path.write_text(text)
    robot = tp.robots.load(path)                          # the soles show the feet: the visuals are not read
    spec = mujoco.MjSpec.from_file(str(BIPED))
    for side, foot in zip(("left", "right"), robot.feet):
        frame = robot.model.frames[robot.frame_id(foot)]
        body = robot.model.frames[robot.model.getFrameId(f"{side}_foot")]
        local = body.placement.actInv(frame.placement).translation        # in the foot body's frame
        geom = spec.geom(f"{side}_sole_geom")
        np.testing.assert_allclose(local, np.array(geom.pos) - [0.0, 0.0, geom.size[2]], atol=1e-9)


WHEEL_URDF = """<robot name="wheel"><link name="base"/>
  <joint name="spin" type="continuous"><parent link="base"/><child link="rotor"/><axis xyz="0 0 1"/>
    <limit effort="10" velocity="5"/></joint>
  <link name="rotor"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>"""


def test_the_posture_task_holds_continuous_joints_by_the_short_way(tmp_path, rng):
    """A continuous joint (q = (cos θ, sin θ), one velocity) is in the default posture task:
    a robot of one wheel has a posture of dimension 1 (it had none: 'dim must be a positive
    int, got 0'), and joints.urdf's wheel is held with the others. Its error is the angle
    difference wrapped into [−π, π): from θ = 3 to a target of −3 rad it is 2π − 6 = +0.283
    rad, and a hard task gives exactly θ̈ = kp e − kd θ̇."""
    path = tmp_path / "wheel.urdf"
    path.write_text(WHEEL_URDF)
    wheel = tp.Robot.from_urdf(path, floating_base=False)
    solver = tp.DynamicsSolver(wheel)
    assert solver.add_task(tp.tasks.JointTask(kp=1.0)).dim == 1
    robot = tp.Robot.from_urdf(JOINTS_URDF, mimic="independent")     # a hard posture and the coupling conflict
    assert set(robot.continuous_joints) == {"wheel"} and "wheel" in robot.scalar_joint_names
    solver = tp.DynamicsSolver(robot)
    posture = solver.add_task(tp.tasks.JointTask(kp=49.0, priority="hard"))
    assert posture.dim == len(robot.scalar_joint_names) == 3
    start, target = robot.q_ref.copy(), robot.q_ref.copy()
    at = robot.joint_q_index("wheel")
    start[at:at + 2] = np.cos(3.0), np.sin(3.0)
    target[at:at + 2] = np.cos(-3.0), np.sin(-3.0)
    posture.set_target(target)
    v = rng.normal(size=robot.nv)
    a = solver.solve(start, v).ddq
    column = robot.joint_v_index("wheel")
    wrapped = 2 * np.pi - 6.0
    assert posture.error[robot.scalar_joint_names.index("wheel")] == pytest.approx(wrapped, abs=1e-12)
    np.testing.assert_allclose(a[column], 49.0 * wrapped - 14.0 * v[column], atol=1e-9)
