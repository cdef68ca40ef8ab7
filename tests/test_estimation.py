"""State estimation against closed forms and synthetic motions whose truth is known exactly
(no simulator: the MuJoCo checks are in tests/test_estimation_sim.py)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from scipy.linalg import solve_discrete_are, solve_discrete_lyapunov

import tsid_py as tp
from tsid_py.estimation import (BaseFilter, ContactDetector, EstimatorSettings, JointFilter, SensorReadings,
                                SensorSpec, StateEstimator, alpha_beta_gains, filtered_noise, steady_state_covariance)

from .conftest import load_robot

DT = 1e-3


def riccati_gains(process: float, noise: float, dt: float):
    """The white-noise-acceleration model's steady-state gains and corrected covariance from
    the discrete algebraic Riccati equation (scipy), the filter's independent truth."""
    F = np.array([[1.0, dt], [0.0, 1.0]])
    G = np.array([[dt * dt / 2.0], [dt]])
    H = np.array([[1.0, 0.0]])
    predicted = solve_discrete_are(F.T, H.T, process ** 2 * G @ G.T, np.array([[noise ** 2]]))
    gain = predicted @ H.T / (H @ predicted @ H.T + noise ** 2)
    return gain.ravel(), (np.eye(2) - gain @ H) @ predicted


@pytest.mark.parametrize("process, noise", [(10.0, 1e-3), (100.0, 1e-4), (1.0, 1e-2), (50.0, 1e-6)])
def test_alpha_beta_gains_and_covariance_are_the_riccati_steady_state(process, noise):
    alpha, beta = alpha_beta_gains(process * DT * DT / noise)
    gain, covariance = riccati_gains(process, noise, DT)
    np.testing.assert_allclose([alpha, beta / DT], gain, rtol=1e-7)
    np.testing.assert_allclose(steady_state_covariance(alpha, beta, noise, DT), covariance, rtol=1e-6)


@pytest.mark.parametrize("index", [0.01, 0.1, 1.0, 5.0])
def test_filtered_noise_is_the_stationary_covariance_of_the_noise_alone(index):
    alpha, beta = alpha_beta_gains(index)
    gain, F = np.array([[alpha], [beta / DT]]), np.array([[1.0, DT], [0.0, 1.0]])
    covariance = solve_discrete_lyapunov((np.eye(2) - gain @ np.array([[1.0, 0.0]])) @ F, 1e-6 * gain @ gain.T)
    np.testing.assert_allclose(filtered_noise(alpha, beta, 1e-3, DT), np.sqrt(np.diag(covariance)), rtol=1e-9)


def test_alpha_beta_gains_refuse_a_bad_tracking_index():
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="tracking_index"):
            alpha_beta_gains(bad)


def test_joint_filter_follows_the_commanded_motion_without_lag():
    """A joint moving with the acceleration the filter is told: no lag (finite differences
    lowpassed at the same noise reduction lag by their time constant)."""
    n, steps = 3, 2000
    filt = JointFilter(n, DT, position_noise=1e-3, acceleration_noise=10.0)
    t = np.arange(steps + 1) * DT
    amplitude, omega = np.array([0.3, 0.1, 0.5]), np.array([3.0, 7.0, 1.0])
    q = amplitude * np.sin(np.outer(t, omega))
    v = amplitude * omega * np.cos(np.outer(t, omega))
    a = -amplitude * omega ** 2 * np.sin(np.outer(t, omega))
    filt.reset(q[0], v[0])
    errors = []
    for k in range(1, steps + 1):
        filt.step(q[k], 0.5 * (a[k - 1] + a[k]))
        errors.append(filt.velocity - v[k])
    assert np.abs(errors).max() < 1e-4                    # exact readings: only the model's O(dt²) error


def test_joint_filter_velocity_noise_is_the_closed_form_one(rng):
    """On a joint at rest read by noisy encoders, the velocity's spread is the noise the
    filter passes (:func:`filtered_noise`), 75 times less than finite differences'."""
    n, steps, sigma = 200, 3000, 1e-3
    filt = JointFilter(n, DT, position_noise=sigma, acceleration_noise=10.0)
    velocities = []
    for _ in range(steps):
        filt.step(rng.normal(0.0, sigma, n))
        velocities.append(filt.velocity.copy())
    measured = np.std(np.array(velocities[500:]))
    assert measured == pytest.approx(filt.noise()[1], rel=0.05)
    assert measured < np.sqrt(2.0) * sigma / DT / 70


def test_contact_detector_has_hysteresis():
    detector = ContactDetector(2, on=100.0, off=50.0)
    sequence = [(0, 0), (120, 60), (80, 40), (40, 120), (60, 49)]
    expected = [(0, 0), (1, 0), (1, 0), (0, 1), (0, 0)]
    for forces, flags in zip(sequence, expected):
        np.testing.assert_array_equal(detector.update(np.array(forces, float)), flags)
    with pytest.raises(ValueError, match="off < on"):
        ContactDetector(1, on=10.0, off=10.0)


def synthetic_motion(steps: int, feet: np.ndarray):
    """A base swaying and turning over two fixed feet, sampled at ``DT``: its orientations,
    positions, velocities, and the IMU readings and foot positions in the base an exact
    sensor would give (the mean specific force over each period in the end's axes, the
    angular rate whose exponential is each period's rotation, as the estimator integrates)."""
    t = np.arange(steps + 1) * DT
    position = np.stack([0.05 * np.sin(2.0 * t), 0.08 * np.sin(1.3 * t + 0.4), 0.9 + 0.02 * np.cos(3.0 * t)], 1)
    angles = np.stack([0.05 * np.sin(1.7 * t), 0.04 * np.sin(2.3 * t + 1.0), 0.3 * np.sin(0.8 * t)], 1)
    rotations = [pin.rpy.rpyToMatrix(*rpy) for rpy in angles]
    velocity = np.vstack([np.zeros(3), np.diff(position, axis=0) / DT])
    gravity = np.array([0.0, 0.0, -9.81])
    readings = []
    for k in range(1, steps + 1):
        gyro = pin.log3(rotations[k - 1].T @ rotations[k]) / DT
        accel = rotations[k].T @ ((velocity[k] - velocity[k - 1]) / DT - gravity)
        relative = np.array([rotations[k].T @ (foot - position[k]) for foot in feet])
        readings.append((gyro, accel, relative))
    return rotations, position, velocity, readings


FEET = np.array([[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]])


def base_filter(**changes) -> BaseFilter:
    options = dict(gyro_noise=1e-4, accel_noise=1e-2, gyro_bias_walk=1e-6, accel_bias_walk=1e-4, foot_drift=1e-4,
                   kinematic_noise=1e-3)
    options.update(changes)
    return BaseFilter(2, **options)


def test_base_filter_tracks_an_exact_motion_exactly():
    steps = 1500
    rotations, position, velocity, readings = synthetic_motion(steps, FEET)
    filt = base_filter()
    filt.reset(rotations[0], position[0], velocity[0])
    stance = np.ones(2)
    for k, (gyro, accel, relative) in enumerate(readings, start=1):
        filt.step(gyro, accel, relative, stance, DT)
    np.testing.assert_allclose(filt.position, position[-1], atol=1e-9)
    np.testing.assert_allclose(filt.velocity, velocity[-1], atol=1e-8)
    assert np.linalg.norm(pin.log3(filt.rotation.T @ rotations[-1])) < 1e-9
    np.testing.assert_allclose(filt.feet_positions, FEET, atol=1e-9)


def test_base_filter_corrects_tilt_and_learns_biases_from_the_feet(rng):
    """Biased, noisy IMU and noisy kinematics, a start 2° off in roll: the tilt converges (the
    feet and the accelerometer tell it), the position and velocity stay within the noise,
    the gyroscope's roll and pitch biases are learnt; the yaw drifts only as its bias turns."""
    steps = 6000
    rotations, position, velocity, readings = synthetic_motion(steps, FEET)
    gyro_bias, accel_bias = np.array([2e-3, -1.5e-3, 1e-3]), np.array([0.05, -0.03, 0.02])
    filt = base_filter(initial=(0.05, 1e-3, 1e-3, 1e-3, 5e-3, 0.1))
    filt.reset(rotations[0] @ pin.rpy.rpyToMatrix(np.radians(2.0), 0.0, 0.0), position[0], velocity[0])
    stance = np.ones(2)
    for gyro, accel, relative in readings:
        filt.step(gyro + gyro_bias + rng.normal(0, 1e-4 / np.sqrt(DT), 3),
                  accel + accel_bias + rng.normal(0, 1e-2, 3), relative + rng.normal(0, 1e-3, (2, 3)), stance, DT)
    error = rotations[-1] @ pin.log3(filt.rotation.T @ rotations[-1])
    assert np.hypot(error[0], error[1]) < np.radians(0.1)
    assert abs(error[2]) < np.radians(0.5)
    assert np.linalg.norm(filt.position[:2] - position[-1][:2]) < 0.01
    assert np.linalg.norm(filt.velocity - velocity[-1]) < 0.01
    np.testing.assert_allclose(filt.gyro_bias[:2], gyro_bias[:2], atol=3e-4)


def test_base_filter_puts_a_slid_foot_down_anew():
    """A foot that jumps 5 cm (it slid) is refused by the gate, then put down where it is:
    the base's estimate does not follow it."""
    steps = 300
    rotations, position, velocity, readings = synthetic_motion(steps, FEET)
    filt = base_filter()
    filt.reset(rotations[0], position[0], velocity[0])
    stance = np.ones(2)
    for k, (gyro, accel, relative) in enumerate(readings, start=1):
        if k > 100:
            relative = relative.copy()
            relative[0] += rotations[k].T @ np.array([0.05, 0.0, 0.0])
        filt.step(gyro, accel, relative, stance, DT)
    np.testing.assert_allclose(filt.position, position[-1], atol=1e-3)
    np.testing.assert_allclose(filt.feet_positions[0], FEET[0] + [0.05, 0.0, 0.0], atol=1e-3)


def test_estimator_settings_from_a_datasheet_and_bad_values():
    spec = SensorSpec(encoder_noise=1e-3, encoder_resolution=1e-3, gyro_noise=2e-4, gyro_bias=1e-3,
                      accel_noise=1e-3, accel_bias=0.05)
    settings = EstimatorSettings.for_sensors(spec, DT, foot_drift=1e-3)
    assert settings.encoder_noise == pytest.approx(np.sqrt(1e-6 + 1e-6 / 12))
    assert settings.gyro_bias == 1e-3 and settings.foot_drift == 1e-3
    assert settings.accel_noise == pytest.approx(np.hypot(EstimatorSettings().accel_noise, 1e-3 / np.sqrt(DT)))
    with pytest.raises(ValueError, match="gyro_noise"):
        EstimatorSettings(gyro_noise=-1.0)
    with pytest.raises(ValueError, match="contact_off"):
        EstimatorSettings(contact_on=0.1, contact_off=0.2)
    with pytest.raises(ValueError, match="encoder_noise"):
        SensorSpec(encoder_noise=np.nan)


def test_state_estimator_holds_a_robot_standing_still():
    """Talos standing: exact readings of a robot at rest give back its state; the feet stand
    from the first update (no force measured yet counts as standing)."""
    robot = load_robot("talos")
    estimator = StateEstimator(robot, DT)
    readings = SensorReadings(robot.na)
    readings.joint_positions[:] = robot.q_ref[7:]
    readings.accel[:] = [0.0, 0.0, robot.gravity]
    forces = np.full(2, np.inf)
    for _ in range(200):
        q, v = estimator.update(readings, forces)
    np.testing.assert_allclose(q, robot.q_ref, atol=1e-9)
    np.testing.assert_allclose(v, 0.0, atol=1e-9)
    np.testing.assert_array_equal(estimator.stance, [1.0, 1.0])


def test_state_estimator_reads_every_position_of_a_composite_joint():
    """biped.xml's hips and ankles are composite joints (an MJCF body with several hinges): the
    compiled chains do not cover them, and pinocchio's forward kinematics of the legs takes
    every position of each (an index per joint read 6 of its 12); standing still, exact
    readings give back the state."""
    from pathlib import Path

    robot = tp.robots.load(Path(__file__).parent / "data" / "biped.xml")
    estimator = StateEstimator(robot, DT)
    readings = SensorReadings(robot.na)
    readings.joint_positions[:] = robot.q_ref[7:]
    readings.accel[:] = [0.0, 0.0, robot.gravity]
    for _ in range(50):
        q, v = estimator.update(readings, np.full(2, np.inf))
    np.testing.assert_allclose(q, robot.q_ref, atol=1e-9)
    np.testing.assert_allclose(v, 0.0, atol=1e-9)


def test_state_estimator_refuses_what_it_cannot_estimate():
    with pytest.raises(ValueError, match="floating-base"):
        StateEstimator(load_robot("ur5"), DT)
    with pytest.raises(ValueError, match="dt"):
        StateEstimator(load_robot("talos"), 0.0)
    with pytest.raises(ValueError, match="settings"):
        StateEstimator(load_robot("talos"), DT, settings={"gyro_noise": 1.0})


@pytest.mark.parametrize("name", ["talos", "g1", "go2", "solo12"])
def test_leg_kinematics_are_pinocchios(name, rng):
    """The compiled chains give the feet where pinocchio's forward kinematics puts them in
    the base's frame, at random joint angles."""
    from tsid_py.estimation.kinematics import LegKinematics

    robot = load_robot(name)
    frames = [robot.frame_id(foot) for foot in robot.feet]
    kinematics = LegKinematics(robot, frames)
    assert kinematics.supported
    data = robot.model.createData()
    out = np.zeros((len(frames), 3))
    for _ in range(5):
        q = robot.q_ref.copy()
        q[7:] += rng.uniform(-0.5, 0.5, robot.nq - 7)
        pin.framesForwardKinematics(robot.model, data, q)
        kinematics.positions(q[7:], out)
        for i, frame in enumerate(frames):
            np.testing.assert_allclose(out[i], data.oMi[1].actInv(data.oMf[frame]).translation, atol=1e-12)


def test_a_point_foot_put_down_by_its_planned_force_anchors_after_it_settles():
    """On point feet the estimation stage counts a foot's planned force only once its contact
    has been in the solver for POINT_FOOT_SETTLE (a foot put down on the schedule may still be
    coming down); a measured force counts at once, and soles do not wait."""
    from types import SimpleNamespace

    from tsid_py.control import BalanceController
    from tsid_py.control.estimation import POINT_FOOT_SETTLE, attach_estimator
    from tsid_py.control.pipeline import StepState
    from tsid_py.control.quadruped import QuadrupedController

    robot = load_robot("go2")
    controller = QuadrupedController(robot, DT)
    stage = attach_estimator(controller, StateEstimator(robot, DT))
    settle = stage.settle_steps
    assert settle == round(POINT_FOOT_SETTLE / DT) > 0
    talos = load_robot("talos")
    assert attach_estimator(BalanceController(talos, DT), StateEstimator(talos, DT)).settle_steps == 0
    readings = SensorReadings(robot.na)
    readings.joint_positions[:] = robot.q_ref[7:]
    readings.accel[:] = [0.0, 0.0, robot.gravity]
    planned = {foot: np.array([0.0, 0.0, 40.0, 0.0, 0.0, 0.0]) for foot in stage.feet}
    previous = SimpleNamespace(local_wrenches=planned, ddq=np.zeros(robot.nv))
    state = StepState()

    def step(wrenches=None):
        state.begin(0.0, None, None, wrenches, readings)
        state.previous = previous
        stage.step(state)
        return stage.forces.copy()

    landing = stage.feet[0]
    np.testing.assert_array_equal(step(), 40.0)                # standing from the start: settled
    controller.stance.lift(landing)
    assert step()[0] == 0.0
    controller.stance.make(landing)
    forces = [step()[0] for _ in range(settle + 2)]
    assert forces[:settle] == [0.0] * settle and forces[settle:] == [40.0, 40.0]
    assert stage.estimator.stance[0] == 1.0
    controller.stance.lift(landing)
    step()
    controller.stance.make(landing)
    measured = {foot: np.array([0.0, 0.0, 25.0, 0.0, 0.0, 0.0]) for foot in stage.feet}
    assert step(measured)[0] == 25.0                           # a force sensor's reading: at once


def test_buffers_move_arrays_into_views_that_keep_their_values():
    """Buffers lays float and intp arrays back to back: each owner's attribute becomes a view
    of its buffer with the same shape and values, the integer buffer's head is the layout, and
    writes through an attribute are what the kernel reads."""
    from types import SimpleNamespace

    from tsid_py.estimation.packing import Buffers, float_field, integer_field

    first = SimpleNamespace(a=np.arange(6.0).reshape(2, 3), n=np.array([4, 5], dtype=np.intp))
    second = SimpleNamespace(b=np.array([7.0]), m=np.array([9], dtype=np.intp))
    buffers = Buffers()
    buffers.add(first, "a", "n")
    buffers.add(second, "b", "m")
    floats, integers = buffers.build()
    np.testing.assert_array_equal(first.a, np.arange(6.0).reshape(2, 3))
    assert np.shares_memory(first.a, floats) and np.shares_memory(second.m, integers)
    second.b[0] = -1.0
    np.testing.assert_array_equal(float_field(floats, integers, 1), [-1.0])
    np.testing.assert_array_equal(float_field(floats, integers, 0), np.arange(6.0))
    np.testing.assert_array_equal(integer_field(integers, 2, 1), [9])
    np.testing.assert_array_equal(integer_field(integers, 2, 0), [4, 5])
    with pytest.raises(ValueError, match="a float64 or intp array"):
        Buffers().add(SimpleNamespace(c=np.zeros(2, dtype=np.float32)), "c")


def test_state_estimator_kernel_reads_each_part_where_it_lies():
    """The estimator's kernel reads its fields by index: each part's array is the buffer's
    field of that index (a field out of order would be read as another)."""
    from tsid_py.estimation import estimator as module
    from tsid_py.estimation.packing import (
        float_field,
        float_matrix,
        float_tensor,
        integer_field,
    )

    estimator = StateEstimator(load_robot("talos"), DT)
    floats, integers = estimator._floats, estimator._integers
    parts = {module._Q: estimator.q, module._V: estimator.v, module._JOINT_Q: estimator.joints.position,
             module._STANCE: estimator.contacts.stance, module._R: estimator.base.rotation,
             module._X: estimator.base.state, module._P: estimator.base.covariance, module._WORK: estimator.base.work,
             module._FRAME_TRANSLATIONS: estimator.kinematics.frame_translations, module._FORCES: estimator.forces}
    for index, array in parts.items():
        field = float_field(floats, integers, index)
        assert field.size == array.size and np.shares_memory(field, array), index
    assert integers.size > module._FLOAT_FIELDS + 4
    np.testing.assert_array_equal(integer_field(integers, module._FLOAT_FIELDS, module._FOOT_JOINTS),
                                  estimator.kinematics.foot_joints)
    estimator.base.covariance[1, 2] = 0.25                  # an asymmetric mark: the matrix's orientation shows
    shaped = [(float_matrix(floats, integers, module._P, estimator.base.covariance.shape[1]), estimator.base.covariance),
              (float_matrix(floats, integers, module._X, 3), estimator.base.state),
              (float_tensor(floats, integers, module._ROTATIONS, 3, 3), estimator.kinematics.rotations)]
    for view, array in shaped:
        assert view.shape == array.shape and np.shares_memory(view, array)
        np.testing.assert_array_equal(view, array)
