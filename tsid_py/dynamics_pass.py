"""A robot's kinematics and dynamics pass: what a control step reads at the robot's state,
refreshed by each update, as named views.

Two passes with one interface: :class:`CompiledPass` (:mod:`tsid_py.rigid_body`'s compiled
sweep, for the joints it knows: the common case) and :class:`PinocchioPass` (pinocchio's
``computeAllTerms``, ``updateFramePlacements`` and ``centerOfMass`` on the robot's data, for
any other model); :func:`dynamics_pass` chooses. Each has

* the views ``mass_matrix`` (nv × nv), ``bias`` (nv), ``joint_jacobians`` and
  ``joint_jacobian_rates`` (6 × nv, world axes at the origin: pinocchio's ``data.J`` and
  ``data.dJ``), ``com``, ``com_velocity``, ``com_drift`` (3) and ``com_jacobian`` (3 × nv);
* :meth:`update` ``(q_in, v_in, q, v, tolerance)``: the pass at ``(q_in, v_in)``, copied into
  the robot's ``q`` and ``v``;
* :meth:`frame_views`, :meth:`frame_offset`, :meth:`joint_rotation`: views of a frame's world
  placement, of its placement on its body (writable) and of a joint's world rotation;
* :meth:`centroidal`: ``(A_g, h_g, Ȧ_g v)``;
* :meth:`complete`: pinocchio's data at the last state, whole (for users who need more).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pinocchio as pin

from ._numba import compiled_function
from .frames import direct as _frames
from .rigid_body import (AXIS, BODY_COLUMNS, FREE_FLYER, INERTIA, JOINT_COLUMNS, KINDS, LEVER, MASS, ORIGIN,
                         PLACEMENT_P, PLACEMENT_R, PRISMATIC, ROTATION, buffer_size, output_sizes, outputs,
                         update_state)

_update = compiled_function(update_state)


class FrameSources(NamedTuple):
    """What the compiled frame kernels (:func:`tsid_py.frames.frame_motion`) form a frame's
    Jacobian and drift from: views of the pass's world joint Jacobians (pinocchio's ``data.J``) and
    their time derivatives (``data.dJ``) (6 × nv, refreshed by each update), the frame's supporting
    columns (the velocity indices of the joints from the root to the frame's joint), and
    views of the frame's world translation (3,) and rotation (3 × 3)."""

    joint_jacobians: np.ndarray
    joint_jacobian_rates: np.ndarray
    columns: np.ndarray
    translation: np.ndarray
    rotation: np.ndarray


class CompiledPass:
    """The compiled pass for one model (build it with :func:`dynamics_pass`): its tables (the
    joints' tree and kinds, the bodies, the frames' placements on their bodies), the outputs'
    buffer and its named views (:func:`~tsid_py.rigid_body.output_sizes`), and the frames
    whose placements it computes (each asked for through :meth:`frame_views`).

    The tables are read from the model when the pass is made: its joints' placements, its
    inertias and gravity do not change afterwards (make a new robot for another model); its
    armature is read at each update, and frames may move on their bodies (:meth:`frame_offset`)."""

    #: Whether :meth:`update` checks its inputs (finite, a unit root quaternion).
    checks_inputs = True

    def __init__(self, model: pin.Model, tree: np.ndarray, bodies: np.ndarray):
        nv, frames = model.nv, len(model.frames)
        self.model, self.nv, self.tree, self.bodies = model, nv, tree, bodies
        self.gravity = np.array(model.gravity.linear, dtype=float)
        self.frame_parents = np.array([frame.parentJoint for frame in model.frames], dtype=np.intp)
        self.frame_placements = np.array([np.r_[frame.placement.rotation.ravel(), frame.placement.translation]
                                          for frame in model.frames], dtype=float).reshape(frames, 12)
        self.tracked = np.zeros(0, dtype=np.intp)     # the frames the pass places, in this order
        self.moved: set[int] = set()           # frames placed anew through frame_offset
        self.work = np.zeros((model.njoints, JOINT_COLUMNS))
        self.work[0, ROTATION:ROTATION + 9] = np.eye(3).ravel()      # the universe: identity, at rest
        self.buffer = np.zeros(buffer_size(nv, frames))
        self._bind()

    @classmethod
    def of(cls, model: pin.Model) -> "CompiledPass | None":
        """The pass for ``model``, or None when one of its joints is not of a kind the pass
        knows (:data:`~tsid_py.rigid_body.KINDS`)."""
        tree = np.zeros((model.njoints, 4), dtype=np.intp)
        bodies = np.zeros((model.njoints, BODY_COLUMNS))
        for i in range(1, model.njoints):
            joint = model.joints[i]
            kind = KINDS.get(joint.shortname())
            if kind is None:
                return None
            tree[i] = (model.parents[i], kind, joint.idx_q, joint.idx_v)
            if kind != FREE_FLYER:                 # the axis from the joint's motion subspace S
                joint_data = joint.createData()
                joint.calc(joint_data, pin.neutral(model))
                subspace = np.asarray(joint_data.S).ravel()
                bodies[i, AXIS:AXIS + 3] = subspace[:3] if kind == PRISMATIC else subspace[3:]
            placement, inertia = model.jointPlacements[i], model.inertias[i]
            bodies[i, PLACEMENT_R:PLACEMENT_R + 9] = placement.rotation.ravel()
            bodies[i, PLACEMENT_P:PLACEMENT_P + 3] = placement.translation
            bodies[i, MASS] = inertia.mass
            bodies[i, LEVER:LEVER + 3] = inertia.lever
            bodies[i, INERTIA:INERTIA + 9] = inertia.inertia.ravel()
        return cls(model, tree, bodies)

    def _bind(self) -> None:
        """The named views of the outputs' buffer, and of the model's armature (which
        :func:`tsid_py.models.actuators.set_armature` changes in place): again after a copy,
        since views are not kept."""
        frames = len(self.frame_parents)
        self.armature = self.model.armature
        self._tracked = set(self.tracked.tolist())
        for (name, _), view in zip(output_sizes(self.nv, frames), outputs.py_func(self.buffer, self.nv, frames)):
            setattr(self, name, view)

    def __getstate__(self) -> dict:
        views = {*dict(output_sizes(0, 0)), "armature"}
        return {key: value for key, value in self.__dict__.items() if key not in views}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    def update(self, q_in: np.ndarray, v_in: np.ndarray, q: np.ndarray, v: np.ndarray, tolerance: float) -> int:
        """:func:`~tsid_py.rigid_body.update_state` (float64 vectors of the model's sizes):
        0, or the code of what is wrong with the inputs (nothing is written then)."""
        return _update(self.tree, self.bodies, self.gravity, self.armature, self.frame_parents, self.frame_placements,
                       self.tracked, q_in, v_in, q, v, self.work, self.buffer, tolerance)

    def frame_views(self, frame_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Views of the frame's world rotation and translation: computed from now on (and now,
        from the last pass's joints)."""
        rotation, translation = self.frame_rotations[frame_id], self.frame_translations[frame_id]
        if frame_id not in self._tracked:         # oMf = oMᵢ · ᵢMf, as the compiled pass places it
            self._tracked.add(frame_id)
            self.tracked = np.append(self.tracked, np.intp(frame_id))
            joint, table = self.work[self.frame_parents[frame_id]], self.frame_placements[frame_id]
            joint_rotation = joint[ROTATION:ROTATION + 9].reshape(3, 3)
            rotation[:] = joint_rotation @ table[:9].reshape(3, 3)
            translation[:] = joint[ORIGIN:ORIGIN + 3] + joint_rotation @ table[9:]
        return rotation, translation

    def frame_offset(self, model: pin.Model, frame_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Writable views of the frame's placement on its body (rotation, translation) in the
        pass's table; :meth:`complete` copies them into ``model`` before pinocchio reads it."""
        self.moved.add(frame_id)
        table = self.frame_placements[frame_id]
        return table[:9].reshape(3, 3), table[9:]

    def sync_frames(self, model: pin.Model) -> None:
        """Copy the placements written through :meth:`frame_offset` into ``model``'s frames."""
        for frame_id in self.moved:
            table = self.frame_placements[frame_id]
            model.frames[frame_id].placement = pin.SE3(table[:9].reshape(3, 3).copy(), table[9:].copy())

    def joint_rotation(self, joint_id: int) -> np.ndarray:
        """(3, 3) view of the joint frame's world rotation at the last pass."""
        return self.work[joint_id, ROTATION:ROTATION + 9].reshape(3, 3)

    def centroidal(self, data: pin.Data, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Views of ``A_g`` (6 × nv), ``h_g`` (6,) and ``Ȧ_g v`` (6,) at the CoM."""
        return self.centroidal_matrix, self.centroidal_momentum, self.centroidal_drift

    def complete(self, model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray) -> None:
        """pinocchio's data at ``(q, v)``, whole."""
        self.sync_frames(model)
        PinocchioPass.run(model, data, q, v)


class PinocchioPass:
    """pinocchio's pass on the robot's ``data`` (any joint pinocchio knows): the named views
    are ``data``'s own buffers. The rates ``J̇`` of a composite joint's columns are corrected
    after each pass (:func:`tsid_py.frames.correct_composite_rates`)."""

    checks_inputs = False

    def __init__(self, model: pin.Model, data: pin.Data):
        self.model, self.data = model, data
        composites = [joint for joint in model.joints if joint.shortname() == "JointModelComposite"]
        #: The composite joints' first columns and sizes, or None without composite joints.
        self.composites = (np.array([joint.idx_v for joint in composites], dtype=np.intp),
                           np.array([joint.nv for joint in composites], dtype=np.intp)) if composites else None
        self.mass_matrix, self.bias, self.joint_jacobians, self.joint_jacobian_rates = data.M, data.nle, data.J, data.dJ
        self.com, self.com_velocity, self.com_drift = data.com[0], data.vcom[0], data.acom[0]
        self.com_jacobian = data.Jcom

    def __getstate__(self) -> dict:
        return {"model": self.model, "data": self.data}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["model"], state["data"])

    @staticmethod
    def run(model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray) -> None:
        """``computeAllTerms``, ``updateFramePlacements`` and ``centerOfMass`` (acceleration)."""
        pin.computeAllTerms(model, data, q, v)
        pin.updateFramePlacements(model, data)
        pin.centerOfMass(model, data, pin.KinematicLevel.ACCELERATION, False)

    def update(self, q_in: np.ndarray, v_in: np.ndarray, q: np.ndarray, v: np.ndarray, tolerance: float) -> int:
        """The pass at ``(q_in, v_in)`` (validated by the caller), copied into ``q`` and ``v``."""
        self.run(self.model, self.data, q_in, v_in)
        if self.composites is not None:
            _frames.correct_composite_rates(self.data.J, self.data.dJ, np.asarray(v_in, dtype=float),
                                            *self.composites)
        np.copyto(q, q_in)
        np.copyto(v, v_in)
        return 0

    def frame_views(self, frame_id: int) -> tuple[np.ndarray, np.ndarray]:
        placement = self.data.oMf[frame_id]
        return placement.rotation, placement.translation

    def frame_offset(self, model: pin.Model, frame_id: int) -> tuple[np.ndarray, np.ndarray]:
        placement = model.frames[frame_id].placement
        return placement.rotation, placement.translation

    def sync_frames(self, model: pin.Model) -> None:
        """Nothing to copy: the offsets are the model's own."""

    def joint_rotation(self, joint_id: int) -> np.ndarray:
        return self.data.oMi[joint_id].rotation

    def centroidal(self, data: pin.Data, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return data.Ag, data.hg.vector, data.dAg @ v

    def complete(self, model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray) -> None:
        """Nothing to do: every update is pinocchio's whole pass."""


def dynamics_pass(model: pin.Model, data: pin.Data) -> CompiledPass | PinocchioPass:
    """The compiled pass for ``model`` when it knows every joint, else pinocchio's on ``data``."""
    return CompiledPass.of(model) or PinocchioPass(model, data)
