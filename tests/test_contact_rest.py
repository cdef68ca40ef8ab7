"""The contact-state monitor's re-hardening at rest: a softened sole that rests still on a
surface other than the one it was made on (a bump's face) is hardened again and anchored where
it rests; a rocking one stays soft."""

from __future__ import annotations

import numpy as np

from tsid_py.control.contact_state import ContactStateMonitor

from .conftest import standing_solver


def softened_on_flat_ground(robot):
    """A standing solver and monitor whose soles, made flat, were softened by a rocking step."""
    solver = standing_solver(robot)
    monitor = ContactStateMonitor(solver, settle_time=0.01)
    still = robot.zero_velocity()
    monitor.update(solver.solve(robot.q_ref, still))              # anchored flat
    rocking = still.copy()
    rocking[3] = 3.0
    assert monitor.update(solver.solve(robot.q_ref, rocking))
    assert set(monitor.softened) == set(robot.feet)
    return solver, monitor


def sole_turned(robot, foot: str, angle: float) -> np.ndarray:
    """The reference posture with ``foot``'s sole turned by ``angle`` rad about the joint that
    carries it (the ankle's last: the sole tilts, the body stays)."""
    q = robot.q_ref.copy()
    joint = robot.model.frames[robot.frame_id(foot)].parentJoint
    q[robot.model.joints[joint].idx_q] += angle
    return q


def test_a_sole_resting_on_a_bump_face_hardens_where_it_rests(talos):
    """A sole that rests 8° off the surface it was made on (beyond ``max_tilt``, 2°, and
    ``rocking_tilt``, 5°), still and loaded for the rest window, is hardened again, anchored
    at the pose where it rests, and its surface is that face: it is not softened again. The
    other sole, flat, hardens as before (flat on its own surface)."""
    solver, monitor = softened_on_flat_ground(talos)
    bumped, flat = talos.feet
    q = sole_turned(talos, bumped, np.radians(8.0))
    still = talos.zero_velocity()
    for _ in range(monitor.rest_steps + 1):
        monitor.update(solver.solve(q, still))
    assert not monitor.softened
    assert (monitor.hardenings, monitor.rest_hardenings) == (1, 1)
    resting = talos.placement_at(q, talos.frame_id(bumped))
    assert np.degrees(np.arccos(resting.rotation[:, 2] @ monitor.surface_normal(flat))) > 7.9
    anchor = solver.contacts[bumped].anchor
    np.testing.assert_allclose(anchor.rotation, resting.rotation, atol=1e-9)
    np.testing.assert_allclose(anchor.translation, resting.translation, atol=1e-9)
    np.testing.assert_allclose(monitor.surface_normal(bumped), resting.rotation[:, 2], atol=1e-9)
    for _ in range(5):
        assert not monitor.update(solver.solve(q, still))
    assert not monitor.check_lost(0.0)


def test_a_rocking_sole_stays_soft(talos):
    """A sole rocking between 4° and 12° on its ankle (its angular velocity read as zero, as if
    hidden in noise) is never at rest: it stays soft for three rest windows."""
    solver, monitor = softened_on_flat_ground(talos)
    rocking = talos.feet[0]
    still = talos.zero_velocity()
    for step in range(3 * monitor.rest_steps):
        angle = np.radians(8.0 + 4.0 * np.sin(2.0 * np.pi * step / monitor.rest_steps))
        monitor.update(solver.solve(sole_turned(talos, rocking, angle), still))
        assert rocking in monitor.softened
    assert monitor.rest_hardenings == 0


def test_the_rest_window_grows_with_the_joint_noise(talos):
    """With ``position_noise`` σ_q the window is the shortest in which the noise allowance
    ``z σ_q √(2n)`` (two readings) is no more than the still motion ``ω_max/2 · T``."""
    solver, monitor = softened_on_flat_ground(talos)
    assert monitor.rest_steps == monitor.settle_steps == 10
    monitor.position_noise = 1e-3
    monitor.update(solver.solve(talos.q_ref, talos.zero_velocity()))     # the legs' joints counted
    n = max(int(np.sum(talos.frame_sources(talos.frame_id(foot)).columns >= 6)) for foot in talos.feet)
    expected = int(np.ceil(4.0 * 1e-3 * np.sqrt(2.0 * n) / (0.75 * solver.dt)))
    assert expected > 10 and monitor.rest_steps == expected


def test_a_contact_s_anchor_arrays_are_where_it_was_re_anchored(talos):
    """``anchor_translation`` / ``anchor_rotation`` (the arrays the contact rows read) follow
    :meth:`anchor_at` and equal its ``pin.SE3`` :attr:`anchor`."""
    solver, _ = softened_on_flat_ground(talos)
    contact = solver.contacts[talos.feet[0]]
    placement = talos.frame_placement(contact.frame_id).copy()
    placement.translation = placement.translation + np.array([0.01, -0.02, 0.003])
    contact.anchor_at(placement)
    np.testing.assert_array_equal(contact.anchor_translation, placement.translation)
    np.testing.assert_array_equal(contact.anchor_rotation, placement.rotation)
    np.testing.assert_array_equal(contact.anchor_translation, contact.anchor.translation)
