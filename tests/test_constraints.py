"""Limits hold when active; the joint-limit bound is viable; contact transitions are smooth."""

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp

from .conftest import load_robot, standing_solver


def _demanding_arm(robot, constraint):
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    solver.add_task(tp.tasks.JointTask(robot.q_ref + 1.0, kp=2000.0, weight=1.0))
    solver.add_constraint(constraint)
    return solver


def test_torque_limits_hold_and_bind(rng):
    robot = load_robot("panda")
    limits = tp.constraints.TorqueLimits(scale=0.2)
    solver = _demanding_arm(robot, limits)
    for _ in range(5):
        q, v = pin.randomConfiguration(robot.model), rng.normal(0, 0.5, robot.nv)
        sol = solver.solve(q, v)
        bound = 0.2 * robot.effort_limits
        assert np.all(np.abs(sol.tau) <= bound + 1e-6)
        assert np.any(np.isclose(np.abs(sol.tau), bound, rtol=1e-6))   # active


def test_velocity_and_acceleration_limits_hold(rng):
    robot = load_robot("panda")
    for constraint, check in (
        (tp.constraints.VelocityLimits(scale=0.5), lambda q, v, a: np.abs(v + 1e-3 * a) <= 0.5 * robot.velocity_limits + 1e-7),
        (tp.constraints.AccelerationLimits(5.0), lambda q, v, a: np.abs(a) <= 5.0 + 1e-7),
    ):
        solver = _demanding_arm(robot, constraint)
        for _ in range(5):
            q = pin.randomConfiguration(robot.model)
            v = np.clip(rng.normal(0, 0.5, robot.nv), -0.4 * robot.velocity_limits, 0.4 * robot.velocity_limits)
            sol = solver.solve(q, v)
            assert np.all(check(q, v, sol.ddq)), constraint


def test_joint_limits_keep_a_driven_joint_inside_over_two_seconds():
    robot = load_robot("panda")
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    joint = "panda_joint4"
    upper = robot.position_upper[robot.joint_q_index(joint)]
    target = robot.q_ref.copy()
    target[robot.joint_q_index(joint)] = upper + 1.0            # far beyond the limit
    solver.add_task(tp.tasks.JointTask(target, kp=400.0, weight=1.0))
    limits = solver.add_constraint(tp.constraints.JointLimits(acceleration_limit=20.0))
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    highest = -np.inf
    for _ in range(2000):
        sol = solver.solve(q, v)
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
        highest = max(highest, q[robot.joint_q_index(joint)])
        assert np.all(q[limits.q_index] <= limits.upper + 1e-9)
        assert np.all(q[limits.q_index] >= limits.lower - 1e-9)
    assert highest > upper - 0.01                                # it did get driven there


def test_joint_limit_bound_never_asks_more_than_braking():
    bound = tp.constraints.JointLimits._upper_bound(
        q=np.array([0.0, 0.99, 0.5]), v=np.array([0.0, 3.0, -1.0]), q_max=np.array([1.0, 1.0, 1.0]),
        dt=1e-3, a_max=np.array([10.0, 10.0, 10.0]))
    assert np.all(bound >= -10.0)
    assert bound[1] == pytest.approx(-10.0)     # too fast, too close: full braking, no more


def test_the_compiled_joint_limit_bounds_are_the_readable_definition_s_numbers():
    """The control step's kernel against :meth:`JointLimits._upper_bound` (numpy) on states
    inside, at and beyond the stops, moving both ways: the same numbers, bit for bit."""
    from tsid_py.constraints.limits import viable_bounds_into

    rng = np.random.default_rng(4)
    n = 3000
    q_min, q_max = rng.uniform(-2.0, -0.1, n), rng.uniform(0.1, 2.0, n)
    q = rng.uniform(q_min - 0.05, q_max + 0.05, n)
    q[:20], q[20:40] = q_max[:20], q_min[20:40]                        # at the stops
    v, a_max = rng.normal(0.0, 4.0, n), rng.uniform(1.0, 200.0, n)
    lower, upper = np.empty(n), np.empty(n)
    viable_bounds_into(q, v, q_min, q_max, 1e-3, a_max, lower, upper)
    up = tp.constraints.JointLimits._upper_bound(q, v, q_max, 1e-3, a_max)
    down = -tp.constraints.JointLimits._upper_bound(-q, -v, -q_min, 1e-3, a_max)
    np.testing.assert_array_equal(upper, up)
    np.testing.assert_array_equal(lower, np.minimum(down, up))


def test_removing_a_foot_with_transition_is_smooth(talos):
    solver = standing_solver(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    first = solver.solve(q, v)
    left, right = talos.feet
    solver.remove_contact(left, transition=0.1)
    # as a user lifting the foot would: a task holds it where the contact was
    solver.add_task(tp.tasks.FrameTask(left, kp=300.0, weight=10.0))
    normals, taus = [first.wrenches[left][2]], [first.tau]
    for _ in range(100):
        sol = solver.solve(q, v)
        normals.append(sol.wrenches[left][2])
        taus.append(sol.tau)
    after = solver.solve(q, v)                          # the contact has left the QP
    assert left not in solver.contacts and left not in after.wrenches
    taus.append(after.tau)
    normals = np.array(normals)
    assert np.all(np.diff(normals) <= 1e-6) and normals[-1] == pytest.approx(0.0, abs=1e-6)
    assert after.wrenches[right][2] == pytest.approx(talos.weight, rel=0.02)
    steps = np.abs(np.diff(np.array(taus), axis=0)).max(axis=1)
    assert steps[-1] <= steps[:-1].max() + 1e-6


def test_adding_a_contact_with_transition_ramps_its_force(talos):
    solver = standing_solver(talos)
    left = talos.feet[0]
    solver.remove_contact(left)
    solver.solve(talos.q_ref, talos.zero_velocity())
    solver.add_contact(tp.PlanarContact(left, length=0.2, width=0.13), transition=0.05)
    normals = [solver.solve(talos.q_ref, talos.zero_velocity()).wrenches[left][2] for _ in range(60)]
    assert np.all(np.diff(normals) >= -1e-6)
    assert normals[0] <= talos.weight / 50 + 1e-6
