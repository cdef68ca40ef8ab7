"""The model check (tsid_py.models.check, ``tsid-py check-robot``) against truths the test
knows: robot files it writes with one known defect each (a posture outside a range, a
gravity torque above a limit, an inertia breaking the triangle inequality, a frame name taken
twice, an SRDF naming a missing link, a tilted sole, a sole off its ankle, a Collada foot
declared Y-up), pinocchio's own answers, and example-robot-data's robots (simple_humanoid's
posture outside its ranges, romeo's sole ahead of its ankle, iCub's feet misread by coal)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.models.check import check_robot
from tsid_py.models.check.stance import mirror_of, support_margin
from tsid_py.models.check.urdf_text import inertia_is_valid, nearest_valid_moments
from tsid_py.robots import data_root

from .test_profiles import LEG as PROFILE_LEG

BOX_INERTIA = 'ixx="{0}" iyy="{0}" izz="{0}" ixy="0" ixz="0" iyz="0"'

#: test_profiles' leg, its knee range, foot geometry kind and orientation, and foot centre of
#: mass made parameters.
LEG = (PROFILE_LEG.replace('lower="0" upper="2.5"', 'lower="{knee_lower}" upper="{knee_upper}"')
       .replace('<collision><origin xyz="{offset} 0 -0.06"/>', '<{kind}><origin xyz="{offset} 0 -0.06" rpy="{rpy}"/>')
       .replace("</collision>", "</{kind}>")
       .replace('<link name="{side}_foot"><inertial><mass', '<link name="{side}_foot"><inertial><origin xyz="{com}"/><mass'))
assert all(key in LEG for key in ("{knee_lower}", "{kind}", "{rpy}", "{com}")), "test_profiles.LEG changed"


def write_biped(folder: Path, *, foot='<box size="0.22 0.10 0.02"/>', offset=0.0, rpy="0 0 0", kind="collision",
                knees=((0.0, 2.5), (0.0, 2.5)), arm_effort=50.0, arm_mass=2.0, extra="", srdf=None,
                foot_com="0 0 -0.06", name="biped") -> str:
    """A URDF of a pelvis on two legs (hip, knee, ankle pitch; box feet 6 cm below the
    ankles, ``offset`` ahead) and an arm on the pelvis: a massless rod and a point-like
    ``arm_mass`` kg 0.3 m along x (horizontal at q = 0), its joint's effort ``arm_effort``;
    ``extra`` is inserted into the <robot>; ``srdf`` written beside it."""
    legs = "".join(LEG.format(side=side, y=y, offset=offset, foot=foot, rpy=rpy, kind=kind, knee_lower=lower,
                              knee_upper=upper, com=foot_com)
                   for (side, y), (lower, upper) in zip((("left", 0.1), ("right", -0.1)), knees))
    arm = (f'<joint name="arm_joint" type="revolute"><parent link="pelvis"/><child link="arm"/>'
           f'<origin xyz="0 0 0.2"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="{arm_effort}" '
           f'velocity="5"/></joint><link name="arm"><inertial><origin xyz="0.3 0 0"/><mass value="{arm_mass}"/>'
           f'<inertia {BOX_INERTIA.format(1e-4)}/></inertial></link>')
    text = (f'<robot name="{name}"><link name="pelvis"><inertial><mass value="10"/><inertia {BOX_INERTIA.format(0.2)}/>'
            '</inertial><collision><geometry><box size="0.2 0.3 0.1"/></geometry></collision></link>'
            + legs + arm + extra + "</robot>")
    path = folder / f"{name}.urdf"
    path.write_text(text)
    if srdf is not None:
        (folder / f"{name}.srdf").write_text(srdf)
    return str(path)


def bent(**values) -> str:
    """A group state with both legs bent (hips -0.15, knees 0.3, ankles -0.15 rad: the soles
    stay parallel to the pelvis), and ``values``."""
    return group_state(**{**{f"{side}_{joint}": value for side in ("left", "right")
                             for joint, value in (("hip", -0.15), ("knee", 0.3), ("ankle", -0.15))}, **values})


def group_state(**values) -> str:
    joints = "".join(f'<joint name="{joint}" value="{value}"/>' for joint, value in values.items())
    return f'<robot name="biped"><group_state name="stand" group="all">{joints}</group_state></robot>'


def findings_of(report, code: str):
    return [finding for finding in report.findings if finding.code == code]


def only(report, code: str):
    found = findings_of(report, code)
    assert len(found) == 1, [f.describe() for f in report.findings]
    return found[0]


# ------------------------------------------------------------------------------------ synthetic robots
def test_a_clean_robot_has_no_error_and_its_facts_are_the_files(tmp_path):
    """The biped as written: no error, and one warning: its legs (hip pitch, knee, ankle pitch)
    cannot sway its CoM over a sole, no joint at a limit; its mass is the file's (10 + 2 × 8 +
    2 kg), its feet the loader's, its base floating."""
    report = check_robot(write_biped(tmp_path, srdf=bent()))
    assert not report.errors and report.codes("warning") == {"walk-out-of-reach"}, report.format()
    sway = only(report, "walk-out-of-reach")
    assert sway.values["joints"] == [] and "legs without a hip roll cannot sway" in sway.problem
    assert sway.values["com_error_m"] == pytest.approx([0.1, 0.1], abs=0.04)     # the soles are 0.2 m apart
    assert report.facts["mass_kg"] == pytest.approx(28.0)
    assert report.facts["base"] == "floating" and report.facts["feet"] == ["left_foot_sole", "right_foot_sole"]
    assert report.facts["posture"] == "stand" and report.facts["feet_source"] == "collision"


def test_a_posture_outside_a_range_is_an_error_naming_the_joint_and_the_mirror_that_holds_it(tmp_path):
    """The left knee's range copied mirrored ([-2.5, 0]); the posture bends both knees 0.5 rad:
    the left one is 0.5 rad outside, and the right knee's range [0, 2.5] holds the value."""
    path = write_biped(tmp_path, knees=((-2.5, 0.0), (0.0, 2.5)), srdf=group_state(left_knee=0.5, right_knee=0.5))
    report = check_robot(path)
    finding = only(report, "posture-outside-range")
    assert finding.severity == "error" and finding.element == "joint 'left_knee'" and finding.file == path
    assert finding.values["value"] == pytest.approx(0.5) and finding.values["beyond"] == pytest.approx(0.5)
    assert (finding.values["lower"], finding.values["upper"]) == (-2.5, 0.0)
    assert finding.values["mirror"] == "right_knee" and "[0, 2.5], which holds the value" in finding.problem
    assert "MuJoCo enforces the range" in finding.fix and finding.applied_by is None
    asymmetric = only(report, "asymmetric-ranges")
    assert asymmetric.values["pairs"]["left_knee"]["mirror"] == "right_knee"
    inside = check_robot(write_biped(tmp_path, srdf=group_state(left_knee=0.5, right_knee=0.5)))
    assert not findings_of(inside, "posture-outside-range")


def test_gravity_torque_above_and_near_the_limit(tmp_path):
    """The arm's joint holds 2 kg at 0.3 m whatever the feet do: τ = m g l = 5.886 N·m. An
    effort of 5 N·m is 1.18 of it short (an error naming the joint), 7 N·m leaves 16 % (a
    warning), 50 N·m is no finding."""
    torque = 2.0 * 9.81 * 0.3
    for effort, code in ((5.0, "gravity-above-torque-limits"), (7.0, "gravity-near-torque-limits")):
        report = check_robot(write_biped(tmp_path, arm_effort=effort, srdf=bent()))
        finding = only(report, code)
        assert finding.element == "joint 'arm_joint'"
        assert abs(finding.values["torque"]) == pytest.approx(torque, rel=1e-9)
        assert finding.values["ratio"] == pytest.approx(torque / effort, rel=1e-6)
    report = check_robot(write_biped(tmp_path, arm_effort=50.0, srdf=bent()))
    assert not findings_of(report, "gravity-above-torque-limits") and not findings_of(report, "gravity-near-torque-limits")
    assert report.facts["gravity_torque_ratio"] < 0.8


def test_a_fixed_base_arm_holding_a_horizontal_link_needs_m_g_l(tmp_path):
    path = tmp_path / "pendulum.urdf"
    path.write_text('<robot name="pendulum"><link name="base"/><joint name="shoulder" type="revolute"><parent link="base"/>'
                    '<child link="rod"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="2"/>'
                    f'</joint><link name="rod"><inertial><origin xyz="0.5 0 0"/><mass value="3"/><inertia '
                    f'{BOX_INERTIA.format(1e-3)}/></inertial></link></robot>')
    report = check_robot(path)
    finding = only(report, "gravity-above-torque-limits")
    assert report.facts["base"] == "fixed" and only(report, "fixed-base").severity == "note"
    assert finding.values["ratio"] == pytest.approx(3 * 9.81 * 0.5 / 10, rel=1e-9)


def test_an_inertia_breaking_the_triangle_inequality_gets_the_nearest_valid_moments(tmp_path):
    """Moments (1, 1, 5)·1e-3 kg·m² break A + B ≥ C by d = 3e-3; the nearest valid moments
    move each by d/3 along (1, 1, −1) (the projection on one face): (2, 2, 4)·1e-3."""
    extra = ('<joint name="camera_joint" type="fixed"><parent link="pelvis"/><child link="camera"/></joint>'
             '<link name="camera"><inertial><mass value="0.2"/><inertia ixx="1e-3" iyy="1e-3" izz="5e-3" ixy="0" '
             'ixz="0" iyz="0"/></inertial></link>')
    finding = only(check_robot(write_biped(tmp_path, extra=extra)), "invalid-inertia")
    assert finding.element == "link 'camera'" and finding.severity == "warning" and finding.applied_by == "harness"
    assert "A + B >= C" in finding.problem
    np.testing.assert_allclose(sorted(finding.values["nearest_valid_moments"]), [2e-3, 2e-3, 4e-3], atol=1e-8)


def test_inertia_validity_and_projection_on_known_cases():
    assert inertia_is_valid([2.0, 3.0, 4.0]) and inertia_is_valid([0.0, 0.0, 0.0])
    assert not inertia_is_valid([1.0, 1.0, 2.5]) and not inertia_is_valid([-1e-3, 1.0, 1.0])
    assert not inertia_is_valid([1.0, 2.0, 3.0])       # a lamina: on the boundary, which MuJoCo's round-off refuses
    np.testing.assert_allclose(nearest_valid_moments([2.0, 3.0, 4.0]), [2.0, 3.0, 4.0])
    fixed = nearest_valid_moments([-1e-3, 1.0, 1.0])                       # a negative moment: raised to the margin
    np.testing.assert_allclose(fixed, [1e-9, 1.0, 1.0], atol=1e-8)
    rng = np.random.default_rng(3)
    for moments in rng.normal(size=(20, 3)):
        fixed = nearest_valid_moments(moments)
        assert inertia_is_valid(fixed)
        # no valid point on a grid around it is nearer (the projection is the nearest)
        for step in itertools.product((-0.05, 0.0, 0.05), repeat=3):
            other = fixed + np.array(step)
            if inertia_is_valid(other):
                assert np.linalg.norm(other - moments) >= np.linalg.norm(fixed - moments) - 1e-9


def test_a_frame_name_shared_by_a_joint_and_another_link_is_ambiguous(tmp_path):
    """A fixed link 'torso' on the pelvis and the arm's joint named 'torso' too: two frames
    of one name, placed differently; pinocchio's getFrameId refuses the name."""
    extra = ('<joint name="torso_fix" type="fixed"><parent link="pelvis"/><child link="torso"/>'
             '<origin xyz="0 0 0.3"/></joint><link name="torso"/>')
    path = write_biped(tmp_path, extra=extra).replace("biped.urdf", "biped.urdf")
    Path(path).write_text(Path(path).read_text().replace('name="arm_joint"', 'name="torso"'))
    finding = only(check_robot(path), "ambiguous-frame-name")
    assert finding.severity == "warning" and "'torso'" in finding.element
    model = pin.buildModelFromUrdf(path)
    with pytest.raises(ValueError, match="Several frames"):
        model.getFrameId("torso")


def test_duplicate_link_names_are_an_error_and_the_load_failure_is_reported(tmp_path):
    path = write_biped(tmp_path, extra='<link name="arm"/>')
    report = check_robot(path)
    assert only(report, "duplicate-link-name").values["names"] == ["arm"]
    assert only(report, "load-failed").severity == "error"


def test_srdf_names_missing_from_the_urdf_are_named(tmp_path):
    srdf = ('<robot name="biped"><group name="leg"><chain base_link="pelvis" tip_link="left_foot"/></group>'
            '<end_effector name="foot" parent_link="r_foot" group="leg"/>'
            '<end_effector name="ok" parent_link="left_foot" group="leg"/>'
            '<group_state name="stand" group="all"><joint name="left_knee" value="0.2"/>'
            '<joint name="no_such_joint" value="1"/></group_state></robot>')
    report = check_robot(write_biped(tmp_path, srdf=srdf))
    links = only(report, "srdf-unknown-link")
    assert links.values["names"] == ["r_foot"] and links.file.endswith("biped.srdf")
    assert "right_foot" in links.problem                                   # the close match
    assert only(report, "srdf-unknown-joint").values["joints"] == ["no_such_joint"]
    assert set(only(report, "posture-leaves-joints").values["joints"]) == {
        "left_hip", "right_hip", "right_knee", "left_ankle", "right_ankle", "arm_joint"}


def test_mimic_and_continuous_joints_are_named(tmp_path):
    extra = ('<joint name="wrist" type="continuous"><parent link="arm"/><child link="hand"/><axis xyz="1 0 0"/>'
             '<limit effort="5" velocity="3"/></joint><link name="hand"><inertial><mass value="0.1"/>'
             f'<inertia {BOX_INERTIA.format(1e-4)}/></inertial></link>'
             '<joint name="finger" type="revolute"><parent link="hand"/><child link="tip"/><axis xyz="0 1 0"/>'
             '<limit lower="0" upper="1" effort="0" velocity="1"/><mimic joint="arm_joint" multiplier="0.5"/></joint>'
             f'<link name="tip"><inertial><mass value="0.01"/><inertia {BOX_INERTIA.format(1e-6)}/></inertial></link>')
    report = check_robot(write_biped(tmp_path, extra=extra))
    mimic = only(report, "mimic-joints")
    assert mimic.values["couplings"] == {"finger": {"primary": "arm_joint", "multiplier": 0.5, "offset": 0.0}}
    assert [(c.joint, c.primary, c.multiplier) for c in tp.robots.load(report.path).mimic_joints] == [
        ("finger", "arm_joint", 0.5)]                                         # what the note says the loader keeps
    assert only(report, "continuous-joints").values["joints"] == ["wrist"]
    assert only(report, "no-effort-limit").values["joints"] == ["finger"]


def test_tilted_soles_are_levelled_and_soles_that_are_not_coplanar_are_a_warning(tmp_path):
    """Both ankles at 0.0873 rad (hips and knees straight): each sole 5.0° off the ground, the
    loader turns the robot by 5.0° and nothing is left. One ankle at 0.03 rad, the other at 0:
    the soles are 1.72° apart, and the loader sets the legs' joints so that each stands flat.
    At 0.1 rad the left toe is 1.1 cm below the right sole: one foot touches, and the loader
    takes the robot for an arm."""
    report = check_robot(write_biped(tmp_path, srdf=group_state(left_ankle=0.0873, right_ankle=0.0873)))
    levelled = only(report, "posture-levelled")
    assert levelled.applied_by == "loader"
    assert levelled.values["levelling_deg"] == pytest.approx(np.degrees(0.0873), abs=1e-6)
    assert all(v == pytest.approx(np.degrees(0.0873), abs=1e-6) for v in levelled.values["tilt_before_deg"].values())
    assert not findings_of(report, "soles-not-coplanar")
    report = check_robot(write_biped(tmp_path, srdf=group_state(left_ankle=0.03, right_ankle=0.0)))
    apart = only(report, "soles-not-coplanar")
    assert apart.severity == "note" and apart.applied_by == "loader"
    assert apart.values["soles_apart_deg"] == pytest.approx(np.degrees(0.03), abs=1e-6)
    assert all(v < np.degrees(1e-4) for v in apart.values["tilt_after_deg"].values())
    report = check_robot(write_biped(tmp_path, srdf=group_state(left_ankle=0.1, right_ankle=0.0)))
    assert report.facts["base"] == "fixed" and only(report, "one-foot-on-the-ground").values["bodies"] == ["left_foot"]


def test_a_sole_off_its_ankle_is_reported_with_its_offset(tmp_path):
    """Box feet 4 cm ahead of the ankles, their bottom 7 cm below: the sole's centre in the
    ankle's frame is (0.04, 0, -0.07)."""
    report = check_robot(write_biped(tmp_path, offset=0.04))
    offsets = findings_of(report, "sole-centre-offset")
    assert [f.element for f in offsets] == ["link 'left_foot'", "link 'right_foot'"]
    for finding in offsets:
        np.testing.assert_allclose(finding.values["in_joint_frame"], [0.04, 0.0, -0.07], atol=1e-12)
        assert finding.values["ahead"] == pytest.approx(0.04, abs=1e-12) and finding.applied_by == "loader"
    assert not findings_of(check_robot(write_biped(tmp_path, offset=0.0)), "sole-centre-offset")


def test_a_sole_wider_than_long_is_a_warning(tmp_path):
    found = findings_of(check_robot(write_biped(tmp_path, foot='<box size="0.10 0.22 0.02"/>')), "sole-wider-than-long")
    assert [finding.element for finding in found] == ["link 'left_foot'", "link 'right_foot'"]
    for finding in found:
        assert finding.severity == "warning"
        assert (finding.values["length"], finding.values["width"]) == pytest.approx((0.10, 0.22))


def collada_box(half_extents, up: str) -> str:
    """A Collada box of the given half extents in the file's own axes, declaring ``up``."""
    corners = np.array(list(itertools.product(*[(-h, h) for h in half_extents])))
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = [index for a, b, c, d in quads for index in (a, b, c, a, c, d)]
    return f'''<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>{up}</up_axis></asset>
  <library_geometries><geometry id="box"><mesh>
    <source id="p"><float_array id="pa" count="24">{" ".join(f"{v:g}" for v in corners.ravel())}</float_array>
      <technique_common><accessor source="#pa" count="8" stride="3"><param name="X" type="float"/>
        <param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="12"><input semantic="VERTEX" source="#v" offset="0"/><p>{" ".join(map(str, triangles))}</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#box"/></node></visual_scene>
  </library_visual_scenes><scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
'''


def test_a_collada_foot_declared_y_up_is_turned_by_the_loader_when_the_robot_says_so(tmp_path):
    """iCub's case, written small: a foot 0.22 m long, 0.10 m wide and 0.02 m high stored in a
    Y-up Collada file (height along the file's x, width along y, length along z, placed by
    rpy (0, π/2, π/2) as the declared axes require). Read as coal reads it (the declaration
    ignored) the sole would be 0.10 m long and 0.22 m wide; the foot's centre of mass, 8 cm
    ahead of the ankle, lies inside the foot only as declared, so the loader turns the mesh
    and the sole is 0.22 by 0.10; the check says it did."""
    (tmp_path / "foot.dae").write_text(collada_box((0.01, 0.05, 0.11), "Y_UP"))
    path = write_biped(tmp_path, foot='<mesh filename="foot.dae"/>', rpy="0 1.5708 1.5708", foot_com="0.08 0 -0.06")
    assert tp.robots.load(path).sole_size == pytest.approx((0.22, 0.10), abs=1e-3)
    report = check_robot(path)
    assert not findings_of(report, "sole-wider-than-long") and not findings_of(report, "collada-axes-ignored")
    axes = only(report, "collada-axes-applied")
    assert axes.severity == "note" and axes.applied_by == "loader"
    assert axes.values["fits"] == {"read": 0, "declared": 2} and "the declaration is right" in axes.problem


def test_a_collada_foot_whose_declaration_is_wrong_is_read_as_stored(tmp_path):
    """The opposite verdict: the same foot stored Z-up (length along the file's x) under a
    wrong ``Y_UP`` header. As stored the foot contains its centre of mass (3 cm to the side);
    turned by the header it would be 0.02 m wide and 0.10 m tall and miss it, so the loader
    leaves it and the check warns."""
    (tmp_path / "foot.dae").write_text(collada_box((0.11, 0.05, 0.01), "Y_UP"))
    path = write_biped(tmp_path, foot='<mesh filename="foot.dae"/>', foot_com="0.08 0.03 -0.06")
    assert tp.robots.load(path).sole_size == pytest.approx((0.22, 0.10), abs=1e-3)
    report = check_robot(path)
    assert not findings_of(report, "collada-axes-applied") and not findings_of(report, "sole-wider-than-long")
    axes = only(report, "collada-axes-ignored")
    assert axes.severity == "warning" and axes.values["fits"]["read"] > axes.values["fits"]["declared"]
    assert "the declaration is wrong" in axes.problem


def test_feet_without_collision_geometry_are_named_with_their_source(tmp_path):
    report = check_robot(write_biped(tmp_path, kind="visual"))
    finding = only(report, "feet-from-visual")
    assert finding.values["bodies"] == ["left_foot", "right_foot"] and report.facts["feet_source"] == "visual"


def test_a_missing_srdf_names_the_ones_nearby_and_a_missing_mesh_is_an_error(tmp_path):
    (tmp_path / "other.srdf").write_text(group_state(left_knee=0.2))
    report = check_robot(write_biped(tmp_path, foot='<mesh filename="missing.stl"/>'))
    assert only(report, "srdf-not-found").values["candidates"] == [str(tmp_path / "other.srdf")]
    assert only(report, "missing-collision-mesh").values["meshes"] == ["missing.stl"]
    assert only(report, "load-failed").severity == "error"


def test_an_mjcf_keyframe_outside_a_range_is_an_error(tmp_path):
    """The test biped's MJCF file with its first keyframe's left knee at -0.3 rad (range
    [0, 2.5])."""
    text = (Path(__file__).parent / "data" / "biped.xml").read_text()
    assert not check_robot(Path(__file__).parent / "data" / "biped.xml").errors
    model = pin.buildModelFromMJCF(str(Path(__file__).parent / "data" / "biped.xml"))
    start = text.index('qpos="', text.index("<key")) + len('qpos="')
    values = text[start:text.index('"', start)].split()
    knee = model.joints[model.getJointId("left_knee")].idx_q       # both free joints take 7 numbers: the same index
    values[knee] = "-0.3"
    path = tmp_path / "biped.xml"
    path.write_text(text[:start] + " ".join(values) + text[text.index('"', start):])
    finding = only(check_robot(path), "posture-outside-range")
    assert finding.element == "joint 'left_knee'" and finding.values["value"] == pytest.approx(-0.3)


def test_an_mjcf_joint_without_actuator_is_named_passive(tmp_path):
    """The test biped without its left knee's motor: MuJoCo applies no torque there, the
    loader names the knee passive and the solver holds its torque at 0; the check says so. The
    parallel-ankle biped's four connects are closed chains the solver holds."""
    text = (Path(__file__).parent / "data" / "biped.xml").read_text()
    motor = text[text.rindex("<motor", 0, text.index('joint="left_knee"')):]
    path = tmp_path / "biped.xml"
    path.write_text(text.replace(motor[:motor.index("/>") + 2], ""))
    robot = tp.robots.load(path)
    assert robot.passive_joints == ("left_knee",)
    assert tp.DynamicsSolver(robot).passive_joints == ("left_knee",)
    assert only(check_robot(path), "passive-joints").values["joints"] == ["left_knee"]
    assert not findings_of(check_robot(Path(__file__).parent / "data" / "biped.xml"), "passive-joints")
    ankles = check_robot(Path(__file__).parent / "data" / "parallel_ankles.xml")
    assert only(ankles, "closed-chains").values["closures"] == ["left_ankle_out", "left_ankle_in", "right_ankle_out",
                                                                 "right_ankle_in"]
    assert len(only(ankles, "passive-joints").values["joints"]) == 12


def test_helpers_mirror_names_and_support_margins():
    names = ["LLEG_KNEE", "RLEG_KNEE", "l_ankle", "r_ankle", "FL_calf", "FR_calf", "left_hip", "right_hip", "neck"]
    assert mirror_of("LLEG_KNEE", names) == "RLEG_KNEE" and mirror_of("r_ankle", names) == "l_ankle"
    assert mirror_of("FL_calf", names) == "FR_calf" and mirror_of("left_hip", names) == "right_hip"
    assert mirror_of("neck", names) is None
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert support_margin(square, np.array([0.5, 0.25])) == pytest.approx(0.25)
    assert support_margin(square, np.array([1.5, 0.5])) == pytest.approx(-0.5)
    assert support_margin(square[:2], np.array([0.5, 0.5])) == pytest.approx(-0.5)     # a segment has no inside


# ------------------------------------------------------------------------------------ example-robot-data
def robot_file(relative: str) -> Path:
    return data_root() / relative


def test_simple_humanoid_posture_outside_its_ranges():
    """Its SRDF's half_sitting sets LLEG_KNEE = 0.872665 rad; its URDF gives the joint
    [-2.095, 0.7] (the right knee has [0, 2.618])."""
    report = check_robot(robot_file("simple_humanoid_description/urdf/simple_humanoid.urdf"))
    outside = {f.values["joint"]: f for f in findings_of(report, "posture-outside-range")}
    assert {"LLEG_KNEE", "LLEG_HIP_P", "LLEG_ANKLE_P", "RLEG_ANKLE_P"} <= set(outside)
    knee = outside["LLEG_KNEE"]
    assert knee.values["value"] == pytest.approx(0.872665) and knee.values["upper"] == pytest.approx(0.7)
    assert knee.values["mirror"] == "RLEG_KNEE" and "holds the value" in knee.problem
    assert set(only(report, "srdf-unknown-link").values["names"]) == {"r_foot", "l_foot"}
    assert report.facts["feet_source"] == "srdf"
    # both ankles' pitch range is [0, 2.618] rad (the posture's -0.419 outside it): with the soles
    # flat and the base upright the legs cannot bring the CoM over a sole, nor take a step (the
    # best fit of the walk's stances, from the posture on both soles, stops the right ankle)
    assert {"LLEG_ANKLE_P", "RLEG_ANKLE_P"} & set(only(report, "walk-out-of-reach").values["joints"])
    assert {"LLEG_ANKLE_P", "RLEG_ANKLE_P"} <= set(only(report, "step-out-of-reach").values["joints"])
    # ... and the finding says what the derived gait does about it: it vaults (models.reach.com_rise)
    assert "the derived gait vaults: its CoM rises 2.9 cm" in only(report, "step-out-of-reach").problem


def test_romeo_sole_centre_is_reported_ahead_of_its_ankle():
    report = check_robot(robot_file("romeo_description/urdf/romeo.urdf"))
    offsets = findings_of(report, "sole-centre-offset")
    assert len(offsets) == 2
    for finding in offsets:
        assert 0.02 < finding.values["in_joint_frame"][0] < 0.03 and 0.015 < finding.values["ahead"] < 0.03
        assert "'l_sole'" in finding.problem or "'r_sole'" in finding.problem
    assert report.codes("warning") >= {"massless-moving-links", "srdf-unknown-joint"}
    assert len(only(report, "mimic-joints").values["joints"]) == 22
    assert only(report, "posture-levelled").values["sole_height_m"] == pytest.approx(-0.842, abs=0.002)
    assert not report.errors


def test_romeo_single_support_needs_nearly_all_of_its_hip_roll():
    """On one sole the six wrench components are fixed by the base's six equations
    (``J_bᵀ w = g_b``), so the least share of the limits the check's LP finds is that wrench's
    torques ``g_a − J_aᵀ w`` over the limits: Romeo's hip roll carries 44 of its 46.6 N·m."""
    from tsid_py.models.reach import over_each_sole, standing_soles

    path = robot_file("romeo_description/urdf/romeo.urdf")
    held = only(check_robot(path), "single-support-near-torque-limits").values
    robot = tp.robots.load(path)
    model, data, feet = robot.model, robot.model.createData(), list(robot.feet)
    ratios = []
    for foot, fit in zip(feet, over_each_sole(model, robot.q_ref, feet, standing_soles(model, robot.q_ref, feet))):
        q = fit.configuration
        gravity = pin.computeGeneralizedGravity(model, data, q)
        pin.computeJointJacobians(model, data, q)
        jacobian = pin.getFrameJacobian(model, data, robot.frame_id(foot), pin.LOCAL)
        wrench = np.linalg.solve(jacobian[:, :6].T, gravity[:6])
        assert wrench[2] == pytest.approx(robot.mass * 9.81, rel=1e-6)
        assert np.abs(wrench[3:5]).max() < 1e-3 * wrench[2]             # the CoP at the sole's centre
        torque, limits = gravity[6:] - jacobian[:, 6:].T @ wrench, np.asarray(robot.effort_limits)
        limited = limits > 0
        ratios.append(np.max(np.abs(torque[limited]) / limits[limited]))
    assert held["ratio"] == pytest.approx(max(ratios), rel=1e-6) and held["ratio"] > 0.9
    assert held["joint"] in ("LHipRoll", "RHipRoll") and held["limit"] == pytest.approx(46.6)
    for relative in ("talos_data/robots/talos_reduced.urdf", "g1_description/urdf/g1_29dof_rev_1_0.urdf"):
        assert not findings_of(check_robot(robot_file(relative)), "single-support-near-torque-limits")


def test_icub_feet_are_turned_by_their_declared_collada_axes():
    """iCub's foot meshes declare Y_UP; read as stored its soles would be wider than long.
    Its links' centres of mass and child joints say the declaration is right: the loader
    turns them and the sole is 0.156 m long and 0.061 m wide."""
    path = robot_file("icub_description/robots/icub.urdf")
    assert tp.robots.load(path).sole_size == pytest.approx((0.156, 0.061), abs=0.002)
    report = check_robot(path)
    assert not findings_of(report, "sole-wider-than-long")
    assert not findings_of(report, "walk-out-of-reach") and not findings_of(report, "step-out-of-reach")
    axes = only(report, "collada-axes-applied")
    assert axes.values["fits"]["declared"] > axes.values["fits"]["read"]


def test_hyq_without_its_srdf_stands_on_straight_knees_outside_their_range():
    path = robot_file("hyq_description/robots/hyq_no_sensors.urdf")
    report = check_robot(path)
    assert str(robot_file("hyq_description/srdf/hyq.srdf")) in only(report, "srdf-not-found").values["candidates"]
    assert len(findings_of(report, "posture-outside-range")) == 4
    with_srdf = check_robot(path, srdf=robot_file("hyq_description/srdf/hyq.srdf"), posture="standing")
    assert not findings_of(with_srdf, "posture-outside-range") and with_srdf.facts["posture"] == "standing"


def test_anymal_frames_named_twice_and_its_invalid_inertias():
    report = check_robot(robot_file("anymal_c_simple_description/urdf/anymal.urdf"))
    assert "LF_HAA" in only(report, "ambiguous-frame-name").values["frames"]
    assert {f.element for f in findings_of(report, "invalid-inertia")} >= {"link 'hatch'", "link 'depth_camera_front_camera'"}


# ------------------------------------------------------------------------------------ CLI
def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tsid_py.cli", "check-robot", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_cli_exit_status_and_json(tmp_path):
    """0 without errors, 1 with errors (the JSON's counts match the report's), and the JSON
    replaces an existing file whole with no temporary file left."""
    clean = write_biped(tmp_path, srdf=bent())
    out = tmp_path / "report.json"
    out.write_text("old")
    done = cli(clean, "--json", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["counts"]["error"] == 0
    bad = tmp_path / "bad"
    bad.mkdir()
    path = write_biped(bad, knees=((-2.5, 0.0), (0.0, 2.5)), srdf=group_state(left_knee=0.5, right_knee=0.5))
    done = cli(path, "--json", out, "--quiet")
    assert done.returncode == 1 and "posture-outside-range" in done.stdout
    saved = json.loads(out.read_text())
    assert saved["counts"]["error"] == len(check_robot(path).errors) >= 1
    assert {f["code"] for f in saved["findings"]} >= {"posture-outside-range", "asymmetric-ranges"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "biped.srdf", "biped.urdf", "report.json"]


def test_cli_usage_errors_exit_2_naming_the_file_without_a_traceback(tmp_path):
    garbage = tmp_path / "garbage.urdf"
    garbage.write_text("<robot><link name='a'>")
    clean = write_biped(tmp_path)
    for args, named in (((tmp_path / "missing.urdf",), "missing.urdf"), ((garbage,), "garbage.urdf"),
                        ((tmp_path / "robot.txt",), "robot.txt"), ((clean, "--srdf", tmp_path / "no.srdf"), "no.srdf"),
                        ((clean, "--json", tmp_path / "nowhere" / "r.json"), "nowhere"),
                        ((clean, "--posture", "lying"), "lying")):
        if str(args[0]).endswith(".txt"):
            Path(args[0]).write_text("hello")
        done = cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        last_line = done.stderr.strip().splitlines()[-1]
        assert named in last_line and "Traceback" not in done.stderr and last_line.startswith("tsid-py check-robot: error")


def test_romeo_stance_knee_down_a_step_of_its_swing_clearance_needs_more_than_the_margin():
    """Legs shortened by the gait's step height (3.9 cm for Romeo), a knee holds Romeo on one
    sole with more than 0.8 of its 38.2 N·m: the posture the check bends to is at the stated
    extension with the soles flat on the floor (pinocchio's kinematics), and the share is the
    knee's torque by RNEA (``rnea(q, 0, 0)``) less the sole wrench's that alone balances the base,
    over its limit. Talos's and G1's files (their knees 0.5 and 0.2 there) have no such finding."""
    from tsid_py.models.legs import leg_geometry
    from tsid_py.models.posture import posture_at_extension

    path = robot_file("romeo_description/urdf/romeo.urdf")
    values = only(check_robot(path), "stance-knee-down-a-step").values
    robot = tp.robots.load(path)
    model, data, feet = robot.model, robot.model.createData(), list(robot.feet)
    assert values["step_m"] == pytest.approx(robot.profile.gait.step_height)
    q = posture_at_extension(model, robot.q_ref, feet, values["extension"])
    pin.framesForwardKinematics(model, data, q)
    shares = []
    for foot in feet:
        leg = leg_geometry(model, q, foot)
        assert leg.extension == pytest.approx(values["extension"], abs=2e-3)
        assert data.oMf[robot.frame_id(foot)].translation[2] == pytest.approx(0.0, abs=1e-4)
        assert data.oMf[robot.frame_id(foot)].rotation[2, 2] == pytest.approx(1.0, abs=1e-6)
        torque = pin.rnea(model, data, q, np.zeros(model.nv), np.zeros(model.nv))
        pin.computeJointJacobians(model, data, q)
        pin.framesForwardKinematics(model, data, q)
        jacobian = pin.getFrameJacobian(model, data, robot.frame_id(foot), pin.LOCAL_WORLD_ALIGNED)
        wrench = np.linalg.solve(jacobian[:, :6].T, torque[:6])
        index = model.joints[leg.knee].idx_v
        shares.append(abs(torque[index] - jacobian[:, index] @ wrench) / model.effortLimit[index])
    assert values["share"] == pytest.approx(max(shares), rel=1e-6) and values["share"] > 0.8
    assert values["standing_share"] < values["share"]
    for relative in ("talos_data/robots/talos_reduced.urdf", "g1_description/urdf/g1_29dof_rev_1_0.urdf"):
        assert not findings_of(check_robot(robot_file(relative)), "stance-knee-down-a-step")
