"""OpenSim model files (``.osim``, the 4.x format) → a pinocchio model.

What is read: the bodies (mass, centre of mass, inertia about it, ``[Ixx Iyy Izz Ixy Ixz Iyz]``),
the joints with their parent and child offset frames (translation, then an x-y-z body-fixed
rotation sequence), the coordinates (names, defaults, ranges), the markers (as pinocchio
frames) and gravity. Muscles, wrapping, constraints and contact geometry are not.

**Joints.** A ``CustomJoint``'s ``SpatialTransform`` gives the child offset frame M in the
parent offset frame F as ``X_FM = (R, p)`` with

    R = R(a_1, θ_1) R(a_2, θ_2) R(a_3, θ_3)        (each axis in the frame after the previous
                                                    rotations: a body-fixed sequence)
    p = Σ_i f_i(c) t_i                              (the translation axes t_i in F)

where each angle or distance is a function of one coordinate (:mod:`.osim_functions`).
In pinocchio this is a chain of 1-dof joints, translations first (prismatic joints along
``t_i``, which do not rotate, so their sum is expressed in F), then rotations
(``JointModelRevoluteUnaligned`` about ``a_k``); constant axes are folded into the fixed
placements. An axis that *is* its coordinate (``LinearFunction`` 1, 0) carries it; any other
function of a coordinate — the knee's translations, ``SimmSpline`` functions of the knee
angle — becomes a **dependent** joint whose position is ``f(c)``: the coupling is reproduced
exactly, not approximated (see :class:`~tsid_py.loaders.osim_coordinates.CoordinateMap`).
``PinJoint`` (rotation about the offset frames' z), ``SliderJoint`` (translation along x)
and ``WeldJoint`` are read too.

**Floating base.** A joint from ground with three rotations and three translations, each
its own coordinate (OpenSim's ``ground_pelvis``), becomes pinocchio's free flyer; the map
between its six coordinates and the free flyer's ``q``/``v`` is exact as well.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from .osim_coordinates import AxisJoint, Coordinate, CoordinateMap, FloatingRoot
from .osim_functions import Constant, OsimFunction, Polynomial, parse_function

#: Joint types read; others are refused by name.
SUPPORTED_JOINTS = ("CustomJoint", "PinJoint", "SliderJoint", "WeldJoint")

#: Oldest file format read: OpenSim 4.0 (``<OpenSimDocument Version="40000">``); 3.x files
#: keep joints inside bodies — open and save them in OpenSim 4 to convert.
MIN_VERSION = 40000


@dataclass
class OpenSimModel:
    """A loaded ``.osim`` file: the pinocchio ``model``, its ``coordinates`` (the map between
    OpenSim's coordinates and pinocchio's q and v), ``bodies`` (names, each with a pinocchio
    frame of that name) and ``markers`` (frame names), the source ``path``, and each body's
    ``inertias`` as the file gives them (mass, centre of mass and inertia about it, in the
    body's own frame): the model's joint inertias are their sums, placed in each joint's
    frame (a welded body adds to its parent's joint)."""

    model: pin.Model
    coordinates: CoordinateMap
    bodies: list[str]
    markers: list[str] = field(default_factory=list)
    path: str = ""
    name: str = "opensim"
    inertias: dict[str, pin.Inertia] = field(default_factory=dict)


def _vector(element: ET.Element, tag: str, size: int, where: str, default=None) -> np.ndarray:
    text = element.findtext(tag)
    if text is None:
        if default is not None:
            return np.asarray(default, dtype=float)
        raise ValueError(f"{where}: <{tag}> is missing")
    try:
        values = np.array([float(token) for token in text.split()])
    except ValueError:
        raise ValueError(f"{where}: <{tag}> must hold {size} numbers, got {text.strip()!r}") from None
    if values.shape != (size,):
        raise ValueError(f"{where}: <{tag}> must hold {size} numbers, got {len(values)}")
    return values


def body_fixed_xyz(angles) -> np.ndarray:
    """OpenSim's orientation of a frame: the x-y-z body-fixed rotation sequence,
    ``R = R_x(α) R_y(β) R_z(γ)``."""
    a, b, c = angles
    return pin.rpy.rpyToMatrix(a, 0, 0) @ pin.rpy.rpyToMatrix(0, b, 0) @ pin.rpy.rpyToMatrix(0, 0, c)


def _offset(element: ET.Element, where: str) -> pin.SE3:
    return pin.SE3(body_fixed_xyz(_vector(element, "orientation", 3, where, (0, 0, 0))),
                   _vector(element, "translation", 3, where, (0, 0, 0)))


def _inertia(body: ET.Element) -> pin.Inertia:
    where = f"body {body.get('name')!r}"
    mass = _vector(body, "mass", 1, where)[0]
    com = _vector(body, "mass_center", 3, where, (0, 0, 0))
    xx, yy, zz, xy, xz, yz = _vector(body, "inertia", 6, where, (0,) * 6)
    if mass < 0:
        raise ValueError(f"{where}: <mass> must be >= 0, got {mass}")
    return pin.Inertia(mass, com, np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))


def _frame_path_body(path: str) -> str:
    """``/bodyset/femur_r`` or ``femur_r`` → ``femur_r``; ``/ground`` → ``ground``."""
    return path.strip().rstrip("/").split("/")[-1]


@dataclass
class _Axis:
    name: str                   # rotation1 … translation3
    kind: str                   # "rotation" | "translation"
    axis: np.ndarray            # unit vector
    coordinate: str | None
    function: OsimFunction


def _spatial_transform(joint: ET.Element, where: str) -> list[_Axis]:
    kind = joint.tag
    coordinates = [c.get("name") for c in joint.iterfind("coordinates/Coordinate")]
    if kind == "WeldJoint":
        return []
    if kind in ("PinJoint", "SliderJoint"):
        if len(coordinates) != 1:
            raise ValueError(f"{where}: a {kind} has one coordinate, got {len(coordinates)}")
        axis = np.array([0.0, 0.0, 1.0]) if kind == "PinJoint" else np.array([1.0, 0.0, 0.0])
        return [_Axis("rotation1" if kind == "PinJoint" else "translation1",
                      "rotation" if kind == "PinJoint" else "translation", axis, coordinates[0],
                      Polynomial((1.0, 0.0)))]
    transform = joint.find("SpatialTransform")
    if transform is None:
        raise ValueError(f"{where}: a CustomJoint needs a <SpatialTransform>")
    axes = []
    for element in transform.iterfind("TransformAxis"):
        name = element.get("name", "")
        axis_where = f"{where}, TransformAxis {name!r}"
        axis = _vector(element, "axis", 3, axis_where)
        if not np.linalg.norm(axis) > 0:
            raise ValueError(f"{axis_where}: <axis> must not be zero")
        names = (element.findtext("coordinates") or "").split()
        if len(names) > 1:
            raise ValueError(f"{axis_where}: functions of several coordinates are not supported, got {names}")
        functions = [child for child in element if child.tag not in ("coordinates", "axis")]
        try:
            function = parse_function(functions[0]) if functions else Constant(0.0)
        except ValueError as error:
            raise ValueError(f"{axis_where}: {error}") from None
        if names and names[0] not in coordinates:
            raise ValueError(f"{axis_where}: coordinate {names[0]!r} is not one of the joint's {coordinates}")
        kind_of_axis = "rotation" if name.startswith("rotation") else "translation"
        axes.append(_Axis(name, kind_of_axis, axis / np.linalg.norm(axis), names[0] if names else None,
                          function if names else Constant(float(function.evaluate(0.0)[0]))))
    return sorted(axes, key=lambda a: a.kind != "translation")          # translations first, stable


def _is_free(axes: list[_Axis]) -> bool:
    carriers = [a for a in axes if a.coordinate is not None]
    return (len(carriers) == 6 and all(a.function.is_identity for a in carriers)
            and len({a.coordinate for a in carriers}) == 6
            and all(a.function.is_constant and a.function.evaluate(0.0)[0] == 0 for a in axes if a.coordinate is None))


def load_osim(path: str | os.PathLike) -> OpenSimModel:
    """Read an OpenSim 4.x model file into a pinocchio model (see the module docstring).

    Errors name the file and the element: ``ValueError`` for a malformed or unsupported file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"OpenSim model {path!r} does not exist")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as error:
        raise ValueError(f"{os.path.basename(path)}: not an XML file ({error})") from None
    try:
        return _build(root, path)
    except ValueError as error:
        raise ValueError(f"{os.path.basename(path)}: {error}") from None


def _build(root: ET.Element, path: str) -> OpenSimModel:
    version = int(root.get("Version", "0") or 0)
    xml_model = root.find("Model")
    if root.tag != "OpenSimDocument" or xml_model is None:
        raise ValueError("expected <OpenSimDocument><Model>…, not an OpenSim model file")
    if version < MIN_VERSION:
        raise ValueError(f"format version {version} is older than OpenSim 4.0 ({MIN_VERSION}): open and save the "
                         "model in OpenSim 4 to convert it")
    model = pin.Model()
    model.name = xml_model.get("name", "opensim")
    model.gravity.linear = _vector(xml_model, "gravity", 3, "model", (0, -9.80665, 0))
    bodies = {b.get("name"): b for b in xml_model.iterfind("BodySet/objects/Body")}
    joints = list(xml_model.find("JointSet/objects") or [])
    for joint in joints:
        if joint.tag not in SUPPORTED_JOINTS:
            raise ValueError(f"joint {joint.get('name')!r} is a {joint.tag}, not supported ({', '.join(SUPPORTED_JOINTS)})")
    builder = _Builder(model, bodies)
    pending = list(joints)
    while pending:                                # the file's order, parents before children
        joint = next((j for j in pending if builder.has_frame(j)), None)
        if joint is None:
            names = [j.get("name") for j in pending]
            raise ValueError(f"joints {names} do not connect to ground through the other joints")
        builder.add_joint(joint)
        pending.remove(joint)
    missing = sorted(set(bodies) - set(builder.body_placements))
    if missing:
        raise ValueError(f"bodies {missing} have no joint")
    markers = builder.add_markers(xml_model.iterfind("MarkerSet/objects/Marker"))
    coordinates = CoordinateMap(builder.coordinates, builder.root, builder.axis_joints, model.nq, model.nv)
    inertias = {name: _inertia(body) for name, body in bodies.items()}
    return OpenSimModel(model, coordinates, list(bodies), markers, path, model.name, inertias)


class _Builder:
    """Adds the joints of an OpenSim model to a pinocchio model, parents first."""

    def __init__(self, model: pin.Model, bodies: dict[str, ET.Element]):
        self.model = model
        self.bodies = bodies
        #: Body name → (pinocchio joint id, placement of the body frame in that joint's frame).
        self.body_placements: dict[str, tuple[int, pin.SE3]] = {"ground": (0, pin.SE3.Identity())}
        self.coordinates: list[Coordinate] = []
        self.axis_joints: list[AxisJoint] = []
        self.root: FloatingRoot | None = None
        #: pinocchio joint id → the id of its joint frame (the parent of the frames added to it).
        self.joint_frames: dict[int, int] = {0: 0}

    def _frames(self, joint: ET.Element) -> dict[str, tuple[str, pin.SE3]]:
        """Offset frame name → (body, placement in the body)."""
        where = f"joint {joint.get('name')!r}"
        frames = {}
        for frame in joint.iterfind("frames/PhysicalOffsetFrame"):
            frames[frame.get("name")] = (_frame_path_body(frame.findtext("socket_parent") or ""),
                                         _offset(frame, f"{where}, frame {frame.get('name')!r}"))
        return frames

    def _socket(self, joint: ET.Element, socket: str) -> tuple[str, pin.SE3]:
        name = (joint.findtext(socket) or "").strip()
        frames = self._frames(joint)
        if name in frames:
            return frames[name]
        body = _frame_path_body(name)
        if body != "ground" and body not in self.bodies:
            raise ValueError(f"joint {joint.get('name')!r}: <{socket}> {name!r} is neither an offset frame nor a body")
        return body, pin.SE3.Identity()

    def has_frame(self, joint: ET.Element) -> bool:
        return self._socket(joint, "socket_parent_frame")[0] in self.body_placements

    def _coordinate(self, joint: ET.Element, name: str, rotational: bool) -> int:
        element = next(c for c in joint.iterfind("coordinates/Coordinate") if c.get("name") == name)
        where = f"coordinate {name!r}"
        default = _vector(element, "default_value", 1, where, (0.0,))[0]
        low, high = _vector(element, "range", 2, where, (-np.inf, np.inf))
        locked = (element.findtext("locked") or "false").strip().lower() == "true"
        self.coordinates.append(Coordinate(name, joint.get("name"), rotational, float(default),
                                           (float(low), float(high)), locked))
        return len(self.coordinates) - 1

    def add_joint(self, joint: ET.Element) -> None:
        name = joint.get("name")
        where = f"joint {name!r}"
        parent, X_PF = self._socket(joint, "socket_parent_frame")
        child, X_BM = self._socket(joint, "socket_child_frame")
        if child not in self.bodies:
            raise ValueError(f"{where}: child {child!r} is not a body of the model")
        if child in self.body_placements:
            raise ValueError(f"{where}: body {child!r} already has a joint (closed loops are not supported)")
        parent_joint, X_JP = self.body_placements[parent]
        placement = X_JP * X_PF                           # parent offset frame in the parent joint's frame
        axes = _spatial_transform(joint, where)
        primary = {}                                      # coordinate → the axis that carries it
        for axis in axes:
            if axis.coordinate is not None and axis.function.is_identity and axis.coordinate not in primary:
                primary[axis.coordinate] = axis
        for coordinate in joint.iterfind("coordinates/Coordinate"):
            if coordinate.get("name") not in primary:
                raise ValueError(f"{where}: coordinate {coordinate.get('name')!r} drives no axis directly "
                                 "(LinearFunction 1 0); such couplings are not supported")
            self._coordinate(joint, coordinate.get("name"), primary[coordinate.get("name")].kind == "rotation")
        if parent == "ground" and parent_joint == 0 and _is_free(axes) and self.root is None:
            joint_id = self._add_free(name, joint, axes, placement)
            X_joint_M = pin.SE3.Identity()
        else:
            joint_id, X_joint_M = self._add_chain(name, joint, axes, primary, parent_joint, placement)
        X_joint_B = X_joint_M * X_BM.inverse()
        self.model.appendBodyToJoint(joint_id, _inertia(self.bodies[child]), X_joint_B)
        self.model.addBodyFrame(child, joint_id, X_joint_B, self.joint_frames.get(joint_id, 0))
        self.body_placements[child] = (joint_id, X_joint_B)

    def _add_free(self, name, joint, axes, placement) -> int:
        rotations = [a for a in axes if a.kind == "rotation" and a.coordinate is not None]
        translations = [a for a in axes if a.kind == "translation" and a.coordinate is not None]
        joint_id = self.model.addJoint(0, pin.JointModelFreeFlyer(), placement, name)
        self.joint_frames[joint_id] = self.model.addJointFrame(joint_id, 0)
        index = {c.name: i for i, c in enumerate(self.coordinates)}
        self.root = FloatingRoot(np.array([a.axis for a in rotations]), tuple(index[a.coordinate] for a in rotations),
                                 np.array([a.axis for a in translations]),
                                 tuple(index[a.coordinate] for a in translations))
        return joint_id

    def _add_chain(self, name, joint, axes, primary, parent_joint, placement) -> tuple[int, pin.SE3]:
        """The joint as a chain of 1-dof pinocchio joints; returns the last one and the
        placement of the child offset frame M in its frame."""
        fixed = pin.SE3(placement)                        # accumulated fixed placement before the next joint
        joint_id = parent_joint
        for axis in axes:
            if axis.coordinate is None:                   # a constant: folded into the placements
                value = float(axis.function.evaluate(0.0)[0])
                step = pin.SE3(pin.exp3(axis.axis * value), np.zeros(3)) if axis.kind == "rotation" \
                    else pin.SE3(np.eye(3), axis.axis * value)
                fixed = fixed * step
                continue
            carrier = primary[axis.coordinate] is axis
            model_joint = pin.JointModelRevoluteUnaligned(axis.axis) if axis.kind == "rotation" \
                else pin.JointModelPrismaticUnaligned(axis.axis)
            joint_name = axis.coordinate if carrier else f"{name}_{axis.name}"
            parent_frame = self.joint_frames[joint_id]
            joint_id = self.model.addJoint(joint_id, model_joint, fixed, joint_name)
            self.joint_frames[joint_id] = self.model.addJointFrame(joint_id, parent_frame)
            self.axis_joints.append(AxisJoint(joint_name, self.model.joints[joint_id].idx_q,
                                              self.model.joints[joint_id].idx_v, axis.coordinate, axis.function,
                                              carrier))
            fixed = pin.SE3.Identity()
        return joint_id, fixed                            # a weld: the parent's joint

    def add_markers(self, markers) -> list[str]:
        names = []
        for marker in markers:
            name = marker.get("name")
            body = _frame_path_body(marker.findtext("socket_parent_frame") or "")
            if body not in self.body_placements or body == "ground":
                continue
            joint_id, X_JB = self.body_placements[body]
            location = _vector(marker, "location", 3, f"marker {name!r}", (0, 0, 0))
            frame = pin.Frame(name, joint_id, self.model.getFrameId(body), X_JB * pin.SE3(np.eye(3), location),
                              pin.FrameType.OP_FRAME)
            self.model.addFrame(frame)
            names.append(name)
        return names


#: The sole of an OpenSim foot body, in its frame, as multiples of the distance ``l`` from
#: the body's origin to its toes joint (the metatarsophalangeal joint): heel edge, toe edge,
#: sole level (along the body's y, OpenSim's up axis) and width. The proportions of the
#: gait2354/2392 feet, measured from the force-plate centres of pressure of the
#: Gait2354_Simbody trial in the calcaneus frame (−0.03 … 0.30 m, 0.055 m below the origin,
#: ±0.03 m sideways, with l = 0.184 m).
SOLE_PROPORTIONS = {"heel": -0.15, "toe": 1.65, "level": -0.30, "width": 0.55}


def add_sole_frames(loaded: OpenSimModel, feet) -> tuple[list[str], tuple[float, float] | None]:
    """Add a sole frame ``<body>_sole`` to each foot body of ``loaded.model``: its origin at
    the centre of the sole rectangle of :data:`SOLE_PROPORTIONS`, its z axis the body's y
    (up when the foot is flat), its x axis the body's x (forward). Returns the frame names
    and the soles' (length, width) in m (None without feet)."""
    model = loaded.model
    names, size = [], None
    for body in feet:
        if body not in loaded.bodies:
            raise KeyError(f"foot {body!r} is not a body of {loaded.name!r}; bodies: {loaded.bodies}")
        frame = model.frames[model.getFrameId(body)]
        toes = [j for j in range(1, model.njoints) if model.parents[j] == frame.parentJoint]
        if not toes:
            raise ValueError(f"foot {body!r} has no toes joint to measure its sole from")
        toe_joint = frame.placement.inverse() * model.jointPlacements[toes[0]]
        length = float(np.linalg.norm(toe_joint.translation))
        heel, toe = SOLE_PROPORTIONS["heel"] * length, SOLE_PROPORTIONS["toe"] * length
        centre = np.array([(heel + toe) / 2, SOLE_PROPORTIONS["level"] * length, toe_joint.translation[2]])
        rotation = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])   # columns: x_B, −z_B, y_B
        name = f"{body}_sole"
        model.addFrame(pin.Frame(name, frame.parentJoint, model.getFrameId(body),
                                 frame.placement * pin.SE3(rotation, centre), pin.FrameType.OP_FRAME))
        names.append(name)
        size = (toe - heel, SOLE_PROPORTIONS["width"] * length)
    return names, size
