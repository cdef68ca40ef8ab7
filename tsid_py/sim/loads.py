"""Loads hung on the simulated robot: a mass on a pendulum at a frame, with its own dynamics.

A :class:`HangingLoad` is a body of its own in the plant (the controller's model does not
have it): a solid sphere of ``mass`` kg hanging ``length`` m below a ball joint at the
frame's origin, the joint damped so that a swing dies out (``damping_ratio`` of the
pendulum's critical damping, ``2 ζ m L² √(g/L)`` N·m·s/rad). It pulls on the robot with
the rod's tension (its weight at rest, more when it swings) and, through the joint's damping,
a small moment. It never collides.

A force and a torque sensor at the pivot (MuJoCo's ``force``/``torque`` sensors: the
interaction between the load and its parent, the hand) give the wrench the load exerts on
the robot, read by :meth:`LoadSensors.wrenches` as ``[f; m]`` world-aligned at the frame's
origin — the package's wrench convention, what a wrist force/torque sensor at the frame
reads, and what a controller's :class:`~tsid_py.ExternalWrench` takes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .._validation import positive_scalar
from ..settings import fraction


@dataclass(frozen=True)
class HangingLoad:
    """A mass hanging from ``frame`` (see the module): ``mass`` kg, ``length`` m from the
    pivot (the frame's origin) to the sphere's centre, ``radius`` m, ``damping_ratio`` of the
    pendulum's critical damping (0 … 1)."""

    frame: str
    mass: float
    length: float = 0.3
    radius: float = 0.05
    damping_ratio: float = 0.3

    def __post_init__(self):
        if not isinstance(self.frame, str):
            raise ValueError(f"frame must be a frame name (str), got {self.frame!r}")
        for name in ("mass", "length", "radius"):
            positive_scalar(getattr(self, name), name)
        fraction(self.damping_ratio, "damping_ratio")

    @property
    def name(self) -> str:
        """The load's body (and its sensors') name in the plant."""
        return f"load_{self.frame}"

    def damping(self, gravity: float) -> float:
        """The ball joint's damping, N·m·s/rad: ``2 ζ m L² √(g/L)``."""
        return 2.0 * self.damping_ratio * self.mass * self.length**2 * np.sqrt(gravity / self.length)


def add_loads(spec, robot, loads) -> None:
    """Add each load to the MuJoCo spec (before it is compiled): a body on the body of the
    frame's parent joint, at the frame's origin, its ball joint there, hanging straight down
    at the robot's ``q_ref`` (the plant's reset posture)."""
    import mujoco

    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, robot.q_ref)
    gravity = float(np.linalg.norm(model.gravity.linear))
    for load in loads:
        if not isinstance(load, HangingLoad):
            raise ValueError(f"loads must be HangingLoad items, got {type(load).__name__}")
        frame = model.frames[robot.frame_id(load.frame)]
        parent = _body_of_joint(spec, model.names[frame.parentJoint])
        joint_rotation = data.oMi[frame.parentJoint].rotation
        down = joint_rotation.T @ np.array([0.0, 0.0, -load.length])      # world −z, in the body's axes
        body = parent.add_body(name=load.name, pos=frame.placement.translation)
        body.explicitinertial = True
        body.mass = load.mass
        body.ipos = down
        body.inertia = [0.4 * load.mass * load.radius**2] * 3
        body.add_joint(name=load.name, type=mujoco.mjtJoint.mjJNT_BALL, damping=load.damping(gravity))
        geom = body.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[load.radius, 0, 0], pos=down,
                             rgba=[0.8, 0.3, 0.1, 1.0])
        geom.contype = geom.conaffinity = 0
        geom.mass = 0.0
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_CAPSULE, fromto=[0, 0, 0, *down], size=[0.004, 0, 0],
                      contype=0, conaffinity=0, mass=0.0, rgba=[0.3, 0.3, 0.3, 1.0])
        body.add_site(name=load.name)
        spec.add_sensor(name=f"{load.name}_force", type=mujoco.mjtSensor.mjSENS_FORCE,
                        objtype=mujoco.mjtObj.mjOBJ_SITE, objname=load.name)
        spec.add_sensor(name=f"{load.name}_torque", type=mujoco.mjtSensor.mjSENS_TORQUE,
                        objtype=mujoco.mjtObj.mjOBJ_SITE, objname=load.name)


def _body_of_joint(spec, joint_name: str):
    for joint in spec.joints:
        if joint.name == joint_name:
            return joint.parent
    raise KeyError(f"joint {joint_name!r} not found in the MuJoCo model")


class LoadSensors:
    """Reads the loads' sensors of a compiled plant (see the module)."""

    def __init__(self, mj_model, loads):
        import mujoco

        self.loads = list(loads)
        self._entries = []
        for load in self.loads:
            force = mj_model.sensor(f"{load.name}_force")
            torque = mj_model.sensor(f"{load.name}_torque")
            site = mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_SITE, load.name)
            self._entries.append((load.frame, int(force.adr[0]), int(torque.adr[0]), site))

    def wrenches(self, mj_data) -> dict[str, np.ndarray]:
        """Each load's wrench on the robot, ``[f; m]`` (6,) world-aligned at its frame's
        origin, by frame name, from the last step's sensor readings. MuJoCo's sensors give
        the force and moment the parent (the hand) exerts on the load, in the site's axes;
        the load exerts the opposite on the hand."""
        readings = {}
        for frame, force, torque, site in self._entries:
            rotation = mj_data.site_xmat[site].reshape(3, 3)
            on_load = np.concatenate([rotation @ mj_data.sensordata[force:force + 3],
                                      rotation @ mj_data.sensordata[torque:torque + 3]])
            readings[frame] = -on_load
        return readings
