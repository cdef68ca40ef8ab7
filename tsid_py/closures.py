"""Closed chains and couplings: constraints of the mechanism, with their forces as variables.

A closure is a relation ``c(q) = 0`` the mechanism itself keeps — a rod's end pinned to a
foot (a loop closed by a ball joint), two bodies welded, a joint that follows another through
a linkage (a URDF ``<mimic>``), a tendon of fixed length. The mechanism keeps it with a force
``λ`` (size ``m``), which enters the equation of motion through the closure's Jacobian
``J_c = ∂c/∂q`` (m × nv, in velocity coordinates):

    M q̈ + h = Sᵀτ + Σ J_iᵀ f_i + J_cᵀ λ.

``λ`` is a variable of the QP (after the contacts' forces, :mod:`tsid_py.assembly`), so that
its columns of ``D = [M, −J_iᵀG_i, −J_cᵀ]`` are ``−J_cᵀ``, and the closure's rows are
equalities on the acceleration, the second derivative of ``c`` stabilised (Baumgarte):

    J_c q̈ + J̇_c v = −Kd J_c v − Kp c(q).

With the joints that have no motor held at ``τ = 0`` (the solver's passive rows), the
actuated joints' torques are then the motors' torques of the closed mechanism: a loop driven
by its rods' joints carries the ankle's torque through the rods' forces ``λ``. The closure's
rows are hard: a mechanism does not give way.

Why forces as variables rather than eliminating the dependent coordinates: one treatment for
every kind of closure (a loop's ``c`` has no closed-form solution for its dependent joints);
the reduced backend eliminates the equalities by a null-space basis each step anyway, so
``λ`` and the dependent accelerations cost an elimination, not a larger QP; and the robot's
coordinates stay the file's joints (what the simulator, the posture task and the logs
address). pinocchio 4.1's mimic model (``buildModelFromUrdf(..., mimic=True)``) eliminates a
mimic joint exactly, but its ``computeAllTerms`` and ``aba`` refuse the mimic joint type.

The kinds (each built from the model file's description, :attr:`tsid_py.Robot.closures`):

* :class:`PointClosure` (MJCF ``connect``): ``c = p₁ − p₂`` (m, world axes), ``λ`` the force
  (N, world axes) on body 1 at ``p₁`` (and ``−λ`` on body 2);
* :class:`FrameClosure` (MJCF ``weld``): ``c = [p₁ − p₂; R₂ log₃(R₂ᵀR₁)]`` (m, rad, world
  axes), ``λ`` the wrench ``[f; m]`` on body 1;
* :class:`JointCoupling` (URDF ``mimic``, MJCF ``joint`` and fixed-``tendon`` equalities):
  ``c = s − s₀ − Σₖ aₖ (r − r₀)ᵏ`` with ``s = Σ cⱼ qⱼ`` and ``r`` likewise (one row), ``λ`` a
  generalised force (N·m or N) along ``J_c``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pinocchio as pin
from numba import boolean, float64, njit, void

from ._numba import MATRIX, ORDERED_MATH, VECTOR, direct_calls
from .frames import FRAME_SOURCES, frame_motion_inline, rotation_vector
from .items import SolverItem
from .loaders.source import CoordinateCoupling, FrameJoin, PointJoin
from .settings import Setting, non_negative

#: Default stiffness of a closure's stabilisation, 1/s² (``kd = 2√kp``, critically damped):
#: a drift of the closure (an integration error, a compliant simulated joint) decays in about
#: 0.1–0.2 s, as a contact's does.
DEFAULT_KP = 100.0


class ClosureRows(NamedTuple):
    """A closure's kinematics at one state: ``jacobian`` ``J_c`` (m × nv), ``drift``
    ``J̇_c v`` (m,) and ``error`` ``c(q)`` (m,)."""

    jacobian: np.ndarray
    drift: np.ndarray
    error: np.ndarray


class Closure(SolverItem):
    """A constraint of the mechanism with ``size`` force variables (see the module).

    Parameters
    ----------
    name : how the solver, its reports and the solution name it.
    kp : stiffness of the stabilisation ``−Kp c``, 1/s² (≥ 0; default :data:`DEFAULT_KP`).
    kd : damping of the stabilisation ``−Kd J_c v``, 1/s (≥ 0; default ``2√kp``).
    """

    #: Number of force variables (and of rows).
    size: int = 0
    #: The velocity columns ``J_c`` may involve (set when bound): the joints between a join's
    #: two frames, a coupling's joints.
    columns: tuple[int, ...] = ()

    def __init__(self, name: str, *, kp: float = DEFAULT_KP, kd: float | None = None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        self.name = name
        self.kp = kp
        self.kd = 2.0 * np.sqrt(self._kp) if kd is None else kd
        #: ``c(q)`` at the last step's state (m, rad), written by each step.
        self.error = np.zeros(self.size)

    kp = Setting(non_negative)
    """Stiffness of the stabilisation, 1/s² (≥ 0)."""

    kd = Setting(non_negative)
    """Damping of the stabilisation, 1/s (≥ 0)."""

    def compute(self, robot) -> ClosureRows:
        """The readable definition of the closure's kinematics at the robot's last update."""
        raise NotImplementedError

    def write_rows(self, robot, force_block: np.ndarray, matrix: np.ndarray, vector: np.ndarray) -> None:
        """The closure's part of the step's QP: its columns of the equation of motion,
        ``force_block = −J_cᵀ`` (nv × size), and its rows ``matrix = J_c``,
        ``vector = −J̇_c v − Kd J_c v − Kp c``; :attr:`error` ``= c``. The default forms them
        from :meth:`compute`."""
        jacobian, drift, error = self.compute(robot)
        np.negative(jacobian.T, out=force_block)
        matrix[:] = jacobian
        vector[:] = -drift - self._kd * (jacobian @ robot.v) - self._kp * error
        self.error[:] = error

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


# ------------------------------------------------------------------------- points and frames
@njit(void(MATRIX, MATRIX, *FRAME_SOURCES[2:], *FRAME_SOURCES[2:], VECTOR, MATRIX, VECTOR, MATRIX, boolean, VECTOR,
           float64, float64, MATRIX, MATRIX, VECTOR, MATRIX, VECTOR, MATRIX, MATRIX, VECTOR, VECTOR),
      cache=True, fastmath=ORDERED_MATH)
def join_rows(joint_jacobians, joint_jacobian_rates, columns1, translation1, rotation1, columns2, translation2,
              rotation2, offset1, turn1, offset2, turn2, angular, v, kp, kd, points, jacobian1, drift1, jacobian2,
              drift2, force_block, matrix, vector, error):
    """A point or frame closure's rows from its two frames' sources.

    Each end ``pᵢ = tᵢ + Rᵢ offsetᵢ`` (into ``points[i]``) moves with its frame's body: its
    Jacobian and drift (world axes) are :func:`~tsid_py.frames.frame_motion`'s at that point
    (into ``jacobian1, drift1`` and ``jacobian2, drift2``). Rows 0–2 are the difference of the
    two ends' (``c = p₁ − p₂``); with ``angular``, rows 3–5 are ``J_ang,1 − J_ang,2``, the drift
    ``ω̇₁ − ω̇₂`` and ``c = R₂' log₃(R₂'ᵀ R₁')`` with ``Rᵢ' = Rᵢ turnᵢ``. Then
    ``vector = −J̇v − kd J v − kp c`` and ``force_block = −matrixᵀ``."""
    for r in range(3):
        points[0, r] = translation1[r] + rotation1[r, 0] * offset1[0] + rotation1[r, 1] * offset1[1] \
            + rotation1[r, 2] * offset1[2]
        points[1, r] = translation2[r] + rotation2[r, 0] * offset2[0] + rotation2[r, 1] * offset2[1] \
            + rotation2[r, 2] * offset2[2]
    frame_motion_inline(joint_jacobians, joint_jacobian_rates, columns1, points[0], rotation1, v, False, jacobian1,
                        drift1)
    frame_motion_inline(joint_jacobians, joint_jacobian_rates, columns2, points[1], rotation2, v, False, jacobian2,
                        drift2)
    for r in range(3):
        error[r] = points[0, r] - points[1, r]
    if angular:
        first, second, relative = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
        for i in range(3):
            for k in range(3):
                first[i, k] = rotation1[i, 0] * turn1[0, k] + rotation1[i, 1] * turn1[1, k] \
                    + rotation1[i, 2] * turn1[2, k]
                second[i, k] = rotation2[i, 0] * turn2[0, k] + rotation2[i, 1] * turn2[1, k] \
                    + rotation2[i, 2] * turn2[2, k]
        for i in range(3):
            for k in range(3):
                relative[i, k] = second[0, i] * first[0, k] + second[1, i] * first[1, k] + second[2, i] * first[2, k]
        rx, ry, rz = rotation_vector((relative[0, 0], relative[0, 1], relative[0, 2], relative[1, 0], relative[1, 1],
                                      relative[1, 2], relative[2, 0], relative[2, 1], relative[2, 2]))
        for r in range(3):
            error[3 + r] = second[r, 0] * rx + second[r, 1] * ry + second[r, 2] * rz
    for r in range(matrix.shape[0]):
        velocity = 0.0
        for j in range(v.size):
            value = jacobian1[r, j] - jacobian2[r, j]
            matrix[r, j] = value
            force_block[j, r] = -value
            velocity += value * v[j]
        vector[r] = -(drift1[r] - drift2[r]) - kd * velocity - kp * error[r]


_direct = direct_calls(join_rows)


class _Join(Closure):
    """What point and frame closures share: two frames, each with a placement on it."""

    angular = False

    def __init__(self, frame1: str, frame2: str, placement1: pin.SE3, placement2: pin.SE3, *, name, kp, kd):
        for key, frame in (("frame1", frame1), ("frame2", frame2)):
            if not isinstance(frame, str):
                raise ValueError(f"{key} must be a frame name (str), got {frame!r}")
        self.frame1, self.frame2 = frame1, frame2
        self._placements = (placement1, placement2)
        super().__init__(name or f"{type(self).__name__}({frame1}, {frame2})", kp=kp, kd=kd)

    def bind(self, robot) -> None:
        """Resolve the frames against ``robot`` and allocate the kernel's buffers."""
        self._frame_ids = (robot.frame_id(self.frame1), robot.frame_id(self.frame2))
        self._sources = tuple(robot.frame_sources(frame_id) for frame_id in self._frame_ids)
        self._offsets = tuple(np.array(p.translation, dtype=float) for p in self._placements)
        self._turns = tuple(np.array(p.rotation, dtype=float) for p in self._placements)
        self._scratch = (np.zeros((2, 3)), np.zeros((6, robot.nv)), np.zeros(6), np.zeros((6, robot.nv)), np.zeros(6))
        supports = [set(sources.columns.tolist()) for sources in self._sources]
        self.columns = tuple(sorted(supports[0] ^ supports[1]))     # the joints common to both cancel

    def compute(self, robot) -> ClosureRows:
        """``J_c``, ``J̇_c v`` and ``c`` with pinocchio's frame algebra: each end's placement
        ``oMf Pᵢ``, its world-aligned Jacobian (``getFrameJacobian`` of the end's placement on
        its joint) and its classical acceleration at ``q̈ = 0`` from the joint's spatial
        velocity and acceleration (``data.v``, ``data.a``) moved to the end."""
        model, data = robot.model, robot.data
        ends = []
        for frame_id, placement in zip(self._frame_ids, self._placements):
            frame = model.frames[frame_id]
            on_joint = frame.placement * placement
            world = data.oMi[frame.parentJoint] * on_joint
            jacobian = pin.getFrameJacobian(model, data, frame.parentJoint, on_joint, pin.LOCAL)
            velocity = on_joint.actInv(data.v[frame.parentJoint])
            acceleration = on_joint.actInv(data.a[frame.parentJoint])
            rotation = world.rotation
            classical = acceleration.linear + np.cross(velocity.angular, velocity.linear)
            ends.append((world, np.vstack([rotation @ jacobian[:3], rotation @ jacobian[3:]]),
                         np.r_[rotation @ classical, rotation @ acceleration.angular]))
        (first, jacobian1, drift1), (second, jacobian2, drift2) = ends
        rows = 6 if self.angular else 3
        error = first.translation - second.translation
        if self.angular:
            error = np.r_[error, second.rotation @ pin.log3(second.rotation.T @ first.rotation)]
        return ClosureRows((jacobian1 - jacobian2)[:rows], (drift1 - drift2)[:rows], error)

    def write_rows(self, robot, force_block, matrix, vector) -> None:
        """:meth:`Closure.write_rows` in one compiled call (:func:`join_rows`)."""
        (_, _, columns1, translation1, rotation1), (sources, rates, columns2, translation2, rotation2) = self._sources
        points, jacobian1, drift1, jacobian2, drift2 = self._scratch
        _direct.join_rows(sources, rates, columns1, translation1, rotation1, columns2, translation2, rotation2,
                          self._offsets[0], self._turns[0], self._offsets[1], self._turns[1], self.angular, robot.v,
                          self._kp, self._kd, points, jacobian1, drift1, jacobian2, drift2, force_block, matrix,
                          vector, self.error)


class PointClosure(_Join):
    """A point of one body held on a point of another (a ball joint closing a loop; MJCF
    ``connect``): ``c = p₁ − p₂`` (3 rows, m, world axes); ``λ`` the force on body 1 at
    ``p₁``, N, world axes.

    Parameters
    ----------
    frame1, frame2 : the bodies' frames (``"universe"``: the world).
    point1, point2 : the points in their frames' axes, m (default: the frames' origins).
    name, kp, kd : as for :class:`Closure`.
    """

    size = 3

    def __init__(self, frame1: str, frame2: str, point1=(0.0, 0.0, 0.0), point2=(0.0, 0.0, 0.0), *,
                 name: str | None = None, kp: float = DEFAULT_KP, kd: float | None = None):
        from ._validation import as_vector

        self.point1, self.point2 = as_vector(point1, "point1", 3).copy(), as_vector(point2, "point2", 3).copy()
        super().__init__(frame1, frame2, pin.SE3(np.eye(3), self.point1), pin.SE3(np.eye(3), self.point2),
                         name=name, kp=kp, kd=kd)


class FrameClosure(_Join):
    """A frame of one body held on a frame of another (a weld; MJCF ``weld``):
    ``c = [p₁ − p₂; R₂ log₃(R₂ᵀ R₁)]`` (6 rows, m then rad, world axes) for the placements
    ``frameᵢ ∘ placementᵢ``; ``λ`` the wrench ``[f; m]`` on body 1 at ``p₁``, world axes.

    Parameters
    ----------
    frame1, frame2 : the bodies' frames (``"universe"``: the world).
    placement1, placement2 : ``pinocchio.SE3`` in their frames (default: identity).
    name, kp, kd : as for :class:`Closure`.
    """

    size = 6
    angular = True

    def __init__(self, frame1: str, frame2: str, placement1: pin.SE3 | None = None, placement2: pin.SE3 | None = None,
                 *, name: str | None = None, kp: float = DEFAULT_KP, kd: float | None = None):
        placements = []
        for key, placement in (("placement1", placement1), ("placement2", placement2)):
            if placement is not None and not isinstance(placement, pin.SE3):
                raise ValueError(f"{key} must be a pinocchio.SE3, got {type(placement).__name__}")
            placements.append(pin.SE3.Identity() if placement is None else placement.copy())
        super().__init__(frame1, frame2, *placements, name=name, kp=kp, kd=kd)


# ------------------------------------------------------------------------- joint coordinates
class JointCoupling(Closure):
    """Joint coordinates coupled by a linkage, a tendon or a mimic relation (one row):
    ``c = s − s₀ − Σₖ aₖ (r − r₀)ᵏ`` with ``s = Σ cⱼ qⱼ`` over ``first`` and ``r`` over
    ``second`` (rad or m); ``λ`` the generalised force along ``J_c`` (N·m or N).

    ``J_c = c_s − P'(r − r₀) c_r`` (``c_s``, ``c_r``: the coefficients in v's columns) and
    ``J̇_c v = −P''(r − r₀) (c_r · v)²``.

    Parameters
    ----------
    first : ``{joint: coefficient}`` (or ``((joint, coefficient), …)``): the coordinate ``s``;
        1-dof joints (revolute or prismatic).
    second : the same for ``r``, or None for a coordinate held at ``s₀ + a₀``.
    polynomial : ``(a₀, a₁, …)``, up to degree 4 (default ``(0, 1)``: ``s − s₀ = r − r₀``).
    reference : ``(s₀, r₀)``.
    name, kp, kd : as for :class:`Closure`.
    """

    size = 1

    def __init__(self, first, second=None, polynomial: Sequence[float] = (0.0, 1.0), reference=(0.0, 0.0), *,
                 name: str | None = None, kp: float = DEFAULT_KP, kd: float | None = None):
        from ._validation import as_vector

        self.first = self._terms(first, "first")
        self.second = self._terms(second, "second") if second is not None else ()
        coefficients = as_vector(np.atleast_1d(np.asarray(polynomial, dtype=float)), "polynomial")
        if not 1 <= coefficients.size <= 5:
            raise ValueError(f"polynomial must have 1 to 5 coefficients (a₀ … a₄), got {coefficients.size}")
        self.polynomial = np.zeros(5)
        self.polynomial[:coefficients.size] = coefficients
        self.reference = as_vector(reference, "reference", 2).copy()
        super().__init__(name or f"JointCoupling({', '.join(j for j, _ in self.first)})", kp=kp, kd=kd)

    @staticmethod
    def _terms(terms, key: str) -> tuple[tuple[str, float], ...]:
        pairs = tuple(terms.items()) if isinstance(terms, dict) else tuple(terms)
        if not pairs or not all(isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)
                                and np.isfinite(float(pair[1])) for pair in pairs):
            raise ValueError(f"{key} must map joint names to finite coefficients ({{joint: c}}), got {terms!r}")
        return tuple((joint, float(c)) for joint, c in pairs)

    def bind(self, robot) -> None:
        """Resolve the joints (1-dof, not continuous) to their indices in q and v."""
        for joint, _ in self.first + self.second:
            if not robot.has_1dof_joint(joint):
                raise ValueError(f"closure {self.name!r}: joint {joint!r} of robot {robot.name!r} is not a revolute or "
                                 f"prismatic joint; such joints: {robot.scalar_joint_names}")
        self._coordinates = []
        for terms in (self.first, self.second):
            q_index = np.array([robot.joint_q_index(joint) for joint, _ in terms], dtype=int)
            row = np.zeros(robot.nv)
            for joint, c in terms:
                row[robot.joint_v_index(joint)] += c
            self._coordinates.append((q_index, np.array([c for _, c in terms]), row))
        self.columns = tuple(sorted({robot.joint_v_index(joint) for joint, _ in self.first + self.second}))
        derivative = self.polynomial[1:] * np.arange(1, 5)
        self._linear = not np.any(self.polynomial[2:]) or not self.second
        self._jacobian = self._coordinates[0][2] - (derivative[0] * self._coordinates[1][2] if self.second else 0.0)

    def compute(self, robot) -> ClosureRows:
        """``J_c``, ``J̇_c v`` and ``c`` from the coordinates' values (see the class)."""
        q = robot.q
        (q1, c1, row1), (q2, c2, row2) = self._coordinates
        s = float(c1 @ q[q1]) - self.reference[0]
        if not self.second:
            return ClosureRows(row1[None, :].copy(), np.zeros(1), np.array([s - self.polynomial[0]]))
        delta = float(c2 @ q[q2]) - self.reference[1]
        powers = delta ** np.arange(5)
        slope = float(np.arange(1, 5) * self.polynomial[1:] @ powers[:4])
        curvature = float(np.arange(2, 5) * np.arange(1, 4) * self.polynomial[2:] @ powers[:3])
        rate = float(row2 @ robot.v)
        return ClosureRows((row1 - slope * row2)[None, :], np.array([-curvature * rate * rate]),
                           np.array([s - float(self.polynomial @ powers)]))

    def write_rows(self, robot, force_block, matrix, vector) -> None:
        """The rows; a linear coupling's Jacobian is constant (no drift), copied."""
        if not self._linear:
            return super().write_rows(robot, force_block, matrix, vector)
        (q1, c1, _), (q2, c2, _) = self._coordinates
        q = robot.q
        s = float(c1 @ q[q1]) - self.reference[0]
        r = float(c2 @ q[q2]) - self.reference[1] if self.second else 0.0
        error = s - self.polynomial[0] - self.polynomial[1] * r
        self.error[0] = error
        jacobian = self._jacobian
        matrix[0] = jacobian
        force_block[:, 0] = -jacobian
        vector[0] = -self._kd * float(jacobian @ robot.v) - self._kp * error


def joint_names(robot, value, name: str) -> tuple[str, ...]:
    """``value``, names of ``robot``'s joints with one velocity, as a tuple (each once);
    ``ValueError`` naming ``name`` for anything else, ``KeyError`` for an unknown joint."""
    if isinstance(value, str) or not all(isinstance(joint, str) for joint in value):
        raise ValueError(f"{name} must be a list of joint names, got {value!r}")
    for joint in value:
        robot.joint_v_index(joint)            # KeyError naming the robot's joints
    return tuple(dict.fromkeys(value))


def closure_of(description, *, kp: float = DEFAULT_KP, kd: float | None = None) -> Closure:
    """The closure item of a model file's description (:attr:`tsid_py.Robot.closures`):
    :class:`PointClosure` for a :class:`~tsid_py.loaders.source.PointJoin`,
    :class:`FrameClosure` for a :class:`~tsid_py.loaders.source.FrameJoin`,
    :class:`JointCoupling` for a :class:`~tsid_py.loaders.source.CoordinateCoupling`; with
    the gains ``kp`` (1/s²) and ``kd`` (1/s, default ``2√kp``)."""
    if isinstance(description, PointJoin):
        return PointClosure(description.frame1, description.frame2, description.point1, description.point2,
                            name=description.name, kp=kp, kd=kd)
    if isinstance(description, FrameJoin):
        placements = [pin.XYZQUATToSE3(np.array(p, dtype=float)) for p in (description.placement1,
                                                                              description.placement2)]
        return FrameClosure(description.frame1, description.frame2, *placements, name=description.name, kp=kp, kd=kd)
    if isinstance(description, CoordinateCoupling):
        return JointCoupling(description.first, description.second or None, description.polynomial,
                             description.reference, name=description.name, kp=kp, kd=kd)
    raise ValueError(f"description must be a PointJoin, FrameJoin or CoordinateCoupling, got {description!r}")
