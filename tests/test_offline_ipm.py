"""The block-tridiagonal interior-point method against a dense QP solve of the same problem."""

import numpy as np
import proxsuite
import pytest

from tsid_py.offline import ipm


def _random_problem(rng, count=6, size=3, rows=5, penalty=1e3, curvature=0.5):
    L = rng.normal(size=(count, size, size))
    diagonal = np.einsum("tij,tkj->tik", L, L) + 3 * np.eye(size)
    coupling = 0.4 * rng.normal(size=(count - 1, size, size))
    return ipm.BlockTridiagonalQP(diagonal, coupling, rng.normal(size=(count, size)),
                                  rng.normal(size=(count, rows, size)), rng.normal(size=(count, rows)), penalty,
                                  curvature)


def _dense_matrices(problem):
    """The same problem written out densely over (z, s): ``min ½xᵀHx + gᵀx  s.t.  C x ≤ u``
    (the first m rows ``E z − s ≤ h``, the last m ``−s ≤ 0``)."""
    count, size, rows = problem.shape
    n, m = count * size, count * rows
    H = np.zeros((n + m, n + m))
    H[n:, n:] = problem.curvature * np.eye(m)
    for t in range(count):
        H[t * size:(t + 1) * size, t * size:(t + 1) * size] = problem.diagonal[t]
    for t in range(count - 1):
        block = problem.coupling[t]
        H[(t + 1) * size:(t + 2) * size, t * size:(t + 1) * size] = block
        H[t * size:(t + 1) * size, (t + 1) * size:(t + 2) * size] = block.T
    g = np.r_[problem.gradient.ravel(), np.full(m, problem.penalty)]
    C = np.zeros((2 * m, n + m))
    for t in range(count):
        C[t * rows:(t + 1) * rows, t * size:(t + 1) * size] = problem.rows[t]
    C[:m, n:] = -np.eye(m)
    C[m:, n:] = -np.eye(m)
    return H, g, C, np.r_[problem.bounds.ravel(), np.zeros(m)]


def _dense(problem):
    """The dense problem solved by ProxQP: ``(z, s, objective)``."""
    count, size, rows = problem.shape
    n, m = count * size, count * rows
    H, g, C, u = _dense_matrices(problem)
    qp = proxsuite.proxqp.dense.QP(n + m, 0, 2 * m)
    qp.settings.eps_abs = 1e-11
    qp.settings.eps_rel = 0.0
    qp.init(H, g, None, None, C, np.full(2 * m, -1e20), u)
    qp.solve()
    x = qp.results.x
    return x[:n].reshape(count, size), x[n:].reshape(count, rows), 0.5 * x @ H @ x + g @ x


@pytest.mark.parametrize("seed", range(4))
def test_matches_a_dense_solve(seed):
    problem = _random_problem(np.random.default_rng(seed))
    result = ipm.solve(problem, tolerance=1e-10)
    assert result.converged
    z, s, value = _dense(problem)
    assert problem.objective(result.z, result.slack) == pytest.approx(value, rel=1e-8)
    np.testing.assert_allclose(result.z, z, atol=1e-5)
    np.testing.assert_allclose(result.slack, s, atol=1e-5)


def test_sparse_form_is_the_dense_problem():
    """``sparse()`` (what a general sparse QP solver gets) writes the same matrices, with the
    slacks' sign rows as the lower bound ``s ≥ 0``."""
    problem = _random_problem(np.random.default_rng(11))
    count, size, rows = problem.shape
    n, m = count * size, count * rows
    H, g, C, u = _dense_matrices(problem)
    P, q, G, h, lb = problem.sparse()
    np.testing.assert_array_equal(P.toarray(), H)
    np.testing.assert_array_equal(q, g)
    np.testing.assert_array_equal(G.toarray(), C[:m])
    np.testing.assert_array_equal(h, u[:m])
    np.testing.assert_array_equal(lb, np.r_[np.full(n, -np.inf), np.zeros(m)])


def test_slacks_vanish_when_the_rows_can_hold():
    """Rows satisfied strictly by z = 0 (h > 0): a feasible problem, so no slack is used and
    the answer is the hard-constrained minimiser (KKT: P z + q + Eᵀλ = 0, λ ≥ 0, λ(h − Ez) = 0)."""
    problem = _random_problem(np.random.default_rng(7))
    problem.bounds = np.abs(problem.bounds) + 0.1
    result = ipm.solve(problem)
    assert np.abs(result.slack).max() < 1e-8
    lam = result.multipliers
    stationarity = problem.hessian_product(result.z) + problem.gradient + np.einsum("trn,tr->tn", problem.rows, lam)
    assert np.abs(stationarity).max() < 1e-8
    gap = problem.bounds - np.einsum("trn,tn->tr", problem.rows, result.z)
    assert gap.min() > -1e-9 and lam.min() > -1e-12
    assert np.abs(lam * gap).max() < 1e-8
    assert np.any(lam > 1e-3)                     # some row is active: the test is not vacuous


def test_unconstrained_solve_is_the_banded_linear_solve():
    problem = _random_problem(np.random.default_rng(3), count=9, size=4)
    z = ipm.solve_unconstrained(problem)
    np.testing.assert_allclose(problem.hessian_product(z), -problem.gradient, atol=1e-10)
