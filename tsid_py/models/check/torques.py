"""The model check of gravity torques against the torque limits (see :mod:`tsid_py.models.check`).

The smallest ``t`` such that contact wrenches ``f`` hold the standing posture with every
actuated torque ``|τᵢ| ≤ t τᵢ,max`` is the linear program

    min t  subject to  g_b(q) = Σ_k J_b,kᵀ f_k                  (the floating base's equilibrium)
                       |g_a(q) − Σ_k J_a,kᵀ f_k|ᵢ ≤ t τᵢ,max     (each actuated joint with a limit)
                       f_z ≥ 0,  |f_x|, |f_y| ≤ μ/√2 f_z         (unilateral, inside the friction cone)
                       |m_x| ≤ W/2 f_z,  |m_y| ≤ L/2 f_z          (the centre of pressure on an L × W sole)

with ``g(q)`` the generalized gravity (N·m, N), ``J_k`` the contact frame's jacobian in its
own axes (a sole's 6 rows, a point foot's 3) and ``f_k`` its wrench in those axes (HiGHS,
through scipy). ``t > 1``: no way of standing there within the torque limits. A fixed-base
robot has no contact: ``t = max |g_a(q)ᵢ| / τᵢ,max``. Joints without a limit (0 or none in
the file, as the library's ``TorqueLimits`` reads them) are left out.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .report import Finding, finding
from .urdf_text import listed

#: The gravity torque fraction of a limit above which a warning is given (an error above 1).
TORQUE_MARGIN = 0.8


def dof_names(robot) -> list[str]:
    """A name per actuated degree of freedom (a multi-dof joint's as ``name[k]``)."""
    model, offset = robot.model, 6 if robot.floating_base else 0
    names: list[str | None] = [None] * robot.na
    for name in robot.joint_names:
        if robot.has_1dof_joint(name):
            names[robot.joint_v_index(name) - offset] = name
    for joint in range(2 if robot.floating_base else 1, model.njoints):
        for k in range(model.nvs[joint]):
            index = model.idx_vs[joint] + k - offset
            if names[index] is None:
                names[index] = model.names[joint] + (f"[{k}]" if model.nvs[joint] > 1 else "")
    return names


def static_torque_ratio(robot, q: np.ndarray, mu: float, feet=None) -> dict | None:
    """The smallest fraction ``t`` of the torque limits that holds ``robot`` at ``q`` on the
    contact frames ``feet`` (None: all of its feet; see the module): ``{"ratio", "joint",
    "torque", "limit"}`` for the joint that needs the most of its limit, ``{"ratio": inf}``
    when no contact wrenches hold it, None when no joint has a torque limit."""
    from scipy.optimize import linprog

    model, data = robot.model, robot.model.createData()
    limits = np.array(robot.effort_limits, dtype=float)
    limited = np.flatnonzero(np.isfinite(limits) & (limits > 0) & (limits < 1e300))
    if not limited.size:
        return None
    gravity = pin.computeGeneralizedGravity(model, data, q)
    first = 6 if robot.floating_base else 0
    names = dof_names(robot)
    if not robot.floating_base or not robot.feet:
        ratios = np.abs(gravity[first:][limited]) / limits[limited]
        worst = limited[int(np.argmax(ratios))]
        return {"ratio": float(ratios.max()), "joint": names[worst], "torque": float(gravity[first + worst]),
                "limit": float(limits[worst])}
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    columns, rows = [], []
    friction = mu / np.sqrt(2.0)
    for foot in robot.feet if feet is None else feet:
        jacobian = pin.getFrameJacobian(model, data, robot.frame_id(foot), pin.LOCAL)
        sole = robot.sole_size is not None
        jacobian = jacobian if sole else jacobian[:3]
        start, size = sum(block.shape[0] for block in columns), jacobian.shape[0]
        columns.append(jacobian)
        fx, fy, fz = start, start + 1, start + 2
        cone = [(fz, -1.0, None)] + [(axis, sign, friction) for axis in (fx, fy) for sign in (1.0, -1.0)]
        if sole:
            length, width = robot.sole_size
            cone += [(start + 3, sign, width / 2) for sign in (1.0, -1.0)]
            cone += [(start + 4, sign, length / 2) for sign in (1.0, -1.0)]
        rows += [(variable, sign, bound, fz, size) for variable, sign, bound in cone]
    jacobians = np.vstack(columns)                        # (n_f, nv): τ_gen = Jᵀ f
    count = jacobians.shape[0]
    upper_rows, upper_bounds = [], []
    for variable, sign, bound, normal, _ in rows:         # sign·f_var − bound·f_z ≤ 0
        row = np.zeros(count + 1)
        row[variable] = sign
        if bound is not None:
            row[normal] -= bound
        upper_rows.append(row)
        upper_bounds.append(0.0)
    actuated = jacobians[:, first:].T                    # (na, n_f)
    for index in limited:                                 # |g_a − J_aᵀ f| ≤ t τ_max
        for sign in (1.0, -1.0):
            row = np.zeros(count + 1)
            row[:count] = -sign * actuated[index]
            row[count] = -limits[index]
            upper_rows.append(row)
            upper_bounds.append(-sign * gravity[first + index])
    equality = np.hstack([jacobians[:, :first].T, np.zeros((first, 1))])
    cost = np.zeros(count + 1)
    cost[count] = 1.0
    result = linprog(cost, A_ub=np.array(upper_rows), b_ub=np.array(upper_bounds), A_eq=equality,
                     b_eq=gravity[:first], bounds=[(None, None)] * count + [(0, None)], method="highs")
    if result.status != 0:
        return {"ratio": float("inf"), "joint": None, "torque": None, "limit": None}
    torque = gravity[first:] - actuated @ result.x[:count]
    ratios = np.abs(torque[limited]) / limits[limited]
    worst = limited[int(np.argmax(ratios))]
    return {"ratio": float(result.x[count]), "joint": names[worst], "torque": float(torque[worst]),
            "limit": float(limits[worst])}


def torque_findings(robot, facts: dict, file: str) -> list[Finding]:
    """Gravity torques of the standing posture against the torque limits."""
    profile = getattr(robot, "profile", None)
    mu = profile.balance.mu if profile is not None else 0.5
    result = static_torque_ratio(robot, robot.q_ref, mu)
    if result is None:
        return []
    facts.update(gravity_torque_ratio=result["ratio"], gravity_torque_joint=result["joint"])
    if not np.isfinite(result["ratio"]):
        return [finding(
            "error", "cannot-stand", file, "the standing posture",
            f"no contact wrenches on the feet {list(robot.feet)} (unilateral, friction {mu:g}, centre of pressure on "
            "the soles) hold the robot still at its standing posture", "choose a posture with the centre of mass "
            "over the feet (see com-outside-support)", None)]
    ratio, joint = result["ratio"], result["joint"]
    how = "holding the standing posture" if robot.floating_base and robot.feet else "holding the posture against gravity"
    text = (f"{how} needs at least {ratio:.2f} of the torque limits: joint {joint!r} {abs(result['torque']):.4g} "
            f"N·m of its {result['limit']:.4g} N·m (the least any distribution of the contact forces allows)")
    values = {"ratio": ratio, "joint": joint, "torque": result["torque"], "limit": result["limit"]}
    if ratio > 1:
        return [finding("error", "gravity-above-torque-limits", file, f"joint {joint!r}", text,
                        "the robot cannot hold this posture within its limits (TorqueLimits makes the QP "
                        "infeasible; the failure policy relaxes it): raise the URDF <limit effort> if the actuator "
                        "allows, or choose a posture with less load on that joint", None, **values)]
    if ratio > TORQUE_MARGIN:
        return [finding("warning", "gravity-near-torque-limits", file, f"joint {joint!r}", text,
                        f"little is left for motion ({1 - ratio:.0%} of the limit): lower the posture's load on it",
                        None, **values)]
    return []


def passive_findings(robot, file: str) -> list[Finding]:
    """An MJCF file's joints that no actuator drives (the loader names them passive,
    :mod:`tsid_py.loaders.mjcf_closures`), and its closed chains: what the solver holds."""
    if robot.source is None or robot.source.kind != "mjcf":
        return []
    found = []
    passive = list(robot.passive_joints)
    if passive:
        found.append(finding(
            "note", "passive-joints", file, f"joints {listed(passive)}",
            f"{len(passive)} joint(s) have no actuator in the file: MuJoCo applies no torque to them",
            "the solver holds their torque at 0 (rows of the equation of motion, DynamicsSolver.passive_joints); "
            "give them an actuator if the real joints have one", "library", joints=passive))
    closures = [closure.name for closure in robot.closures]
    if closures:
        found.append(finding(
            "note", "closed-chains", file, f"equalities {listed(closures)}",
            f"{len(closures)} equality constraint(s) close chains or couple joints (MuJoCo simulates them as the "
            "file says)", "the solver holds each as a constraint of the equation of motion, its force a variable "
            "(tsid_py.closures); stiff equalities (solref near two time steps, solimp near 1) keep MuJoCo's loops "
            "as closed as the controller assumes", "library", closures=closures))
    return found
