"""Feet from a robot's geometry: which bodies touch the ground at a posture, and how.

A controller needs, for each foot, a contact frame (its z axis the ground's normal, into the
robot) and what touches the ground there: a **sole** rectangle centred at the frame, or a
**point** — the bottom of a sphere foot. :func:`find_feet` reads them off the model's
geometry at a standing posture, by these rules:

1. **Geometry**: each body's collision geometry; a body without any, its visual geometry
   (meshes, boxes, spheres, cylinders, capsules and convex hulls, as pinocchio and coal read
   them). The root body of a floating-base robot is never a foot.
2. **Ground contact**: the robot's lowest point at the posture is the ground; a body touches
   it when its own lowest point is within :data:`CONTACT_BAND` of it. Bodies touching it on
   the same leg (the same branch of the kinematic tree below the root) are one foot: the
   lowest of them.
3. **Sole or point**: the foot's bottom has a plane: normal to the axis of the foot's body
   frame closest to the vertical at the posture (the vertical if none is within
   :data:`MAX_SOLE_TILT`), refitted (least squares) on the points within :data:`SOLE_BAND`
   of the lowest along it when they are flat. Its points within :data:`SOLE_BAND` of that
   plane's lowest are its face (a sphere counts by its lowest point, where it touches a floor:
   G1's feet are four 5 mm spheres, 0.18 × 0.07 m around the spheres but 0.17 × 0.05–0.06 m
   between the points that carry it): a face at least :data:`MIN_SOLE` long and wide, and flat (nearly as wide
   within :data:`FLAT_BAND` as within :data:`WIDE_BAND`), is a sole, the smallest rectangle around it
   along its principal axes, its length along the axis closer to the robot's forward
   direction (the world's x axis at the posture: postures from SRDF files and keyframes face
   +x, whatever the base frame's own axes — iCub's root link faces backward), centred at the rectangle's centre — which may be off the
   foot's joint (Romeo's ankle is 2.3 cm behind its sole's centre) — and its normal the
   plane's, which may be tilted at the posture (iCub's soles are 3.6° off the ground at its
   SRDF posture: :func:`tsid_py.models.posture.standing_posture` levels them). Any other foot
   is a point: its lowest point, on a sphere of the geometry's radius (the primitive's whose
   bottom it is, else the sphere fitted to the bottom's points).
4. **No geometry at the feet** (Simple Humanoid): an SRDF's ``<specificities><feet>`` (the
   HPP convention: a ``size`` of ``width`` along x, ``height`` along y, and the ankle's
   height above the sole, ``anklePosition z``) on the two lowest leaf bodies.

Each :class:`FootGeometry` places its contact frame in its body's joint frame: at the sole's
centre or the contact point, axes ground-aligned at the posture (z up, x forward).
:func:`add_foot_frames` adds them to the model (before a :class:`~tsid_py.Robot` is made of
it). Units: m.
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

import coal
import numpy as np
import pinocchio as pin

#: A body whose lowest point is within this of the robot's lowest one touches the ground, m.
CONTACT_BAND = 0.01
#: A point foot's cap: its points within this of its lowest one, for a fitted radius, m.
BOTTOM_BAND = 0.01
#: The sole's face: the points within this of the bottom plane's lowest one, m.
SOLE_BAND = 0.005
#: A flat face is nearly as wide within :data:`FLAT_BAND` of the plane as within
#: :data:`WIDE_BAND` (at least :data:`FLAT_RATIO` of it along both axes): a curved bottom (a
#: sphere foot's) widens as the square root of the band, 1.63 times from 3 to 8 mm (Go2's
#: feet 1.4–1.6), a sole's face hardly (Romeo's mesh sole 1.07–1.14, Talos's 1.03), m.
FLAT_BAND, WIDE_BAND, FLAT_RATIO = 0.003, 0.008, 0.8
#: A flat face at least this long and wide is a sole, m.
MIN_SOLE = 0.03
#: A bottom tilted more than this (deg) from the ground at the posture is not a sole.
MAX_SOLE_TILT = 20.0
#: Points a curved primitive (sphere, cylinder, capsule) is sampled with, around a circle.
CIRCLE_SAMPLES = 32


@dataclass(frozen=True)
class FootGeometry:
    """One foot as the geometry shows it (see the module).

    ``body``: the link's name; ``joint``: the index of the joint that moves it;
    ``placement``: the contact frame in that joint's frame; ``sole_size``: ``(length,
    width)`` of a sole, None for a point foot; ``radius``: a point foot's sphere radius (0
    for a sole); ``source``: where the facts came from (``"collision"``, ``"visual"``,
    ``"srdf"``)."""

    body: str
    joint: int
    placement: pin.SE3
    sole_size: tuple[float, float] | None
    radius: float
    source: str

    @property
    def frame_name(self) -> str:
        """The contact frame's name: ``<body>_sole`` or ``<body>_contact``."""
        return f"{self.body}_{'sole' if self.sole_size is not None else 'contact'}"


def find_feet(model: pin.Model, q: np.ndarray, collision: pin.GeometryModel | None,
              visual: pin.GeometryModel | None = None, srdf: str | None = None) -> list[FootGeometry]:
    """The feet of a floating-base ``model`` standing at ``q`` (see the module's rules);
    ``ValueError`` naming what is missing when no foot can be found."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    points = body_points(model, data, q, collision, visual)
    feet = _touching_bodies(model, points)
    if feet:
        forward = np.array([1.0, 0.0, 0.0])
        return [_foot_of(model, data, joint, points[joint], forward) for joint in feet]
    if srdf is not None:
        found = _srdf_feet(model, data, srdf)
        if found:
            return found
    raise ValueError("no foot found: the legs have no collision or visual geometry (and no SRDF <specificities> "
                     "gives the soles); declare the feet: Robot(..., feet=[frame names], sole_size=(length, width)) "
                     "or foot_radius=... for point feet")


def add_foot_frames(model: pin.Model, feet: list[FootGeometry]) -> list[str]:
    """Add each foot's contact frame to ``model`` (an operational frame on its body's joint,
    unless one of that name exists); returns the frames' names, in the order of ``feet``."""
    names = []
    for foot in feet:
        name = foot.frame_name
        if not model.existFrame(name):
            parent = _body_frame(model, foot.joint)
            model.addFrame(pin.Frame(name, foot.joint, parent, foot.placement, pin.FrameType.OP_FRAME))
        names.append(name)
    return names


# ------------------------------------------------------------------------------ geometry
def geometry_points(geometry) -> np.ndarray:
    """Points (k, 3) of a coal geometry in its own frame: a mesh's or convex hull's vertices,
    a box's corners, and points around a sphere, cylinder or capsule (their lowest points
    among them for any orientation: circles in three planes)."""
    if isinstance(geometry, coal.Box):
        half = np.asarray(geometry.halfSide)
        return np.array([[sx, sy, sz] for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)]) * half
    if isinstance(geometry, coal.Sphere):
        return _sphere(np.zeros(3), geometry.radius)
    if isinstance(geometry, (coal.Cylinder, coal.Capsule)):
        r, h = geometry.radius, geometry.halfLength
        angle = np.linspace(0.0, 2 * np.pi, CIRCLE_SAMPLES, endpoint=False)
        rims = [np.c_[r * np.cos(angle), r * np.sin(angle), np.full(CIRCLE_SAMPLES, z)] for z in (-h, h)]
        if isinstance(geometry, coal.Capsule):
            rims += [_sphere(np.array([0.0, 0.0, z]), r) for z in (-h, h)]
        return np.vstack(rims)
    if isinstance(geometry, coal.ConvexBase):
        with warnings.catch_warnings():              # coal marks the per-index accessor deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            return np.array([geometry.points(i) for i in range(geometry.num_points)])
    if hasattr(geometry, "vertices"):
        return np.asarray(geometry.vertices(), dtype=float)
    return np.zeros((0, 3))


def _sphere(centre: np.ndarray, radius: float) -> np.ndarray:
    """Points on three great circles of a sphere."""
    angle = np.linspace(0.0, 2 * np.pi, CIRCLE_SAMPLES, endpoint=False)
    c, s, z = radius * np.cos(angle), radius * np.sin(angle), np.zeros(CIRCLE_SAMPLES)
    return centre + np.vstack([np.c_[c, s, z], np.c_[c, z, s], np.c_[z, c, s]])


def body_points(model: pin.Model, data: pin.Data, q: np.ndarray, collision: pin.GeometryModel | None,
                visual: pin.GeometryModel | None) -> dict[int, tuple[np.ndarray, str, list]]:
    """Per joint (a body and the links fixed to it): ``(world points (k, 3), source,
    primitives)`` of its collision geometry, or of its visual geometry when it has no
    collision geometry; ``primitives``: ``(lowest point (3,), radius)`` of its spheres,
    cylinders and capsules, world."""
    found: dict[int, tuple[np.ndarray, str, list]] = {}
    for source, geometry_model in (("collision", collision), ("visual", visual)):
        if geometry_model is None:
            continue
        gathered: dict[int, list] = {}
        primitives: dict[int, list] = {}
        geometry_data = geometry_model.createData()
        pin.updateGeometryPlacements(model, data, geometry_model, geometry_data, q)
        for index, geometry in enumerate(geometry_model.geometryObjects):
            if geometry.parentJoint in found:
                continue
            placement = geometry_data.oMg[index]
            world = geometry_points(geometry.geometry) @ placement.rotation.T + placement.translation
            if isinstance(geometry.geometry, coal.Sphere):       # it touches a plane at its lowest point only
                world = world[np.argmin(world[:, 2])][None, :]
            gathered.setdefault(geometry.parentJoint, []).append(world)
            if isinstance(geometry.geometry, (coal.Sphere, coal.Cylinder, coal.Capsule)) and len(world):
                primitives.setdefault(geometry.parentJoint, []).append((world[np.argmin(world[:, 2])],
                                                                        float(geometry.geometry.radius)))
        for joint, chunks in gathered.items():
            found[joint] = (np.vstack(chunks), source, primitives.get(joint, []))
    return found


def _touching_bodies(model: pin.Model, points: dict) -> list[int]:
    """The joints of the bodies that touch the ground (rule 2), one per leg, in joint order."""
    candidates = {joint: entry[0][:, 2].min() for joint, entry in points.items() if joint > 1 and len(entry[0])}
    if not candidates:
        return []
    ground = min(candidates.values())
    per_leg: dict[int, int] = {}
    for joint, low in candidates.items():
        if low > ground + CONTACT_BAND:
            continue
        support = list(model.supports[joint])
        leg = support[2] if len(support) > 2 else joint            # the root's child on the way
        if leg not in per_leg or low < candidates[per_leg[leg]]:
            per_leg[leg] = joint
    return sorted(per_leg.values())


def _foot_of(model: pin.Model, data: pin.Data, joint: int, entry, forward: np.ndarray) -> FootGeometry:
    """Rule 3 for the body of ``joint``: the bottom's plane, then a sole or a point."""
    points, source, primitives = entry
    normal = _body_axis_up(data.oMi[joint].rotation)
    heights = points @ normal
    face = points[heights <= heights.min() + SOLE_BAND]
    normal = _bottom_normal(face, normal)                    # refitted on the face itself
    heights = points @ normal
    bottom = heights.min()
    face = points[heights <= bottom + SOLE_BAND]
    axes, extent, centre = _rectangle(face, normal, forward)
    _, flat_extent, _ = _rectangle(points[heights <= bottom + FLAT_BAND], normal, forward)
    _, wide_extent, _ = _rectangle(points[heights <= bottom + WIDE_BAND], normal, forward)
    body = _body_name(model, joint) or model.names[joint]
    if extent.min() >= MIN_SOLE and np.all(flat_extent >= FLAT_RATIO * wide_extent):
        rotation = np.column_stack([axes[0], axes[1], normal])
        world = pin.SE3(rotation, centre + normal * (bottom - centre @ normal))
        return FootGeometry(body, joint, data.oMi[joint].actInv(world), (float(extent[0]), float(extent[1])), 0.0,
                            source)
    lowest = points[np.argmin(points[:, 2])]
    world = pin.SE3(np.eye(3), lowest)               # ground-aligned, facing +x
    return FootGeometry(body, joint, data.oMi[joint].actInv(world), None, _radius(points, primitives, lowest), source)


def _body_axis_up(rotation: np.ndarray) -> np.ndarray:
    """The axis of a foot's body frame (±x, ±y, ±z) closest to the vertical at the posture:
    a sole's normal as a foot link is usually drawn, even when the posture tilts it (iCub's,
    3.6°); the vertical itself when none is within :data:`MAX_SOLE_TILT`."""
    column = int(np.argmax(np.abs(rotation[2])))
    axis = rotation[:, column] * np.sign(rotation[2, column])
    return axis if axis[2] > np.cos(np.radians(MAX_SOLE_TILT)) else np.array([0.0, 0.0, 1.0])


def _bottom_normal(cap: np.ndarray, default: np.ndarray | None = None) -> np.ndarray:
    """The normal, pointing up into the foot, of the plane fitted to a foot's bottom points
    ``cap`` (least squares), or ``default`` (the vertical) when they do not span a flat
    plane (a curved or pointed bottom, a line) or it is tilted past :data:`MAX_SOLE_TILT`."""
    fallback = np.array([0.0, 0.0, 1.0]) if default is None else default
    if len(cap) < 3:
        return fallback
    spread = cap - cap.mean(axis=0)
    values, vectors = np.linalg.eigh(spread.T @ spread)
    if values[1] < 1e-12 or values[0] > 0.05 * values[1]:
        return fallback
    normal = vectors[:, 0] if vectors[2, 0] > 0 else -vectors[:, 0]
    return normal if normal[2] > np.cos(np.radians(MAX_SOLE_TILT)) else fallback


def _rectangle(points: np.ndarray, normal: np.ndarray, forward: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rectangle around points projected on the plane of ``normal``, along their
    principal axes: ``(axes (2, 3), rows the length and width directions, extent (length,
    width), centre (3,))``; the length axis is the one closer to ``forward``, pointing along
    it."""
    seed = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(normal, seed)
    u /= np.linalg.norm(u)
    w = np.cross(normal, u)
    plane = np.column_stack([u, w])                        # 3 × 2: plane coordinates
    xy = points @ plane
    mean = xy.mean(axis=0)
    spread = xy - mean
    vectors = np.linalg.eigh(spread.T @ spread)[1] if len(xy) > 1 else np.eye(2)
    first = vectors[:, 1]
    direction = plane.T @ forward
    if np.linalg.norm(direction) > 1e-9:
        if abs(vectors[:, 0] @ direction) > abs(first @ direction):
            first = vectors[:, 0]
        if first @ direction < 0:
            first = -first
    second = np.array([-first[1], first[0]])
    local = spread @ np.column_stack([first, second])
    low, high = local.min(axis=0), local.max(axis=0)
    middle = mean + ((low + high) / 2) @ np.vstack([first, second])
    axes = np.vstack([plane @ first, plane @ second])
    return axes, high - low, plane @ middle


def _radius(points: np.ndarray, primitives: list, lowest: np.ndarray) -> float:
    """A point foot's radius: that of the sphere, cylinder or capsule whose bottom the contact
    point is, else the least-squares sphere through the points within :data:`BOTTOM_BAND`
    of the bottom (the cap); 0 if they are too few or flat."""
    for bottom, radius in primitives:
        if np.array_equal(bottom, lowest):
            return radius
    cap = points[points[:, 2] <= lowest[2] + BOTTOM_BAND]
    if len(cap) < 4:
        return 0.0
    # |p − c|² = r²  ⇔  2 p·c + (r² − |c|²) = |p|²: linear in (c, r² − |c|²)
    matrix = np.c_[2 * cap, np.ones(len(cap))]
    solution, *_ = np.linalg.lstsq(matrix, np.einsum("ij,ij->i", cap, cap), rcond=None)
    centre, constant = solution[:3], solution[3]
    squared = constant + centre @ centre
    return float(np.sqrt(squared)) if squared > 0 and np.isfinite(squared) else 0.0


def _body_name(model: pin.Model, joint: int) -> str | None:
    frame = _body_frame(model, joint)
    return model.frames[frame].name if frame is not None else None


def _body_frame(model: pin.Model, joint: int) -> int | None:
    """The body frame of the link a joint moves (its parent frame is the joint's own)."""
    for index, frame in enumerate(model.frames):
        if (frame.type == pin.FrameType.BODY and frame.parentJoint == joint
                and model.frames[frame.parentFrame].type == pin.FrameType.JOINT):
            return index
    return None


# ------------------------------------------------------------------------------ SRDF
def _srdf_feet(model: pin.Model, data: pin.Data, srdf: str) -> list[FootGeometry]:
    """Rule 4: an SRDF's ``<specificities><feet>`` on the two lowest leaf bodies (left: the
    one on the +y side), their soles ground-aligned and facing +x."""
    root = ElementTree.parse(srdf).getroot()
    sides = {}
    for side in ("left", "right"):
        entry = root.find(f"specificities/feet/{side}")
        if entry is None:
            return []
        size, ankle = entry.find("size"), entry.find("anklePosition")
        if size is None or ankle is None:
            raise ValueError(f"{srdf}: <specificities><feet><{side}> needs <size> and <anklePosition>")
        sides[side] = (float(size.get("width")), float(size.get("height")),
                       np.array([float(ankle.get(axis, 0.0)) for axis in "xyz"]))
    children = {joint: 0 for joint in range(model.njoints)}
    for joint in range(1, model.njoints):
        children[model.parents[joint]] += 1
    leaves = sorted((joint for joint in range(2, model.njoints) if children[joint] == 0),
                    key=lambda joint: data.oMi[joint].translation[2])[:2]
    if len(leaves) < 2:
        return []
    left, right = sorted(leaves, key=lambda joint: -data.oMi[joint].translation[1])      # left: +y
    feet = []
    for joint, side in ((left, "left"), (right, "right")):
        length, width, ankle = sides[side]
        ankle_pose = data.oMi[joint]
        sole = ankle_pose.translation - ankle                 # ground-aligned, facing +x
        feet.append(FootGeometry(_body_name(model, joint) or model.names[joint], joint,
                                 ankle_pose.actInv(pin.SE3(np.eye(3), sole)), (length, width), 0.0, "srdf"))
    return feet
