"""A robot's collision geometry for self-collision avoidance: convex pieces, pairs, sizes.

**Geometry.** :func:`collision_model` reads the collision geometry of the robot's file (a
URDF's ``<collision>`` elements, an MJCF file's colliding geoms) onto the robot's pinocchio
model, and replaces each mesh by its convex hull (coal): distances between convex pieces
are one GJK call, a hull contains its mesh (so a distance between hulls never exceeds the
meshes'), and MuJoCo collides meshes by their hulls too.

**Pairs** (:func:`collision_pairs`). Every pair of pieces on different bodies, except:

* pieces of **adjacent** bodies (one body's joint is the other's parent joint): they meet at
  their joint by construction;
* pairs the robot's **SRDF** disables (``<disable_collisions>``: a robot's description of
  the links that never collide, or always touch);
* for a robot read from an **MJCF** file, pairs MuJoCo never collides: the geoms'
  ``contype`` / ``conaffinity`` bits and the file's ``<exclude>`` bodies (its ``<pair>``
  elements always collide: :func:`tsid_py.loaders.mjcf.collides_in_mujoco`) — the file's
  own statement of which parts may touch;
* pairs closer than the safety distance — in collision — at the **reference posture**
  ``robot.q_ref``: the robot stands that way, so they are no collision to avoid.

**Sizes.** :func:`characteristic_size` is the median radius of the pieces' bounding
spheres (coal's local AABB): the safety and activation distances of
:class:`~tsid_py.constraints.SelfCollisionAvoidance` default to fractions of it, so a small
robot keeps proportionally smaller margins. :func:`joint_radii` bounds, per joint, how far
its pieces reach from the joint's origin (what bounds their motion when the joint moves).

**Distances.** :func:`geometry_data` starts each pair's GJK from its last answer;
:func:`points_now` carries a pair's nearest points found at one configuration to the same
body points at another (the self-collision damper's look-ahead).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np
import pinocchio as pin


def collision_model(robot) -> pin.GeometryModel:
    """The collision geometry of ``robot``'s file (its :attr:`~tsid_py.Robot.source`), meshes
    as convex hulls; ``ValueError`` naming the file when it has none or cannot be read."""
    import coal

    source = robot.source
    if source is None:
        raise ValueError(f"robot {robot.name!r} has no model file to read its collision geometry from: load it with "
                         "Robot.from_urdf, Robot.from_mjcf or tsid_py.robots.load, or pass geometry=")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if source.kind == "mjcf":
                from .loaders.mjcf import build_geometry

                geometry = build_geometry(robot.model, source.path, pin.COLLISION)
            else:
                geometry = pin.buildGeomFromUrdf(robot.model, source.path, pin.COLLISION,
                                                 package_dirs=list(robot.package_dirs))
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{source.path}: its collision geometry cannot be read ({str(exc).strip()})") from None
    if not geometry.ngeoms:
        raise ValueError(f"{source.path}: the file has no collision geometry to avoid self-collisions with")
    for item in geometry.geometryObjects:
        if isinstance(item.geometry, coal.BVHModelBase):
            item.geometry.buildConvexHull(True, "Qt")
            item.geometry = item.geometry.convex
    return geometry


def bounding_spheres(geometry: pin.GeometryModel) -> tuple[np.ndarray, np.ndarray]:
    """Each piece's bounding sphere in its parent joint's frame: centres (g, 3) and radii
    (g,), m (coal's local AABB of the shape, placed by the piece's placement)."""
    centres, radii = np.zeros((geometry.ngeoms, 3)), np.zeros(geometry.ngeoms)
    for index, item in enumerate(geometry.geometryObjects):
        shape = item.geometry
        shape.computeLocalAABB()
        centres[index] = item.placement.act(np.asarray(shape.aabb_center, dtype=float))
        radii[index] = shape.aabb_radius
    return centres, radii


def characteristic_size(geometry: pin.GeometryModel, pieces=None) -> float:
    """The median bounding-sphere radius of ``pieces`` (indices; default all), m."""
    radii = bounding_spheres(geometry)[1]
    return float(np.median(radii if pieces is None else radii[np.asarray(sorted(pieces), dtype=int)]))


def joint_radii(model: pin.Model, geometry: pin.GeometryModel) -> np.ndarray:
    """Per joint (njoints,), the largest distance from its origin of a point of its pieces,
    m (0 for a joint without any): when the joint's placement changes by a translation
    ``Δp`` and a rotation of angle θ, none of its pieces' points moves farther than
    ``|Δp| + 2 sin(θ/2) r``."""
    centres, radii = bounding_spheres(geometry)
    reach = np.zeros(model.njoints)
    for index, item in enumerate(geometry.geometryObjects):
        reach[item.parentJoint] = max(reach[item.parentJoint], np.linalg.norm(centres[index]) + radii[index])
    return reach


@dataclass(frozen=True)
class CollisionPairs:
    """The pairs of pieces watched for collision, and their distances at the reference posture.

    ``pieces`` (p, 2) indices into the geometry model's objects; ``joints`` (p, 2) their
    parent joints; ``reference_distances`` (p,) m, at ``robot.q_ref``; ``names`` (p,) of
    ``(piece, piece)``; ``excluded`` counts of the pairs left out, by reason."""

    pieces: np.ndarray
    joints: np.ndarray
    reference_distances: np.ndarray
    names: tuple
    excluded: dict


def collision_pairs(robot, geometry: pin.GeometryModel, safety_distance: float, srdf: str | None = None,
                    links=None) -> CollisionPairs:
    """The pairs of pieces to watch (see the module); ``links``: only pairs between these
    ``(link, link)`` pairs of body names (either order), else every pair. ``geometry``'s own
    collision pairs are replaced by these."""
    model = robot.model
    geometry.removeAllCollisionPairs()
    geometry.addAllCollisionPairs()
    every = len(geometry.collisionPairs)
    disabled = 0
    if srdf is not None:
        if not os.path.isfile(os.fspath(srdf)):
            raise ValueError(f"srdf must be an existing SRDF file, got {os.fspath(srdf)!r}")
        pin.removeCollisionPairs(model, geometry, os.fspath(srdf), False)
        disabled = every - len(geometry.collisionPairs)
    wanted = None if links is None else {frozenset(pair) for pair in links}
    source = robot.source
    if source is not None and source.kind == "mjcf":
        from .loaders.mjcf import collides_in_mujoco

        collides = collides_in_mujoco(model, geometry, source.path)
    else:
        collides = None
    kept, adjacent, unwanted, filtered = [], 0, 0, 0
    for pair in geometry.collisionPairs:
        first, second = geometry.geometryObjects[pair.first], geometry.geometryObjects[pair.second]
        a, b = first.parentJoint, second.parentJoint
        if a == b or model.parents[a] == b or model.parents[b] == a:
            adjacent += 1
            continue
        if collides is not None and not collides[pair.first, pair.second]:
            filtered += 1
            continue
        if wanted is not None and frozenset((_link(model, first), _link(model, second))) not in wanted:
            unwanted += 1
            continue
        kept.append((pair.first, pair.second))
    geometry.removeAllCollisionPairs()
    for first, second in kept:
        geometry.addCollisionPair(pin.CollisionPair(first, second))
    data, geometry_data = model.createData(), pin.GeometryData(geometry)
    pin.computeDistances(model, data, geometry, geometry_data, robot.q_ref)
    distances = np.array([result.min_distance for result in geometry_data.distanceResults])
    clear = distances > safety_distance
    pieces = np.array(kept, dtype=np.intp).reshape(-1, 2)[clear]
    geometry.removeAllCollisionPairs()
    for first, second in pieces:
        geometry.addCollisionPair(pin.CollisionPair(int(first), int(second)))
    objects = geometry.geometryObjects
    return CollisionPairs(
        pieces=pieces,
        joints=np.array([[objects[int(i)].parentJoint for i in pair] for pair in pieces], dtype=np.intp).reshape(-1, 2),
        reference_distances=distances[clear],
        names=tuple((objects[int(a)].name, objects[int(b)].name) for a, b in pieces),
        excluded={"adjacent": adjacent, "srdf": disabled, "mjcf filters": filtered,
                  "in collision at the reference posture": int((~clear).sum()), "not asked for": unwanted})


def _link(model: pin.Model, item) -> str:
    """The name of the body (link) a piece is attached to: its parent frame's, or its joint's
    body frame."""
    frame = model.frames[item.parentFrame] if item.parentFrame < len(model.frames) else None
    return frame.name if frame is not None else model.names[item.parentJoint]


def points_now(now: pin.Data, later: pin.Data, joint_a: int, joint_b: int, result, out: np.ndarray) -> None:
    """A pair's nearest points and normal found at another configuration (coal's distance
    ``result`` there, joint placements ``later``; pieces on joints ``joint_a``, ``joint_b``),
    as the same body points and direction at the joint placements ``now``: ``out`` (3, 3)
    rows ``p_A``, ``p_B``, ``n`` (the normal turned with body A). Carried back, the points
    are offset across ``n`` by the bodies' relative motion between the two configurations
    (:func:`tsid_py.constraints.collision_rows.on_normals` puts them back on one line
    along it)."""
    back_a = now.oMi[joint_a] * later.oMi[joint_a].inverse()
    back_b = now.oMi[joint_b] * later.oMi[joint_b].inverse()
    out[0] = back_a.act(np.asarray(result.getNearestPoint1()))
    out[1] = back_b.act(np.asarray(result.getNearestPoint2()))
    out[2] = back_a.rotation @ np.asarray(result.normal)


def geometry_data(geometry: pin.GeometryModel) -> pin.GeometryData:
    """The geometry's data, each pair's GJK started from its last answer (a pair's nearest
    features move little from one control period to the next)."""
    import coal

    data = pin.GeometryData(geometry)
    for request in data.distanceRequests:
        request.gjk_initial_guess = coal.GJKInitialGuess.CachedGuess
    return data
