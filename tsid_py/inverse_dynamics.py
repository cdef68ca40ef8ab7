"""The documented inverse-dynamics cases, as configurations of :class:`DynamicsSolver`.

Each function sets up the same QP as a control step: the motion is prescribed by a hard
:class:`~tsid_py.tasks.AccelerationTask` (``q̈ = a``), the contacts carry free 6-D wrenches
(no acceleration constraint, since the motion is given; friction only when asked for),
and the objective picks one solution among those that satisfy the root rows of

    M(q) a + h(q, v) = Sᵀ τ + Σ_j J_jᵀ w_j.

Wrenches are world-aligned at each contact frame's origin, ``[f; m]``, exerted on the robot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin
from scipy import sparse
from scipy.sparse import linalg as sparse_linalg

from ._validation import as_matrix, as_vector, positive_scalar
from .contacts import PlanarContact
from .errors import SolverError
from .backends import solve_kkt
from .backends.reduced import ReducedBackend
from .qp import QP
from .robot import Robot
from .solver import DynamicsSolver
from .tasks.effort import WrenchTask
from .tasks.regularization import AccelerationTask

#: Relative weight of the forces in "minimal contact moments": Σ_j ||m_j||² + ε ||f_j||².
MOMENT_OBJECTIVE_FORCE_WEIGHT = 1e-6


@dataclass
class ContactInverseDynamicsResult:
    tau: np.ndarray          # (nv,), tau[:6] == 0
    wrench: np.ndarray       # (6,) world-aligned


@dataclass
class MultipleContactInverseDynamicsResult:
    tau: np.ndarray          # (nv,), tau[:6] == 0
    wrenches: np.ndarray     # (k, 6) world-aligned, in the order of ``contacts``


@dataclass
class InverseDynamicsOverTimeResult:
    tau: np.ndarray            # (T-2, nv)
    wrenches: np.ndarray       # (T-2, k, 6)
    positions: np.ndarray      # (T-2, nq): the frames the other arrays refer to (1 … T-2)
    velocities: np.ndarray     # (T-2, nv)
    accelerations: np.ndarray  # (T-2, nv)
    #: Frames (indices into the arrays above) where friction / centre-of-pressure bounds could
    #: not all hold — finite-difference noise with the true CoP at a sole's edge — and were
    #: dropped for that frame alone. Empty without ``friction``.
    relaxed_frames: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))


# ------------------------------------------------------------------------------ helpers
def _check_contacts(robot: Robot, contacts) -> list[str]:
    if isinstance(contacts, str):
        contacts = [contacts]
    contacts = list(contacts)
    if not contacts:
        raise ValueError("contacts must name at least one contact frame")
    if not robot.floating_base:
        raise ValueError("contact inverse dynamics needs a floating-base robot (floating_base=True)")
    for name in contacts:
        robot.frame_id(name)
    if len(set(contacts)) != len(contacts):
        raise ValueError(f"contacts must be distinct, got {contacts}")
    return contacts


def _wrench_contacts(solver: DynamicsSolver, contacts: Sequence[str], *, friction: float | None = None,
                     sole_size=None) -> None:
    """Add one 6-D wrench per frame; unilateral with friction ``mu`` if ``friction`` is given
    (without ``sole_size`` the centre-of-pressure and torsion rows are left unbounded)."""
    length, width = sole_size if sole_size is not None else (1e6, 1e6)
    for name in contacts:
        kwargs = dict(unilateral=False) if friction is None else dict(mu=friction)
        solver.add_contact(PlanarContact(name, length=length, width=width, kinematic=False, **kwargs))


def _solve_configured(solver: DynamicsSolver, q, v, a) -> "Solution":  # noqa: F821
    solver.add_task(AccelerationTask(a, priority="hard", name="prescribed motion"))
    return solver.solve(q, v)


def _state(robot: Robot, q, v, a):
    return (robot.check_configuration(q, "q"), as_vector(v, "v", robot.nv), as_vector(a, "a", robot.nv))


# ------------------------------------------------------------------------------ cases
def inverse_dynamics(robot: Robot, q, v, a) -> np.ndarray:
    """Plain inverse dynamics ``τ = M(q) a + h(q, v)``, (nv,).

    On a floating base the first 6 entries are the wrench a "crane" would have to apply at
    the root to produce the motion without any contact.
    """
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0},
                            actuated_root=True)
    return _solve_configured(solver, q, v, a).tau


def contact_inverse_dynamics(robot: Robot, q, v, a, contact: str) -> ContactInverseDynamicsResult:
    """Inverse dynamics with one contact wrench instead of the crane.

    The 6 root rows ``(M a + h)[:6] = J[:, :6]ᵀ w`` determine the wrench ``w`` uniquely; then
    ``τ = M a + h − Jᵀ w`` has ``τ[:6] = 0``.
    """
    (contact,) = _check_contacts(robot, [contact])
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0})
    _wrench_contacts(solver, [contact])
    solution = _solve_configured(solver, q, v, a)
    return ContactInverseDynamicsResult(solution.tau, solution.wrenches[contact])


def multiple_contact_inverse_dynamics(robot: Robot, q, v, a, contacts: Sequence[str],
                                      wrench_guesses=None) -> MultipleContactInverseDynamicsResult:
    """Inverse dynamics with ``k`` contact wrenches.

    With ``wrench_guesses`` (k, 6): the wrenches nearest to the guesses,
    ``min Σ_j ||w_j − ŵ_j||²`` subject to the root rows (the Euclidean projection of the
    guesses onto that affine set). Without: minimal contact moments,
    ``min Σ_j (||m_j||² + ε ||f_j||²)`` with ``ε =`` :data:`MOMENT_OBJECTIVE_FORCE_WEIGHT`,
    moments about each contact frame's origin (world-aligned; the norm does not depend on
    the axes).
    """
    contacts = _check_contacts(robot, contacts)
    q, v, a = _state(robot, q, v, a)
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0})
    _wrench_contacts(solver, contacts)
    if wrench_guesses is not None:
        guesses = as_matrix(wrench_guesses, "wrench_guesses", (len(contacts), 6))
        weight = np.ones(6)
    else:
        guesses = np.zeros((len(contacts), 6))
        weight = np.r_[np.full(3, MOMENT_OBJECTIVE_FORCE_WEIGHT), np.ones(3)]
    for name, guess in zip(contacts, guesses):
        solver.add_task(WrenchTask(name, guess, weight=weight))
    solution = _solve_configured(solver, q, v, a)
    return MultipleContactInverseDynamicsResult(solution.tau, np.array([solution.wrenches[c] for c in contacts]))


def gravity_compensation(robot: Robot, q, contacts: Sequence[str], minimize: str = "torque"
                         ) -> MultipleContactInverseDynamicsResult:
    """Static stance (``v = a = 0``): wrenches and torques that hold the robot against gravity,
    ``g(q) = Sᵀ τ + Σ_j J_jᵀ w_j``.

    One contact: the unique solution. Several: ``minimize="force"`` gives the minimal
    ``Σ_j ||w_j||²`` (the pseudo-inverse solution of the root rows), ``minimize="torque"``
    the minimal ``||τ_a||²``.
    """
    if minimize not in ("force", "torque"):
        raise ValueError(f"minimize must be 'force' or 'torque', got {minimize!r}")
    contacts = _check_contacts(robot, contacts)
    q = robot.check_configuration(q, "q")
    weights = {"acceleration": 0.0, "force": 1.0, "torque": 0.0} if minimize == "force" else \
        {"acceleration": 0.0, "force": 0.0, "torque": 1.0}
    solver = DynamicsSolver(robot, regularization=weights)
    _wrench_contacts(solver, contacts)
    zero = np.zeros(robot.nv)
    solution = _solve_configured(solver, q, zero, zero)
    return MultipleContactInverseDynamicsResult(solution.tau, np.array([solution.wrenches[c] for c in contacts]))


# ------------------------------------------------------------------------------ over time
def finite_differences(robot: Robot, positions: np.ndarray, dt: float):
    """Velocities and accelerations of a sampled trajectory, on the manifold.

    ``v_t = difference(q_{t−1}, q_t) / dt`` and ``a_t = (v_{t+1} − v_t) / dt`` for
    ``t = 1 … T−2`` — the inverse of semi-implicit Euler (``v⁺ = v + dt a``,
    ``q⁺ = q ⊕ dt v⁺``). Returns ``(velocities, accelerations)``, each (T−2, nv).
    """
    steps = np.array([pin.difference(robot.model, positions[t], positions[t + 1]) / dt
                      for t in range(len(positions) - 1)])
    return steps[:-1], (steps[1:] - steps[:-1]) / dt


def multiple_contact_inverse_dynamics_over_time(
        robot: Robot, positions, dt: float, contacts: Sequence[str], *, smoothing_weight: float = 1.0,
        min_torque_weight: float = 1.0, friction: float | None = None, sole_size=None,
        regularization: float = 1e-8) -> InverseDynamicsOverTimeResult:
    """Torques and contact wrenches behind a recorded motion, all frames in one QP.

    ``positions`` (T, nq) sampled every ``dt`` s. Velocities and accelerations come from
    :func:`finite_differences`; frames ``1 … T−2`` are solved. The objective is

        Σ_t [ min_torque_weight ||τ_t||² + regularization Σ_j ||w_j,t||² ]
          + smoothing_weight Σ_t Σ_j ||w_j,t − w_j,t−1||²

    subject to each frame's root rows (and, with ``friction=μ``, unilateral contacts with
    the friction pyramid and — with ``sole_size=(length, width)`` — centre-of-pressure
    bounds). Each frame's block comes from the per-step solver with ``q̈`` fixed to the
    measured acceleration; the frames are coupled only by the smoothing term, so the sparse
    KKT system is block-tridiagonal and the cost grows linearly with T.

    With ``friction`` and ``smoothing_weight=0`` the frames are independent and each is
    solved by the fast dense backend (about 0.3 ms a frame for Talos); with friction *and*
    smoothing the stacked problem goes to ProxQP's sparse solver, which is much slower.
    The friction and centre-of-pressure bounds are what make the split between two feet
    well determined: without them the split follows the objective alone.
    """
    contacts = _check_contacts(robot, contacts)
    positions = as_matrix(positions, "positions", (None, robot.nq))
    if positions.shape[0] < 3:
        raise ValueError(f"positions must hold at least 3 frames, got {positions.shape[0]}")
    dt = positive_scalar(dt, "dt")
    smoothing_weight = positive_scalar(smoothing_weight, "smoothing_weight", allow_zero=True)
    min_torque_weight = positive_scalar(min_torque_weight, "min_torque_weight", allow_zero=True)
    regularization = positive_scalar(regularization, "regularization", allow_zero=True)
    if friction is not None:
        friction = positive_scalar(friction, "friction")
    positions = np.array([robot.check_configuration(q, f"positions[{t}]") for t, q in enumerate(positions)])
    velocities, accelerations = finite_differences(robot, positions, dt)
    frames = positions[1:-1]

    solver = DynamicsSolver(robot, dt=dt, regularization={
        "acceleration": 0.0, "force": regularization, "torque": min_torque_weight})
    _wrench_contacts(solver, contacts, friction=friction, sole_size=sole_size)
    layout = solver.layout
    nv = robot.nv
    accel_columns = np.arange(nv)
    blocks, rotations, torque_maps = [], [], []
    for q, v, a in zip(frames, velocities, accelerations):
        robot.update_unchecked(q, v)
        blocks.append(layout.assemble().fix_variables(accel_columns, a))
        rotations.append(_world_rotation(robot, layout))
        # τ_a = T x + t with q̈ fixed: (T_f, T_q̈ a + t)
        matrix, offset = layout.context.torque_map()
        torque_maps.append((matrix[:, nv:].copy(), matrix[:, :nv] @ a + offset))
    relaxed = np.zeros(0, dtype=int)
    if friction is not None and smoothing_weight == 0:
        x, relaxed = _solve_frames(blocks)
    else:
        x = _solve_stacked(blocks, rotations, smoothing_weight)

    count = len(frames)
    local = x.reshape(count, layout.n - nv)
    wrenches = np.einsum("tij,tj->ti", np.array(rotations), local).reshape(count, len(contacts), 6)
    taus = np.zeros((count, nv))
    for t, (matrix, offset) in enumerate(torque_maps):
        taus[t, 6:] = matrix @ local[t] + offset
    return InverseDynamicsOverTimeResult(taus, wrenches, frames, velocities, accelerations, relaxed)


def _solve_frames(blocks: list[QP]) -> tuple[np.ndarray, np.ndarray]:
    """Without smoothing the frames are independent: solve each QP with the fast dense
    backend (hot-started from the previous frame). A frame whose inequalities cannot all
    hold is solved with its equalities only and reported."""
    backend = ReducedBackend()
    solutions, relaxed = [], []
    for t, block in enumerate(blocks):
        result = backend.solve(block)
        if not result.success:
            relaxed.append(t)
            result = solve_kkt(QP(block.H, block.g, block.A, block.b, np.zeros((0, block.n)),
                                  np.zeros(0), np.zeros(0)))
            if not result.success:
                raise SolverError(f"frame {t + 1}: the root rows cannot be balanced by the contacts",
                                  result.status)
        solutions.append(result.x)
    return np.concatenate(solutions), np.array(relaxed, dtype=int)


def _world_rotation(robot: Robot, layout) -> np.ndarray:
    """Block-diagonal map (6k × variables) from a frame's contact variables to the
    world-aligned wrenches, each contact's block its ``blockdiag(R, R) G``."""
    size = layout.n - robot.nv
    rotation = np.zeros((6 * len(layout.contacts), size))
    for index, contact in enumerate(layout.contacts):
        columns = layout.columns[contact.name]
        rotation[6 * index:6 * index + 6, columns.start - robot.nv:columns.stop - robot.nv] = \
            contact.world_wrench_map(robot.frame_rotation(contact.frame_id))
    return rotation


def _solve_stacked(blocks: list[QP], rotations: list[np.ndarray], smoothing_weight: float) -> np.ndarray:
    """Solve the frames' QPs jointly with the smoothing coupling ``Σ ||R_t f_t − R_{t−1} f_{t−1}||²``."""
    count, m = len(blocks), blocks[0].n
    H = sparse.block_diag([block.H for block in blocks], format="csr")
    if smoothing_weight > 0 and count > 1:
        rows = []
        for t in range(1, count):
            row = sparse.lil_matrix((m, count * m))
            row[:, (t - 1) * m:t * m] = -rotations[t - 1]
            row[:, t * m:(t + 1) * m] = rotations[t]
            rows.append(row.tocsr())
        difference = sparse.vstack(rows, format="csr")
        H = H + 2.0 * smoothing_weight * (difference.T @ difference)
    g = np.concatenate([block.g for block in blocks])
    A = sparse.block_diag([block.A for block in blocks], format="csc")
    b = np.concatenate([block.b for block in blocks])
    C_blocks, lower, upper = zip(*(block.rows_with_box() for block in blocks))
    C = sparse.block_diag(C_blocks, format="csc")
    if C.shape[0] == 0:
        return _solve_equality_constrained(H.tocsc(), g, A, b)
    import proxsuite

    qp = proxsuite.proxqp.sparse.QP(H.shape[0], A.shape[0], C.shape[0])
    qp.settings.eps_abs = 1e-9
    qp.settings.eps_rel = 0.0
    qp.settings.max_iter = 10000
    qp.init(H.tocsc(), g, A, b, C, np.concatenate(lower), np.concatenate(upper))
    qp.solve()
    if str(qp.results.info.status).rsplit(".", 1)[-1] != "PROXQP_SOLVED":
        raise SolverError(f"the over-time QP failed: {qp.results.info.status}", str(qp.results.info.status))
    return qp.results.x.copy()


def _solve_equality_constrained(H, g, A, b) -> np.ndarray:
    """``min ½xᵀHx + gᵀx  s.t.  A x = b`` through its sparse KKT system."""
    n = H.shape[0]
    kkt = sparse.bmat([[H, A.T], [A, None]], format="csc")
    solution = sparse_linalg.spsolve(kkt, np.concatenate([-g, b]))
    if not np.all(np.isfinite(solution)):
        raise SolverError("the over-time KKT system is singular (are the contacts enough to "
                          "balance the root rows?)", "singular")
    return solution[:n]
