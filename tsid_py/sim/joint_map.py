"""pinocchio ↔ MuJoCo coordinates, joint by joint, matched by name.

Each pinocchio joint is matched to MuJoCo joints by its name, else through the body it moves
(pinocchio's body frame of the same name as MuJoCo's body: a composite joint, an MJCF body
with several joints, or an unnamed joint). Per kind, with ``R`` the joint's rotation:

==========================  =====================================  ==================================
pinocchio                   q (pinocchio ↔ MuJoCo)                 v (pinocchio → MuJoCo)
==========================  =====================================  ==================================
revolute, prismatic (1)     θ ↔ θ                                  θ̇ → θ̇
continuous (RUB*)           (cos θ, sin θ) ↔ θ = atan2(sin, cos)   θ̇ → θ̇
composite (MJCF body)       each component's θ                     each component's θ̇
free flyer ↔ free joint     (p, x y z w) ↔ (p, w x y z)            (Rᵀ ṗ, ω_local) → (ṗ, ω_local)
spherical ↔ ball            (x y z w) ↔ (w x y z)                  ω_local → ω_local
planar ↔ slide, slide,      (x, y, cos θ, sin θ) ↔ (x, y, θ)        (v_local, θ̇) → (R(θ) v_local, θ̇)
hinge (URDF planar)
==========================  =====================================  ==================================

So ``v_mj = T(q) v`` with ``T`` block-diagonal (identity but for a free joint's ``R`` and a
planar joint's 2 × 2 ``R(θ)``), generalized forces map by ``τ = Tᵀ τ_mj`` (the same power
``τᵀ v``), i.e. ``τ_mj = T⁻ᵀ τ = T τ`` since those blocks are rotations. The conversions run
every physics step: compiled loops over index tables built once.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit

#: pinocchio joint kinds with one q and one v, copied as they are.
_PLAIN = {"JointModelRX", "JointModelRY", "JointModelRZ", "JointModelRevoluteUnaligned", "JointModelPX",
          "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"}
_CONTINUOUS = {"JointModelRUBX", "JointModelRUBY", "JointModelRUBZ", "JointModelRevoluteUnboundedUnaligned"}


@njit(cache=True, inline="always")
def _rotation(w, x, y, z):
    """Rotation matrix of the unit quaternion ``w + x i + y j + z k``."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@njit(cache=True, inline="always")
def _to_pinocchio(qpos, qvel, q, v, plain_q, plain_v, continuous, free, ball, planar):
    for k in range(plain_q.shape[0]):
        q[plain_q[k, 0]] = qpos[plain_q[k, 1]]
    for k in range(plain_v.shape[0]):
        v[plain_v[k, 0]] = qvel[plain_v[k, 1]]
    for k in range(continuous.shape[0]):
        angle = qpos[continuous[k, 1]]
        q[continuous[k, 0]] = np.cos(angle)
        q[continuous[k, 0] + 1] = np.sin(angle)
    for k in range(free.shape[0]):
        i, j, a, d = free[k, 0], free[k, 1], free[k, 2], free[k, 3]
        w, x, y, z = qpos[a + 3], qpos[a + 4], qpos[a + 5], qpos[a + 6]
        norm = np.sqrt(w * w + x * x + y * y + z * z)
        w, x, y, z = w / norm, x / norm, y / norm, z / norm
        q[i], q[i + 1], q[i + 2] = qpos[a], qpos[a + 1], qpos[a + 2]
        q[i + 3], q[i + 4], q[i + 5], q[i + 6] = x, y, z, w
        rotation = _rotation(w, x, y, z)
        for r in range(3):
            v[j + r] = rotation[0, r] * qvel[d] + rotation[1, r] * qvel[d + 1] + rotation[2, r] * qvel[d + 2]
            v[j + 3 + r] = qvel[d + 3 + r]
    for k in range(ball.shape[0]):
        i, j, a, d = ball[k, 0], ball[k, 1], ball[k, 2], ball[k, 3]
        w, x, y, z = qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3]
        norm = np.sqrt(w * w + x * x + y * y + z * z)
        q[i], q[i + 1], q[i + 2], q[i + 3] = x / norm, y / norm, z / norm, w / norm
        v[j], v[j + 1], v[j + 2] = qvel[d], qvel[d + 1], qvel[d + 2]
    for k in range(planar.shape[0]):
        i, j = planar[k, 0], planar[k, 1]
        angle = qpos[planar[k, 4]]
        c, s = np.cos(angle), np.sin(angle)
        q[i], q[i + 1], q[i + 2], q[i + 3] = qpos[planar[k, 2]], qpos[planar[k, 3]], c, s
        vx, vy = qvel[planar[k, 5]], qvel[planar[k, 6]]
        v[j], v[j + 1], v[j + 2] = c * vx + s * vy, -s * vx + c * vy, qvel[planar[k, 7]]


@njit(cache=True, inline="always")
def _to_mujoco(q, v, qpos, qvel, plain_q, plain_v, continuous, free, ball, planar):
    for k in range(plain_q.shape[0]):
        qpos[plain_q[k, 1]] = q[plain_q[k, 0]]
    for k in range(plain_v.shape[0]):
        qvel[plain_v[k, 1]] = v[plain_v[k, 0]]
    for k in range(continuous.shape[0]):
        qpos[continuous[k, 1]] = np.arctan2(q[continuous[k, 0] + 1], q[continuous[k, 0]])
    for k in range(free.shape[0]):
        i, j, a, d = free[k, 0], free[k, 1], free[k, 2], free[k, 3]
        x, y, z, w = q[i + 3], q[i + 4], q[i + 5], q[i + 6]
        qpos[a], qpos[a + 1], qpos[a + 2] = q[i], q[i + 1], q[i + 2]
        qpos[a + 3], qpos[a + 4], qpos[a + 5], qpos[a + 6] = w, x, y, z
        rotation = _rotation(w, x, y, z)
        for r in range(3):
            qvel[d + r] = rotation[r, 0] * v[j] + rotation[r, 1] * v[j + 1] + rotation[r, 2] * v[j + 2]
            qvel[d + 3 + r] = v[j + 3 + r]
    for k in range(ball.shape[0]):
        i, j, a, d = ball[k, 0], ball[k, 1], ball[k, 2], ball[k, 3]
        qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3] = q[i + 3], q[i], q[i + 1], q[i + 2]
        qvel[d], qvel[d + 1], qvel[d + 2] = v[j], v[j + 1], v[j + 2]
    for k in range(planar.shape[0]):
        i, j = planar[k, 0], planar[k, 1]
        c, s = q[i + 2], q[i + 3]
        qpos[planar[k, 2]], qpos[planar[k, 3]], qpos[planar[k, 4]] = q[i], q[i + 1], np.arctan2(s, c)
        qvel[planar[k, 5]] = c * v[j] - s * v[j + 1]
        qvel[planar[k, 6]] = s * v[j] + c * v[j + 1]
        qvel[planar[k, 7]] = v[j + 2]


class JointMap:
    """The coordinate map between a pinocchio model and a MuJoCo model of the same robot (see
    the module). ``JointMap(pin_model, mj_model)``; ``KeyError``/``ValueError`` name a joint
    that has no counterpart or a kind the harness cannot map."""

    def __init__(self, pin_model: pin.Model, mj_model):
        import mujoco

        self.mujoco, self.pin_model, self.mj_model = mujoco, pin_model, mj_model
        plain_q, plain_v, continuous, free, ball, planar = [], [], [], [], [], []
        #: MuJoCo dof index of each pinocchio velocity index (nv,)
        self.dofs = np.full(pin_model.nv, -1, dtype=np.int64)
        #: MuJoCo joint ids matched to each pinocchio joint (index = pinocchio joint id)
        self.matched: list[list[int]] = [[]]
        for joint_id in range(1, pin_model.njoints):
            joint = pin_model.joints[joint_id]
            kind, (i, j) = joint.shortname(), (joint.idx_q, joint.idx_v)
            targets = self._match(joint_id)
            self.matched.append(targets)
            adr = [int(mj_model.jnt_qposadr[t]) for t in targets]
            dof = [int(mj_model.jnt_dofadr[t]) for t in targets]
            types = [int(mj_model.jnt_type[t]) for t in targets]
            if kind in _PLAIN or kind == "JointModelComposite":
                self._expect(joint_id, types, [mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE], joint.nv)
                plain_q += [(i + k, adr[k]) for k in range(joint.nq)]
                plain_v += [(j + k, dof[k]) for k in range(joint.nv)]
            elif kind in _CONTINUOUS:
                self._expect(joint_id, types, [mujoco.mjtJoint.mjJNT_HINGE], 1)
                continuous.append((i, adr[0]))
                plain_v.append((j, dof[0]))
            elif kind == "JointModelFreeFlyer":
                self._expect(joint_id, types, [mujoco.mjtJoint.mjJNT_FREE], 1)
                free.append((i, j, adr[0], dof[0]))
            elif kind == "JointModelSpherical":
                self._expect(joint_id, types, [mujoco.mjtJoint.mjJNT_BALL], 1)
                ball.append((i, j, adr[0], dof[0]))
            elif kind == "JointModelPlanar":
                self._expect(joint_id, types, [mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE], 3)
                planar.append((i, j, *adr, *dof))
            else:
                raise ValueError(f"joint {pin_model.names[joint_id]!r}: the simulator cannot map pinocchio's {kind}")
            self.dofs[j:j + joint.nv] = dof if len(dof) == joint.nv else range(dof[0], dof[0] + joint.nv)
        table = lambda rows, width: np.array(rows, dtype=np.int64).reshape(-1, width)  # noqa: E731
        self._tables = (table(plain_q, 2), table(plain_v, 2), table(continuous, 2), table(free, 4), table(ball, 4),
                        table(planar, 8))
        self._free, self._planar = self._tables[3], self._tables[5]

    def _match(self, joint_id: int) -> list[int]:
        mujoco, mj, model = self.mujoco, self.mj_model, self.pin_model
        name = model.names[joint_id]
        found = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name)
        if found >= 0:
            return [found]
        for frame in model.frames:
            if frame.parentJoint == joint_id and frame.type == pin.FrameType.BODY:
                body = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, frame.name)
                if body >= 0 and mj.body_jntnum[body] > 0:
                    start = mj.body_jntadr[body]
                    return list(range(start, start + mj.body_jntnum[body]))
                break
        raise KeyError(f"joint {name!r} of the pinocchio model is missing from the MuJoCo model "
                       "(no MuJoCo joint of that name, nor a body of its body's name with joints)")

    def _expect(self, joint_id: int, types: list[int], allowed: list, count: int) -> None:
        allowed = [int(kind) for kind in allowed]
        if len(types) != count or any(kind not in allowed for kind in types):
            names = [self.mujoco.mjtJoint(kind).name for kind in types]
            raise ValueError(f"joint {self.pin_model.names[joint_id]!r} ({self.pin_model.joints[joint_id].shortname()}) "
                             f"matches MuJoCo joints of kinds {names}, which the simulator cannot map onto it")

    # ------------------------------------------------------------------ conversions
    def to_pinocchio(self, qpos: np.ndarray, qvel: np.ndarray, q: np.ndarray, v: np.ndarray) -> None:
        """Fill ``q`` (nq,) and ``v`` (nv,) from MuJoCo's ``qpos`` and ``qvel`` (quaternions
        normalised)."""
        _to_pinocchio(qpos, qvel, q, v, *self._tables)

    def to_mujoco(self, q: np.ndarray, v: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Write ``q``, ``v`` into MuJoCo's ``qpos`` and ``qvel`` (entries of unmatched MuJoCo
        joints untouched)."""
        _to_mujoco(q, v, qpos, qvel, *self._tables)

    def rotates(self, first: int = 0) -> bool:
        """Whether ``T`` is more than a permutation on the velocity indices from ``first`` on
        (a free or planar joint there)."""
        return any(row[1] >= first for row in self._free) or any(row[1] >= first for row in self._planar)

    def velocity_map(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(T, Ṫ v)``: ``v_mj[dofs] = T v`` (nv × nv, columns in pinocchio's order, rows in
        the order of :attr:`dofs`), and its time derivative along ``v`` (nv,), for comparing
        dynamics: ``M = Tᵀ M_mj T``, ``h = Tᵀ (c_mj + M_mj Ṫ v)``."""
        nv = self.pin_model.nv
        T, t_dot_v = np.eye(nv), np.zeros(nv)
        for i, j, _, _ in self._free:
            rotation = pin.Quaternion(q[i + 6], q[i + 3], q[i + 4], q[i + 5]).normalized().toRotationMatrix()
            T[j:j + 3, j:j + 3] = rotation
            t_dot_v[j:j + 3] = rotation @ np.cross(v[j + 3:j + 6], v[j:j + 3])
        for i, j, *_ in self._planar:
            c, s = q[i + 2], q[i + 3]
            rotation = np.array([[c, -s], [s, c]])
            T[j:j + 2, j:j + 2] = rotation
            t_dot_v[j:j + 2] = v[j + 2] * np.array([[-s, -c], [c, -s]]) @ v[j:j + 2]
        return T, t_dot_v

    def forces_to_mujoco(self, tau: np.ndarray, q: np.ndarray) -> np.ndarray:
        """MuJoCo generalized forces (nv,) at :attr:`dofs` doing the same power as pinocchio's
        ``tau`` (nv,): ``τ_mj = T⁻ᵀ τ`` (``T`` is orthogonal on its rotation blocks)."""
        T, _ = self.velocity_map(q, np.zeros(self.pin_model.nv))
        return T @ tau
