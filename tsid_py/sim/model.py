"""Build the MuJoCo model of a :class:`~tsid_py.Robot`: from its URDF (here) or, for a robot
read from an MJCF file, that file as shipped (:mod:`tsid_py.sim.shipped`).

The URDF goes through MuJoCo's own parser (``MjSpec``), so the links, joints, masses and
inertias are the ones pinocchio read. On top of it:

* a free joint on the root body for a floating-base robot (named as pinocchio's root joint),
  unless the file's own ``floating`` joint is there;
* a floor plane, and the contact model of :mod:`tsid_py.sim.contact` (MuJoCo's options;
  point feet stiffer, so that they do not creep);
* foot collision geometry at the contact frames: a box the size of the sole rectangle for
  a humanoid (``robot.sole_size``), a sphere of ``robot.foot_radius`` for point feet; the
  URDF's own collision geometry is left out;
* the URDF's joint damping and dry friction are removed, so that MuJoCo integrates the same
  rigid-body dynamics pinocchio models (``M q̈ + h = τ + Σ Jᵀ f``);
* the robot's mimic couplings (:attr:`~tsid_py.Robot.mimic_joints`, none when loaded with
  ``mimic="independent"``) are joint equalities ``q_m = k q_p + b``, written from the loader's
  couplings rather than left to MuJoCo's parser;
* the profile's held joints (:attr:`~tsid_py.models.profile.RobotProfile.held_joints`: by
  default the joints that move no mass, :mod:`tsid_py.models.held`) locked at the posture by
  joint equalities: no torque can act on them, and a near-massless chain left free swings past
  its limits (and, given any torque, diverges);
* the rotational inertia the loader gave point-mass links
  (:attr:`~tsid_py.loaders.source.ModelSource.added_inertias`) added to their bodies, so that
  the simulated robot is the controller's;
* inertias MuJoCo refuses replaced by the nearest valid ones (:mod:`tsid_py.sim.inertia`),
  with a warning that says by how much;
* with ``visual=True``, a sky (:func:`~tsid_py.sim.contact.add_sky`).

With ``visual=True`` the URDF's meshes are kept as non-colliding visuals (``package://`` paths
resolved against the robot's package folders). A visual mesh MuJoCo cannot read (Collada
``.dae``) or that is missing is replaced by its link's collision geometry when that is
readable, else dropped, with one warning that lists them: the physics never depends on them.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
import xml.etree.ElementTree as ElementTree

import numpy as np

from .contact import DEFAULT_CONTACT, ContactOptions, add_floor, add_sky
from .engine import import_mujoco
from .held import hold_joints
from .inertia import add_isotropic_inertias, repair_inertias

#: Thickness of a sole box, m (its bottom face is the sole plane).
SOLE_THICKNESS = 0.02
#: Mesh formats MuJoCo reads; others (Collada .dae, as in Go2's and Panda's visuals) it refuses.
MUJOCO_MESH_FORMATS = (".stl", ".obj", ".msh")


def build_model(robot, *, timestep: float = 1e-3, friction: float | None = None, visual: bool = False,
                contact: ContactOptions | None = None, terrain=None, additions=()):
    """An ``mujoco.MjModel`` of ``robot`` standing on a floor (see the module). ``contact``
    (default :data:`~tsid_py.sim.contact.DEFAULT_CONTACT`, with ``friction`` if given) sets the
    contact model; an MJCF robot keeps its file's own unless ``contact`` or ``friction`` is given.
    ``terrain``: a :class:`~tsid_py.control.terrain.Terrain` whose solids are added
    (:mod:`tsid_py.sim.terrain`). ``additions``: callables ``add(spec)`` run on the MuJoCo spec
    before it is compiled (a hanging load, :mod:`tsid_py.sim.loads`; the robot's collision
    geometry, :mod:`tsid_py.sim.self_collision`)."""
    source = robot.source
    if source is not None and source.kind == "mjcf":
        from .shipped import build_shipped_model

        return build_shipped_model(robot, timestep=timestep, visual=visual,
                                   contact=_contact(contact, friction) if contact or friction else None,
                                   terrain=terrain, additions=additions)
    return build_urdf_model(robot, timestep=timestep, visual=visual, contact=_contact(contact, friction),
                            terrain=terrain, additions=additions)


def _contact(contact: ContactOptions | None, friction: float | None) -> ContactOptions:
    contact = contact or DEFAULT_CONTACT
    if friction is not None:
        contact = dataclasses.replace(contact, friction=friction)
    return contact


def build_urdf_model(robot, *, timestep: float, visual: bool, contact: ContactOptions, terrain=None, additions=()):
    """The MuJoCo model built from ``robot``'s URDF (see the module)."""
    mujoco = import_mujoco()
    spec = mujoco.MjSpec.from_string(prepared_urdf(robot, visual))
    spec.option.timestep = timestep
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    contact.apply(spec)
    root = robot.model.names[1] if robot.floating_base else None
    if root is not None and root not in [joint.name for joint in spec.joints]:
        spec.worldbody.first_body().add_freejoint(name=root)
    for joint in spec.joints:
        joint.damping = np.zeros_like(np.atleast_1d(joint.damping))
        joint.frictionloss = 0.0
        joint.armature = 0.0
    for equality in list(spec.equalities):   # MuJoCo's parser's mimic couplings: replaced by the robot's
        if equality.type == mujoco.mjtEq.mjEQ_JOINT:
            spec.delete(equality)
    held = hold_joints(spec, robot, mujoco)
    for coupling in robot.mimic_joints:
        if coupling.joint in held:                            # held already, with its primary
            continue
        data = np.zeros(mujoco.mjNEQDATA)
        data[:2] = coupling.offset, coupling.multiplier        # q_m − q_m0 = b + k (q_p − q_p0), q0 = 0
        spec.add_equality(type=mujoco.mjtEq.mjEQ_JOINT, name1=coupling.joint, name2=coupling.primary, data=data)
    for geom in spec.geoms:        # the URDF's visuals never collide
        geom.contype = geom.conaffinity = 0
        geom.group = 1
    for mesh in spec.meshes:       # nor weigh (inertiafromgeom is off): a flat mesh's volume is no error
        mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
    add_floor(spec, contact.sliding)
    if visual:
        add_sky(spec)
    _add_feet(spec, robot, mujoco, contact)
    if terrain is not None:
        from .terrain import add_terrain

        add_terrain(spec, terrain)
    for add in additions:
        add(spec)
    filename = robot.source.path if robot.source else robot.name
    if robot.source is not None:
        add_isotropic_inertias(spec, dict(robot.source.added_inertias))
    repair_inertias(spec, filename)
    spec.visual.global_.offwidth, spec.visual.global_.offheight = 640, 480
    try:
        return spec.compile()
    except ValueError as exc:
        raise ValueError(f"{filename}: MuJoCo cannot compile the model built from this URDF: {exc}") from None


# ---------------------------------------------------------------------------------- URDF text
def prepared_urdf(robot, visual: bool = False) -> str:
    """The robot's URDF text ready for MuJoCo's parser: collisions left out, visuals kept
    (``visual``) with readable meshes only, and a ``<mujoco><compiler/>`` block."""
    if robot.urdf_path is None:
        raise ValueError("robot has no URDF path: build it with Robot.from_urdf, Robot.from_mjcf or "
                         "tsid_py.robots.load")
    path = robot.urdf_path
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as exc:
        raise ValueError(f"{path}: not a valid XML file ({exc})") from None
    resolver = _MeshResolver(path, robot.package_dirs)
    replaced, dropped = [], []
    for link in root.iter("link"):
        visuals, collisions = link.findall("visual"), link.findall("collision")
        for element in visuals + collisions:
            link.remove(element)
        if not visual:
            continue
        shown = [element for element in visuals if resolver.readable(element)]
        if len(shown) < len(visuals):
            fallback = [element for element in collisions if resolver.readable(element)]
            (replaced if fallback else dropped).append(link.get("name"))
            for element in fallback:
                element.tag = "visual"
            shown = fallback or shown
        for element in shown:
            link.append(element)
    if replaced or dropped:
        hint = (" (package:// paths resolve against the robot's package_dirs, and it has none)"
                if resolver.unresolved_package and not robot.package_dirs else "")
        warnings.warn(f"{path}: visual meshes MuJoCo cannot read (Collada) or that are missing{hint}: links "
                      f"{_names(replaced)} are shown with their collision geometry, {_names(dropped)} without "
                      "visuals (the simulated physics does not depend on them)", UserWarning, stacklevel=4)
    compiler = ElementTree.Element("compiler", discardvisual="false" if visual else "true", fusestatic="true",
                                   balanceinertia="false", strippath="false", angle="radian", inertiafromgeom="false")
    block = ElementTree.Element("mujoco")
    block.append(compiler)
    root.insert(0, block)
    return ElementTree.tostring(root, encoding="unicode")


def _names(links: list) -> str:
    """Links named for a warning (the first five), or "none"."""
    from ..models.check.urdf_text import listed      # (a warning's text only: imported then)

    return listed(links, 5) if links else "none"


class _MeshResolver:
    """Resolves a URDF's mesh ``filename`` (``package://``, ``file://`` or relative to the
    URDF) to an absolute path, rewriting the element in place."""

    def __init__(self, urdf: str, package_dirs):
        self.folder = os.path.dirname(os.path.abspath(urdf))
        self.package_dirs = list(package_dirs)
        self.unresolved_package = False

    def resolve(self, filename: str) -> str | None:
        if filename.startswith("package://"):
            relative = filename[len("package://"):]
            candidates = [os.path.join(folder, relative) for folder in self.package_dirs]
            found = next((c for c in candidates if os.path.isfile(c)), None)
            self.unresolved_package |= found is None
            return found
        filename = filename[len("file://"):] if filename.startswith("file://") else filename
        path = filename if os.path.isabs(filename) else os.path.join(self.folder, filename)
        return path if os.path.isfile(path) else None

    def readable(self, element) -> bool:
        """Whether MuJoCo can show this ``<visual>``/``<collision>`` (a primitive, or an
        existing STL/OBJ/MSH mesh, whose path is made absolute)."""
        mesh = element.find(".//mesh")
        if mesh is None:
            return True
        path = self.resolve(mesh.get("filename", ""))
        if path is None or not path.lower().endswith(MUJOCO_MESH_FORMATS):
            return False
        mesh.set("filename", path)
        return True


# ---------------------------------------------------------------------------------- feet
def _add_feet(spec, robot, mujoco, contact: ContactOptions) -> None:
    """Collision geometry at each foot frame, attached to the body of its parent joint, with
    the contact model's parameters."""
    import pinocchio as pin

    model = robot.model
    for foot in robot.feet:
        frame = model.frames[robot.frame_id(foot)]
        joint_name = model.names[frame.parentJoint]
        body = _body_of_joint(spec, joint_name)
        placement = frame.placement            # foot frame in its parent joint's frame
        quaternion = pin.Quaternion(placement.rotation)
        if robot.sole_size is not None:
            length, width = robot.sole_size
            offset = placement.rotation @ np.array([0, 0, SOLE_THICKNESS / 2])
            geom = body.add_geom(name=f"{foot}_sole", type=mujoco.mjtGeom.mjGEOM_BOX,
                                 size=[length / 2, width / 2, SOLE_THICKNESS / 2],
                                 pos=placement.translation + offset,
                                 quat=[quaternion.w, quaternion.x, quaternion.y, quaternion.z])
            contact.apply_to_sole(geom)
        else:
            # the contact frame is the sphere's lowest point; its z axis is the ground normal
            radius = max(robot.foot_radius, 1e-3)
            centre = placement.translation + placement.rotation @ np.array([0.0, 0.0, radius])
            geom = body.add_geom(name=f"{foot}_sphere", type=mujoco.mjtGeom.mjGEOM_SPHERE,
                                 size=[radius, 0, 0], pos=centre)
            contact.apply_to_point_foot(geom)
        geom.friction = contact.sliding
        geom.mass = 0.0
        geom.contype = geom.conaffinity = 1
        geom.condim = 3 if robot.sole_size is None else 4


def _body_of_joint(spec, joint_name: str):
    for joint in spec.joints:
        if joint.name == joint_name:
            return joint.parent
    raise KeyError(f"joint {joint_name!r} not found in the MuJoCo model")
