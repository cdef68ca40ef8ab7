"""The documented inverse-dynamics cases against pinocchio and the references' closed forms."""

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp

from tsid_py.inverse_dynamics import MOMENT_OBJECTIVE_FORCE_WEIGHT

from .conftest import load_robot, perturbed_state


def _dynamics(robot, q, v, a):
    """(M a + h) and the LOCAL_WORLD_ALIGNED Jacobian getter, computed independently."""
    model, data = robot.model, robot.model.createData()
    rhs = pin.rnea(model, data, q, v, a)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)

    def jacobian(name):
        return pin.getFrameJacobian(model, data, model.getFrameId(name), pin.LOCAL_WORLD_ALIGNED)

    return rhs, jacobian, data


@pytest.mark.parametrize("name", ["ur5", "panda", "talos", "go2"])
def test_plain_inverse_dynamics_is_rnea(name, rng):
    robot = load_robot(name)
    for _ in range(3):
        q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq)) \
            if robot.floating_base else pin.randomConfiguration(robot.model)
        v, a = rng.normal(0, 1, robot.nv), rng.normal(0, 2, robot.nv)
        tau = tp.inverse_dynamics(robot, q, v, a)
        expected = pin.rnea(robot.model, robot.model.createData(), q, v, a)
        np.testing.assert_allclose(tau, expected, atol=1e-9 * max(1, np.abs(expected).max()))


def test_one_contact_matches_closed_form_and_forward_dynamics(talos, rng):
    for _ in range(3):
        q, v = perturbed_state(talos, rng, velocity_spread=0.5)
        a = rng.normal(0, 1, talos.nv)
        result = tp.contact_inverse_dynamics(talos, q, v, a, "right_sole_link")
        rhs, jacobian, _ = _dynamics(talos, q, v, a)
        J = jacobian("right_sole_link")
        wrench = np.linalg.solve(J[:, :6].T, rhs[:6])          # the 6 root rows
        tau = rhs - J.T @ wrench
        np.testing.assert_allclose(result.wrench, wrench, atol=1e-8 * np.abs(wrench).max())
        np.testing.assert_allclose(result.tau[6:], tau[6:], atol=1e-8 * np.abs(tau).max())
        assert np.all(result.tau[:6] == 0)
        # forward dynamics with the torques and the wrench gives back the acceleration
        generalized = result.tau + J.T @ result.wrench
        recovered = pin.aba(talos.model, talos.model.createData(), q, v, generalized)
        np.testing.assert_allclose(recovered, a, atol=1e-6)


def test_several_contacts_with_guesses_is_the_euclidean_projection(talos, rng):
    q, v = perturbed_state(talos, rng)
    a = rng.normal(0, 1, talos.nv)
    guesses = rng.normal(0, 100, (2, 6))
    result = tp.multiple_contact_inverse_dynamics(talos, q, v, a, talos.feet, wrench_guesses=guesses)
    rhs, jacobian, _ = _dynamics(talos, q, v, a)
    G = np.hstack([jacobian(f)[:, :6].T for f in talos.feet])        # root rows: G w = rhs[:6]
    w_hat = guesses.ravel()
    projection = w_hat + G.T @ np.linalg.solve(G @ G.T, rhs[:6] - G @ w_hat)
    np.testing.assert_allclose(result.wrenches.ravel(), projection, atol=1e-7 * np.abs(projection).max())
    tau = rhs - sum(jacobian(f).T @ w for f, w in zip(talos.feet, result.wrenches))
    np.testing.assert_allclose(result.tau[6:], tau[6:], atol=1e-6 * np.abs(tau).max())


def test_several_contacts_without_guesses_satisfies_kkt(talos, rng):
    q, v = perturbed_state(talos, rng)
    a = rng.normal(0, 1, talos.nv)
    result = tp.multiple_contact_inverse_dynamics(talos, q, v, a, talos.feet)
    rhs, jacobian, _ = _dynamics(talos, q, v, a)
    G = np.hstack([jacobian(f)[:, :6].T for f in talos.feet])
    w = result.wrenches.ravel()
    eps = MOMENT_OBJECTIVE_FORCE_WEIGHT
    weights = np.tile(np.r_[np.full(3, eps), np.ones(3)], 2)
    # primal feasibility, and stationarity: ∇ = 2 W w must lie in the range of Gᵀ
    np.testing.assert_allclose(G @ w, rhs[:6], atol=1e-7 * np.abs(rhs[:6]).max())
    gradient = 2 * weights * w
    multiplier, *_ = np.linalg.lstsq(G.T, gradient, rcond=None)
    assert np.linalg.norm(G.T @ multiplier - gradient) <= 1e-6 * max(1.0, np.linalg.norm(gradient))
    # and it is a minimum: any feasible direction increases the objective
    null = np.linalg.svd(G)[2][6:].T
    reduced_hessian = null.T @ np.diag(2 * weights) @ null
    assert np.linalg.eigvalsh(reduced_hessian).min() > 0


def test_gravity_compensation_one_leg_closed_form(talos):
    q = talos.q_ref
    result = tp.gravity_compensation(talos, q, ["left_sole_link"])
    g, jacobian, _ = _dynamics(talos, q, np.zeros(talos.nv), np.zeros(talos.nv))
    J = jacobian("left_sole_link")
    wrench = np.linalg.solve(J[:, :6].T, g[:6])
    np.testing.assert_allclose(result.wrenches[0], wrench, atol=1e-8 * np.abs(wrench).max())
    np.testing.assert_allclose(result.tau[6:], (g - J.T @ wrench)[6:], atol=1e-7)
    assert result.wrenches[0][2] == pytest.approx(talos.weight, rel=1e-9)


def test_gravity_compensation_two_legs_force_and_torque(talos):
    q = talos.q_ref
    g, jacobian, _ = _dynamics(talos, q, np.zeros(talos.nv), np.zeros(talos.nv))
    J_l, J_r = jacobian("left_sole_link"), jacobian("right_sole_link")
    # minimal force: the pseudo-inverse of the root rows (placo note)
    force = tp.gravity_compensation(talos, q, talos.feet, minimize="force")
    expected = np.linalg.pinv(np.hstack([J_l[:, :6].T, J_r[:, :6].T])) @ g[:6]
    np.testing.assert_allclose(force.wrenches.ravel(), expected, atol=1e-7 * np.abs(expected).max())
    # minimal torque: the placo note's derivation through C, D, E, F
    left = [talos.joint_v_index(f"leg_left_{i}_joint") for i in range(1, 7)]
    right = [talos.joint_v_index(f"leg_right_{i}_joint") for i in range(1, 7)]
    JlT_u, JrT_u = J_l[:, :6].T, J_r[:, :6].T
    JlT_l, JrT_r = J_l[:, left].T, J_r[:, right].T
    A = -np.linalg.solve(JlT_u, JrT_u)
    B = np.linalg.solve(JlT_u, g[:6])
    inv = np.linalg.inv(JlT_l @ A)
    C, D = -inv, inv @ (g[left] - JlT_l @ B)
    E, F = -np.linalg.inv(JrT_r), np.linalg.solve(JrT_r, g[right])
    leg_torques = np.linalg.pinv(np.hstack([C, -E])) @ (F - D)
    torque = tp.gravity_compensation(talos, q, talos.feet, minimize="torque")
    np.testing.assert_allclose(torque.tau[left + right], leg_torques, atol=1e-6 * np.abs(leg_torques).max())
    assert np.linalg.norm(torque.tau) < np.linalg.norm(force.tau)
    for result in (force, torque):
        assert result.wrenches[:, 2].sum() == pytest.approx(talos.weight, rel=1e-9)
        assert np.all(result.tau[:6] == 0)


def _smooth_trajectory(robot, count, dt, rng):
    """A Talos motion: joints and base swaying sinusoidally around the reference."""
    phases = rng.uniform(0, 2 * np.pi, robot.nv)
    amplitude = np.r_[np.full(6, 0.01), np.full(robot.nv - 6, 0.05)]
    return np.array([pin.integrate(robot.model, robot.q_ref, amplitude * np.sin(2 * np.pi * 1.5 * t * dt + phases))
                     for t in range(count)])


def test_over_time_equals_a_dense_solve(talos, rng):
    dt, count = 0.01, 8
    positions = _smooth_trajectory(talos, count, dt, rng)
    smooth, torque_weight, reg = 0.3, 1.0, 1e-8
    result = tp.multiple_contact_inverse_dynamics_over_time(
        talos, positions, dt, talos.feet, smoothing_weight=smooth, min_torque_weight=torque_weight,
        regularization=reg, friction=None)
    # Independent dense construction in world-aligned wrenches w_t (12 per frame).
    frames = count - 2
    m = 12 * frames
    H, g = np.zeros((m, m)), np.zeros(m)
    A, b = np.zeros((6 * frames, m)), np.zeros(6 * frames)
    for t in range(frames):
        q = positions[t + 1]
        v = pin.difference(talos.model, positions[t], positions[t + 1]) / dt
        a = (pin.difference(talos.model, positions[t + 1], positions[t + 2]) / dt - v) / dt
        np.testing.assert_allclose(result.accelerations[t], a, atol=1e-9)
        rhs, jacobian, _ = _dynamics(talos, q, v, a)
        G = np.hstack([jacobian(f).T for f in talos.feet])        # (nv, 12): Σ J_jᵀ w_j = G w
        cols = slice(12 * t, 12 * (t + 1))
        # torque_weight ||rhs_a − G_a w||² + reg ||w||²
        H[cols, cols] += 2 * torque_weight * G[6:].T @ G[6:] + 2 * reg * np.eye(12)
        g[cols] += -2 * torque_weight * G[6:].T @ rhs[6:]
        A[6 * t:6 * (t + 1), cols] = G[:6]
        b[6 * t:6 * (t + 1)] = rhs[:6]
        if t:
            prev = slice(12 * (t - 1), 12 * t)
            for i, j, sign in ((cols, cols, 1), (prev, prev, 1), (cols, prev, -1), (prev, cols, -1)):
                H[i, j] += 2 * smooth * sign * np.eye(12)
    kkt = np.block([[H, A.T], [A, np.zeros((A.shape[0], A.shape[0]))]])
    expected = np.linalg.solve(kkt, np.r_[-g, b])[:m].reshape(frames, 2, 6)
    np.testing.assert_allclose(result.wrenches, expected, atol=1e-6 * np.abs(expected).max())


def test_over_time_recovers_the_torques_of_a_simulated_controller(talos):
    """Run the controller on one foot (semi-implicit Euler on the manifold), then recover the
    torques from the positions alone: with one contact the answer is unique."""
    dt = 2e-3
    solver = tp.DynamicsSolver(talos, dt=dt)
    solver.add_contact(tp.PlanarContact("left_sole_link", length=0.2, width=0.13, mu=0.8))
    com = solver.add_task(tp.tasks.CoMTask(kp=50.0))
    solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
    q, v = talos.q_ref.copy(), talos.zero_velocity()
    positions, torques = [q.copy()], []
    for step in range(30):
        com.set_target(com.position_ref + np.array([0.0, 0.0, -0.02 * dt]))
        sol = solver.solve(q, v)
        torques.append(sol.tau)
        v = v + dt * sol.ddq
        q = pin.integrate(talos.model, q, dt * v)
        positions.append(q.copy())
    result = tp.multiple_contact_inverse_dynamics_over_time(talos, np.array(positions), dt, ["left_sole_link"])
    # frame t of the result is step t+1 of the rollout (v_{t+1} needs q_t, a_{t+1} needs q_{t+2})
    applied = np.array(torques[1:])
    assert applied.shape == result.tau.shape
    np.testing.assert_allclose(result.tau, applied, atol=1e-5 * np.abs(applied).max())


def test_inputs_are_checked(talos):
    with pytest.raises(ValueError, match="contacts"):
        tp.multiple_contact_inverse_dynamics(talos, talos.q_ref, talos.zero_velocity(), talos.zero_velocity(), [])
    with pytest.raises(KeyError, match="nope"):
        tp.contact_inverse_dynamics(talos, talos.q_ref, talos.zero_velocity(), talos.zero_velocity(), "nope")
    with pytest.raises(ValueError, match="minimize"):
        tp.gravity_compensation(talos, talos.q_ref, talos.feet, minimize="energy")
    with pytest.raises(ValueError, match="positions"):
        tp.multiple_contact_inverse_dynamics_over_time(talos, talos.q_ref[None], 0.01, talos.feet)
    with pytest.raises(ValueError, match="dt"):
        tp.multiple_contact_inverse_dynamics_over_time(talos, np.tile(talos.q_ref, (4, 1)), -0.01, talos.feet)
    with pytest.raises(ValueError, match="floating-base"):
        tp.contact_inverse_dynamics(load_robot("ur5"), np.zeros(6), np.zeros(6), np.zeros(6), "tool0")
