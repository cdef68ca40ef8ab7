"""The terrain in MuJoCo: the solids of a :class:`~tsid_py.control.terrain.Terrain` added to a
model's world (``Simulation(robot, terrain=...)``), so that the simulated ground is the one
the planner is told about.

* a :class:`~tsid_py.control.terrain.Ramp` is a box tilted by its angle whose top face rises
  from the floor at ``start`` to the plateau's height, and a block under the plateau;
* :class:`~tsid_py.control.terrain.Stairs` are blocks, one per step, each reaching from its
  step to the end of the landing;
* a :class:`~tsid_py.control.terrain.Block` is a box geom of its pose and size;
* :class:`~tsid_py.control.terrain.Rough` ground is a height field sampled every
  :data:`HFIELD_RESOLUTION` m from the description's bilinear surface (MuJoCo triangulates
  between samples).

The floor plane is moved to the terrain's ``floor`` height. Every solid collides with everything (``contype = conaffinity = 1``, ``condim`` 3) with the
floor's friction. Units: m, rad.
"""

from __future__ import annotations

import math

import numpy as np

import pinocchio as pin

from ..control.terrain import Block, Ramp, Rough, Stairs, Terrain

#: Spacing (m) of a rough terrain's height-field samples.
HFIELD_RESOLUTION = 0.02
#: Thickness of a ramp's box, m.
RAMP_THICKNESS = 0.1


def add_terrain(spec, terrain: Terrain) -> None:
    """Add ``terrain``'s solids to the world body of ``spec`` (a ``mujoco.MjSpec``)."""
    import mujoco

    if not isinstance(terrain, Terrain):
        raise ValueError(f"terrain must be a tsid_py.control.terrain.Terrain, got {type(terrain).__name__}")
    friction = _floor_friction(spec, mujoco)
    for geom in spec.worldbody.geoms:
        if geom.type == mujoco.mjtGeom.mjGEOM_PLANE:
            geom.pos = [geom.pos[0], geom.pos[1], terrain.floor]
    for index, feature in enumerate(terrain.features):
        if isinstance(feature, Ramp):
            geoms = _ramp(spec, mujoco, feature, index)
        elif isinstance(feature, Stairs):
            geoms = _stairs(spec, mujoco, feature, index)
        elif isinstance(feature, Block):
            quaternion = pin.Quaternion(feature.rotation)
            geoms = [_box(spec, mujoco, f"terrain{index}_block", feature.centre, feature.half_size,
                          (quaternion.w, quaternion.x, quaternion.y, quaternion.z))]
        else:
            geoms = [_rough(spec, mujoco, feature, index)]
        for geom in geoms:
            geom.contype = geom.conaffinity = 1
            geom.condim = 3
            geom.friction = friction
            geom.rgba = [0.55, 0.6, 0.5, 1.0]


def _floor_friction(spec, mujoco) -> list[float]:
    for geom in spec.worldbody.geoms:
        if geom.type == mujoco.mjtGeom.mjGEOM_PLANE:
            return list(geom.friction)
    return [1.0, 0.005, 0.0001]


def _box(spec, mujoco, name: str, centre, half_sizes, quaternion=(1.0, 0.0, 0.0, 0.0)):
    return spec.worldbody.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_BOX, pos=list(centre),
                                   size=list(half_sizes), quat=list(quaternion))


def _ramp(spec, mujoco, ramp: Ramp, index: int) -> list:
    alpha, length = ramp.angle, ramp.length
    slope_length = length / math.cos(alpha)
    normal = np.array([-math.sin(alpha), 0.0, math.cos(alpha)])
    top_centre = np.array([ramp.start + 0.5 * length, 0.0, 0.5 * ramp.top])
    centre = top_centre - 0.5 * RAMP_THICKNESS * normal
    quaternion = (math.cos(-alpha / 2), 0.0, math.sin(-alpha / 2), 0.0)        # about y by −α: x rises
    incline = _box(spec, mujoco, f"terrain{index}_ramp", centre,
                   (0.5 * slope_length, 0.5 * ramp.width, 0.5 * RAMP_THICKNESS), quaternion)
    plateau = _box(spec, mujoco, f"terrain{index}_plateau",
                   (ramp.start + length + 0.5 * ramp.plateau, 0.0, 0.5 * ramp.top),
                   (0.5 * ramp.plateau, 0.5 * ramp.width, 0.5 * ramp.top))
    return [incline, plateau]


def _stairs(spec, mujoco, stairs: Stairs, index: int) -> list:
    end = stairs.start + stairs.count * stairs.run + stairs.landing
    blocks = []
    for step in range(stairs.count):
        begin, top = stairs.start + step * stairs.run, (step + 1) * stairs.rise
        blocks.append(_box(spec, mujoco, f"terrain{index}_step{step}", (0.5 * (begin + end), 0.0, 0.5 * top),
                           (0.5 * (end - begin), 0.5 * stairs.width, 0.5 * top)))
    return blocks


def _rough(spec, mujoco, rough: Rough, index: int):
    columns = int(round(rough.length / HFIELD_RESOLUTION)) + 1
    rows = int(round(rough.width / HFIELD_RESOLUTION)) + 1
    xs = rough.start + np.linspace(0.0, rough.length, columns)
    ys = np.linspace(-rough.width / 2, rough.width / 2, rows)
    heights = np.array([[rough.height(x, y) for x in xs] for y in ys])      # row r: y, column c: x
    top = max(float(heights.max()), 1e-6)
    name = f"terrain{index}_rough"
    spec.add_hfield(name=name, size=[rough.length / 2, rough.width / 2, top, 0.01], nrow=rows, ncol=columns,
                    userdata=(heights / top).ravel().tolist())
    return spec.worldbody.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_HFIELD, hfieldname=name,
                                   pos=[rough.start + rough.length / 2, 0.0, 0.0])
