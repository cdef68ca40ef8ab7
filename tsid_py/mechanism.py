"""The torque map of a parallel mechanism: joint-space torques to actuator torques and back.

A closed chain moves with fewer degrees of freedom than it has joints. Choose the joints that
describe its motion — the *joint space*, e.g. an ankle's pitch and roll, which a serial model
of the robot would drive directly — and let the closures' other joints follow: with the
closures' Jacobian ``J_c`` (m × nv, :mod:`tsid_py.closures`) split into the columns of the
``m`` dependent joints ``w`` and of the others ``u`` (the joint space, and every joint and root
coordinate the closures do not involve),

    J_w v_w + J_u v_u = 0   ⇒   v_w = H v_u,   H = −J_w⁻¹ J_u

(``J_w`` must be invertible: the joint space is a valid choice of coordinates there). The
actuators among the dependent joints (a rod's motor) then move as ``v_a = A v_joint`` with
``A = H[a, joint space]``, and by virtual work their torques act on the joint space as

    τ_joint = Aᵀ τ_a,        τ_a = A⁻ᵀ τ_joint

(square when the mechanism has as many actuators as joint-space coordinates). ``τ_joint`` is
the generalised force the actuators exert along the joint space: the torque a serial model's
controller asks of an ankle becomes the torques of the ankle's two motors. Reduced to the
joint space, the closed mechanism's equation of motion reads ``Gᵀ(M q̈ + h − Σ Jᵢᵀfᵢ) = Gᵀ Sᵀτ``
(``v = G v_u``), so the solver's motor torques are ``A⁻ᵀ`` of the joint-space torques its
solution needs (``tests/test_closures.py`` checks it against finite differences).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import as_vector

#: ``J_w`` is refused as singular when its smallest singular value is below this times its largest.
SINGULAR_TOLERANCE = 1e-9


@dataclass(frozen=True)
class ActuationMap:
    """The map at one state (see the module): ``joints`` (the joint space), ``actuators``
    (the actuated dependent joints) and ``jacobian`` ``A`` (len(actuators) × len(joints)):
    ``v_actuators = A v_joints``."""

    joints: tuple[str, ...]
    actuators: tuple[str, ...]
    jacobian: np.ndarray

    def joint_torques(self, actuator_torques) -> np.ndarray:
        """``τ_joint = Aᵀ τ_a`` (N·m): the generalised force the actuators exert along the
        joint space."""
        return self.jacobian.T @ as_vector(actuator_torques, "actuator_torques", len(self.actuators))

    def actuator_torques(self, joint_torques) -> np.ndarray:
        """``τ_a = A⁻ᵀ τ_joint`` (N·m): the actuators' torques that exert ``joint_torques`` along
        the joint space; ``ValueError`` when the mechanism has not as many actuators as
        joint-space coordinates (``A`` not square)."""
        if self.jacobian.shape[0] != self.jacobian.shape[1]:
            raise ValueError(f"the mechanism has {len(self.actuators)} actuators {list(self.actuators)} for "
                             f"{len(self.joints)} joint-space coordinates {list(self.joints)}: no unique actuator "
                             "torques (A is not square)")
        return np.linalg.solve(self.jacobian.T, as_vector(joint_torques, "joint_torques", len(self.joints)))


def actuation_map(robot, closures: Sequence, joints: Sequence[str], passive: Sequence[str] | None = None
                  ) -> ActuationMap:
    """The :class:`ActuationMap` of the mechanism the ``closures`` (bound to ``robot``, e.g. a
    solver's ``solver.closures.values()``) make, at the robot's last update.

    ``joints``: the joint space (1-dof joint names) within the closures' joints. The dependent
    joints are the closures' other joints; the actuators are those of them not in ``passive``
    (default: the robot's :attr:`~tsid_py.Robot.passive_joints`). ``ValueError`` when the
    dependent joints are not as many as the closures' rows, or their Jacobian is singular."""
    closures = list(closures)
    if not closures:
        raise ValueError("closures must hold at least one closure (a solver's closures.values())")
    passive = set(robot.passive_joints if passive is None else passive)
    jacobian = np.vstack([closure.compute(robot).jacobian for closure in closures])
    names = {robot.joint_v_index(name): name for name in robot.scalar_joint_names}
    joint_columns = [robot.joint_v_index(name) for name in joints]
    involved = sorted(set().union(*(closure.columns for closure in closures)))
    dependent = [j for j in involved if j not in joint_columns]
    free = [j for j in range(robot.nv) if j not in dependent]
    if len(dependent) != jacobian.shape[0]:
        raise ValueError(f"the closures' {jacobian.shape[0]} rows need as many dependent joints; with the joint space "
                         f"{list(joints)} there are {len(dependent)}: {[names.get(j, j) for j in dependent]}")
    block = jacobian[:, dependent]
    singular = np.linalg.svd(block, compute_uv=False)
    if singular[-1] <= SINGULAR_TOLERANCE * singular[0]:
        raise ValueError(f"the joint space {list(joints)} does not describe the mechanism here: the closures' "
                         "Jacobian over the dependent joints is singular "
                         f"(σ_min/σ_max = {singular[-1] / singular[0]:.3g})")
    follow = -np.linalg.solve(block, jacobian[:, free])           # H: v_dependent = H v_free
    actuated = [k for k, j in enumerate(dependent) if j in names and names[j] not in passive]
    columns = [free.index(j) for j in joint_columns]
    return ActuationMap(tuple(joints), tuple(names[dependent[k]] for k in actuated),
                        follow[np.ix_(actuated, columns)])
