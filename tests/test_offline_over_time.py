"""The over-time inverse dynamics with contact bounds against an independent dense solve,
pinocchio's RNEA and the true friction cone and soles."""

import numpy as np
import pinocchio as pin
import proxsuite
import pytest

import tsid_py as tp
from tsid_py.offline.over_time import DEFAULT_FRICTION

from .conftest import balance_rollout


def _frame_dynamics(robot, positions, dt):
    """Per frame t = 1 … T−2: (M a + h), LOCAL_WORLD_ALIGNED Jacobians and rotations of the
    feet, computed independently of the library."""
    model, data = robot.model, robot.model.createData()
    frames = []
    for t in range(1, len(positions) - 1):
        q = positions[t]
        v = pin.difference(model, positions[t - 1], q) / dt
        a = (pin.difference(model, q, positions[t + 1]) / dt - v) / dt
        rhs = pin.rnea(model, data, q, v, a).copy()
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        ids = [model.getFrameId(f) for f in robot.feet]
        G = np.hstack([pin.getFrameJacobian(model, data, i, pin.LOCAL_WORLD_ALIGNED).T for i in ids])
        frames.append((rhs, G, [data.oMf[i].rotation.copy() for i in ids]))
    return frames


def _local_bound_rows(mu, length, width):
    """C w_local ≤ 0 for one foot: f_z ≥ 0, the pyramid inscribed in the cone, the CoP in the
    sole, the torsion — written out here, not taken from the library."""
    k, torsion = mu / np.sqrt(2), mu * min(length, width) / 2
    rows = [[0, 0, -1, 0, 0, 0]]
    for sign in (1, -1):
        rows += [[sign, 0, -k, 0, 0, 0], [0, sign, -k, 0, 0, 0],
                 [0, 0, -length / 2, 0, sign, 0], [0, 0, -width / 2, sign, 0, 0],
                 [0, 0, -torsion, 0, 0, sign]]
    return np.array(rows, dtype=float)


def _dense_solve(frames, smooth, torque_weight, reg, mu, sole):
    """The stacked QP over world wrenches (12 a frame), written densely and solved by ProxQP."""
    count = len(frames)
    m = 12 * count
    H, g = np.zeros((m, m)), np.zeros(m)
    A, b = np.zeros((6 * count, m)), np.zeros(6 * count)
    local = _local_bound_rows(mu, *sole)
    C = np.zeros((len(local) * 2 * count, m))
    for t, (rhs, G, rotations) in enumerate(frames):
        cols = slice(12 * t, 12 * (t + 1))
        H[cols, cols] += 2 * torque_weight * G[6:].T @ G[6:] + 2 * reg * np.eye(12)
        g[cols] += -2 * torque_weight * G[6:].T @ rhs[6:]
        A[6 * t:6 * (t + 1), cols] = G[:6]
        b[6 * t:6 * (t + 1)] = rhs[:6]
        for j, R in enumerate(rotations):        # local wrench = blockdiag(Rᵀ, Rᵀ) w
            to_local = np.kron(np.eye(2), R.T)
            rows = slice(len(local) * (2 * t + j), len(local) * (2 * t + j + 1))
            C[rows, 12 * t + 6 * j:12 * t + 6 * (j + 1)] = local @ to_local
        if t:
            prev = slice(12 * (t - 1), 12 * t)
            for i, k, sign in ((cols, cols, 1), (prev, prev, 1), (cols, prev, -1), (prev, cols, -1)):
                H[i, k] += 2 * smooth * sign * np.eye(12)
    qp = proxsuite.proxqp.dense.QP(m, A.shape[0], C.shape[0])
    qp.settings.eps_abs = 1e-9
    qp.settings.eps_rel = 0.0
    qp.settings.max_iter = 100000
    qp.init(H, g, A, b, C, np.full(C.shape[0], -1e20), np.zeros(C.shape[0]))
    qp.solve()
    assert str(qp.results.info.status).endswith("PROXQP_SOLVED")
    return qp.results.x.reshape(count, 2, 6)


def _objective(frames, wrenches, smooth, torque_weight, reg):
    value = 0.0
    for (rhs, G, _), w in zip(frames, wrenches):
        value += torque_weight * np.sum((rhs - G @ w.ravel())[6:] ** 2) + reg * np.sum(w**2)
    return value + smooth * np.sum((wrenches[1:] - wrenches[:-1]) ** 2)


@pytest.fixture(scope="module")
def rollout():
    robot = tp.robots.load("talos")
    positions, _ = balance_rollout(robot, 61)
    return robot, positions, 2e-3


def test_bounded_smoothed_problem_equals_a_dense_solve(rollout):
    robot, positions, dt = rollout
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions, dt, robot.feet)
    assert len(result.wrenches) == 60 and result.relaxed_frames.size == 0
    frames = _frame_dynamics(robot, positions, dt)
    expected = _dense_solve(frames, 1.0, 1.0, 1e-8, DEFAULT_FRICTION, robot.sole_size)
    ours = _objective(frames, result.wrenches, 1.0, 1.0, 1e-8)
    assert ours == pytest.approx(_objective(frames, expected, 1.0, 1.0, 1e-8), rel=1e-6)
    assert result.objective == pytest.approx(ours, rel=1e-9)
    for (rhs, G, rotations), w, tau in zip(frames, result.wrenches, result.tau):
        # the equation of motion holds with tau[:6] = 0
        np.testing.assert_allclose(rhs - G @ w.ravel(), tau, atol=1e-6 * np.abs(rhs).max())
        assert np.all(tau[:6] == 0)
        # every wrench in the true (round) friction cone and its sole, in the foot's axes
        length, width = robot.sole_size
        for R, wrench in zip(rotations, w):
            force, moment = R.T @ wrench[:3], R.T @ wrench[3:]
            tol = 1e-6 * robot.weight
            assert force[2] >= -tol
            assert np.hypot(force[0], force[1]) <= DEFAULT_FRICTION * force[2] + tol
            assert abs(moment[1]) <= length / 2 * force[2] + tol
            assert abs(moment[0]) <= width / 2 * force[2] + tol


def test_an_impact_is_relaxed_not_fatal(rollout):
    """A jolt in the recording (one frame's base moved 5 mm sideways) asks for forces no sole
    can give: those frames are reported, the others keep their bounds, and every frame's
    root rows still hold."""
    robot, positions, dt = rollout
    jolted = positions[:30].copy()
    jolted[15, 1] += 5e-3
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, jolted, dt, robot.feet)
    assert 0 < result.relaxed_frames.size <= 4
    assert set(result.relaxed_frames) <= {12, 13, 14, 15}
    frames = _frame_dynamics(robot, jolted, dt)
    local = _local_bound_rows(DEFAULT_FRICTION, *robot.sole_size)
    for t, ((rhs, G, rotations), w, tau) in enumerate(zip(frames, result.wrenches, result.tau)):
        np.testing.assert_allclose((rhs - G @ w.ravel())[:6], 0.0, atol=1e-6 * np.abs(rhs).max())
        violation = max((local @ np.r_[R.T @ wrench[:3], R.T @ wrench[3:]]).max() for R, wrench in zip(rotations, w))
        assert (violation > 1e-3) == (t in result.relaxed_frames)


def test_quaternion_sign_flips_are_fixed(rollout):
    robot, positions, dt = rollout
    flipped = positions[:12].copy()
    flipped[5:, 3:7] *= -1
    flipped[8, 3:7] *= -1
    reference = tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:12], dt, robot.feet)
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, flipped, dt, robot.feet)
    np.testing.assert_allclose(result.wrenches, reference.wrenches, atol=1e-9 * robot.weight)
    np.testing.assert_allclose(result.positions, reference.positions, atol=1e-12)


def test_progress_bar_goes_to_stderr(rollout, capsys):
    robot, positions, dt = rollout
    quiet = tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:12], dt, robot.feet)
    shown = tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:12], dt, robot.feet, progress=True)
    captured = capsys.readouterr()
    assert "interior point" in captured.err and "10/10" in captured.err and captured.out == ""
    np.testing.assert_array_equal(shown.wrenches, quiet.wrenches)


def test_one_contact_is_determined(rollout):
    """One foot: the wrench is fixed by the root rows (unique, whatever the weights)."""
    robot, positions, dt = rollout
    result = tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:8], dt, ["left_sole_link"],
                                                            friction=None)
    for (rhs, G, _), w in zip(_frame_dynamics(robot, positions[:8], dt), result.wrenches):
        np.testing.assert_allclose(G[:6, :6] @ w[0], rhs[:6], atol=1e-7 * np.abs(rhs).max())


def test_bad_positions_are_named(rollout):
    robot, positions, dt = rollout
    with_nan = positions[:10].copy()
    with_nan[4, 9] = np.nan
    with pytest.raises(ValueError, match=r"positions must be finite: frames \[4\]"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, with_nan, dt, robot.feet)
    with pytest.raises(ValueError, match="positions must have 39 columns"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:10, :-1], dt, robot.feet)
    not_unit = positions[:10].copy()
    not_unit[3, 3:7] *= 1.1
    with pytest.raises(ValueError, match=r"positions\[3\]\[3:7\] must be a unit quaternion"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, not_unit, dt, robot.feet)


def test_bad_arguments_are_named(rollout):
    robot, positions, dt = rollout
    with pytest.raises(ValueError, match="dt"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], 0.0, robot.feet)
    with pytest.raises(KeyError, match="left_hand"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], dt, ["left_hand"])
    with pytest.raises(ValueError, match="sole_size"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], dt, robot.feet, sole_size=(0.2, -1))
    with pytest.raises(ValueError, match="min_torque_weight and regularization"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], dt, robot.feet, min_torque_weight=0,
                                                       regularization=0)
    with pytest.raises(ValueError, match="relaxation_penalty must be <= 1000"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], dt, robot.feet, relaxation_penalty=1e6)
    with pytest.raises(ValueError, match="friction"):
        tp.multiple_contact_inverse_dynamics_over_time(robot, positions[:5], dt, robot.feet, friction=-0.5)
