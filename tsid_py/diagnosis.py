"""Why a QP failed: decide exactly whether its hard constraints are feasible, and if not,
find an irreducible set of conflicting groups.

The hard constraints of a :class:`~tsid_py.qp.QP` are ``A x = b`` and ``l ≤ C x ≤ u``
(the box appended as unit rows); every row carries the label of the group it belongs to
(:attr:`tsid_py.assembly.Layout.labels`: ``"torque limits"``, ``"task CoMTask"``, …).

**Scaling.** Each row is divided by its Euclidean norm (``aᵢ x = bᵢ`` becomes
``(aᵢ/‖aᵢ‖) x = bᵢ/‖aᵢ‖``), and all right-hand sides by ``σ = max(1, max|rhs| / 10⁶)``
(i.e. ``x`` is measured in units of σ), which changes no answer to "is it feasible?" but
keeps the numbers a solver sees bounded, even at v = 1e150. Non-finite coefficients or
bounds (NaN, ±inf outside the "unbounded" sides) are not scaled: they are reported as their
own error, naming the groups whose rows hold them.

**Feasibility test** of a subset S of the groups (exact, finite):

1. Equalities by SVD: ``A_S = U Σ Vᵀ`` with rank r (σᵢ > 10⁻⁹); the least-norm solution
   ``x₀ = V_r Σ_r⁻¹ U_rᵀ b_S`` must satisfy ``A_S x₀ = b_S`` (else infeasible), and every
   solution is ``x = x₀ + N z`` with ``N = V_{r:}`` spanning the null space.
2. Inequalities in z: ``l_S − C_S x₀ ≤ (C_S N) z ≤ u_S − C_S x₀``, rows rescaled to unit
   norm (rows whose norm vanishes are constants, checked directly), decided by one DAQP
   solve of ``min ½‖z‖²`` — a strictly convex QP, so DAQP's dual active-set method ends in
   finitely many steps with "optimal" or "primal infeasible". An undecided answer (iteration
   limit, cycling) is settled by a HiGHS linear program over the same rows.

**Deletion filter.** Start from every group present (an infeasible set) and try to drop
each group in turn: if the rest stays infeasible, drop it for good; otherwise it is needed.
What is left is infeasible, and dropping any one member makes it feasible — an
irreducible infeasible subsystem at the level of groups. Groups are tried in row order
(equation of motion, no-slip rows, hard tasks, then contact rows, limits and the box), so
when several irreducible sets exist the one named keeps the later groups. A box row bounded
by several constraints (``"joint position limits / velocity limits"``) is one group. The cost
is one feasibility test per group (0.1–1 ms each on Talos; ``benchmarks/diagnosis_time.py``);
a time limit is checked between tests and the search can be resumed where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from time import perf_counter

import numpy as np

from .backends.base import constraint_violation
from .errors import InfeasibleError, SolverError
from .qp import QP

#: Right-hand sides are scaled down to at most this magnitude (x measured in larger units).
LARGEST_RHS = 1e6
#: Singular values (of unit rows) below this mark dependent equality rows.
RANK_TOLERANCE = 1e-9
#: Residual (of unit rows, relative to max(1, |rhs|)) under which a row counts as satisfied.
FEASIBILITY_TOLERANCE = 1e-7
#: DAQP stand-in for an infinite bound.
_INFINITE = 1e30
_DAQP_ITERATIONS = 5000


def step_failure(solver, layout, qp: QP, result) -> SolverError:
    """The error for ``solver``'s step without a usable answer (``result``, the backend's
    :class:`~tsid_py.backends.QPResult` for ``qp``, built by ``layout``): non-finite data
    named by its items; an answer that misses the hard constraints; a level's QP that failed
    below solved levels (:func:`level_failure`); else the diagnosis's (:func:`failure`), or a
    plain :class:`SolverError` when the solver was built with ``diagnose=False``."""
    sources = layout.non_finite_sources()
    if sources:
        return SolverError(f"NaN or inf in the QP's rows from: {', '.join(sources)} (check the targets, "
                           f"gains and state; status {result.status!r})", "non-finite data")
    status = result.status
    if result.success:
        violation = constraint_violation(qp, result.x)
        status = f"{status}, but the answer misses the hard constraints by {violation:.3g} (scaled)"
    elif layout.levels and not result.first_failed:       # a level's QP, the hard rows solved above it
        return level_failure(solver.backend.name, result.failed_level, status, result.failed_qp,
                             [level.priority for level in result.levels])
    if not solver.diagnose:
        return SolverError(f"QP backend {solver.backend.name!r} failed ({status})", status)
    return failure(solver, layout, qp, status)


def failure(solver, layout, qp: QP, status: str) -> SolverError:
    """The exception to raise for ``solver``'s failed solve of ``qp`` (built by ``layout``):
    :class:`InfeasibleError` if the hard constraints are infeasible (one exact test; the
    conflicts are searched for when first read), a plain :class:`SolverError` if they are
    feasible (the backend failed) or hold non-finite values. ``error.qp`` is a copy of ``qp``.

    With priority levels only the hard rows can conflict (a level gives way instead): the
    diagnosis is the same, on the hard rows, and its message says so."""
    levels = [level.name for level in qp.levels]
    error = diagnose(solver.backend.name, layout.labels, qp, status, levels)
    error.qp = qp.copy()   # the failed problem, for offline inspection
    return error


def level_failure(backend_name: str, level, status: str, level_qp: QP, solved: list) -> SolverError:
    """The exception for a lexicographic solve whose QP at ``level`` (a
    :class:`~tsid_py.qp.Level`; None for the soft level without soft constraints) failed
    although the hard rows and the levels above it were solved (``solved``: their priorities):
    not an infeasibility (each level's QP contains the answer of the level above), a backend
    failure; ``error.level`` names the level and ``error.qp`` is a copy of its QP."""
    above = ", ".join(f"level {priority}" for priority in solved) or "the hard rows"
    name, priority = ("the soft level", "soft") if level is None else (level.name, level.priority)
    error = SolverError(f"QP backend {backend_name!r} failed at {name} ({status}) although {above} were "
                        "solved, whose answer is feasible for it: a numerical failure, not a conflict; try another "
                        "qp_solver", status, level=priority)
    error.qp = level_qp.copy()
    return error


def diagnose(backend_name: str, labels: dict[str, list[str]], qp: QP, status: str,
             levels: list[str] = ()) -> SolverError:
    """The exception for a failed solve of ``qp`` (its rows are copied, scaled, for the
    search); ``labels`` as :attr:`tsid_py.assembly.Layout.labels`; ``levels``: the names of
    the QP's priority levels, which are not part of the hard rows (they give way)."""
    failed = f"QP backend {backend_name!r} failed ({status})"
    non_finite = non_finite_groups(qp, labels)
    if non_finite:
        return SolverError(f"{failed}: the QP holds NaN or inf in {', '.join(non_finite)}; check the "
                           "targets, gains and limits these come from, and the state (q, v)", status)
    rows = HardRows.from_qp(qp, labels)
    with one_blas_thread():
        feasible = rows.feasible(np.ones(len(rows.groups), dtype=bool))
    if feasible:
        return SolverError(f"{failed} although the hard constraints are feasible (checked by an exact "
                           "active-set solve); try another qp_solver", status)
    beside = (f" (the items at {', '.join(levels)} are not among them: a level gives way instead; give one of "
              "the conflicting items a level, priority=1, 2, …, to let it give way)") if levels else ""
    return InfeasibleError(f"{failed}: the hard constraints are infeasible{beside}", status=status,
                           search=ConflictSearch(rows))


def one_blas_thread():
    """A context running BLAS on one thread: the tests factor small matrices, and a BLAS
    spinning up threads on a loaded machine made a 15 ms search take a second."""
    return _threadpools().limit(limits=1, user_api="blas")


@cache
def _threadpools():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def row_labels(qp: QP, labels: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """The label of each equality row and of each row of :meth:`QP.rows_with_box`."""
    equalities = list(labels["equalities"]) or ["equalities"] * qp.A.shape[0]
    inequalities = list(labels["inequalities"]) + list(labels["box"])
    if len(equalities) != qp.A.shape[0] or len(inequalities) != qp.rows_with_box()[0].shape[0]:
        raise ValueError("the labels do not match the QP's rows")
    return equalities, inequalities


def non_finite_groups(qp: QP, labels: dict[str, list[str]]) -> list[str]:
    """The groups whose rows hold NaN or inf (an infinite bound is fine on its "unbounded"
    side: ``l = −inf`` or ``u = +inf``), plus ``"cost"`` if the cost does."""
    equality_labels, inequality_labels = row_labels(qp, labels)
    C, l, u = qp.rows_with_box()
    bad_equalities = ~(np.isfinite(qp.A).all(axis=1) & np.isfinite(qp.b))
    bad_inequalities = ~(np.isfinite(C).all(axis=1) & ~np.isnan(l) & ~np.isnan(u) & (l < np.inf) & (u > -np.inf))
    names = [equality_labels[i] for i in np.flatnonzero(bad_equalities)]
    names += [inequality_labels[i] for i in np.flatnonzero(bad_inequalities)]
    if not (np.isfinite(qp.H).all() and np.isfinite(qp.g).all()):
        names.append("cost (a soft task or the regularisation)")
    return list(dict.fromkeys(names))


@dataclass
class HardRows:
    """The hard constraints as scaled, labelled rows: ``A x = b`` and ``l ≤ C x ≤ u``, all
    rows of unit norm; ``eq_group[i]`` / ``in_group[i]`` index ``groups``."""

    A: np.ndarray
    b: np.ndarray
    C: np.ndarray
    l: np.ndarray
    u: np.ndarray
    eq_group: np.ndarray
    in_group: np.ndarray
    groups: list[str]

    @classmethod
    def from_qp(cls, qp: QP, labels: dict[str, list[str]]) -> "HardRows":
        """Scaled rows of ``qp`` (whose data must be finite, see :func:`non_finite_groups`);
        rows bounded on neither side are left out."""
        equality_labels, inequality_labels = row_labels(qp, labels)
        C, l, u = qp.rows_with_box()
        bounded = (l > -np.inf) | (u < np.inf)
        C, l, u = C[bounded], l[bounded], u[bounded]
        inequality_labels = [name for name, keep in zip(inequality_labels, bounded) if keep]
        groups = list(dict.fromkeys(equality_labels + inequality_labels))
        index = {name: i for i, name in enumerate(groups)}
        A, b = _unit_rows(qp.A, qp.b)
        C, l, u = _unit_rows(C, l, u)
        finite = np.concatenate([b, l[np.isfinite(l)], u[np.isfinite(u)]])
        scale = max(1.0, np.abs(finite).max(initial=0.0) / LARGEST_RHS)
        return cls(A, b / scale, C, l / scale, u / scale,
                   np.array([index[name] for name in equality_labels], dtype=int),
                   np.array([index[name] for name in inequality_labels], dtype=int), groups)

    def feasible(self, chosen: np.ndarray) -> bool:
        """Whether the rows of the groups with ``chosen[group]`` True can all be met."""
        eq, ineq = chosen[self.eq_group], chosen[self.in_group]
        A, b = self.A[eq], self.b[eq]
        n = self.A.shape[1]
        if A.shape[0]:
            U, singular, Vt = np.linalg.svd(A)
            rank = int(np.sum(singular > RANK_TOLERANCE))
            x0 = Vt[:rank].T @ ((U[:, :rank].T @ b) / singular[:rank])
            if np.any(np.abs(A @ x0 - b) > FEASIBILITY_TOLERANCE * np.maximum(1.0, np.abs(b))):
                return False
            null = Vt[rank:].T
        else:
            x0, null = np.zeros(n), np.eye(n)
        C = self.C[ineq]
        offset = C @ x0
        return _box_feasible(C @ null, self.l[ineq] - offset, self.u[ineq] - offset)


def _unit_rows(matrix: np.ndarray, *sides: np.ndarray) -> tuple[np.ndarray, ...]:
    """``matrix`` and its right-hand sides divided row by row by the rows' norms (zero rows
    kept as they are)."""
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0.0] = 1.0
    return (matrix / norms[:, None], *(side / norms for side in sides))


def _box_feasible(D: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
    """Whether ``lower ≤ D z ≤ upper`` has a solution (see the module docstring)."""
    norms = np.linalg.norm(D, axis=1)
    constant = norms <= RANK_TOLERANCE
    tolerance = FEASIBILITY_TOLERANCE * np.maximum(1.0, np.maximum(_finite_magnitude(lower), _finite_magnitude(upper)))
    if np.any(constant & ((lower > tolerance) | (upper < -tolerance))):
        return False
    keep = ~constant
    D, norms, tolerance = D[keep], norms[keep], tolerance[keep]
    lower, upper = lower[keep] / norms, upper[keep] / norms
    if np.any(lower > upper + tolerance):
        return False
    if D.shape[0] == 0 or D.shape[1] == 0:
        return True
    import daqp

    k = D.shape[1]
    _, _, exitflag, _ = daqp.solve(np.eye(k), np.zeros(k), np.ascontiguousarray(D), np.minimum(upper, _INFINITE),
                                   np.maximum(lower, -_INFINITE), np.zeros(D.shape[0], dtype=np.int32),
                                   iter_limit=_DAQP_ITERATIONS)
    if exitflag in (1, 2):
        return True
    if exitflag == -1:
        return False
    return _linear_program_feasible(D, lower, upper)


def _finite_magnitude(bound: np.ndarray) -> np.ndarray:
    """``|bound|``, with 0 for the infinite (absent) sides."""
    return np.where(np.isfinite(bound), np.abs(bound), 0.0)


def _linear_program_feasible(D: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
    """The fallback test: HiGHS on ``find z, lower ≤ D z ≤ upper`` (a zero objective)."""
    from scipy.optimize import linprog

    rows = np.vstack([D[np.isfinite(upper)], -D[np.isfinite(lower)]])
    limits = np.concatenate([upper[np.isfinite(upper)], -lower[np.isfinite(lower)]])
    result = linprog(np.zeros(D.shape[1]), A_ub=rows, b_ub=limits, bounds=(None, None), method="highs")
    return result.status == 0


class ConflictSearch:
    """The deletion filter over the groups of :class:`HardRows` (see the module docstring);
    :meth:`run` can be called again to resume after a time limit."""

    def __init__(self, rows: HardRows):
        self.rows = rows
        self.kept = np.ones(len(rows.groups), dtype=bool)    # an infeasible set throughout
        self.tested = 0                                       # groups decided so far, in order
        self.tests = 0                                        # feasibility tests run
        self.seconds = 0.0                                    # time spent searching

    def run(self, time_limit: float | None) -> tuple[list[str], bool]:
        """Test the remaining groups for ``time_limit`` seconds at most (None: no limit);
        return the kept groups and whether the search is complete (the set is irreducible)."""
        start = perf_counter()
        with one_blas_thread():
            while self.tested < len(self.rows.groups):
                if time_limit is not None and perf_counter() - start > time_limit:
                    break
                trial = self.kept.copy()
                trial[self.tested] = False
                self.tests += 1
                if not self.rows.feasible(trial):
                    self.kept = trial           # not needed: the rest are still infeasible
                self.tested += 1
        self.seconds += perf_counter() - start
        return self.conflicts, self.tested == len(self.rows.groups)

    @property
    def conflicts(self) -> list[str]:
        return [name for name, kept in zip(self.rows.groups, self.kept) if kept]
