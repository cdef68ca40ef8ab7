"""Load any robot file, ready for a controller: its model, a standing posture, its feet.

:func:`load_robot` is what ``tp.robots.load(path)`` does with a path (a built-in robot's name
loads its own recipe, :mod:`tsid_py.robots`):

1. **The model**: a URDF (:meth:`tsid_py.Robot.from_urdf`'s loader) or an MJCF file
   (:meth:`tsid_py.Robot.from_mjcf`'s), its collision geometry, and its visual geometry
   when the collision geometry shows fewer than two feet (bodies without collision
   geometry are then seen by their visuals). A URDF's links with mass but no rotational
   inertia get the inertia of a body of their size (:mod:`tsid_py.models.point_masses`).
2. **The posture**: the SRDF's group state ``posture`` (default: the first), the SRDF being
   ``srdf`` or, when not given, ``<name>.srdf`` beside the URDF or the example-robot-data
   layout's ``../srdf/<name>.srdf``; an MJCF keyframe; else pinocchio's neutral
   configuration.
3. **Floating or fixed**: a URDF robot whose posture stands it on two or more legs (two or
   more branches of its tree touch the ground and its root body does not, or its SRDF
   describes its feet, :func:`~tsid_py.models.feet.find_feet`) gets a free-flyer base; any
   other is a fixed-base arm. An MJCF file says so itself (a free joint).
4. **The feet** (:mod:`tsid_py.models.feet`): contact frames added to the model, the soles'
   size (the smallest of the feet's, per dimension) or the point feet's radius (the mean).
5. **Standing**: the posture put on the ground with its soles flat
   (:func:`~tsid_py.models.posture.standing_posture`), its joints inside their ranges and its
   knees bent (:func:`~tsid_py.models.posture.fitted_posture`); a fixed-base robot's joints
   inside their ranges (:func:`~tsid_py.models.posture.posture_in_ranges`).
6. **The profile**: :func:`~tsid_py.models.profile.derive_profile` of the robot, attached;
   an MJCF file whose feet's colliding geoms have a contact ``priority`` gives their sliding
   friction as the profile's ``mu`` (:func:`~tsid_py.loaders.mjcf.contact_friction`: it, not the
   ground's, is the friction MuJoCo then uses).

Every failure names the file and what to do.
"""

from __future__ import annotations

import os
import warnings
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path

import numpy as np
import pinocchio as pin

from ..loaders.mjcf import build_geometry as build_mjcf_geometry
from ..loaders.mjcf import contact_friction, load_mjcf
from ..loaders.urdf import load_urdf, srdf_postures
from ..robot import Robot
from .collada import apply_declared_axes
from .actuators import read_rotor_parameters
from .feet import FootGeometry, add_foot_frames, body_points, find_feet
from .point_masses import add_rotational_inertia, point_mass_inertias, point_mass_links
from .posture import fitted_posture, posture_in_ranges, standing_posture
from .profile import BalanceDefaults, derive_profile

#: File suffixes :func:`load_robot` reads.
SUFFIXES = {".urdf": "urdf", ".xml": "mjcf", ".mjcf": "mjcf"}


def load_robot(path, *, srdf=None, posture: str | None = None, package_dirs=None, name: str | None = None) -> Robot:
    """A :class:`~tsid_py.Robot` of the URDF or MJCF file at ``path``, standing, with its feet
    and profile (see the module). ``srdf``: a URDF's SRDF (postures); ``posture``: the SRDF
    group state or MJCF keyframe to stand in; ``package_dirs``: where ``package://`` mesh
    URIs resolve (default: the folders above the file)."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise ValueError(f"path must be an existing robot file (.urdf or MJCF .xml), got {str(path)!r}")
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"{path}: a robot file must be a URDF (.urdf) or an MJCF file (.xml, .mjcf), "
                         f"got {path.suffix!r}")
    if kind == "mjcf":
        return _load_mjcf(path, posture, name)
    return _load_urdf(path, srdf, posture, package_dirs, name)


def _load_urdf(path: Path, srdf, posture: str | None, package_dirs, name: str | None) -> Robot:
    package_dirs = (list(package_dirs) if package_dirs is not None
                    else [str(parent) for parent in path.resolve().parents])    # package:// resolves in one
    srdf = _srdf_of(path, srdf)
    loaded = load_urdf(path, True, package_dirs)
    model, source = loaded.model, replace(loaded.source, srdf=srdf)
    if srdf is not None:
        read_rotor_parameters(model, srdf)          # the drives' (model.armature untouched)
    q = _posture(model, path, srdf, posture)
    collision, visual = _geometry(model, str(path), package_dirs, pin.COLLISION, q), None
    feet = _feet_or_none(model, q, collision, None, srdf)
    if len(feet) < 2:                 # bodies without collision geometry: their visuals
        visual = _geometry(model, str(path), package_dirs, pin.VISUAL, q)
        feet = _feet_or_none(model, q, collision, visual, srdf)
    legged = len(feet) >= 2 and (feet[0].source == "srdf" or not _root_touches_ground(model, q, collision, visual,
                                                                                        feet))
    points = point_mass_links(ElementTree.parse(path).getroot().iter("link"))
    if points and visual is None:
        visual = _geometry(model, str(path), package_dirs, pin.VISUAL, q)      # for links without collision
    moments = point_mass_inertias(points, model, collision, visual)
    if not legged:
        fixed = load_urdf(path, False, package_dirs)
        if srdf is not None:
            read_rotor_parameters(fixed.model, srdf)
        add_rotational_inertia(fixed.model, moments)
        q_fixed = posture_in_ranges(fixed.model, _posture(fixed.model, path, srdf, posture))
        robot = Robot(fixed.model, name=name or path.stem, q_ref=q_fixed, package_dirs=fixed.source.package_dirs,
                      end_effector=_end_effector(fixed.model, srdf),
                      source=replace(fixed.source, srdf=srdf, added_inertias=tuple(moments.items())))
        robot.profile = derive_profile(robot)
        return robot
    add_rotational_inertia(model, moments)
    return _standing_robot(model, q, feet, name or path.stem, replace(source, added_inertias=tuple(moments.items())),
                           srdf)


def _load_mjcf(path: Path, posture: str | None, name: str | None) -> Robot:
    loaded = load_mjcf(path)
    model, source = loaded.model, loaded.source
    chosen = posture or loaded.default_posture
    if posture is not None and posture not in loaded.postures:
        raise KeyError(f"posture {posture!r} is not a keyframe of {path}; keyframes: {list(loaded.postures)}")
    q = np.array(loaded.postures[chosen]) if chosen is not None else pin.neutral(model)
    if source.root_joint is None:
        return Robot(model, name=name or path.stem, q_ref=posture_in_ranges(model, q), source=source,
                     postures=loaded.postures)
    collision = build_mjcf_geometry(model, path, pin.COLLISION)
    feet = _feet_or_none(model, q, collision, None, None)
    if len(feet) < 2:                 # bodies without collision geometry: their visuals
        feet = find_feet(model, q, collision, _mjcf_visual(model, path))
    mu = contact_friction(path, {foot.body for foot in feet})
    return _standing_robot(model, q, feet, name or path.stem, source, None, loaded.postures,
                           {} if mu is None else {"balance": BalanceDefaults(mu=mu)})


def _mjcf_visual(model: pin.Model, path: Path) -> pin.GeometryModel | None:
    """An MJCF file's visual geometry, or None when a mesh it names cannot be read (the
    harness drops a missing visual-only mesh too: Unitree's Go2 file names one it does not
    ship)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return build_mjcf_geometry(model, path, pin.VISUAL)
    except (ValueError, RuntimeError) as exc:
        warnings.warn(f"{path}: its visual geometry cannot be read ({str(exc).strip().splitlines()[-2:]}); "
                      "feet are looked for in its collision geometry only", stacklevel=3)
        return None


def _standing_robot(model: pin.Model, q: np.ndarray, feet: list[FootGeometry], name: str, source, srdf,
                    postures=None, profile: dict | None = None) -> Robot:
    """The floating-base robot standing on ``feet`` (frames added), with its profile
    (``profile``: overrides of its fields)."""
    frames = add_foot_frames(model, feet)
    soles = [foot.sole_size for foot in feet if foot.sole_size is not None]
    sole_size = (min(size[0] for size in soles), min(size[1] for size in soles)) if len(soles) == len(feet) else None
    radius = float(np.mean([foot.radius for foot in feet])) if sole_size is None else 0.0
    standing = standing_posture(model, fitted_posture(model, standing_posture(model, q, feet), frames,
                                                      point_feet=sole_size is None), feet)
    robot = Robot(model, name=name, feet=frames, sole_size=sole_size, foot_radius=radius,
                  q_ref=standing, package_dirs=source.package_dirs,
                  end_effector=_end_effector(model, srdf), source=source, postures=postures)
    robot.profile = derive_profile(robot, **(profile or {}))
    return robot


# ------------------------------------------------------------------------------ the file's facts
def _srdf_of(urdf: Path, srdf) -> str | None:
    """The SRDF given, or ``<stem>.srdf`` beside the URDF, or example-robot-data's
    ``../srdf/<stem>.srdf``."""
    if srdf is not None:
        srdf = Path(os.fspath(srdf))
        if not srdf.is_file():
            raise ValueError(f"srdf must be an existing SRDF file, got {str(srdf)!r}")
        return str(srdf)
    for guess in (urdf.with_suffix(".srdf"), urdf.parent.parent / "srdf" / f"{urdf.stem}.srdf"):
        if guess.is_file():
            return str(guess)
    return None


def _posture(model: pin.Model, path: Path, srdf: str | None, posture: str | None) -> np.ndarray:
    """The SRDF's group state ``posture`` (default: its first), else the neutral one."""
    if srdf is None:
        if posture is not None:
            raise ValueError(f"posture {posture!r} was asked for, but {path} has no SRDF (pass srdf=...)")
        return pin.neutral(model)
    postures = srdf_postures(model, srdf)
    if posture is not None and posture not in postures:
        raise KeyError(f"posture {posture!r} is not a group state of {srdf}; group states: {list(postures)}")
    if not postures:
        return pin.neutral(model)
    return postures[posture or next(iter(postures))].copy()


def _geometry(model: pin.Model, path: str, package_dirs, kind, q: np.ndarray) -> pin.GeometryModel | None:
    """A URDF's collision or visual geometry (``kind``), or None when it has none, its
    Collada meshes turned by their declared axes where the robot at ``q`` says so
    (:func:`~tsid_py.models.collada.apply_declared_axes`); a mesh that cannot be found is
    ``ValueError`` naming the file and the fix."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            geometry = pin.buildGeomFromUrdf(model, path, kind, package_dirs)
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{path}: its geometry cannot be read ({str(exc).strip()}); pass package_dirs=[the folder "
                         "that holds the packages its package:// paths name]") from None
    if not geometry.ngeoms:
        return None
    apply_declared_axes(model, q, geometry)
    return geometry


def _feet_or_none(model, q, collision, visual, srdf) -> list[FootGeometry]:
    """:func:`find_feet`, or no feet where it finds none (an arm)."""
    try:
        return find_feet(model, q, collision, visual, srdf)
    except ValueError:
        return []


def _root_touches_ground(model, q, collision, visual, feet) -> bool:
    """Whether the root body's own geometry is as low as the feet: the robot sits on its
    base (an arm on its pedestal), not on legs."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    points = body_points(model, data, q, collision, visual).get(1)
    if points is None or not len(points[0]):
        return False
    lowest_foot = min((data.oMi[foot.joint] * foot.placement).translation[2] - foot.radius for foot in feet)
    return points[0][:, 2].min() <= lowest_foot + 0.01


def _end_effector(model: pin.Model, srdf: str | None) -> str | None:
    """A fixed-base arm's tool frame: the SRDF's ``<end_effector parent_link>`` when it is a
    frame of the model, else the deepest frame of the kinematic tree (the most joints from
    the base; the last in the model's order among equals: a tool frame fixed to the last
    link). None for a floating-base robot without an SRDF end effector."""
    if srdf is not None:
        for effector in ElementTree.parse(srdf).getroot().iter("end_effector"):
            link = effector.get("parent_link")
            if link and model.existFrame(link) and not link.lower().endswith(("foot", "sole")):
                return link
    if model.njoints > 1 and model.joints[1].shortname() == "JointModelFreeFlyer":
        return None
    depth = [len(model.supports[frame.parentJoint]) for frame in model.frames]
    deepest = max(depth)
    return [frame.name for frame, d in zip(model.frames, depth) if d == deepest][-1]
