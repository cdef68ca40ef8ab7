"""Joints that move no mass, and why a robot's profile holds them.

A joint ``j`` whose whole subtree (the links it moves, with the links fixed to them) has zero
mass and zero rotational inertia contributes nothing to the equation of motion
``M(q) q̈ + h(q, v) = τ + Σ Jᵀ f``: column and row ``j`` of ``M`` are zero at every ``q``
(``M = Σ_b J_bᵀ I_b J_b`` over the bodies ``b`` it moves, each ``I_b = 0``), and so is
``h_j``. Two things follow, whatever the robot:

* **no torque can act on it**: ``τ_j = M_j q̈ + h_j = 0``; any other torque gives an unbounded
  acceleration. A torque controller therefore leaves it unactuated (its QP gives ``τ_j = 0``
  exactly), and the joint is free: in a simulator that must give its links *some* mass
  (MuJoCo refuses a moving body without one: the harness gives ``1e-6`` kg and
  ``1e-10`` kg·m², :mod:`tsid_py.sim.inertia`) it swings as a near-massless pendulum chain,
  thrown about by the links it hangs from, past its joint limits (MuJoCo's limits are soft);
* **holding it changes nothing else**: with no mass it exerts no force on the rest of the
  robot, so the robot's motion is the same whether the joint swings or stands still.

A model file with such joints describes a mechanism it does not give the dynamics of (a hand
whose links have no inertia: example-robot-data's Romeo). Its real drive holds it; so does
the library: the profile lists them (:attr:`~tsid_py.models.profile.RobotProfile.held_joints`)
and the MuJoCo harness locks each at the posture's value (a joint equality). The controller's
model keeps them (``q`` and ``v`` keep their size); they read still at the posture, inside
their limits, so their limit rows and couplings never conflict.

A joint coupled by a mimic relation (``q_m = k q_p + b``) to a joint that moves mass is not
held: through the coupling it moves that mass (the primary's motor carries the mimic joint's
torque), so holding one would hold the other.
"""

from __future__ import annotations

import numpy as np


def joints_moving_no_mass(robot) -> tuple[str, ...]:
    """The names of ``robot``'s joints that move no mass (see the module), in model order:
    the subtree of each has zero mass and zero rotational inertia, and no mimic coupling ties
    it to a joint whose subtree has. The root joint (a free flyer) is never among them."""
    model = robot.model
    first = 2 if robot.floating_base else 1
    empty = set()
    for joint in range(first, model.njoints):
        if all(_massless(model.inertias[k]) for k in model.subtrees[joint]):
            empty.add(model.names[joint])
    couplings = [(c.joint, c.primary) for c in getattr(robot, "mimic_joints", ())]
    changed = True
    while changed:                     # a coupling to a joint that moves mass frees both
        changed = False
        for mimic, primary in couplings:
            if (mimic in empty) != (primary in empty):
                empty.discard(mimic)
                empty.discard(primary)
                changed = True
    return tuple(model.names[j] for j in range(first, model.njoints) if model.names[j] in empty)


def _massless(inertia) -> bool:
    """Whether a pinocchio ``Inertia`` has zero mass and zero rotational inertia."""
    return inertia.mass == 0.0 and not np.any(inertia.inertia)
