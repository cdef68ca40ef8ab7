"""The map between an OpenSim model's coordinates and its pinocchio model's ``q`` and ``v``.

OpenSim describes a pose by its coordinates ``c`` (the columns of an inverse-kinematics
``.mot``: ``pelvis_tilt``, …, ``knee_angle_r``, …). The pinocchio model of
:mod:`.opensim` has one joint per moving transform axis, so ``q = g(c)``:

- a free-flyer root (``ground_pelvis``): position ``p = Σ_i t_i c_i`` (the translation axes
  ``t_i``) and orientation ``R = R(a_1, c_1) R(a_2, c_2) R(a_3, c_3)`` (body-fixed), stored
  as pinocchio's ``x y z qx qy qz qw``;
- an axis that is its coordinate: ``q_j = c``;
- a dependent axis (e.g. the knee's spline translations): ``q_j = f_j(c)``.

Velocities are linear in the coordinate rates, ``v = Φ(c) ċ``, with the free flyer's
``v = (Rᵀ ṗ, ω_local)`` and ``ω_local = R_3ᵀR_2ᵀ a_1 ċ_1 + R_3ᵀ a_2 ċ_2 + a_3 ċ_3``, and
``Φ_jk = f_j'(c_k)`` for a dependent axis. By virtual work the generalized forces of the
coordinates — OpenSim's inverse-dynamics output, whose pelvis entries are the residual
forces (N) and moments (N·m) — are ``τ_c = Φᵀ τ`` from pinocchio's ``τ`` (nv).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .osim_functions import OsimFunction


@dataclass(frozen=True)
class Coordinate:
    """One OpenSim coordinate: ``rotational`` (rad) or translational (m), its joint, default
    value, ``range`` and whether it is ``locked``."""

    name: str
    joint: str
    rotational: bool
    default: float
    range: tuple[float, float]
    locked: bool = False


@dataclass(frozen=True)
class AxisJoint:
    """A 1-dof pinocchio joint of a joint's chain: ``q[q_index] = function(c[coordinate])``;
    ``carrier`` when the function is the identity (the joint *is* the coordinate)."""

    name: str
    q_index: int
    v_index: int
    coordinate: str
    function: OsimFunction
    carrier: bool


@dataclass(frozen=True)
class FloatingRoot:
    """The free-flyer root: rotation axes ``a_k`` (3, 3) and their coordinates' indices, then
    the translation axes ``t_i`` (3, 3) and theirs. The free flyer is ``q[:7]``, ``v[:6]``."""

    rotation_axes: np.ndarray
    rotation_coordinates: tuple[int, int, int]
    translation_axes: np.ndarray
    translation_coordinates: tuple[int, int, int]


class CoordinateMap:
    """``q = g(c)`` and ``Φ(c) = ∂v/∂ċ`` of an OpenSim model (see the module docstring)."""

    def __init__(self, coordinates: list[Coordinate], root: FloatingRoot | None, axis_joints: list[AxisJoint],
                 nq: int, nv: int):
        self.coordinates = list(coordinates)
        self.names = [c.name for c in coordinates]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.rotational = np.array([c.rotational for c in coordinates], dtype=bool)
        self.root = root
        self.axis_joints = list(axis_joints)
        self.nq, self.nv = nq, nv
        self._axis_coordinate = np.array([self.index[a.coordinate] for a in axis_joints], dtype=int)

    def __len__(self) -> int:
        return len(self.names)

    @property
    def dependent_joints(self) -> list[str]:
        """Pinocchio joints whose position is a function of a coordinate (not a coordinate)."""
        return [a.name for a in self.axis_joints if not a.carrier]

    @property
    def defaults(self) -> np.ndarray:
        return np.array([c.default for c in self.coordinates])

    def _values(self, values) -> tuple[np.ndarray, bool]:
        array = np.asarray(values, dtype=float)
        single = array.ndim == 1
        array = np.atleast_2d(array)
        if array.shape[1] != len(self):
            raise ValueError(f"coordinates must have {len(self)} columns ({', '.join(self.names)}), "
                             f"got {array.shape[1]}")
        return array, single

    def _root_rotations(self, c: np.ndarray) -> list[np.ndarray]:
        return [pin.exp3(axis * c[k]) for axis, k in zip(self.root.rotation_axes, self.root.rotation_coordinates)]

    def configurations(self, values) -> np.ndarray:
        """pinocchio configurations ``q = g(c)``: (T, nq) from (T, n) coordinates (rad, m), or
        (nq,) from (n,)."""
        c, single = self._values(values)
        q = np.zeros((len(c), self.nq))
        for t, row in enumerate(c):
            if self.root is not None:
                R1, R2, R3 = self._root_rotations(row)
                q[t, :3] = self.root.translation_axes.T @ row[list(self.root.translation_coordinates)]
                q[t, 3:7] = pin.Quaternion(R1 @ R2 @ R3).coeffs()
        for axis, k in zip(self.axis_joints, self._axis_coordinate):
            q[:, axis.q_index] = axis.function.evaluate(c[:, k])[0]
        return q[0] if single else q

    def velocity_maps(self, values) -> np.ndarray:
        """``Φ(c)`` (T, nv, n): ``v = Φ ċ``, and ``τ_c = Φᵀ τ`` (see the module docstring)."""
        c, single = self._values(values)
        phi = np.zeros((len(c), self.nv, len(self)))
        if self.root is not None:
            rot, trans = self.root.rotation_coordinates, self.root.translation_coordinates
            for t, row in enumerate(c):
                R1, R2, R3 = self._root_rotations(row)
                R = R1 @ R2 @ R3
                for axis, k in zip(self.root.translation_axes, trans):
                    phi[t, :3, k] = R.T @ axis
                a1, a2, a3 = self.root.rotation_axes
                phi[t, 3:6, rot[0]] = R3.T @ R2.T @ a1
                phi[t, 3:6, rot[1]] = R3.T @ a2
                phi[t, 3:6, rot[2]] = a3
        for axis, k in zip(self.axis_joints, self._axis_coordinate):
            phi[:, axis.v_index, k] = axis.function.evaluate(c[:, k])[1]
        return phi[0] if single else phi

    def generalized_forces(self, values, tau) -> np.ndarray:
        """OpenSim's generalized forces ``τ_c = Φ(c)ᵀ τ`` (T, n) from pinocchio's ``tau`` (T, nv)."""
        phi = self.velocity_maps(np.atleast_2d(values))
        return np.einsum("tvn,tv->tn", phi, np.atleast_2d(tau))

    def coordinates_of(self, configurations) -> np.ndarray:
        """The coordinates (T, n) of pinocchio configurations (T, nq): the inverse of
        :meth:`configurations` (the root's angles by an Euler decomposition along its axes,
        which must be coordinate axes ±x, ±y, ±z, as in OpenSim's models)."""
        q = np.atleast_2d(np.asarray(configurations, dtype=float))
        c = np.zeros((len(q), len(self)))
        for axis, k in zip(self.axis_joints, self._axis_coordinate):
            if axis.carrier:
                c[:, k] = q[:, axis.q_index]
        if self.root is not None:
            from scipy.spatial.transform import Rotation

            c[:, list(self.root.translation_coordinates)] = np.linalg.solve(self.root.translation_axes.T, q[:, :3].T).T
            letters, signs = _axis_letters(self.root.rotation_axes)
            angles = Rotation.from_quat(q[:, 3:7]).as_euler(letters)          # intrinsic: body-fixed
            c[:, list(self.root.rotation_coordinates)] = angles * signs
        return c


def _axis_letters(axes: np.ndarray) -> tuple[str, np.ndarray]:
    """The intrinsic Euler sequence (e.g. ``"ZXY"``) and signs of three coordinate axes."""
    letters, signs = "", []
    for axis in axes:
        index = int(np.argmax(np.abs(axis)))
        if not np.isclose(abs(axis[index]), 1.0):
            raise ValueError(f"the root's rotation axes must be coordinate axes (±x, ±y, ±z), got {axes.tolist()}")
        letters += "XYZ"[index]
        signs.append(np.sign(axis[index]))
    if len(set(letters)) != 3:
        raise ValueError(f"the root's rotation axes must be three different coordinate axes, got {axes.tolist()}")
    return letters, np.array(signs)
