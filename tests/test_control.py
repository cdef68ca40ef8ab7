"""tsid_py.control: capture-point bounds, the capture-point task, the failure policy and the
contact state — against closed forms, an ODE integration, pinocchio and the solver's own
raising path."""

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp

import tsid_py as tp
from tsid_py.control import (
    BalanceController,
    CapturePointTask,
    ContactStateMonitor,
    FailurePolicy,
    SupportPolygon,
    push_bounds,
)
from tsid_py.control.failure import DAMPING, RELAXED, SLACKENED, SOFTENED

from .conftest import load_robot, standing_solver


def _lipm_capture_margin(force, duration, mass, omega, margin):
    """ξ − p_edge at the end of the push, integrating ξ̇ = ω (ξ − p) + F/(m ω) numerically with
    p held at the edge (origin at the start CoM): ≤ 0 means captured."""
    edge = margin
    solution = solve_ivp(lambda t, xi: omega * (xi - edge) + force / (mass * omega), (0.0, duration), [0.0],
                         rtol=1e-10, atol=1e-12)
    return solution.y[0, -1] - edge


def test_push_bounds_match_the_lipm_integrated_and_the_talos_numbers():
    robot = load_robot("talos")
    data = robot.model.createData()
    q = robot.q_ref
    com = pin.centerOfMass(robot.model, data, q)
    mass = pin.computeTotalMass(robot.model)
    pin.framesForwardKinematics(robot.model, data, q)
    length, width = robot.sole_size
    soles = [data.oMf[robot.model.getFrameId(f)].translation for f in robot.feet]
    front = max(s[0] for s in soles) + length / 2
    left = max(s[1] for s in soles) + width / 2
    height = com[2] - soles[0][2]
    omega = np.sqrt(robot.gravity / height)
    base = data.oMi[1].act(robot.model.inertias[1].lever)[2]
    bounds = push_bounds(robot, 0.1)
    for name, margin in (("+x", front - com[0]), ("+y", left - com[1])):
        bound = bounds[name]
        assert bound.margin == pytest.approx(margin, abs=1e-6)
        # CoP at the edge: the integrated capture point ends exactly on the edge at the bound
        at_com = bound.cop_at_edge * base / height           # undo the push-height scaling
        assert abs(_lipm_capture_margin(at_com, 0.1, mass, omega, margin)) < 1e-6
        assert _lipm_capture_margin(1.01 * at_com, 0.1, mass, omega, margin) > 0
        # impulse: the CoP-at-edge bound's short-push limit, and below it
        assert bound.impulse == pytest.approx(mass * omega * margin / 0.1 * height / base, rel=1e-5)
        short = push_bounds(robot, 1e-5)[name]
        assert short.cop_at_edge == pytest.approx(short.impulse, rel=1e-4)
        assert bound.impulse < bound.cop_at_edge
    # the Talos table (0.1 s pushes on the base): 264/296/416/423 N and 310/348/489/498 N
    expected = {"+x": (264, 310), "-x": (296, 348), "+y": (416, 489), "-y": (423, 498)}
    for name, (impulse, edge) in expected.items():
        assert bounds[name].impulse == pytest.approx(impulse, abs=1.0)
        assert bounds[name].cop_at_edge == pytest.approx(edge, abs=1.0)


def test_push_bounds_reject_bad_input():
    robot = load_robot("talos")
    with pytest.raises(ValueError, match="directions"):
        push_bounds(robot, directions=["up"])
    with pytest.raises(ValueError, match="duration"):
        push_bounds(robot, -0.1)
    with pytest.raises(ValueError, match="feet"):
        push_bounds(robot, feet=[])


def test_support_polygon_clamps_to_the_nearest_boundary_point(rng):
    polygon = SupportPolygon(rng.uniform(-0.2, 0.2, (12, 2)))
    vertices = polygon.vertices
    boundary = np.vstack([a + np.linspace(0, 1, 2001)[:, None] * (b - a)
                          for a, b in zip(vertices, np.roll(vertices, -1, axis=0))])
    for point in rng.uniform(-0.4, 0.4, (30, 2)):
        clamped = polygon.clamp(point)
        if polygon.contains(point):
            np.testing.assert_array_equal(clamped, point)
        else:
            nearest = np.min(np.linalg.norm(boundary - point, axis=1))
            assert np.linalg.norm(clamped - point) == pytest.approx(nearest, abs=1e-4)
            assert polygon.contains(clamped + 1e-9 * (polygon.vertices.mean(axis=0) - clamped))
        assert polygon.clamp_xy(*point) == pytest.approx(tuple(clamped))


def test_shrunk_support_polygon_is_the_inset_by_the_margin(rng):
    """Inset of a rectangle: the rectangle smaller by the margin on each side; of a random
    hull: every vertex exactly the margin inside its two edges and inside all others; past the
    inradius: a sliver around the rectangle's centre."""
    rectangle = SupportPolygon([[-0.1, -0.2], [0.3, -0.2], [0.3, 0.1], [-0.1, 0.1]])
    inset = rectangle.shrunk(0.02)
    np.testing.assert_allclose(np.sort(inset.vertices, axis=0),
                               [[-0.08, -0.18], [-0.08, -0.18], [0.28, 0.08], [0.28, 0.08]], atol=1e-12)
    polygon = SupportPolygon(rng.uniform(-0.2, 0.2, (12, 2)))
    smaller = polygon.shrunk(0.01)
    distances = polygon.offsets[None, :] - smaller.vertices @ polygon.normals.T     # ≥ 0.01, equal on two edges
    assert np.all(distances >= 0.01 - 1e-9)
    np.testing.assert_allclose(np.sort(distances, axis=1)[:, :2], 0.01, atol=1e-9)
    np.testing.assert_allclose(rectangle.shrunk(0.5).vertices.mean(axis=0), [0.1, -0.05], atol=1e-5)


def test_capture_point_reference_is_kept_inside_the_support(talos):
    """A target whose capture point ξ_ref = c_ref + ċ_ref/ω lies beyond the polygon less the
    margin is replaced by the nearest point of that region, at rest: the commanded CoP is
    then the law's with that point as ξ_ref and no feed-forward."""
    omega = np.sqrt(9.81 / 0.87)
    support = SupportPolygon([[-0.1, -0.15], [0.1, -0.15], [0.1, 0.15], [-0.1, 0.15]])
    task = CapturePointTask(0.87, gain=1.0, hip_ratio=0.0, reference_margin=0.02)
    task.prepare(talos)
    task.set_support(support)
    talos.update(talos.q_ref, talos.zero_velocity())
    c = talos.com.copy()
    task.set_target([c[0], 0.10, c[2]], velocity=[0.0, 0.3, 0.0])          # ξ_ref,y = 0.1 + 0.3/ω > 0.13
    task.kinematics(talos)
    xi = talos.com[:2]
    expected = xi + 1.0 / omega * (xi - np.array([c[0], 0.13]))
    assert not task.saturated
    np.testing.assert_allclose(task.cop, expected, atol=1e-9)
    task.set_target([c[0], 0.05, c[2]], velocity=[0.0, 0.1, 0.0])          # inside: untouched
    task.kinematics(talos)
    xi_ref = np.array([c[0], 0.05 + 0.1 / omega])
    expected = xi + (1.0 * (xi - xi_ref) - np.array([0.0, 0.1])) / omega
    assert not task.saturated
    np.testing.assert_allclose(task.cop, expected, atol=1e-9)


def test_capture_point_task_is_a_cop_law_inside_and_saturates_on_the_polygon(talos):
    """Unsaturated: c̈ = ω² (c − p*) with p* = ξ + gain (ξ − ξ_ref)/ω, i.e. a PD with
    kp = ω gain and kd = ω + gain. Saturated: the CoP is clamped to the polygon's edge."""
    task = CapturePointTask(0.87, gain=5.0, hip_ratio=0.0)
    task.prepare(talos)
    reference = task.position_ref.copy()
    omega = np.sqrt(9.81 / 0.87)
    task.set_support(SupportPolygon([[-0.1, -0.15], [0.1, -0.15], [0.1, 0.15], [-0.1, 0.15]]))
    q, v = talos.q_ref.copy(), talos.zero_velocity()
    for base_velocity, saturated in ((0.02, False), (0.5, True)):
        v[0] = base_velocity
        talos.update(q, v)
        task.kinematics(talos)
        error, rate = talos.com[:2] - reference[:2], talos.com_velocity[:2]
        xi = talos.com[:2] + rate / omega
        assert task.saturated is saturated
        np.testing.assert_allclose(task.dcm, xi, atol=1e-12)
        if not saturated:
            expected = -omega * 5.0 * error - (omega + 5.0) * rate
            np.testing.assert_allclose(task.acceleration_ref[:2], expected, atol=1e-9)
        else:
            assert task.cop[0] == pytest.approx(0.1)
            np.testing.assert_allclose(task.acceleration_ref[:2], omega**2 * (talos.com[:2] - task.cop), atol=1e-9)


def _gravity_torque_ratio(robot):
    """max |τ| / effort over the joints for standing still, from the unconstrained solve."""
    solver = standing_solver(robot)
    solution = solver.solve(robot.q_ref, robot.zero_velocity())
    effort = robot.effort_limits
    return float(np.max(np.abs(solution.tau_actuated) / effort))


def test_failure_policy_walks_down_its_ladder_and_restores_the_solver(talos):
    # 1. a hard task that contradicts a hard contact: softening the contacts resolves it
    solver = standing_solver(talos, diagnose=False)
    foot = solver.add_task(tp.tasks.PositionTask(talos.feet[0], kp=0.0, priority="hard"))
    foot.set_target(np.zeros(3), acceleration=[0.0, 0.0, 5.0])
    policy = FailurePolicy(solver)
    q, v = talos.q_ref, talos.zero_velocity()
    with pytest.raises(tp.SolverError):
        solver.solve(q, v)
    solution = policy.solve(q, v)
    assert not solution.success and solution.relaxed == (SOFTENED,)
    assert np.all(np.isfinite(solution.tau_actuated))
    assert all(contact.priority == "hard" for contact in solver.contacts.values())
    solver.remove_task(foot)
    assert policy.solve(q, v).success

    # 2. every joint held (hard) at zero acceleration needs the gravity torques; limits below
    # them but within the slack: rung 2, the torques sent clipped to the true limits
    ratio = _gravity_torque_ratio(talos)
    solver = _held_still(talos, scale=0.8 * ratio)
    limits = solver.constraints[0]
    policy = FailurePolicy(solver, torque_slack=2.0)
    solution = policy.solve(q, v)
    assert solution.relaxed == (SOFTENED, SLACKENED) and not solution.success
    bound = np.full(talos.na, np.inf)
    bound[limits.index] = limits.effort
    assert np.all(np.abs(solution.tau_actuated) <= bound + 1e-9)
    assert np.any(np.abs(solution.tau_actuated) >= bound - 1e-9)           # some were clipped
    assert solver.constraints == [limits]

    # 3. limits far below: the damping command, from the last torques sent
    solver = _held_still(talos, scale=0.01 * ratio)
    solver.passive_joints = ["arm_left_1_joint"]                 # no motor: 0 there
    limits = solver.constraints[0]
    policy = FailurePolicy(solver, damping=5.0)
    moving = talos.zero_velocity()
    moving[6:] = 0.1
    solution = policy.solve(q, moving)
    assert solution.relaxed == (SOFTENED, SLACKENED, DAMPING) and not solution.success
    bound = np.full(talos.na, np.inf)
    bound[limits.index] = limits.effort
    inertia = pin.crba(talos.model, talos.model.createData(), q).diagonal()[6:]
    gains = np.minimum(5.0, inertia / 1e-3)                      # no more than stops a joint in dt
    assert np.any(gains < 5.0) and np.any(gains == 5.0)
    expected = np.maximum(-0.1 * gains, -bound)                  # 0 − d_j × 0.1, clipped
    expected[talos.joint_v_index("arm_left_1_joint") - 6] = 0.0
    np.testing.assert_allclose(solution.tau_actuated, expected)
    assert np.all(solution.tau[:6] == 0.0)
    assert policy.counts == {RELAXED: 0, SOFTENED: 0, SLACKENED: 0, DAMPING: 1}


def _held_still(robot, scale):
    """Standing, the CoM and every joint held at zero acceleration (hard: softening the
    contacts cannot let the robot fall), torque limits × ``scale``."""
    solver = standing_solver(robot, diagnose=False)
    solver.add_constraint(tp.constraints.TorqueLimits(scale=scale))
    solver.add_task(tp.tasks.JointTask(kp=0.0, kd=0.0, priority="hard"))
    solver.add_task(tp.tasks.CoMTask(kp=0.0, kd=0.0, priority="hard"))
    return solver


def test_solver_without_diagnosis_raises_a_plain_solver_error(talos):
    solver = _held_still(talos, scale=1e-3)
    with pytest.raises(tp.SolverError) as raised:
        solver.solve(talos.q_ref, talos.zero_velocity())
    assert not isinstance(raised.value, tp.InfeasibleError) and getattr(raised.value, "qp", None) is None
    solver.diagnose = True               # the offline path: the diagnosis runs and keeps the QP
    with pytest.raises(tp.SolverError) as raised:
        solver.solve(talos.q_ref, talos.zero_velocity())
    assert raised.value.qp is not None


def test_contact_state_softens_a_rocking_sole_and_hardens_it_once_still(talos):
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver, max_angular_velocity=1.0, settle_time=0.003)
    q = talos.q_ref
    solution = solver.solve(q, talos.zero_velocity())
    assert not monitor.update(solution)
    rocking = talos.zero_velocity()
    rocking[3 + 1] = 2.0                 # the whole robot pitching at 2 rad/s: both soles rotate
    solution = solver.solve(q, rocking)
    assert monitor.update(solution)
    assert set(monitor.softened) == set(solver.contacts)
    still = talos.zero_velocity()
    for _ in range(3):
        solution = solver.solve(q, still)
        monitor.update(solution)
    assert not monitor.softened
    # a vanished normal force (measured) softens too
    solution = solver.solve(q, still)
    measured = {talos.feet[0]: np.zeros(6), talos.feet[1]: np.r_[0, 0, talos.weight, 0, 0, 0]}
    monitor.update(solution, measured)
    assert talos.feet[0] in monitor.softened
    assert talos.feet[1] not in monitor.softened


def test_contact_state_settings_changed_after_construction_take_effect(talos):
    """Thresholds assigned after construction are the ones used: soles pitching at 2 rad/s
    stay hard under a 3 rad/s threshold and are softened once it is lowered to 1 rad/s."""
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver)
    rocking = talos.zero_velocity()
    rocking[3 + 1] = 2.0
    monitor.max_angular_velocity = 3.0
    assert not monitor.update(solver.solve(talos.q_ref, rocking))
    monitor.max_angular_velocity = 1.0
    assert monitor.update(solver.solve(talos.q_ref, rocking))
    monitor.settle_time = 0.01
    assert monitor.settle_steps == round(0.01 / solver.dt)
    for name, value in (("max_angular_velocity", 0.0), ("max_tilt", -0.1), ("settle_time", float("nan")),
                        ("min_normal_force", "x"), ("soft_weight", 0.0)):
        with pytest.raises(ValueError, match=name):
            setattr(monitor, name, value)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "half"])
def test_capture_point_task_hip_ratio_is_checked_on_assignment(bad):
    task = CapturePointTask(0.87)
    with pytest.raises(ValueError, match="hip_ratio"):
        task.hip_ratio = bad
    with pytest.raises(ValueError, match="hip_ratio"):
        CapturePointTask(0.87, hip_ratio=bad)
    task.hip_ratio = 0.25
    assert task.hip_ratio == 0.25


def test_balance_controller_defaults_follow_the_robot():
    """Contact rectangles keep SOLE_MARGIN (m) from each edge of the robot's sole; the
    posture weighs the legs (the joints between the base and a sole) less, by robot."""
    from tsid_py.control.balance import SOLE_MARGIN
    from tsid_py.models.profile import profile_of

    for name in ("talos", "g1"):
        robot = load_robot(name)
        controller = BalanceController(robot)
        for contact in controller.solver.contacts.values():
            assert (robot.sole_size[0] - contact.length) / 2 == pytest.approx(SOLE_MARGIN[0])
            assert (robot.sole_size[1] - contact.width) / 2 == pytest.approx(SOLE_MARGIN[1])
        legs = profile_of(robot).leg_joints
        assert len(legs) == 12 and all(any(word in joint for word in ("leg", "hip", "knee", "ankle")) for joint in legs)
        defaults = profile_of(robot).balance
        joints = [joint for joint in robot.joint_names if robot.has_1dof_joint(joint)]
        expected = [defaults.posture_weight * (defaults.posture_leg_scale if joint in legs else 1.0)
                    for joint in joints]
        np.testing.assert_allclose(controller.posture.weight, expected)
    custom = BalanceController(load_robot("talos"), posture_weight=0.02, posture_leg_scale=0.0, sole_scale=0.8)
    assert custom.sole_scale == (0.8, 0.8) and custom.posture.weight.max() == pytest.approx(0.02)
    assert custom.posture.weight.min() == 0.0


def test_balance_controller_rejects_bad_configuration():
    with pytest.raises(ValueError, match="sole_scale"):
        BalanceController(load_robot("talos"), sole_scale=1.5)
    with pytest.raises(ValueError, match="posture_leg_scale"):
        BalanceController(load_robot("talos"), posture_leg_scale=1.5)
    go2 = load_robot("go2")
    go2.profile = go2.profile.with_(feet=go2.profile.feet[:2])         # two point feet: a line, no support
    with pytest.raises(ValueError, match="at least three point feet"):
        BalanceController(go2)


def test_balance_controller_stands_a_robot_on_point_feet_in_the_hull_of_its_feet():
    """On Go2's four point feet: one point contact a foot, the support polygon the hull of the
    feet's contact points (pinocchio's placements at the posture) and the controller's first
    solve holds the weight on them."""
    robot = load_robot("go2")
    controller = BalanceController(robot)
    assert {name: type(contact) for name, contact in controller.solver.contacts.items()} == {
        foot: tp.PointContact for foot in robot.feet}
    robot.update(robot.q_ref, robot.zero_velocity())
    points = np.array([robot.frame_placement(robot.frame_id(foot)).translation[:2] for foot in robot.feet])
    np.testing.assert_allclose(sorted(map(tuple, controller.support.vertices)), sorted(map(tuple, points)), atol=1e-12)
    solution = controller.step(robot.q_ref, robot.zero_velocity())
    assert sum(wrench[2] for wrench in solution.wrenches.values()) == pytest.approx(robot.weight, rel=0.05)


def test_balance_controller_keeps_the_joints_in_their_ranges_by_default():
    """Joint-position limits are on unless the profile or the caller turns them off. A knee
    2 cm from its stop, closing at 0.63 rad/s (a stop 1.98 cm away braking at JointLimits'
    10 rad/s²): with the limits the step leaves it able to stop in its range,
    ``v⁺² / (2 a_max) ≤ q⁺ − q_min``; without, not."""
    from tsid_py.models.profile import BalanceDefaults

    def limited(controller):
        return any(isinstance(item, tp.constraints.JointLimits) for item in controller.solver.constraints)

    robot = load_robot("g1")
    assert limited(BalanceController(robot)) and not limited(BalanceController(robot, joint_limits=False))
    assert not limited(BalanceController(load_robot("talos")))           # its measured override
    robot.profile = robot.profile.with_(balance=BalanceDefaults(joint_limits=False))
    assert not limited(BalanceController(robot))
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    knee, rate = robot.joint_q_index("left_knee_joint"), robot.joint_v_index("left_knee_joint")
    lowest = robot.position_lower[knee - 7]
    q[knee], v[rate] = lowest + 0.02, -0.63
    for limits in (True, False):
        robot = load_robot("g1")
        controller = BalanceController(robot, joint_limits=limits, posture_weight=0.0)   # nothing else brakes it
        dt = controller.solver.dt
        after = v[rate] + dt * controller.step(q, v).ddq[rate]         # semi-implicit Euler, as MuJoCo
        assert (after**2 / (2 * 10.0) <= q[knee] + dt * after - lowest + 1e-9) == limits


def test_the_float_clamp_is_the_array_clamp_bit_for_bit():
    """``SupportPolygon.clamp_xy`` (the control loop's path) gives exactly ``clamp``'s point."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        polygon = SupportPolygon(rng.normal(size=(6, 2)) * 0.2)
        for point in rng.normal(size=(40, 2)) * 0.4:
            assert polygon.clamp_xy(float(point[0]), float(point[1])) == tuple(float(v) for v in polygon.clamp(point))


def test_wrench_regularization_weights_assigned_later_give_the_solve_built_with_them():
    """Torsion weight changed on a running controller: the next solve is the one a controller
    built with that weight gives (and not the old weight's: a yawing torso makes the soles'
    torsion matter)."""
    from tsid_py.control.wrench_regularization import DEFAULT_WEIGHTS

    robot = load_robot("talos")
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    v[5] = 0.8                                    # the base yawing at 0.8 rad/s
    heavy = np.array(DEFAULT_WEIGHTS)
    heavy[5] = 10.0
    built = BalanceController(robot, wrench_regularization=heavy).step(q, v)
    changed = BalanceController(robot)
    before = changed.step(q, v)
    changed.wrench_regularization.axis_weights = heavy
    after = changed.step(q, v)
    np.testing.assert_allclose(after.x, built.x, rtol=1e-6, atol=1e-6)
    torsion = [abs(before.local_wrenches[foot][5]) for foot in robot.feet]
    assert max(torsion) > 10 * max(abs(after.local_wrenches[foot][5]) for foot in robot.feet)
    with pytest.raises(ValueError, match="read-only"):
        changed.wrench_regularization.axis_weights[5] = 1.0
    with pytest.raises(ValueError, match="axis_weights"):
        changed.wrench_regularization.axis_weights = [1.0, 1.0, 1.0, 1.0, 1.0, -1.0]
