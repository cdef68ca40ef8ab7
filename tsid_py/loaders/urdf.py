"""Read a URDF into a pinocchio model, naming the file, joint and fix when it cannot be used.

Joint kinds and what they become (pinocchio, and MuJoCo in the harness):

* ``revolute`` / ``prismatic``: one q, one v.
* ``continuous``: an unbounded revolute joint; pinocchio stores it as ``(cos θ, sin θ)`` (two q,
  one v), MuJoCo as θ (the harness converts, :mod:`tsid_py.sim.joint_map`).
* ``floating``: a free flyer (7 q, 6 v). One that attaches the root link to the world *is* the
  robot's floating base: no second one is added.
* ``planar``: translation in the joint's x–y plane and rotation about its z (4 q, 3 v).
  pinocchio always takes the plane normal to be z, so a planar joint whose ``<axis>`` is
  another direction is refused (MuJoCo would read the axis; the two models would disagree).
* ``mimic``: a joint of its own in pinocchio's model (one q, one v), kept on its primary
  joint by the linkage ``q_m = k q_p + b`` and driven through it: the couplings are
  :attr:`ModelSource.mimic` and the mimic joints are passive (no motor of their own). The
  solver holds each coupling as a closure whose force is a variable of the QP
  (:class:`~tsid_py.closures.JointCoupling`), so that the primary joint's motor carries the
  pair's torque, and the simulator with MuJoCo joint equalities. ``mimic="independent"`` drops
  them (the joints move freely, each actuated).

A URDF does not say which joints have no motor; ``passive`` names them (their torque is held
at 0: :attr:`ModelSource.passive`). An ``effort="0"`` is not read as passive: files write it
for "not given" (the library's limits read it as unlimited).
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence

import numpy as np
import pinocchio as pin

from .source import LoadedModel, MimicJoint, ModelSource, existing_file

#: Accepted values of ``mimic``.
MIMIC_CHOICES = ("coupled", "independent")


def load_urdf(path, floating_base: bool = True, package_dirs: Sequence[str] | None = None,
              mimic: str = "coupled", passive: Sequence[str] = ()) -> LoadedModel:
    """A pinocchio model of the URDF at ``path`` (see the module for the joint kinds).

    Parameters
    ----------
    path : the URDF file.
    floating_base : give the robot a free-flyer root joint (7 q, 6 v); when the file has a
        ``floating`` joint on its root link, that joint is the free flyer.
    package_dirs : folders that replace ``package://`` in mesh paths (the simulator's visuals).
    mimic : ``"coupled"`` (mimic joints follow their primary joints, see the module) or
        ``"independent"`` (their couplings are dropped).
    passive : names of revolute or prismatic joints without a motor (``ValueError`` naming
        the file for one it does not have); the coupled mimic joints are passive too.
    """
    path = existing_file(path, "URDF")
    if mimic not in MIMIC_CHOICES:
        raise ValueError(f"mimic must be one of {MIMIC_CHOICES}, got {mimic!r}")
    joints, root_link = _read_joints(path)
    root_joint = _file_root_joint(path, joints, root_link, floating_base)
    _check_planar_axes(path, joints)
    couplings = tuple(MimicJoint(name, *spec["mimic"]) for name, spec in joints.items() if spec["mimic"])
    for coupling in couplings:
        primary = joints.get(coupling.primary)
        if primary is None or primary["type"] not in ("revolute", "prismatic") or \
                joints[coupling.joint]["type"] not in ("revolute", "prismatic"):
            kind = "missing" if primary is None else f"a {primary['type']} joint"
            raise ValueError(f"{path}: joint {coupling.joint!r} ({joints[coupling.joint]['type']}) mimics "
                             f"{coupling.primary!r} ({kind}); a <mimic> couples a revolute or prismatic joint to "
                             "another one")
    if mimic == "independent":
        couplings = ()
    passive = _passive_joints(path, joints, passive, couplings)
    add_root = floating_base and root_joint is None
    try:
        model = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if add_root
                 else pin.buildModelFromUrdf(path))
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{path}: pinocchio cannot read this URDF: {exc}") from None
    if add_root:
        root_joint = model.names[1]
    source = ModelSource(path=path, kind="urdf", package_dirs=tuple(package_dirs or ()), root_joint=root_joint,
                         root_added=add_root, mimic=couplings, passive=passive)
    return LoadedModel(model, source)


def _passive_joints(path: str, joints: dict, passive, couplings) -> tuple[str, ...]:
    """The joints named ``passive`` (checked to be the file's revolute or prismatic joints)
    followed by the coupled mimic joints, each once."""
    if isinstance(passive, str) or not all(isinstance(name, str) for name in passive):
        raise ValueError(f"passive must be a list of joint names, got {passive!r}")
    for name in passive:
        if joints.get(name, {}).get("type") not in ("revolute", "prismatic", "continuous"):
            movable = [joint for joint, spec in joints.items() if spec["type"] in ("revolute", "prismatic", "continuous")]
            raise ValueError(f"{path}: passive joint {name!r} is not a revolute, prismatic or continuous joint of the "
                             f"file; such joints: {movable}")
    return tuple(dict.fromkeys([*passive, *(coupling.joint for coupling in couplings)]))


def _read_joints(path: str) -> tuple[dict[str, dict], str]:
    """The file's joints (name → type, parent, child, axis, mimic) and its root link."""
    try:
        robot = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as exc:
        raise ValueError(f"{path}: not a valid XML file ({exc})") from None
    if robot.tag != "robot":
        raise ValueError(f"{path}: the root element is <{robot.tag}>, a URDF's is <robot>")
    joints = {}
    for joint in robot.iter("joint"):
        if joint.find("parent") is None:          # a transmission's <joint> reference
            continue
        axis = joint.find("axis")
        mimic = joint.find("mimic")
        joints[joint.get("name")] = {
            "type": joint.get("type"),
            "parent": joint.find("parent").get("link"),
            "child": joint.find("child").get("link"),
            "axis": np.array([float(x) for x in axis.get("xyz").split()]) if axis is not None else np.array([1.0, 0, 0]),
            "mimic": None if mimic is None or joint.get("type") == "fixed" else (
                mimic.get("joint"), float(mimic.get("multiplier", 1.0)), float(mimic.get("offset", 0.0))),
        }
    links = [link.get("name") for link in robot.iter("link")]
    if not links:
        raise ValueError(f"{path}: the <robot> has no <link>: there is no robot to load in this file")
    children = {spec["child"] for spec in joints.values()}
    roots = [link for link in links if link not in children]
    if len(roots) != 1:
        raise ValueError(f"{path}: a URDF is one tree of links, found {len(roots)} root links {roots[:5]}")
    return joints, roots[0]


def _file_root_joint(path: str, joints: dict, root_link: str, floating_base: bool) -> str | None:
    """The name of a ``floating`` joint on the root link (the file's own free base), or None."""
    for name, spec in joints.items():
        if spec["type"] == "floating" and spec["parent"] == root_link:
            if not floating_base:
                raise ValueError(f"{path}: joint {name!r} (floating) attaches {spec['child']!r} to the root link "
                                 f"{root_link!r}, so the robot has a free base; load it with floating_base=True, or "
                                 "make that joint fixed in the URDF for a fixed base")
            return name
    return None


def _check_planar_axes(path: str, joints: dict) -> None:
    for name, spec in joints.items():
        if spec["type"] != "planar":
            continue
        axis = spec["axis"] / max(np.linalg.norm(spec["axis"]), 1e-12)
        if abs(axis[2] - 1.0) > 1e-9:
            raise ValueError(f"{path}: planar joint {name!r} has <axis xyz=\"{' '.join(f'{a:g}' for a in spec['axis'])}"
                             "\"/>; pinocchio always moves a planar joint in its x-y plane (normal z), so the axis "
                             "must be \"0 0 1\": rotate the joint's <origin> instead so that its z is the plane's normal")


def srdf_postures(model: pin.Model, path) -> dict[str, np.ndarray]:
    """The group states of the SRDF at ``path`` as configurations of ``model`` (in the file's
    order), by name; ``ValueError`` naming the file when it cannot be read."""
    path = existing_file(path, "SRDF")
    try:
        pin.loadReferenceConfigurations(model, path, False)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{path}: pinocchio cannot read its postures: {exc}") from None
    postures = {}
    for entry in model.referenceConfigurations:
        postures[entry.key()] = np.array(entry.data(), dtype=float).ravel().copy()
    return postures
