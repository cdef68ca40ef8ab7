"""The MuJoCo model of a robot read from an MJCF file: the file as shipped.

Everything the file says is kept — its bodies and inertias, joints with their armature,
damping, friction loss and ranges, its actuators (:mod:`tsid_py.sim.actuation` says how
torques reach them), its collision geoms with their friction, ``condim``, ``priority`` and
solver parameters, its ``<option>`` (cone, impratio, integrator, …) — while the controller runs
on pinocchio's model of the same file. Only these change:

* the time step is the :class:`~tsid_py.sim.Simulation`'s (the controller's period);
* a floor (:func:`tsid_py.sim.contact.add_floor`) is added when the world has no plane (a
  robot file, as opposed to a scene that includes it);
* a mesh file that is missing is dropped with a warning when only visual geoms use it
  (``contype = conaffinity = 0``); when a colliding geom uses it, ``FileNotFoundError`` names
  the file, the mesh and the geom;
* the profile's held joints locked at the posture (:func:`tsid_py.sim.held.hold_joints`);
* an inertia MuJoCo would refuse is replaced by the nearest valid one, with a warning
  (:mod:`tsid_py.sim.inertia`);
* ``contact`` options, when given, replace the file's cone, impratio, no-slip iterations and
  the floor's friction.
"""

from __future__ import annotations

import os
import warnings

from ..loaders.mjcf import mesh_path
from .contact import ContactOptions, add_floor, add_sky, has_floor
from .engine import import_mujoco
from .held import hold_joints
from .inertia import repair_inertias


def build_shipped_model(robot, *, timestep: float, visual: bool, contact: ContactOptions | None, terrain=None,
                        additions=()):
    """An ``mujoco.MjModel`` of ``robot``'s MJCF file as shipped (see the module)."""
    mujoco = import_mujoco()
    path = robot.source.path
    try:
        spec = mujoco.MjSpec.from_file(path)
    except ValueError as exc:
        raise ValueError(f"{path}: MuJoCo cannot parse this MJCF file: {exc}") from None
    _drop_missing_visual_meshes(spec, path, mujoco)
    spec.option.timestep = timestep
    spec.compiler.discardvisual = not visual
    if contact is not None:
        contact.apply(spec)
    if not has_floor(spec):
        add_floor(spec, contact.sliding if contact is not None else None)
    elif contact is not None:
        for geom in spec.worldbody.geoms:
            if geom.type == mujoco.mjtGeom.mjGEOM_PLANE:
                geom.friction = contact.sliding
    if visual:
        add_sky(spec)
    if terrain is not None:
        from .terrain import add_terrain

        add_terrain(spec, terrain)
    hold_joints(spec, robot, mujoco)
    for add in additions:
        add(spec)
    repair_inertias(spec, path)
    spec.visual.global_.offwidth, spec.visual.global_.offheight = 640, 480
    try:
        return spec.compile()
    except ValueError as exc:
        raise ValueError(f"{path}: MuJoCo cannot compile this MJCF file: {exc}") from None


def _drop_missing_visual_meshes(spec, path: str, mujoco) -> None:
    """Missing mesh files: visual-only uses dropped (one warning), a colliding use refused."""
    dropped = []
    for mesh in list(spec.meshes):
        file = mesh_path(spec, mesh.file) if mesh.file else None
        if file is None or os.path.isfile(file):
            continue
        users = [geom for geom in spec.geoms if geom.type == mujoco.mjtGeom.mjGEOM_MESH and geom.meshname == mesh.name]
        colliding = [geom for geom in users if geom.contype or geom.conaffinity]
        if colliding:
            geom = colliding[0]
            raise FileNotFoundError(f"{path}: mesh {mesh.name!r} reads {file}, which is missing, "
                                    f"and geom {geom.name or '(unnamed)'!r} of body {geom.parent.name!r} collides with "
                                    "it: restore that file (or point the mesh's file= at it)")
        for geom in users:
            spec.delete(geom)
        spec.delete(mesh)
        dropped.append(file)
    if dropped:
        warnings.warn(f"{path}: visual-only mesh files are missing and their geoms were dropped: "
                      + ", ".join(dropped), UserWarning, stacklevel=4)
