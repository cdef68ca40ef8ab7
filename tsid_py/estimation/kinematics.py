r"""The feet's positions in the base from the encoders, compiled.

The legs of a legged robot are chains of one-degree-of-freedom joints, revolute or prismatic.
For each joint ``j`` of the chains from the base to the feet, pinocchio's model gives its
placement in its parent's frame ``M_j = (R_j, t_j)`` and its motion subspace ``S_j`` (a unit
axis ``a``, angular for a revolute joint, linear for a prismatic one), so that its frame in the
base is, for a revolute and a prismatic joint:

.. math::

    T_j &= T_\text{parent} \cdot M_j \cdot (\operatorname{Exp}([a]_× q_j),\ 0) \\
    T_j &= T_\text{parent} \cdot M_j \cdot (I,\ a\, q_j)

and a foot frame attached to joint ``j`` at ``(R_f, t_f)`` sits at ``T_j · t_f``.
:class:`LegKinematics` reads the chains once from the model and evaluates them in one compiled
call per period (pinocchio's forward kinematics from Python costs a few microseconds a step;
this, well under one). Its test compares it with pinocchio's at random configurations.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit, void

from .._numba import ORDERED_MATH, inlined
from .kalman import INDICES, MATRIX, TENSOR, VECTOR, exp3

@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _product(A, B, out):
    """``out = A B`` for 3 × 3 matrices (``out`` distinct from both)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(void(VECTOR, INDICES, INDICES, TENSOR, MATRIX, MATRIX, VECTOR, INDICES, MATRIX, TENSOR, MATRIX, MATRIX,
           MATRIX), cache=True, fastmath=ORDERED_MATH)
def feet_positions(encoders, parents, indices, rotations, translations, axes, prismatic, foot_joints,
                   foot_translations, frame_rotations, frame_translations, out, scratch):
    """Each foot's position in the base (``out``, k × 3) at the ``encoders``' values (see the
    module): ``parents`` (n,) each joint's parent in the list (−1: the base), ``indices``
    (n,) its encoder, ``rotations`` (n × 3 × 3) and ``translations`` (n × 3) its placement in
    its parent, ``axes`` (n × 3), ``prismatic`` (n,) 1 for a prismatic joint;
    ``foot_joints`` (k,) and ``foot_translations`` (k × 3) the feet's joints and offsets;
    ``frame_rotations`` (n × 3 × 3), ``frame_translations`` (n × 3) and ``scratch`` (7 × 3)
    work space."""
    exp, motion, offset = scratch[0:3], scratch[3:6], scratch[6]
    for j in range(parents.size):
        value = encoders[indices[j]]
        R, t = rotations[j], translations[j]
        # the joint's frame in its parent: M_j · (its motion)
        if prismatic[j] > 0.0:
            for i in range(3):
                offset[i] = t[i] + value * (R[i, 0] * axes[j, 0] + R[i, 1] * axes[j, 1] + R[i, 2] * axes[j, 2])
                for m in range(3):
                    motion[i, m] = R[i, m]
        else:
            exp3(axes[j, 0] * value, axes[j, 1] * value, axes[j, 2] * value, exp)
            _product(R, exp, motion)
            for i in range(3):
                offset[i] = t[i]
        parent = parents[j]
        if parent < 0:
            for i in range(3):
                frame_translations[j, i] = offset[i]
                for m in range(3):
                    frame_rotations[j, i, m] = motion[i, m]
        else:
            PR, Pt = frame_rotations[parent], frame_translations[parent]
            for i in range(3):
                frame_translations[j, i] = Pt[i] + PR[i, 0] * offset[0] + PR[i, 1] * offset[1] + PR[i, 2] * offset[2]
            _product(PR, motion, frame_rotations[j])
    for f in range(foot_joints.size):
        j = foot_joints[f]
        R, t = frame_rotations[j], frame_translations[j]
        for i in range(3):
            out[f, i] = t[i] + R[i, 0] * foot_translations[f, 0] + R[i, 1] * foot_translations[f, 1] \
                + R[i, 2] * foot_translations[f, 2]


feet_positions_inline = inlined(feet_positions)


class LegKinematics:
    """The chains of ``robot`` from its floating base to the frames ``frames`` (see the
    module); ``supported`` is False when a joint on them is not a one-dof revolute or
    prismatic joint (the caller then uses pinocchio)."""

    def __init__(self, robot, frames):
        model = robot.model
        chain = sorted({joint for frame in frames for joint in model.supports[model.frames[frame].parentJoint]
                        if joint > 1})
        data = model.createData()
        q = pin.neutral(model)
        pin.computeJointJacobians(model, data, q)
        self.supported = True
        parents, indices, rotations, translations, axes, prismatic = [], [], [], [], [], []
        position = {joint: i for i, joint in enumerate(chain)}
        for joint in chain:
            if model.joints[joint].nv != 1 or model.joints[joint].nq != 1:
                self.supported = False
                break
            subspace = pin.getJointJacobian(model, data, joint, pin.LOCAL)[:, model.joints[joint].idx_v]
            linear, angular = subspace[:3], subspace[3:]
            if np.allclose(linear, 0.0) and np.isclose(np.linalg.norm(angular), 1.0):
                axes.append(angular)
                prismatic.append(0.0)
            elif np.allclose(angular, 0.0) and np.isclose(np.linalg.norm(linear), 1.0):
                axes.append(linear)
                prismatic.append(1.0)
            else:
                self.supported = False
                break
            placement = model.jointPlacements[joint]
            parents.append(position.get(model.parents[joint], -1))
            indices.append(model.joints[joint].idx_q - 7)
            rotations.append(placement.rotation)
            translations.append(placement.translation)
        n = len(chain)
        self.parents = np.array(parents, dtype=np.intp)
        self.indices = np.array(indices, dtype=np.intp)
        self.rotations = np.array(rotations, dtype=float).reshape(len(rotations), 3, 3)
        self.translations = np.array(translations, dtype=float).reshape(len(translations), 3)
        self.axes = np.array(axes, dtype=float).reshape(len(axes), 3)
        self.prismatic = np.array(prismatic, dtype=float)
        self.foot_joints = np.array([position.get(model.frames[f].parentJoint, 0) for f in frames], dtype=np.intp)
        self.foot_translations = np.array([model.frames[f].placement.translation for f in frames], dtype=float)
        self.frame_rotations = np.zeros((n, 3, 3))
        self.frame_translations = np.zeros((n, 3))
        self.scratch = np.zeros((7, 3))
        if any(model.frames[f].parentJoint <= 1 for f in frames):
            self.supported = False                  # a foot on the base itself: nothing to compute here

    def positions(self, encoders: np.ndarray, out: np.ndarray) -> None:
        """The feet's positions in the base (``out``, k × 3) at ``encoders`` (na,)."""
        feet_positions(encoders, self.parents, self.indices, self.rotations, self.translations, self.axes,
                       self.prismatic, self.foot_joints, self.foot_translations, self.frame_rotations,
                       self.frame_translations, out, self.scratch)
