"""The profile's held joints in the MuJoCo plant: each locked at the posture by a joint equality
(:attr:`~tsid_py.models.profile.RobotProfile.held_joints`; by default the joints that move no
mass, :mod:`tsid_py.models.held`, which says why)."""

from __future__ import annotations

import numpy as np

from ..models.profile import profile_of


def hold_joints(spec, robot, mujoco) -> tuple[str, ...]:
    """Lock the profile's held joints (:attr:`~tsid_py.models.profile.RobotProfile.held_joints`,
    by default the joints that move no mass, :mod:`tsid_py.models.held`) at the posture's value:
    a joint equality ``q_j = q_ref_j`` each (one-degree-of-freedom joints; MuJoCo writes it
    from the joint's ``ref``, 0 for a URDF's), as stiff as MuJoCo integrates stably (a time
    constant of two time steps, critically damped: MuJoCo's default 0.02 s lets the links the
    joint hangs from swing it by centiradians). Returns the joints held."""
    model, posture = robot.model, profile_of(robot).posture
    held = []
    for name in profile_of(robot).held_joints:
        joint = model.getJointId(name)
        found = spec.joint(name)
        if found is None or model.nvs[joint] != 1:
            continue
        q = posture[model.idx_qs[joint]:model.idx_qs[joint] + model.nqs[joint]]
        value = float(np.arctan2(q[1], q[0])) if q.size == 2 else float(q[0])      # a continuous joint: (cos, sin)
        data = np.zeros(mujoco.mjNEQDATA)
        data[0] = value - float(np.atleast_1d(found.ref)[0])
        spec.add_equality(type=mujoco.mjtEq.mjEQ_JOINT, name1=name, data=data,
                          solref=[2.0 * spec.option.timestep, 1.0])
        held.append(name)
    return tuple(held)
