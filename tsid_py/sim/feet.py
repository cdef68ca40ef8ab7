"""The robot's feet in the simulator: where their frames are, and the floor's wrench on them.

A foot is a pinocchio frame (a sole's centre, or the contact point at the bottom of a sphere
foot). In MuJoCo it rides on the body of its parent joint, at a placement that never changes:
:class:`Feet` measures it once, from pinocchio's and MuJoCo's kinematics at the same
configuration (``X_foot = X_body · X_offset``), so the feet of any model — the boxes and spheres
the harness adds to a URDF, or an MJCF file's own foot geoms — are read the same way.

A foot's collision geoms are those of its rigid body (MuJoCo bodies welded together) that
collide (by ``contype``/``conaffinity`` or an explicit ``<pair>``); when several feet share a rigid body, each geom belongs to the nearest foot frame.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit


@njit(cache=True, inline="always")
def _foot_wrenches(efc_force, dims, addresses, friction, frames, points, geoms, elliptic, geom_foot, geom_static,
                   xpos, xmat, bodies, offsets, out):
    """Add each floor contact's force to the wrench ``out[k]`` (world axes, about foot ``k``'s
    frame origin ``xpos[b] + R_b offsets[k]``, ``b = bodies[k]``) of the foot its geom belongs
    to (``geom_foot``, −1: none) when the other geom is static (``geom_static``): the force
    geom1 exerts on geom2, decoded from ``efc_force`` as ``mj_contactForce`` does (a pyramid's
    edges sum to the normal force, opposite edges times the friction give the tangential ones;
    an elliptic cone's rows are the force; the torsional moment of condim 4 is left out)."""
    origins = np.empty((bodies.shape[0], 3))
    for k in range(bodies.shape[0]):
        b = bodies[k]
        for r in range(3):
            origins[k, r] = xpos[b, r] + (xmat[b, 3 * r] * offsets[k, 0] + xmat[b, 3 * r + 1] * offsets[k, 1]
                                          + xmat[b, 3 * r + 2] * offsets[k, 2])
    local = np.zeros(3)
    for i in range(dims.shape[0]):
        g1, g2 = geoms[i, 0], geoms[i, 1]
        if geom_foot[g2] >= 0 and geom_static[g1]:
            k, sign = geom_foot[g2], 1.0
        elif geom_foot[g1] >= 0 and geom_static[g2]:
            k, sign = geom_foot[g1], -1.0
        else:
            continue
        dim, start = dims[i], addresses[i]
        local[:] = 0.0
        if dim == 1 or elliptic:
            for j in range(min(dim, 3)):
                local[j] = efc_force[start + j]
        else:
            for j in range(2 * (dim - 1)):
                local[0] += efc_force[start + j]
            for j in range(min(dim - 1, 2)):
                local[1 + j] = (efc_force[start + 2 * j] - efc_force[start + 2 * j + 1]) * friction[i, j]
        f0 = sign * (frames[i, 0] * local[0] + frames[i, 3] * local[1] + frames[i, 6] * local[2])
        f1 = sign * (frames[i, 1] * local[0] + frames[i, 4] * local[1] + frames[i, 7] * local[2])
        f2 = sign * (frames[i, 2] * local[0] + frames[i, 5] * local[1] + frames[i, 8] * local[2])
        r0, r1, r2 = points[i, 0] - origins[k, 0], points[i, 1] - origins[k, 1], points[i, 2] - origins[k, 2]
        out[k, 0] += f0
        out[k, 1] += f1
        out[k, 2] += f2
        out[k, 3] += r1 * f2 - r2 * f1
        out[k, 4] += r2 * f0 - r0 * f2
        out[k, 5] += r0 * f1 - r1 * f0


@njit(cache=True, inline="always")
def _frame_pose(xpos, xmat, body, rotation, offset):
    """World rotation ``R_b rotation`` (3, 3) and origin ``x_b + R_b offset`` (3,) of a frame
    fixed in body ``b`` (MuJoCo's ``xpos``, ``xmat`` rows)."""
    world, origin = np.empty((3, 3)), np.empty(3)
    for r in range(3):
        origin[r] = xpos[body, r]
        for c in range(3):
            origin[r] += xmat[body, 3 * r + c] * offset[c]
            world[r, c] = (xmat[body, 3 * r] * rotation[0, c] + xmat[body, 3 * r + 1] * rotation[1, c]
                           + xmat[body, 3 * r + 2] * rotation[2, c])
    return world, origin


class Feet:
    """The feet ``names`` of ``robot`` in the MuJoCo ``model`` (see the module), measured at
    the configuration ``q`` (pinocchio's conventions) through ``joint_map``."""

    def __init__(self, model, robot, joint_map, names, q):
        import mujoco

        self.mujoco, self.model, self.names = mujoco, model, list(names)
        self._elliptic = int(mujoco.mjtCone.mjCONE_ELLIPTIC)
        data = mujoco.MjData(model)
        joint_map.to_mujoco(q, np.zeros(robot.nv), data.qpos, data.qvel)
        mujoco.mj_kinematics(model, data)
        pin_data = robot.model.createData()
        pin.framesForwardKinematics(robot.model, pin_data, q)
        bodies, offsets, rotations = [], [], []
        for foot in self.names:
            frame = robot.model.frames[robot.frame_id(foot)]
            matched = joint_map.matched[frame.parentJoint]
            body = int(model.jnt_bodyid[matched[-1]]) if matched else 0
            rotation = data.xmat[body].reshape(3, 3)
            world = pin_data.oMf[robot.frame_id(foot)]
            bodies.append(body)
            offsets.append(rotation.T @ (world.translation - data.xpos[body]))
            rotations.append(rotation.T @ world.rotation)
        self.bodies = np.array(bodies, dtype=np.int64)
        self.offsets = np.array(offsets).reshape(-1, 3)
        self.rotations = np.array(rotations).reshape(-1, 3, 3)
        self.index = {foot: k for k, foot in enumerate(self.names)}
        self.geom_foot = self._assign_geoms(model, data)
        self.geom_static = (model.body_weldid[model.geom_bodyid] == 0)

    def _assign_geoms(self, model, data) -> np.ndarray:
        geom_foot = np.full(model.ngeom, -1, dtype=np.int64)
        if not self.names:
            return geom_foot
        welds = model.body_weldid[self.bodies]
        origins = data.xpos[self.bodies] + np.einsum("kij,kj->ki", data.xmat[self.bodies].reshape(-1, 3, 3),
                                                     self.offsets)
        paired = set(model.pair_geom1) | set(model.pair_geom2)     # explicit <pair> contacts
        for geom in range(model.ngeom):
            if not (model.geom_contype[geom] or model.geom_conaffinity[geom] or geom in paired):
                continue
            candidates = np.flatnonzero(welds == model.body_weldid[model.geom_bodyid[geom]])
            if candidates.size:
                distances = np.linalg.norm(origins[candidates] - data.geom_xpos[geom], axis=1)
                geom_foot[geom] = candidates[np.argmin(distances)]
        missing = [foot for k, foot in enumerate(self.names) if not np.any(geom_foot == k)]
        if missing:
            bodies = [self.mujoco.mj_id2name(model, self.mujoco.mjtObj.mjOBJ_BODY, int(self.bodies[self.index[f]]))
                      for f in missing]
            raise ValueError(f"feet {missing} have no collision geometry in the simulator (their bodies {bodies} "
                             "have no geom that collides): give those bodies a collision geom in the model file, "
                             "or choose feet on bodies that have one")
        return geom_foot

    # ------------------------------------------------------------------ reading
    def pose(self, data, foot: str) -> tuple[np.ndarray, np.ndarray]:
        """``(R, p)``: the foot frame's world rotation (3, 3) and origin (3,) in ``data``."""
        k = self.index[foot]
        return _frame_pose(data.xpos, data.xmat, self.bodies[k], self.rotations[k], self.offsets[k])

    def wrenches(self, data) -> np.ndarray:
        """The floor's wrench on each foot (k, 6), ``[f; m]`` world axes about its frame origin."""
        wrenches = np.zeros((len(self.names), 6))
        if data.ncon and self.names:
            contacts = data.contact
            _foot_wrenches(data.efc_force, contacts.dim, contacts.efc_address, contacts.friction, contacts.frame,
                           contacts.pos, contacts.geom, int(self.model.opt.cone) == self._elliptic, self.geom_foot, self.geom_static,
                           data.xpos, data.xmat, self.bodies, self.offsets, wrenches)
        return wrenches
