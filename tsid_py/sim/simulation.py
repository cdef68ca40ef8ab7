"""A MuJoCo simulation of a :class:`~tsid_py.Robot`, in pinocchio's conventions.

State conversion (free joint):

* ``q``: pinocchio ``[p; qx qy qz qw; joints]`` ↔ MuJoCo ``[p; qw qx qy qz; joints]``;
* ``v``: pinocchio ``[R ᵀ ṗ (base frame); ω (base frame); joints]`` ↔ MuJoCo
  ``[ṗ (world); ω (base frame); joints]``;
* joints are matched by name (``jnt_qposadr`` / ``jnt_dofadr``), so the orders may differ.

Torques go to ``qfrc_applied`` at each actuated joint's dof: MuJoCo integrates
``M v̇ + c = qfrc_applied + contact forces`` — the controller is never trusted for the motion.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pinocchio as pin
from numba import njit

from .._validation import as_vector, positive_scalar
from .model import _import_mujoco, build_model


@njit(cache=True)
def _foot_wrenches(efc_force, dims, addresses, friction, frames, points, geoms, elliptic, feet, origins, out):
    """Add each contact's force to the wrench ``out[k]`` (world axes, about ``origins[k]``) of
    the foot whose geom is ``feet[k]``: the force geom1 exerts on geom2, decoded from
    ``efc_force`` as ``mj_contactForce`` does (a pyramid's edges sum to the normal force,
    opposite edges times the friction give the tangential ones; an elliptic cone's rows are
    the force; the torsional moment of condim 4 is left out)."""
    local = np.zeros(3)
    for i in range(dims.shape[0]):
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
        for k in range(feet.shape[0]):
            sign = 1.0 if geoms[i, 1] == feet[k] else (-1.0 if geoms[i, 0] == feet[k] else 0.0)
            if sign == 0.0:
                continue
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


class Simulation:
    """Physics of ``robot`` on a floor, stepped with torques in pinocchio's joint order.

    Parameters
    ----------
    robot : the robot; its URDF is loaded into MuJoCo.
    timestep : physics step, s.
    friction : sliding friction of the floor and the feet.
    visual : keep the URDF's meshes (for the viewer).
    actuation_delay : s between a torque command and its application (rounded to whole
        physics steps; the torques before the first command are zero). Models the
        latency of a real loop, which the controller does not know of.
    mass_scale : ``{body: factor}``: the simulated bodies' mass and inertia are multiplied
        by ``factor`` (the controller's model keeps the URDF's): a model error.
    """

    def __init__(self, robot, *, timestep: float = 1e-3, friction: float = 1.0, visual: bool = False,
                 actuation_delay: float = 0.0, mass_scale: dict | None = None):
        self.mujoco = _import_mujoco()
        self.robot = robot
        self.timestep = positive_scalar(timestep, "timestep")
        self.friction = positive_scalar(friction, "friction")
        self.model = build_model(robot, timestep=self.timestep, friction=friction, visual=visual)
        for body, factor in (mass_scale or {}).items():
            self._scale_body(body, positive_scalar(factor, f"mass_scale[{body!r}]"))
        self.data = self.mujoco.MjData(self.model)
        delay = positive_scalar(actuation_delay, "actuation_delay", allow_zero=True)
        self._pending = deque([np.zeros(robot.na)] * int(round(delay / self.timestep)))
        self._build_index_maps()
        self._push_body = None
        self._push_until = -1.0
        self._pin_data = robot.model.createData()     # the harness's own: the robot's is the controller's
        self._origins = None
        self.reset(robot.q_ref, robot.zero_velocity())

    def _build_index_maps(self) -> None:
        mj, pin_model, robot = self.model, self.robot.model, self.robot
        first = 2 if robot.floating_base else 1
        qpos, dofs = [], []
        for joint_id in range(first, pin_model.njoints):
            name = pin_model.names[joint_id]
            mj_id = self.mujoco.mj_name2id(mj, self.mujoco.mjtObj.mjOBJ_JOINT, name)
            if mj_id < 0:
                raise KeyError(f"joint {name!r} of the pinocchio model is missing from the MuJoCo model")
            joint = pin_model.joints[joint_id]
            qpos += list(range(mj.jnt_qposadr[mj_id], mj.jnt_qposadr[mj_id] + joint.nq))
            dofs += list(range(mj.jnt_dofadr[mj_id], mj.jnt_dofadr[mj_id] + joint.nv))
        self.joint_qpos = np.array(qpos, dtype=int)    # MuJoCo qpos index of pinocchio q[offset + i]
        self.joint_dofs = np.array(dofs, dtype=int)    # MuJoCo dof index of pinocchio v[offset + i]
        self.q_offset = 7 if robot.floating_base else 0
        self.v_offset = 6 if robot.floating_base else 0
        if robot.floating_base:
            root = self.mujoco.mj_name2id(mj, self.mujoco.mjtObj.mjOBJ_JOINT, "root")
            self.root_qpos, self.root_dof = mj.jnt_qposadr[root], mj.jnt_dofadr[root]
            self.root_body = mj.jnt_bodyid[root]

    def _scale_body(self, body: str, factor: float) -> None:
        body_id = self.mujoco.mj_name2id(self.model, self.mujoco.mjtObj.mjOBJ_BODY, body)
        if body_id < 0:
            names = [self.model.body(i).name for i in range(self.model.nbody)]
            raise KeyError(f"mass_scale: body {body!r} is not in the MuJoCo model; bodies: {names}")
        self.model.body_mass[body_id] *= factor
        self.model.body_inertia[body_id] *= factor

    # ------------------------------------------------------------------ state
    def reset(self, q, v) -> None:
        """Set the state (pinocchio conventions) and recompute MuJoCo's derived quantities."""
        self.mujoco.mj_resetData(self.model, self.data)
        self.set_state(q, v)
        self.mujoco.mj_forward(self.model, self.data)

    def set_state(self, q, v) -> None:
        q = self.robot.check_configuration(q, "q")
        v = as_vector(v, "v", self.robot.nv)
        qpos, qvel = self.data.qpos, self.data.qvel
        qpos[self.joint_qpos] = q[self.q_offset:]
        qvel[self.joint_dofs] = v[self.v_offset:]
        if self.robot.floating_base:
            a, d = self.root_qpos, self.root_dof
            qpos[a:a + 3] = q[:3]
            qpos[a + 3:a + 7] = [q[6], q[3], q[4], q[5]]
            rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
            qvel[d:d + 3] = rotation @ v[:3]
            qvel[d + 3:d + 6] = v[3:6]

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q, v)`` in pinocchio's conventions."""
        q = np.empty(self.robot.nq)
        v = np.empty(self.robot.nv)
        qpos, qvel = self.data.qpos, self.data.qvel
        q[self.q_offset:] = qpos[self.joint_qpos]
        v[self.v_offset:] = qvel[self.joint_dofs]
        if self.robot.floating_base:
            a, d = self.root_qpos, self.root_dof
            w, x, y, z = qpos[a + 3:a + 7]
            norm = np.sqrt(w * w + x * x + y * y + z * z)
            q[:3] = qpos[a:a + 3]
            q[3:7] = np.array([x, y, z, w]) / norm
            rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
            v[:3] = rotation.T @ qvel[d:d + 3]
            v[3:6] = qvel[d + 3:d + 6]
        return q, v

    @property
    def time(self) -> float:
        return float(self.data.time)

    # ------------------------------------------------------------------ stepping
    def step(self, tau_actuated, steps: int = 1) -> None:
        """Apply ``tau_actuated`` (na,), pinocchio joint order, for ``steps`` physics steps."""
        tau = as_vector(tau_actuated, "tau_actuated", self.robot.na)
        if self._pending:                       # actuation delay: apply the oldest command
            self._pending.append(tau.copy())
            tau = self._pending.popleft()
        self.data.qfrc_applied[:] = 0.0
        self.data.qfrc_applied[self.joint_dofs] = tau
        for _ in range(steps):
            if self._push_body is not None and self.data.time >= self._push_until:
                self.data.xfrc_applied[self._push_body] = 0.0
                self._push_body = None
            self.mujoco.mj_step(self.model, self.data)

    def push(self, force, duration: float, body: str | None = None) -> None:
        """Apply a world-frame force (N) at ``body``'s centre of mass (default: the root body)
        for ``duration`` s of simulated time."""
        force = as_vector(force, "force", 3)
        duration = positive_scalar(duration, "duration")
        if body is None:
            body_id = self.root_body if self.robot.floating_base else self.model.nbody - 1
        else:
            body_id = self.mujoco.mj_name2id(self.model, self.mujoco.mjtObj.mjOBJ_BODY, body)
            if body_id < 0:
                raise KeyError(f"body {body!r} is not in the MuJoCo model")
        self.data.xfrc_applied[body_id, :3] = force
        self.data.xfrc_applied[body_id, 3:] = 0.0
        self._push_body = body_id
        self._push_until = self.data.time + duration

    # ------------------------------------------------------------------ contacts
    def contact_wrenches(self) -> dict[str, np.ndarray]:
        """The floor's wrench on each foot, ``[f; m]`` world-aligned at the foot frame origin
        (the convention of :class:`~tsid_py.Solution`), from MuJoCo's contact solver, in one
        compiled pass over the contacts (:func:`_foot_wrenches`): the demos record it every
        step, and a per-contact ``mj_contactForce`` loop cost about 190 µs a step, and the
        controller's caches."""
        feet = self._foot_origins()
        geoms, data = self._foot_geom_ids, self.data
        # the foot frames' origins from their collision geometries' poses: the same kinematics
        # as the contacts (no second forward kinematics pass)
        origins = data.geom_xpos[geoms] + np.einsum("nij,nj->ni", data.geom_xmat[geoms].reshape(-1, 3, 3),
                                                    self._foot_offsets)
        wrenches = np.zeros((len(feet), 6))
        if data.ncon:
            contacts = data.contact
            _foot_wrenches(data.efc_force, contacts.dim, contacts.efc_address, contacts.friction, contacts.frame,
                           contacts.pos, contacts.geom, self.model.opt.cone == self.mujoco.mjtCone.mjCONE_ELLIPTIC,
                           geoms, origins, wrenches)
        return dict(zip(feet, wrenches))

    def _foot_origins(self) -> dict[str, tuple[int, np.ndarray]]:
        """Per foot: its collision geom and the foot frame's origin in that geom's frame
        (the geom and the frame hang from the same body, the frame's parent joint's)."""
        if self._origins is None:
            origins = {}
            for foot in self.robot.feet:
                geom = self._foot_geom(foot)
                w, x, y, z = self.model.geom_quat[geom]
                rotation = pin.Quaternion(w, x, y, z).toRotationMatrix()
                placement = self.robot.model.frames[self.robot.frame_id(foot)].placement
                origins[foot] = (geom, rotation.T @ (placement.translation - self.model.geom_pos[geom]))
            self._origins = origins
            self._foot_geom_ids = np.array([geom for geom, _ in origins.values()], dtype=np.int64)
            self._foot_offsets = np.array([offset for _, offset in origins.values()])
        return self._origins

    def sole_pose(self, foot: str) -> tuple[float, np.ndarray]:
        """``(tilt, position)`` of a foot's collision geometry: the angle (rad) between its z
        axis and the vertical, and its centre's world position (3,)."""
        geom = self._foot_geom(foot)
        axis_z = self.data.geom_xmat[geom][8]          # R[2, 2]
        return float(np.arccos(np.clip(axis_z, -1.0, 1.0))), self.data.geom_xpos[geom].copy()

    def com_state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(com, com_velocity)`` (3,) each of the simulated state, world axes, m and m/s
        (pinocchio on the harness's own data: the robot's belongs to its controller)."""
        q, v = self.state()
        data = self._pin_data
        pin.centerOfMass(self.robot.model, data, q, v, False)
        return data.com[0].copy(), data.vcom[0].copy()

    def sole_corners(self, feet) -> np.ndarray:
        """World (x, y) of the bottom corners of the feet's collision boxes, (4 k, 2), m."""
        corners = []
        for foot in feet:
            geom = self._foot_geom(foot)
            half = self.model.geom_size[geom]
            rotation = self.data.geom_xmat[geom].reshape(3, 3)
            local = np.array([[sx * half[0], sy * half[1], -half[2]] for sx in (1, -1) for sy in (1, -1)])
            corners.append((local @ rotation.T + self.data.geom_xpos[geom])[:, :2])
        return np.vstack(corners)

    def _foot_geom(self, foot: str) -> int:
        for suffix in ("_sole", "_sphere"):
            geom = self.mujoco.mj_name2id(self.model, self.mujoco.mjtObj.mjOBJ_GEOM, foot + suffix)
            if geom >= 0:
                return geom
        raise KeyError(f"no collision geometry for foot {foot!r}")

    # ------------------------------------------------------------------ dynamics, for checks
    def mass_matrix_and_bias(self) -> tuple[np.ndarray, np.ndarray]:
        """MuJoCo's ``M`` and bias forces at the current state, mapped to pinocchio's
        velocity coordinates: with ``v_mj = T v`` (``T`` rotates the base linear velocity),
        ``M = Tᵀ M_mj T`` and ``h = Tᵀ (c_mj + M_mj Ṫ v)`` where ``Ṫ v = [R (ω × v_lin); 0]``."""
        mujoco, model, data = self.mujoco, self.model, self.data
        mujoco.mj_forward(model, data)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        bias = data.qfrc_bias.copy()
        q, v = self.state()
        order = np.r_[np.arange(self.root_dof, self.root_dof + 6) if self.robot.floating_base else [],
                      self.joint_dofs].astype(int)
        T = np.eye(self.robot.nv)
        if self.robot.floating_base:
            rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
            T[:3, :3] = rotation
            t_dot_v = np.zeros(self.robot.nv)
            t_dot_v[:3] = rotation @ np.cross(v[3:6], v[:3])
        else:
            t_dot_v = np.zeros(self.robot.nv)
        M_mj = full[np.ix_(order, order)]
        c_mj = bias[order]
        return T.T @ M_mj @ T, T.T @ (c_mj + M_mj @ t_dot_v)
