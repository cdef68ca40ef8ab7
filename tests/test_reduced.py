"""The fast backend (null-space elimination, screening, hot-started DAQP) gives the same
answers as the unoptimised formulation: the full QP, with every equality and inequality,
solved by quadprog (Goldfarb–Idnani, an exact active-set method).

ProxQP is not the reference here: its stopping test is on residuals, and the force split
between two feet is weighted by the small regularisations only (curvature ~1e-8), so
ProxQP's answer may sit a few 0.01 N away in those directions (and at eps_abs = 1e-9 it
sometimes stops short, reporting a feasible problem infeasible).
"""

from __future__ import annotations

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.reduced import NullSpace
from tsid_py.sim.controllers import humanoid_balance, quadruped_stance

from .conftest import load_robot, perturbed_state


def objective(qp, x) -> float:
    return 0.5 * x @ qp.H @ x + qp.g @ x


def test_null_space_parametrises_the_equalities(rng):
    A = rng.normal(size=(18, 50))
    b = rng.normal(size=18)
    space = NullSpace(A, b)
    assert space.full_rank
    z = rng.normal(size=32)
    np.testing.assert_allclose(A @ space.expand(z), b, atol=1e-10)
    np.testing.assert_allclose(A @ space.Z, 0.0, atol=1e-12)
    np.testing.assert_allclose(space.Z.T @ space.Z, np.eye(32), atol=1e-12)
    assert not NullSpace(np.vstack([A, A[:1]]), np.r_[b, b[:1]]).full_rank


def _paired_controllers(name):
    """The reference controller three times, on separate Robot instances."""
    build = humanoid_balance if name in ("talos", "g1") else quadruped_stance
    return [build(load_robot(name), qp_solver=backend) for backend in ("reduced", "quadprog")]


@pytest.mark.parametrize("name", ["talos", "g1", "go2"])
def test_reduced_matches_the_full_qp(name, rng):
    fast, exact = _paired_controllers(name)
    robot = fast.solver.robot
    for _ in range(8):
        q, v = perturbed_state(robot, rng, joint_spread=0.1, velocity_spread=0.3)
        a, b = fast.solver.solve(q, v), exact.solver.solve(q, v)
        qp = exact.solver.last_qp
        assert qp.violation(a.x) < 1e-6
        np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-6 * np.abs(b.x).max())
        np.testing.assert_allclose(a.tau, b.tau, rtol=0, atol=1e-6 * np.abs(b.tau).max())
        assert objective(qp, a.x) <= objective(qp, b.x) + 1e-9 * abs(objective(qp, b.x))


def test_screening_adds_the_violated_torque_limits(rng):
    """With tight torque limits some rows are active; screening must find every one of them
    (the first solve starts from an empty working set)."""
    robots = [load_robot("talos") for _ in range(2)]
    solvers = []
    for robot, backend in zip(robots, ("reduced", "quadprog")):
        controller = humanoid_balance(robot, qp_solver=backend)
        controller.solver.remove_constraint("torque limits")
        controller.solver.add_constraint(tp.constraints.TorqueLimits(scale=0.35))
        solvers.append(controller.solver)
    q, v = perturbed_state(robots[0], rng, joint_spread=0.1, velocity_spread=0.5)
    fast, full = (solver.solve(q, v) for solver in solvers)
    limits = solvers[1].constraints[0].effort
    active = np.abs(np.abs(full.tau_actuated) - limits) < 1e-6 * limits
    assert active.sum() >= 1                                  # the case exercises screening
    assert solvers[0].backend.rounds >= 2
    assert np.all(np.abs(fast.tau_actuated) <= limits * (1 + 1e-7) + 1e-9)
    np.testing.assert_allclose(fast.tau, full.tau, atol=1e-4 * np.abs(full.tau).max())


def test_model_is_hot_started_across_steps(talos):
    controller = humanoid_balance(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    controller.solver.solve(q, v)
    second = controller.solver.solve(q, v)
    assert second.iterations == 0 and controller.solver.backend.rounds == 1
