"""Per-frame data of the over-time inverse dynamics, from recorded positions.

For a recorded motion ``q_0 … q_{T−1}`` sampled every ``dt`` s, frame ``t = 1 … T−2`` has a
velocity and an acceleration from finite differences on the manifold
(:func:`finite_differences`); with the motion prescribed, the equation of motion

    M(q) a + h(q, v) = Sᵀ τ + Σ_j J_jᵀ f_j

is linear in the contact wrenches ``f = (f_1; …; f_k)`` (6 each, in each contact frame's own
axes, force first, N and N·m). Its 6 root rows are the equalities ``G_t f = e_t`` and its
actuated rows give the torques ``τ_a = T_t f + c_t``. :class:`FrameData` holds those, stacked
over the frames, with each contact frame's rotation (local → world-aligned axes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .._validation import _real_array, as_matrix, positive_scalar
from ..contacts import PlanarContact
from ..external_wrenches import ExternalWrench
from ..robot import Robot
from ..solver import DynamicsSolver

#: Components of a wrench variable (``[f; m]`` in the contact frame's axes).
WRENCH_SIZE = 6


@dataclass
class FrameData:
    """The prescribed-motion equation of motion of N frames, in the contact wrenches.

    Shapes: ``root_matrix`` (N, 6, 6k) = ``G_t``, ``root_rhs`` (N, 6) = ``e_t``,
    ``torque_matrix`` (N, na, 6k) = ``T_t``, ``torque_offset`` (N, na) = ``c_t``,
    ``rotations`` (N, k, 3, 3) the contact frames' world rotations.
    """

    root_matrix: np.ndarray
    root_rhs: np.ndarray
    torque_matrix: np.ndarray
    torque_offset: np.ndarray
    rotations: np.ndarray

    @property
    def frame_count(self) -> int:
        return self.root_matrix.shape[0]

    def world_wrenches(self, local: np.ndarray) -> np.ndarray:
        """(N, k, 6) world-aligned wrenches from (N, 6k) local ones: ``[R f; R m]``."""
        count, k = self.rotations.shape[:2]
        pairs = local.reshape(count, k, 2, 3)
        return np.matmul(pairs, self.rotations.transpose(0, 1, 3, 2)).reshape(count, k, WRENCH_SIZE)

    def torques(self, local: np.ndarray) -> np.ndarray:
        """(N, na) actuated torques ``T_t f_t + c_t`` from (N, 6k) local wrenches."""
        return np.matmul(self.torque_matrix, local[:, :, None])[:, :, 0] + self.torque_offset


# ------------------------------------------------------------------------------ input
def check_contacts(robot: Robot, contacts, allow_none: bool = False) -> list[str]:
    """Distinct contact frame names of a floating-base robot (``KeyError`` for an unknown one);
    none only with ``allow_none`` (every wrench known, the root's residual reported)."""
    if isinstance(contacts, str):
        contacts = [contacts]
    contacts = list(contacts or [])
    if not contacts and not allow_none:
        raise ValueError("contacts must name at least one contact frame (or give known_wrenches)")
    if not robot.floating_base:
        raise ValueError("contact inverse dynamics needs a floating-base robot (floating_base=True)")
    for name in contacts:
        robot.frame_id(name)
    if len(set(contacts)) != len(contacts):
        raise ValueError(f"contacts must be distinct, got {contacts}")
    return contacts


def check_positions(robot: Robot, positions, name: str = "positions") -> np.ndarray:
    """(T, nq) configurations, T ≥ 3, each valid (unit quaternion to 1e-3, normalised).

    Non-finite entries are reported by frame. On a free-flyer, ``q`` and ``−q`` are the same
    orientation and a recording may switch between them (a sign flip between two frames):
    the quaternions are **fixed**, not refused — each is flipped, if needed, to lie in the
    same hemisphere as the previous one, so the returned positions vary continuously.
    """
    array = _real_array(positions, name)
    if array.ndim == 2 and array.shape[1] != robot.nq:
        layout = (f"x y z, qx qy qz qw, then {robot.nq - 7} joint positions" if robot.floating_base
                  else "the joint positions")
        raise ValueError(f"{name} must have {robot.nq} columns per frame for robot {robot.name!r} ({layout}), "
                         f"got {array.shape[1]}")
    if array.ndim == 2:
        bad = np.flatnonzero(~np.all(np.isfinite(array), axis=1))
        if bad.size:
            raise ValueError(f"{name} must be finite: frames {bad[:10].tolist()}"
                             f"{' …' if bad.size > 10 else ''} hold NaN or inf ({bad.size} of {len(array)})")
    array = as_matrix(array, name, (None, robot.nq))
    if array.shape[0] < 3:
        raise ValueError(f"{name} must hold at least 3 frames (T, {robot.nq}), got {array.shape[0]}")
    array = np.array([robot.check_configuration(q, f"{name}[{t}]") for t, q in enumerate(array)])
    return align_quaternions(array)[0] if robot.floating_base else array


def align_quaternions(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Free-flyer positions (T, nq) with each base quaternion ``q[3:7]`` flipped, if needed, into
    the hemisphere of the previous frame's (``q`` and ``−q`` are the same orientation); and
    the frames where the recording's sign flipped. A copy: the input is not modified."""
    aligned = positions.copy()
    quaternions = aligned[:, 3:7]
    flipped = np.einsum("ti,ti->t", quaternions[1:], quaternions[:-1]) < 0
    quaternions[1:] *= np.cumprod(np.where(flipped, -1.0, 1.0))[:, None]
    return aligned, np.flatnonzero(flipped) + 1


def finite_differences(robot: Robot, positions: np.ndarray, dt: float):
    """Velocities and accelerations of a sampled trajectory, on the manifold.

    ``v_t = difference(q_{t−1}, q_t) / dt`` and ``a_t = (v_{t+1} − v_t) / dt`` for
    ``t = 1 … T−2`` — the inverse of semi-implicit Euler (``v⁺ = v + dt a``,
    ``q⁺ = q ⊕ dt v⁺``). Returns ``(velocities, accelerations)``, each (T−2, nv).
    """
    dt = positive_scalar(dt, "dt")
    steps = np.array([pin.difference(robot.model, positions[t], positions[t + 1]) / dt
                      for t in range(len(positions) - 1)])
    return steps[:-1], (steps[1:] - steps[:-1]) / dt


# ------------------------------------------------------------------------------ known wrenches
@dataclass(frozen=True)
class KnownWrench:
    """A measured wrench on the robot (a force plate under a foot): ``wrenches`` (T, 6)
    ``[f; m]`` in world-aligned axes, N and N·m, exerted on frame ``frame``, one row per
    recorded frame; the moment is about ``points`` (T, 3), world positions in m (e.g. the
    plate's centre of pressure, ``m`` then the free moment), or about the frame's origin
    when ``points`` is None. It enters the equation of motion as a known term:

        M a + h = Sᵀ τ + Σ_j J_jᵀ f_j + Σ_known J_kᵀ w_k.
    """

    frame: str
    wrenches: np.ndarray
    points: np.ndarray | None = None


def check_known_wrenches(robot: Robot, known, count: int, contacts: Sequence[str]) -> list[KnownWrench]:
    """``known`` (KnownWrench items, or a mapping frame → (T, 6) wrenches about the frame's
    origin) checked against ``count`` recorded frames."""
    if known is None:
        return []
    items = [KnownWrench(name, value) for name, value in known.items()] if isinstance(known, dict) else list(known)
    checked = []
    for item in items:
        if not isinstance(item, KnownWrench):
            raise ValueError(f"known_wrenches must be KnownWrench items or a dict frame -> (T, 6), "
                             f"got {type(item).__name__}")
        robot.frame_id(item.frame)
        if item.frame in contacts:
            raise ValueError(f"frame {item.frame!r} is both a contact (unknown wrench) and a known wrench")
        name = f"known_wrenches[{item.frame!r}]"
        wrenches = as_matrix(item.wrenches, name, (count, 6))
        points = None if item.points is None else as_matrix(item.points, f"{name}.points", (count, 3))
        checked.append(KnownWrench(item.frame, wrenches, points))
    if len({item.frame for item in checked}) != len(checked):
        raise ValueError("known_wrenches must name each frame once (add the wrenches of one frame together)")
    return checked


# ------------------------------------------------------------------------------ dynamics
def frame_data(robot: Robot, contacts: Sequence[str], frames: np.ndarray, velocities: np.ndarray,
               accelerations: np.ndarray, progress=None, known: Sequence[KnownWrench] = ()) -> FrameData:
    """The equation of motion at each frame, in the contact wrenches, from the solver's own
    assembly of a control step (so the offline problem and a control step share one model of
    the dynamics). ``known`` wrenches (rows aligned with ``frames``) are moved to the known
    side. ``progress``, if given, is called with the number of frames done.
    The robot's state is restored afterwards."""
    saved = (robot.q.copy(), robot.v.copy())
    try:
        return _rows_from_the_layout(robot, contacts, frames, velocities, accelerations, progress, known)
    finally:
        robot.update(*saved)


def _rows_from_the_layout(robot: Robot, contacts: Sequence[str], frames, velocities, accelerations,
                          progress, known: Sequence[KnownWrench]) -> FrameData:
    """Each frame's rows from the solver's public :class:`~tsid_py.assembly.Layout`: a solver
    with one free 6-D wrench per contact, the known wrenches as its
    :class:`~tsid_py.external_wrenches.ExternalWrench` items (the control step's own map of a
    known wrench) and no costs is assembled at each frame, and the root rows
    (``A[:6] x = b[:6]``) and the torque map (``τ_a = T x + t``) are read in the wrench
    columns with ``q̈`` fixed to the measured acceleration."""
    solver = DynamicsSolver(robot, regularization={"acceleration": 0.0, "force": 0.0, "torque": 0.0},
                            closures=False)
    for name in contacts:
        solver.add_contact(PlanarContact(name, unilateral=False, kinematic=False))
    applied = [solver.add_external_wrench(ExternalWrench(item.frame)) for item in known]
    layout = solver.layout
    nv, count, size = robot.nv, len(frames), WRENCH_SIZE * len(contacts)
    data = FrameData(np.empty((count, 6, size)), np.empty((count, 6)), np.empty((count, robot.na, size)),
                     np.empty((count, robot.na)), np.empty((count, len(contacts), 3, 3)))
    frame_ids = [robot.frame_id(name) for name in contacts]
    for t, (q, v, a) in enumerate(zip(frames, velocities, accelerations)):
        robot.update_unchecked(q, v)
        for item, wrench in zip(known, applied):
            wrench.set_wrench(item.wrenches[t], None if item.points is None else item.points[t])
        layout.assemble()
        root, rhs = layout.A[:6], layout.b[:6]                 # root rows: A x = b, x = [q̈; f]
        matrix, offset = layout.context.torque_map()          # τ_a = T x + t
        data.root_matrix[t] = root[:, nv:]
        data.root_rhs[t] = rhs - root[:, :nv] @ a
        data.torque_matrix[t] = matrix[:, nv:]
        data.torque_offset[t] = matrix[:, :nv] @ a + offset
        for j, frame_id in enumerate(frame_ids):
            data.rotations[t, j] = robot.frame_rotation(frame_id)
        if progress is not None and (t + 1) % 100 == 0:
            progress(100)
    if progress is not None and count % 100:
        progress(count % 100)
    return data
