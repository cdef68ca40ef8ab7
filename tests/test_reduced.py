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
import quadprog

import tsid_py as tp
from tsid_py.backends import active_set as _kernels, reduced
from tsid_py.qp import QP, LeastSquaresCost
from tsid_py.backends.reduced import BasisElimination, OrthonormalElimination, reduced_cost
from tsid_py.control.reference import humanoid_balance, quadruped_stance

from .conftest import load_robot, perturbed_state


def objective(qp, x) -> float:
    return 0.5 * x @ qp.H @ x + qp.g @ x


def _basis(A, b):
    return BasisElimination.factorise(A, b, *BasisElimination.choose_basis(A))


@pytest.mark.parametrize("eliminate", [_basis, OrthonormalElimination])
def test_elimination_parametrises_the_equalities(eliminate, rng):
    A = rng.normal(size=(18, 50))
    b = rng.normal(size=18)
    elimination = eliminate(A, b)
    z = rng.normal(size=32)
    np.testing.assert_allclose(A @ elimination.expand(z), b, atol=1e-10)
    Z = elimination.reduce_rows(np.eye(50))                      # Z itself
    np.testing.assert_allclose(A @ Z, 0.0, atol=1e-10)
    assert np.linalg.matrix_rank(Z) == 32
    np.testing.assert_allclose(elimination.expand(z), elimination.particular + Z @ z, atol=1e-12)
    v, d = rng.normal(size=50), rng.uniform(0.1, 2.0, size=50)
    np.testing.assert_allclose(elimination.reduce_vector(v), Z.T @ v, atol=1e-10)
    np.testing.assert_allclose(elimination.reduce_diagonal(d), Z.T @ np.diag(d) @ Z, atol=1e-10)
    # The reduced cost, from the factored form and from H itself, equals the explicit one.
    cost = LeastSquaresCost(rng.normal(size=(38, 50)), rng.normal(size=38), d, rng.normal(size=50))
    factored = QP(None, None, A, b, np.zeros((0, 50)), np.zeros(0), np.zeros(0), cost=cost)
    plain = QP(cost.hessian(), cost.gradient(), A, b, np.zeros((0, 50)), np.zeros(0), np.zeros(0))
    H = Z.T @ plain.H @ Z
    g = Z.T @ (plain.g + plain.H @ elimination.particular)
    for qp in (factored, plain):
        H_reduced, g_reduced = reduced_cost(qp, elimination)
        np.testing.assert_allclose(H_reduced, H, atol=1e-9 * np.abs(H).max())
        np.testing.assert_allclose(g_reduced, g, atol=1e-9 * np.abs(g).max())


def test_redundant_equalities_are_detected(rng):
    A = rng.normal(size=(18, 50))
    b = rng.normal(size=18)
    assert BasisElimination.choose_basis(np.vstack([A, A[:1]])) is None
    assert OrthonormalElimination(np.vstack([A, A[:1]]), np.r_[b, b[:1]]).consistent
    assert not OrthonormalElimination(np.vstack([A, A[:1]]), np.r_[b, b[:1] + 1.0]).consistent


def test_kernels_match_the_numpy_reduction(rng):
    """On a random least-squares QP the compiled elimination equals numpy's solve, the cost
    reduction equals ZᵀHZ and Zᵀ(g + H x_p) formed explicitly, and the solve on a given
    active set satisfies its KKT system."""
    n, m = 50, 18
    A, b = rng.normal(size=(m, n)), rng.normal(size=m)
    cost = LeastSquaresCost(rng.normal(size=(38, n)), rng.normal(size=38), rng.uniform(0, 1, n), rng.normal(size=n))
    basis, free = BasisElimination.choose_basis(A)
    E, x_basis = np.empty((m, n - m)), np.empty(m)
    assert _kernels.eliminate_basis(A, b, basis, free, E, x_basis) > 1e-6
    np.testing.assert_allclose(E, np.linalg.solve(A[:, basis], A[:, free]), atol=1e-10)
    np.testing.assert_allclose(x_basis, np.linalg.solve(A[:, basis], b), atol=1e-10)
    reference = BasisElimination(basis, free, E, x_basis)
    Z = reference.reduce_rows(np.eye(n))
    qp = QP(None, None, A, b, np.zeros((0, n)), np.zeros(0), np.zeros(0), cost=cost)
    H_ref, g_ref = Z.T @ qp.H @ Z, Z.T @ (qp.g + qp.H @ reference.particular)
    H, g = np.empty((n - m, n - m)), np.empty(n - m)
    assert _kernels.reduce_least_squares(cost.R, cost.s, cost.d, cost.e, basis, free, E, x_basis, H, g)
    np.testing.assert_allclose(H, H_ref, atol=1e-9 * np.abs(H_ref).max())
    np.testing.assert_allclose(g, g_ref, atol=1e-9 * np.abs(g_ref).max())
    # Two rows of C held at their bounds: stationarity, the held rows, and the reported checks.
    C = rng.normal(size=(6, n))
    l, u = np.full(6, -np.inf), np.full(6, np.inf)
    u[1], l[4] = -5.0, 5.0
    active, at_upper = np.array([1, 4]), np.array([True, False])
    x, violated = np.empty(n), np.ones(6, dtype=bool)
    sizes = np.array([2, 0])
    code = _kernels.solve_on_active_set(H, g, C, l, u, basis, free, E, x_basis, active, at_upper, sizes, 0,
                                        1e-7, 1e-9, x, violated)
    np.testing.assert_allclose(A @ x, b, atol=1e-9)
    np.testing.assert_allclose(C[active] @ x, [-5.0, 5.0], atol=1e-9)
    K = C[active] @ Z
    multipliers = np.linalg.lstsq(K.T, -(H_ref @ np.linalg.lstsq(Z, x - reference.particular, rcond=None)[0]
                                           + g_ref), rcond=None)[0]
    assert code == (0 if multipliers[0] >= 0 and multipliers[1] <= 0 else 1)
    assert not violated.any()


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


@pytest.mark.parametrize("changes_allowed", [0, reduced.ACTIVE_SET_CHANGES])
def test_every_violated_torque_limit_is_found(changes_allowed, rng, monkeypatch):
    """With tight torque limits some rows are active and the first solve starts from an empty
    active set: the compiled dual active-set steps must find every one of them, and with no
    steps allowed, DAQP's screening must."""
    monkeypatch.setattr(reduced, "ACTIVE_SET_CHANGES", changes_allowed)
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
    assert active.sum() >= 1                                  # the case needs the active set found
    backend = solvers[0].backend
    assert (backend.rounds >= 2) if changes_allowed == 0 else (backend.rounds == 1 and backend.changes >= active.sum())
    assert np.all(np.abs(fast.tau_actuated) <= limits * (1 + 1e-7) + 1e-9)
    np.testing.assert_allclose(fast.tau, full.tau, atol=1e-4 * np.abs(full.tau).max())


def _random_reduced_qp(rng, n=20, m=4, rows=14):
    """A strictly convex, feasible QP (``x0`` satisfies everything) with equalities,
    eliminated on a basis, and two-sided rows; fewer rows than free variables, so that any
    set of them is independent."""
    x0 = rng.normal(size=n)
    A = rng.normal(size=(m, n))
    b = A @ x0
    R = rng.normal(size=(n, n))
    spread = rng.uniform(0.2, 3.0)           # how far the unconstrained optimum lies from x0
    cost = LeastSquaresCost(R, R @ x0 + spread * rng.normal(size=n), rng.uniform(0.1, 1, n), np.zeros(n))
    basis, free = BasisElimination.choose_basis(A)
    E, x_basis = np.empty((m, n - m)), np.empty(m)
    _kernels.eliminate_basis(A, b, basis, free, E, x_basis)
    H, g = np.empty((n - m, n - m)), np.empty(n - m)
    _kernels.reduce_least_squares(cost.R, cost.s, cost.d, cost.e, basis, free, E, x_basis, H, g)
    C = rng.normal(size=(rows, n))
    l, u = C @ x0 - rng.uniform(0.0, 1.0, rows), C @ x0 + rng.uniform(0.0, 1.0, rows)
    qp = QP(None, None, A, b, C, l, u, cost=cost)
    return qp, (H, g, C, l, u, basis, free, E, x_basis)


def test_dual_active_set_steps_reach_the_optimum_from_any_start(rng):
    """From an empty active set and from a wrong one (rows held at the opposite bound), the
    kernel's dual active-set steps end at quadprog's optimum with the KKT conditions checked."""
    for trial in range(10):
        qp, reduced_problem = _random_reduced_qp(rng)
        C, l, u = qp.C, qp.l, qp.u
        # quadprog: min ½xᵀHx − aᵀx s.t. Gᵀx ≥ h, the first meq as equalities.
        G = np.vstack([qp.A, C, -C]).T
        h = np.concatenate([qp.b, l, -u])
        expected = quadprog.solve_qp(qp.H, -qp.g, G, h, qp.A.shape[0])[0]
        active_rows = np.flatnonzero(np.minimum(np.abs(C @ expected - l), np.abs(C @ expected - u)) < 1e-8)
        assert active_rows.size >= 1                          # the trial exercises the steps
        for start in ([], active_rows[::-1]):
            active, at_upper = np.zeros(C.shape[0], dtype=np.intp), np.zeros(C.shape[0], dtype=bool)
            active[: len(start)] = start
            at_upper[: len(start)] = np.abs(C[start] @ expected - u[start]) > 1e-8     # the wrong bound
            sizes = np.array([len(start), 0])
            x, violated = np.empty(qp.n), np.empty(C.shape[0], dtype=bool)
            code = _kernels.solve_on_active_set(*reduced_problem, active, at_upper, sizes, 100, 1e-9, 1e-9, x,
                                                violated)
            assert code == 0, (trial, start)
            np.testing.assert_allclose(x, expected, atol=1e-8)
            assert sorted(active[: sizes[0]]) == sorted(active_rows)
            assert sizes[1] >= active_rows.size


def test_model_is_hot_started_across_steps(talos):
    controller = humanoid_balance(talos)
    q, v = talos.q_ref, talos.zero_velocity()
    controller.solver.solve(q, v)
    second = controller.solver.solve(q, v)
    assert second.iterations == 0 and controller.solver.backend.rounds == 1


def test_a_held_row_whose_bound_became_infinite_is_not_trusted(rng):
    """The guessed active set may hold a row at a bound that is now infinite; the kernel must
    report it (code 2) instead of returning a non-finite x as optimal."""
    n, m = 6, 2
    A, b = rng.normal(size=(m, n)), rng.normal(size=m)
    cost = LeastSquaresCost(rng.normal(size=(4, n)), rng.normal(size=4), np.ones(n), np.zeros(n))
    basis, free = BasisElimination.choose_basis(A)
    E, x_basis = np.empty((m, n - m)), np.empty(m)
    H, g = np.empty((n - m, n - m)), np.empty(n - m)
    C, l, u = rng.normal(size=(1, n)), np.array([-np.inf]), np.array([np.inf])
    code = _kernels.eliminate_and_guess(A, b, cost.R, cost.s, cost.d, cost.e, C, l, u, basis, free, np.array([0]),
                                        np.array([True]), np.array([1, 0]), 8, np.array([1e-6, 1e-7, 1e-9]), E,
                                        x_basis, H, g, np.empty(n), np.empty(1, dtype=bool))
    assert code == 2


def test_compiled_step_refuses_what_it_cannot_do(rng):
    """A singular basis block is reported (BASIS_REJECTED: the backend chooses another) and a
    negative diagonal weight is not reduced (COST_NOT_REDUCED: the backend's numpy path)."""
    n, m = 6, 2
    A, b = rng.normal(size=(m, n)), rng.normal(size=m)
    A[:, 1] = A[:, 0]                                   # columns 0 and 1 are no basis
    basis, free = np.array([0, 1]), np.array([2, 3, 4, 5])
    cost = LeastSquaresCost(rng.normal(size=(4, n)), rng.normal(size=4), np.ones(n), np.zeros(n))
    buffers = (np.empty((m, n - m)), np.empty(m), np.empty((n - m, n - m)), np.empty(n - m), np.empty(n),
               np.empty(1, dtype=bool))
    C, l, u = rng.normal(size=(1, n)), np.array([-1.0]), np.array([1.0])
    tolerances = np.array([1e-6, 1e-7, 1e-9])
    rows, sides = np.zeros(1, dtype=np.intp), np.zeros(1, dtype=bool)

    def step(basis, d):
        return _kernels.eliminate_and_guess(A, b, cost.R, cost.s, d, cost.e, C, l, u, basis, free, rows, sides,
                                            np.zeros(2, dtype=np.intp), 8, tolerances, *buffers)

    assert step(basis, cost.d) == _kernels.BASIS_REJECTED
    basis, free = BasisElimination.choose_basis(A)
    negative = cost.d.copy()
    negative[free[0]] = -1.0
    assert step(basis, negative) == _kernels.COST_NOT_REDUCED
    assert step(basis, cost.d) == 0


def test_the_kernels_matrix_products_free_what_they_allocate():
    """The reduced cost's two matrix products (numba's BLAS call without its returned
    reference, usable in kernels compiled without numba's runtime) give ``ZᵀHZ`` and
    ``Zᵀ(g + H x_p)`` (against numpy), and a kernel with its runtime that calls them — its
    work buffer allocated inside — frees every block it allocates."""
    from numba.core.runtime import _nrt_python, rtsys

    rng = np.random.default_rng(3)
    rows, m, k = 7, 3, 4
    n = m + k
    R, s, d, e = rng.normal(size=(rows, n)), rng.normal(size=rows), rng.random(n), rng.normal(size=n)
    basis, free = np.arange(m, dtype=np.intp), np.arange(m, n, dtype=np.intp)
    E, x_basis, H, g = rng.normal(size=(m, k)), rng.normal(size=m), np.empty((k, k)), np.empty(k)
    _kernels.reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g)
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        for _ in range(100):
            _kernels.reduce_least_squares(R, s, d, e, basis, free, E, x_basis, H, g)
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    assert after.alloc - before.alloc >= 100 and after.free - before.free == after.alloc - before.alloc
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
    Z = np.zeros((n, k))
    Z[basis], Z[free] = -E, np.eye(k)
    x_p = np.zeros(n)
    x_p[basis] = x_basis
    hessian, gradient = 2 * (R.T @ R + np.diag(d)), -2 * (R.T @ s + e)
    assert np.allclose(H, Z.T @ hessian @ Z, atol=1e-12)
    assert np.allclose(g, Z.T @ (gradient + hessian @ x_p), atol=1e-12)
