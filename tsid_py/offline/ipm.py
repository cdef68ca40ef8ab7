"""A primal-dual interior-point method for block-tridiagonal QPs with elastic inequalities.

The problem, over N blocks ``z_t ∈ ℝⁿ`` (``t = 0 … N−1``):

    minimise    ½ zᵀ P z + qᵀ z + Σ_t (ρ 1ᵀ s_t + ½ γ ‖s_t‖²)
    subject to  E_t z_t − s_t ≤ h_t,   s_t ≥ 0           (r rows per block)

where ``P`` is block-tridiagonal: diagonal blocks ``P_tt`` and coupling blocks ``P_{t+1,t}``.
The elastic slacks ``s`` make every problem feasible; with ``ρ`` above the largest
multiplier of the hard problem (an exact penalty) they stay at zero wherever the hard
inequalities ``E_t z_t ≤ h_t`` can hold, and a block with ``s_t > 0`` is one whose
inequalities had to give. The small curvature ``γ`` makes the relaxed part strictly convex:
with a pure L1 penalty every relaxed row's multiplier sits exactly at ρ, the solution is a
degenerate vertex and the interior-point iterations stall.

Each Newton step of Mehrotra's predictor-corrector method eliminates the slacks and
multipliers row by row: with ``w = h − E z + s`` (≥ 0, multiplier λ) and ``s`` (≥ 0,
multiplier ν), the reduced system is

    (P + Eᵀ W E) Δz = r,      W = 1 / (w/λ + 1/(γ + ν/s))   (elementwise),

which keeps ``P``'s block-tridiagonal pattern: a banded matrix of half-bandwidth ``2n − 1``,
factored by LAPACK's banded Cholesky in O(N n³). Every step is linear in N.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.linalg import cho_solve_banded, cholesky_banded

#: Fraction of the step to the boundary taken each iteration.
STEP_FRACTION = 0.99

#: Cap on a row's weight ``W = 1/(w/λ + s/ν)`` in the reduced system. Rows active at a
#: degenerate vertex (``w``, ``s`` → 0 together) would send it to 1/μ, and the blocks of
#: ``P + EᵀWE`` would lose positive definiteness to rounding; capped, the step keeps the
#: stationarity and primal rows exact and is inexact only in those rows' complementarity.
MAX_ROW_WEIGHT = 1e13

#: Near the end (residual below ``STALL_RESIDUAL``) the iterations stop, stalled, when the
#: residual has not dropped below ``STALL_RATIO`` times its best value for
#: ``STALL_ITERATIONS`` iterations in a row.
STALL_RESIDUAL, STALL_RATIO, STALL_ITERATIONS = 1e-6, 0.9, 6


def times(matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``A_t x_t`` for stacked matrices (N, a, b) and vectors (N, b)."""
    return np.matmul(matrices, vectors[:, :, None])[:, :, 0]


def transposed_times(matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``A_tᵀ y_t`` for stacked matrices (N, a, b) and vectors (N, a)."""
    return np.matmul(vectors[:, None, :], matrices)[:, 0]


@dataclass
class BlockTridiagonalQP:
    """The problem above. Shapes: ``diagonal`` (N, n, n), ``coupling`` (N−1, n, n) with
    ``coupling[t] = P_{t+1,t}``, ``gradient`` (N, n), ``rows`` (N, r, n), ``bounds`` (N, r);
    ``penalty`` = ρ, ``curvature`` = γ."""

    diagonal: np.ndarray
    coupling: np.ndarray
    gradient: np.ndarray
    rows: np.ndarray
    bounds: np.ndarray
    penalty: float
    curvature: float = 0.0

    @property
    def shape(self) -> tuple[int, int, int]:
        """(N, n, r)."""
        return self.diagonal.shape[0], self.diagonal.shape[1], self.rows.shape[1]

    def hessian_product(self, z: np.ndarray) -> np.ndarray:
        """``P z`` for z (N, n)."""
        product = times(self.diagonal, z)
        product[1:] += times(self.coupling, z[:-1])
        product[:-1] += transposed_times(self.coupling, z[1:])
        return product

    def sparse(self):
        """The same problem for a general sparse QP solver, over ``x = (z_0 … z_{N−1}, s)``:
        ``(P, q, G, h, lb)`` of ``min ½ xᵀPx + qᵀx  s.t.  G x ≤ h, x ≥ lb`` (scipy CSC
        matrices; ``lb`` is −∞ for z and 0 for s)."""
        from scipy import sparse

        count, size, rows = self.shape
        a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        starts = np.arange(count)[:, None, None] * size
        coupled = starts[:-1]                                   # block (t+1, t) and its transpose
        values = [self.diagonal, self.coupling, self.coupling.transpose(0, 2, 1)]
        row_index = [starts + a, coupled + size + a, coupled + a]
        col_index = [starts + b, coupled + b, coupled + size + b]
        hessian = sparse.coo_matrix((np.concatenate([v.ravel() for v in values]),
                                     (np.concatenate([r.ravel() for r in row_index]),
                                      np.concatenate([c.ravel() for c in col_index]))),
                                    shape=(count * size, count * size))
        slacks = count * rows
        P = sparse.block_diag([hessian, self.curvature * sparse.identity(slacks)], format="csc")
        G = sparse.hstack([sparse.block_diag(list(self.rows)), -sparse.identity(slacks)], format="csc")
        q = np.concatenate([self.gradient.ravel(), np.full(slacks, self.penalty)])
        lb = np.concatenate([np.full(count * size, -np.inf), np.zeros(slacks)])
        return P, q, G, self.bounds.ravel().copy(), lb

    def objective(self, z: np.ndarray, s: np.ndarray | None = None) -> float:
        value = 0.5 * float(np.sum(z * self.hessian_product(z))) + float(np.sum(self.gradient * z))
        if s is None:
            return value
        return value + self.penalty * float(s.sum()) + 0.5 * self.curvature * float(np.sum(s * s))


@dataclass
class IPMResult:
    z: np.ndarray             # (N, n)
    slack: np.ndarray         # (N, r): the elastic slacks s
    multipliers: np.ndarray   # (N, r): λ of E z − s ≤ h
    iterations: int
    converged: bool
    residual: float           # largest scaled KKT residual at the end


class BandedFactor:
    """Banded (LAPACK upper) storage of a symmetric block-tridiagonal matrix with n × n
    blocks; the index maps are built once for a shape and reused every iteration."""

    def __init__(self, count: int, size: int):
        self.count, self.size = count, size
        self.band = 2 * size - 1
        n, u = size, self.band
        a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        upper = b >= a
        starts = np.arange(count)[:, None] * n
        # diagonal block t, entry (a, b ≥ a): storage row u + a − b, column t n + b
        self.diag_rows = np.broadcast_to((u + a - b)[upper], (count, upper.sum()))
        self.diag_cols = starts + b[upper][None, :]
        self.diag_pick = (a[upper], b[upper])
        # coupling block P_{t+1,t}: M[t n + a, (t+1) n + b] = P_{t+1,t}[b, a] → row n − 1 + a − b
        self.coup_rows = np.broadcast_to((n - 1 + a - b).ravel(), (max(count - 1, 0), n * n))
        self.coup_cols = starts[1:] + b.ravel()[None, :]
        self.coup_pick = (b.ravel(), a.ravel())

    def factor(self, diagonal: np.ndarray, coupling: np.ndarray) -> np.ndarray:
        storage = np.zeros((self.band + 1, self.count * self.size))
        storage[self.diag_rows, self.diag_cols] = diagonal[:, self.diag_pick[0], self.diag_pick[1]]
        if self.count > 1:
            storage[self.coup_rows, self.coup_cols] = coupling[:, self.coup_pick[0], self.coup_pick[1]]
        return cholesky_banded(storage, lower=False, check_finite=False)

    @staticmethod
    def solve(factor: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        return cho_solve_banded((factor, False), rhs.ravel(), check_finite=False).reshape(rhs.shape)


def solve_unconstrained(problem: BlockTridiagonalQP) -> np.ndarray:
    """The minimiser of ``½ zᵀPz + qᵀz`` (P positive definite), ignoring the rows."""
    count, size, _ = problem.shape
    banded = BandedFactor(count, size)
    return banded.solve(banded.factor(problem.diagonal, problem.coupling), -problem.gradient)


class _Step(NamedTuple):
    dz: np.ndarray
    ds: np.ndarray
    dw: np.ndarray
    dlam: np.ndarray
    dnu: np.ndarray


class _Linearisation(NamedTuple):
    """One iteration's Newton system, factored: the residuals ``r_z, r_s, r_p``, the row
    ratios ``D1 = w/λ``, ``D2 = γ + ν/s``, the (capped) row weights and the banded factor of
    ``P + Eᵀ W E``."""

    E: np.ndarray
    banded: BandedFactor
    factor: np.ndarray
    r_z: np.ndarray
    r_s: np.ndarray
    r_p: np.ndarray
    lam: np.ndarray
    s: np.ndarray
    D1: np.ndarray
    D2: np.ndarray
    weight: np.ndarray
    gamma: float

    def step(self, r_c1: np.ndarray, r_c2: np.ndarray) -> _Step:
        """The step for complementarity residuals ``r_c1`` (of ``wλ``) and ``r_c2`` (of ``sν``)."""
        E, lam, s, D1, weight = self.E, self.lam, self.s, self.D1, self.weight
        xi = self.r_p - r_c1 / lam - D1 * (self.r_s + r_c2 / s)
        dz = self.banded.solve(self.factor, -self.r_z - transposed_times(E, self.r_s + r_c2 / s + weight * xi))
        e_dz = times(E, dz)
        ds = (e_dz + xi) / (1.0 + D1 * self.D2)
        # Δλ with the same (capped) weight as the reduced system, so stationarity holds
        # exactly; Δw from the primal rows (not from λΔw + wΔλ = −r_c1, which divides by
        # λ → 0). Only the linearised complementarity of capped rows is inexact.
        dlam = self.r_s + r_c2 / s + weight * (e_dz + xi)
        return _Step(dz, ds, ds - e_dz - self.r_p, dlam, self.r_s + self.gamma * ds - dlam)


def solve(problem: BlockTridiagonalQP, *, tolerance: float = 1e-9, max_iterations: int = 100,
          progress=None) -> IPMResult:
    """Mehrotra's predictor-corrector on :class:`BlockTridiagonalQP` (``P`` positive
    definite). Converged when the stationarity, primal and slack-multiplier residuals
    (relative to the data's size) and the duality gap ``wᵀλ + sᵀν`` (relative to the
    objective) are all below ``tolerance``. Stops early when the iterations stall near the
    end (a degenerate vertex reached to rounding); ``converged`` then tells whether the
    residual made the tolerance. ``progress``, if given, is called once per iteration."""
    count, size, _ = problem.shape
    E, h, rho, gamma = problem.rows, problem.bounds, problem.penalty, problem.curvature
    E_transposed = np.ascontiguousarray(E.transpose(0, 2, 1))
    banded = BandedFactor(count, size)
    z = banded.solve(banded.factor(problem.diagonal, problem.coupling), -problem.gradient)
    s = np.maximum(times(E, z) - h, 0.0) + 1.0
    w = h - times(E, z) + s
    lam = np.full_like(h, min(1.0, rho / 2))
    nu = rho + gamma * s - lam
    scale_z = 1.0 + np.abs(problem.gradient).max(initial=0.0)
    scale_p = 1.0 + np.abs(h).max(initial=0.0)
    pairs = 2 * h.size
    residual, best, iteration, stalled = np.inf, np.inf, 0, 0
    for iteration in range(1, max_iterations + 1):
        r_z = problem.hessian_product(z) + problem.gradient + transposed_times(E, lam)
        r_s = rho + gamma * s - lam - nu
        r_p = times(E, z) - s + w - h
        mu = (np.sum(w * lam) + np.sum(s * nu)) / pairs
        gap = mu * pairs / (1.0 + abs(problem.objective(z, s)))
        residual = max(np.abs(r_z).max() / scale_z, np.abs(r_p).max() / scale_p, np.abs(r_s).max() / (1.0 + rho), gap)
        if progress is not None:
            progress(1)
        if residual <= tolerance:
            return IPMResult(z, s, lam, iteration, True, float(residual))
        if residual < STALL_RATIO * best:
            best, stalled = residual, 0
        elif residual <= STALL_RESIDUAL:
            stalled += 1
            if stalled == STALL_ITERATIONS:
                break
        D1, D2 = w / lam, gamma + nu / s
        weight = 1.0 / np.maximum(D1 + 1.0 / D2, 1.0 / MAX_ROW_WEIGHT)
        factor = banded.factor(problem.diagonal + np.matmul(E_transposed * weight[:, None, :], E), problem.coupling)
        system = _Linearisation(E, banded, factor, r_z, r_s, r_p, lam, s, D1, D2, weight, gamma)
        affine = system.step(w * lam, s * nu)
        alpha = _step_length((w, lam, s, nu), affine)
        mu_affine = (np.sum((w + alpha * affine.dw) * (lam + alpha * affine.dlam))
                     + np.sum((s + alpha * affine.ds) * (nu + alpha * affine.dnu))) / pairs
        sigma = (mu_affine / mu) ** 3
        step = system.step(w * lam + affine.dw * affine.dlam - sigma * mu, s * nu + affine.ds * affine.dnu - sigma * mu)
        alpha = STEP_FRACTION * _step_length((w, lam, s, nu), step)
        z, s, w = z + alpha * step.dz, s + alpha * step.ds, w + alpha * step.dw
        lam, nu = lam + alpha * step.dlam, nu + alpha * step.dnu
    return IPMResult(z, s, lam, iteration, False, float(residual))


def _step_length(values, step: _Step) -> float:
    """Largest α ≤ 1 keeping ``(w, λ, s, ν) + α (Δw, Δλ, Δs, Δν)`` ≥ 0."""
    alpha = 1.0
    for value, change in zip(values, (step.dw, step.dlam, step.ds, step.dnu)):
        negative = change < 0
        if np.any(negative):
            alpha = min(alpha, float(np.min(-value[negative] / change[negative])))
    return alpha
