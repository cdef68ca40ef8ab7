"""The drives' online damping and friction estimate against closed forms: with a diffuse
prior, no drift and a fixed measurement noise its Kalman filter is recursive least squares,
so it lands on the batch least-squares fit of the same rows (the simulator's check is in test_estimation_sim)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from tsid_py.control.drive_estimation import DriveFrictionEstimate, drive_filter_step
from tsid_py.models.actuators import DriveParameters

from .conftest import load_robot


def test_the_filter_without_drift_is_the_least_squares_fit_of_its_rows():
    rng = np.random.default_rng(3)
    steps, joints, dt, smoothing = 400, 2, 1e-3, 0.05
    truth = np.array([[0.8, 0.3, 0.1, -0.4], [0.2, 0.05, -0.05, 0.7]])         # b, f, k, c per joint
    theta = np.zeros((joints, 4))
    covariance = np.repeat(np.eye(4)[None] * 1e8, joints, axis=0)              # diffuse prior
    noise = np.full(joints, 1e-4)
    rows, targets = [[] for _ in range(joints)], [[] for _ in range(joints)]
    velocity = np.zeros(joints)
    for k in range(steps):
        previous = velocity
        velocity = 2.0 * np.sin(2 * np.pi * np.array([1.3, 2.1]) * k * dt + np.array([0.2, 1.0]))
        torque = 5.0 * np.cos(2 * np.pi * 0.7 * k * dt + np.array([0.0, 0.5]))
        mean = 0.5 * (velocity + previous)
        regressors = np.column_stack([mean, np.tanh(mean / smoothing), torque, np.ones(joints)])
        y = np.einsum("ij,ij->i", regressors, truth) + rng.normal(0.0, 1e-2, joints)
        feedforward = rng.normal(0.0, 1.0, joints)                                 # any u: y = u − residual
        residual = feedforward - y
        drive_filter_step(residual, velocity, previous, feedforward, torque, np.ones(joints, dtype=bool), covariance,
                          noise, np.zeros(joints), theta, np.zeros((joints, 4)), smoothing, dt, 1e9, 1e12)
        for i in range(joints):
            rows[i].append(regressors[i])
            targets[i].append(y[i])
    for i in range(joints):
        fit = np.linalg.lstsq(np.array(rows[i]), np.array(targets[i]), rcond=None)[0]
        np.testing.assert_allclose(theta[i], fit, atol=2e-5)
        np.testing.assert_allclose(theta[i], truth[i], atol=0.05)


def test_a_joint_a_contact_loads_is_not_updated_and_joints_above_a_foot_are_loaded():
    robot = load_robot("talos")
    estimate = DriveFrictionEstimate(robot, 1e-3, DriveParameters(np.zeros(robot.na), np.full(robot.na, 0.5),
                                                                  np.zeros(robot.na)))
    names = robot.scalar_joint_names[-robot.na:]
    free = estimate.free_joints(["left_sole_link"])
    assert not any(free[i] for i, name in enumerate(names) if name.startswith("leg_left"))
    assert all(free[i] for i, name in enumerate(names) if not name.startswith("leg_left"))
    assert not estimate.free_joints(["not a frame"]).any()
    before = estimate.theta.copy()
    feet = ["left_sole_link", "right_sole_link"]
    for k in range(2 * estimate.window + 1):              # every joint moving at 1 rad/s, 0.4 N·m unexplained
        estimate.update(np.full(robot.na, k * 1e-3), np.r_[np.zeros(6), np.ones(robot.na)], np.zeros(robot.nv),
                        np.zeros(robot.na), np.full(robot.na, 0.9), feet, np.eye(robot.nv))
    legs = [i for i, name in enumerate(names) if name.startswith("leg_")]
    others = [i for i, name in enumerate(names) if not name.startswith("leg_")]
    np.testing.assert_array_equal(estimate.theta[legs], before[legs])
    assert np.all(estimate.theta[others][:, [0, 1, 3]] > before[others][:, [0, 1, 3]])    # k: its regressor τ was 0


def test_bad_settings_are_refused_by_name():
    robot = load_robot("talos")
    prior = DriveParameters(np.zeros(robot.na), np.zeros(robot.na), np.zeros(robot.na))
    with pytest.raises(ValueError, match="gate"):
        DriveFrictionEstimate(robot, 1e-3, prior, gate=0.0)
    with pytest.raises(ValueError, match="prior"):
        DriveFrictionEstimate(robot, 1e-3, DriveParameters(np.zeros(2), np.zeros(2), np.zeros(2)))


def test_the_encoders_noise_is_the_measurement_noise_and_a_joint_at_rest_keeps_its_prior():
    """Joints at rest read through encoders of σ = 1 mrad: the residual ``M (q̈ − q̈*)`` the
    estimate sees is the encoders' second differences alone, and its variance (the test's own
    count over 1500 updates) is the estimate's noise floor ``(√6 σ / (W dt)² ‖M_ia‖)²``; a
    velocity within its noise teaches nothing but a bias toward no damping, so the damping fed
    forward stays near the prior (measured: within 14 %; the filter told no encoder noise took
    every joint's to 0 here). The friction's few updates (a 3σ velocity: 0.3 % of the samples)
    move it by its noise and are not asserted."""
    robot = load_robot("g1")
    n, first, dt, sigma = robot.na, robot.nv - robot.na, 1e-3, 1e-3
    prior = DriveParameters(np.zeros(n), np.full(n, 0.1), np.full(n, 0.2))
    estimate = DriveFrictionEstimate(robot, dt, prior, encoder_noise=sigma)
    mass = pin.crba(robot.model, robot.model.createData(), robot.q_ref)
    mass = np.triu(mass) + np.triu(mass, 1).T
    rng = np.random.default_rng(5)
    rest = robot.q_ref[7:]
    w = estimate.window
    positions = rest + rng.normal(0.0, sigma, (1500 * w + 2 * w + 1, n))
    for reading in positions:
        estimate.update(reading, np.zeros(robot.nv), np.zeros(robot.nv), np.zeros(n), np.zeros(n), [], mass)
    picked = positions[::w]
    residual = (picked[2:] - 2.0 * picked[1:-1] + picked[:-2]) / (w * dt) ** 2 @ mass[first:, first:].T
    np.testing.assert_allclose(estimate.noise_floor, residual.var(axis=0), rtol=0.12)
    np.testing.assert_allclose(estimate.damping, prior.damping, rtol=0.25)


def test_a_step_whose_command_reached_the_torque_limit_is_not_counted():
    """The drive applies at most its limit: a window holding a step whose command ``τ + u``
    reached it leaves the joint's estimate as it was, the others' are updated."""
    robot = load_robot("talos")
    prior = DriveParameters(np.zeros(robot.na), np.full(robot.na, 0.5), np.zeros(robot.na))
    estimate = DriveFrictionEstimate(robot, 1e-3, prior)
    before = estimate.theta.copy()
    torque = np.zeros(robot.na)
    for k in range(2 * estimate.window + 1):
        torque[0] = estimate.torque_limits[0] if k == estimate.window else 0.0
        estimate.update(np.full(robot.na, k * 1e-3), np.r_[np.zeros(6), np.ones(robot.na)], np.zeros(robot.nv), torque,
                        np.full(robot.na, 0.9), [], np.eye(robot.nv))
    np.testing.assert_array_equal(estimate.theta[0], before[0])
    assert np.all(estimate.theta[1:, 0] > before[1:, 0])
