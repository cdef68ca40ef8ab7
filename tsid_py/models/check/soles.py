"""The model check of the feet and the geometry they come from (see :mod:`tsid_py.models.check`).

The feet are found again as the loader finds them (:func:`tsid_py.models.feet.find_feet` at
the file's posture: the collision geometry, then the visual one if that shows fewer than two
feet, then the SRDF's ``<specificities>``), so that what they came from and how the loader
placed them can be reported:

* **source**: feet from visual meshes or from the SRDF mean the legs have no collision
  geometry at the feet (a warning: the harness gives them boxes or spheres of the derived
  size, and a user should confirm it);
* **tilt and levelling**: each sole's angle from the ground at the file's posture, the
  rotation and the drop the loader applied to stand it flat on ``z = 0``, and what tilt is
  left when the soles are not coplanar (the loader levels their mean normal);
* **sole rectangle**: a sole shorter along the robot's forward direction (+x at the posture)
  than across it; when its collision mesh is a Collada file declaring another up axis, the
  sole as the file declares it (see :func:`collada_findings`);
* **offsets**: the sole's centre from the foot's joint frame and from the file's own frames on
  the foot (links named ``…sole…``, ``…foot…``, ``…toe…``), along the sole's axes; a point
  foot's file frame tilted from the ground;
* **names**: a contact frame name the loader gives (``<body>_sole``, ``<body>_contact``) that
  the file already uses for another frame.

**Collada and coal**: coal reads a Collada mesh's vertices as stored, ignoring its declared
``<up_axis>``; the loader turns the meshes by it when the robot's own evidence says the
declaration is right (:mod:`tsid_py.models.collada`), and the check reports which it did.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from ...loaders.urdf import load_urdf, srdf_postures
from ..feet import CONTACT_BAND, SOLE_BAND, FootGeometry, body_points, find_feet
from ..posture import sole_tilts
from .report import Finding, finding
from ..collada import UP_AXES, AxesEvidence, apply_declared_axes, collada_header
from .urdf_text import listed
#: A sole centre farther than this from the foot's joint frame (horizontally) is reported, m.
OFFSET = 0.005
#: Words that mark the file's own foot frames.
FOOT_WORDS = ("sole", "foot", "toe")


@dataclass
class Geometry:
    """The robot's geometry as the loader read it: ``collision`` and ``visual`` (pinocchio
    geometry models, None when absent or not read) and the ``feet`` found at the file's
    posture (empty for a fixed base)."""

    collision: pin.GeometryModel | None
    visual: pin.GeometryModel | None
    feet: list[FootGeometry]
    axes: AxesEvidence = field(default_factory=AxesEvidence)


def read_geometry(robot, q: np.ndarray, srdf: str | None, package_dirs) -> Geometry:
    """The geometry of ``robot``'s file and its feet at ``q``, read as the loader does."""
    mjcf = robot.source.kind == "mjcf"
    collision = _build(robot, pin.COLLISION, package_dirs)
    axes = apply_declared_axes(robot.model, q, collision) if not mjcf else AxesEvidence()
    visual = _build(robot, pin.VISUAL, package_dirs) if mjcf else None
    if not robot.floating_base:
        return Geometry(collision, visual, [], axes)
    feet = _feet(robot.model, q, collision, visual, srdf)
    if len(feet) < 2 and not mjcf:                         # the loader then sees bodies by their visuals
        visual = _build(robot, pin.VISUAL, package_dirs)
        apply_declared_axes(robot.model, q, visual)
        feet = _feet(robot.model, q, collision, visual, srdf)
    return Geometry(collision, visual, feet, axes)


def _build(robot, kind, package_dirs) -> pin.GeometryModel | None:
    """The file's collision or visual geometry (``kind``) on ``robot.model``; None when it has
    none or it cannot be read (the loader's failure is a finding of its own)."""
    path = robot.source.path
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            geometry = (pin.buildGeomFromMJCF(robot.model, path, kind) if robot.source.kind == "mjcf"
                        else pin.buildGeomFromUrdf(robot.model, path, kind, list(package_dirs)))
    except (ValueError, RuntimeError):
        return None
    return geometry if geometry.ngeoms else None


def base_findings(robot, srdf: str | None, posture: str | None, package_dirs) -> list[Finding]:
    """Why the loader gave a URDF robot a fixed base, seen on a free-floating model of the file
    at the same posture: its root body touches the ground (an arm on its pedestal), or
    :func:`find_feet` sees no foot (an arm), or only one: a warning when the root has several
    branches (legs, perhaps, the posture lifting all but one more than
    :data:`~tsid_py.models.feet.CONTACT_BAND` above the lowest), else an arm lying down."""
    if robot.floating_base or robot.source is None or robot.source.kind != "urdf":
        return []
    path = robot.source.path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_urdf(path, True, list(package_dirs), mimic="independent").model
    postures = srdf_postures(model, srdf) if srdf is not None else {}
    q = postures[posture] if posture in postures else pin.neutral(model)
    floating = type(robot)(model, name=robot.name, q_ref=q, source=robot.source)
    collision, visual = _build(floating, pin.COLLISION, package_dirs), None
    feet = _feet(model, q, collision, None, srdf)
    if not _root_on_ground(model, q, collision, None, feet) and len(feet) < 2:
        visual = _build(floating, pin.VISUAL, package_dirs)
        feet = _feet(model, q, collision, visual, srdf)
    bodies = [foot.body for foot in feet]
    if _root_on_ground(model, q, collision, visual, feet):
        reason = "its root body lies as low as its lowest other body (an arm on its pedestal)"
    elif len(bodies) == 1 and sum(model.parents[joint] == 1 for joint in range(2, model.njoints)) >= 2:
        return [finding(
            "warning", "one-foot-on-the-ground", path, f"link {bodies[0]!r}",
            f"at the posture only {bodies[0]!r} touches the ground (the lowest point of the robot; every other leg's "
            "lowest point is more than 1 cm above it), so the loader took the robot for an arm: a fixed base",
            "if it is a legged robot, choose a posture with its feet on one level (--posture), or load it with "
            "Robot.from_urdf(path, floating_base=True) and declare its feet", "loader", bodies=bodies)]
    else:
        reason = f"{'only ' + repr(bodies[0]) if bodies else 'no body'} touches the ground, on a single chain (an arm)"
    return [finding("note", "fixed-base", path, "the base", f"loaded with a fixed base: at the posture {reason}",
                    "load it with Robot.from_urdf(path, floating_base=True) if it moves freely", "loader",
                    bodies=bodies)]


def _root_on_ground(model, q, collision, visual, feet) -> bool:
    """Whether the root body's lowest point is within 1 cm of the lowest foot's (or of the
    robot's other bodies', without feet)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    points = body_points(model, data, q, collision, visual)
    root = points.get(1)
    if root is None or not len(root[0]):
        return False
    others = [entry[0][:, 2].min() for joint, entry in points.items() if joint > 1 and len(entry[0])]
    lowest = (min((data.oMi[foot.joint] * foot.placement).translation[2] - foot.radius for foot in feet) if feet
              else min(others, default=np.inf))
    return bool(root[0][:, 2].min() <= lowest + CONTACT_BAND)


def _feet(model, q, collision, visual, srdf) -> list[FootGeometry]:
    try:
        return find_feet(model, q, collision, visual, srdf)
    except ValueError:
        return []


def feet_findings(robot, q_raw: np.ndarray, posture: str | None, geometry: Geometry, facts: dict) -> list[Finding]:
    """The findings about the feet (see the module); ``facts`` gains ``feet_source``."""
    file = robot.source.path
    feet = geometry.feet
    if [foot.frame_name for foot in feet] != list(robot.feet):
        return [finding("note", "feet-not-rederived", file, "the feet",
                        f"the check found the feet {[f.frame_name for f in feet]}, the loader {list(robot.feet)}: "
                        "the feet's findings are left out", "report this file to tsid_py's maintainers", None)]
    if not feet:
        return []
    sources = sorted({foot.source for foot in feet})
    facts["feet_source"] = "/".join(sources)
    label = f"posture {posture!r}" if posture else "the neutral posture"
    found = _source_findings(feet, file) + _name_findings(robot, feet, file)
    soles = [foot for foot in feet if foot.sole_size is not None]
    if soles:
        found += _tilt_findings(robot, q_raw, soles, label, file) + _size_findings(robot, q_raw, soles, geometry, file)
        found += _offset_findings(robot, robot.q_ref, soles, file)
    else:
        found += _point_frame_findings(robot, robot.q_ref, feet, file)
    return found


def _source_findings(feet: list[FootGeometry], file: str) -> list[Finding]:
    found = []
    for source, what in (("visual", "their visual meshes"), ("srdf", "the SRDF's <specificities><feet>")):
        bodies = [foot.body for foot in feet if foot.source == source]
        if bodies:
            found.append(finding(
                "warning", f"feet-from-{source}", file, f"links {listed(bodies)}",
                f"the feet have no collision geometry: their soles or contact points come from {what}",
                "check the derived sizes; the harness collides them as boxes or spheres of that size; add <collision> "
                "geometry to the feet to make it explicit", "loader", bodies=bodies))
    return found


def _name_findings(robot, feet: list[FootGeometry], file: str) -> list[Finding]:
    found = []
    for foot in feet:
        frame = robot.model.frames[robot.frame_id(foot.frame_name)]
        if frame.parentJoint != foot.joint or not frame.placement.isApprox(foot.placement, 1e-6):
            found.append(finding(
                "error", "contact-frame-name-taken", file, f"frame {foot.frame_name!r}",
                f"the file has a frame named {foot.frame_name!r}, the loader's name for {foot.body!r}'s contact frame, "
                f"placed elsewhere: the loader kept the file's frame, so the contact is not at the sole",
                "rename the file's frame", None))
    return found


def _tilt_findings(robot, q_raw, soles, label: str, file: str) -> list[Finding]:
    model = robot.model
    before = sole_tilts(model, q_raw, soles)
    after = sole_tilts(model, robot.q_ref, soles)
    data = model.createData()
    pin.forwardKinematics(model, data, q_raw)
    normals = [(data.oMi[foot.joint] * foot.placement).rotation[:, 2] for foot in soles]
    apart = max((np.arccos(np.clip(a @ b, -1, 1)) for i, a in enumerate(normals) for b in normals[i + 1:]), default=0.0)
    lowest = min((data.oMi[foot.joint] * foot.placement).translation[2] for foot in soles)
    mean_normal = np.sum(normals, axis=0)                # the loader turns it onto the vertical
    levelled = float(np.arctan2(np.linalg.norm(mean_normal[:2]), mean_normal[2]))
    values = {"tilt_before_deg": {k: np.degrees(v) for k, v in before.items()},
              "tilt_after_deg": {k: np.degrees(v) for k, v in after.items()},
              "levelling_deg": np.degrees(levelled), "soles_apart_deg": np.degrees(apart), "sole_height_m": lowest}
    shown = ", ".join(f"{name} {np.degrees(value):.2f}°" for name, value in before.items())
    found = []
    if max(before.values()) > np.radians(0.1) or abs(lowest) > 0.01:
        found.append(finding(
            "note", "posture-levelled", file, "the posture",
            f"at {label} the soles are tilted from the ground ({shown}) and the lowest is at z = {lowest:.3f} m",
            f"the loader turned the whole robot by {np.degrees(levelled):.2f}° (its mean sole normal made vertical) "
            f"and moved it by {-lowest:.3f} m along z to stand on z = 0", "loader", **values))
    worst = max(after.values())
    if worst > np.radians(0.5):
        severity = "error" if worst > np.radians(5) else "warning"
        found.append(finding(
            severity, "soles-not-coplanar", file, "the posture",
            f"at {label} the soles' normals are {np.degrees(apart):.2f}° apart, so levelled the soles stay tilted "
            f"({', '.join(f'{k} {np.degrees(v):.2f}°' for k, v in after.items())}): each starts on an edge",
            "set the ankles in the posture so that both soles are parallel", None, **values))
    return found


def _size_findings(robot, q_raw, soles, geometry: Geometry, file: str) -> list[Finding]:
    found = []
    sizes = np.array([foot.sole_size for foot in soles])
    if np.ptp(sizes, axis=0).max() > 0.005:
        found.append(finding(
            "note", "soles-differ", file, f"links {listed(foot.body for foot in soles)}",
            "the soles differ in size: " + ", ".join(f"{foot.body} {foot.sole_size[0]:.3f} x {foot.sole_size[1]:.3f} m"
                                                    for foot in soles),
            f"the robot's sole_size is the smallest per dimension, {robot.sole_size[0]:.3f} x {robot.sole_size[1]:.3f} m",
            "loader", sizes={foot.body: foot.sole_size for foot in soles}))
    for foot in soles:
        length, width = foot.sole_size
        if length >= width:
            continue
        declared = _declared_sole(robot, robot.q_ref, foot, geometry)
        if declared is None:
            found.append(finding(
                "warning", "sole-wider-than-long", file, f"link {foot.body!r}",
                f"its sole is {length:.3f} m long (along +x, the robot's forward direction at the posture) and "
                f"{width:.3f} m wide", "check the foot's geometry and the posture's heading (postures face +x); "
                "override with Robot(..., sole_size=(length, width))", None, length=length, width=width))
            continue
        mesh, up, (declared_length, declared_width) = declared
        verdict = ("likely the reader: coal ignores the file's declared axes, with which the sole is longer than wide "
                   "(the loader did not turn the meshes: too few links' meshes contain their centre of mass and "
                   "child joints with the declared axes to say so)"
                   if declared_length >= declared_width else "not the declared axes (the sole is no longer along +x "
                   "with them either)")
        found.append(finding(
            "error", "sole-wider-than-long", mesh, f"link {foot.body!r}",
            f"as coal reads its collision mesh the sole is {length:.3f} m long (along +x, forward) and {width:.3f} m "
            f"wide; the Collada file declares <up_axis>{up}</up_axis>, which coal ignores, and with it the sole is "
            f"{declared_length:.3f} m long and {declared_width:.3f} m wide. The cause is {verdict}",
            f"re-export the mesh Z_UP (every reader then agrees), or override the sole: Robot(..., sole_size="
            f"({max(declared_length, declared_width):.3f}, {min(declared_length, declared_width):.3f})); the harness "
            "builds the foot boxes from the sole as read", None, length=length, width=width,
            declared_length=declared_length, declared_width=declared_width, up_axis=up))
    return found


def _declared_sole(robot, q, foot: FootGeometry, geometry: Geometry):
    """``(mesh, up axis, (length, width))`` of the sole read with its Collada mesh's declared
    axes (the bottom face's extent along world x and y at the standing posture ``q``), None
    when the foot's collision meshes declare Z_UP."""
    if geometry.collision is None or geometry.axes.favours_declared:     # already turned by the loader
        return None
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q)
    geometry_data = geometry.collision.createData()
    pin.updateGeometryPlacements(model, data, geometry.collision, geometry_data, q)
    points, mesh, declared = [], None, None
    for index, item in enumerate(geometry.collision.geometryObjects):
        if item.parentJoint != foot.joint or not hasattr(item.geometry, "vertices"):
            continue
        up, unit = collada_header(item.meshPath) if item.meshPath.lower().endswith(".dae") else ("Z_UP", 1.0)
        if up != "Z_UP" or unit != 1.0:
            mesh, declared = item.meshPath, up
        vertices = np.asarray(item.geometry.vertices()) @ UP_AXES[up].T * unit
        placement = geometry_data.oMg[index]
        points.append(vertices @ placement.rotation.T + placement.translation)
    if mesh is None or not points:
        return None
    points = np.vstack(points)
    bottom = points[points[:, 2] <= points[:, 2].min() + SOLE_BAND]
    extent = bottom.max(axis=0) - bottom.min(axis=0)
    return mesh, declared, (float(extent[0]), float(extent[1]))


def _foot_frames(robot, foot_joint: int, contact: str) -> list[int]:
    """The file's frames on a foot's joint whose names mark a foot (see :data:`FOOT_WORDS`)."""
    return [index for index, frame in enumerate(robot.model.frames)
            if frame.parentJoint == foot_joint and frame.name != contact
            and frame.type in (pin.FrameType.BODY, pin.FrameType.OP_FRAME)
            and any(word in frame.name.lower() for word in FOOT_WORDS)]


def _offset_findings(robot, q, soles, file: str) -> list[Finding]:
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q)
    found = []
    for foot in soles:
        contact = data.oMf[robot.frame_id(foot.frame_name)]
        joint = data.oMi[foot.joint]
        ahead, aside, above = joint.translation - contact.translation
        ahead, aside = -ahead, -aside                              # the centre from the joint, world axes
        others = []
        for index in _foot_frames(robot, foot.joint, foot.frame_name):
            centre = data.oMf[index].actInv(contact.translation)     # the centre in the file frame's axes
            tilt = np.degrees(np.arccos(np.clip(data.oMf[index].rotation[:, 2] @ contact.rotation[:, 2], -1, 1)))
            others.append((model.frames[index].name, centre, tilt))
        if np.hypot(ahead, aside) < OFFSET and not any(np.hypot(*c[:2]) >= OFFSET for _, c, _ in others):
            continue
        local = foot.placement.translation
        text = (f"the sole's centre is {np.hypot(ahead, aside):.3f} m from the joint {model.names[foot.joint]!r}'s "
                f"frame along the ground ({_along(ahead, 'ahead', 'behind')}, {_along(aside, 'to the left', 'to the right')}"
                f" at the standing posture) and {above:.3f} m below it; in that frame's own axes it is at "
                f"({local[0]:.4f}, {local[1]:.4f}, {local[2]:.4f}) m")
        text += "".join(f"; in the file's frame {name!r} (its z {tilt:.1f}° from the sole's normal) it is at "
                        f"({c[0]:.4f}, {c[1]:.4f}, {c[2]:.4f}) m" for name, c, tilt in others)
        found.append(finding(
            "note", "sole-centre-offset", file, f"link {foot.body!r}", text,
            f"the loader's contact frame {foot.frame_name!r} is at the sole's centre, its axes along the sole: a "
            "PlanarContact on a frame off the centre would bound the centre of pressure off by as much", "loader",
            ahead=ahead, aside=aside, below=above, in_joint_frame=local,
            frames={name: {"centre_in_frame": c, "tilt_deg": tilt} for name, c, tilt in others}))
    return found


def _along(value: float, positive: str, negative: str) -> str:
    return f"{abs(value):.3f} m {positive if value >= 0 else negative}"


def _point_frame_findings(robot, q, feet, file: str) -> list[Finding]:
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q)
    tilted = []
    for foot in feet:
        for index in _foot_frames(robot, foot.joint, foot.frame_name):
            tilt = np.degrees(np.arccos(np.clip(data.oMf[index].rotation[2, 2], -1, 1)))
            gap = np.linalg.norm(data.oMf[index].translation - data.oMf[robot.frame_id(foot.frame_name)].translation)
            if tilt > 1.0:
                tilted.append((model.frames[index].name, foot.frame_name, tilt, gap))
    if not tilted:
        return []
    shown = "; ".join(f"{name!r} tilted {tilt:.1f}°, {gap:.3f} m from {contact!r}" for name, contact, tilt, gap in tilted[:4])
    return [finding(
        "note", "foot-frames-tilted", file, f"frames {listed(name for name, *_ in tilted)}",
        f"the file's foot frames are tilted from the ground at the standing posture ({shown}): a PointContact on them "
        "would take a tilted normal (its friction cone leaning, the QP possibly infeasible)",
        "the loader's contact frames are at the bottom of each foot's sphere, z along the ground's normal", "loader",
        frames={name: {"contact": contact, "tilt_deg": tilt, "distance_m": gap} for name, contact, tilt, gap in tilted})]


# ------------------------------------------------------------------------------------ Collada
def collada_findings(robot, q: np.ndarray, geometry: Geometry) -> list[Finding]:
    """Collada collision meshes whose declared up axis or unit coal ignores, with the
    robot's own evidence (:func:`tsid_py.models.collada.declared_axes_evidence`: how many
    links' meshes contain their centre of mass and child joints as read and as declared) and
    what the loader did with it."""
    axes = geometry.axes
    if not axes.meshes:
        return []
    meshes = sorted(set().union(*axes.meshes.values()))
    kinds = ", ".join(f"{len(paths)} declare <up_axis>{up}</up_axis>" + (f" and <unit meter=\"{unit:g}\">" if unit != 1 else "")
                      for (up, unit), paths in axes.meshes.items())
    fits = {"read": axes.read, "declared": axes.declared}
    evidence = (f"{kinds}; coal reads the vertices as stored, ignoring that. Of these meshes, {axes.declared} contain "
                f"their link's centre of mass and child joints with the declared axes, {axes.read} as coal reads them")
    if axes.favours_declared:
        return [finding("note", "collada-axes-applied", meshes[0], f"{len(meshes)} Collada collision mesh(es)",
                        f"{evidence}: the declaration is right (the file follows the Collada spec)",
                        "the loader turned them by their declared up axis; re-export them Z_UP so that every reader "
                        "agrees", "loader", meshes=meshes, fits=fits)]
    verdict = ("the vertices are right as stored and the declaration is wrong (the exporter's header)"
               if axes.read > axes.declared else "the robot does not tell which is right")
    return [finding(
        "warning", "collada-axes-ignored", meshes[0], f"{len(meshes)} Collada collision mesh(es)",
        f"{evidence}: {verdict}, so the loader reads them as stored",
        "re-export them Z_UP with unit 1 so that every reader agrees (or, if the declaration is the wrong part, fix "
        "the header); the harness does not read .dae files", None, meshes=meshes, fits=fits)]
