"""Joint couplings as a task: mimic-style relations ``q_m = k q_p + b`` you ask for.

The task asks for the relation's second derivative, ``q̈_m − k q̈_p = Kp e + Kd ė`` with
``e = b − (q_m − k q_p)``, hard by default (or soft, or at a level: a coupling that is a
preference, not a mechanism). Both joints keep their own torques. A model file's mimic joints
are not held this way: the solver holds them as closures of the mechanism whose force is a
variable, the mimic joint passive, so that the primary joint's motor carries the pair
(:class:`tsid_py.closures.JointCoupling`, :doc:`closures`). Given a motion, the motor on the
primary joint of a pair held by this task would deliver ``τ_p + k τ_m`` (the pair's virtual
work).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..rows import PDKinematics
from .base import PDTask


class JointCouplingTask(PDTask):
    """Keep mimic joints on their primary joints: ``q̈_m − k q̈_p = Kp e + Kd ė``, one axis per
    coupling, ``e = b − (q_m − k q_p)`` (rad or m).

    Parameters
    ----------
    couplings : the couplings, each with ``joint`` (the mimic joint), ``primary``,
        ``multiplier`` (k) and ``offset`` (b) attributes — :attr:`tsid_py.Robot.mimic_joints`.
    kp, kd, weight, priority, mask, name : as for :class:`PDTask` (``kp`` 1/s², default
        100; hard by default: the linkage is rigid).
    """

    def __init__(self, couplings: Sequence, *, kp=100.0, kd=None, weight=1.0, priority: str | int = "hard", mask=None,
                 name: str | None = None):
        couplings = tuple(couplings)
        if not couplings:
            raise ValueError("couplings must name at least one mimic joint, got none")
        for coupling in couplings:
            multiplier, offset = getattr(coupling, "multiplier", None), getattr(coupling, "offset", None)
            if not all(isinstance(getattr(coupling, key, None), str) for key in ("joint", "primary")) or not all(
                    isinstance(value, (int, float)) and np.isfinite(value) for value in (multiplier, offset)):
                raise ValueError("each coupling must have string 'joint' and 'primary' and finite 'multiplier' and "
                                 f"'offset' attributes (a tsid_py.loaders.source.MimicJoint), got {coupling!r}")
        self.couplings = couplings
        super().__init__(len(couplings), kp=kp, kd=kd, weight=weight, priority=priority, mask=mask, name=name)

    def bind(self, robot) -> None:
        """Map the joints to their indices in ``q`` and ``v``; ``ValueError`` for a joint that
        is not revolute or prismatic."""
        for coupling in self.couplings:
            for name in (coupling.joint, coupling.primary):
                if not robot.has_1dof_joint(name):
                    raise ValueError(f"coupling {coupling!r}: joint {name!r} of robot {robot.name!r} is not a "
                                     f"revolute or prismatic joint; such joints: {robot.scalar_joint_names}")
        self._q_mimic = np.array([robot.joint_q_index(c.joint) for c in self.couplings])
        self._q_primary = np.array([robot.joint_q_index(c.primary) for c in self.couplings])
        self._multiplier = np.array([c.multiplier for c in self.couplings], dtype=float)
        self._offset = np.array([c.offset for c in self.couplings], dtype=float)
        self._jacobian = np.zeros((self.dim, robot.nv))
        rows = np.arange(self.dim)
        self._jacobian[rows, [robot.joint_v_index(c.joint) for c in self.couplings]] = 1.0
        np.add.at(self._jacobian, (rows, [robot.joint_v_index(c.primary) for c in self.couplings]),
                  -self._multiplier)
        self._drift = np.zeros(self.dim)

    def kinematics(self, robot) -> PDKinematics:
        """``e = b − (q_m − k q_p)``; ``J = e_mᵀ − k e_pᵀ`` per coupling; no drift (the
        coupling is linear in q)."""
        q = robot.q
        error = self._offset - (q[self._q_mimic] - self._multiplier * q[self._q_primary])
        return PDKinematics(error, self._jacobian, self._drift, 0)

    def __repr__(self) -> str:
        return f"{self.name}({len(self.couplings)} couplings, priority={self.priority!r})"
