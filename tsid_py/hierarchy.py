r"""Strict priorities: a QP with levels (:attr:`tsid_py.qp.QP.levels`), solved one level at a
time, each level's optimum held fixed for the levels below it.

The lexicographic problem
-------------------------
Level 0 is the QP's hard rows, ``A x = b``, ``l ≤ C x ≤ u`` and ``lb ≤ x ≤ ub``: the set
``S₀`` of the points that meet them. Level ``k = 1 … K`` (a :class:`~tsid_py.qp.Level`) has
cost rows ``R_k x − s_k`` (tasks and contacts at that level, scaled by √weight) and inequality
rows ``l_k ≤ C_k x ≤ u_k`` (constraints at that level) whose violation, a slack ``w``, is
weighted by ``ω``:

.. math::

    φ_k(x) &= \lVert R_k x − s_k \rVert² + \sum_i ω_i w_i(x)², \qquad
    w_i(x) = c_iᵀx − \operatorname{clip}(c_iᵀx, l_i, u_i) \\
    S_k &= \operatorname{argmin} \{ φ_k(x) : x ∈ S_{k−1} \}, \qquad k = 1 … K \\
    x^* &= \operatorname{argmin} \{ \lVert R x − s \rVert² + \textstyle\sum_j d_j x_j² − 2eᵀx
    \ (+ \text{soft slack}) : x ∈ S_K \}

The last problem is the soft level, the QP's own cost (``"soft"`` items and the
regularisation), strictly convex: ``x*`` is unique. Every point of ``S_k`` is optimal for
levels 1 … k, so a level never degrades a level above it, and only the hard rows can make the
problem infeasible: a level that cannot be met gives way (its residual is reported) and
leaves the levels above it exact.

Each level's optimum, an equality for the next
----------------------------------------------
``φ_k`` is a strictly convex function of ``(y, w) = (R_k x, w(x))``, so although a level's
minimisers ``x`` are many, ``y*`` and ``w*`` are unique, and

.. math::

    S_k = \{ x ∈ S_{k−1} : R_k x = y^*,\ w(x) = w^* \}.

So each solved level adds rows to the next: its cost rows, and its inequality rows that it
had to violate (``w*ᵢ ≠ 0``), become equalities at their values at the level's answer
``x_k``; its rows that hold keep their bounds, widened to contain ``x_k`` (a fixed slack,
which keeps ``x_k`` feasible for the next level to the last digit). The hard rows and the
variables' bounds are kept as they are, but ``x_k`` meets them only within the backend's
tolerance (an active torque limit by 3.5e-10, measured), and when the equalities leave the
next level no room along such a row (Talos's hand, CoM and posture as three levels: six
free directions, none along that limit) its QP is infeasible by that much. A level's QP the
backend refuses is therefore solved once more with the hard rows' and the box's bounds
widened to contain every answer so far: they move by at most the tolerance each answer was
accepted with (:data:`~tsid_py.backends.base.FEASIBILITY_TOLERANCE`). Only then: widened
from the start, the final answer would carry the levels' own tolerance (a level's answer
1.2e-6 outside a row moved it by 3e-6). The equalities are not
added as they are — rows of a level that conflicts with a higher one depend on the rows
before them — but through the null space of the equalities so far: with ``Q`` an orthonormal
basis of their row space (the hard rows' to begin with), the level's rows, each scaled to unit
norm (``N``) and projected on the null space, ``P = N R_k (I − QQᵀ)``, have a column-pivoted QR
``Pᵀ = V T Πᵀ``; the columns of ``V`` whose pivot ``|T_ii|`` exceeds ``10⁻⁹`` become the new
equality rows ``F = V₁ᵀ``, ``F x = F x_k``, and join ``Q``. The rows ``F`` are orthonormal and
independent of the rows before them, and consistent by construction (``x_k`` satisfies them
exactly). A direction along which a level's unit rows move by less than about ``10⁻⁹`` in the
remaining null space is left free (a singular task does not lock the levels below it). When
nothing is left free, ``x`` is determined and the remaining levels only report.

Each level's QP
---------------
Level ``k`` is the QP, over ``x`` and its slack ``w``,

.. math::

    \min_{x, w}\ & \lVert R_k x − s_k \rVert² + \sum_i ω_i w_i² + ε \lVert x − x_c \rVert²_M \\
    \text{subject to}\ & A x = b, \quad F x = f \text{ (levels above)}, \quad \text{the hard rows}, \\
    & \text{the levels above's inequality rows (fixed slack)}, \quad l_k ≤ C_k x − w ≤ u_k

handed to the solver's backend like any QP, so that each level's answer is checked against
the hard rows like every answer. ``φ_k`` alone is only positive semidefinite (three rows of
a hand task over thirty free variables); the proximal term ``ε ‖x − x_c‖²_M`` (``M``: 1 per
(rad/s²)² on q̈, :data:`PROXIMAL_FORCE_METRIC` per N² on the contact variables; ``ε`` the
backend's :attr:`~tsid_py.backends.Backend.proximal_weight`) makes it strictly convex, and the
proximal-point iteration ``x_c ← x`` removes its bias: at its answer ``x`` the level is exactly
optimal for ``φ_k`` perturbed by the linear term ``2εM(x − x_c)``, which the iteration drives to
0 (each solve shrinks the distance to the level's optimum by about ``ε/(ε + σ²)``, ``σ²`` the
level's curvature); it stops when that gradient is below :data:`STATIONARITY_TOLERANCE`
(relative), and so is what the next steps would add at the rate the last ones shrank: with
the reduced backend's ``ε = 10⁻¹⁰``, at the first or second solve. Its first centre
is the answer of the level above (for level 1, the previous step's answer): the levels are
warm-started across levels, and each level keeps its own backend (a copy of the solver's),
warm-started from that level's previous step.

Cost per level: one or two backend solves with ``m + Σ ρ_j`` equalities (``ρ_j`` the rank a
level fixed) and the hard and carried inequality rows, and one column-pivoted QR of the level's rows in the
null space (``rows × n``). The default problem (no level) never comes here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .backends.base import FEASIBILITY_TOLERANCE, Backend, QPResult, constraint_violation
from .qp import QP, LeastSquaresCost, Level

#: The proximal metric ``M`` on the contact variables, per N², relative to 1 per (rad/s²)² on
#: q̈ (the ratio of the default force and acceleration regularisations); ``ε`` is the
#: backend's :attr:`~tsid_py.backends.Backend.proximal_weight`.
PROXIMAL_FORCE_METRIC = 1e-3
#: The proximal iteration stops when ``‖2εM(x − x_c)‖∞ ≤ STATIONARITY_TOLERANCE (1 + ‖2R̂ᵀŝ‖∞)``:
#: the level's answer is then optimal for a cost whose gradient differs from ``φ_k``'s by that.
STATIONARITY_TOLERANCE = 1e-12
#: Most proximal steps a level takes: a level whose iteration has not converged then fails
#: (a :class:`~tsid_py.SolverError` naming it, which the failure policy answers by dropping it).
MAX_PROXIMAL_STEPS = 10
#: Pivots of a level's unit rows projected on the null space (column-pivoted QR) above which a
#: direction is fixed; also the hard rows' rank.
RANK_TOLERANCE = 1e-9
#: A level is met (did not give way) when its residual and its weighted violation are at most
#: this times ``1 + ‖s‖∞`` (resp. 1 + the largest finite bound of its rows).
MET_TOLERANCE = 1e-6


@dataclass(frozen=True)
class LevelOutcome:
    """How one level ended: its ``priority``, ``residual`` ``‖R x − s‖`` (√weight-scaled rows
    at the answer), ``violation`` ``‖√ω w‖`` (its inequality rows' weighted slack), whether it
    was ``met`` (both ≈ 0: it did not give way) and the backend solves it took."""

    priority: int | str
    residual: float
    violation: float
    met: bool
    solves: int = 0

    @property
    def gave_way(self) -> bool:
        """Whether the level could not be met given the levels above it and the hard rows."""
        return not self.met


@dataclass
class HierarchyResult(QPResult):
    """A :class:`~tsid_py.backends.QPResult` (``x`` over the QP's own variables) with the
    levels' outcomes; on failure, the ``failed_level`` whose QP had no usable answer (``None``:
    the first QP solved, so the hard rows may be infeasible) and that QP (``failed_qp``)."""

    levels: tuple[LevelOutcome, ...] = ()
    failed_level: Level | None = None
    failed_qp: QP | None = None
    first_failed: bool = False


def accepted(backend: Backend, qp: QP, result: QPResult) -> bool:
    """Whether ``result`` is a usable answer to ``qp``: a success, finite, and within
    :data:`~tsid_py.backends.base.FEASIBILITY_TOLERANCE` of every constraint (checked here
    unless the backend checks every row itself)."""
    if not result.success or result.x is None or not np.all(np.isfinite(result.x)):
        return False
    return backend.checks_constraints or constraint_violation(qp, result.x) <= FEASIBILITY_TOLERANCE


class _Equalities:
    """The equality rows of a lexicographic solve so far — the hard ``A x = b``, then the rows
    that fix each solved level's optimum — and ``Q``, an orthonormal basis of their row space
    (the null space ``Z`` of the module docstring is its orthogonal complement, never formed)."""

    def __init__(self, A: np.ndarray, b: np.ndarray):
        self.A, self.b = A, b
        self.added: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        n = A.shape[1]
        if A.shape[0]:
            Q, R, _ = scipy.linalg.qr(_unit_rows(A).T, mode="economic", pivoting=True, overwrite_a=True,
                                      check_finite=False)
            self.Q = Q[:, : int(np.sum(np.abs(np.diagonal(R)) > RANK_TOLERANCE))]
        else:
            self.Q = np.zeros((n, 0))

    @property
    def free(self) -> int:
        """Dimension of the null space left."""
        return self.Q.shape[0] - self.Q.shape[1]

    def matrix(self, columns: int) -> tuple[np.ndarray, np.ndarray]:
        """``[A; F]`` and ``[b; f]``, padded with zero columns to ``columns`` variables."""
        rows = np.vstack([self.A, *self.added])
        padded = np.zeros((rows.shape[0], columns))
        padded[:, : rows.shape[1]] = rows
        return padded, np.concatenate([self.b, *self.values])

    def fix(self, rows: np.ndarray, x: np.ndarray) -> None:
        """Hold the values of ``rows x`` at ``x`` for the levels below: their directions in the
        null space become orthonormal equality rows ``F``, ``F x = F x_k`` (module docstring:
        a column-pivoted QR of the unit rows projected on the null space, ``N R (I − QQᵀ)``,
        gives ``F``, the rows whose pivot exceeds :data:`RANK_TOLERANCE`)."""
        if rows.shape[0] == 0 or self.free == 0:
            return
        unit = _unit_rows(rows)
        projected = unit - (unit @ self.Q) @ self.Q.T
        basis, R, _ = scipy.linalg.qr(projected.T, mode="economic", pivoting=True, overwrite_a=True,
                                      check_finite=False)      # (the level's answer was finite)
        F = basis[:, : int(np.sum(np.abs(np.diagonal(R)) > RANK_TOLERANCE))].T
        if F.shape[0]:
            self.added.append(F)
            self.values.append(F @ x)
            self.Q = np.hstack([self.Q, F.T])


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row divided by its norm (zero rows left as they are)."""
    norms = np.linalg.norm(rows, axis=1)
    return rows / np.where(norms > 0, norms, 1.0)[:, None]


def slack(level: Level, x: np.ndarray) -> np.ndarray:
    """``w(x)``: how far each of the level's inequality rows is beyond its bounds at ``x``."""
    values = level.C @ x
    return values - np.clip(values, level.l, level.u)


def outcome(level: Level, x: np.ndarray, solves: int) -> LevelOutcome:
    """The level's residual and violation at ``x``, and whether it was met."""
    residual = float(np.linalg.norm(level.R @ x - level.s))
    scale = 1.0 + np.abs(level.s).max(initial=0.0)
    violation = 0.0
    if level.C.shape[0]:
        violation = float(np.linalg.norm(np.sqrt(level.slack_weight) * slack(level, x)))
        bounds = np.concatenate([level.l, level.u])
        scale = max(scale, 1.0 + np.abs(bounds[np.isfinite(bounds)]).max(initial=0.0))
    return LevelOutcome(level.priority, residual, violation, bool(max(residual, violation) <= MET_TOLERANCE * scale),
                        solves)


class Hierarchy:
    """Solves QPs with levels (see the module): one per solver, which keeps a copy of the
    solver's backend per level (warm-started from that level's previous step) and the last
    answer (the first level's proximal centre)."""

    def __init__(self):
        self._source: Backend | None = None
        self._backends: dict = {}                 # by priority
        self._last_x: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the warm starts (the levels' backends and the last answer)."""
        self._backends, self._last_x = {}, None

    def _backend(self, priority: int, backend: Backend) -> Backend:
        """The copy of ``backend`` that solves level ``priority`` (new copies when the solver's
        backend changed)."""
        if backend is not self._source:
            self._source, self._backends = backend, {}
        if priority not in self._backends:
            self._backends[priority] = copy.deepcopy(backend)
        return self._backends[priority]

    def solve(self, qp: QP, nv: int, backend: Backend, levels_from: int | None = None) -> HierarchyResult:
        """``qp``'s lexicographic answer (``nv``: the accelerations' count, the first
        variables; the rest are contact variables). The soft level is solved by ``backend``
        itself, the levels above by copies of it; ``ValueError`` if ``backend`` refuses
        levels (its ``proximal_weight`` is None). ``levels_from``: leave the levels
        ``levels_from, …`` out (a step's :meth:`~tsid_py.overrides.StepOverrides.drop_levels`)."""
        if qp.cost is None:
            raise ValueError("a QP with levels needs its cost in factored form (QP(cost=LeastSquaresCost))")
        weight = getattr(backend, "proximal_weight", None)
        if weight is None:
            raise ValueError(f"qp_solver {backend.name!r} does not solve priority levels (see its proximal_weight); "
                             "use 'reduced' (the default) or 'daqp', or make every item 'hard' or 'soft'")
        n = qp.n
        metric = np.full(n, weight * PROXIMAL_FORCE_METRIC)
        metric[:nv] = weight
        equalities = _Equalities(qp.A, qp.b)
        carried: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []     # levels above: C, l, u
        hard = _HardBounds(qp)                       # the hard rows' and box's bounds (widened: see the module)
        center = self._last_x if self._last_x is not None and self._last_x.size == n else np.zeros(n)
        levels = [level for level in qp.levels if level.priority != "soft"
                  and (levels_from is None or level.priority < levels_from)]
        soft = [level for level in qp.levels if level.priority == "soft"]
        outcomes, iterations = [], 0
        for index, level in enumerate(levels):
            if equalities.free == 0:                 # x is determined: the level only reports
                outcomes.append(outcome(level, center, 0))
                continue
            level_backend = self._backend(level.priority, backend)
            cost = LeastSquaresCost(level.R, level.s, metric, metric * center)
            level_qp = _level_qp(qp, hard, equalities, carried, cost, level)
            scale = 1.0 + np.abs(2.0 * (level.R.T @ level.s)).max(initial=0.0)
            solves, previous = 0, np.inf
            while True:
                solves += 1
                result = level_backend.solve(level_qp)
                iterations += result.iterations
                if not accepted(level_backend, level_qp, result) and hard.widen():
                    level_backend.reset()
                    cost = LeastSquaresCost(level.R, level.s, metric, metric * center)
                    level_qp = _level_qp(qp, hard, equalities, carried, cost, level)
                    result = level_backend.solve(level_qp)
                    iterations += result.iterations
                if not accepted(level_backend, level_qp, result):
                    level_backend.reset()
                    return self._failed(qp, level, level_qp, result, tuple(outcomes), first=index == 0)
                x = result.x[:n].copy()
                moved = np.abs(2.0 * metric * (x - center)).max()
                center = x
                if _converged(moved, previous, STATIONARITY_TOLERANCE * scale):
                    break
                if solves == MAX_PROXIMAL_STEPS:
                    result.status = (f"the proximal iteration did not converge in {solves} solves (last step's "
                                     f"gradient {moved:.3g}; {result.status})")
                    return self._failed(qp, level, level_qp, result, tuple(outcomes), first=False)
                previous = moved
                level_qp.cost.e[:n] = metric * center        # the next proximal step's centre
                level_qp.cost_changed()
            outcomes.append(outcome(level, x, solves))
            carried.append(_fix(equalities, level, x))
            hard.contain(x)
        final = _level_qp(qp, hard, equalities, carried, qp.cost, soft[0] if soft else None)
        result = backend.solve(final)
        iterations += result.iterations
        if not accepted(backend, final, result) and hard.widen():
            backend.reset()
            final = _level_qp(qp, hard, equalities, carried, qp.cost, soft[0] if soft else None)
            result = backend.solve(final)
            iterations += result.iterations
        if not accepted(backend, final, result):
            backend.reset()
            return self._failed(qp, soft[0] if soft else None, final, result, tuple(outcomes), first=not levels)
        x = result.x[:n].copy()
        if soft:
            outcomes.append(outcome(soft[0], x, 1))
        self._last_x = x
        given_way = [item.priority for item in outcomes if item.gave_way]
        status = (f"{len(outcomes)} levels solved"
                  + (f" (gave way: {', '.join(f'level {p}' for p in given_way)})" if given_way else "")
                  + f"; soft level: {result.status}")
        return HierarchyResult(x, status, True, iterations, levels=tuple(outcomes))

    def _failed(self, qp: QP, level: Level | None, level_qp: QP, result: QPResult, outcomes, first: bool):
        self._last_x = None
        name = level.name if level is not None else "soft level"
        return HierarchyResult(np.full(qp.n, np.nan), f"{name}: {result.status}", False, result.iterations,
                               levels=outcomes, failed_level=level, failed_qp=level_qp, first_failed=first)


def _converged(moved: float, previous: float, tolerance: float) -> bool:
    """Whether the proximal iteration has converged: the last step's gradient ``moved`` is
    below ``tolerance``, and so is what the remaining steps would add if they shrink as the
    last one did (a geometric series of ratio ``moved / previous``; ``previous`` is inf after
    the first solve, whose step is then the whole estimate)."""
    if moved > tolerance:
        return False
    ratio = moved / previous
    return ratio < 1.0 and moved * ratio / (1.0 - ratio) <= tolerance


def _fix(equalities: _Equalities, level: Level, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hold a solved level's optimum for the levels below: its cost rows and violated
    inequality rows become equalities; the inequality rows that hold are returned with their
    bounds widened to contain ``x`` (the fixed slack)."""
    if level.C.shape[0] == 0:                   # cost rows only (the usual task level)
        equalities.fix(level.R, x)
        return level.C, level.l, level.u
    values = level.C @ x
    w = values - np.clip(values, level.l, level.u)
    bounds = np.abs(np.where(w > 0, level.u, level.l))
    violated = np.abs(w) > MET_TOLERANCE * (1.0 + np.where(np.isfinite(bounds), bounds, 0.0))
    equalities.fix(np.vstack([level.R, level.C[violated]]), x)
    holds = ~violated
    return level.C[holds], np.minimum(level.l[holds], values[holds]), np.maximum(level.u[holds], values[holds])


class _HardBounds:
    """The bounds of a QP's hard rows ``l ≤ C x ≤ u`` and of its variables ``lb ≤ x ≤ ub`` that
    its levels' QPs use: the QP's own, or, once :meth:`widen` is asked, the smallest that
    contain every level's answer so far (see the module: "Each level's optimum")."""

    def __init__(self, qp: QP):
        self.C, self.l, self.u, self.lb, self.ub = qp.C, qp.l, qp.u, qp.lb, qp.ub
        self._containing = [qp.l, qp.u, qp.lb, qp.ub]
        self.widened = False

    def contain(self, x: np.ndarray) -> None:
        """Note a level's answer ``x`` (n,): the widened bounds contain it."""
        bounds = self._containing
        if self.C.shape[0]:
            values = self.C @ x
            bounds[0], bounds[1] = np.minimum(bounds[0], values), np.maximum(bounds[1], values)
        if self.lb is not None:
            bounds[2], bounds[3] = np.minimum(bounds[2], x), np.maximum(bounds[3], x)
        if self.widened:
            self.l, self.u, self.lb, self.ub = bounds

    def widen(self) -> bool:
        """Use the bounds that contain the answers so far from now on; whether that changed
        any (False: already widened, or every answer within the QP's own bounds)."""
        if self.widened:
            return False
        self.widened = True
        changed = any(own is not None and not np.array_equal(own, wide)
                      for own, wide in zip((self.l, self.u, self.lb, self.ub), self._containing))
        self.l, self.u, self.lb, self.ub = self._containing
        return changed


def _level_qp(qp: QP, hard: _HardBounds, equalities: _Equalities, carried, cost: LeastSquaresCost,
              level: Level | None) -> QP:
    """The QP of one level over ``[x; w]`` (``w``: the slack of ``level``'s inequality rows, if
    any): ``cost`` on ``x`` plus ``Σ ωᵢ wᵢ²``, the equalities so far, the ``hard`` rows and
    bounds, the rows ``carried`` from the levels above and ``l ≤ C x − w ≤ u``; its rows stacked
    with the box (``QP.stacked``, as the layout hands its own QP over), in C order for the
    compiled paths."""
    n = qp.n
    m = 0 if level is None else level.C.shape[0]
    size = n + m
    A, b = equalities.matrix(size)
    box = qp.bounded_variables()
    blocks = [(hard.C, hard.l, hard.u), *carried]
    rows = sum(block[0].shape[0] for block in blocks) + m
    C = np.zeros((rows + box.size, size))
    lower, upper = np.empty(rows + box.size), np.empty(rows + box.size)
    row = 0
    for block, lo, hi in blocks:
        C[row:row + block.shape[0], :n] = block
        lower[row:row + block.shape[0]], upper[row:row + block.shape[0]] = lo, hi
        row += block.shape[0]
    if m:
        C[row:rows, :n] = level.C
        C[row:rows, n:] = -np.eye(m)
        lower[row:rows], upper[row:rows] = level.l, level.u
    C[np.arange(rows, rows + box.size), box] = 1.0
    R = np.zeros((cost.R.shape[0], size))
    R[:, :n] = cost.R
    d, e = np.zeros(size), np.zeros(size)
    d[:n], e[:n] = cost.d, cost.e
    if m:
        d[n:] = level.slack_weight
    bounds = (None, None)
    if hard.lb is not None:
        bounds = (np.concatenate([hard.lb, np.full(m, -np.inf)]), np.concatenate([hard.ub, np.full(m, np.inf)]))
    return QP(None, None, A, b, C[:rows], lower[:rows], upper[:rows], *bounds,
              cost=LeastSquaresCost(R, np.ascontiguousarray(cost.s), d, e),
              stacked=(C, lower, upper, box) if qp.lb is not None else None)
