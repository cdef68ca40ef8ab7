"""A quadruped from a URDF or MJCF file, with its point feet found by rule (for ``tsid-py demo
trot --robot PATH`` and the benchmarks).

The robot profile's own derivation of feet for arbitrary models is under way
(:mod:`tsid_py.models.profile`); until then this module finds a file's feet the way a user
would declare them:

* **posture**: the SRDF's group state ``posture`` (default ``"standing"``) when an SRDF is
  given, else the file's own (an MJCF's first keyframe, else the neutral configuration);
* **feet**: the four lowest collision spheres at that posture, on four different bodies
  (a URDF's ``<collision><sphere>``, an MJCF's colliding ``sphere`` geoms);
* **contact frames**: a frame ``<body>_contact`` at the bottom of each foot sphere, with
  world-aligned axes at the posture (its z axis the ground's normal), as the built-in robots'
  (:mod:`tsid_py.robots`); ``foot_radius`` the spheres' mean radius;
* the base is raised or lowered so that the lowest contact frame is at ``z = 0``;
* **friction**: an MJCF file gives its foot geoms' sliding friction: the smallest becomes the
  profile's ``mu`` (what the controller assumes of the ground; a URDF says nothing of it, so
  the profile's default stays).

Nothing here is specific to one robot.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree

import numpy as np
import pinocchio as pin

from ..models.profile import BalanceDefaults, derive_profile
from ..robot import Robot


def load_quadruped(path: str, *, srdf: str | None = None, posture: str = "standing",
                   package_dirs=None) -> Robot:
    """The quadruped in ``path`` (``.urdf`` or an MJCF ``.xml``) with its feet (see the module)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"robot file {path!r} does not exist")
    if path.lower().endswith(".urdf"):
        loaded = Robot.from_urdf(path, floating_base=True, package_dirs=package_dirs)
        spheres = _urdf_spheres(path)
    else:
        loaded = Robot.from_mjcf(path)
        spheres = _mjcf_spheres(path)
    model = loaded.model
    q = loaded.q_ref.copy()
    if srdf is not None:
        pin.loadReferenceConfigurations(model, os.fspath(srdf), False)
        if posture not in model.referenceConfigurations:
            raise KeyError(f"posture {posture!r} is not a group state of {srdf}; "
                           f"states: {list(model.referenceConfigurations.keys())}")
        q = np.array(model.referenceConfigurations[posture])
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    candidates = []
    for body, radius, offset, friction in spheres:
        if not model.existFrame(body):
            continue
        frame_id = model.getFrameId(body)
        centre = data.oMf[frame_id].act(np.asarray(offset, dtype=float))
        candidates.append((centre[2] - radius, body, radius, centre, friction))
    chosen, bodies = [], set()
    for bottom, body, radius, centre, friction in sorted(candidates, key=lambda c: c[0]):
        if body not in bodies:
            chosen.append((body, radius, centre, friction))
            bodies.add(body)
        if len(chosen) == 4:
            break
    if len(chosen) < 4:
        raise ValueError(f"{path}: found {len(chosen)} collision spheres on distinct bodies, a quadruped needs four "
                         "(its feet): give the robot's feet explicitly")
    feet = []
    for body, radius, centre, _ in chosen:
        frame = model.frames[model.getFrameId(body)]
        contact = pin.SE3(np.eye(3), centre - np.array([0.0, 0.0, radius]))
        name = f"{body}_contact"
        model.addFrame(pin.Frame(name, frame.parentJoint, model.getFrameId(body),
                                 data.oMi[frame.parentJoint].actInv(contact), pin.FrameType.OP_FRAME))
        feet.append(name)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    q[2] -= min(data.oMf[model.getFrameId(foot)].translation[2] for foot in feet)
    robot = Robot(model, name=loaded.name if loaded.name != "robot" else os.path.splitext(os.path.basename(path))[0],
                  feet=feet, foot_radius=float(np.mean([radius for _, radius, _, _ in chosen])), q_ref=q,
                  source=loaded.source, package_dirs=loaded.package_dirs, postures=loaded.postures)
    frictions = [friction for *_, friction in chosen if friction is not None]
    if frictions:
        robot.profile = derive_profile(robot, balance=BalanceDefaults(mu=min(frictions)))
    return robot


def _urdf_spheres(path: str) -> list[tuple[str, float, np.ndarray, None]]:
    """``(link, radius, centre in the link frame, None)`` of a URDF's collision spheres (a
    URDF gives no friction)."""
    spheres = []
    for link in ElementTree.parse(path).getroot().iter("link"):
        for collision in link.findall("collision"):
            sphere = collision.find("geometry/sphere")
            if sphere is None:
                continue
            origin = collision.find("origin")
            offset = np.zeros(3) if origin is None else np.array(origin.get("xyz", "0 0 0").split(), dtype=float)
            spheres.append((link.get("name"), float(sphere.get("radius")), offset, None))
    return spheres


def _mjcf_spheres(path: str) -> list[tuple[str, float, np.ndarray, float]]:
    """``(body, radius, centre in the body frame, sliding friction)`` of an MJCF's colliding
    sphere geoms (read from the parsed file, defaults applied: no mesh needs to load)."""
    from ..sim.engine import import_mujoco

    mujoco = import_mujoco()
    spec = mujoco.MjSpec.from_file(path)
    paired = {name for pair in spec.pairs for name in (pair.geomname1, pair.geomname2)}
    return [(geom.parent.name, float(geom.size[0]), np.array(geom.pos, dtype=float), float(geom.friction[0]))
            for geom in spec.geoms
            if geom.type == mujoco.mjtGeom.mjGEOM_SPHERE and (geom.contype or geom.conaffinity or geom.name in paired)]
