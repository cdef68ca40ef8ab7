"""Robot profiles from the model: feet and soles from the geometry, a standing posture, any
robot file loaded by path — against the geometry the test writes (boxes and spheres of known
size and place), pinocchio's kinematics, and example-robot-data's robots."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.models.feet import find_feet
from tsid_py.robots import data_root

LEG = """
  <joint name="{side}_hip" type="revolute"><parent link="pelvis"/><child link="{side}_thigh"/>
    <origin xyz="0 {y} -0.1"/><axis xyz="0 1 0"/><limit lower="-1.5" upper="1.5" effort="200" velocity="10"/></joint>
  <link name="{side}_thigh"><inertial><origin xyz="0 0 -0.2"/><mass value="4"/>
    <inertia ixx="0.05" iyy="0.05" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{side}_knee" type="revolute"><parent link="{side}_thigh"/><child link="{side}_shin"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 1 0"/><limit lower="0" upper="2.5" effort="200" velocity="10"/></joint>
  <link name="{side}_shin"><inertial><origin xyz="0 0 -0.2"/><mass value="3"/>
    <inertia ixx="0.04" iyy="0.04" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{side}_ankle" type="revolute"><parent link="{side}_shin"/><child link="{side}_foot"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <link name="{side}_foot"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="{offset} 0 -0.06"/><geometry>{foot}</geometry></collision></link>
"""


def write_robot(folder, feet: int, foot: str, offset: float = 0.0, srdf: str | None = None) -> str:
    """A URDF of a pelvis on ``feet`` legs (2: along y; 4: at the corners) ending in the
    collision geometry ``foot`` (its centre ``offset`` m ahead of the ankle, 6 cm below)."""
    places = {2: [("left", 0.1, 0.0), ("right", -0.1, 0.0)],
              4: [("lf", 0.15, 0.25), ("rf", -0.15, 0.25), ("lh", 0.15, -0.25), ("rh", -0.15, -0.25)]}[feet]
    legs = []
    for side, y, x in places:
        leg = LEG.format(side=side, y=y, offset=offset, foot=foot)
        legs.append(leg.replace('<origin xyz="0 {y} -0.1"/>'.format(y=y), f'<origin xyz="{x} {y} -0.1"/>'))
    text = ('<robot name="synthetic"><link name="pelvis"><inertial><mass value="10"/>'
            '<inertia ixx="0.2" iyy="0.2" izz="0.2" ixy="0" ixz="0" iyz="0"/></inertial>'
            '<collision><geometry><box size="0.2 0.3 0.1"/></geometry></collision></link>'
            + "".join(legs) + "</robot>")
    path = folder / "synthetic.urdf"
    path.write_text(text)
    if srdf is not None:
        (folder / "synthetic.srdf").write_text(srdf)
    return str(path)


def geometry_of(path: str):
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    return model, pin.buildGeomFromUrdf(model, path, pin.COLLISION)


def test_a_box_foot_is_a_sole_of_its_bottom_face_centred_where_the_box_is(tmp_path):
    """Box feet 0.22 × 0.10 × 0.02 m, 4 cm ahead of the ankle and 6 cm below it: each sole is
    the box's bottom face — that size, its centre 4 cm ahead and 7 cm below the ankle, axes
    ground-aligned."""
    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>', offset=0.04)
    model, collision = geometry_of(path)
    feet = find_feet(model, pin.neutral(model), collision)
    assert [foot.body for foot in feet] == ["left_foot", "right_foot"]
    for foot in feet:
        assert foot.sole_size == pytest.approx((0.22, 0.10), abs=1e-12)
        np.testing.assert_allclose(foot.placement.translation, [0.04, 0.0, -0.07], atol=1e-12)
        np.testing.assert_allclose(foot.placement.rotation, np.eye(3), atol=1e-12)


def test_a_sphere_foot_is_a_point_at_its_bottom_with_its_radius(tmp_path):
    path = write_robot(tmp_path, 4, '<sphere radius="0.025"/>')
    model, collision = geometry_of(path)
    feet = find_feet(model, pin.neutral(model), collision)
    assert len(feet) == 4 and all(foot.sole_size is None for foot in feet)
    for foot in feet:
        assert foot.radius == pytest.approx(0.025, abs=1e-12)
        np.testing.assert_allclose(foot.placement.translation, [0.0, 0.0, -0.085], atol=1e-12)


BENT = {"hip": -0.4, "knee": 0.8, "ankle": -0.4}          # knees bent 0.8 rad: the legs at cos(0.4) = 0.92


def test_a_tilted_posture_is_levelled_and_put_on_the_ground(tmp_path):
    """An SRDF posture with both ankles bent 5° more than the hips and knees ask for (the
    knees bent enough): the standing posture turns the robot so the soles lie flat and puts
    them at z = 0 (pinocchio's placements of the contact frames), the joints as the SRDF set
    them."""
    values = dict(BENT, ankle=BENT["ankle"] + 0.0873)
    srdf = ('<robot name="synthetic"><group_state name="bent" group="all">'
            + "".join(f'<joint name="{side}_{joint}" value="{value}"/>' for side in ("left", "right")
                      for joint, value in values.items()) + '</group_state></robot>')
    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>', srdf=srdf)
    robot = tp.robots.load(path)
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, robot.q_ref)
    for foot in robot.feet:
        placement = data.oMf[model.getFrameId(foot)]
        assert placement.translation[2] == pytest.approx(0.0, abs=1e-12)
        assert placement.rotation[2, 2] == pytest.approx(1.0, abs=1e-12)
    assert robot.q_ref[robot.joint_q_index("left_ankle")] == pytest.approx(values["ankle"])
    assert robot.q_ref[robot.joint_q_index("left_knee")] == pytest.approx(values["knee"])
    assert robot.floating_base and robot.sole_size == pytest.approx((0.22, 0.10))


def test_a_leg_in_the_air_is_not_a_foot_and_an_arm_on_its_pedestal_is_fixed(tmp_path):
    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>',
                       srdf='<robot name="synthetic"><group_state name="step" group="all">'
                            '<joint name="left_hip" value="-0.6"/><joint name="left_knee" value="1.2"/></group_state>'
                            '</robot>')
    model, collision = geometry_of(path)
    q = pin.neutral(model)
    for joint, value in (("left_hip", -0.6), ("left_knee", 1.2)):      # the left leg lifted
        q[model.joints[model.getJointId(joint)].idx_q] = value
    assert [foot.body for foot in find_feet(model, q, collision)] == ["right_foot"]
    arm = tp.robots.load(data_root() / "ur_description/urdf/ur5_robot.urdf")
    assert not arm.floating_base and arm.end_effector == "tool0" and not arm.feet


@pytest.mark.parametrize("name, path, feet, sole", [
    ("romeo", "romeo_description/urdf/romeo.urdf", 2, True),
    ("icub", "icub_description/robots/icub.urdf", 2, True),
    ("alexander", "alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf", 2, True),
    ("simple_humanoid", "simple_humanoid_description/urdf/simple_humanoid.urdf", 2, True),
    ("a1", "a1_description/urdf/a1.urdf", 4, False),
    ("anymal_c", "anymal_c_simple_description/urdf/anymal.urdf", 4, False),
    ("hyq", "hyq_description/robots/hyq_no_sensors.urdf", 4, False),
])
def test_robots_the_library_does_not_know_load_standing_on_their_feet(name, path, feet, sole):
    """Each stands at its SRDF posture with its soles flat on z = 0 (or its point feet's
    contact points on it), the CoM above the support polygon (the hull of the soles' corners
    or of the point feet); its profile has the feet."""
    from tsid_py.control.capture_point import SupportPolygon, sole_corners

    robot = tp.robots.load(data_root() / path)
    assert robot.floating_base and len(robot.feet) == feet and (robot.sole_size is not None) == sole
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    heights = [data.oMf[robot.frame_id(foot)].translation[2] for foot in robot.feet]
    # every foot on the floor, not only the lowest: Simple Humanoid's fit left its right sole
    # 5.1 mm up, which MuJoCo dropped and its controller did not
    assert min(heights) == pytest.approx(0.0, abs=1e-9) and max(heights) < 1e-4
    if sole:
        tilt = max(np.arccos(np.clip(data.oMf[robot.frame_id(f)].rotation[2, 2], -1, 1)) for f in robot.feet)
        assert tilt < np.radians(0.5)
    com = pin.centerOfMass(robot.model, data, robot.q_ref)
    robot.update(robot.q_ref, robot.zero_velocity())
    assert SupportPolygon(sole_corners(robot)).contains(com[:2])
    assert robot.profile.feet == tuple(robot.feet) and robot.profile.leg_joints


def test_romeo_stands_on_soles_whose_centre_is_ahead_of_its_ankles():
    """Romeo's sole mesh: 0.195 × 0.126 m, its centre 2.4 cm ahead of the ankle joint (the
    frame a user would take for the sole; the issue measured 2.1 cm by hand)."""
    robot = tp.robots.load(data_root() / "romeo_description/urdf/romeo.urdf")
    assert robot.sole_size == pytest.approx((0.195, 0.126), abs=0.002)
    frame = robot.model.frames[robot.frame_id(robot.feet[0])]
    ahead = frame.placement.translation[0]
    assert 0.015 < ahead < 0.03


def test_a_file_that_is_not_a_robot_is_named():
    with pytest.raises(KeyError, match="neither built in .available"):
        tp.robots.load("no_such_robot")
    with pytest.raises(ValueError, match="URDF"):
        tp.robots.load(__file__)
    with pytest.raises(ValueError, match="srdf"):
        tp.robots.load(data_root() / "romeo_description/urdf/romeo.urdf", srdf="missing.srdf")


# ------------------------------------------------------------------ legs, standing postures, gaits
def srdf_of(values: dict) -> str:
    """An SRDF with one group state setting each joint of ``values`` on both legs."""
    return ('<robot name="synthetic"><group_state name="standing" group="all">'
            + "".join(f'<joint name="{side}_{joint}" value="{value}"/>' for side in ("left", "right")
                      for joint, value in values.items()) + '</group_state></robot>')


def test_the_knee_is_the_joint_that_folds_the_leg_and_its_extension_is_the_cosine_of_half_its_bend(tmp_path):
    """The synthetic leg: thigh and shank 0.4 m each, knee about y, straight at 0. Bent by θ,
    the hip-to-ankle distance is 0.8 cos(θ/2) (the isosceles triangle), the hip 0.1 m above the
    leg's start and the sole 0.07 m below the ankle."""
    from tsid_py.models.legs import leg_geometry

    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>')
    model, _ = geometry_of(path)
    for bend in (0.0, 0.6, 1.2):
        q = pin.neutral(model)
        for joint, value in (("left_hip", -bend / 2), ("left_knee", bend), ("left_ankle", -bend / 2)):
            q[model.joints[model.getJointId(joint)].idx_q] = value
        model.addFrame(pin.Frame(f"sole{bend}", model.getJointId("left_ankle"), 0, pin.SE3(np.eye(3), np.array([0, 0, -0.07])),
                                 pin.FrameType.OP_FRAME))
        leg = leg_geometry(model, q, f"sole{bend}")
        assert model.names[leg.knee] == "left_knee"
        assert leg.straight == pytest.approx(0.0, abs=2e-3)
        assert leg.straight_length == pytest.approx(0.8, abs=1e-6)
        assert leg.extension == pytest.approx(np.cos(bend / 2), abs=1e-6)
        assert leg.hip_height == pytest.approx(0.8 * np.cos(bend / 2) + 0.07, abs=1e-6)


def test_a_straight_legged_posture_stands_on_bent_knees_with_the_feet_and_com_where_they_were(tmp_path):
    """The neutral posture stands on straight legs, the knees at their limit (0): the standing
    posture bends them to 95 % of the straight leg, the soles flat on z = 0 where they stood
    and the CoM above the same point (pinocchio's kinematics of the result)."""
    from tsid_py.models.legs import leg_geometry
    from tsid_py.models.posture import MAX_EXTENSION

    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>')
    model, _ = geometry_of(path)
    straight = model.createData()
    q0 = pin.neutral(model)
    q0[2] = 1.0
    pin.framesForwardKinematics(model, straight, q0)
    robot = tp.robots.load(path)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    for foot, side in zip(robot.feet, ("left", "right")):
        leg = leg_geometry(robot.model, robot.q_ref, foot)
        assert leg.extension == pytest.approx(MAX_EXTENSION, abs=2e-3)
        assert robot.q_ref[robot.joint_q_index(f"{side}_knee")] > 0.5           # bent forward, inside [0, 2.5]
        placement = data.oMf[robot.frame_id(foot)]
        assert placement.translation[2] == pytest.approx(0.0, abs=1e-9)
        assert placement.rotation[2, 2] == pytest.approx(1.0, abs=1e-6)
        ankle = straight.oMi[model.getJointId(f"{side}_ankle")].translation
        np.testing.assert_allclose(placement.translation[:2], ankle[:2] + [0.0, 0.0], atol=1e-4)
    com = pin.centerOfMass(robot.model, data, robot.q_ref)
    np.testing.assert_allclose(com[:2], pin.centerOfMass(model, straight, q0)[:2], atol=2e-3)


def test_a_posture_outside_the_joint_ranges_is_brought_inside(tmp_path):
    """The SRDF puts the knees at 2.8 rad, beyond their 2.5 rad limit: the standing posture
    has every joint inside its range. A revolute joint a whole turn outside its range is
    turned back (the same pose), one that is not is clipped."""
    from tsid_py.models.posture import posture_in_ranges

    path = write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>', srdf=srdf_of({"hip": -1.4, "knee": 2.8, "ankle": -1.4}))
    robot = tp.robots.load(path)
    q, low, high = robot.q_ref[7:], robot.position_lower, robot.position_upper
    assert np.all(q >= low - 1e-9) and np.all(q <= high + 1e-9)
    model, _ = geometry_of(path)
    q = pin.neutral(model)
    knee, hip = (model.joints[model.getJointId(name)].idx_q for name in ("left_knee", "left_hip"))
    q[knee], q[hip] = 0.5 - 2 * np.pi, 2.0
    inside = posture_in_ranges(model, q)
    assert inside[knee] == pytest.approx(0.5) and inside[hip] == pytest.approx(1.5)


def test_the_gait_scales_with_the_com_height_and_stays_within_the_legs_reach():
    """Lengths ∝ z and times ∝ √(z/g) (dynamic similarity): a robot four times as tall takes
    steps four times as long and twice as slow; at Talos's CoM height the sizes are Talos's
    measured ones. The step is cut to ``2 √((REACH ℓ_s)² − ℓ²)`` when that is shorter."""
    from tsid_py.models.gait import REACH, gait_for_size

    small, large = gait_for_size(0.25), gait_for_size(1.0)
    assert large.step_length == pytest.approx(4 * small.step_length)
    assert large.step_height == pytest.approx(4 * small.step_height)
    assert large.single_support == pytest.approx(2 * small.single_support)
    assert large.double_support == pytest.approx(2 * small.double_support)
    talos = gait_for_size(0.877)
    assert (talos.step_length, talos.lateral_step, talos.step_height) == pytest.approx((0.25, 0.10, 0.05), abs=1e-3)
    reach = gait_for_size(1.0, straight_length=0.8, leg_length=0.78)
    assert reach.step_length == pytest.approx(2 * np.sqrt((REACH * 0.8) ** 2 - 0.78**2))
    assert reach.step_length < gait_for_size(1.0).step_length
    with pytest.raises(ValueError, match="com_height"):
        gait_for_size(-1.0)


def test_a_loaded_robot_walks_with_the_gait_of_its_com_height(tmp_path):
    """The profile's gait is :func:`gait_for_size` of the CoM height above the soles (pinocchio's
    CoM at the profile's posture), within the reach of its legs."""
    from tsid_py.models.gait import gait_for_size
    from tsid_py.models.legs import leg_geometry

    robot = tp.robots.load(write_robot(tmp_path, 2, '<box size="0.22 0.10 0.02"/>', srdf=srdf_of(BENT)))
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    height = pin.centerOfMass(robot.model, data, robot.q_ref)[2] - data.oMf[robot.frame_id(robot.feet[0])].translation[2]
    legs = [leg_geometry(robot.model, robot.q_ref, foot) for foot in robot.feet]
    assert robot.profile.gait == gait_for_size(height, robot.gravity, straight_length=legs[0].straight_length,
                                               leg_length=max(leg.length for leg in legs))
    assert tp.robots.load("talos").profile.gait.single_support == 0.6           # a built-in robot's measured gait


def test_sphere_feet_make_a_sole_between_the_points_they_touch_the_ground_at(tmp_path):
    """A foot of four 5 mm spheres 0.17 m × 0.06 m apart (G1's): the sole is the rectangle of
    their lowest points, 0.17 × 0.06 m — not of the spheres, 0.18 × 0.07 m."""
    spheres = "".join(f'<collision><origin xyz="{x} {y} -0.055"/><geometry><sphere radius="0.005"/></geometry></collision>'
                      for x in (-0.05, 0.12) for y in (-0.03, 0.03))
    text = write_robot(tmp_path, 2, '<box size="0.01 0.01 0.01"/>')
    box = '<collision><origin xyz="0.0 0 -0.06"/><geometry><box size="0.01 0.01 0.01"/></geometry></collision>'
    urdf = open(text).read()
    assert urdf.count(box) == 2
    open(text, "w").write(urdf.replace(box, spheres))
    model, collision = geometry_of(text)
    feet = find_feet(model, pin.neutral(model), collision)
    assert [foot.sole_size for foot in feet] == [pytest.approx((0.17, 0.06), abs=1e-9)] * 2
    np.testing.assert_allclose(feet[0].placement.translation, [0.035, 0.0, -0.06], atol=1e-9)


def weak_kneed_robot(folder, knee_effort: float) -> str:
    """The synthetic biped (26 kg, knees about y between 0.4 m links) on soles wide enough
    (0.22 m) to hold it on one of them, its CoM 0.1 m to the side, its knees' torque limit
    ``knee_effort`` N·m (the hips' 200, the ankles' 100)."""
    path = write_robot(folder, 2, '<box size="0.22 0.22 0.02"/>')
    text = open(path).read()
    knee = '<axis xyz="0 1 0"/><limit lower="0" upper="2.5" effort="200"'
    assert text.count(knee) == 2
    open(path, "w").write(text.replace(knee, knee.replace('effort="200"', f'effort="{knee_effort}"')))
    return path


def one_sole_knee_share(robot, q, foot) -> dict:
    """The static-torque LP (HiGHS, :func:`~tsid_py.models.check.torques.static_torque_ratio`)
    on ``foot`` alone: with a single sole's wrench determined by the base's equilibrium, its
    ratio is each joint's |τ| / limit at that wrench, the worst joint's."""
    from tsid_py.models.check.torques import static_torque_ratio

    return static_torque_ratio(robot, q, robot.profile.balance.mu, feet=[foot])


def test_a_posture_whose_knee_holds_one_sole_near_its_limit_is_straightened_until_it_holds_it_with_half(
        tmp_path, monkeypatch):
    """Knees of 40 N·m: at 95 % of the straight leg (rule 4) a knee holds the robot on one
    sole with more than half its limit (the LP: the knee is the worst joint; without rule 5
    the posture stays there, so the assertion can fail); rule 5 straightens the legs until
    the LP's share is at most :data:`KNEE_TORQUE_SHARE` (to the fit's tolerance), the soles
    flat on z = 0, straighter than rule 4 and no straighter than :func:`straightest_extension`.
    The module's closed-form share agrees with the LP on both postures."""
    import tsid_py.models.posture as posture
    from tsid_py.models.legs import leg_geometry

    path = weak_kneed_robot(tmp_path, 40.0)
    with monkeypatch.context() as patch:
        patch.setattr(posture, "KNEE_TORQUE_SHARE", np.inf)           # rule 5 off: rule 4's posture
        bent = tp.robots.load(path)
    straightened = tp.robots.load(path)
    shares = []
    for robot in (bent, straightened):
        q = robot.q_ref
        lp = [one_sole_knee_share(robot, q, foot) for foot in robot.feet]
        assert all(result["joint"].endswith("_knee") for result in lp)
        share = max(result["ratio"] for result in lp)
        assert posture.single_support_knee_share(robot.model, q, robot.feet) == pytest.approx(share, abs=1e-6)
        shares.append(share)
    assert shares[0] > posture.KNEE_TORQUE_SHARE + 0.05
    assert shares[1] <= posture.KNEE_TORQUE_SHARE + 0.01
    bent_legs = [leg_geometry(bent.model, bent.q_ref, foot) for foot in bent.feet]
    legs = [leg_geometry(straightened.model, straightened.q_ref, foot) for foot in straightened.feet]
    cap = posture.straightest_extension(straightened.model, straightened.q_ref, straightened.feet, legs)
    for before, after in zip(bent_legs, legs):
        assert before.extension == pytest.approx(posture.MAX_EXTENSION, abs=2e-3)
        assert posture.MAX_EXTENSION + 0.005 < after.extension <= cap + 2e-3
    data = straightened.model.createData()
    pin.framesForwardKinematics(straightened.model, data, straightened.q_ref)
    for foot in straightened.feet:
        placement = data.oMf[straightened.frame_id(foot)]
        assert placement.translation[2] == pytest.approx(0.0, abs=1e-6)
        assert placement.rotation[2, 2] == pytest.approx(1.0, abs=1e-6)


def test_knees_too_weak_for_any_reachable_posture_are_straightened_only_as_far_as_the_gait_reaches(tmp_path):
    """Knees of 15 N·m need a nearly straight leg: rule 5 stops at
    :func:`straightest_extension`, where the gait's size-rule step is still within the legs'
    reach (:func:`~tsid_py.models.gait.gait_for_size` keeps it whole), the knee's share still
    above the target — the LP says so, and ``tsid-py check-robot`` names it
    (``single-support-near-torque-limits`` has no sway to fit without hip rolls: the synthetic
    legs have none, so the share is read off the LP here)."""
    import tsid_py.models.posture as posture
    from tsid_py.models.gait import STEP_LENGTH
    from tsid_py.models.legs import leg_geometry

    robot = tp.robots.load(weak_kneed_robot(tmp_path, 15.0))
    legs = [leg_geometry(robot.model, robot.q_ref, foot) for foot in robot.feet]
    cap = posture.straightest_extension(robot.model, robot.q_ref, robot.feet, legs)
    assert all(leg.extension == pytest.approx(cap, abs=2e-3) for leg in legs)
    assert max(one_sole_knee_share(robot, robot.q_ref, foot)["ratio"] for foot in robot.feet) > posture.KNEE_TORQUE_SHARE
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q_ref)
    height = pin.centerOfMass(robot.model, data, robot.q_ref)[2]
    assert robot.profile.gait.step_length == pytest.approx(STEP_LENGTH * height, rel=0.02)


def test_the_knee_share_on_one_sole_down_a_step_is_rnea_s_knee_torque_under_the_weight_through_the_com():
    """iCub (example-robot-data) with its legs 5 cm shorter than it stands (the stance leg of
    a 5 cm step down, :func:`~tsid_py.models.posture.posture_at_extension`), still on one sole:
    the floor's wrench is the robot's weight through its CoM — a closed form, force ``m g`` up
    and moment ``(c − p) × m g`` about the sole's origin ``p`` — which balances RNEA's gravity
    wrench on the floating base exactly; the knee's torque is RNEA's gravity torque less
    ``J_kneeᵀ`` of that wrench, and :func:`~tsid_py.models.posture.single_support_knee_share`
    is the larger of the two knees' |τ| / limit. Straightening the legs back lowers it."""
    from tsid_py.models.legs import leg_geometry

    robot = tp.robots.load(data_root() / "icub_description/robots/icub.urdf")
    model, feet = robot.model, list(robot.feet)
    legs = [leg_geometry(model, robot.q_ref, foot) for foot in feet]
    extension = min(leg.extension for leg in legs) - 0.05 / min(leg.straight_length for leg in legs)
    q = tp.models.posture.posture_at_extension(model, robot.q_ref, feet, extension)
    assert min(leg_geometry(model, q, foot).extension for foot in feet) == pytest.approx(extension, abs=2e-3)
    data = model.createData()
    gravity = pin.rnea(model, data, q, np.zeros(model.nv), np.zeros(model.nv))
    weight = pin.computeTotalMass(model) * np.linalg.norm(model.gravity.linear)
    com = pin.centerOfMass(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    torques = []
    for foot, leg in zip(feet, legs):
        sole = data.oMf[model.getFrameId(foot)]
        force = np.array([0.0, 0.0, weight])
        moment = np.cross(com - sole.translation, force)
        local = np.r_[sole.rotation.T @ force, sole.rotation.T @ moment]
        jacobian = pin.getFrameJacobian(model, data, model.getFrameId(foot), pin.LOCAL)
        residual = gravity - jacobian.T @ local
        np.testing.assert_allclose(residual[:6], 0.0, atol=1e-9 * weight)
        index = model.joints[leg.knee].idx_v
        torques.append(abs(residual[index]) / model.effortLimit[index])
    share = tp.models.posture.single_support_knee_share(model, q, feet)
    assert share == pytest.approx(max(torques), rel=1e-9)
    assert tp.models.posture.single_support_knee_share(model, robot.q_ref, feet) < share


def test_a_legs_joints_are_its_chain_from_the_base_to_the_foot():
    """``leg_joints``: G1's six 1-dof joints from each hip to its ankle, in order, as
    ``leg_geometry`` finds them; an unknown frame is named in a KeyError."""
    from tsid_py.models.legs import leg_geometry, leg_joints

    robot = tp.robots.load("g1")
    model = robot.model
    for foot, side in zip(robot.feet, ("left", "right")):
        joints = leg_joints(model, foot)
        assert [model.names[joint] for joint in joints] == [
            f"{side}_{name}_joint" for name in ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")]
        assert joints == leg_geometry(model, robot.q_ref, foot).joints
    with pytest.raises(KeyError, match="no_such_sole"):
        leg_joints(model, "no_such_sole")
