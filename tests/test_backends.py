"""Every backend's answer against an exact active-set solve (quadprog, Goldfarb–Idnani), and
the cases that used to trip them: a contact's force ramp ending at a [0, 0] box, and
ProxQP's retry from a cold start."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import qpsolvers

import tsid_py as tp

from .conftest import perturbed_state, standing_solver

BACKENDS = [name for name in ("reduced", "proxsuite", "osqp", "daqp", "proxqp")
            if name in ("reduced", "proxsuite") or name in qpsolvers.available_solvers]


def _standing(robot, qp_solver):
    solver = standing_solver(robot, qp_solver=qp_solver)
    solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=50.0))
    solver.add_constraint(tp.constraints.TorqueLimits(scale=0.3))         # some limits active
    return solver


@pytest.mark.parametrize("qp_solver", BACKENDS)
def test_torques_agree_with_an_exact_active_set_solve(talos, rng, qp_solver):
    """On the Talos standing problem (torque limits at 30 % so that some are active), τ
    within 1e-4 relative of quadprog's exact solve."""
    q, v = perturbed_state(talos, rng)
    exact = _standing(talos, "quadprog").solve(q, v)
    got = _standing(talos, qp_solver).solve(q, v)
    scale = np.abs(exact.tau).max()
    assert np.abs(got.tau - exact.tau).max() <= 1e-4 * scale, qp_solver
    assert np.any(np.isclose(np.abs(exact.tau_actuated), 0.3 * talos.effort_limits, rtol=1e-6))


@pytest.mark.parametrize("qp_solver", BACKENDS + ["quadprog"])
def test_a_ramped_contact_removal_runs_to_its_end(talos, qp_solver):
    """The ramp's last step bounds the normal force to [0, 0]: every backend solves it, and
    the contact is gone after the ramp."""
    solver = standing_solver(talos, qp_solver=qp_solver)
    com = solver.tasks[0]
    foot = talos.feet[1]
    support = talos.placement_at(talos.q_ref, talos.frame_id(talos.feet[0])).translation
    com.set_target(np.r_[support[:2], com.position_ref[2]])
    q, v = talos.q_ref, talos.zero_velocity()
    solver.solve(q, v)
    solver.remove_contact(foot, transition=0.01)
    forces = [solver.solve(q, v).local_wrenches.get(foot, np.zeros(6))[2] for _ in range(12)]
    assert foot not in solver.contacts
    assert forces[9] == pytest.approx(0.0, abs=1e-6 * talos.weight)          # the [0, 0] step


def test_proxsuite_retries_from_a_cold_start_after_a_misleading_warm_start(talos, rng):
    """A warm start far from the answer (a previous problem with other numbers) never turns
    a feasible step into a failure: the answers equal a fresh backend's."""
    def build():
        solver = standing_solver(talos, qp_solver="proxsuite")
        solver.add_constraint(tp.constraints.TorqueLimits())
        return solver

    solver = build()
    solver.solve(talos.q_ref, talos.zero_velocity())          # anchors the contacts
    for _ in range(5):
        q, v = perturbed_state(talos, rng, joint_spread=0.2, velocity_spread=1.0)
        cold = copy.deepcopy(solver)               # the same problem, its backend without a warm start
        got = solver.solve(q, v)
        fresh = cold.solve(q, v)
        np.testing.assert_allclose(got.tau, fresh.tau, atol=1e-5 * np.abs(fresh.tau).max())
