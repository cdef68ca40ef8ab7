"""What a loader hands back: the pinocchio model and the facts of the file it came from.

A :class:`ModelSource` travels with the :class:`~tsid_py.Robot` so that whoever rebuilds the
robot elsewhere (the MuJoCo harness) reads the same file with the same choices the loader made
(which joints mimic which, whether the free flyer came from the file or was added).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

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
class ModelSource:
    """The file a model was read from and the loader's choices about it.

    path : the file.
    kind : ``"urdf"`` or ``"mjcf"``.
    package_dirs : folders ``package://`` mesh URIs resolve against (URDF).
    root_joint : the name of the model's free-flyer joint, or None for a fixed base.
    root_added : whether that free flyer was added by the loader (not in the file).
    mimic : the URDF's mimic couplings; the model (and the simulator) treat these joints as
        independent actuated joints, see :func:`tsid_py.loaders.urdf.load_urdf`.
    components : the file's 1-dof joints that pinocchio merged into a composite joint (an MJCF
        body with several joints), as ``(name, composite joint id, position in it)``.
    added_inertias : rotational inertia the loader gave links the file makes point masses, as
        ``(link, isotropic moment kg·m²)`` (:mod:`tsid_py.models.point_masses`); the harness
        gives the simulator's bodies the same.
    srdf : the URDF's SRDF when the robot was loaded with one (its postures, its disabled
        collision pairs), else None.
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
