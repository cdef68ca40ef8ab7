"""What an MJCF file says about its closed chains and its passive joints, read from MuJoCo's
compiled model (so that defaults, sites and the anchors MuJoCo computes are as it simulates
them).

**Equalities** (``<equality>``), each active one (``active="true"``, the default) a closure
of :attr:`~tsid_py.loaders.source.ModelSource.closures`, in MuJoCo's own terms:

* ``connect`` → :class:`~tsid_py.loaders.source.PointJoin`: body 1's anchor (``eq_data[0:3]``,
  body 1's axes) on body 2's (``eq_data[3:6]``, which MuJoCo computes from ``qpos0``), or the
  two sites' origins;
* ``weld`` → :class:`~tsid_py.loaders.source.FrameJoin`: MuJoCo holds ``x₁ + R₁ p_rel`` on
  ``x₂ + R₂ a`` (``p_rel = eq_data[3:6]``, the anchor ``a = eq_data[0:3]``) and the rotation
  ``q₁ q_rel`` on ``q₂`` (``q_rel = eq_data[6:10]``): the placements ``(p_rel, q_rel)`` on
  body 1 and ``(a, 1)`` on body 2 coincide; for sites, the sites' frames. A weld whose
  ``torquescale`` is 0 holds no rotation: a point join;
* ``joint`` and ``tendon`` → :class:`~tsid_py.loaders.source.CoordinateCoupling`:
  ``s₁ − s₁⁰ = Σₖ aₖ (s₂ − s₂⁰)ᵏ`` with ``aₖ = eq_data[0:5]``, ``sᵢ`` a joint's position or a
  fixed tendon's length ``Σ cⱼ qⱼ`` (its joint wraps' coefficients) and ``sᵢ⁰`` their values at
  ``qpos0``. A spatial tendon (its length a path through sites) is refused by name.

Bodies become their pinocchio body frames (the same placements as MuJoCo's body frames), the
world body pinocchio's ``"universe"``.

**Passive joints**: when the file has actuators, the hinge and slide joints none of them drives
(a joint transmission, or a fixed tendon through the joint). When an actuator acts otherwise
(a site, body or slider-crank transmission), which joints it moves is not read here: no joint
is called passive.
"""

from __future__ import annotations

import numpy as np

from .source import CoordinateCoupling, FrameJoin, PointJoin

#: pinocchio's name of the world frame.
WORLD_FRAME = "universe"


def closures(mj, path: str) -> tuple:
    """The closures of the compiled MuJoCo model ``mj`` read from the file at ``path`` (see
    the module), in the file's order; ``ValueError`` naming the file and the equality for a
    kind that cannot be one (a spatial tendon, a flex)."""
    import mujoco

    found = []
    for index in range(mj.neq):
        if not mj.eq_active0[index]:
            continue
        kind, data = int(mj.eq_type[index]), np.array(mj.eq_data[index], dtype=float)
        name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_EQUALITY, index) or f"equality {index}"
        first, second = int(mj.eq_obj1id[index]), int(mj.eq_obj2id[index])
        on_sites = int(mj.eq_objtype[index]) == mujoco.mjtObj.mjOBJ_SITE
        if kind == mujoco.mjtEq.mjEQ_CONNECT or (kind == mujoco.mjtEq.mjEQ_WELD and data[10] == 0.0):
            if on_sites:
                ends = [_site_point(mj, site) for site in (first, second)]
            elif kind == mujoco.mjtEq.mjEQ_CONNECT:
                ends = [(_body_frame(mj, first), data[0:3]), (_body_frame(mj, second), data[3:6])]
            else:
                ends = [(_body_frame(mj, first), data[3:6]), (_body_frame(mj, second), data[0:3])]
            found.append(PointJoin(name, ends[0][0], _floats(ends[0][1]), ends[1][0], _floats(ends[1][1])))
        elif kind == mujoco.mjtEq.mjEQ_WELD:
            if on_sites:
                ends = [_site_frame(mj, site) for site in (first, second)]
            else:
                ends = [(_body_frame(mj, first), _placement(data[3:6], data[6:10])),
                        (_body_frame(mj, second), _placement(data[0:3], (1.0, 0.0, 0.0, 0.0)))]
            found.append(FrameJoin(name, ends[0][0], ends[0][1], ends[1][0], ends[1][1]))
        elif kind in (mujoco.mjtEq.mjEQ_JOINT, mujoco.mjtEq.mjEQ_TENDON):
            coordinate = _joint_coordinate if kind == mujoco.mjtEq.mjEQ_JOINT else _tendon_coordinate
            terms1, reference1 = coordinate(mj, first, path, name)
            terms2, reference2 = coordinate(mj, second, path, name) if second >= 0 else ((), 0.0)
            found.append(CoordinateCoupling(name, terms1, terms2, _floats(data[0:5]), (reference1, reference2)))
        else:
            raise ValueError(f"{path}: equality {name!r} is a {mujoco.mjtEq(kind).name[5:].lower()} equality; the "
                             "solver holds connect, weld, joint and fixed-tendon equalities only (remove it or make "
                             "it inactive, active=\"false\")")
    return tuple(found)


def within_the_model(model, components, found: tuple, passive: tuple[str, ...], path: str) -> tuple[tuple, tuple]:
    """The closures and passive joints of the robot's model (pinocchio reads the world's first
    body tree only): a closure that involves a body or joint of another tree is left out with a
    warning naming it (the solver cannot hold it; the simulator still does)."""
    import warnings

    joints = set(model.names) | {name for name, _, _ in components}
    kept = []
    for closure in found:
        if isinstance(closure, CoordinateCoupling):
            missing = [joint for joint, _ in closure.first + closure.second if joint not in joints]
        else:
            missing = [frame for frame in (closure.frame1, closure.frame2) if not model.existFrame(frame)]
        if missing:
            warnings.warn(f"{path}: equality {closure.name!r} involves {missing}, outside the robot's model (the "
                          "world's first body tree): the controller does not hold it", UserWarning, stacklevel=4)
        else:
            kept.append(closure)
    return tuple(kept), tuple(joint for joint in passive if joint in joints)


def passive_joints(mj) -> tuple[str, ...]:
    """The hinge and slide joints of ``mj`` that no actuator drives (see the module), by name."""
    import mujoco

    if mj.nu == 0:
        return ()
    driven = set()
    for actuator in range(mj.nu):
        transmission, target = int(mj.actuator_trntype[actuator]), int(mj.actuator_trnid[actuator, 0])
        if transmission in (mujoco.mjtTrn.mjTRN_JOINT, mujoco.mjtTrn.mjTRN_JOINTINPARENT):
            driven.add(target)
        elif transmission == mujoco.mjtTrn.mjTRN_TENDON and _is_fixed(mj, target):
            driven.update(int(mj.wrap_objid[wrap]) for wrap in _wraps(mj, target))
        else:
            return ()
    one_dof = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    names = [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, joint) for joint in range(mj.njnt)
             if joint not in driven and int(mj.jnt_type[joint]) in one_dof]
    return tuple(name for name in names if name)


def _floats(values) -> tuple[float, ...]:
    return tuple(float(value) for value in values)


def _placement(position, quaternion_wxyz) -> tuple[float, ...]:
    """``(x, y, z, qx, qy, qz, qw)`` from a position and MuJoCo's ``w x y z`` quaternion."""
    w, x, y, z = quaternion_wxyz
    return _floats((*position, x, y, z, w))


def _body_frame(mj, body: int) -> str:
    import mujoco

    return WORLD_FRAME if body == 0 else mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, body)


def _site_point(mj, site: int) -> tuple[str, np.ndarray]:
    return _body_frame(mj, int(mj.site_bodyid[site])), np.array(mj.site_pos[site])


def _site_frame(mj, site: int) -> tuple[str, tuple[float, ...]]:
    return _body_frame(mj, int(mj.site_bodyid[site])), _placement(mj.site_pos[site], mj.site_quat[site])


def _joint_coordinate(mj, joint: int, path: str, equality: str) -> tuple[tuple[tuple[str, float], ...], float]:
    """``((name, 1),)`` and the joint's position at ``qpos0``."""
    import mujoco

    name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, joint)
    if not name or int(mj.jnt_type[joint]) not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
        raise ValueError(f"{path}: equality {equality!r} couples joint {name or joint!r}, which is not a named "
                         "hinge or slide joint")
    return ((name, 1.0),), float(mj.qpos0[mj.jnt_qposadr[joint]])


def _is_fixed(mj, tendon: int) -> bool:
    import mujoco

    return all(int(mj.wrap_type[wrap]) == mujoco.mjtWrap.mjWRAP_JOINT for wrap in _wraps(mj, tendon))


def _wraps(mj, tendon: int) -> range:
    return range(int(mj.tendon_adr[tendon]), int(mj.tendon_adr[tendon] + mj.tendon_num[tendon]))


def _tendon_coordinate(mj, tendon: int, path: str, equality: str) -> tuple[tuple[tuple[str, float], ...], float]:
    """The fixed tendon's joints with their coefficients, and its length at ``qpos0``."""
    import mujoco

    name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_TENDON, tendon) or f"#{tendon}"
    if not _is_fixed(mj, tendon):
        raise ValueError(f"{path}: equality {equality!r} couples tendon {name!r}, a spatial tendon (its length a path "
                         "through sites); the solver holds fixed tendons (joint coefficients) only")
    terms = []
    for wrap in _wraps(mj, tendon):
        joint, _ = _joint_coordinate(mj, int(mj.wrap_objid[wrap]), path, equality)
        terms.append((joint[0][0], float(mj.wrap_prm[wrap])))
    return tuple(terms), float(mj.tendon_length0[tendon])
