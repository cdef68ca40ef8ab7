"""Closed chains and couplings (tsid_py.closures) and the actuation map, checked against
independent truth: pinocchio's mimic model (its RNEA), finite differences of pinocchio's
kinematics, the equation of motion from RNEA, and a loop closed by Newton's method."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.mechanism import actuation_map
from tsid_py.closures import FrameClosure, JointCoupling, PointClosure

DATA = Path(__file__).parent / "data"
ANKLES, JOINTS_URDF = DATA / "parallel_ankles.xml", DATA / "joints.urdf"
LEFT_LOOP = ("left_ankle_out", "left_ankle_in")
LEFT_MOTORS = ("left_ankle_motor_out", "left_ankle_motor_in")
LEFT_ANKLE = ("left_ankle_pitch", "left_ankle_roll")
DEPENDENT = {side: [f"{side}_{name}" for name in ("ankle_motor_out", "ankle_motor_in", "rod_out_x", "rod_out_y",
                                                    "rod_in_x", "rod_in_y")] for side in ("left", "right")}


@pytest.fixture(scope="module")
def ankles():
    return tp.Robot.from_mjcf(ANKLES)


def standing_solver(robot: tp.Robot) -> tp.DynamicsSolver:
    """The parallel-ankle biped on its soles with a CoM and a posture task."""
    solver = tp.DynamicsSolver(robot)
    for foot in ("left_sole", "right_sole"):
        solver.add_contact(tp.PlanarContact(foot, 0.2, 0.1, mu=0.8))
    solver.add_task(tp.tasks.CoMTask(robot.com_at(robot.q_ref) + [0.02, -0.01, -0.01], kp=50.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    return solver


def closed(robot: tp.Robot, closures, q: np.ndarray) -> np.ndarray:
    """``q`` with the loops' dependent joints moved so that every closure holds (Newton's
    method on the closures' errors, which come from pinocchio's placements)."""
    q = q.copy()
    dependent = [name for names in DEPENDENT.values() for name in names]
    q_index = [robot.joint_q_index(name) for name in dependent]
    v_index = [robot.joint_v_index(name) for name in dependent]
    for _ in range(30):
        robot.update(q, robot.zero_velocity())
        rows = [closure.compute(robot) for closure in closures]
        error = np.concatenate([row.error for row in rows])
        if np.abs(error).max() < 1e-14:
            return q
        jacobian = np.vstack([row.jacobian for row in rows])[:, v_index]
        q[q_index] -= np.linalg.solve(jacobian, error)
    raise AssertionError(f"the loops did not close: {np.abs(error).max():.3g}")


# ------------------------------------------------------------------------------ mimic joints
def test_mimic_torque_is_carried_by_the_primary_joint(rng):
    """joints.urdf's finger mimics its arm (q_f = −0.5 q_a + 0.1). The solution holds the
    coupling, leaves the finger no torque, and its arm torque (and every other) is what
    pinocchio's mimic model (the finger eliminated exactly) needs for the same motion: RNEA on
    that model with the coupled q̈; the closure's force is the finger's row of the full tree's
    RNEA."""
    robot = tp.Robot.from_urdf(JOINTS_URDF)
    solver = tp.DynamicsSolver(robot)
    target = robot.q_ref.copy()
    target[robot.joint_q_index("arm")] = 0.7
    solver.add_task(tp.tasks.JointTask(target, kp=40.0))
    solver.add_task(tp.tasks.PositionTask("fingertip", np.array([0.05, 0.1, 0.4]), kp=20.0, weight=0.1))
    arm, finger = robot.joint_q_index("arm"), robot.joint_q_index("finger")
    va, vf = robot.joint_v_index("arm"), robot.joint_v_index("finger")
    for _ in range(3):
        q, v = robot.q_ref.copy(), rng.normal(size=robot.nv)
        angle, turn = rng.uniform(-np.pi, np.pi, 2)
        q[7:13] = [*rng.normal(scale=0.1, size=2), np.cos(angle), np.sin(angle), np.cos(turn), np.sin(turn)]
        q[arm] = rng.uniform(-1, 1)
        q[finger], v[vf] = -0.5 * q[arm] + 0.1, -0.5 * v[va]     # on the linkage
        solution = solver.solve(q, v)
        a = solution.ddq
        assert abs(a[vf] + 0.5 * a[va]) < 1e-9
        assert solution.tau[vf] == 0.0 and solution.tau_actuated[vf - 6] == 0.0
        mimic = pin.buildModelFromUrdf(str(JOINTS_URDF), mimic=True)
        assert mimic.nv == robot.nv - 1
        expected = pin.rnea(mimic, mimic.createData(), np.delete(q, finger), np.delete(v, vf), np.delete(a, vf))
        np.testing.assert_allclose(np.delete(solution.tau, vf), expected, atol=1e-8)
        assert abs(solution.tau[va]) > 0.1                       # a torque worth comparing
        full = pin.rnea(robot.model, robot.model.createData(), q, v, a)
        np.testing.assert_allclose(solution.closure_forces["mimic finger"], [full[vf]], atol=1e-8)


# ------------------------------------------------------------------------------ the kernels
def closures_of_every_kind(robot: tp.Robot) -> list:
    weld = FrameClosure("left_foot", "right_foot",
                        pin.SE3(pin.rpy.rpyToMatrix(0.1, -0.2, 0.3), np.array([0.01, 0.02, 0])),
                        pin.SE3(pin.rpy.rpyToMatrix(-0.2, 0.1, 0.0), np.array([0.0, -0.03, 0.05])), name="weld")
    world = PointClosure("left_rod_in", "universe", (0.0, 0.01, -0.2), (0.1, 0.2, 0.3), name="to the world")
    coupling = JointCoupling({"left_hip_yaw": 1.0, "left_knee": -0.3}, {"right_knee": 2.0},
                             polynomial=(0.1, 0.5, 0.3, -0.2, 0.05), reference=(0.2, -0.1), name="quartic")
    single = JointCoupling({"right_hip_roll": 1.0}, polynomial=(0.3,), name="single")
    solver = tp.DynamicsSolver(robot)
    for closure in (weld, world, coupling, single):
        solver.add_closure(closure)
    return list(solver.closures.values())


def test_closure_rows_are_their_definition_and_its_derivatives(ankles, rng):
    """Every kind of closure (the file's point closures, a weld, a point pinned to the world, a
    quartic coupling of a combination of joints, a single coordinate): the compiled rows equal
    the readable definition (pinocchio's frame algebra), ``J_c v`` is the central difference of
    ``c`` and ``J̇_c v`` that of ``J_c v`` along ``q(t) = q ⊕ t v`` (q̈ = 0); the weld's
    rotation rows are ``ω₁ − ω₂``, whose difference is differentiated likewise."""
    robot = copy.deepcopy(ankles)
    closures = closures_of_every_kind(robot)
    assert [c.size for c in closures] == [3, 3, 3, 3, 6, 3, 1, 1]
    q = robot.q_ref.copy()
    q[7:] += rng.uniform(-0.3, 0.3, robot.nq - 7)
    v = rng.normal(size=robot.nv)
    h = 1e-6
    for closure in closures:
        def at(t):
            robot.update(pin.integrate(robot.model, q, t * v), v)
            return closure.compute(robot)
        rows = at(0.0)
        size = closure.size
        force_block, matrix, vector = np.zeros((robot.nv, size)), np.zeros((size, robot.nv)), np.zeros(size)
        closure.write_rows(robot, force_block, matrix, vector)
        np.testing.assert_allclose(matrix, rows.jacobian, atol=1e-12)
        np.testing.assert_allclose(force_block, -rows.jacobian.T, atol=1e-12)
        np.testing.assert_allclose(closure.error, rows.error, atol=1e-12)
        np.testing.assert_allclose(vector, -rows.drift - closure.kd * rows.jacobian @ v - closure.kp * rows.error,
                                   atol=1e-10)
        after, before = at(h), at(-h)
        np.testing.assert_allclose((after.jacobian @ v - before.jacobian @ v) / (2 * h), rows.drift, atol=1e-6)
        translation = slice(0, 3) if closure.size == 6 else slice(None)       # c's rate is J v off the weld's rotation
        np.testing.assert_allclose(((after.error - before.error) / (2 * h))[translation],
                                   (rows.jacobian @ v)[translation], atol=1e-6)


def test_the_model_files_closures_and_passive_joints(ankles):
    """The MJCF's four connects and its joints without a motor (the rods' and the ankles'); a
    URDF's mimic joints are passive with those named ``passive``, which the solver lets change."""
    assert [c.name for c in ankles.closures] == ["left_ankle_out", "left_ankle_in", "right_ankle_out",
                                                   "right_ankle_in"]
    first = ankles.closures[0]
    assert (first.frame1, first.frame2) == ("left_rod_out", "left_foot")
    np.testing.assert_allclose(first.point1, [0, 0, -0.2])
    np.testing.assert_allclose(first.point2, [-0.04, 0.025, 0], atol=1e-12)     # MuJoCo's anchor on the foot at qpos0
    joints = ("rod_out_x", "rod_out_y", "rod_in_x", "rod_in_y", "ankle_pitch", "ankle_roll")
    assert set(ankles.passive_joints) == {f"{side}_{joint}" for side in ("left", "right") for joint in joints}
    robot = tp.Robot.from_urdf(JOINTS_URDF, passive=["wheel"])
    solver = tp.DynamicsSolver(robot)
    assert robot.passive_joints == ("wheel", "finger") == solver.passive_joints
    solver.passive_joints = ["finger"]
    solution = solver.solve(robot.q_ref, robot.zero_velocity())
    assert solution.tau[robot.joint_v_index("finger")] == 0.0 and solver.last_layout.passive.size == 1
    with pytest.raises(KeyError, match="joint 'elbow' is not a 1-dof joint"):
        solver.passive_joints = ["elbow"]
    with pytest.raises(ValueError, match="passive joint 'float' is not a revolute, prismatic or continuous joint"):
        tp.Robot.from_urdf(JOINTS_URDF, passive=["float"])
    assert tp.DynamicsSolver(robot, closures=False).passive_joints == ()


# ------------------------------------------------------------------------------ the QP
def test_the_parallel_ankles_qp_holds_the_mechanism(ankles, rng):
    """The biped on its soles at closed states with random velocities, a known wrench on its
    left foot (a load pulling the passive ankle): the passive joints' torques are exactly 0,
    each loop's acceleration rows hold to 1e-9 (from the readable definition), and the
    equation of motion holds with RNEA, the contacts', the closures' and the known wrench's
    Jacobians: ``τ = RNEA(q, v, q̈) − Σ J_iᵀ w_i − Σ J_cᵀ λ − J_eᵀ w_e``."""
    robot = copy.deepcopy(ankles)
    solver = standing_solver(robot)
    load = np.array([5.0, -3.0, -20.0, 0.5, 1.0, -0.2])
    solver.add_external_wrench(tp.ExternalWrench("left_foot", load))
    closures = list(solver.closures.values())
    data = robot.model.createData()
    for _ in range(3):
        q = robot.q_ref.copy()
        for side in ("left", "right"):
            q[robot.joint_q_index(f"{side}_ankle_pitch")] += rng.uniform(-0.2, 0.2)
            q[robot.joint_q_index(f"{side}_ankle_roll")] += rng.uniform(-0.2, 0.2)
        q = closed(robot, closures, q)
        v = rng.normal(scale=0.3, size=robot.nv)
        solution = solver.solve(q, v)
        for joint in robot.passive_joints:
            assert solution.tau[robot.joint_v_index(joint)] == 0.0
        robot.update(q, v)
        forces = np.zeros(robot.nv)
        for closure in closures:
            rows = closure.compute(robot)
            residual = (rows.jacobian @ solution.ddq + rows.drift + closure.kd * rows.jacobian @ v
                        + closure.kp * rows.error)
            assert np.abs(residual).max() < 1e-9, (closure.name, residual)
            forces += rows.jacobian.T @ solution.closure_forces[closure.name]
        for foot, wrench in solution.wrenches.items():
            forces += robot.frame_jacobian(robot.frame_id(foot)).T @ wrench
        forces += robot.frame_jacobian(robot.frame_id("left_foot")).T @ load
        np.testing.assert_allclose(pin.rnea(robot.model, data, q, v, solution.ddq) - forces, solution.tau, atol=1e-8)
        assert np.abs(solution.tau_actuated).max() > 1.0


def test_motor_torques_are_the_actuation_map_of_the_joint_space_torques(ankles, rng):
    """The actuation map's ``A`` (motor velocities per ankle velocity) equals the finite
    difference of the motors' angles, the loop closed by Newton's method at each ankle angle;
    and the solver's motor torques are ``A⁻ᵀ`` of the ankle torques the closed mechanism needs,
    ``Gᵀ(RNEA − Σ Jᵀw)`` on the ankle's coordinates with ``G`` (every joint's velocity per
    ankle velocity) from the same finite differences."""
    robot = copy.deepcopy(ankles)
    solver = standing_solver(robot)
    closures = list(solver.closures.values())
    q = robot.q_ref.copy()
    q[robot.joint_q_index("left_ankle_roll")] += 0.1
    q = closed(robot, closures, q)
    v = rng.normal(scale=0.3, size=robot.nv)
    solution = solver.solve(q, v)
    h = 1e-6
    follow = np.zeros((robot.nv, 2))                  # G's ankle columns: ∂(joint velocities)/∂(ankle velocities)
    for k, joint in enumerate(LEFT_ANKLE):
        shifted = []
        for sign in (1.0, -1.0):
            moved = q.copy()
            moved[robot.joint_q_index(joint)] += sign * h
            shifted.append(closed(robot, closures, moved))
        follow[:, k] = pin.difference(robot.model, shifted[1], shifted[0]) / (2 * h)
    robot.update(q, v)
    mechanism = actuation_map(robot, [solver.closures[name] for name in LEFT_LOOP], LEFT_ANKLE)
    assert mechanism.actuators == LEFT_MOTORS
    motors = [robot.joint_v_index(name) for name in LEFT_MOTORS]
    np.testing.assert_allclose(mechanism.jacobian, follow[motors], atol=1e-6)
    needed = pin.rnea(robot.model, robot.model.createData(), q, v, solution.ddq)
    for foot, wrench in solution.wrenches.items():
        needed -= robot.frame_jacobian(robot.frame_id(foot)).T @ wrench
    ankle_torques = follow.T @ needed
    np.testing.assert_allclose(mechanism.actuator_torques(ankle_torques), solution.tau[motors], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mechanism.joint_torques(solution.tau[motors]), ankle_torques, rtol=1e-5, atol=1e-6)
    assert np.abs(ankle_torques).max() > 0.5
    with pytest.raises(ValueError, match="6 rows need as many dependent joints"):
        actuation_map(robot, [solver.closures[name] for name in LEFT_LOOP], ["left_ankle_pitch"])


def test_integrated_closure_residual_stays_below_a_micrometre(ankles):
    """The solution's own motion — its q̈ integrated (semi-implicit Euler, 1 ms) while the CoM
    sways 2 cm sideways at 1 Hz for 0.5 s — keeps every loop closed to 1e-6 m: the rows'
    stabilisation (−Kd J v − Kp c) absorbs the integration's drift."""
    robot = copy.deepcopy(ankles)
    solver = standing_solver(robot)
    com_task = solver.tasks[0]
    start = robot.com_at(robot.q_ref)
    q, v, dt, worst = robot.q_ref.copy(), robot.zero_velocity(), 1e-3, 0.0
    for k in range(500):
        t = k * dt
        com_task.set_target(start + [0, 0.02 * np.sin(2 * np.pi * t), 0],
                            velocity=[0, 0.04 * np.pi * np.cos(2 * np.pi * t), 0])
        solution = solver.solve(q, v)
        v = v + dt * solution.ddq
        q = pin.integrate(robot.model, q, dt * v)
        worst = max(worst, max(np.abs(closure.error).max() for closure in solver.closures.values()))
    assert worst < 1e-6
    assert abs(robot.com[1] - start[1]) > 5e-3                    # it did sway


def test_closures_belong_to_one_solver_and_copy_with_it(ankles):
    robot = copy.deepcopy(ankles)
    solver = standing_solver(robot)
    closure = solver.closures["left_ankle_out"]
    with pytest.raises(ValueError, match="already in the solver"):
        solver.add_closure(PointClosure("left_rod_out", "left_foot", name="left_ankle_out"))
    with pytest.raises(ValueError, match="belongs to another solver"):
        tp.DynamicsSolver(robot, closures=False).add_closure(closure)
    with pytest.raises(ValueError, match="closure must be a tsid_py.closures.Closure"):
        solver.add_closure("left_ankle_out")
    with pytest.raises(KeyError, match="closure 'nope' is not in the solver"):
        solver.remove_closure("nope")
    first = solver.solve(robot.q_ref, robot.zero_velocity())
    for twin in (copy.deepcopy(solver), pickle.loads(pickle.dumps(solver))):
        again = twin.solve(robot.q_ref, robot.zero_velocity())
        np.testing.assert_allclose(again.tau, first.tau, atol=1e-9)
        assert twin.closures["left_ankle_out"] is not closure
    solver.remove_closure("left_ankle_out")
    assert "left_ankle_out" not in solver.solve(robot.q_ref, robot.zero_velocity()).closure_forces
    with pytest.raises(ValueError, match="point1 must have shape"):
        PointClosure("a", "b", point1=(0.0, 1.0))
    with pytest.raises(ValueError, match="polynomial must have 1 to 5 coefficients"):
        JointCoupling({"a": 1.0}, polynomial=np.zeros(6))
    with pytest.raises(ValueError, match="first must map joint names to finite coefficients"):
        JointCoupling({"a": np.nan})
    with pytest.raises(ValueError, match="kp must be"):
        PointClosure("a", "b", kp=-1.0)
