"""The stacked over-time problem, reduced to the wrenches' free directions.

Over N frames, with the local contact wrenches ``f_t`` (6k each; see :mod:`.frames`):

    minimise   Σ_t [ w_τ ‖T_t f_t + c_t‖² + ε ‖f_t‖² ] + w_s Σ_{t≥1} ‖R_t f_t − R_{t−1} f_{t−1}‖²
    subject to G_t f_t = e_t                      (the 6 root rows of each frame)
               C f_t ≤ 0                          (contact bounds, the same every frame)

``R_t`` maps local wrenches to world-aligned ones, so the smoothing acts on what a force
plate would see. Each frame's root rows are eliminated exactly: ``f_t = p_t + N_t z_t`` with
``p_t = G_t⁺ e_t`` and ``N_t`` an orthonormal basis of ``ker G_t`` (6k − 6 columns), from one
batched SVD. Since ``p_t ⟂ N_t``, the regularisation becomes ``ε (‖p_t‖² + ‖z_t‖²)`` and the
smoothing couples only neighbouring frames: the reduced Hessian is block-tridiagonal with
``(6k − 6)``-square blocks, and :mod:`.ipm` solves it in time linear in N.

Units are scaled before the solve — forces by the largest root-row right-hand side (about
the robot's weight), the objective by its mean curvature — so that the interior-point method
sees numbers of order one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..contacts import PlanarContact
from ..errors import SolverError
from .frames import WRENCH_SIZE, FrameData
from .ipm import BlockTridiagonalQP, solve, solve_unconstrained, times, transposed_times

#: Scaled KKT residual accepted when the interior-point iterations stall before their tolerance.
ACCEPTABLE_RESIDUAL = 1e-6

#: The root rows are taken as degenerate below this ratio of smallest to largest singular value.
RANK_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Weights:
    """``torque`` = w_τ (1/(N·m)²), ``smoothing`` = w_s (1/N²), ``regularization`` = ε (1/N²)."""

    torque: float
    smoothing: float
    regularization: float


def contact_bound_rows(count: int, friction: float | None, soles: list) -> np.ndarray:
    """The rows ``C`` of ``C f ≤ 0`` for ``count`` contacts (block-diagonal).

    Per contact, with ``friction = μ``: ``f_z ≥ 0`` and the pyramid inscribed in the Coulomb
    cone (``|f_x|, |f_y| ≤ μ/√2 f_z``); with a sole ``(length, width)`` also the centre of
    pressure in the rectangle (``|m_y| ≤ l/2 f_z``, ``|m_x| ≤ w/2 f_z``) and the torsion
    ``|m_z| ≤ μ min(l, w)/2 f_z`` — the rows of :class:`~tsid_py.PlanarContact`. No rows when
    ``friction`` is None.
    """
    if friction is None or count == 0:
        return np.zeros((0, WRENCH_SIZE * count))
    unilateral = np.zeros((1, WRENCH_SIZE))
    unilateral[0, 2] = -1.0
    blocks = []
    for j, sole in enumerate(soles):
        length, width = sole if sole is not None else (1.0, 1.0)
        rows = PlanarContact(f"contact {j}", length=length, width=width, mu=friction).friction_matrix
        rows = np.vstack([unilateral, rows if sole is not None else rows[:4]])    # [:4]: the pyramid
        block = np.zeros((len(rows), WRENCH_SIZE * count))
        block[:, WRENCH_SIZE * j:WRENCH_SIZE * (j + 1)] = rows
        blocks.append(block)
    return np.vstack(blocks)


@dataclass
class Reduction:
    """``f_t = p_t + N_t z_t``: ``particular`` (N, 6k), ``basis`` (N, 6k, 6k − 6). Where
    contacts are inactive (a contact schedule) the basis has fewer columns; it is padded with
    zero columns, the ``padding`` (N, 6k − 6) directions of z, which move no wrench and are
    held at 0. ``unbalanced`` (N,) marks frames without an active contact, whose root rows
    cannot hold (their residual is reported)."""

    particular: np.ndarray
    basis: np.ndarray
    padding: np.ndarray | None = None
    unbalanced: np.ndarray | None = None

    def wrenches(self, z: np.ndarray) -> np.ndarray:
        return self.particular + times(self.basis, z)


def reduce_root_rows(data: FrameData, active: np.ndarray | None = None) -> Reduction:
    """Minimal-norm solutions and kernels of the root rows, one batched SVD for each pattern
    of ``active`` contacts (N, k) booleans (all active by default)."""
    count, size = data.root_matrix.shape[0], data.root_matrix.shape[2]
    if active is None or active.all():
        return _reduce(data.root_matrix, data.root_rhs, np.arange(count))
    kernel = max(size - 6, 0)
    reduction = Reduction(np.zeros((count, size)), np.zeros((count, size, kernel)),
                          np.ones((count, kernel), dtype=bool), np.zeros(count, dtype=bool))
    for pattern in np.unique(active, axis=0):
        frames = np.flatnonzero(np.all(active == pattern, axis=1))
        columns = np.flatnonzero(np.repeat(pattern, WRENCH_SIZE))
        if not pattern.any():
            reduction.unbalanced[frames] = True
            continue
        part = _reduce(data.root_matrix[frames][:, :, columns], data.root_rhs[frames], frames)
        width = part.basis.shape[2]
        reduction.particular[np.ix_(frames, columns)] = part.particular
        reduction.basis[frames[:, None, None], columns[None, :, None], np.arange(width)[None, None, :]] = part.basis
        reduction.padding[frames, :width] = False
    return reduction


def _reduce(matrix: np.ndarray, rhs: np.ndarray, frames: np.ndarray) -> Reduction:
    U, S, Vt = np.linalg.svd(matrix, full_matrices=True)
    degenerate = np.flatnonzero(S[:, -1] <= RANK_TOLERANCE * S[:, 0])
    if degenerate.size:
        raise SolverError(f"the contacts cannot balance the root rows at frames {frames[degenerate][:10].tolist()} "
                          "(their Jacobians' root columns are rank-deficient)", "degenerate")
    rows = S.shape[1]
    coefficients = transposed_times(U, rhs) / S
    particular = transposed_times(Vt[:, :rows], coefficients)
    return Reduction(particular, np.transpose(Vt[:, rows:], (0, 2, 1)))


def smoothing_blocks(data: FrameData, reduction: Reduction):
    """``B_t = R_t N_t`` (N, 6k, n) and ``c_t = R_t p_t`` (N, 6k): the world wrenches are
    ``B_t z_t + c_t``."""
    count, k = data.rotations.shape[:2]
    R = np.zeros((count, WRENCH_SIZE * k, WRENCH_SIZE * k))
    for j in range(k):
        for half in (0, 3):
            start = WRENCH_SIZE * j + half
            R[:, start:start + 3, start:start + 3] = data.rotations[:, j]
    return np.matmul(R, reduction.basis), times(R, reduction.particular)


@dataclass
class StackedSolution:
    local: np.ndarray          # (N, 6k) local wrenches
    slack: np.ndarray          # (N, r) elastic slacks, N (scaled back)
    iterations: int            # interior-point iterations, all solves together
    smoothing: np.ndarray      # (N−1,) the smoothing weight of each pair of frames (t, t+1)

    def relaxed_frames(self, tolerance: float) -> np.ndarray:
        """Frames with a slack above ``tolerance`` (N)."""
        if not self.slack.size:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(np.any(self.slack > tolerance, axis=1))


def solve_stacked(data: FrameData, weights: Weights, bounds: np.ndarray, *, penalty: float,
                  relaxation_tolerance: float, curvature: float = 1.0, tolerance: float = 1e-9,
                  progress=None, active: np.ndarray | None = None) -> StackedSolution:
    """Solve the stacked problem; ``bounds`` is ``C`` (r, 6k). The bound rows are elastic:
    ``C f_t ≤ s_t``, ``s_t ≥ 0`` at a cost ``penalty Σ s + ½ curvature Σ s²`` in the scaled
    units (see the module docstring and :mod:`.ipm`).

    **Impacts.** If some frames come out relaxed (a slack above ``relaxation_tolerance``, N),
    the frames whose bounds cannot hold *on their own* are found (:func:`_infeasible_frames`)
    and the problem is solved again without the smoothing pairs that touch them: at an
    impact the true wrench jumps, and smoothing across it would pull the neighbouring frames
    off their bounds (an impact's multipliers grow with its size, past any fixed penalty).
    ``StackedSolution.smoothing`` tells which pairs were kept.

    ``active`` (N, k) booleans: which contacts may carry a wrench at each frame (a contact
    schedule); an inactive contact's wrench is 0 and its bound rows are dropped.
    """
    reduction = reduce_root_rows(data, active)
    count, size = reduction.basis.shape[0], reduction.basis.shape[2]
    force_scale = float(np.abs(data.root_rhs).max()) or 1.0
    pairs = np.full(max(count - 1, 0), weights.smoothing)
    if size == 0:                                # one contact (or none): the wrenches are determined
        slack = np.maximum(reduction.particular @ bounds.T, 0.0)
        return StackedSolution(reduction.particular, slack, 0, pairs)
    rows = np.matmul(bounds, reduction.basis)                      # E_t = C N_t
    limits = -(reduction.particular / force_scale) @ bounds.T      # h_t = −C p_t (scaled)
    if active is not None and bounds.size:                         # inactive contacts: 0 ≤ 1, never binding
        owner = np.argmax(np.abs(bounds).reshape(len(bounds), -1, WRENCH_SIZE).sum(axis=2), axis=1)
        limits = np.where(active[:, owner], limits, 1.0)

    def solve_with(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        problem = reduced_problem(data, reduction, weights, pairs, force_scale, rows, limits, penalty, curvature)
        if reduction.padding is not None:            # padded directions: ½‖z‖², held at 0
            frames, directions = np.nonzero(reduction.padding)
            problem.diagonal[frames, directions, directions] += 1.0
        return _solve(problem, tolerance, progress)

    z, slack, iterations = solve_with(pairs)
    solution = StackedSolution(reduction.wrenches(z * force_scale), slack * force_scale, iterations, pairs)
    if weights.smoothing > 0 and solution.relaxed_frames(relaxation_tolerance).size:
        infeasible = _infeasible_frames(rows, limits, penalty, curvature, tolerance, relaxation_tolerance / force_scale)
        cut = np.isin(np.arange(count - 1), infeasible) | np.isin(np.arange(1, count), infeasible)
        if cut.any():
            pairs = np.where(cut, 0.0, pairs)
            z, slack, more = solve_with(pairs)
            solution = StackedSolution(reduction.wrenches(z * force_scale), slack * force_scale,
                                       iterations + more, pairs)
    return solution


def reduced_problem(data: FrameData, reduction: Reduction, weights: Weights, pairs: np.ndarray,
                     force_scale: float, rows: np.ndarray, limits: np.ndarray, penalty: float,
                     curvature: float) -> BlockTridiagonalQP:
    """The problem in z (forces scaled by ``force_scale``, the objective by its mean
    curvature), with smoothing weight ``pairs[t]`` between frames t and t+1; ``rows`` and
    ``limits`` are ``E_t = C N_t`` and ``h_t = −C p_t / force_scale``."""
    count, size = reduction.basis.shape[0], reduction.basis.shape[2]
    p = reduction.particular / force_scale
    # Torque and regularisation terms, frame by frame (p ⟂ N: no cross term in ε‖f‖²).
    A = np.matmul(data.torque_matrix, reduction.basis)          # T_t N_t
    a = times(data.torque_matrix, p) + data.torque_offset / force_scale
    diagonal = 2 * weights.torque * np.matmul(A.transpose(0, 2, 1), A)
    diagonal += 2 * weights.regularization * np.eye(size)
    gradient = 2 * weights.torque * transposed_times(A, a)
    coupling = np.zeros((max(count - 1, 0), size, size))
    if np.any(pairs > 0):
        B, c = smoothing_blocks(data, reduction)
        jump = (c[1:] - c[:-1]) / force_scale                   # Δc_t, t = 1 … N−1
        adjacent = np.zeros(count)                              # Σ of the pair weights at each frame
        adjacent[1:] += pairs
        adjacent[:-1] += pairs
        diagonal += 2 * adjacent[:, None, None] * np.matmul(B.transpose(0, 2, 1), B)
        coupling = -2 * pairs[:, None, None] * np.matmul(B[1:].transpose(0, 2, 1), B[:-1])
        gradient[1:] += 2 * pairs[:, None] * transposed_times(B[1:], jump)
        gradient[:-1] -= 2 * pairs[:, None] * transposed_times(B[:-1], jump)
    scale = float(np.mean(np.trace(diagonal, axis1=1, axis2=2))) / size      # the objective's mean curvature
    return BlockTridiagonalQP(diagonal / scale, coupling / scale, gradient / scale, rows, limits, penalty, curvature)


def _solve(problem: BlockTridiagonalQP, tolerance: float, progress) -> tuple[np.ndarray, np.ndarray, int]:
    """``(z, s, iterations)`` of ``problem`` (no rows: one banded solve)."""
    if problem.rows.shape[1] == 0:
        return solve_unconstrained(problem), np.zeros(problem.bounds.shape), 1
    result = solve(problem, tolerance=tolerance, progress=progress)
    if result.residual > ACCEPTABLE_RESIDUAL:
        raise SolverError(f"the over-time interior-point method did not converge in {result.iterations} "
                          f"iterations (scaled residual {result.residual:.1e})", "max_iterations")
    return result.z, result.slack, result.iterations


def _infeasible_frames(rows: np.ndarray, limits: np.ndarray, penalty: float, curvature: float, tolerance: float,
                       slack_tolerance: float) -> np.ndarray:
    """Frames whose bounds ``E_t z ≤ h_t`` cannot hold whatever the objective: the same
    elastic rows with only ``½‖z‖²`` as the cost, so that every frame is on its own and no
    multiplier comes near the penalty unless the frame is infeasible."""
    count, _, size = rows.shape
    problem = BlockTridiagonalQP(np.broadcast_to(np.eye(size), (count, size, size)).copy(),
                                 np.zeros((max(count - 1, 0), size, size)), np.zeros((count, size)), rows, limits,
                                 penalty, curvature)
    result = solve(problem, tolerance=tolerance)
    return np.flatnonzero(np.any(result.slack > slack_tolerance, axis=1))
