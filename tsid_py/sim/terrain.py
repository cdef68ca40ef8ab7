"""The :class:`~tsid_py.terrain.Terrain` a planner is given, built in MuJoCo: the same
surfaces the robot then walks on.

* the floor: a plane at ``z = terrain.floor`` (:func:`~tsid_py.sim.contact.add_floor`'s look);
* each :class:`~tsid_py.terrain.Block`: a box geom of its pose and size;
* the :class:`~tsid_py.terrain.HeightField`: an ``hfield`` asset (rows along y, columns
  along x, MuJoCo's order and triangulation, which :class:`~tsid_py.terrain.HeightField`
  follows) and its geom, with a 5 cm base below the lowest node.

All take the floor's friction and collide with everything (``contype = conaffinity = 1``,
``condim`` 3); a foot box's ``condim`` 4 then applies to each contact.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from ..terrain import Terrain
from .contact import add_floor

#: Thickness (m) of the height field's base below its lowest node.
HFIELD_BASE = 0.05


def add_terrain(spec, terrain: Terrain, friction: list[float] | None = None) -> None:
    """Add ``terrain``'s surfaces to the world of the ``mujoco.MjSpec`` ``spec`` (see the
    module); ``friction``: MuJoCo's triple for all of them (default MuJoCo's)."""
    import mujoco

    floor = add_floor(spec, friction)
    floor.pos = [0.0, 0.0, terrain.floor]
    surfaces = []
    for index, block in enumerate(terrain.blocks):
        quaternion = pin.Quaternion(block.rotation)
        surfaces.append(spec.worldbody.add_geom(
            name=f"terrain_block_{index}", type=mujoco.mjtGeom.mjGEOM_BOX, size=block.half_size.tolist(),
            pos=block.centre.tolist(), quat=[quaternion.w, quaternion.x, quaternion.y, quaternion.z],
            rgba=[0.62, 0.60, 0.56, 1.0]))
    field = terrain.height_field
    if field is not None:
        low, high = float(field.heights.min()), float(field.heights.max())
        span = max(high - low, 1e-6)
        rows, columns = field.heights.shape
        size_x, size_y = field.size
        spec.add_hfield(name="terrain_hfield", size=[size_x / 2, size_y / 2, span, HFIELD_BASE], nrow=rows,
                        ncol=columns, userdata=((field.heights - low) / span).ravel().tolist())
        surfaces.append(spec.worldbody.add_geom(
            name="terrain_hfield", type=mujoco.mjtGeom.mjGEOM_HFIELD, hfieldname="terrain_hfield",
            pos=[field.origin[0] + size_x / 2, field.origin[1] + size_y / 2, low], rgba=[0.55, 0.58, 0.52, 1.0]))
    for geom in surfaces:
        geom.contype = geom.conaffinity = 1
        geom.condim = 3
        geom.friction = np.array(floor.friction).tolist()
