"""The robot's own collision geometry in the plant: self-collisions simulated and measured.

The harness builds a URDF robot's plant without its ``<collision>`` elements (the feet are
boxes or spheres of their own, :mod:`tsid_py.sim.model`), so by default the robot's links pass
through each other. :func:`add_collision_geometry` puts the pieces of a
:class:`~tsid_py.constraints.SelfCollisionAvoidance`'s geometry (pinocchio's collision model:
meshes, which MuJoCo collides by their convex hulls, as the constraint measures them; boxes,
cylinders, spheres, capsules) on the bodies of their joints, and makes exactly the
constraint's pairs collide (MuJoCo ``<pair>`` elements, with the floor's friction): with the
constraint off, the links hit each other as a real robot's do. The pieces touch nothing else.

:class:`PairDistances` measures the pairs in the simulator (``mujoco.mj_geomDistance``, signed:
negative when the hulls overlap), and counts the contacts MuJoCo found between them: the
judge of the constraint, independent of the controller's own distances (coal's).
"""

from __future__ import annotations

import os

import numpy as np
import pinocchio as pin

#: How far (m) :class:`PairDistances` looks: pairs farther apart report this distance.
DISTANCE_HORIZON = 0.5


def add_collision_geometry(spec, robot, geometry: pin.GeometryModel, pieces, friction: float = 1.0) -> None:
    """Add the pieces of ``geometry`` to the MuJoCo spec of a URDF-built plant (on the body of
    each piece's joint, named as the piece) and a contact pair for each of ``pieces`` (p, 2)
    (geometry object indices)."""
    import coal
    import mujoco

    if robot.source is None or robot.source.kind != "urdf":
        raise ValueError("the plant's self-collision geometry is added to a URDF robot's plant (an MJCF file's own "
                         "geoms collide as the file says)")
    bodies = {joint.name: joint.parent for joint in spec.joints}
    used = sorted({int(index) for pair in pieces for index in pair})
    for index in used:
        item = geometry.geometryObjects[index]
        joint_name = robot.model.names[item.parentJoint]
        body = spec.worldbody.first_body() if item.parentJoint == 0 else bodies.get(joint_name)
        if body is None:
            raise KeyError(f"joint {joint_name!r} of piece {item.name!r} is not in the MuJoCo model")
        quaternion = pin.Quaternion(item.placement.rotation)
        geom = body.add_geom(name=item.name, pos=item.placement.translation,
                             quat=[quaternion.w, quaternion.x, quaternion.y, quaternion.z])
        shape = item.geometry
        if item.meshPath and os.path.isfile(item.meshPath) and not isinstance(shape, (coal.Box, coal.Cylinder,
                                                                                       coal.Sphere, coal.Capsule)):
            spec.add_mesh(name=f"{item.name}_mesh", file=item.meshPath, scale=np.asarray(item.meshScale, dtype=float),
                          inertia=mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL)
            geom.type, geom.meshname = mujoco.mjtGeom.mjGEOM_MESH, f"{item.name}_mesh"
        elif isinstance(shape, coal.Box):
            geom.type, geom.size = mujoco.mjtGeom.mjGEOM_BOX, np.asarray(shape.halfSide, dtype=float)
        elif isinstance(shape, coal.Cylinder):
            geom.type, geom.size = mujoco.mjtGeom.mjGEOM_CYLINDER, [shape.radius, shape.halfLength, 0.0]
        elif isinstance(shape, coal.Capsule):
            geom.type, geom.size = mujoco.mjtGeom.mjGEOM_CAPSULE, [shape.radius, shape.halfLength, 0.0]
        elif isinstance(shape, coal.Sphere):
            geom.type, geom.size = mujoco.mjtGeom.mjGEOM_SPHERE, [shape.radius, 0.0, 0.0]
        else:
            raise ValueError(f"piece {item.name!r}: the plant cannot build a {type(shape).__name__}")
        geom.contype = geom.conaffinity = 0
        geom.mass = 0.0
        geom.group = 3
        geom.rgba = [0.9, 0.6, 0.2, 0.35]
    for first, second in pieces:
        spec.add_pair(geomname1=geometry.geometryObjects[int(first)].name,
                      geomname2=geometry.geometryObjects[int(second)].name, condim=3,
                      friction=[friction, friction, 0.005, 0.0001, 0.0001])


class PairDistances:
    """The simulator's distances between the constraint's pairs (see the module)."""

    def __init__(self, mj_model, names):
        import mujoco

        self.mujoco, self.model = mujoco, mj_model
        self.names = list(names)
        ids = [(mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_GEOM, a),
                mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_GEOM, b)) for a, b in self.names]
        missing = [pair for pair, (a, b) in zip(self.names, ids) if a < 0 or b < 0]
        if missing:
            raise KeyError(f"pairs {missing[:3]} are not geoms of the plant: build it with its self-collision geometry")
        self.geoms = np.array(ids, dtype=int).reshape(-1, 2)
        self._robot_geoms = set(self.geoms.ravel().tolist())
        self._fromto = np.zeros(6)

    def distances(self, mj_data) -> np.ndarray:
        """Each pair's signed distance now (p,), m (at most :data:`DISTANCE_HORIZON`)."""
        distance = self.mujoco.mj_geomDistance
        return np.array([distance(self.model, mj_data, int(a), int(b), DISTANCE_HORIZON, self._fromto)
                         for a, b in self.geoms])

    def closest(self, mj_data) -> tuple[float, tuple[str, str]]:
        """The smallest distance now and its pair."""
        values = self.distances(mj_data)
        index = int(np.argmin(values))
        return float(values[index]), self.names[index]

    def contacts(self, mj_data) -> int:
        """How many of MuJoCo's contacts now are between two of the pairs' pieces."""
        robot_geoms = self._robot_geoms
        return sum(1 for i in range(mj_data.ncon)
                   if int(mj_data.contact[i].geom1) in robot_geoms and int(mj_data.contact[i].geom2) in robot_geoms)
