"""Build a MuJoCo model from the same URDF as a :class:`~tsid_py.Robot`.

The URDF goes through MuJoCo's own parser (``MjSpec``), so the links, joints, masses and
inertias are the ones pinocchio read. On top of it:

* a free joint on the root body for a floating-base robot;
* a floor plane;
* foot collision geometry at the contact frames: a box the size of the sole rectangle for
  a humanoid (``robot.sole_size``), a sphere of ``robot.foot_radius`` for point feet;
* the URDF's joint damping and dry friction are removed, so that MuJoCo integrates the same
  rigid-body dynamics pinocchio models (``M q̈ + h = τ + Σ Jᵀ f``).

With ``visual=True`` the URDF's meshes are kept as non-colliding visuals (their
``package://`` paths are rewritten to the installed files), for the viewer.
"""

from __future__ import annotations

import re

import numpy as np

#: Thickness of a sole box, m (its bottom face is the sole plane).
SOLE_THICKNESS = 0.02


def _import_mujoco():
    try:
        import mujoco
    except ImportError as exc:  # the sim extra is optional
        raise ModuleNotFoundError("MuJoCo is needed for simulation: pip install 'tsid_py[sim]'") from exc
    return mujoco


def prepared_urdf(robot, visual: bool = False) -> str:
    """The robot's URDF text ready for MuJoCo's parser."""
    if robot.urdf_path is None:
        raise ValueError("robot has no URDF path: build it with Robot.from_urdf or tsid_py.robots.load")
    with open(robot.urdf_path) as handle:
        text = handle.read()
    if visual:
        text = re.sub(r"<link\b[^>]*?(?:/>|>.*?</link>)", _decodable_visuals, text, flags=re.S)
    text = re.sub(r"<collision\b.*?</collision>", "", text, flags=re.S)
    if visual:
        for package_dir in robot.package_dirs:
            text = text.replace("package://", package_dir.rstrip("/") + "/")
    else:
        text = re.sub(r"<visual>.*?</visual>", "", text, flags=re.S)
    compiler = '<mujoco><compiler discardvisual="{}" fusestatic="true" balanceinertia="false" ' \
               'strippath="false" angle="radian"/></mujoco>'.format("false" if visual else "true")
    return re.sub(r"(<robot[^>]*>)", r"\1" + compiler, text, count=1)


#: Mesh formats MuJoCo reads; others (Collada .dae, as in Go2's and Panda's visuals) it refuses.
MUJOCO_MESH_FORMATS = (".stl", ".obj", ".msh")


def _decodable_visuals(link: re.Match) -> str:
    """A URDF ``<link>`` whose visual meshes MuJoCo cannot read shows its collision geometry
    instead (collision meshes are usually STL); the physics is not affected (the URDF's
    collisions never collide here, see :func:`build_model`)."""
    text = link.group(0)
    meshes = re.findall(r'<visual\b.*?filename="([^"]+)"', text, flags=re.S)
    if all(mesh.lower().endswith(MUJOCO_MESH_FORMATS) for mesh in meshes):
        return text
    text = re.sub(r"<visual\b.*?</visual>", "", text, flags=re.S)
    return re.sub(r"<collision\b(.*?)</collision>", r"<visual\1</visual>", text, flags=re.S)


def build_model(robot, *, timestep: float = 1e-3, friction: float = 1.0, visual: bool = False):
    """An ``mujoco.MjModel`` of ``robot`` standing on a floor."""
    mujoco = _import_mujoco()
    spec = mujoco.MjSpec.from_string(prepared_urdf(robot, visual))
    spec.option.timestep = timestep
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    if robot.floating_base:
        spec.worldbody.first_body().add_freejoint(name="root")
    for joint in spec.joints:
        joint.damping = np.zeros_like(np.atleast_1d(joint.damping))
        joint.frictionloss = 0.0
        joint.armature = 0.0
    for geom in spec.geoms:        # the URDF's visuals never collide
        geom.contype = geom.conaffinity = 0
        geom.group = 1
    floor = spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05])
    _checker_floor(spec, floor, mujoco)
    floor.friction = [friction, 0.005, 0.0001]
    _add_feet(spec, robot, mujoco, friction)
    spec.visual.global_.offwidth, spec.visual.global_.offheight = 640, 480
    return spec.compile()


def _checker_floor(spec, floor, mujoco) -> None:
    """A grey checker texture on the floor, 0.5 m squares (visual only: it shows motion on video)."""
    spec.add_texture(name="checker", type=mujoco.mjtTexture.mjTEXTURE_2D, builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
                     rgb1=[0.72, 0.74, 0.77], rgb2=[0.58, 0.60, 0.64], width=64, height=64)
    material = spec.add_material(name="checker", texrepeat=[2, 2], texuniform=True)
    material.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "checker"
    floor.material = "checker"


def _add_feet(spec, robot, mujoco, friction: float) -> None:
    """Collision geometry at each foot frame, attached to the body of its parent joint."""
    import pinocchio as pin

    model = robot.model
    for foot in robot.feet:
        frame = model.frames[robot.frame_id(foot)]
        joint_name = model.names[frame.parentJoint]
        body = _body_of_joint(spec, joint_name)
        placement = frame.placement            # foot frame in its parent joint's frame
        quaternion = pin.Quaternion(placement.rotation)
        if robot.sole_size is not None:
            length, width = robot.sole_size
            offset = placement.rotation @ np.array([0, 0, SOLE_THICKNESS / 2])
            geom = body.add_geom(name=f"{foot}_sole", type=mujoco.mjtGeom.mjGEOM_BOX,
                                 size=[length / 2, width / 2, SOLE_THICKNESS / 2],
                                 pos=placement.translation + offset,
                                 quat=[quaternion.w, quaternion.x, quaternion.y, quaternion.z])
        else:
            # the contact frame is the sphere's lowest point; its z axis is the ground normal
            radius = max(robot.foot_radius, 1e-3)
            centre = placement.translation + placement.rotation @ np.array([0.0, 0.0, radius])
            geom = body.add_geom(name=f"{foot}_sphere", type=mujoco.mjtGeom.mjGEOM_SPHERE,
                                 size=[radius, 0, 0], pos=centre)
        geom.friction = [friction, 0.005, 0.0001]
        geom.mass = 0.0
        geom.contype = geom.conaffinity = 1
        geom.condim = 3 if robot.sole_size is None else 4


def _body_of_joint(spec, joint_name: str):
    for joint in spec.joints:
        if joint.name == joint_name:
            return joint.parent
    raise KeyError(f"joint {joint_name!r} not found in the MuJoCo model")
