"""The centroidal MPC against independent truths: the exact discretisation of its
continuous model (a matrix exponential), its dense definition, another QP solver, the KKT
conditions and statics; the gait schedule and the Raibert footholds against their closed
forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import expm

from tsid_py.control.quadruped.footholds import raibert_foothold
from tsid_py.control.quadruped.gaits import GAITS, TROT, WALK, GaitPattern, GaitSchedule
from tsid_py.control.quadruped.mpc import CentroidalMPC, MPCWeights

ROLES = ("FL", "FR", "HL", "HR")


def random_problem(rng, horizon=8, step=0.03):
    inertia = np.diag([0.08, 0.2, 0.25])
    inertia[0, 2] = inertia[2, 0] = 0.01
    mpc = CentroidalMPC(12.0, inertia, 9.81, horizon, step, 0.3, mu=0.6)
    frames = np.array([np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(4)])
    frames *= np.sign(np.linalg.det(frames))[:, None, None]
    return mpc, dict(x0=rng.normal(size=12), yaws=rng.normal(size=horizon), contacts=rng.random((horizon, 4)) < 0.6,
                     levers=0.3 * rng.normal(size=(horizon, 4, 3)), frames=frames)


def test_the_condensed_states_are_the_exact_discretisation_of_the_continuous_model(rng):
    """x_{k+1} = exp(A_c δ) x_k + ∫ exp(A_c s) ds (B_c u_k + g) with A_c, B_c of the module's
    continuous model (yaw held per interval), computed with a matrix exponential."""
    mpc, p = random_problem(rng)
    F, Phi, columns = mpc.condensed(p["x0"], p["yaws"], p["contacts"], p["levers"], p["frames"])
    U = 40.0 * rng.normal(size=columns.shape[0])
    predicted = F + np.einsum("aim,m->ai", Phi, U)
    x = p["x0"].copy()
    for k in range(mpc.horizon):
        c, s = math.cos(p["yaws"][k]), math.sin(p["yaws"][k])
        rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        force, torque = np.zeros(3), np.zeros(3)
        for index in np.flatnonzero(columns[:, 0] == k)[::3]:
            foot = columns[index, 1]
            f = p["frames"][foot] @ U[index:index + 3]
            force += f
            torque += np.cross(p["levers"][k, foot], f)
        continuous = np.zeros((13, 13))
        continuous[0:3, 6:9] = rz.T
        continuous[3:6, 9:12] = np.eye(3)
        continuous[6:9, 12] = np.linalg.solve(rz @ mpc.inertia @ rz.T, torque)
        continuous[9:12, 12] = force / mpc.mass + [0.0, 0.0, -9.81]
        x = (expm(continuous * mpc.step) @ np.r_[x, 1.0])[:12]
        np.testing.assert_allclose(predicted[k], x, atol=1e-10)


def test_the_compiled_cost_equals_its_dense_definition(rng):
    for _ in range(3):
        mpc, p = random_problem(rng, horizon=int(rng.integers(3, 12)))
        reference = rng.normal(size=(mpc.horizon, 12))
        args = (p["x0"], reference, p["yaws"], p["contacts"], p["levers"], p["frames"])
        H_dense, h_dense = mpc.dense_cost(*args)
        H, h, *_ = mpc.cost(*args)
        np.testing.assert_allclose(H, H_dense, rtol=1e-12, atol=1e-12 * np.abs(H_dense).max())
        np.testing.assert_allclose(h, h_dense, rtol=1e-12, atol=1e-12 * np.abs(h_dense).max())


def test_a_solve_meets_its_constraints_and_the_kkt_conditions_and_agrees_with_another_solver(rng):
    import qpsolvers

    mpc, p = random_problem(rng)
    reference = np.tile(np.r_[0, 0, 0, 0, 0, 0.3, 0, 0, 0, 0.5, 0, 0], (mpc.horizon, 1))
    p["x0"] = 0.1 * p["x0"] + np.r_[0, 0, 0, 0, 0, 0.3, 0, 0, 0, 0, 0, 0]
    p["frames"] = np.repeat(np.eye(3)[None], 4, axis=0)          # flat ground
    plan = mpc.solve(0.0, p["x0"], reference, p["yaws"], p["contacts"], p["levers"], p["frames"])
    U = mpc.last_solution
    H, h, columns, *_ = mpc.cost(p["x0"], reference, p["yaws"], p["contacts"], p["levers"], p["frames"])
    A, upper, lower = mpc.constraints(columns)
    rows = np.vstack([np.eye(U.size), A])
    values = rows @ U
    assert np.all(values <= upper + 1e-7) and np.all(values >= lower - 1e-7)
    forces = plan.forces[p["contacts"]]
    assert np.all(forces[:, 2] >= -1e-9)
    assert np.all(np.abs(forces[:, :2]) <= mpc.mu / math.sqrt(2) * forces[:, 2:] + 1e-7)   # inscribed pyramid
    assert np.all(plan.forces[~p["contacts"]] == 0.0)
    # KKT: stationarity with multipliers from the active set, found independently
    other = qpsolvers.solve_qp(H, h, np.vstack([A, -np.eye(U.size)[columns[:, 2] == 2]]),
                               np.r_[upper[U.size:], -lower[:U.size][columns[:, 2] == 2]],
                               lb=None, ub=np.where(columns[:, 2] == 2, upper[:U.size], np.inf), solver="quadprog")
    np.testing.assert_allclose(U, other, atol=1e-6 * max(1.0, np.abs(other).max()))
    active = np.abs(values - upper) < 1e-7
    active |= np.abs(values - lower) < 1e-7
    multipliers = np.linalg.lstsq(rows[active].T, -(H @ U + h), rcond=None)[0]
    assert np.linalg.norm(rows[active].T @ multipliers + H @ U + h) < 1e-6 * (1.0 + np.linalg.norm(h))


def test_standing_still_the_plan_holds_the_weight_with_no_net_moment():
    """Four feet under a body at rest at its reference: the forces sum to m g and their
    moments about the CoM to zero (statics), and the predicted state stays put."""
    mpc = CentroidalMPC(15.0, np.diag([0.1, 0.3, 0.35]), 9.81, 10, 0.035, 0.3, mu=0.5)
    feet = np.array([[0.2, 0.15, -0.3], [0.2, -0.15, -0.3], [-0.2, 0.15, -0.3], [-0.2, -0.15, -0.3]])
    x0 = np.r_[0, 0, 0, 0, 0, 0.3, 0, 0, 0, 0, 0, 0]
    plan = mpc.solve(0.0, x0, np.tile(x0, (10, 1)), np.zeros(10), np.ones((10, 4), bool),
                     np.repeat(feet[None], 10, axis=0), np.repeat(np.eye(3)[None], 4, axis=0))
    total = plan.forces.sum(axis=1)
    weight = np.tile([0, 0, 15.0 * 9.81], (10, 1))
    np.testing.assert_allclose(total[:5], weight[:5], atol=1e-3)      # the intervals the controller applies
    np.testing.assert_allclose(total, weight, atol=0.01 * 15.0 * 9.81)  # the horizon's end trades force for cost
    moments = np.cross(feet[None], plan.forces).sum(axis=1)
    np.testing.assert_allclose(moments, 0.0, atol=1e-9)
    np.testing.assert_allclose(plan.states[:, 3:6], np.tile([0, 0, 0.3], (11, 1)), atol=1e-4)


def test_the_weights_are_scaled_to_the_robot():
    small = MPCWeights().diagonal(0.2, 9.81, 2.5)
    large = MPCWeights().diagonal(0.6, 9.81, 90.0)
    # a position error of 1 % of the height, a velocity of 1 % of √(g h), costs the same
    for index, unit in ((3, lambda h: 0.01 * h), (9, lambda h: 0.01 * math.sqrt(9.81 * h))):
        assert small[0][index] * unit(0.2) ** 2 == pytest.approx(large[0][index] * unit(0.6) ** 2)
    assert small[1] * (2.5 * 9.81) ** 2 == pytest.approx(large[1] * (90.0 * 9.81) ** 2)


@pytest.mark.parametrize("name", sorted(GAITS))
def test_each_gait_stands_its_duty_factor_and_a_trot_pairs_its_diagonals(name):
    gait = GAITS[name]
    schedule = GaitSchedule(gait, ROLES, swing_time=0.2, start=0.3)
    span = 2 * schedule.period if math.isfinite(schedule.period) else 1.0
    times = 0.3 + (np.arange(4000) + 0.5) / 4000 * span            # between the events
    stance = np.array([schedule.in_stance(t) for t in times])
    np.testing.assert_allclose(stance.mean(axis=0), gait.duty, atol=1e-3)
    if gait is TROT:
        np.testing.assert_array_equal(stance[:, 0], stance[:, 3])
        np.testing.assert_array_equal(stance[:, 1], stance[:, 2])
        assert not np.any(stance[:, 0] & stance[:, 1])
    if gait is WALK:
        assert stance.sum(axis=1).min() >= 3                    # a crawl: never fewer than three feet
    if not gait.standing:
        assert schedule.swing_time == pytest.approx((1 - gait.duty) * schedule.period)


def test_touchdown_and_liftoff_times_are_the_phase_events():
    schedule = GaitSchedule(TROT, ROLES, swing_time=0.18, start=0.0)
    for foot in range(4):
        for t in np.linspace(0.01, 1.0, 37):
            touchdown = schedule.next_touchdown(foot, t)
            assert touchdown > t and schedule.phases(touchdown + 1e-9)[foot] < 1e-6
            liftoff = schedule.last_liftoff(foot, t)
            assert liftoff <= t and schedule.phases(liftoff + 1e-9)[foot] == pytest.approx(TROT.duty, abs=1e-6)
    table = schedule.contact_table(0.0, 0.036, 10)
    middles = 0.036 * (np.arange(10) + 0.5)
    np.testing.assert_array_equal(table, [schedule.in_stance(t) for t in middles])


def test_a_gait_pattern_refuses_bad_data_by_name():
    with pytest.raises(ValueError, match="offsets"):
        GaitPattern("odd", (0.0, 0.5, 1.2, 0.0), 0.5)
    with pytest.raises(ValueError, match="duty"):
        GaitPattern("odd", (0.0, 0.5, 0.5, 0.0), 0.0)
    with pytest.raises(ValueError, match="roles"):
        GaitSchedule(TROT, ("FL", "FR", "HL", "FL"), 0.2)


def test_raibert_footholds_follow_the_closed_form():
    args = dict(com_xy=[1.0, 2.0], yaw_rate=0.0, yaw=0.0, neutral_xy=[0.2, 0.15], stance_time=0.2, height=0.3,
                gravity=9.81, reach=1.0)
    at_rest = raibert_foothold(velocity_xy=[0, 0], command_xy=[0, 0], time_to_touchdown=0.1, **args)
    np.testing.assert_allclose(at_rest, [1.2, 2.15])                          # the neutral point
    steady = raibert_foothold(velocity_xy=[0.5, 0], command_xy=[0.5, 0], time_to_touchdown=0.1, **args)
    np.testing.assert_allclose(steady, [1.2 + 0.5 * 0.1 + 0.5 * 0.2 / 2, 2.15])  # mid-stance under the hip
    pushed = raibert_foothold(velocity_xy=[0.0, 0.4], command_xy=[0, 0], time_to_touchdown=0.0, **args)
    np.testing.assert_allclose(pushed, [1.2, 2.15 + math.sqrt(0.3 / 9.81) * 0.4])  # the capture point
    clamped = raibert_foothold(velocity_xy=[0.0, 0.4], command_xy=[0, 0], time_to_touchdown=0.0,
                               **{**args, "reach": 0.05})
    np.testing.assert_allclose(clamped, [1.2, 2.15 + 0.05])
