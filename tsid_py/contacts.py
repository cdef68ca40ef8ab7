"""Contacts: the wrench variables of the QP, their friction constraints and their kinematics.

A contact's force variables are expressed in the contact frame's own axes (``z`` is the
surface normal pointing into the robot), so the friction pyramid and the centre-of-pressure
rows are constant matrices built once. The world-aligned wrench at the frame origin is
``blockdiag(R, R) f_local`` with ``R`` the frame's rotation.

The equation of motion uses ``J_localᵀ f_local``, which equals ``J_lwaᵀ w_world`` for the
LOCAL_WORLD_ALIGNED Jacobian ``J_lwa`` and the world-aligned wrench ``w_world``.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from . import _kernels
from ._validation import positive_scalar

#: The inscribed pyramid keeps |f_x| ≤ μ/√2 f_z and |f_y| ≤ μ/√2 f_z, so that
#: √(f_x² + f_y²) ≤ μ f_z: no force outside the true Coulomb cone.
INSCRIBED_PYRAMID = 1.0 / np.sqrt(2.0)

#: Default stiffness of a contact's stabilisation, 1/s² (``kd`` = 2√kp = 20 1/s): a sole that
#: starts to rock or slide (the simulator's contacts are compliant) is brought back within
#: about 0.1–0.2 s instead of keeping its velocity. Measured on Talos under 0.1 s pushes, it
#: is what lets the soles stay flat up to the capture-point bounds (see issue 17).
DEFAULT_KP = 100.0


class Contact:
    """Common parts of point and planar contacts.

    Parameters
    ----------
    frame : name of the contact frame (z axis along the surface normal, into the robot).
    mu : Coulomb friction coefficient (> 0).
    f_min, f_max : bounds on the normal force, N (0 ≤ f_min < f_max).
    kp : stiffness of the contact-acceleration stabilisation, 1/s² (:data:`DEFAULT_KP`);
        ``kd`` (1/s) defaults to 2√kp (critically damped: 20 1/s for the default). The
        constraint asks ``J q̈ + J̇ v = −kd J v + kp e`` where ``e`` is the frame's drift from
        where the contact was made, in its own axes (m, then rad). With ``kp = kd = 0`` a
        sole that has started to rock or slide keeps its velocity; with the defaults that
        velocity decays with a time constant of 0.1 s and the drift is pulled back.
    priority : "hard" (equality, default) or "soft" with ``weight``.
    unilateral : enforce the friction pyramid, the normal-force bounds and (planar) the
        centre-of-pressure and torsion rows. ``False`` leaves the wrench free (e.g. inverse
        dynamics that only asks the root equation to balance).
    kinematic : constrain the frame's acceleration. ``False`` when the motion is prescribed
        otherwise (inverse dynamics of a recorded motion).
    """

    size = 0          # number of force variables
    motion_rows = slice(0, 0)   # which rows of the 6-D frame motion the contact fixes

    def __init__(self, frame: str, *, mu: float = 0.7, f_min: float = 0.0, f_max: float = 1e4,
                 kp: float = DEFAULT_KP, kd: float | None = None, priority: str = "hard", weight: float = 1e3,
                 unilateral: bool = True, kinematic: bool = True):
        if not isinstance(frame, str):
            raise ValueError(f"frame must be a frame name (str), got {frame!r}")
        self.frame = frame
        self.name = frame
        self.mu = positive_scalar(mu, "mu")
        self.f_min = positive_scalar(f_min, "f_min", allow_zero=True)
        self.f_max = positive_scalar(f_max, "f_max")
        if self.f_min >= self.f_max:
            raise ValueError(f"f_min must be < f_max, got f_min={f_min}, f_max={f_max}")
        self.kp = positive_scalar(kp, "kp", allow_zero=True)
        self.kd = 2.0 * np.sqrt(self.kp) if kd is None else positive_scalar(kd, "kd", allow_zero=True)
        if priority not in ("hard", "soft"):
            raise ValueError(f"priority must be 'soft' or 'hard', got {priority!r}")
        self.priority = priority
        self.weight = positive_scalar(weight, "weight")
        self.unilateral = bool(unilateral)
        self.kinematic = bool(kinematic)
        self.frame_id = -1
        self.anchor: pin.SE3 | None = None      # placement when the contact was made
        self.friction_matrix = self._friction_matrix() if self.unilateral else np.zeros((0, self.size))

    # --------------------------------------------------------------------------- friction
    def _friction_matrix(self) -> np.ndarray:
        """Rows ``C`` with ``C f_local ≤ 0``: the inscribed pyramid (and CoP, torsion)."""
        k = self.mu * INSCRIBED_PYRAMID
        rows = np.zeros((4, self.size))
        rows[0, [0, 2]] = [1.0, -k]
        rows[1, [0, 2]] = [-1.0, -k]
        rows[2, [1, 2]] = [1.0, -k]
        rows[3, [1, 2]] = [-1.0, -k]
        return rows

    @property
    def normal_index(self) -> int:
        """Index of f_z within the contact's variables."""
        return 2

    def describe_rows(self) -> list[str]:
        """A label for each row of ``friction_matrix``, for infeasibility reports."""
        return ["friction cone"] * 4 if self.unilateral else []

    # --------------------------------------------------------------------------- kinematics
    def bind(self, robot) -> None:
        """Resolve the frame name; remember where the contact is made."""
        self.frame_id = robot.frame_id(self.frame)
        self._sources = robot.frame_sources(self.frame_id)
        self._jacobian, self._drift = np.zeros((6, robot.nv)), np.zeros(6)     # the kernel's, refreshed each step
        self._anchor_translation, self._anchor_rotation = np.zeros(3), np.eye(3)

    def anchor_at(self, placement: pin.SE3) -> None:
        """Remember ``placement`` as where the contact was made (the ``kp`` term's reference)."""
        self.anchor = placement.copy()
        self._anchor_translation = np.array(placement.translation, dtype=float)
        self._anchor_rotation = np.array(placement.rotation, dtype=float)

    def write_rows(self, robot, force_block: np.ndarray, root_block: np.ndarray, matrix: np.ndarray,
                   vector: np.ndarray) -> None:
        """Write the contact's part of the QP into the solver's buffers, from its LOCAL
        Jacobian ``J`` and drift ``J̇v``: its columns of the equation of motion,
        ``force_block = −J[:size]ᵀ``, and of its root rows held as equalities,
        ``root_block = force_block[:r]`` (no rows for a root that is not held), and its
        no-slip rows ``J_rows q̈ = −J̇v − kd J v − kp e`` (local axes) into ``matrix`` and
        ``vector`` (both empty for a contact without kinematics). ``J`` and ``J̇v`` are
        formed from the frame's sources in the same compiled call
        (:func:`~tsid_py._kernels.contact_rows`)."""
        kp = self.kp if self.anchor is not None else 0.0
        _kernels.direct.contact_rows(*self._sources, robot.v, kp, self.kd, self._anchor_translation,
                                     self._anchor_rotation, self.motion_rows.start, self._jacobian, self._drift,
                                     force_block, root_block, matrix, vector)

    def local_wrench(self, local_force: np.ndarray) -> np.ndarray:
        """The (6,) wrench in the frame's axes from the contact's variables (zero moment for a
        point contact; for a planar contact, the variables themselves)."""
        if self.size == 6:
            return local_force
        wrench = np.zeros(6)
        wrench[: self.size] = local_force
        return wrench

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.frame!r}, mu={self.mu})"


class PointContact(Contact):
    """A 3-D force at the frame origin: a quadruped's foot, a fingertip.

    Its frame's linear acceleration is constrained (3 rows); its rotation is free.
    """

    size = 3
    motion_rows = slice(0, 3)


class PlanarContact(Contact):
    """A 6-D wrench on a rectangular sole centred at the frame origin.

    ``length`` runs along the frame's x axis, ``width`` along y (metres). Beyond the
    friction pyramid the wrench keeps its centre of pressure in the rectangle,
    ``|m_y| ≤ (length/2) f_z`` and ``|m_x| ≤ (width/2) f_z``, and bounds the torsional moment
    ``|m_z| ≤ μ (min(length, width)/2) f_z`` — a conservative bound that ignores the
    coupling with the tangential force. The whole frame motion is constrained (6 rows).
    """

    size = 6
    motion_rows = slice(0, 6)

    def __init__(self, frame: str, length: float = 0.2, width: float = 0.13, **kwargs):
        self.length = positive_scalar(length, "length")
        self.width = positive_scalar(width, "width")
        super().__init__(frame, **kwargs)

    def _friction_matrix(self) -> np.ndarray:
        pyramid = super()._friction_matrix()
        half_length, half_width = self.length / 2, self.width / 2
        torsion = self.mu * min(half_length, half_width)
        rows = np.zeros((6, 6))
        rows[0, [4, 2]] = [1.0, -half_length]    # m_y ≤ (l/2) f_z   (CoP_x ≥ −l/2)
        rows[1, [4, 2]] = [-1.0, -half_length]
        rows[2, [3, 2]] = [1.0, -half_width]     # m_x ≤ (w/2) f_z
        rows[3, [3, 2]] = [-1.0, -half_width]
        rows[4, [5, 2]] = [1.0, -torsion]
        rows[5, [5, 2]] = [-1.0, -torsion]
        return np.vstack([pyramid, rows])

    def describe_rows(self) -> list[str]:
        if not self.unilateral:
            return []
        return super().describe_rows() + ["centre of pressure"] * 4 + ["torsion"] * 2

    def __repr__(self) -> str:
        return f"PlanarContact({self.frame!r}, length={self.length}, width={self.width}, mu={self.mu})"
