"""The contact-state monitor on sloped contacts and on noisy velocities, and the controller's
actuator model (armature in the mass matrix, friction feed-forward): against closed forms and
pinocchio."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

from tsid_py.control import BalanceController
from tsid_py.control.actuators import DriveStage, drive_gains
from tsid_py.control.contact_state import ContactStateMonitor
from tsid_py.models.actuators import (TYPICAL_ARMATURE, DriveParameters, drive_parameters, read_rotor_parameters,
                                      set_armature)

from .conftest import load_robot, standing_solver


def tilted(robot, angle: float) -> np.ndarray:
    """The reference posture with the whole robot pitched by ``angle`` rad about y (both soles
    on a plane sloped by ``angle`` up ahead)."""
    q = robot.q_ref.copy()
    placement = pin.SE3(pin.rpy.rpyToMatrix(0.0, angle, 0.0), np.zeros(3)) * pin.XYZQUATToSE3(q[:7])
    q[:7] = pin.SE3ToXYZQUAT(placement)
    return q


def test_a_sole_softened_on_a_slope_hardens_again_flat_on_it(talos):
    """Both soles made on a 5° slope: a rocking step softens them; still again and flat on
    the slope (5° from the vertical, beyond max_tilt), they harden — flatness is measured
    from the contact's own surface (its anchor's normal)."""
    q = tilted(talos, np.radians(5.0))
    still = talos.zero_velocity()
    talos.update(q, still)                                      # the contacts are made on the slope
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver, settle_time=0.003)
    monitor.update(solver.solve(q, still))                      # anchored on the slope
    sole = talos.placement_at(q, talos.frame_id(talos.feet[0])).rotation[:, 2]
    np.testing.assert_allclose(monitor.surface_normal(talos.feet[0]), sole, atol=1e-9)
    assert np.degrees(np.arccos(sole[2])) > 4.5
    rocking = still.copy()
    rocking[3] = 3.0
    assert monitor.update(solver.solve(q, rocking))
    assert set(monitor.softened) == set(talos.feet)
    for _ in range(4):
        monitor.update(solver.solve(q, still))
    assert not monitor.softened
    assert not monitor.check_lost(0.0)                         # 5° from the vertical, 0° from its slope


def test_a_sole_tilted_on_its_surface_is_softened_by_its_tilt(talos):
    """A hard sole 7° off the surface it was made on rocks (``rocking_tilt`` 5°) even if its
    angular velocity, hidden in noise, is not above the threshold."""
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver)
    monitor.update(solver.solve(talos.q_ref, talos.zero_velocity()))
    assert monitor.update(solver.solve(tilted(talos, np.radians(7.0)), talos.zero_velocity()))
    assert set(monitor.softened) == set(talos.feet)


def test_velocity_noise_raises_the_rocking_threshold(talos):
    """Soles turning at 2 rad/s rock for exact velocities (threshold 1.5 rad/s); told the
    velocities carry the finite differences' 1.4 rad/s per joint, the monitor needs
    1.5 + 4 × 1.4 × √6 rad/s and leaves them hard; a sole tilting past 5° still softens."""
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver, velocity_noise=np.sqrt(2.0) * 1e-3 / 1e-3, position_noise=1e-3)
    turning = talos.zero_velocity()
    turning[4] = 2.0
    assert not monitor.update(solver.solve(talos.q_ref, turning))
    monitor.velocity_noise = 0.0
    assert monitor.update(solver.solve(talos.q_ref, turning))


def test_a_planned_unloading_counts_once_it_lasts_on_a_noisy_state(talos):
    """On noisy velocities a planned normal force below the threshold softens the contact only
    after ``unload_time``; a measured one at once."""
    solver = standing_solver(talos)
    monitor = ContactStateMonitor(solver, velocity_noise=0.02, unload_time=0.003)
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    unloaded = type(solution)(**{**solution.__dict__})
    unloaded.local_wrenches = {**solution.local_wrenches, talos.feet[0]: np.zeros(6)}
    assert not monitor.update(unloaded) and not monitor.update(unloaded)
    assert monitor.update(unloaded)
    assert talos.feet[0] in monitor.softened


def test_armature_set_on_the_model_is_in_the_mass_matrix_and_the_torques(talos):
    """``set_armature`` puts ``I_a`` on the joints' diagonal of the controller's mass matrix
    (pinocchio's CRBA with ``model.armature``), and the solver's torques then include
    ``I_a q̈`` (checked against pinocchio's RNEA with the armature)."""
    q = talos.q_ref
    before = pin.crba(talos.model, talos.model.createData(), q).copy()
    armature = np.linspace(0.05, 0.2, talos.na)
    set_armature(talos, armature)
    talos.update(q, talos.zero_velocity())
    after = talos.mass_matrix
    np.testing.assert_allclose(np.diag(after)[6:] - np.diag(before)[6:], armature, atol=1e-9)
    np.testing.assert_allclose(np.diag(after)[:6], np.diag(before)[:6], atol=1e-12)
    solver = standing_solver(talos)
    solution = solver.solve(q, talos.zero_velocity())
    tau = pin.rnea(talos.model, talos.model.createData(), q, talos.zero_velocity(), solution.ddq)
    for foot, wrench in solution.wrenches.items():
        J = pin.computeFrameJacobian(talos.model, talos.model.createData(), q, talos.frame_id(foot),
                                     pin.LOCAL_WORLD_ALIGNED)
        tau -= J.T @ wrench
    np.testing.assert_allclose(solution.tau_actuated, tau[6:], atol=1e-6)
    with pytest.raises(ValueError, match="armature"):
        set_armature(talos, -1.0)


def test_drive_parameters_read_the_model_then_the_typical_drive():
    talos, g1 = load_robot("talos"), load_robot("g1")
    drives = drive_parameters(talos)                     # Talos's SRDF: 1e-5 kg m^2 x 100^2
    listed = [i for i, name in enumerate(talos.scalar_joint_names) if "gripper" not in name]
    grippers = [i for i, name in enumerate(talos.scalar_joint_names) if "gripper" in name]
    np.testing.assert_allclose(drives.armature[listed], 0.1)
    np.testing.assert_allclose(drives.armature[grippers], TYPICAL_ARMATURE * talos.effort_limits[grippers])
    assert np.all(talos.model.armature == 0.0)           # read, not put in the controller's model
    arms = [i for i, name in enumerate(talos.scalar_joint_names) if name.startswith("arm")]
    np.testing.assert_allclose(drives.friction[arms], 1.0)      # the URDF's <dynamics friction="1.0">
    g1_drives = drive_parameters(g1)                     # nothing in G1's URDF: the typical drive
    np.testing.assert_allclose(g1_drives.armature, TYPICAL_ARMATURE * g1.effort_limits)
    override = DriveParameters(np.full(g1.na, 0.01), np.zeros(g1.na), np.zeros(g1.na))
    g1.profile = g1.profile.with_(drives=override)
    assert drive_parameters(g1) is override
    assert not read_rotor_parameters(g1.model.copy(), "/nonexistent.srdf")
    with pytest.raises(ValueError, match="one entry per actuated joint"):
        DriveParameters(np.zeros(3), np.zeros(2), np.zeros(3))


def test_drive_stage_feeds_the_friction_forward(talos):
    """``tau = τ + f_c tanh(v̄ / v_s) + b v̄`` with ``v̄ = v + dt q̈``, scaled by the fraction fed."""
    drives = DriveParameters(np.zeros(talos.na), np.full(talos.na, 0.5), np.full(talos.na, 2.0))
    controller = BalanceController(talos)
    stage = controller.insert(DriveStage(talos, controller.dt, drives=drives, friction_scale=0.5, smoothing=0.1))
    v = np.random.default_rng(0).normal(0.0, 0.3, talos.nv)
    solution = controller.step(talos.q_ref, v)
    planned = v[6:] + controller.dt * solution.ddq[6:]
    expected = solution.tau_actuated + 0.5 * (2.0 * np.tanh(planned / 0.1) + 0.5 * planned)
    np.testing.assert_allclose(stage.command.tau, expected, atol=1e-12)
    with pytest.raises(ValueError, match="friction_scale"):
        DriveStage(talos, 1e-3, friction_scale=2.0)
    kp, kd = drive_gains(talos, 10.0)
    assert np.all(kp > 0) and np.all(kd > 0)
    with pytest.raises(ValueError, match="bandwidth"):
        drive_gains(talos, 0.0)


def test_a_pipeline_stepped_with_sensors_needs_an_estimate_stage(talos):
    controller = BalanceController(talos)
    with pytest.raises(ValueError):
        controller.step(sensors=object())


def test_drive_gains_give_no_gain_to_a_joint_that_moves_no_mass(talos):
    """A link without mass or inertia (as some robot files' fingers) leaves the mass matrix
    singular: its joint gets no gains, every other joint the gains of its own inertia, the
    Schur complement ``M_ii − M_io M_oo⁻¹ M_oi`` over the joints that move some mass."""
    model = talos.model.copy()
    parents = set(model.parents)
    leaf = max(joint for joint in range(2, model.njoints) if joint not in parents)
    model.inertias[leaf] = pin.Inertia.Zero()
    robot = SimpleNamespace(model=model, q_ref=talos.q_ref, nv=talos.nv, na=talos.na)
    bandwidth = 10.0
    kp, kd = drive_gains(robot, bandwidth)
    column = model.idx_vs[leaf]
    assert kp[column - 6] == 0.0 and kd[column - 6] == 0.0
    mass = pin.crba(model, model.createData(), talos.q_ref)
    mass = np.triu(mass) + np.triu(mass, 1).T
    omega = 2.0 * np.pi * bandwidth
    for joint in (column - 1, talos.nv - talos.na):        # the leaf's neighbour and the first actuated joint
        others = [k for k in range(talos.nv) if k not in (joint, column)]
        own = mass[joint, joint] - mass[joint, others] @ np.linalg.solve(mass[np.ix_(others, others)], mass[others, joint])
        assert kp[joint - 6] == pytest.approx(own * omega**2, rel=1e-9)
        assert kd[joint - 6] == pytest.approx(2.0 * own * omega, rel=1e-9)
