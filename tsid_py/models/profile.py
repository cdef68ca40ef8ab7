"""RobotProfile: what a controller needs to know about a robot beyond its dynamics.

A :class:`~tsid_py.Robot` is a pinocchio model and its state. Standing, walking or pushing
it also needs facts that no rigid-body algorithm gives: which frames are its feet and what
touches the ground there, which frame is its torso, its reference posture, which joints are
its legs, and controller defaults that suit its size. A :class:`RobotProfile` holds them.
:func:`derive_profile` derives each from the model by the rules below; any field can be given
explicitly instead (an override), which is how the built-in robots
(:mod:`tsid_py.robots`, the only module that names robots) record what was measured on them.

Rules (each an override when given):

* **feet, sole size, foot radius, end effector, posture**: the robot's declared facts
  (``Robot(feet=..., sole_size=..., foot_radius=..., end_effector=..., q_ref=...)``).
* **leg joints**: the joints on the kinematic path from the base to any foot frame.
* **torso chain**: from the root joint, follow the one child joint whose subtree holds no
  foot, as long as there is exactly one; the chain's joints move the trunk. The **torso
  frame** is the body of the chain's last joint (the link where the arms and head branch
  off); on a robot with no such chain (a quadruped), the base body. The **trunk bodies**
  are the bodies of the chain's joints (the base, waist and torso links), e.g. for a model
  error applied to the trunk's mass.
* **gait** (a legged robot's): :func:`~tsid_py.models.gait.gait_for_size` — step length,
  lateral step and step height proportional to the CoM's height ``z`` above the feet at the
  posture, the step length within the legs' reach (their straight and standing lengths,
  :mod:`tsid_py.models.legs`), swing, double-support and rest times proportional to
  ``1/ω = √(z / g)``; the step width the standing one and the step length the size rule's,
  each narrower or shorter where the legs' joint ranges cannot reach it with the soles flat
  (:mod:`tsid_py.models.reach`); a fixed-base robot's, the generic :class:`Gait`.
* **posture**: the loaded posture is made standable when the file is read
  (:func:`tsid_py.models.posture.fitted_posture`: joints inside their ranges, each knee bent
  to at most 95 % of its leg's straight length), so that a leg cannot straighten into its
  knee's limit, and a biped's legs straighter where a knee would need more than half its
  torque limit to hold the robot on one sole (as far as the gait's step still reaches); the
  balance and walking controllers then keep the joints inside their ranges
  (:attr:`BalanceDefaults.joint_limits`), as the simulator does.
* **held joints**: the joints that move no mass (their whole subtree massless,
  :func:`~tsid_py.models.held.joints_moving_no_mass`): no torque can act on them and their
  motion changes nothing else, so the simulator holds them at the posture rather than let a
  near-massless chain swing past its limits.
* **balance defaults**: :class:`BalanceDefaults` — joint-position limits on, the soles'
  contact rectangles :data:`SOLE_MARGIN` inside the sole on each side (at most a quarter of
  it), the posture's and friction's generic values (an MJCF file whose feet set the contact's
  friction gives its own ``mu``: :mod:`tsid_py.models.loading`); **walking defaults**:
  :class:`WalkDefaults` (none: the balance ones).
* **push**: the balance demo's default push scales with the mass
  (:func:`tsid_py.scenarios.push_recovery.default_push`, 1.6 N per kg) and the push bounds
  with the mass, the CoM height and the soles (:func:`tsid_py.control.push_bounds`): neither
  is a profile field.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np
import pinocchio as pin

from .._validation import positive_scalar
from .gait import Gait, gait_for_size
from .held import joints_moving_no_mass
from .legs import leg_geometry
from .reach import com_rise, needs_vault, step_length, walking_width

#: Margin (m) kept between the planned centre of pressure and the sole's edges, along the
#: sole's length and its width. A compliant contact (MuJoCo's, a rubber sole) rolls the sole
#: onto its edge by the penetration there over the distance to the other edge, so the margin
#: that keeps a sole flat is a distance, not a fraction of the sole — and MuJoCo's contact,
#: specified as an acceleration-level spring (``solref``), sinks the same few millimetres under
#: any robot's weight: on Talos (0.20 × 0.13 m) it is 95 % × 90 % of the sole; on G1's narrow
#: sole (0.17 × 0.05 m) 94 % × 74 %, where 90 % of its width left 2.5 mm and the loaded sole
#: rolled 1.6–1.7° under lateral pushes (its clean-recovery limit is 2°). At most a quarter of
#: the sole on each side (:meth:`BalanceDefaults.sole_scale`).
SOLE_MARGIN = (0.005, 0.0065)


@dataclass(frozen=True)
class BalanceDefaults:
    """Defaults of :class:`~tsid_py.control.BalanceController` that depend on the robot.

    ``posture_weight``: weight of the posture task; ``posture_leg_scale`` (0 … 1): its factor
    on the legs' joints (see the controller); ``mu``: friction coefficient of the soles'
    contacts; ``joint_limits``: keep the joints inside their ranges
    (:class:`~tsid_py.constraints.JointLimits`); ``sole_margin``: ``(along the length, across)``
    m kept between the centre of pressure and the sole's edges (:data:`SOLE_MARGIN`)."""

    posture_weight: float = 1e-2
    posture_leg_scale: float = 0.7
    mu: float = 0.5
    joint_limits: bool = True
    sole_margin: tuple[float, float] = SOLE_MARGIN

    def __post_init__(self):
        positive_scalar(self.posture_weight, "posture_weight", allow_zero=True)
        if not 0.0 <= positive_scalar(self.posture_leg_scale, "posture_leg_scale", allow_zero=True) <= 1.0:
            raise ValueError(f"posture_leg_scale must be in [0, 1], got {self.posture_leg_scale!r}")
        positive_scalar(self.mu, "mu")
        if len(self.sole_margin) != 2:
            raise ValueError(f"sole_margin must be (along the length, across) in m, got {self.sole_margin!r}")
        for margin in self.sole_margin:
            positive_scalar(margin, "sole_margin", allow_zero=True)

    def sole_scale(self, sole_size) -> tuple[float, float]:
        """The contact rectangle's fractions ``(length, width)`` of a sole of ``sole_size``
        m: the sole less :attr:`sole_margin` on each side, at least half of it."""
        return tuple(max(1.0 - 2.0 * margin / size, 0.5) for margin, size in zip(self.sole_margin, sole_size))


@dataclass(frozen=True)
class WalkDefaults:
    """What :class:`~tsid_py.control.walking.WalkingController` changes from the balance
    defaults for a walk (None: the balance default): the soles' ``mu`` (their torsion budget
    is ``μ`` times the half width) and the ``posture_weight``."""

    mu: float | None = None
    posture_weight: float | None = None

    def __post_init__(self):
        if self.mu is not None:
            positive_scalar(self.mu, "mu")
        if self.posture_weight is not None:
            positive_scalar(self.posture_weight, "posture_weight", allow_zero=True)

    def balance_options(self) -> dict[str, float]:
        """The balance controller's keyword arguments these defaults set."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


@dataclass(frozen=True)
class RobotProfile:
    """A robot's feet, torso, posture, legs and controller defaults (see the module).

    Parameters
    ----------
    feet : contact frame names (z along the ground normal at the posture).
    sole_size : ``(length, width)`` m of the soles' rectangles centred at the feet frames,
        or None for point feet.
    foot_radius : radius (m) of a point foot's sphere; its contact frame is the sphere's
        lowest point.
    torso_frame : the frame whose orientation a controller keeps upright.
    posture : the reference configuration (nq,), standing on the ground.
    leg_joints : names of the joints between the base and a foot.
    trunk_bodies : names of the trunk's bodies (base, waist, torso).
    end_effector : an arm's tool frame, or None.
    gait, balance, walk : controller defaults.
    drives : the drives' armature, damping and friction
        (:class:`~tsid_py.models.actuators.DriveParameters`), or None: read from the model
        (:func:`~tsid_py.models.actuators.drive_parameters`).
    held_joints : joints held at the posture (the simulator locks them): by default the
        joints that move no mass (:mod:`tsid_py.models.held`).
    """

    feet: tuple[str, ...]
    sole_size: tuple[float, float] | None
    foot_radius: float
    torso_frame: str
    posture: np.ndarray = field(repr=False)
    leg_joints: frozenset[str]
    trunk_bodies: tuple[str, ...]
    end_effector: str | None = None
    gait: Gait = field(default_factory=Gait)
    balance: BalanceDefaults = field(default_factory=BalanceDefaults)
    walk: WalkDefaults = field(default_factory=WalkDefaults)
    drives: object = None
    held_joints: tuple[str, ...] = ()

    def __post_init__(self):
        posture = np.array(self.posture, dtype=float)
        posture.flags.writeable = False
        object.__setattr__(self, "posture", posture)
        object.__setattr__(self, "feet", tuple(self.feet))
        object.__setattr__(self, "leg_joints", frozenset(self.leg_joints))
        object.__setattr__(self, "trunk_bodies", tuple(self.trunk_bodies))
        object.__setattr__(self, "held_joints", tuple(self.held_joints))

    @property
    def point_feet(self) -> bool:
        """Whether the feet are points (no sole rectangle)."""
        return self.sole_size is None

    def with_(self, **changes) -> RobotProfile:
        """A copy with some fields changed."""
        return replace(self, **changes)


def derive_profile(robot, **overrides) -> RobotProfile:
    """The profile of ``robot`` by the module's rules; ``overrides`` (field name -> value)
    replace derived fields. ``ValueError`` names a frame or joint that is not in the model."""
    unknown = set(overrides) - {f.name for f in fields(RobotProfile)}
    if unknown:
        raise ValueError(f"unknown profile fields {sorted(unknown)}; fields: {[f.name for f in fields(RobotProfile)]}")
    feet = tuple(overrides.get("feet", robot.feet))
    for foot in feet:
        robot.frame_id(foot)                          # KeyError naming close matches
    model = robot.model
    chain = torso_chain(model, feet, robot.floating_base)
    derived = {
        "feet": feet,
        "sole_size": robot.sole_size,
        "foot_radius": robot.foot_radius,
        "posture": robot.q_ref,
        "leg_joints": leg_joint_names(model, [robot.frame_id(foot) for foot in feet], robot.floating_base),
        "torso_frame": joint_body(model, chain[-1]) if chain else model.frames[0].name,
        "trunk_bodies": tuple(joint_body(model, joint) for joint in chain),
        "end_effector": robot.end_effector,
        "held_joints": joints_moving_no_mass(robot),
    }
    if "gait" not in overrides:
        derived["gait"] = robot_gait(robot, feet, overrides.get("posture", robot.q_ref))
    derived.update(overrides)
    torso = derived["torso_frame"]
    if not (isinstance(torso, str) and model.existFrame(torso)):
        raise ValueError(f"torso_frame must be a frame of the model, got {torso!r}")
    if "held_joints" in overrides:
        _check_held_joints(robot, overrides["held_joints"])
    return RobotProfile(**derived)


def _check_held_joints(robot, held) -> None:
    """A ``held_joints`` override names joints of the model with one degree of freedom (the
    simulator locks each by one joint equality), and never one side of a mimic coupling alone
    (the coupling would hold the other through it while the controller drives it)."""
    model = robot.model
    unknown = [name for name in held if not model.existJointName(name)]
    if unknown:
        raise ValueError(f"held_joints must name joints of the model, got unknown {unknown}")
    wide = [name for name in held if model.nvs[model.getJointId(name)] != 1]
    if wide:
        raise ValueError(f"held_joints must name one-degree-of-freedom joints, got {wide} with "
                         f"{[int(model.nvs[model.getJointId(name)]) for name in wide]} degrees of freedom")
    held = set(held)
    for coupling in getattr(robot, "mimic_joints", ()):
        if (coupling.joint in held) != (coupling.primary in held):
            inside, outside = ((coupling.joint, coupling.primary) if coupling.joint in held
                               else (coupling.primary, coupling.joint))
            raise ValueError(f"held_joints holds {inside!r} but not {outside!r}, which a mimic coupling ties to it: "
                             "hold both or neither")


def profile_of(robot) -> RobotProfile:
    """``robot.profile`` when it has one (a built-in robot, or one given to it), else the
    profile :func:`derive_profile` derives (kept on the robot for the next call)."""
    profile = getattr(robot, "profile", None)
    if profile is None:
        profile = robot.profile = derive_profile(robot)
    elif not isinstance(profile, RobotProfile):
        raise ValueError(f"robot.profile must be a RobotProfile or None, got {type(profile).__name__}")
    return profile


# ---------------------------------------------------------------------------- rules
def robot_gait(robot, feet, posture) -> Gait:
    """The gait rule (see the module): :func:`~tsid_py.models.gait.gait_for_size` of the
    CoM's height above the feet at ``posture``, within the reach of the legs ending at
    ``feet`` (the shortest straight leg, the longest standing one); the generic :class:`Gait`
    for a fixed-base robot or one without legs."""
    if not robot.floating_base or not feet:
        return Gait()
    model = robot.model
    legs = [leg for leg in (leg_geometry(model, posture, foot) for foot in feet) if leg.knee is not None]
    data = model.createData()
    pin.framesForwardKinematics(model, data, posture)
    com = pin.centerOfMass(model, data, posture)
    ground = float(np.mean([data.oMf[model.getFrameId(foot)].translation[2] for foot in feet]))
    if not legs or com[2] <= ground:
        return Gait()
    gait = gait_for_size(float(com[2] - ground), robot.gravity,
                         straight_length=min(leg.straight_length for leg in legs),
                         leg_length=max(leg.length for leg in legs))
    width = walking_width(model, posture, feet, None if robot.sole_size is None else robot.sole_size[1])
    length = step_length(model, posture, feet, gait.step_length, width)
    gait = gait.with_(step_width=width, step_length=gait.step_length if length is None else length)
    if robot.sole_size is not None and len(feet) == 2 and needs_vault(model, posture, feet, width):
        gait = gait.with_(com_rise=com_rise(model, posture, feet), free_swing_tilt=True)     # a vaulting walk
    return gait


def leg_joint_names(model: pin.Model, foot_frames, floating_base: bool) -> frozenset[str]:
    """Names of the joints on the path from the base to any of ``foot_frames`` (ids): the
    universe and a floating base's root joint are not leg joints (every such joint, where
    :func:`~tsid_py.models.legs.leg_joints` keeps a leg's 1-dof chain, by id)."""
    first = 2 if floating_base else 1
    names = set()
    for frame in foot_frames:
        names.update(model.names[joint] for joint in model.supports[model.frames[frame].parentJoint]
                     if joint >= first)
    return frozenset(names)


def torso_chain(model: pin.Model, feet, floating_base: bool) -> list[int]:
    """The joints (ids) from the root that move the trunk: the root joint, then as long as
    exactly one child joint's subtree holds no foot, that child (see the module). Empty for
    a fixed-base robot."""
    if not floating_base:
        return []
    children: dict[int, list[int]] = {joint: [] for joint in range(model.njoints)}
    for joint in range(1, model.njoints):
        children[model.parents[joint]].append(joint)
    to_feet = set()
    for foot in feet:
        to_feet.update(model.supports[model.frames[model.getFrameId(foot)].parentJoint])
    chain = [1]
    while True:
        trunk = [child for child in children[chain[-1]] if child not in to_feet]
        if len(trunk) != 1:
            return chain
        chain.append(trunk[0])


def joint_body(model: pin.Model, joint: int) -> str:
    """The name of the link a joint moves: the body frame attached to the joint's own frame
    (links fixed to it by fixed joints hang from that body, not from the joint)."""
    for frame in model.frames:
        if (frame.type == pin.FrameType.BODY and frame.parentJoint == joint
                and model.frames[frame.parentFrame].type == pin.FrameType.JOINT):
            return frame.name
    return model.names[joint]
