"""Read an MJCF (MuJoCo XML) file into a pinocchio model, with its postures and torque limits.

pinocchio's own MJCF reader builds the model (bodies, joints — a body with several joints
becomes one composite joint —, inertias, including those MuJoCo derives from the geoms,
joint ranges, armature). MuJoCo's parser (imported only here, lazily) adds what pinocchio does
not read:

* **joint names** inside composite joints: the file's 1-dof joints by their own names
  (:attr:`~tsid_py.loaders.source.ModelSource.components`), so that a robot addresses them as
  it does any other joint;
* **postures**: the file's ``<keyframe>`` keys, by name and in file order (pinocchio converts
  their ``qpos`` to its own conventions); the first one is the default, else ``qpos0`` (the
  bodies as placed in the file).
* **torque limits** (``model.effortLimit``, N·m or N per dof): per actuated dof the sum over
  its joint actuators of ``|gear| · max|ctrlrange|`` (when control-limited), capped by the
  actuator's ``forcerange`` and the joint's ``actuatorfrcrange`` when those are limited. When
  the file has actuators, a joint none of them drives gets 0 (it is passive); without any
  actuator, the limits stay unbounded.
* **closed chains and passive joints**: the file's ``<equality>`` constraints and the joints no
  actuator drives (:mod:`tsid_py.loaders.mjcf_closures`), which the solver holds as closures
  and ``τ = 0`` rows of the equation of motion.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pinocchio as pin

from .mjcf_closures import closures, passive_joints, within_the_model
from .source import LoadedModel, ModelSource, existing_file


def load_mjcf(path) -> LoadedModel:
    """A pinocchio model of the MJCF file at ``path``, its keyframes as postures and its
    actuators' torque limits (see the module)."""
    path = existing_file(path, "MJCF")
    try:
        model = pin.buildModelFromMJCF(path)
    except (ValueError, RuntimeError) as exc:
        with open(path, errors="replace") as handle:
            includes = "<include" in handle.read()
        hint = "; this file includes others: load the robot's own file (the scene adds a floor anyway)" if includes else ""
        raise ValueError(f"{path}: pinocchio cannot read this MJCF file: {exc}{hint}") from None
    mj = _compiled_without_meshes(path)
    _warn_extra_trees(mj, path)
    _set_effort_limits(model, mj, path)
    postures = _postures(model, mj)
    floating = model.njoints > 1 and model.joints[1].shortname() == "JointModelFreeFlyer"
    components = _composite_components(model, mj)
    held, passive = within_the_model(model, components, closures(mj, path), passive_joints(mj), path)
    source = ModelSource(path=path, kind="mjcf", root_joint=model.names[1] if floating else None,
                         components=components, closures=held, passive=passive)
    return LoadedModel(model, source, postures, next(iter(postures)) if postures else None)


def _compiled_without_meshes(path: str):
    """MuJoCo's compiled model of the file with its mesh geoms left out: joints, actuators and
    keyframes as MuJoCo reads them, without reading (possibly missing) mesh files."""
    import mujoco

    try:
        spec = mujoco.MjSpec.from_file(path)
    except ValueError as exc:
        raise ValueError(f"{path}: MuJoCo cannot parse this MJCF file: {exc}") from None
    for geom in list(spec.geoms):
        if geom.type == mujoco.mjtGeom.mjGEOM_MESH:
            spec.delete(geom)
    for mesh in list(spec.meshes):
        spec.delete(mesh)
    for body in spec.bodies[1:]:
        if not body.explicitinertial:  # its geom-derived inertia may be gone: any valid one will do here
            body.explicitinertial, body.mass, body.inertia = True, 1.0, [1.0, 1.0, 1.0]
    try:
        return spec.compile()
    except ValueError as exc:
        raise ValueError(f"{path}: MuJoCo cannot compile this MJCF file: {exc}") from None


def contact_friction(path, bodies) -> float | None:
    """The sliding friction the MJCF file at ``path`` gives the contacts of its bodies named
    ``bodies`` with the ground, or None when the ground's decides it.

    MuJoCo takes a contact's friction from its geom of higher ``priority`` (the larger of the
    two at equal priority), so a colliding geom of these bodies whose priority is above a
    floor's default 0 sets the friction against any such floor — Unitree's Go2 feet (priority
    1, friction 0.4). The smallest such geom's sliding friction is returned."""
    import mujoco

    spec = mujoco.MjSpec.from_file(os.fspath(path))
    paired = {name for pair in spec.pairs for name in (pair.geomname1, pair.geomname2)}
    frictions = [float(geom.friction[0]) for geom in spec.geoms
                 if geom.parent.name in bodies and geom.priority > 0
                 and (geom.contype or geom.conaffinity or geom.name in paired)]
    return min(frictions) if frictions else None


def _warn_extra_trees(mj, path: str) -> None:
    """pinocchio reads the first body under the world only; say which others it left out."""
    import mujoco

    tops = [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, body) or f"#{body}"
            for body in range(1, mj.nbody) if mj.body_parentid[body] == 0]
    if len(tops) > 1:
        warnings.warn(f"{path}: the world holds {len(tops)} bodies {tops}; the robot's model is the first, "
                      f"{tops[0]!r} (the others are simulated but not controlled)", UserWarning, stacklevel=4)


def _pinocchio_dof(model: pin.Model, mj, joint: int, path: str) -> int:
    """pinocchio's v index of MuJoCo's 1-dof joint ``joint`` (matched by name, or for the
    joints of a multi-joint body by their position in the body's composite joint)."""
    import mujoco

    name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, joint) or ""
    if name and model.existJointName(name):
        return model.idx_vs[model.getJointId(name)]
    body = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, mj.jnt_bodyid[joint])
    if body and model.existFrame(body):
        parent = model.frames[model.getFrameId(body)].parentJoint
        return model.idx_vs[parent] + int(joint - mj.body_jntadr[mj.jnt_bodyid[joint]])
    raise ValueError(f"{path}: joint {name or joint!r} of body {body!r} has no counterpart in pinocchio's model")


def _set_effort_limits(model: pin.Model, mj, path: str) -> None:
    import mujoco

    one_dof = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    if mj.nu == 0:
        return
    first = 6 if model.njoints > 1 and model.joints[1].shortname() == "JointModelFreeFlyer" else 0
    limits = np.zeros(model.nv)
    for actuator in range(mj.nu):
        if int(mj.actuator_trntype[actuator]) not in (mujoco.mjtTrn.mjTRN_JOINT, mujoco.mjtTrn.mjTRN_JOINTINPARENT):
            continue
        joint = mj.actuator_trnid[actuator, 0]
        if int(mj.jnt_type[joint]) not in one_dof:
            continue
        bound = np.inf
        if mj.actuator_ctrllimited[actuator]:
            gain = abs(mj.actuator_gear[actuator, 0] * mj.actuator_gainprm[actuator, 0])
            bound = gain * np.abs(mj.actuator_ctrlrange[actuator]).max()
        if mj.actuator_forcelimited[actuator]:
            bound = min(bound, np.abs(mj.actuator_forcerange[actuator]).max() * abs(mj.actuator_gear[actuator, 0]))
        limits[_pinocchio_dof(model, mj, joint, path)] += bound
    for joint in range(mj.njnt):
        if mj.jnt_actfrclimited[joint] and int(mj.jnt_type[joint]) in one_dof:
            dof = _pinocchio_dof(model, mj, joint, path)
            limits[dof] = min(limits[dof], np.abs(mj.jnt_actfrcrange[joint]).max())
    effort = np.array(model.effortLimit, dtype=float)
    effort[first:] = limits[first:]
    model.effortLimit = effort


def _composite_components(model: pin.Model, mj) -> tuple[tuple[str, int, int], ...]:
    """``(name, composite joint id, position)`` of the hinge and slide joints of each body
    pinocchio made one composite joint of (all of them 1-dof: else the composite is left out)."""
    import mujoco

    components = []
    for joint_id in range(1, model.njoints):
        if model.joints[joint_id].shortname() != "JointModelComposite":
            continue
        body = next(frame.name for frame in model.frames
                    if frame.parentJoint == joint_id and frame.type == pin.FrameType.BODY)
        body_id = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, body)
        joints = range(mj.body_jntadr[body_id], mj.body_jntadr[body_id] + mj.body_jntnum[body_id])
        if any(int(mj.jnt_type[joint]) not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
               for joint in joints):
            continue
        components += [(mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, joint) or f"{model.names[joint_id]}_{k}",
                        joint_id, k) for k, joint in enumerate(joints)]
    return tuple(components)


def _postures(model: pin.Model, mj) -> dict[str, np.ndarray]:
    """Keyframe name → q (pinocchio's conventions), in file order; ``qpos0`` if there is none."""
    import mujoco

    known = {entry.key(): np.array(entry.data()) for entry in model.referenceConfigurations}
    names = [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_KEY, key) or "" for key in range(mj.nkey)]
    postures = {name: known[name] for name in names if name in known}
    if not postures and "qpos0" in known:
        postures["qpos0"] = known["qpos0"]
    return postures


def build_geometry(model: pin.Model, path, kind) -> pin.GeometryModel:
    """pinocchio's ``kind`` (``pin.COLLISION`` or ``pin.VISUAL``) geometry of the MJCF file at
    ``path``, each geom placed where MuJoCo places it.

    pinocchio 4.1 leaves out a geom's ``pos`` when it comes from a ``<default>`` class (Unitree's
    Go2: its foot spheres, ``class="foot"`` at ``pos="-0.002 0 -0.213"``, come at the knee); MuJoCo's
    parser resolves the classes. Each geom is matched to the file's (:func:`_file_geom`) and,
    when MuJoCo gives it as a position and a quaternion (no ``fromto``, no other orientation),
    placed in its body at them."""
    import mujoco

    geometry = pin.buildGeomFromMJCF(model, str(path), kind)
    spec = mujoco.MjSpec.from_file(str(path))
    for geom_object in geometry.geometryObjects:
        geom = _file_geom(model, spec, geom_object)
        if geom is None or not np.isnan(geom.fromto[0]) or geom.alt.type != mujoco.mjtOrientation.mjORIENTATION_QUAT:
            continue
        w, x, y, z = geom.quat
        local = pin.SE3(pin.Quaternion(w, x, y, z).normalized().matrix(), np.array(geom.pos, dtype=float))
        geom_object.placement = model.frames[geom_object.parentFrame].placement * local
    return geometry


def _file_geom(model: pin.Model, spec, geom_object):
    """The file's geom (an ``mjsGeom`` of ``spec``) that pinocchio read as ``geom_object``, by
    its body and name (pinocchio names an unnamed geom ``<body>Geom_<k>``, ``k`` its place among
    the body's geoms); None when there is not exactly one."""
    body_name = model.frames[geom_object.parentFrame].name
    body = spec.body(body_name)
    if body is None:
        return None
    match = [geom for k, geom in enumerate(body.geoms) if (geom.name or f"{body_name}Geom_{k}") == geom_object.name]
    return match[0] if len(match) == 1 else None


def collides_in_mujoco(model: pin.Model, geometry: pin.GeometryModel, path) -> np.ndarray:
    """Which pairs of ``geometry``'s pieces (read from the MJCF file at ``path``) MuJoCo
    collides: ``collides[i, j]`` (ngeoms, ngeoms), symmetric. As MuJoCo filters its dynamic
    pairs: two geoms collide when ``contype₁ & conaffinity₂`` or ``contype₂ & conaffinity₁``
    is non-zero and their bodies are not in an ``<exclude>``; a ``<pair>`` of the file always
    collides. (Geoms of one body, or of a body and its parent, are the caller's to leave
    out.) A piece not matched to the file's geoms collides with everything (the safe side)."""
    import mujoco

    spec = mujoco.MjSpec.from_file(str(path))
    pieces = geometry.geometryObjects
    geoms = [_file_geom(model, spec, piece) for piece in pieces]
    everything = np.int64(-1)                     # all bits: a piece not found collides
    contype = np.array([everything if g is None else g.contype for g in geoms], dtype=np.int64)
    conaffinity = np.array([everything if g is None else g.conaffinity for g in geoms], dtype=np.int64)
    collides = ((contype[:, None] & conaffinity[None, :]) | (contype[None, :] & conaffinity[:, None])) != 0
    bodies = np.array([model.frames[piece.parentFrame].name for piece in pieces], dtype=object)
    for exclude in spec.excludes:
        first, second = bodies == exclude.bodyname1, bodies == exclude.bodyname2
        collides[np.ix_(first, second)] = collides[np.ix_(second, first)] = False
    names = np.array([piece.name if g is None else (g.name or piece.name) for piece, g in zip(pieces, geoms)],
                     dtype=object)
    for pair in spec.pairs:
        first, second = names == pair.geomname1, names == pair.geomname2
        collides[np.ix_(first, second)] = collides[np.ix_(second, first)] = True
    return collides


def mesh_path(spec, filename: str) -> str:
    """Where MuJoCo looks for a mesh ``filename`` of ``spec`` (its ``meshdir``, relative to
    the model file's folder)."""
    if os.path.isabs(filename):
        return filename
    folder = spec.meshdir or ""
    if not os.path.isabs(folder):
        folder = os.path.join(spec.modelfiledir or "", folder)
    return os.path.join(folder, filename)
