"""Inertias MuJoCo accepts: the nearest valid one to a model file's, and the report of the change.

A rigid body's rotational inertia about its centre of mass, ``I = ∫ (|r|² 1 − r rᵀ) dm``
(3 × 3, kg·m²), has principal moments (eigenvalues) ``λ₁, λ₂, λ₃`` with ``λᵢ ≥ 0`` and the
triangle inequalities ``λᵢ + λⱼ ≥ λₖ`` (``λᵢ + λⱼ − λₖ = 2 ∫ rₖ² dm``). Model files often break
them (rounded CAD exports, placeholder values such as ``1e-6`` in every entry); pinocchio
accepts any matrix, MuJoCo refuses with "inertia must have positive eigenvalues" or "inertia
must satisfy A + B >= C", and also refuses a moving body (one with a joint) lighter than
``mjMINVAL``.

:func:`nearest_valid_inertia` returns the symmetric matrix nearest to ``I`` in the Frobenius
norm among those whose moments satisfy ``λᵢ ≥ m`` and ``λᵢ + λⱼ − λₖ ≥ m`` with the margin
``m = max(MIN_MOMENT, MARGIN · max|λ⁰|)`` (MuJoCo recomputes the moments from the rotated
matrix, and a moment exactly on the boundary fails that check by round-off about one time in
three). The set is spectral (it depends on the moments only, in any order), so the nearest
matrix keeps ``I``'s principal axes and projects its moments onto the polyhedron (A. S. Lewis,
"Convex analysis on the Hermitian matrices", 1996): ``min ‖λ − λ⁰‖²`` over six linear
inequalities in three variables, solved exactly by enumerating the active sets.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np

#: Smallest principal moment and triangle slack of a repaired inertia, kg·m².
MIN_MOMENT = 1e-12
#: The margin relative to the largest moment of the file's inertia.
MARGIN = 1e-9
#: Mass given to a moving body that has none (MuJoCo refuses < mjMINVAL = 1e-15), kg, and its
#: inertia per axis if it has none either, kg·m² (a milligram at a centimetre).
MIN_MASS = 1e-6
MIN_INERTIA = 1e-10

#: The six inequalities ``G λ ≥ m``: each moment, then each triangle inequality.
_G = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1]])


def project_moments(moments, margin: float) -> np.ndarray:
    """The point nearest to ``moments`` (3,) with ``G λ ≥ margin`` (see the module): the
    candidate of each active set (``λ = λ⁰ + G_Sᵀ μ`` with ``G_S λ = margin``) that is feasible
    with ``μ ≥ 0`` satisfies the KKT conditions of this convex problem, hence is the answer."""
    moments = np.asarray(moments, dtype=float)
    if np.all(_G @ moments >= margin):
        return moments.copy()
    best, best_distance = None, np.inf
    for size in (1, 2, 3):
        for active in itertools.combinations(range(6), size):
            rows = _G[list(active)]
            gram = rows @ rows.T
            if abs(np.linalg.det(gram)) < 1e-12:
                continue
            multipliers = np.linalg.solve(gram, margin - rows @ moments)
            candidate = moments + rows.T @ multipliers
            tolerance = 1e-3 * margin
            if multipliers.min() >= -tolerance and np.all(_G @ candidate >= margin - tolerance):
                distance = np.linalg.norm(candidate - moments)
                if distance < best_distance:
                    best, best_distance = candidate, distance
    return best


def nearest_valid_inertia(inertia) -> np.ndarray:
    """The valid inertia nearest to ``inertia`` (3, 3) (see the module); ``inertia`` itself
    (symmetrised) when it is valid."""
    inertia = np.asarray(inertia, dtype=float)
    inertia = (inertia + inertia.T) / 2
    moments, axes = np.linalg.eigh(inertia)
    margin = max(MIN_MOMENT, MARGIN * np.abs(moments).max())
    projected = project_moments(moments, margin)
    if np.array_equal(projected, moments):
        return inertia
    return axes @ np.diag(projected) @ axes.T


@dataclass(frozen=True)
class InertiaRepair:
    """One body's change: its mass and inertia before and after, kg and kg·m² (3, 3)."""

    body: str
    mass_before: float
    mass_after: float
    inertia_before: np.ndarray
    inertia_after: np.ndarray

    @property
    def change(self) -> float:
        """Frobenius norm of the inertia's change, kg·m²."""
        return float(np.linalg.norm(self.inertia_after - self.inertia_before))

    def describe_change(self) -> str:
        """The change without the body's name: its principal moments before and after, the
        change, the mass."""
        before = np.linalg.eigvalsh(self.inertia_before)
        after = np.linalg.eigvalsh(self.inertia_after)
        scale = np.linalg.norm(self.inertia_before)
        relative = f", {self.change / scale:.2g} of the file's" if scale > 0 else ""
        text = (f"principal moments {_moments(before)} kg·m² -> {_moments(after)} "
                f"(changed by {self.change:.3g} kg·m²{relative})")
        if self.mass_after != self.mass_before:
            text += f", mass {self.mass_before:.3g} -> {self.mass_after:.3g} kg"
        return text


def describe_repairs(repairs, most: int = 4) -> str:
    """``repairs`` in a few lines: bodies changed alike (a hand's massless fingers) share one,
    ``"bodies 'a', 'b' and 3 more: <change>"``, naming at most ``most`` of them."""
    from ..models.check.urdf_text import listed      # (a warning's text only: imported then)

    alike: dict[str, list[str]] = {}
    for repair in repairs:
        alike.setdefault(repair.describe_change(), []).append(repair.body)
    return "; ".join(f"{'body' if len(bodies) == 1 else 'bodies'} {listed(bodies, most)}: {change}"
                     for change, bodies in alike.items())


def _moments(values) -> str:
    """Moments to 4 digits, round-off (below 1e-12 of the largest) shown as 0."""
    floor = 1e-12 * max(np.abs(values).max(), 1e-300)
    return "(" + ", ".join(f"{value if abs(value) > floor else 0.0:.4g}" for value in values) + ")"


def full_matrix(six) -> np.ndarray:
    """MuJoCo's ``fullinertia`` ``[ixx, iyy, izz, ixy, ixz, iyz]`` as a symmetric matrix."""
    xx, yy, zz, xy, xz, yz = six
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def is_valid_inertia(inertia) -> bool:
    """Whether MuJoCo accepts ``inertia`` (3, 3) as it is: zero (a massless link), or positive
    principal moments with the triangle inequalities, each by more than round-off
    (10⁻¹² of the largest moment, the margin that keeps MuJoCo's own recomputation agreeing)."""
    inertia = np.asarray(inertia, dtype=float)
    if not np.any(inertia):
        return True
    moments = np.linalg.eigvalsh((inertia + inertia.T) / 2)
    return bool(np.all(_G @ moments > 1e-12 * np.abs(moments).max()))


def repair_spec_inertias(spec, underweight: dict) -> list[InertiaRepair]:
    """Make every body of an ``mujoco.MjSpec`` acceptable to MuJoCo's compiler, in place:
    an invalid explicit inertia (:func:`is_valid_inertia`) replaced by the nearest valid one;
    a moving body MuJoCo finds too light (``underweight``: name → (no mass, no inertia), see
    :func:`underweight_moving_bodies`) given :data:`MIN_MASS` and/or the
    inertia ``MIN_INERTIA · 1``. Returns what changed."""
    repairs = []
    for body in spec.bodies[1:]:
        full = np.asarray(body.fullinertia, dtype=float)
        uses_full = body.explicitinertial and np.isfinite(full[0])
        if uses_full:
            before = full_matrix(full)
        else:
            before = np.diag(np.asarray(body.inertia, dtype=float)) if body.explicitinertial else np.zeros((3, 3))
        mass_before = float(body.mass) if body.explicitinertial else 0.0
        no_mass, no_inertia = underweight.get(body.name, (False, False))
        if not (no_mass or no_inertia) and is_valid_inertia(before):
            continue
        after = MIN_INERTIA * np.eye(3) if no_inertia or not np.any(before) else nearest_valid_inertia(before)
        mass = max(mass_before, MIN_MASS) if no_mass else mass_before
        if not body.explicitinertial:
            body.explicitinertial, body.ipos, body.iquat = True, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
        body.mass = mass
        if uses_full:
            body.fullinertia = [after[0, 0], after[1, 1], after[2, 2], after[0, 1], after[0, 2], after[1, 2]]
        else:   # diagonal in its principal frame (``iquat``), and so is the nearest valid one
            body.inertia = np.diag(after)
        repairs.append(InertiaRepair(body.name, mass_before, mass, before, after))
    return repairs


def add_isotropic_inertias(spec, moments: dict[str, float]) -> None:
    """Add ``k · 1`` (kg·m²) to the rotational inertia of each body of ``spec`` named in
    ``moments`` (body name → ``k``), in place: the inertia the loader gave the links the file
    makes point masses (:mod:`tsid_py.models.point_masses`), so that the simulated robot is
    the controller's. Isotropic, it is the same in any inertial frame."""
    for body in spec.bodies[1:]:
        moment = moments.get(body.name)
        if moment is None:
            continue
        if not body.explicitinertial:
            raise ValueError(f"body {body.name!r} has no inertial in the simulator's model, but the loader gave its "
                             "link an inertia: the robot's source does not match its URDF")
        full = np.asarray(body.fullinertia, dtype=float)
        if np.isfinite(full[0]):
            body.fullinertia = full + moment * np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
        else:
            body.inertia = np.asarray(body.inertia, dtype=float) + moment


def repair_inertias(spec, filename: str) -> list[InertiaRepair]:
    """:func:`repair_spec_inertias` on ``spec`` (a model read from ``filename``) with the
    moving bodies MuJoCo would find too light, and one warning listing what changed."""
    repairs = repair_spec_inertias(spec, underweight_moving_bodies(spec))
    if repairs:
        warnings.warn(f"{filename}: {len(repairs)} inertia(s) that MuJoCo refuses (or accepts only by round-off, on "
                      "the boundary) were replaced by the nearest valid ones in the simulator (the controller's "
                      "model keeps the file's): "
                      + describe_repairs(repairs), UserWarning, stacklevel=5)
    return repairs


def underweight_moving_bodies(spec) -> dict[str, tuple[bool, bool]]:
    """The bodies MuJoCo would refuse as "moving bodies" lighter than ``mjMINVAL`` (1e-15):
    name → (no mass, no inertia), for the bodies with a joint whose own mass (inertia trace)
    plus that of the joint-less descendants welded to them is below ``mjMINVAL``."""

    def welded(body) -> tuple[float, float]:
        mass = float(body.mass) if body.explicitinertial else 0.0
        trace = float(np.sum(body.inertia)) if body.explicitinertial else 0.0
        full = np.asarray(body.fullinertia, dtype=float)
        if body.explicitinertial and np.isfinite(full[0]):
            trace = float(np.sum(full[:3]))
        for child in body.bodies:
            if not child.joints:
                child_mass, child_trace = welded(child)
                mass, trace = mass + child_mass, trace + child_trace
        return mass, trace

    found = {}
    for body in spec.bodies[1:]:
        if body.joints:
            mass, trace = welded(body)
            if mass < 1e-15 or trace < 1e-15:
                found[body.name] = (mass < 1e-15, trace < 1e-15)
    return found
