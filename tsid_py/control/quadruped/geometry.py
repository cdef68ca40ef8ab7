"""What a quadruped controller needs to know about the robot, derived from its model and profile.

A :class:`QuadrupedGeometry` is read once from the robot's pinocchio model at its profile's
posture (:func:`tsid_py.models.profile.profile_of`); every number below follows a rule, none
is a per-robot constant:

* **legs**: the profile's four feet. A foot's **role** (``FL``, ``FR``, ``HL``, ``HR``) is
  read from where it stands in the base frame at the posture: the two with the larger ``x``
  are the front feet, and of each pair the one with the larger ``y`` is the left one;
* **hip**: the origin of the leg's first joint (the first joint after the floating base on
  the path to the foot), in the base frame;
* **neutral foothold**: where the foot stands at the posture, relative to the CoM, in the
  base's heading frame (yaw only): the point a foot returns to when the robot stands;
* **leg length**: the sum of the distances between consecutive joint origins from the hip to
  the foot frame (a stretched leg's reach; these distances do not depend on the posture);
* **hip height**: the mean height of the hips above the feet at the posture; **CoM height**:
  the CoM's height above the feet;
* **mass** and **inertia**: the robot's total mass and its centroidal composite inertia at the
  posture (pinocchio's CCRBA), in the base frame: the single rigid body of the centroidal
  model (:mod:`.mpc`);
* **largest normal force** of a foot: the vertical force its leg's torque limits can hold at
  the posture, ``min_j τ_max,j / |J_z,j|`` over the leg's joints (``τ = Jᵀ f`` in statics),
  capped at twice the robot's weight (a model without torque limits).

Gait defaults follow from these (:mod:`.gaits`): a swing lasts ``√(h/g)`` (``h`` the CoM
height: a pendulum's time constant, the natural step time of a body of that size), the
swing foot clears ``0.2 × hip height``.

Units: m, kg, kg·m², N, s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from ...models.profile import RobotProfile, profile_of

#: The roles of a quadruped's feet, in the order gait patterns list them.
ROLES = ("FL", "FR", "HL", "HR")

#: A foot's largest normal force is capped at this many times the robot's weight.
MAX_FORCE_WEIGHTS = 2.0


@dataclass(frozen=True)
class Leg:
    """One leg: its ``foot`` (contact frame), ``role`` (one of :data:`ROLES`), ``hip`` (3,)
    (first joint's origin, base frame), ``neutral`` (3,) (the foot at the posture relative to
    the CoM, heading frame), ``length`` (m) and ``joints`` (names, hip to foot)."""

    foot: str
    role: str
    hip: np.ndarray = field(repr=False)
    neutral: np.ndarray = field(repr=False)
    length: float
    joints: tuple[str, ...]
    max_force: float


@dataclass(frozen=True)
class QuadrupedGeometry:
    """The robot as a quadruped controller sees it (see the module)."""

    legs: tuple[Leg, ...]
    base_frame: str
    mass: float
    gravity: float
    inertia: np.ndarray = field(repr=False)
    com_height: float
    hip_height: float
    leg_length: float
    com_in_base: np.ndarray = field(repr=False)

    @property
    def feet(self) -> tuple[str, ...]:
        """The feet, in the profile's order."""
        return tuple(leg.foot for leg in self.legs)

    @property
    def weight(self) -> float:
        """``m g``, N."""
        return self.mass * self.gravity

    def leg(self, role: str) -> Leg:
        """The leg of ``role`` (``FL``, ``FR``, ``HL`` or ``HR``)."""
        for leg in self.legs:
            if leg.role == role:
                return leg
        raise KeyError(f"role must be one of {ROLES}, got {role!r}")

    @property
    def swing_time(self) -> float:
        """Default duration of a swing, ``√(h/g)`` s with ``h`` the CoM height."""
        return float(np.sqrt(self.com_height / self.gravity))

    @property
    def step_height(self) -> float:
        """Default clearance of a swing foot, ``0.2 ×`` the hip height, m."""
        return 0.2 * self.hip_height

    @property
    def reach(self) -> float:
        """How far (m) a foothold may be from its neutral point, horizontally: what a leg at
        90 % of its length still reaches at the hip height, at most half the hip height."""
        stretched = 0.9 * self.leg_length
        return float(min(np.sqrt(max(stretched**2 - self.hip_height**2, 0.0)), 0.5 * self.hip_height))

    @property
    def stance_sweep(self) -> float:
        """How far (m) a foot on the ground can travel under its hip during a stance,
        horizontally: twice what the stretched leg reaches at the hip height,
        ``2 √(L² − h²)``. A body moving at ``v`` over a stance of ``T`` s asks ``|v| T``: a
        command beyond this is out of any gait's reach with these legs."""
        return 2.0 * float(np.sqrt(max(self.leg_length**2 - self.hip_height**2, 0.0)))

    @classmethod
    def of(cls, robot, profile: RobotProfile | None = None) -> QuadrupedGeometry:
        """The geometry of ``robot`` at its profile's posture (see the module); ``ValueError``
        when the robot is not a floating-base robot with four feet."""
        profile = profile_of(robot) if profile is None else profile
        if not robot.floating_base:
            raise ValueError(f"robot must have a floating base to walk, got {robot.name!r} (fixed base)")
        if len(profile.feet) != 4:
            raise ValueError(f"robot must have four feet to be a quadruped, got {list(profile.feet)}")
        model = robot.model
        data = model.createData()
        q = np.array(profile.posture)
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        com = pin.centerOfMass(model, data, q)
        pin.ccrba(model, data, q, np.zeros(model.nv))
        base = data.oMi[1]
        heading = _yaw_rotation(base.rotation)
        feet_world = {foot: data.oMf[model.getFrameId(foot)].translation.copy() for foot in profile.feet}
        ground = float(np.mean([p[2] for p in feet_world.values()]))
        roles = _roles(base, feet_world)
        pin.computeJointJacobians(model, data, q)
        legs, hips = [], []
        for foot in profile.feet:
            frame_id = model.getFrameId(foot)
            chain = [j for j in model.supports[model.frames[frame_id].parentJoint] if j >= 2]
            if not chain:
                raise ValueError(f"foot {foot!r} hangs from the base itself: a leg needs joints")
            hip_world = data.oMi[chain[0]].translation
            points = [data.oMi[j].translation for j in chain] + [feet_world[foot]]
            length = float(sum(np.linalg.norm(b - a) for a, b in zip(points[:-1], points[1:])))
            hips.append(hip_world[2] - ground)
            legs.append(Leg(foot=foot, role=roles[foot], hip=base.actInv(hip_world),
                            neutral=heading.T @ (feet_world[foot] - com), length=length,
                            joints=tuple(model.names[j] for j in chain),
                            max_force=_max_normal_force(robot, model, data, frame_id, chain)))
        inertia = base.rotation.T @ data.Ig.inertia @ base.rotation
        return cls(legs=tuple(legs), base_frame=profile.torso_frame, mass=float(robot.mass),
                   gravity=float(robot.gravity), inertia=inertia, com_height=float(com[2] - ground),
                   hip_height=float(np.mean(hips)), leg_length=float(np.mean([leg.length for leg in legs])),
                   com_in_base=base.actInv(com))


def _yaw_rotation(rotation: np.ndarray) -> np.ndarray:
    yaw = np.arctan2(rotation[1, 0], rotation[0, 0])
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _roles(base: pin.SE3, feet_world: dict) -> dict[str, str]:
    """Each foot's role from its position in the base frame (see the module)."""
    local = {foot: base.actInv(p) for foot, p in feet_world.items()}
    by_x = sorted(local, key=lambda foot: -local[foot][0])
    roles = {}
    for prefix, pair in (("F", by_x[:2]), ("H", by_x[2:])):
        left, right = sorted(pair, key=lambda foot: -local[foot][1])
        if np.isclose(local[left][1], local[right][1]):
            raise ValueError(f"feet {pair} stand at the same y in the base frame: which is left is unknown")
        roles[left], roles[right] = prefix + "L", prefix + "R"
    return roles


def _max_normal_force(robot, model, data, frame_id: int, chain: list[int]) -> float:
    """The vertical force the leg's torque limits hold at the posture (see the module)."""
    jacobian = pin.getFrameJacobian(model, data, frame_id, pin.LOCAL_WORLD_ALIGNED)
    cap = MAX_FORCE_WEIGHTS * robot.weight
    limits = []
    for joint in chain:
        column = model.joints[joint].idx_v
        lever = abs(jacobian[2, column])
        effort = robot.effort_limits[column - 6]
        if lever > 1e-9 and np.isfinite(effort) and effort > 0:
            limits.append(effort / lever)
    return float(min(min(limits, default=cap), cap))
