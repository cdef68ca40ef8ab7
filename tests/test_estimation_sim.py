"""The simulated sensors and plant, and the estimator, the contact-state monitor and the
drive outputs against MuJoCo (short horizons; the long runs are benchmarks/realistic_*.py)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest

from tsid_py import tasks as tp_tasks
from tsid_py.control import BalanceController
from tsid_py.control.actuators import DriveStage, drive_gains
from tsid_py.estimation import SensorSpec
from tsid_py.models.actuators import drive_parameters, set_armature
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.feedback import Feedback, simulation
from tsid_py.scenarios.push_recovery import push_force
from tsid_py.sim import Simulation
from tsid_py.sim.plant import DriveModel, PlantModel
from tsid_py.sim.sensors import Sensors

from .conftest import load_robot


def test_sensors_read_the_state_with_the_datasheet_noise():
    robot = load_robot("talos")
    spec = SensorSpec(encoder_noise=1e-3, encoder_resolution=2e-4, gyro_noise=1e-3, gyro_bias=1e-2, accel_noise=1e-2,
                      accel_bias=0.1)
    sim = Simulation(robot)
    sensors = Sensors(sim, spec, seed=3)
    encoders, gyros, accels = [], [], []
    first = sensors.read().joint_positions.copy()
    for _ in range(4000):                 # the state does not move: each reading is its noise
        readings = sensors.read()
        encoders.append(readings.joint_positions - robot.q_ref[7:])
        gyros.append(readings.gyro.copy())
        accels.append(readings.accel.copy())
    encoders, gyros, accels = np.array(encoders), np.array(gyros), np.array(accels)
    assert np.std(encoders) == pytest.approx(math.sqrt(1e-6 + 4e-8 / 12), rel=0.05)
    steps = np.unique(np.round(readings.joint_positions / 2e-4, 6) % 1.0)
    np.testing.assert_allclose(steps[steps < 0.5], 0.0, atol=1e-6)          # quantised to whole steps
    np.testing.assert_allclose(gyros.mean(0), sensors.gyro_bias, atol=3 * 1e-3 / math.sqrt(1e-3 * 4000))
    assert np.std(gyros - gyros.mean(0)) == pytest.approx(1e-3 / math.sqrt(1e-3), rel=0.05)
    np.testing.assert_allclose(accels.mean(0), [0.0, 0.0, robot.gravity] + sensors.accel_bias, atol=0.02)
    again = Sensors(Simulation(robot), spec, seed=3).read()
    np.testing.assert_array_equal(again.joint_positions, first)


def test_the_accelerometer_reads_zero_in_free_fall_and_gravity_at_rest():
    robot = load_robot("talos")
    sim = Simulation(robot)
    q = robot.q_ref.copy()
    q[2] += 1.0                                          # a metre above the floor
    sim.reset(q, robot.zero_velocity())
    sensors = Sensors(sim, SensorSpec())
    sensors.read()
    for _ in range(20):
        sim.step(np.zeros(robot.na))
        accel = sensors.read().accel
    np.testing.assert_allclose(accel, 0.0, atol=1e-6)


def test_plant_model_writes_the_drives_and_draws_the_links():
    robot = load_robot("g1")
    plant = PlantModel(armature="model", damping=0.3, friction_loss="model", mass_error=0.15, com_error=0.01)
    sim = Simulation(robot, plant=plant, seed=7)
    drives = drive_parameters(robot)
    np.testing.assert_allclose(sim.model.dof_armature[sim.joint_dofs], drives.armature)
    np.testing.assert_allclose(sim.model.dof_damping[sim.joint_dofs], 0.3)
    np.testing.assert_allclose(sim.model.dof_frictionloss[sim.joint_dofs], drives.friction)
    factors = np.array(list(sim.plant_draws["mass_factors"].values()))
    assert len(factors) > 20 and np.all(np.abs(factors - 1.0) <= 0.15) and np.std(factors) > 0.05
    assert all(np.all(np.abs(offset) <= 0.01) for offset in sim.plant_draws["com_offsets"].values())
    same = Simulation(robot, plant=plant, seed=7)
    np.testing.assert_array_equal(same.model.body_mass, sim.model.body_mass)
    with pytest.raises(ValueError, match="mass_error"):
        PlantModel(mass_error=1.0)
    with pytest.raises(ValueError, match="armature"):
        PlantModel(armature="file")


def test_drive_model_lags_saturates_and_errs_as_documented():
    robot = load_robot("talos")
    rng = np.random.default_rng(0)
    lag = DriveModel(PlantModel(torque_bandwidth=50.0), robot, 1e-3, rng)
    command = np.full(robot.na, 10.0)
    for step in range(1, 21):
        applied = lag(command)
    blend = 1.0 - math.exp(-2.0 * math.pi * 50.0 * 1e-3)
    np.testing.assert_allclose(applied, 10.0 * (1.0 - (1.0 - blend) ** 20))
    saturated = DriveModel(PlantModel(torque_saturation=True, torque_gain_error=0.1), robot, 1e-3, rng)
    applied = saturated(1e4 * np.ones(robot.na))
    np.testing.assert_allclose(applied, robot.effort_limits)
    assert np.all(np.abs(saturated.gains - 1.0) <= 0.1)


def test_controller_on_the_estimator_stands_and_recovers_against_mujocos_truth():
    """Talos under the realistic conditions, pushed 150 N sideways at 0.3 s: the estimate
    stays within a few millimetres and a fraction of a degree of MuJoCo's state."""
    robot = load_robot("talos")
    conditions = Conditions.realistic(seed=2)
    sim = simulation(robot, conditions)
    controller = BalanceController(robot, sim.timestep)
    feedback = Feedback(sim, controller, conditions)
    position, tilt, velocity, joint_velocity = [], [], [], []
    for k in range(1200):
        if k == 300:
            sim.push(push_force(150.0, "+y"), 0.1)
        solution, _ = feedback.step()
        sim.step(feedback.torque(solution))
        error = feedback.estimate_error()
        position.append(np.linalg.norm(error["position"]))
        tilt.append(error["tilt"])
        velocity.append(np.linalg.norm(error["velocity"]))
        joint_velocity.append(error["joint_velocity"])
    assert sim.state()[0][2] > 0.9 * robot.q_ref[2]
    assert max(position) < 0.01 and np.degrees(max(tilt)) < 0.5
    assert np.sqrt(np.mean(np.square(velocity))) < 0.02
    assert np.mean(joint_velocity) < 0.1                  # finite differences: 1.4 rad/s


def test_contact_monitor_is_not_fooled_by_finite_difference_noise():
    """The issue's case: velocities by finite differences of 1 mrad encoders read 1.4 rad/s
    of noise; told that noise, the monitor softens no sole of a robot standing still (with
    exact thresholds it softened both in 1999 of 2000 steps)."""
    robot = load_robot("talos")
    conditions = Conditions(sensors=SensorSpec(encoder_noise=1e-3), feedback="finite-differences")
    sim = simulation(robot, conditions)
    controller = BalanceController(robot, sim.timestep)
    feedback = Feedback(sim, controller, conditions)
    assert controller.contact_state.velocity_noise == pytest.approx(math.sqrt(2.0))
    softened = 0
    for _ in range(600):
        solution, _ = feedback.step()
        sim.step(feedback.torque(solution))
        softened += bool(controller.contact_state.softened)
    assert softened == 0


def test_armature_known_to_the_controller_reduces_the_torque_error():
    """The plant's drives have the model's armature; told of it, the controller's torques are
    nearer those the plant needs for the accelerations it commands (M with the armature) than
    unaware (M without): measured as the plant's own inverse dynamics of the command."""
    errors = {}
    for aware in (False, True):
        robot = load_robot("talos")
        conditions = Conditions(plant=PlantModel(armature="model"), feedback="ground-truth", actuator_model=aware)
        sim = simulation(robot, conditions)
        controller = BalanceController(robot, sim.timestep)
        feedback = Feedback(sim, controller, conditions)
        residuals = []
        for k in range(400):
            if k == 100:
                sim.push(push_force(200.0, "+x"), 0.1)
            solution, _ = feedback.step()
            M, h = sim.mass_matrix_and_bias()
            needed = M @ solution.ddq + h
            for foot, wrench in solution.wrenches.items():
                J = pin.getFrameJacobian(robot.model, robot.data, robot.frame_id(foot), pin.LOCAL_WORLD_ALIGNED)
                needed -= J.T @ wrench
            residuals.append(needed[6:] - solution.tau_actuated)
            sim.step(feedback.torque(solution))
        errors[aware] = float(np.sqrt(np.mean(np.square(residuals))))
    assert errors[True] < 0.2 * errors[False]


@pytest.mark.parametrize("bandwidth", [15.0])
def test_impedance_drive_moves_the_robot_as_the_torque_drive(bandwidth):
    """Control every 2 ms, physics every 1 ms: a torque drive holds the QP's torque over the
    period; an impedance drive of ``bandwidth`` Hz applies ``tau_ff + kp (q_des − q) +
    kd (v_des − v)`` each millisecond from its own encoders. Pushed 150 N sideways, the two
    closed loops move the CoM alike within 1 mm and the joints within 0.1 rad (measured: 0.16
    mm and 0.044 rad, the most in the arms' and the trunk's yaw joints, which only the
    posture task holds; at 5 Hz 0.05 mm and 0.011 rad)."""
    paths = {}
    for mode in ("torque", "impedance"):
        robot = load_robot("talos")
        sim = Simulation(robot, timestep=1e-3)
        controller = BalanceController(robot, 2e-3)
        stage = DriveStage(robot, 2e-3, friction_scale=0.0, drive_steps=2,
                           impedance=drive_gains(robot, bandwidth) if mode == "impedance" else None)
        controller.insert(stage)
        coms, joints = [], []
        for k in range(500):
            if k == 150:
                sim.push(push_force(150.0, "+y"), 0.1)
            q, v = sim.state()
            controller.step(q, v)
            command = stage.command
            for _ in range(2):
                q, v = sim.state()
                sim.step(command.tau if mode == "torque" else command.impedance_torque(q[7:], v[6:]))
            coms.append(sim.com_state()[0])
            joints.append(sim.state()[0][7:])
        paths[mode] = np.array(coms), np.array(joints)
    assert np.abs(paths["torque"][0] - paths["impedance"][0]).max() < 1e-3
    assert np.abs(paths["torque"][1] - paths["impedance"][1]).max() < 0.1


def test_impedance_command_averages_to_the_qp_torque_along_the_plan():
    """Along the planned motion q(t) = q + v t + ½ q̈ t², the drive's samples at t_j = j δ
    average to tau_ff exactly; with one sample a period the drive applies tau_ff."""
    robot = load_robot("talos")
    controller = BalanceController(robot, 4e-3)
    stage = controller.insert(DriveStage(robot, 4e-3, friction_scale=0.0, drive_steps=4,
                                         impedance=(np.full(robot.na, 500.0), np.full(robot.na, 30.0))))
    q, v = robot.q_ref.copy(), np.random.default_rng(1).normal(0.0, 0.2, robot.nv)
    solution = controller.step(q, v)
    command = stage.command
    times = np.arange(4) * 1e-3
    samples = [command.impedance_torque(q[7:] + v[6:] * t + 0.5 * solution.ddq[6:] * t * t, v[6:] + solution.ddq[6:] * t)
               for t in times]
    np.testing.assert_allclose(np.mean(samples, axis=0), solution.tau_actuated, atol=1e-9)
    single = controller.insert(DriveStage(robot, 4e-3, friction_scale=0.0, drive_steps=1,
                                          impedance=(np.full(robot.na, 500.0), np.full(robot.na, 30.0))))
    solution = controller.step(q, v)
    np.testing.assert_allclose(single.command.impedance_torque(q[7:], v[6:]), solution.tau_actuated, atol=1e-9)


def test_realistic_conditions_are_seeded_and_documented():
    a, b = Conditions.realistic(3), Conditions.realistic(3)
    assert a == b and a.seed == 3 and a.plant.delay == 0.002 and a.plant.mass_error == 0.15
    assert a.sensors.encoder_noise == 1e-3 and a.feedback == "estimator"
    described = a.describe()
    assert described["sensors"]["gyro_noise"] == pytest.approx(math.radians(0.01))
    with pytest.raises(ValueError, match="feedback"):
        replace(a, feedback="oracle")
    with pytest.raises(ValueError, match="seed"):
        Conditions(seed=-1)
    set_armature(load_robot("g1"), 0.0)                    # forgetting the armature is allowed


def test_a_landing_sole_is_anchored_once_it_has_settled():
    """G1 walking up the 10° slope under the realistic preset (no force sensors: the
    estimator reads the planned forces). A sole landing on the clock settles — slides down
    the slope and sinks — while its force ramps up; the estimator holds a standing foot
    fixed, so it anchors the sole only after the gait's force ramp. Measured in MuJoCo: the
    sole's frame moves < 1 mm in the 60 ms after each anchoring (anchored as soon as the
    planned force passed the detector's threshold: up to 2.5 mm over these landings, read by
    the filter as the base's motion). The feet standing at the start count as settled."""
    from tsid_py.control.walking import WalkingController
    from tsid_py.scenarios.terrains import parse_terrain, walk_terrain
    from tsid_py.scenarios.walk import SETTLE

    robot = load_robot("g1")
    conditions = Conditions.realistic(seed=0)
    terrain = walk_terrain(parse_terrain("slope:10"), robot, conditions.seed)
    sim = simulation(robot, conditions, terrain=terrain)
    controller = WalkingController(robot, sim.timestep, terrain=terrain)
    feedback = Feedback(sim, controller, conditions)
    estimator, window = feedback.estimator, int(round(0.06 / sim.timestep))
    anchored, moves = {}, []
    active = estimator.base.active.copy()
    for k in range(int(round(3.3 / sim.timestep))):
        if k == int(round(SETTLE / sim.timestep)):
            controller.walk_distance(3.0)
        solution, _ = feedback.step()
        sim.step(feedback.torque(solution))
        for i, foot in enumerate(estimator.feet):
            position = sim.feet.pose(sim.data, foot)[1]
            if estimator.base.active[i] > 0 and active[i] <= 0:
                anchored[foot] = (k, position.copy())
            if foot in anchored and k - anchored[foot][0] == window:
                moves.append(np.linalg.norm(position - anchored.pop(foot)[1]))
        if k == 1:                                   # standing at the start: anchored at once
            assert estimator.base.active.all()
        active[:] = estimator.base.active
    assert len(moves) >= 3                           # three landings
    assert max(moves) < 1e-3, moves


def test_drive_damping_estimate_converges_to_the_plants():
    """Talos standing, its arms swung by a joint task (±0.15 rad at 1.5 Hz), the plant's
    drives damped as the model says (MuJoCo's ``dof_damping``), the controller told none: the
    drive stage's online estimate (:mod:`tsid_py.control.drive_estimation`) learns each arm
    joint's damping from the equation of motion within 1.5 s (measured: within 6 % of the
    plant's), and a leg joint, loaded by its sole throughout, keeps its prior."""
    robot = load_robot("talos")
    conditions = Conditions(plant=PlantModel(armature="model", damping="model"), feedback="ground-truth",
                            friction_scale=0.0, drive_estimate=True)
    sim = simulation(robot, conditions)
    controller = BalanceController(robot, sim.timestep)
    feedback = Feedback(sim, controller, conditions)
    estimate = feedback.drive_stage.estimate
    names = robot.scalar_joint_names[-robot.na:]
    arms = [i for i, name in enumerate(names) if name.startswith(("arm_left", "arm_right"))]
    legs = [i for i, name in enumerate(names) if name.startswith("leg_")]
    task = controller.solver.add_task(tp_tasks.JointTask(joints=[names[i] for i in arms], kp=400.0, weight=1.0))
    rest = np.array([robot.q_ref[robot.joint_q_index(names[i])] for i in arms])
    omega, amplitude = 2.0 * math.pi * 1.5, 0.15
    for k in range(1500):
        phase = omega * k * sim.timestep
        task.set_target(rest + amplitude * math.sin(phase), velocity=np.full(len(arms), amplitude * omega * math.cos(phase)),
                        acceleration=np.full(len(arms), -amplitude * omega**2 * math.sin(phase)))
        solution, _ = feedback.step()
        sim.step(feedback.torque(solution))
    plant = sim.model.dof_damping[sim.joint_dofs]
    assert np.all(plant[arms] > 0)
    np.testing.assert_allclose(estimate.damping[arms], plant[arms], rtol=0.1)
    np.testing.assert_array_equal(estimate.damping[legs], 0.0)


def test_the_drive_estimate_is_on_in_the_realistic_preset_and_the_command_line_turns_it_off():
    """On in the ``--realistic`` preset, off with ``--no-drive-estimate``; ``--drive-estimate``
    turns it on over a demo's own conditions."""
    import argparse

    from tsid_py.cli_conditions import add_arguments, conditions_of, given
    from tsid_py.scenarios.conditions import Conditions

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert conditions_of(parser.parse_args(["--realistic"]), Conditions()).drive_estimate
    off = parser.parse_args(["--realistic", "--no-drive-estimate"])
    assert not conditions_of(off, Conditions()).drive_estimate and "--no-drive-estimate" in given(off)
    on = parser.parse_args(["--drive-estimate"])
    assert conditions_of(on, Conditions()).drive_estimate and "--drive-estimate" in given(on)
    assert not conditions_of(parser.parse_args([]), Conditions()).drive_estimate
