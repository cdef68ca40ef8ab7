"""What a loader hands back: the pinocchio model and the facts of the file it came from.

A :class:`ModelSource` travels with the :class:`~tsid_py.Robot` so that whoever rebuilds the
robot elsewhere (the MuJoCo harness) reads the same file with the same choices the loader made
(which joints mimic which, whether the free flyer came from the file or was added).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pinocchio as pin

#: File kinds a :class:`ModelSource` names.
KINDS = ("urdf", "mjcf")


@dataclass(frozen=True)
class MimicJoint:
    """A URDF ``<mimic>``: ``q[joint] = multiplier * q[primary] + offset`` on the real robot."""

    joint: str
    primary: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class PointJoin:
    """A point of one body held on a point of another (MJCF ``<equality connect>``, a ball
    joint closing a loop): ``p₁ = p₂`` with ``pᵢ = frameᵢ ∘ pointᵢ`` (``pointᵢ`` in the
    frame's axes, m). ``frame2`` may be the world (pinocchio's ``"universe"``)."""

    name: str
    frame1: str
    point1: tuple[float, float, float]
    frame2: str
    point2: tuple[float, float, float]


@dataclass(frozen=True)
class FrameJoin:
    """A frame of one body held on a frame of another (MJCF ``<equality weld>``): the
    placements ``frame₁ ∘ placement₁`` and ``frame₂ ∘ placement₂`` coincide. Each placement is
    ``(x, y, z, qx, qy, qz, qw)`` in its frame's axes (m, unit quaternion)."""

    name: str
    frame1: str
    placement1: tuple[float, ...]
    frame2: str
    placement2: tuple[float, ...]


@dataclass(frozen=True)
class CoordinateCoupling:
    """A coupling of joint coordinates (MJCF ``<equality joint>`` or ``<equality tendon>`` on
    fixed tendons, a URDF ``<mimic>``): with ``s = Σ cⱼ q_j`` over ``first`` (and likewise
    ``r`` over ``second``, absent for a single coordinate),
    ``s − s₀ = Σₖ aₖ (r − r₀)ᵏ`` (k = 0 … 4, ``polynomial = (a₀, …)``), ``(s₀, r₀)`` the
    ``reference``. ``first`` and ``second`` are ``((joint, coefficient), …)``."""

    name: str
    first: tuple[tuple[str, float], ...]
    second: tuple[tuple[str, float], ...] = ()
    polynomial: tuple[float, ...] = (0.0, 1.0)
    reference: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class ModelSource:
    """The file a model was read from and the loader's choices about it.

    path : the file.
    kind : ``"urdf"`` or ``"mjcf"``.
    package_dirs : folders ``package://`` mesh URIs resolve against (URDF).
    root_joint : the name of the model's free-flyer joint, or None for a fixed base.
    root_added : whether that free flyer was added by the loader (not in the file).
    mimic : the URDF's mimic couplings (a joint of its own in the model, passive, held on its
        primary joint by the solver and the simulator), see :func:`tsid_py.loaders.urdf.load_urdf`.
    components : the file's 1-dof joints that pinocchio merged into a composite joint (an MJCF
        body with several joints), as ``(name, composite joint id, position in it)``.
    added_inertias : rotational inertia the loader gave links the file makes point masses, as
        ``(link, isotropic moment kg·m²)`` (:mod:`tsid_py.models.point_masses`); the harness
        gives the simulator's bodies the same.
    srdf : the URDF's SRDF when the robot was loaded with one (its postures, its disabled
        collision pairs), else None.
    closures : the file's closed chains and couplings other than mimic joints (MJCF
        ``<equality>``: :class:`PointJoin`, :class:`FrameJoin`, :class:`CoordinateCoupling`).
    passive : the joints no actuator drives (MJCF joints without an actuator when the file has
        actuators; URDF joints the user names, and mimic joints).
    """

    path: str
    kind: str
    package_dirs: tuple[str, ...] = ()
    root_joint: str | None = None
    root_added: bool = False
    mimic: tuple[MimicJoint, ...] = ()
    components: tuple[tuple[str, int, int], ...] = ()
    added_inertias: tuple[tuple[str, float], ...] = ()
    srdf: str | None = None
    closures: tuple = ()
    passive: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def filename(self) -> str:
        """The file's base name, for messages."""
        return os.path.basename(self.path)


@dataclass
class LoadedModel:
    """A loader's result: ``model`` (pinocchio), its ``source``, and the file's named
    postures (``postures``: name → q (nq,), in file order; ``default_posture``: the name of
    the one a robot starts from, or None)."""

    model: pin.Model
    source: ModelSource
    postures: dict[str, np.ndarray] = field(default_factory=dict)
    default_posture: str | None = None


def existing_file(path, what: str) -> str:
    """``path`` as a string, ``ValueError`` naming it if it is not an existing file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"path must be an existing {what} file, got {path!r}")
    return path


class JointMaps(NamedTuple):
    """A model's 1-dof actuated joints by name (:func:`joint_maps`): ``names`` (every joint's
    after the root, a composite's by its parts), ``q_index`` and ``v_index`` (name → index),
    the ``continuous`` ones (one velocity, positions ``(cos θ, sin θ)``), and the actuated
    coordinates' effort (N·m) and velocity limits and position bounds."""

    names: list
    q_index: dict
    v_index: dict
    continuous: set
    effort_limits: np.ndarray
    velocity_limits: np.ndarray
    position_lower: np.ndarray
    position_upper: np.ndarray


def joint_maps(model: pin.Model, floating_base: bool, source: "ModelSource | None") -> JointMaps:
    """The :class:`JointMaps` of ``model``. The 1-dof joints inside a composite joint (an MJCF
    body with several joints) are listed by the file's names (:attr:`ModelSource.components`)
    in place of the composite's."""
    first = 2 if floating_base else 1
    components: dict[int, list[tuple[str, int]]] = {}
    for name, joint_id, position in (source.components if source is not None else ()):
        components.setdefault(joint_id, []).append((name, position))
    names, q_index, v_index, continuous = [], {}, {}, set()
    for joint_id in range(first, model.njoints):
        joint, name = model.joints[joint_id], model.names[joint_id]
        if joint_id in components:
            for part, position in components[joint_id]:
                names.append(part)
                q_index[part], v_index[part] = joint.idx_q + position, joint.idx_v + position
            continue
        names.append(name)
        if joint.nv == 1 and joint.nq in (1, 2):
            q_index[name], v_index[name] = joint.idx_q, joint.idx_v
            if joint.nq == 2:
                continuous.add(name)
    offset, q_offset = (6, 7) if floating_base else (0, 0)
    return JointMaps(names, q_index, v_index, continuous, np.array(model.effortLimit[offset:], dtype=float),
                     np.array(model.velocityLimit[offset:], dtype=float),
                     np.array(model.lowerPositionLimit[q_offset:], dtype=float),
                     np.array(model.upperPositionLimit[q_offset:], dtype=float))
