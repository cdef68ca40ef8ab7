"""Tasks: PD convergence, priorities and weights, and the kinematics behind each task."""

from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp

from .conftest import load_robot


def _rollout(robot, solver, steps, dt=1e-3, q=None):
    """Integrate the solver's own q̈ (semi-implicit Euler): the ideal closed loop."""
    q = robot.q_ref.copy() if q is None else q
    v = robot.zero_velocity()
    for _ in range(steps):
        sol = solver.solve(q, v)
        v = v + dt * sol.ddq
        q = pin.integrate(robot.model, q, dt * v)
        yield q, v, sol


def _critically_damped(error0, kp, t):
    omega = np.sqrt(kp)
    return error0 * (1 + omega * t) * np.exp(-omega * t)


def test_joint_task_converges_critically_damped():
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot)
    kp, step = 100.0, 0.1
    target = robot.q_ref.copy()
    target[2] += step
    task = solver.add_task(tp.tasks.JointTask(target, kp=kp, priority="hard"))
    errors = np.array([t_err for t_err in (task.error[2] for _ in _rollout(robot, solver, 1500))])
    times = np.arange(len(errors)) * 1e-3
    assert errors.min() > -0.02 * step                      # no overshoot beyond 2 %
    np.testing.assert_allclose(errors, _critically_damped(step, kp, times), atol=0.01 * step)
    # 2 % settling of a critically damped system: ≈ 5.83 / ω
    settled = times[np.argmax(np.abs(errors) < 0.02 * step)]
    assert settled == pytest.approx(5.83 / np.sqrt(kp), rel=0.05)


def test_frame_task_converges_critically_damped():
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot)
    kp = 64.0
    robot.update(robot.q_ref, robot.zero_velocity())
    start = robot.frame_placement(robot.frame_id("tool0")).translation.copy()
    offset = np.array([0.05, -0.03, 0.04])
    task = solver.add_task(tp.tasks.PositionTask("tool0", start + offset, kp=kp, weight=1.0))
    solver.add_task(tp.tasks.JointTask(kp=1.0, weight=1e-6))
    errors = np.array([task.error.copy() for _ in _rollout(robot, solver, 1500)])
    times = np.arange(len(errors)) * 1e-3
    along = errors @ offset / np.linalg.norm(offset)
    assert along.min() > -0.02 * np.linalg.norm(offset)
    np.testing.assert_allclose(along, _critically_damped(np.linalg.norm(offset), kp, times),
                               atol=0.02 * np.linalg.norm(offset))


def test_hard_task_is_met_and_soft_tasks_trade_by_weight():
    robot = load_robot("ur5")
    q, v = robot.q_ref, robot.zero_velocity()

    def solve(weight_a):
        solver = tp.DynamicsSolver(robot)
        hard = solver.add_task(tp.tasks.PositionTask("tool0", kp=50.0, priority="hard"))
        hard.set_target(hard.target.translation + [0.02, 0, 0])
        a = solver.add_task(tp.tasks.JointTask(robot.q_ref + 0.3, kp=50.0, weight=weight_a))
        b = solver.add_task(tp.tasks.JointTask(robot.q_ref - 0.3, kp=50.0, weight=1.0))
        sol = solver.solve(q, v)
        robot.update(q, v)
        jac = robot.frame_jacobian(hard.frame_id)[:3]
        drift = robot.frame_drift(hard.frame_id)[:3]
        np.testing.assert_allclose(jac @ sol.ddq + drift, hard.desired_acceleration(), atol=1e-7)
        residual_a = np.linalg.norm(sol.ddq[:6] - a.desired_acceleration())
        residual_b = np.linalg.norm(sol.ddq[:6] - b.desired_acceleration())
        return residual_a, residual_b

    a1, b1 = solve(1.0)
    a2, b2 = solve(2.0)
    assert a2 < 0.95 * a1 and b2 > 1.05 * b1       # measurably toward task a


def test_soft_posture_task_gives_the_weighted_least_squares_optimum(rng):
    """A soft JointTask on some joints (per-axis weights and gains, a mask), over a soft
    acceleration target t on every joint, with the solver's regularisation: q̈ minimises
    Σ wᵢ (q̈_cᵢ − a*ᵢ)² + w_t ||q̈ − t||² + w_a ||q̈||² + w_τ ||M q̈ + h||², the solution of its
    normal equations, with M and h from pinocchio and a* = Kp e + Kd ė."""
    robot = load_robot("panda")
    names = ["panda_joint2", "panda_joint4", "panda_joint5", "panda_joint7"]
    weights, kp = np.array([1.0, 4.0, 2.0, 9.0]), np.array([30.0, 10.0, 50.0, 20.0])
    mask = np.array([True, True, False, True])
    solver = tp.DynamicsSolver(robot)
    acceleration_target, w_t = rng.normal(0, 1.0, robot.nv), 0.5
    solver.add_task(tp.tasks.AccelerationTask(acceleration_target, weight=w_t))
    task = solver.add_task(tp.tasks.JointTask(joints=names, kp=kp, weight=weights, mask=mask))
    q = pin.randomConfiguration(robot.model)
    v = rng.normal(0, 0.5, robot.nv)
    task.set_target(rng.normal(0, 0.3, len(names)), velocity=rng.normal(0, 0.2, len(names)))
    ddq = solver.solve(q, v).ddq

    data = robot.model.createData()
    M, h = pin.crba(robot.model, data, q), pin.nonLinearEffects(robot.model, data, q, v)
    M = np.triu(M) + np.triu(M, 1).T
    columns = np.array([robot.joint_v_index(name) for name in names])
    target_q = task.position_ref
    desired = kp * (target_q - q[[robot.joint_q_index(name) for name in names]]) \
        + 2 * np.sqrt(kp) * (task.velocity_ref - v[columns])
    w_a, w_tau = tp.solver.DEFAULT_REGULARIZATION["acceleration"], tp.solver.DEFAULT_REGULARIZATION["torque"]
    normal = (w_a + w_t) * np.eye(robot.nv) + w_tau * M.T @ M
    rhs = w_t * acceleration_target - w_tau * M.T @ h
    for column, weight, value in zip(columns[mask], weights[mask], desired[mask]):
        normal[column, column] += weight
        rhs[column] += weight * value
    np.testing.assert_allclose(ddq, np.linalg.solve(normal, rhs), rtol=1e-7, atol=1e-7)


def test_per_axis_gains_and_masks():
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot)
    task = solver.add_task(tp.tasks.PositionTask("tool0", kp=[10.0, 20.0, 30.0], mask=[True, False, True]))
    np.testing.assert_allclose(task.kd, 2 * np.sqrt([10.0, 20.0, 30.0]))
    assert task.size == 2
    solver.solve(robot.q_ref, robot.zero_velocity())
    matrix, _ = task.compute(solver.layout.context)
    assert matrix.shape == (2, robot.nv)


def measure(task, robot):
    """``(e, ė, J, J̇v)`` of a PD task's axes from its :meth:`kinematics` (pinocchio's frame
    queries for frame tasks): ``ė = v_ref − J v``."""
    error, jacobian, drift, first = task.kinematics(robot)
    rows = slice(first, first + task.dim)
    return error, task.velocity_ref - jacobian[rows] @ robot.v, jacobian[rows], drift[rows]


def test_relative_frame_task_kinematics_by_finite_differences(rng):
    robot = load_robot("talos")
    task = tp.tasks.RelativeFrameTask("gripper_left_base_link", "torso_2_link")
    task.prepare(robot)
    q = robot.q_ref.copy()
    q[7:] += rng.uniform(-0.2, 0.2, robot.nq - 7)
    v = rng.normal(0, 0.5, robot.nv)
    robot.update(q, v)
    _, error_rate, jacobian, drift = measure(task, robot)
    eps = 1e-4

    def relative_position(t):
        robot.update(pin.integrate(robot.model, q, t * v), v)
        return task.relative_placement(robot).translation

    p_minus, p0, p_plus = relative_position(-eps), relative_position(0), relative_position(eps)
    np.testing.assert_allclose(jacobian[:3] @ v, (p_plus - p_minus) / (2 * eps), atol=1e-6)
    np.testing.assert_allclose(drift[:3], (p_plus - 2 * p0 + p_minus) / eps**2, atol=1e-3)


def test_momentum_task_matches_pinocchio(rng):
    robot = load_robot("talos")
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot))
    task = solver.add_task(tp.tasks.MomentumTask(components="both", kp=5.0))
    q, v = robot.q_ref, rng.normal(0, 0.2, robot.nv)
    solver.solve(q, v)
    data = robot.model.createData()
    momentum = pin.computeCentroidalMomentum(robot.model, data, q, v).vector
    np.testing.assert_allclose(task.error, -momentum, atol=1e-9)
    # the rate at q̈ = 0 (the task's drift Ȧ_g v) is pinocchio's dh_g at zero acceleration
    pin.computeCentroidalMomentumTimeVariation(robot.model, data, q, v, np.zeros(robot.nv))
    np.testing.assert_allclose(task.error_rate, task.kp * task.error - data.dhg.vector, atol=1e-9)


@pytest.mark.parametrize("components, mask", [("both", None), ("angular", [True, False, True]),
                                               ("linear", None)])
def test_momentum_task_s_compiled_rows_are_its_computed_rows(components, mask, rng):
    """``MomentumTask.write_rows`` (one compiled call) against the rows of :meth:`compute`
    scaled by ``√W`` (the generic path), weighted and not, with per-axis gains and weights."""
    robot = load_robot("talos")
    dim = 6 if components == "both" else 3
    task = tp.tasks.MomentumTask(rng.normal(0.0, 1.0, dim), components=components, kp=rng.uniform(1.0, 9.0, dim),
                                 weight=rng.uniform(0.5, 4.0, dim), mask=mask)
    task.set_target(task.momentum_ref, velocity=rng.normal(0.0, 1.0, dim))
    task.prepare(robot)
    q = robot.q_ref.copy()
    q[7:] += rng.uniform(-0.2, 0.2, robot.nq - 7)
    robot.update(q, rng.normal(0.0, 0.3, robot.nv))
    context = SimpleNamespace(robot=robot)
    for weighted in (True, False):
        rows, target = task.compute(context)
        error, error_rate = task.error.copy(), task.error_rate.copy()
        matrix, vector = np.full((task.size, robot.nv), np.nan), np.full(task.size, np.nan)
        task.write_rows(context, matrix, vector, weighted)
        scale = task._row_scales[weighted]
        np.testing.assert_array_equal(matrix, rows * scale[:, None])
        np.testing.assert_array_equal(vector, target * scale)
        np.testing.assert_array_equal(task.error, error)
        np.testing.assert_array_equal(task.error_rate, error_rate)
    with pytest.raises(ValueError, match="kp"):
        task.kp = -1.0


def test_torque_task_hard_and_wrench_task_distribution(talos):
    solver = tp.DynamicsSolver(talos)
    for foot in talos.feet:
        solver.add_contact(tp.PlanarContact(foot))
    solver.add_task(tp.tasks.CoMTask(kp=10.0))
    solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
    left = solver.add_task(tp.tasks.WrenchTask(talos.feet[0], [0, 0, 0.7 * talos.weight, 0, 0, 0],
                                               weight=[0, 0, 1, 0, 0, 0]))
    sol = solver.solve(talos.q_ref, talos.zero_velocity())
    assert sol.wrenches[talos.feet[0]][2] == pytest.approx(0.7 * talos.weight, rel=0.02)
    assert np.abs(left.error[2]) < 0.02 * talos.weight
    arm = tp.DynamicsSolver(load_robot("ur5"))
    torque = arm.add_task(tp.tasks.TorqueTask([5.0, -3.0], joints=["elbow_joint", "wrist_1_joint"], priority="hard"))
    sol = arm.solve(arm.robot.q_ref, arm.robot.zero_velocity())
    np.testing.assert_allclose(sol.tau[[2, 3]], [5.0, -3.0], atol=1e-7)
    np.testing.assert_allclose(torque.error, 0.0, atol=1e-7)


def test_compiled_rotation_vector_is_log3(rng):
    """The kernels' rotation vector equals pinocchio's log3 at any angle, including the
    series near 0 and the symmetric-part branch near π (where ±θn are both right at π)."""
    from tsid_py.frames import rotation_vector

    angles = np.concatenate([rng.uniform(0, np.pi, 200), rng.uniform(0, 1e-4, 50), np.pi - rng.uniform(0, 1e-3, 50),
                             [0.0, np.pi]])
    for angle in angles:
        axis = rng.normal(size=3)
        rotation = pin.exp3(angle * axis / np.linalg.norm(axis))
        expected, got = pin.log3(rotation), np.array(rotation_vector(tuple(rotation.ravel())))
        error = np.abs(got - expected).max()
        if angle > np.pi - 1e-6:
            error = min(error, np.abs(got + expected).max())
        assert error < 1e-9, (angle, got, expected)
