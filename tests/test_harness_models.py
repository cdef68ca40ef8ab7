"""The MuJoCo harness simulates any model: each joint kind converted both ways, MuJoCo's
dynamics equal pinocchio's, torques reach the robot, file problems repaired or refused by name."""

from __future__ import annotations

import warnings
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.robots import data_root
from tsid_py.sim import Simulation
from tsid_py.sim.contact import MUJOCO_OPTIONS, ContactOptions

from .conftest import load_robot

DATA = Path(__file__).parent / "data"
BIPED, JOINTS_MJCF, JOINTS_URDF = DATA / "biped.xml", DATA / "joints.xml", DATA / "joints.urdf"


def _robot(kind: str) -> tp.Robot:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the extra top-level body of joints.xml
        if kind == "joints.urdf":
            return tp.Robot.from_urdf(JOINTS_URDF, mimic="independent")
        if kind == "kinova":
            return tp.Robot.from_urdf(data_root() / "kinova_description/robots/kinova.urdf", floating_base=False)
        return tp.Robot.from_mjcf(DATA / kind)


def _random_state(robot, rng):
    """A random configuration in the air (no contact) and a random velocity."""
    lower = np.maximum(robot.model.lowerPositionLimit, -1.5)
    upper = np.minimum(robot.model.upperPositionLimit, 1.5)
    q = pin.randomConfiguration(robot.model, lower, upper)
    if robot.floating_base:
        q[:3] = [0.3, -0.2, 3.0]
    return q, rng.normal(0.0, 1.0, robot.nv)


@pytest.mark.parametrize("kind", ["joints.urdf", "joints.xml", "biped.xml", "kinova"])
def test_state_round_trips_and_dynamics_equal_pinocchio(kind, rng):
    """Free (file's own and added), planar, continuous, ball, composite and plain joints: the
    state comes back as it was set, and MuJoCo's M and bias equal pinocchio's CRBA and RNEA."""
    robot = _robot(kind)
    sim = Simulation(robot)
    for _ in range(4):
        q, v = _random_state(robot, rng)
        sim.reset(q, v)
        q_back, v_back = sim.state()
        np.testing.assert_allclose(q_back, q, atol=1e-12)
        np.testing.assert_allclose(v_back, v, atol=1e-12)
        data = robot.model.createData()
        M = pin.crba(robot.model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
        M_mj, h_mj = sim.mass_matrix_and_bias()
        assert np.abs(M_mj - M).max() <= 1e-9 * np.abs(M).max()
        assert np.abs(h_mj - h).max() <= 1e-9 * np.abs(h).max()


def test_continuous_and_planar_joints_in_mujocos_own_coordinates(rng):
    """MuJoCo holds a continuous joint's angle atan2(sin, cos) and a planar joint's parent-frame
    velocity R(θ) v_local (pinocchio's planar velocity is in the moving frame)."""
    robot = _robot("joints.urdf")
    sim = Simulation(robot)
    q, v = _random_state(robot, rng)
    sim.reset(q, v)
    wheel = robot.model.joints[robot.model.getJointId("wheel")].idx_q
    assert sim.data.qpos[sim.model.joint("wheel").qposadr[0]] == pytest.approx(np.arctan2(q[wheel + 1], q[wheel]))
    slider = robot.model.joints[robot.model.getJointId("slider")]
    c, s = q[slider.idx_q + 2], q[slider.idx_q + 3]
    vx, vy = v[slider.idx_v], v[slider.idx_v + 1]
    assert sim.data.qvel[sim.model.joint("slider_TX").dofadr[0]] == pytest.approx(c * vx - s * vy)
    assert sim.data.qvel[sim.model.joint("slider_TY").dofadr[0]] == pytest.approx(s * vx + c * vy)
    assert sim.data.qpos[sim.model.joint("slider_RZ").qposadr[0]] == pytest.approx(np.arctan2(s, c))


@pytest.mark.parametrize("kind", ["joints.urdf", "joints.xml"])
def test_generalized_forces_accelerate_as_pinocchio_predicts(kind, rng):
    """τ applied by the harness (rotated into MuJoCo's axes where a joint needs it) gives
    MuJoCo's q̈ = pinocchio's ABA(q, v, τ), mapped back with v̇ = T⁻¹ (q̈_mj − Ṫ v)."""
    robot = _robot(kind)
    sim = Simulation(robot)
    assert sim.actuation.mode == "generalized"
    for _ in range(3):
        q, v = _random_state(robot, rng)
        tau = np.r_[np.zeros(6), rng.normal(0.0, 2.0, robot.na)]
        sim.reset(q, v)
        sim.actuation.apply(sim.data, tau[6:], lambda: q)
        mujoco.mj_forward(sim.model, sim.data)
        T, t_dot_v = sim.joint_map.velocity_map(q, v)
        a_sim = np.linalg.solve(T, sim.data.qacc[sim.joint_map.dofs] - t_dot_v)
        a_pin = pin.aba(robot.model, robot.model.createData(), q, v, tau)
        np.testing.assert_allclose(a_sim, a_pin, atol=1e-8 * max(1.0, np.abs(a_pin).max()))


def test_file_motors_carry_the_torque_and_saturate_at_their_range(rng):
    robot = _robot("biped.xml")
    sim = Simulation(robot)
    assert sim.actuation.mode == "motors"
    limits = robot.model.effortLimit[6:]
    tau = rng.uniform(-0.9, 0.9, robot.na) * limits
    tau[3] = 1.5 * limits[3]                      # beyond the knee's gear x ctrlrange
    sim.actuation.apply(sim.data, tau)
    mujoco.mj_forward(sim.model, sim.data)
    applied = sim.data.qfrc_actuator[sim.joint_dofs]
    expected = np.clip(tau, -limits, limits)
    np.testing.assert_allclose(applied, expected, rtol=1e-12)
    assert applied[3] == pytest.approx(limits[3]) and limits[3] == 100.0
    np.testing.assert_array_equal(sim.data.qfrc_applied, 0.0)


def test_servo_actuators_are_switched_off_and_named(tmp_path):
    text = BIPED.read_text().replace('<motor name="left_knee" joint="left_knee" gear="2" ctrlrange="-50 50"/>',
                                     '<position name="left_knee" joint="left_knee" kp="100"/>')
    servo = tmp_path / "servo.xml"
    servo.write_text(text)
    robot = tp.Robot.from_mjcf(servo)
    with pytest.warns(UserWarning, match=r"servo.xml: actuators left_knee are not torque motors"):
        sim = Simulation(robot)
    assert sim.actuation.mode == "generalized"
    assert sim.model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ACTUATION
    tau = np.arange(1.0, robot.na + 1)
    sim.step(tau)
    np.testing.assert_array_equal(sim.data.qfrc_applied[sim.joint_dofs], tau)
    np.testing.assert_array_equal(sim.data.qfrc_actuator, 0.0)


def test_mjcf_is_simulated_as_shipped():
    """The file's armature, damping, friction loss, contact parameters and options stay; the
    time step is the controller's; a floor is added to a robot file."""
    robot = _robot("biped.xml")
    sim = Simulation(robot, timestep=5e-4)
    reference = mujoco.MjModel.from_xml_path(str(BIPED))
    np.testing.assert_array_equal(sim.model.dof_armature, reference.dof_armature)
    np.testing.assert_array_equal(sim.model.dof_damping, reference.dof_damping)
    np.testing.assert_array_equal(sim.model.dof_frictionloss, reference.dof_frictionloss)
    sole = sim.model.geom("left_sole_geom")
    np.testing.assert_array_equal(sole.friction, reference.geom("left_sole_geom").friction)
    assert sim.model.opt.cone == reference.opt.cone and sim.model.opt.timestep == 5e-4
    assert sim.model.geom("floor").type[0] == mujoco.mjtGeom.mjGEOM_PLANE


def test_a_file_with_a_floor_keeps_it(tmp_path):
    scene = tmp_path / "scene.xml"
    scene.write_text(BIPED.read_text().replace(
        "<worldbody>", '<worldbody>\n    <geom name="ground" type="plane" size="0 0 1" contype="1" conaffinity="1"/>'))
    model = Simulation(tp.Robot.from_mjcf(scene)).model
    planes = [model.geom(g).name for g in range(model.ngeom) if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE]
    assert planes == ["ground"]
    with pytest.raises(ValueError, match="includes others: load the robot's own file"):
        (tmp_path / "including.xml").write_text(f'<mujoco><include file="{BIPED}"/></mujoco>')
        tp.Robot.from_mjcf(tmp_path / "including.xml")


def test_missing_visual_mesh_is_dropped_and_missing_collision_mesh_named(tmp_path):
    (tmp_path / "tetra.obj").write_text("v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    head = ('<asset><mesh name="tetra" file="tetra.obj"/><mesh name="gone" file="gone.obj"/></asset>\n'
            '  <worldbody>\n    <body name="pelvis" pos="0 0 0.7">\n      <freejoint name="root"/>\n'
            '      <geom type="mesh" mesh="tetra" contype="0" conaffinity="0"/>\n')
    visual = BIPED.read_text().replace('  <worldbody>\n    <body name="pelvis" pos="0 0 0.7">\n      <freejoint name="root"/>\n',
                                       head + '      <geom type="mesh" mesh="gone" contype="0" conaffinity="0"/>\n')
    (tmp_path / "visual.xml").write_text(visual)
    robot = tp.Robot.from_mjcf(tmp_path / "visual.xml")
    with pytest.warns(UserWarning, match=r"visual.xml: visual-only mesh files are missing .*gone.obj"):
        sim = Simulation(robot, visual=True)
    assert sim.model.nmesh == 1
    (tmp_path / "colliding.xml").write_text(visual.replace('mesh="gone" contype="0" conaffinity="0"',
                                                                   'mesh="gone" contype="1" conaffinity="1"'))
    robot = tp.Robot.from_mjcf(tmp_path / "colliding.xml")
    with pytest.raises(FileNotFoundError, match=r"colliding.xml: mesh 'gone' reads .*gone.obj, which is missing, "
                                                r"and geom .* of body 'pelvis' collides"):
        Simulation(robot)


def test_urdf_visuals_fall_back_to_collision_geometry(tmp_path):
    text = JOINTS_URDF.read_text()
    text = text.replace('<link name="carriage">', '<link name="carriage"><visual><geometry><mesh filename="carriage.dae"/>'
                        '</geometry></visual><collision><geometry><box size="0.2 0.1 0.05"/></geometry></collision>')
    text = text.replace('<link name="rotor">', '<link name="rotor"><visual><geometry><mesh filename="missing.stl"/>'
                        '</geometry></visual>')
    (tmp_path / "carriage.dae").write_text("<COLLADA/>")
    urdf = tmp_path / "visuals.urdf"
    urdf.write_text(text)
    robot = tp.Robot.from_urdf(urdf, mimic="independent")
    with pytest.warns(UserWarning, match=r"links 'carriage' are shown with their collision geometry, 'rotor' without"):
        sim = Simulation(robot, visual=True)
    packaged = tmp_path / "packaged.urdf"
    packaged.write_text(text.replace('filename="missing.stl"', 'filename="package://robot/meshes/rotor.stl"'))
    with pytest.warns(UserWarning, match="package:// paths resolve against the robot's package_dirs, and it has none"):
        Simulation(tp.Robot.from_urdf(packaged, mimic="independent"), visual=True)
    boxes = [g for g in range(sim.model.ngeom) if sim.model.geom_bodyid[g] == sim.model.body("carriage").id]
    assert [sim.model.geom_type[g] for g in boxes] == [mujoco.mjtGeom.mjGEOM_BOX]
    assert sim.model.geom_contype[boxes[0]] == 0 and sim.model.geom_conaffinity[boxes[0]] == 0


def test_mimic_fingers_move_together_in_mujoco():
    """Panda's second finger mimics the first (q2 = q1). A posture target pulling them apart
    (3.5 and 0.5 cm) is met along the linkage by the solver and MuJoCo's joint equality: after
    0.5 s they sit together near the compromise, 2 cm; loaded with mimic="independent", each
    goes to its own target."""
    panda = data_root() / "panda_description/urdf/panda.urdf"
    ends = {}
    for mimic in ("coupled", "independent"):
        robot = tp.Robot.from_urdf(panda, floating_base=False, mimic=mimic,
                                   srdf=data_root() / "panda_description/srdf/panda.srdf")
        solver = tp.DynamicsSolver(robot)
        first, second = robot.joint_q_index("panda_finger_joint1"), robot.joint_q_index("panda_finger_joint2")
        target = robot.q_ref.copy()
        target[first], target[second] = 0.035, 0.005
        solver.add_task(tp.tasks.JointTask(target, kp=100.0))
        sim = Simulation(robot)
        assert sim.model.neq == len(robot.mimic_joints)
        for _ in range(500):
            sim.step(solver.solve(*sim.state()).tau_actuated)
        ends[mimic] = sim.state()[0][[first, second]]
    assert abs(ends["coupled"][0] - ends["coupled"][1]) < 1e-4 and abs(ends["coupled"][0] - 0.02) < 2e-3
    np.testing.assert_allclose(ends["independent"], [0.035, 0.005], atol=2e-3)


@pytest.mark.parametrize("kind", ["biped.xml", "go2", "talos"])
def test_feet_poses_follow_the_simulated_state(kind, rng):
    """foot_pose is the pinocchio foot frame at the simulated state (sphere contact points and
    soles alike); sole_pose is the centre of the box MuJoCo places."""
    if kind == "biped.xml":
        robot = tp.Robot.from_mjcf(BIPED, feet=["left_sole", "right_sole"], sole_size=(0.2, 0.1))
    else:
        robot = load_robot(kind)
    sim = Simulation(robot)
    q, v = _random_state(robot, rng)
    sim.reset(q, v)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, sim.state()[0])
    for foot in robot.feet:
        frame = data.oMf[robot.frame_id(foot)]
        tilt, position = sim.foot_pose(foot)
        np.testing.assert_allclose(position, frame.translation, atol=1e-12)
        assert tilt == pytest.approx(np.arccos(frame.rotation[2, 2]), abs=1e-9)
    if kind == "talos":
        for foot in robot.feet:
            np.testing.assert_allclose(sim.sole_pose(foot)[1], sim.data.geom(f"{foot}_sole").xpos, atol=1e-12)


def test_file_feet_carry_the_weight_under_gravity_compensation():
    robot = tp.Robot.from_mjcf(BIPED, feet=["left_sole", "right_sole"], sole_size=(0.2, 0.1))
    sim = Simulation(robot)
    tau = tp.gravity_compensation(robot, robot.q_ref, robot.feet).tau[6:]
    totals = []
    for _ in range(200):
        sim.step(tau)
        totals.append(sum(wrench[2] for wrench in sim.contact_wrenches().values()))
    assert np.mean(totals[50:]) == pytest.approx(robot.weight, rel=0.02)


def test_inertias_mujoco_refuses_are_repaired_with_a_warning(tmp_path):
    text = JOINTS_URDF.read_text().replace(
        '<inertia ixx="0.004" iyy="0.005" izz="0.003" ixy="0" ixz="0" iyz="0"/>',
        '<inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="1e-4" ixz="1e-4" iyz="1e-4"/>').replace(
        '<mass value="0.1"/>', '<mass value="0"/>').replace(
        '<inertia ixx="0.0002" iyy="0.0002" izz="0.0001" ixy="0" ixz="0" iyz="0"/>',
        '<inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/>')
    urdf = tmp_path / "invalid.urdf"
    urdf.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bad = mujoco.MjSpec.from_file(str(urdf))
    with pytest.raises(ValueError, match="positive eigenvalues"):
        bad.compile()
    robot = tp.Robot.from_urdf(urdf, mimic="independent")
    with pytest.warns(UserWarning) as caught:
        sim = Simulation(robot)
    message = str(caught[0].message)
    # rotor: moments (3e-4, 0, 0) -> the nearest valid (2e-4, 1e-4, 1e-4), changed by sqrt(3) 1e-4
    assert "invalid.urdf: 2 inertia(s)" in message
    assert "body 'rotor': principal moments (0, 0, 0.0003) kg·m² -> (0.0001, 0.0001, 0.0002)" in message
    assert "changed by 0.000173 kg·m², 0.58 of the file's" in message
    assert "body 'fingertip'" in message and "mass 0 -> 1e-06 kg" in message
    np.testing.assert_allclose(np.sort(sim.model.body("rotor").inertia), [1e-4, 1e-4, 2e-4], rtol=1e-6)


def test_bodies_repaired_alike_share_one_line_of_the_warning():
    from tsid_py.sim.inertia import InertiaRepair, describe_repairs

    empty, given = np.zeros((3, 3)), 1e-10 * np.eye(3)
    fingers = [InertiaRepair(f"finger{k}", 0.0, 1e-6, empty, given) for k in range(6)]
    rotor = InertiaRepair("rotor", 0.1, 0.1, np.diag([3e-4, 0, 0]), np.diag([2e-4, 1e-4, 1e-4]))
    text = describe_repairs(fingers[:3] + [rotor] + fingers[3:])
    assert text.count("principal moments") == 2
    assert text.startswith("bodies 'finger0', 'finger1', 'finger2', 'finger3' and 2 more: principal moments "
                           "(0, 0, 0) kg·m² -> (1e-10, 1e-10, 1e-10)")
    assert "mass 0 -> 1e-06 kg; body 'rotor': principal moments (0, 0, 0.0003)" in text


def test_the_inertia_the_loader_gives_point_masses_is_simulated(tmp_path):
    """A neck turning a point-mass head (M singular in the file): MuJoCo's mass matrix is
    pinocchio's of the loaded robot, the head's added inertia included."""
    from .test_check import bent, write_biped
    from .test_point_masses import head, loaded

    robot = loaded(write_biped(tmp_path, extra=head(), srdf=bent()))
    assert dict(robot.source.added_inertias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = Simulation(robot)
    sim.reset(robot.q_ref, robot.zero_velocity())
    expected = pin.crba(robot.model, robot.model.createData(), robot.q_ref)
    expected = np.triu(expected) + np.triu(expected, 1).T
    simulated, _ = sim.mass_matrix_and_bias()
    assert np.abs(simulated - expected).max() <= 1e-9 * np.abs(expected).max()
    assert np.linalg.eigvalsh(simulated).min() > 1e-6


def test_standing_point_feet_do_not_creep():
    """Go2 holding still on four point feet: the default contact model keeps each foot within
    a millimetre over 1.5 s; MuJoCo's own contact parameters and options let them creep."""
    from tsid_py.control.reference import quadruped_stance

    creep = {}
    mujoco_options = ContactOptions(**MUJOCO_OPTIONS, point_foot_impedance=None)
    for name, options in {"default": None, "mujoco": mujoco_options}.items():
        robot = load_robot("go2")
        sim = Simulation(robot, contact=options)
        controller = quadruped_stance(robot, sim.timestep)
        robot.update(robot.q_ref, robot.zero_velocity())
        controller.com.set_target(robot.com.copy())
        start = {foot: sim.foot_pose(foot)[1][:2] for foot in robot.feet}
        for _ in range(1500):
            sim.step(controller.step(*sim.state()).tau_actuated)
        creep[name] = max(np.linalg.norm(sim.foot_pose(foot)[1][:2] - start[foot]) for foot in robot.feet)
    assert creep["default"] < 1e-3 < 5e-3 < creep["mujoco"]


def test_standing_soles_do_not_creep_on_a_slope():
    """G1 holding still on a 10° slope (17 % of its weight along it): under the default
    contact model (friction rows 10 times stiffer than the normal rows: elliptic cone,
    ``impratio`` 10; measured 0.32 mm) and with a sole impedance of 0.999 each sole stays
    within half a millimetre over 1 s once the contacts have settled (0.2 s); MuJoCo's own
    options (pyramidal cone, ``impratio`` 1) let them creep down the slope (measured: 37.9 mm
    in 5 s, benchmarks/foot_creep.py)."""
    from tsid_py.control import BalanceController
    from tsid_py.scenarios.terrains import slope_stance

    creep = {}
    mujoco_options = ContactOptions(**MUJOCO_OPTIONS)
    for name, options in {"default": None, "stiff": ContactOptions(sole_impedance=0.999),
                          "mujoco": mujoco_options}.items():
        robot = load_robot("g1")
        robot.q_ref, terrain = slope_stance(robot, 10.0)
        sim = Simulation(robot, contact=options, terrain=terrain)
        controller = BalanceController(robot, sim.timestep)
        for step in range(1200):
            if step == 200:
                start = {foot: sim.sole_pose(foot)[1] for foot in robot.feet}
            sim.step(controller.step(*sim.state()).tau_actuated)
        creep[name] = max(np.linalg.norm(sim.sole_pose(foot)[1] - start[foot]) for foot in robot.feet)
    assert creep["default"] < 5e-4 and creep["stiff"] < 5e-4
    assert creep["mujoco"] > 3e-3


def test_sole_and_point_foot_impedances_reach_the_compiled_model():
    """The sole boxes and sphere feet the harness builds carry their options' ``solimp`` and
    ``solref`` and win the floor contact's parameters; None leaves MuJoCo's."""
    import mujoco

    for robot_name, kind in [("g1", "sole"), ("go2", "sphere")]:
        robot = load_robot(robot_name)
        for options, impedance in [(ContactOptions(sole_impedance=0.995, sole_timeconst=0.004,
                                                   point_foot_impedance=0.995, point_foot_timeconst=0.004), 0.995),
                                   (ContactOptions(sole_impedance=None, point_foot_impedance=None), None)]:
            model = Simulation(robot, contact=options).model
            for foot in robot.feet:
                geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, f"{foot}_{kind}")
                assert geom >= 0
                if impedance is None:
                    assert model.geom_priority[geom] == 0
                    assert model.geom_solimp[geom][0] == pytest.approx(0.9)   # MuJoCo's default
                else:
                    assert model.geom_priority[geom] == 1
                    assert model.geom_solimp[geom][:2] == pytest.approx([impedance, impedance])
                    assert model.geom_solref[geom][0] == pytest.approx(0.004)


def test_contact_options_are_validated():
    for bad, match in [({"friction": 0.0}, "friction"), ({"cone": "round"}, "cone"), ({"impratio": 0.5}, "impratio"),
                       ({"noslip_iterations": 1.5}, "noslip_iterations"), ({"point_foot_impedance": 1.0}, "impedance"),
                       ({"sole_impedance": 0.0}, "sole_impedance"), ({"sole_timeconst": -0.01}, "sole_timeconst")]:
        with pytest.raises(ValueError, match=match):
            ContactOptions(**bad)


def test_nearest_valid_inertia_is_the_projection(rng):
    """Against an independent QP on the principal moments (quadprog via qpsolvers), and no valid
    matrix nearby is nearer in the Frobenius norm (the projection keeps the principal axes)."""
    from qpsolvers import solve_qp

    from tsid_py.sim.inertia import MARGIN, MIN_MOMENT, is_valid_inertia, nearest_valid_inertia

    triangle = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1]])
    for _ in range(40):
        axes, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        moments = rng.uniform(-1.0, 3.0, 3) * 10.0 ** rng.uniform(-6, 0)
        inertia = axes @ np.diag(moments) @ axes.T
        repaired = nearest_valid_inertia(inertia)
        assert is_valid_inertia(repaired)
        scale = np.abs(moments).max()            # the QP in units of the largest moment
        margin = max(MIN_MOMENT, MARGIN * scale)
        expected = scale * solve_qp(np.eye(3), -moments / scale, -triangle, -np.full(6, margin / scale),
                                    solver="quadprog")
        distance = np.linalg.norm(repaired - inertia)
        assert distance == pytest.approx(np.linalg.norm(expected - moments), abs=1e-9 * scale)
        np.testing.assert_allclose(np.linalg.eigvalsh(repaired), np.sort(expected), atol=1e-9 * scale)
        for _ in range(50):
            step = rng.normal(size=(3, 3)) * distance * 0.3
            other = repaired + (step + step.T) / 2
            if is_valid_inertia(other):
                assert np.linalg.norm(other - inertia) >= distance * (1 - 1e-9)
        six = [repaired[0, 0], repaired[1, 1], repaired[2, 2], repaired[0, 1], repaired[0, 2], repaired[1, 2]]
        mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><joint/><inertial pos="0 0 0" mass="1" '
                                       f'fullinertia="{" ".join(f"{x:.17g}" for x in six)}"/></body></worldbody></mujoco>')
    valid = np.diag([1.0, 2.0, 2.5])
    np.testing.assert_array_equal(nearest_valid_inertia(valid), valid)


def test_a_foot_without_collision_geometry_is_named():
    robot = tp.Robot.from_mjcf(BIPED, feet=["left_sole", "left_thigh"], sole_size=(0.2, 0.1))
    with pytest.raises(ValueError, match=r"feet \['left_thigh'\] have no collision geometry .*\['left_thigh'\]"):
        Simulation(robot)


def test_posture_task_turns_a_continuous_joint_the_short_way_in_mujoco():
    """Kinova's joints 1, 4 and 6 are continuous (q = (cos θ, sin θ)): the default posture task
    controls them with the angle difference wrapped into [−π, π). Joint 1 starts at θ = 3.0 and
    is asked for θ = −3.0: it crosses ±π (0.28 rad), never turning back through 0 (6 rad)."""
    robot = tp.Robot.from_urdf(data_root() / "kinova_description/robots/kinova.urdf", floating_base=False)
    solver = tp.DynamicsSolver(robot)
    posture = solver.add_task(tp.tasks.JointTask(kp=100.0))
    assert posture.joints is None and posture.dim == robot.nv == 6
    lower, upper = robot.model.lowerPositionLimit, robot.model.upperPositionLimit
    bounded = [robot.joint_q_index(name) for name in robot.scalar_joint_names if name not in robot.continuous_joints]
    q = robot.q_ref.copy()
    q[bounded] = np.clip(q[bounded], lower[bounded] + 0.2, upper[bounded] - 0.2)   # neutral is past the limits
    joint = robot.joint_q_index("j2s6s200_joint_1")
    target = q.copy()
    target[joint:joint + 2] = np.cos(-3.0), np.sin(-3.0)
    posture.set_target(target)
    q[joint:joint + 2] = np.cos(3.0), np.sin(3.0)
    sim = Simulation(robot)
    sim.reset(q, robot.zero_velocity())
    angles = []
    for _ in range(1000):
        q, v = sim.state()
        angles.append(np.arctan2(q[joint + 1], q[joint]))
        sim.step(solver.solve(q, v).tau_actuated)
    angles = np.abs(np.array(angles))
    assert angles.min() > 2.9                      # never back through 0
    assert abs(angles[-1] - 3.0) < 0.01 and abs(np.arctan2(*sim.state()[0][[joint + 1, joint]]) + 3.0) < 0.01
