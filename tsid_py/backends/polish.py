"""Finishing an approximate answer exactly: the QP on a guessed active set, certified.

An iterative solver (OSQP's ADMM) ends near the optimum, with every row's status (active at
its lower bound, at its upper bound, or inactive) visible in its answer. Holding the active
rows at their bounds turns the QP into an equality-constrained one, solved exactly by one
linear system. Its answer is the QP's optimum if it satisfies every row and the
Karush–Kuhn–Tucker conditions hold with multipliers of the right signs — which is checked,
so a wrong guess is never returned.

Unlike the polishing built into OSQP, the active rows may be linearly dependent: a contact
whose normal force is at 0 has all of its friction-pyramid and centre-of-pressure rows active
at the cone's apex (ten rows, plus the normal force's bound, on six variables). An
independent subset (a pivoted QR) defines the same point, and the multipliers, which are then
not unique, are found by non-negative least squares: the certificate asks only that some
multipliers of the right signs exist.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize

from ..qp import QP

#: Rows (of a well-scaled QP: largest coefficient 1) must hold to this, relative to
#: 1 + |bound|; the stationarity residual to this relative to 1 + |H x + g|.
TOLERANCE = 1e-9

#: Largest product of a multiplier and its row's distance from the bound it pushes against
#: (the row's share of the duality gap) in :func:`complementary`.
GAP_TOLERANCE = 1e-7

#: ``|R_ii| ≤ RANK_TOLERANCE · |R_00|`` in the pivoted QR marks a row as dependent.
RANK_TOLERANCE = 1e-10


def polish(qp: QP, at_lower: np.ndarray, at_upper: np.ndarray) -> np.ndarray | None:
    """The optimum of ``qp`` with the rows of :meth:`QP.rows_with_box` marked ``at_lower``
    / ``at_upper`` held at those bounds, if it is the optimum of ``qp`` itself (every row
    holds, multipliers of the right signs exist); else None. ``qp`` should be well scaled
    (:func:`~tsid_py.backends.presolve.presolve`)."""
    C, lower, upper = qp.rows_with_box()
    K = np.vstack([qp.A, C[at_lower], C[at_upper]])
    k = np.concatenate([qp.b, lower[at_lower], upper[at_upper]])
    try:
        x = _solve_on(qp.H, qp.g, K, k)
        return x if x is not None and _optimal(qp, C, lower, upper, at_lower, at_upper, x) else None
    except (ValueError, RuntimeError, np.linalg.LinAlgError):   # non-finite data, NNLS giving up
        return None


def _optimal(qp: QP, C, lower, upper, at_lower, at_upper, x) -> bool:
    """Whether ``x`` satisfies every row and the stationarity condition with multipliers of
    the right signs on the rows of ``at_lower`` / ``at_upper`` that are at their bounds."""
    if not _feasible(qp, C, lower, upper, x):
        return False
    # Multipliers only for the rows at their bounds at x (a dependent row of the guess may
    # not be): complementarity.
    values = C @ x
    with np.errstate(invalid="ignore"):
        at_lower = at_lower & (values <= lower + TOLERANCE * (1.0 + np.abs(lower)))
        at_upper = at_upper & (values >= upper - TOLERANCE * (1.0 + np.abs(upper)))
    active = np.vstack([C[at_lower], C[at_upper]])
    signs = np.concatenate([-np.ones(int(at_lower.sum())), np.ones(int(at_upper.sum()))])
    return _stationary(qp.H @ x + qp.g, qp.A, active, signs)


def complementary(values: np.ndarray, lower: np.ndarray, upper: np.ndarray, multipliers: np.ndarray) -> bool:
    """Whether each row's multiplier (``> 0``: pushing against its upper bound, ``< 0``: its
    lower bound) times its distance from that bound is at most :data:`GAP_TOLERANCE`, for
    multipliers beyond :data:`TOLERANCE` of the largest. An iterative solver's answer can
    meet its residual tolerances with a multiplier on a row that is not at its bound, or
    pushes against an infinite one: a suboptimal answer."""
    significant = np.abs(multipliers) > TOLERANCE * (1.0 + np.abs(multipliers).max(initial=0.0))
    z, values = multipliers[significant], values[significant]
    with np.errstate(invalid="ignore"):
        gap = np.where(z > 0, z * (upper[significant] - values), z * (lower[significant] - values))
    return not np.any(gap > GAP_TOLERANCE)


def _solve_on(H: np.ndarray, g: np.ndarray, K: np.ndarray, k: np.ndarray) -> np.ndarray | None:
    """``argmin ½ xᵀHx + gᵀx`` subject to ``K x = k``, using an independent subset of K's rows."""
    n = H.shape[0]
    if K.shape[0]:
        _, R, order = scipy.linalg.qr(K.T, mode="economic", pivoting=True)
        diagonal = np.abs(np.diag(R))
        rank = int(np.sum(diagonal > RANK_TOLERANCE * diagonal[0])) if diagonal.size and diagonal[0] > 0 else 0
        K, k = K[order[:rank]], k[order[:rank]]
    m = K.shape[0]
    kkt = np.zeros((n + m, n + m))
    kkt[:n, :n] = H
    kkt[:n, n:] = K.T
    kkt[n:, :n] = K
    try:
        x = np.linalg.solve(kkt, np.concatenate([-g, k]))[:n]
    except np.linalg.LinAlgError:
        return None
    return x if np.all(np.isfinite(x)) else None


def _feasible(qp: QP, C: np.ndarray, lower: np.ndarray, upper: np.ndarray, x: np.ndarray) -> bool:
    """Every equality and row of ``qp`` holds at ``x`` to :data:`TOLERANCE`."""
    if qp.A.shape[0] and np.any(np.abs(qp.A @ x - qp.b) > TOLERANCE * (1.0 + np.abs(qp.b))):
        return False
    values = C @ x
    with np.errstate(invalid="ignore"):
        below = values < lower - TOLERANCE * (1.0 + np.abs(lower))
        above = values > upper + TOLERANCE * (1.0 + np.abs(upper))
    return not np.any(below | above)


def _stationary(gradient: np.ndarray, A: np.ndarray, active: np.ndarray, signs: np.ndarray) -> bool:
    """Whether ``gradient + Aᵀλ + Σ signs_i μ_i active_iᵀ = 0`` has a solution with ``μ ≥ 0``
    (λ free): the equalities' directions are projected out, the rest is a non-negative
    least-squares problem."""
    target = -gradient
    directions = active.T * signs
    if A.shape[0]:
        Q, R, _ = scipy.linalg.qr(A.T, mode="economic", pivoting=True)
        diagonal = np.abs(np.diag(R))
        Q = Q[:, diagonal > RANK_TOLERANCE * max(diagonal[0], 1e-300)] if diagonal.size else Q[:, :0]
        target = target - Q @ (Q.T @ target)
        directions = directions - Q @ (Q.T @ directions)
    if directions.shape[1] == 0:
        residual = np.linalg.norm(target, np.inf)
    else:
        multipliers, _ = scipy.optimize.nnls(directions, target)
        residual = np.linalg.norm(directions @ multipliers - target, np.inf)
    return residual <= TOLERANCE * (1.0 + np.linalg.norm(gradient, np.inf))
