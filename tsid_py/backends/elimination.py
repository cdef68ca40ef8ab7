"""The reduced backend's eliminations of the equalities: ``{x : A x = b} = {x_p + Z z}``
(see :mod:`tsid_py.backends.reduced`, step 1), and the reduced cost ``(ZᵀHZ, Zᵀ(g + H x_p))``."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from . import active_set
from ..qp import QP

#: ``|R_ii| < RANK_TOLERANCE · max |R_jj|`` marks the equalities as rank-deficient.
RANK_TOLERANCE = 1e-10

#: The basic columns are chosen again when the LU of ``A_B`` has
#: ``min |U_ii| < BASIS_TOLERANCE · max |U_ii|`` (a cheap conditioning estimate).
BASIS_TOLERANCE = 1e-6

#: Redundant equalities are consistent if they hold at the particular solution to this
#: (relative to max(1, |b|)).
CONSISTENCY_TOLERANCE = 1e-8


class Elimination:
    """``{x : A x = b} = {x_p + Z z}``; ``Z`` is applied, never required in full."""

    particular: np.ndarray
    consistent = True

    def reduce_rows(self, K: np.ndarray) -> np.ndarray:
        """``K Z``."""
        raise NotImplementedError

    def reduce_vector(self, v: np.ndarray) -> np.ndarray:
        """``Zᵀ v``."""
        raise NotImplementedError

    def reduce_diagonal(self, d: np.ndarray) -> np.ndarray:
        """``Zᵀ diag(d) Z``."""
        raise NotImplementedError

    def expand(self, z: np.ndarray) -> np.ndarray:
        """``x_p + Z z``."""
        raise NotImplementedError


class NoElimination(Elimination):
    """No equalities: ``Z = I``, ``x_p = 0``."""

    def __init__(self, n: int):
        self.particular = np.zeros(n)

    def reduce_rows(self, K):
        return K

    def reduce_vector(self, v):
        return v

    def reduce_diagonal(self, d):
        return np.diag(d)

    def expand(self, z):
        return z


class BasisElimination(Elimination):
    """``x_B = A_B⁻¹ (b − A_N x_N)`` for the basic columns ``basis`` and the free columns
    ``free`` (``Z = P [−E; I]``, ``E = A_B⁻¹ A_N``); ``x_basis = A_B⁻¹ b``."""

    def __init__(self, basis: np.ndarray, free: np.ndarray, E: np.ndarray, x_basis: np.ndarray):
        self.basis, self.free, self.E, self.x_basis = basis, free, E, x_basis
        self.particular = np.zeros(basis.size + free.size)
        self.particular[basis] = x_basis

    @classmethod
    def factorise(cls, A: np.ndarray, b: np.ndarray, basis: np.ndarray, free: np.ndarray):
        """The elimination for these columns (one compiled LU of ``A_B``), or None when that
        LU is singular or nearly so (``min |U_ii| ≤ BASIS_TOLERANCE · max |U_ii|``)."""
        E, x_basis = np.empty((basis.size, free.size)), np.empty(basis.size)
        if active_set.eliminate_basis(A, b, basis, free, E, x_basis) <= BASIS_TOLERANCE:
            return None
        return cls(basis, free, E, x_basis)

    @staticmethod
    def choose_basis(A: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(basis, free)`` column indices from a column-pivoted QR of ``A`` (the best
        conditioned choice, greedily), or None when the rows of ``A`` are dependent."""
        m = A.shape[0]
        R, order = scipy.linalg.qr(A, mode="r", pivoting=True)
        diagonal = np.abs(np.diagonal(R))
        if m > A.shape[1] or diagonal.size < m or diagonal[m - 1] <= RANK_TOLERANCE * diagonal[0]:
            return None
        return np.sort(order[:m]).astype(np.intp), np.sort(order[m:]).astype(np.intp)

    def reduce_rows(self, K):
        return K[:, self.free] - K[:, self.basis] @ self.E

    def reduce_vector(self, v):
        return v[self.free] - self.E.T @ v[self.basis]

    def reduce_diagonal(self, d):
        E = self.E
        out = E.T @ (d[self.basis, None] * E)
        out.flat[:: E.shape[1] + 1] += d[self.free]
        return out

    def expand(self, z):
        x = self.particular.copy()
        x[self.free] = z
        x[self.basis] -= self.E @ z
        return x


class OrthonormalElimination(Elimination):
    """``Z`` with orthonormal columns from a column-pivoted QR of ``Aᵀ``, which also finds
    redundant rows (a hard task repeating a contact's constraint, a full hard q̈ task on a
    robot in contact); ``consistent`` tells whether the dropped rows hold at ``x_p`` (if not,
    the equalities contradict each other)."""

    def __init__(self, A: np.ndarray, b: np.ndarray):
        Q, R, order = scipy.linalg.qr(A.T, pivoting=True)
        diagonal = np.abs(np.diagonal(R))
        rank = int(np.sum(diagonal > RANK_TOLERANCE * max(diagonal.max(initial=0.0), 1e-300)))
        y = scipy.linalg.solve_triangular(R[:rank, :rank], b[order[:rank]], trans="T")
        self.Z = Q[:, rank:]
        self.particular = Q[:, :rank] @ y
        residual = np.abs(A @ self.particular - b).max(initial=0.0)
        self.consistent = residual <= CONSISTENCY_TOLERANCE * (1.0 + np.abs(b).max(initial=0.0))

    def reduce_rows(self, K):
        return K @ self.Z

    def reduce_vector(self, v):
        return self.Z.T @ v

    def reduce_diagonal(self, d):
        return self.Z.T @ (d[:, None] * self.Z)

    def expand(self, z):
        return self.particular + self.Z @ z


def reduced_cost(qp: QP, elimination: Elimination) -> tuple[np.ndarray, np.ndarray]:
    """``(ZᵀHZ, Zᵀ(g + H x_p))``, from the factored cost when the QP has one."""
    x_p = elimination.particular
    cost = qp.cost
    if cost is None:
        HZ = elimination.reduce_rows(qp.H)
        return elimination.reduce_rows(HZ.T), elimination.reduce_vector(qp.g + qp.H @ x_p)
    RZ = elimination.reduce_rows(cost.R)
    H = RZ.T @ RZ
    H += elimination.reduce_diagonal(cost.d)
    g = RZ.T @ (cost.R @ x_p - cost.s)
    g += elimination.reduce_vector(cost.d * x_p - cost.e)
    return 2.0 * H, 2.0 * g
