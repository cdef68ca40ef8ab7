"""Torques and contact wrenches behind a recorded motion: the over-time inverse dynamics."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from .._validation import as_matrix, positive_scalar
from ..robot import Robot
from .coupling import coordinate_projection, project_torque_rows
from .frames import (
    FrameData,
    KnownWrench,
    check_contacts,
    check_known_wrenches,
    check_positions,
    finite_differences,
    frame_data,
)
from .stacked import StackedSolution, Weights, contact_bound_rows, solve_stacked

#: Default Coulomb friction coefficient of the contact bounds (dry rubber or a shoe on a
#: floor is 0.6–1.0). The inscribed pyramid uses μ/√2 per axis, so 1.0 still admits the
#: tangential forces of ordinary standing and walking.
DEFAULT_FRICTION = 1.0

#: Weight ρ of the elastic slacks, per unit of slack in the solver's scaled units (forces in
#: robot weights, objective by its curvature): far above the multipliers of frames whose
#: bounds can hold (0.1–0.15 on the recordings measured), so a slack is non-zero only where
#: the bounds cannot hold (with ρ = 1 the synthetic sway benchmark relaxes 28 frames instead
#: of 21; from ρ = 10 up, 21–22).
RELAXATION_PENALTY = 100.0

#: Above this penalty the relaxed rows' multipliers (up to ρ) make the reduced system too
#: ill-conditioned for the interior-point iterations to reach their tolerance (measured:
#: ρ = 1e3 already stalls at a 2e-7 residual on an 80-frame MuJoCo recording with impacts).
MAX_RELAXATION_PENALTY = 1e3

#: A frame is reported relaxed when one of its bound rows needed more slack than this, N.
RELAXATION_TOLERANCE = 1e-6


@dataclass
class InverseDynamicsOverTimeResult:
    tau: np.ndarray            # (T-2, nv), tau[:, :6] == 0
    wrenches: np.ndarray       # (T-2, k, 6) world-aligned, at each contact frame's origin
    positions: np.ndarray      # (T-2, nq): the frames the other arrays refer to (1 … T-2)
    velocities: np.ndarray     # (T-2, nv)
    accelerations: np.ndarray  # (T-2, nv)
    #: Frames (indices into the arrays above) where the contact bounds could not all hold
    #: (impacts, slipping, a centre of pressure at a sole's edge in noisy data): their bound
    #: rows were relaxed with an L1-penalised slack. Empty without bounds.
    relaxed_frames: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    #: (T-2, k, 6) local wrenches (each contact frame's axes), the solver's variables.
    local_wrenches: np.ndarray | None = None
    #: The objective value (see :func:`multiple_contact_inverse_dynamics_over_time`).
    objective: float = float("nan")
    #: Interior-point iterations (0: no bounds or a single contact, solved directly).
    iterations: int = 0
    #: (N, 6) the wrench ``[f; m]`` the free-floating root still needs, world-aligned at the
    #: root's origin (a "crane"; OpenSim's residual forces): ~0 where contacts balance the
    #: motion, the model/data mismatch where every wrench is known (force plates).
    residuals: np.ndarray | None = None
    #: (N,) the rows of the input each result row is (1 … T−2, or 0 … T−1 with derivatives given).
    frame_indices: np.ndarray | None = None
    #: (N, n) for a robot read from an OpenSim model: the generalized forces of its
    #: coordinates, ``Φᵀ τ`` (N·m or N), the root's being the residuals (see
    #: :mod:`tsid_py.loaders.osim_coordinates`), in ``robot.opensim.coordinates.names`` order.
    coordinate_forces: np.ndarray | None = None


def _soles(robot: Robot, contacts: list[str], sole_size) -> list:
    """Per contact, the sole rectangle (length, width) of its centre-of-pressure rows or None."""
    if sole_size is None:
        return [None] * len(contacts)
    if isinstance(sole_size, str):
        if sole_size != "robot":
            raise ValueError(f"sole_size must be 'robot', None or (length, width) in m, got {sole_size!r}")
        return [robot.sole_size if name in robot.feet else None for name in contacts]
    try:
        length, width = (positive_scalar(value, "sole_size") for value in sole_size)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sole_size must be 'robot', None or (length, width) in m, got {sole_size!r}") from exc
    return [(length, width)] * len(contacts)


def objective(data: FrameData, local: np.ndarray, weights: Weights, smoothing: np.ndarray) -> float:
    """The objective of the stacked problem at local wrenches (N, 6k), with the smoothing
    weight ``smoothing[t]`` between frames t and t+1."""
    torques = data.torques(local)
    value = weights.torque * np.sum(torques**2) + weights.regularization * np.sum(local**2)
    world = data.world_wrenches(local)
    return float(value + np.sum(smoothing * np.sum((world[1:] - world[:-1]) ** 2, axis=(1, 2))))


def multiple_contact_inverse_dynamics_over_time(
        robot: Robot, positions, dt: float, contacts: Sequence[str], *, smoothing_weight: float = 1.0,
        min_torque_weight: float = 1.0, friction: float | None = DEFAULT_FRICTION, sole_size="robot",
        regularization: float = 1e-8, relaxation_penalty: float = RELAXATION_PENALTY,
        progress: bool = False, known_wrenches=None, contact_schedule=None, velocities=None,
        accelerations=None) -> InverseDynamicsOverTimeResult:
    r"""Torques and contact wrenches behind a recorded motion, all frames in one problem.

    ``positions`` (T, nq) sampled every ``dt`` s. Velocities and accelerations come from
    finite differences on the manifold (:func:`~tsid_py.offline.frames.finite_differences`);
    frames ``1 … T−2`` are solved. With ``f_t`` the contact wrenches of frame t (``w_t`` the
    same, world-aligned), ``w_τ`` the ``min_torque_weight``, ``w_s`` the
    ``smoothing_weight`` and ``ε`` the ``regularization``, the problem is

    .. math::

        \min \sum_t \left( w_τ \lVert τ_t \rVert² + ε \lVert f_t \rVert² \right)
        + w_s \sum_t \lVert w_t − w_{t−1} \rVert²

    subject to the 6 root rows of the equation of motion at every frame, and the contact
    bounds below.

    **Contact bounds (on by default).** With ``friction = μ`` (default
    :data:`DEFAULT_FRICTION`) each contact is unilateral (``f_z ≥ 0`` in its frame) with its
    force in the pyramid inscribed in the Coulomb cone; with a sole its centre of pressure
    stays in the rectangle and the torsion is bounded. ``sole_size="robot"`` (default) uses
    ``robot.sole_size`` for the contacts that are ``robot.feet`` (no centre-of-pressure rows
    for other contacts), a ``(length, width)`` in m applies to every contact, None drops the
    centre-of-pressure rows. The bounds are what split the weight physically between several
    contacts; turn them off (``friction=None``) for contacts that can pull (hands on a bar,
    a harness), for contact frames whose z axis is not the surface normal, or to reproduce
    the unbounded least-squares split.

    Frames whose bounds cannot hold together with the root rows — impacts, slipping, noise
    pushing a centre of pressure past a sole's edge — never fail the call: the bound rows
    are elastic (slacks with an L1 penalty, ``relaxation_penalty`` ρ in the solver's scaled
    units, at most :data:`MAX_RELAXATION_PENALTY`; see :data:`RELAXATION_PENALTY`) and such
    frames are listed in ``relaxed_frames``. The root rows themselves always hold. Where a
    frame's bounds cannot hold on its own (an impact, where the true wrench jumps), the
    smoothing terms joining it to its neighbours are dropped, so that it does not pull them
    off their bounds; ``objective`` is the value without those terms.

    **Known wrenches** (``known_wrenches``: :class:`~tsid_py.offline.frames.KnownWrench`
    items, or a dict frame → (T, 6) world-aligned wrenches about the frame's origin; force
    plates) are known terms of the equation of motion,
    ``M a + h = Sᵀ τ + Σ_j J_jᵀ f_j + Σ_k J_kᵀ w_k``. ``contacts`` may then be empty: every
    wrench is known, the torques follow and the root's 6 rows cannot hold exactly — the
    wrench the root still needs is reported per frame in ``residuals`` (OpenSim's pelvis
    residuals). The same holds at frames where a ``contact_schedule`` (T, k) booleans leaves
    no contact active; an inactive contact carries no wrench.

    **Derivatives.** ``velocities`` and ``accelerations`` (T, nv), if given, replace the
    finite differences (e.g. from splines of filtered joint angles) and then every frame
    ``0 … T−1`` is solved. ``frame_indices`` tells which input rows the results are.

    **Coupled coordinates.** For a robot read from an OpenSim model whose joints move as
    functions of a coordinate (the knee's translations), the torques minimised are the
    coordinates' generalized forces ``Φᵀ τ`` (the dependent joints' forces are carried by
    the joint, not by an actuator), and ``coordinate_forces`` holds them with the root's
    residuals in OpenSim's layout.

    The frames are coupled only by the smoothing term: after eliminating each frame's root
    rows the problem is block-tridiagonal and an interior-point method
    (:mod:`tsid_py.offline.ipm`) solves it in time linear in T (timings: the Inverse
    dynamics page). ``progress=True`` shows a progress bar (tqdm) on stderr.

    Quaternion sign flips between frames are fixed (see
    :func:`~tsid_py.offline.frames.check_positions`).
    """
    contacts = check_contacts(robot, contacts, allow_none=known_wrenches is not None)
    dt = positive_scalar(dt, "dt")
    weights = Weights(positive_scalar(min_torque_weight, "min_torque_weight", allow_zero=True),
                      positive_scalar(smoothing_weight, "smoothing_weight", allow_zero=True),
                      positive_scalar(regularization, "regularization", allow_zero=True))
    if weights.torque == 0 and weights.regularization == 0:
        raise ValueError("min_torque_weight and regularization must not both be 0: the smoothing alone "
                         "leaves the wrenches' common offset undetermined")
    if friction is not None:
        friction = positive_scalar(friction, "friction")
    penalty = positive_scalar(relaxation_penalty, "relaxation_penalty")
    if penalty > MAX_RELAXATION_PENALTY:
        raise ValueError(f"relaxation_penalty must be <= {MAX_RELAXATION_PENALTY:g} (larger values make the "
                         f"interior-point iterations ill-conditioned), got {relaxation_penalty!r}")
    soles = _soles(robot, contacts, sole_size)
    positions = check_positions(robot, positions)
    rows, velocities, accelerations = _derivatives(robot, positions, dt, velocities, accelerations)
    frames = positions[rows]
    known = [KnownWrench(item.frame, item.wrenches[rows], None if item.points is None else item.points[rows])
             for item in check_known_wrenches(robot, known_wrenches, len(positions), contacts)]
    active = _schedule(contact_schedule, len(positions), contacts)
    active = None if active is None else active[rows]
    bar = _progress_bar(progress, len(frames))
    try:
        data = frame_data(robot, contacts, frames, velocities, accelerations,
                          progress=None if bar is None else bar.update, known=known)
        projection = coordinate_projection(robot, frames)
        solved = project_torque_rows(robot, data, projection)
        bounds = contact_bound_rows(len(contacts), friction, soles)
        if bar is not None:
            bar.set_description("interior point")
        iterations = itertools.count(1)
        solution = _solve(solved, weights, bounds, penalty, active,
                          None if bar is None else lambda _: bar.set_postfix(iteration=next(iterations)))
    finally:
        if bar is not None:
            bar.close()
    return _result(robot, data, solved, solution, weights, frames, velocities, accelerations, rows, projection)


def _derivatives(robot: Robot, positions: np.ndarray, dt: float, velocities, accelerations):
    """``(rows, v, a)``: the rows of ``positions`` solved and their velocities and accelerations."""
    if velocities is None and accelerations is None:
        velocities, accelerations = finite_differences(robot, positions, dt)
        return np.arange(1, len(positions) - 1), velocities, accelerations
    if velocities is None or accelerations is None:
        raise ValueError("velocities and accelerations go together: give both or neither")
    shape = (len(positions), robot.nv)
    return (np.arange(len(positions)), as_matrix(velocities, "velocities", shape),
            as_matrix(accelerations, "accelerations", shape))


def _schedule(schedule, count: int, contacts: list[str]) -> np.ndarray | None:
    if schedule is None:
        return None
    array = np.asarray(schedule)
    if array.shape != (count, len(contacts)) or array.dtype.kind not in "biu":
        raise ValueError(f"contact_schedule must be ({count}, {len(contacts)}) booleans (frames x contacts), "
                         f"got shape {array.shape} of {array.dtype}")
    return array.astype(bool)


def _solve(data: FrameData, weights: Weights, bounds, penalty: float, active, progress) -> StackedSolution:
    if data.root_matrix.shape[2] == 0:                # every wrench known: nothing to choose
        count = data.frame_count
        return StackedSolution(np.zeros((count, 0)), np.zeros((count, 0)), 0, np.zeros(max(count - 1, 0)))
    return solve_stacked(data, weights, bounds, penalty=penalty, relaxation_tolerance=RELAXATION_TOLERANCE,
                         progress=progress, active=active)


def _result(robot, data, solved, solution, weights, frames, velocities, accelerations, rows,
            projection) -> InverseDynamicsOverTimeResult:
    count, k = len(frames), data.rotations.shape[1]
    tau = np.zeros((count, robot.nv))
    tau[:, 6:] = data.torques(solution.local)
    root = np.matmul(data.root_matrix, solution.local[:, :, None])[:, :, 0] - data.root_rhs   # G f − e
    rotations = np.array([pin.Quaternion(q[3:7]).matrix() for q in frames])
    residuals = np.concatenate([np.matmul(rotations, root[:, :3, None])[:, :, 0],
                                np.matmul(rotations, root[:, 3:, None])[:, :, 0]], axis=1)
    forces = None
    if projection is not None:
        forces = np.einsum("tvn,tv->tn", projection, np.concatenate([root, tau[:, 6:]], axis=1))
    return InverseDynamicsOverTimeResult(
        tau, data.world_wrenches(solution.local), frames, velocities, accelerations,
        solution.relaxed_frames(RELAXATION_TOLERANCE), solution.local.reshape(count, k, 6),
        objective(solved, solution.local, weights, solution.smoothing), solution.iterations,
        residuals, rows, forces)


def _progress_bar(enabled: bool, frames: int):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=frames, desc="frames", unit="frame")
