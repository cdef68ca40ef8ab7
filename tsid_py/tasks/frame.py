"""Frame tasks: a frame's placement (FrameTask), position (PositionTask), orientation
(OrientationTask), and one frame's placement relative to another (RelativeFrameTask).

Errors are expressed in world-aligned axes at the frame origin, or in the frame's own axes
with ``local=True`` (gains, weights, masks, velocity and acceleration references then apply
along the frame's axes). The orientation error is the rotation vector
``log3(R_ref Rᵀ)`` (world) or ``log3(Rᵀ R_ref)`` (local), rad; its rate is taken as
``ω_ref − ω``, exact at zero error and the standard first-order model elsewhere.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .._validation import as_matrix, as_rotation, as_vector, finite_vector
from ..frames import direct
from ..rows import PDKinematics
from .base import PDTask

_LINEAR, _ANGULAR, _BOTH = slice(0, 3), slice(3, 6), slice(0, 6)


def as_se3(value, name: str = "target") -> pin.SE3:
    """An SE3 from a ``pinocchio.SE3`` or a 4x4 homogeneous matrix."""
    if isinstance(value, pin.SE3):
        return value.copy()
    matrix = as_matrix(value, name, (4, 4))
    if np.abs(matrix[3] - [0, 0, 0, 1]).max() > 1e-9:
        raise ValueError(f"{name} must be a homogeneous transform (last row 0 0 0 1)")
    return pin.SE3(as_rotation(matrix[:3, :3], f"{name}[:3, :3]"), matrix[:3, 3].copy())


def _rotate_rows(rotation_t: np.ndarray, components: slice, *arrays):
    """Apply ``Rᵀ`` block-wise to the 3-row blocks of each array (vector or matrix)."""
    out = []
    for array in arrays:
        rotated = np.empty_like(array)
        for start in range(0, components.stop - components.start, 3):
            rotated[start:start + 3] = rotation_t @ array[start:start + 3]
        out.append(rotated)
    return out


class FrameTask(PDTask):
    """Track an SE3 placement of ``frame`` (6 rows: position then orientation).

    ``target``: ``pinocchio.SE3`` or 4x4 matrix (default: the placement at the robot's
    ``q_ref``). ``velocity``/``acceleration``: (6,) ``[linear, angular]`` in the task's axes.

    Parameters
    ----------
    frame : the name of the frame to move.
    target : the placement to reach, ``pinocchio.SE3`` or 4x4 homogeneous matrix (default:
        the frame's placement at the robot's ``q_ref``).
    local : errors, gains, weights, masks and references along the frame's own axes instead
        of world-aligned axes at the frame origin.
    kp : proportional gains, 1/s² (scalar or one per axis, ≥ 0).
    kd : derivative gains, 1/s (scalar or one per axis, ≥ 0); default ``2 √kp``.
    weight : per-axis weights of the cost (scalar or one per axis, ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans, one per axis, selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default: ``"<class name>(<frame>)"``).
    """

    components = _BOTH

    def __init__(self, frame: str, target=None, *, local: bool = False, kp=10.0, kd=None, weight=1.0,
                 priority: str | int = "soft", mask=None, name: str | None = None):
        if not isinstance(frame, str):
            raise ValueError(f"frame must be a frame name (str), got {frame!r}")
        self.frame = frame
        self.local = bool(local)
        self.frame_id = -1
        self._placement_ref = None
        super().__init__(self.components.stop - self.components.start, kp=kp, kd=kd, weight=weight,
                         priority=priority, mask=mask, name=f"{type(self).__name__}({frame})" if name is None else name)
        if target is not None:
            self.set_target(target)

    def bind(self, robot) -> None:
        """Resolve ``frame`` against ``robot`` and take its kinematic sources for the compiled
        rows (called once, when the task is added)."""
        self.frame_id = robot.frame_id(self.frame)
        self._sources = robot.frame_sources(self.frame_id)
        self._jacobian, self._drift = np.zeros((6, robot.nv)), np.zeros(6)     # the kernel's, refreshed each step

    # ------------------------------------------------------------------------ targets
    def default_target(self, robot):
        """The frame's placement at the robot's ``q_ref``."""
        return robot.placement_at(robot.q_ref, self.frame_id)

    def apply_target(self, target) -> None:
        """Store the reference placement from ``target``: a ``pinocchio.SE3`` or 4x4 homogeneous
        matrix (a point (3,), m, for :class:`PositionTask`; a 3x3 rotation for
        :class:`OrientationTask`); ``ValueError`` if it is not finite."""
        self._set_placement_ref(self._target_placement(target))

    def _target_placement(self, target) -> pin.SE3:
        return as_se3(target)

    def _set_placement_ref(self, placement: pin.SE3) -> None:
        translation, rotation = placement.translation.copy(), placement.rotation.copy()     # C-ordered copies
        if not (finite_vector(translation) and finite_vector(rotation.reshape(9))):
            raise ValueError(f"target of {self.name} must be finite (no NaN or inf)")
        self._placement_ref = placement
        self._translation_ref, self._rotation_ref = translation, rotation

    @property
    def target(self) -> pin.SE3 | None:
        """The target placement (None until set or until the task is added)."""
        return self._placement_ref

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """The reference translation (3,), rotation (3, 3), velocity and acceleration."""
        return self._translation_ref, self._rotation_ref, self.velocity_ref, self.acceleration_ref

    def restore_targets(self, values) -> None:
        """Copies of ``values`` as :meth:`target_arrays`'s arrays (and the placement from them)."""
        translation, rotation, velocity, acceleration = (np.array(value, dtype=float) for value in values)
        self._translation_ref, self._rotation_ref = translation, rotation
        self._placement_ref = pin.SE3(rotation.copy(), translation.copy())
        self.velocity_ref, self.acceleration_ref = velocity, acceleration

    # ------------------------------------------------------------------------ measurement
    def _error(self, robot) -> np.ndarray:
        """The error of the task's components, world-aligned: position then rotation vector."""
        return np.concatenate([self._translation_ref - robot.frame_translation(self.frame_id),
                               pin.log3(self._rotation_ref @ robot.frame_rotation(self.frame_id).T)])

    def kinematics(self, robot) -> PDKinematics:
        """The error, Jacobian and drift from pinocchio's frame queries and ``log3``, in the
        task's axes: the readable definition of the rows, which :meth:`write_rows` forms
        in one compiled call."""
        rows, frame_id = self.components, self.frame_id
        reference = pin.LOCAL if self.local else pin.LOCAL_WORLD_ALIGNED
        error = self._error(robot)
        if self.local:
            (error,) = _rotate_rows(robot.frame_rotation(frame_id).T, rows, error)
        return PDKinematics(error, robot.frame_jacobian(frame_id, reference), robot.frame_drift(frame_id, reference),
                            rows.start)

    def packed_parameters(self, weighted: bool, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """:meth:`PDTask.packed_parameters` after the target translation and rotation, then
        room for the frame's Jacobian and drift (6 nv + 6); ints then the frame, whether the
        axes are local, the first of the task's components and the frame's supporting
        columns (their count first)."""
        floats, ints = super().packed_parameters(weighted, nv)
        columns = self._sources.columns
        return ([self._translation_ref, self._rotation_ref.ravel(), *floats, np.zeros(6 * nv + 6)],
                [*ints, np.array([self.frame_id, self.local, self.components.start, columns.size]), columns])

    def write_rows(self, context, matrix, vector, weighted):
        """The PD rows from the frame's sources in one compiled call
        (:func:`~tsid_py.frames.frame_pd_rows`: the frame's Jacobian and drift, the
        placement error, and :meth:`PDTask.write_rows`'s rows)."""
        self.error, self.error_rate = self.error_buffers
        sources = self._sources            # (each by position: a *-call would build an argument tuple)
        direct.frame_pd_rows(sources[0], sources[1], sources[2], sources[3], sources[4], context.robot.v, self._translation_ref, self._rotation_ref,
                             self.local, self.components.start, self._rows, self._row_scales[weighted],
                             self.acceleration_ref, self.velocity_ref, self._kp, self._kd, self._jacobian,
                             self._drift, self.error, self.error_rate, matrix, vector)


class PositionTask(FrameTask):
    """The position half of :class:`FrameTask`; ``target`` is a point (3,), m.

    Parameters
    ----------
    frame : the name of the frame whose origin to move.
    target : the point to reach (3,), m, world axes (default: the frame's position at ``q_ref``).
    local, kp, kd, weight, priority, mask : as for :class:`FrameTask`, on 3 axes.
    name : how reports and errors name the task (default: ``"PositionTask(<frame>)"``).
    """

    components = _LINEAR

    def default_target(self, robot):
        """The frame's position at the robot's ``q_ref``."""
        return robot.placement_at(robot.q_ref, self.frame_id).translation

    def _target_placement(self, target) -> pin.SE3:
        rotation = np.eye(3) if self._placement_ref is None else self._placement_ref.rotation
        return pin.SE3(rotation, as_vector(target, "target", 3).copy())

    def _error(self, robot) -> np.ndarray:
        return self._translation_ref - robot.frame_translation(self.frame_id)


class OrientationTask(FrameTask):
    """The orientation half of :class:`FrameTask`; ``target`` is a 3x3 rotation matrix.

    Parameters
    ----------
    frame : the name of the frame to orient.
    target : the rotation to reach (3x3, world axes; default: the frame's at ``q_ref``).
    local, kp, kd, weight, priority, mask : as for :class:`FrameTask`, on 3 axes.
    name : how reports and errors name the task (default: ``"OrientationTask(<frame>)"``).
    """

    components = _ANGULAR

    def default_target(self, robot):
        """The frame's orientation at the robot's ``q_ref``."""
        return robot.placement_at(robot.q_ref, self.frame_id).rotation

    def _target_placement(self, target) -> pin.SE3:
        translation = np.zeros(3) if self._placement_ref is None else self._placement_ref.translation
        return pin.SE3(as_rotation(target, "target"), translation)

    def _error(self, robot) -> np.ndarray:
        return pin.log3(self._rotation_ref @ robot.frame_rotation(self.frame_id).T)


class RelativeFrameTask(PDTask):
    """Track the placement of ``frame`` relative to ``reference_frame``, ``ᵇT_a``.

    Errors and rates are in the reference frame's axes. With ``p = R_bᵀ (p_a − p_b)`` the
    rows are

    * linear: ``R_bᵀ (J_a − J_b + [r]× J_b^ω) q̈`` with drift
      ``R_bᵀ (ȧ_a − ȧ_b + r × ȧ_b^ω − 2 ω_b × ṙ + ω_b × (ω_b × r))``,
    * angular: ``R_bᵀ (J_a^ω − J_b^ω) q̈`` with drift ``R_bᵀ (ȧ_a^ω − ȧ_b^ω − ω_b × (ω_a − ω_b))``,

    where ``r = p_a − p_b`` and ``ȧ`` are the classical drifts (world-aligned).

    Parameters
    ----------
    frame : the name of the frame to move (``a``).
    reference_frame : the name of the frame it is placed relative to (``b``).
    target : the relative placement ``ᵇT_a`` to reach, ``pinocchio.SE3`` or 4x4 homogeneous
        matrix (default: the relative placement at the robot's ``q_ref``).
    kp : proportional gains, 1/s² (scalar or (6,), ≥ 0).
    kd : derivative gains, 1/s (scalar or (6,), ≥ 0); default ``2 √kp``.
    weight : per-axis weights of the cost (scalar or (6,), ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans (6,) selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default:
        ``"RelativeFrameTask(<frame> in <reference_frame>)"``).
    """

    def __init__(self, frame: str, reference_frame: str, target=None, *, kp=10.0, kd=None, weight=1.0,
                 priority: str | int = "soft", mask=None, name: str | None = None):
        for label, value in (("frame", frame), ("reference_frame", reference_frame)):
            if not isinstance(value, str):
                raise ValueError(f"{label} must be a frame name (str), got {value!r}")
        self.frame, self.reference_frame = frame, reference_frame
        self._placement_ref = None
        if name is None:
            name = f"RelativeFrameTask({frame} in {reference_frame})"
        super().__init__(6, kp=kp, kd=kd, weight=weight, priority=priority, mask=mask, name=name)
        if target is not None:
            self.set_target(target)

    def bind(self, robot) -> None:
        """Resolve ``frame`` and ``reference_frame`` against ``robot`` (once, when added)."""
        self.frame_id = robot.frame_id(self.frame)
        self.reference_id = robot.frame_id(self.reference_frame)

    def default_target(self, robot):
        """The relative placement at the robot's ``q_ref``."""
        return robot.placement_at(robot.q_ref, self.reference_id).actInv(robot.placement_at(robot.q_ref, self.frame_id))

    def apply_target(self, target) -> None:
        """Store ``target``, the relative placement ``ᵇT_a`` (``pinocchio.SE3`` or 4x4 matrix)."""
        self._placement_ref = as_se3(target)

    @property
    def target(self) -> pin.SE3 | None:
        """The target relative placement ``ᵇT_a``."""
        return self._placement_ref

    def relative_placement(self, robot) -> pin.SE3:
        """The current placement of ``frame`` in ``reference_frame``, ``ᵇT_a = T_b⁻¹ T_a``."""
        return robot.frame_placement(self.reference_id).actInv(robot.frame_placement(self.frame_id))

    def kinematics(self, robot) -> PDKinematics:
        """The rows of the class docstring at the robot's current state, in ``b``'s axes: the
        error ``[p_ref − p; log3(R_ref Rᵀ)]`` (m, rad) with ``(p, R)`` the relative placement,
        the Jacobian (6 × nv) and the drift."""
        placement_a = robot.frame_placement(self.frame_id)
        placement_b = robot.frame_placement(self.reference_id)
        rotation_bt = placement_b.rotation.T
        relative = placement_b.actInv(placement_a)
        jac_a, jac_b = robot.frame_jacobian(self.frame_id), robot.frame_jacobian(self.reference_id)
        vel_a, vel_b = robot.frame_velocity(self.frame_id), robot.frame_velocity(self.reference_id)
        acc_a, acc_b = robot.frame_drift(self.frame_id), robot.frame_drift(self.reference_id)
        r = placement_a.translation - placement_b.translation
        r_dot = vel_a[:3] - vel_b[:3]
        omega_b = vel_b[3:]
        jacobian = np.empty_like(jac_a)
        jacobian[:3] = rotation_bt @ (jac_a[:3] - jac_b[:3] + pin.skew(r) @ jac_b[3:])
        jacobian[3:] = rotation_bt @ (jac_a[3:] - jac_b[3:])
        drift = np.empty(6)
        drift[:3] = rotation_bt @ (acc_a[:3] - acc_b[:3] + np.cross(r, acc_b[3:])
                                   - 2.0 * np.cross(omega_b, r_dot) + np.cross(omega_b, np.cross(omega_b, r)))
        drift[3:] = rotation_bt @ (acc_a[3:] - acc_b[3:] - np.cross(omega_b, vel_a[3:] - vel_b[3:]))
        error = np.empty(6)
        error[:3] = self._placement_ref.translation - relative.translation
        error[3:] = pin.log3(self._placement_ref.rotation @ relative.rotation.T)
        return PDKinematics(error, jacobian, drift, 0)
