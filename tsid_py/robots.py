"""Robots shipped by example-robot-data, each a model file and a profile with overrides.

Each built-in robot is its URDF, a reference posture and its feet, and the profile
(:mod:`tsid_py.models.profile`) derived from its model, with the facts that were measured
on it (gaits and controller defaults tuned in MuJoCo) given as overrides. This is the only
module that names robots: controllers read the profile, never a robot's name.

example-robot-data's wheel ships data only (no Python module), so the files are located
through the installed distribution's metadata rather than a hard-coded path.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pinocchio as pin

from .loaders.source import ModelSource
from .models.actuators import read_rotor_parameters
from .models.gait import Gait
from .models.loading import load_robot
from .models.profile import BalanceDefaults, WalkDefaults, derive_profile
from .robot import Robot

_DATA_PREFIX = "cmeel.prefix/share/example-robot-data/robots"


@dataclass(frozen=True)
class RobotSpec:
    """How to build one shipped robot."""

    urdf: str                                   # relative to example-robot-data's robots/ folder
    floating_base: bool
    srdf: str | None = None                     # reference postures
    posture: str | None = None                  # SRDF group state used as q_ref
    joint_values: dict[str, float] = field(default_factory=dict)  # q_ref overrides by joint name
    feet: tuple[str, ...] = ()
    sole_size: tuple[float, float] | None = None
    # Extra frames (name, parent frame, translation) added to the model, e.g. a sole centre.
    extra_frames: tuple[tuple[str, str, tuple[float, float, float]], ...] = ()
    foot_radius: float = 0.0                    # point feet: radius of the foot sphere centred at the frame
    end_effector: str | None = None
    # Profile overrides: what was measured on the robot (field name -> value of RobotProfile).
    profile: dict = field(default_factory=dict)


SPECS: dict[str, RobotSpec] = {
    "talos": RobotSpec(
        urdf="talos_data/robots/talos_reduced.urdf", floating_base=True,
        srdf="talos_data/srdf/talos.srdf", posture="half_sitting",
        feet=("left_sole_link", "right_sole_link"), sole_size=(0.20, 0.13),
        end_effector="gripper_left_base_link",
        # Measured in MuJoCo (tsid-py demo walk): 3 m at 0.31 m/s in 13 steps.
        profile={"gait": Gait(step_length=0.25, single_support=0.6, double_support=0.15, step_height=0.05),
                 # Its step recovery out of 600 N sideways pushes swings the torso and an arm into
                 # their stops (torso_2_joint, arm_left_2_joint): with the joint ranges in the QP
                 # (the default) the stance sole slid 5 cm before the step landed, without them it
                 # recovers in 4 steps, the simulator's stops taking what the QP asked beyond them.
                 "balance": BalanceDefaults(joint_limits=False)},
    ),
    "g1": RobotSpec(
        urdf="g1_description/urdf/g1_29dof_rev_1_0.urdf", floating_base=True,
        joint_values={
            "left_hip_pitch_joint": -0.2, "left_knee_joint": 0.42, "left_ankle_pitch_joint": -0.22,
            "right_hip_pitch_joint": -0.2, "right_knee_joint": 0.42, "right_ankle_pitch_joint": -0.22,
            "left_shoulder_roll_joint": 0.2, "right_shoulder_roll_joint": -0.2,
            "left_elbow_joint": 1.0, "right_elbow_joint": 1.0,
        },
        # The sole centre lies between the four collision spheres of each ankle-roll link.
        extra_frames=(("left_sole", "left_ankle_roll_link", (0.035, 0.0, -0.035)),
                      ("right_sole", "right_ankle_roll_link", (0.035, 0.0, -0.035))),
        feet=("left_sole", "right_sole"), sole_size=(0.17, 0.05),
        profile={
            # Measured in MuJoCo (tsid-py demo walk): 3 m at 0.25 m/s in 16 steps. Its narrow soles
            # (5 cm) want a narrower stance than its standing one (0.237 m) and a lower swing: the
            # swing leg's reaction moments rock a narrow sole.
            "gait": Gait(step_length=0.2, single_support=0.6, double_support=0.15, step_width=0.18, step_height=0.04,
                         start_time=0.8, end_time=0.8),
            # Chosen on the push sweep (benchmarks/balance_sweep.py): the posture regularises joint
            # accelerations, larger on a smaller robot for the same CoM acceleration, so Talos's
            # weight held G1 (CoM 0.68 m high, 33 kg) back more: its unloaded sole came down tilted
            # 2.1–2.3° after lateral pushes at 0.75 × the impulse bound; with these 1.5–1.7°.
            "balance": BalanceDefaults(posture_weight=5e-3, posture_leg_scale=0.2),
            # A lighter posture while walking lets the upper body take up the swing leg's reaction. (The
            # soles' friction was once cut to 0.3 to bound the torsion the QP drew from a stance sole; with
            # the walking controller's angular momentum task the upper body takes that reaction, and at the
            # balance default 0.5 a stance sole twists 0.09° a step, median over 1.5 m, against 0.23° at 0.3.)
            "walk": WalkDefaults(posture_weight=1e-3),
        },
    ),
    "solo12": RobotSpec(
        urdf="solo_description/robots/solo12.urdf", floating_base=True,
        srdf="solo_description/srdf/solo.srdf", posture="standing",
        feet=("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"), foot_radius=0.016,
    ),
    "go2": RobotSpec(
        urdf="go2_description/urdf/go2.urdf", floating_base=True,
        srdf="go2_description/srdf/go2.srdf", posture="standing",
        feet=("FL_foot", "FR_foot", "RL_foot", "RR_foot"), foot_radius=0.022,
    ),
    "ur5": RobotSpec(
        urdf="ur_description/urdf/ur5_robot.urdf", floating_base=False,
        joint_values={"shoulder_lift_joint": -1.2, "elbow_joint": 1.6, "wrist_1_joint": -1.9,
                      "wrist_2_joint": -1.57, "wrist_3_joint": 0.3},
        end_effector="tool0",
    ),
    "panda": RobotSpec(
        urdf="panda_description/urdf/panda.urdf", floating_base=False,
        srdf="panda_description/srdf/panda.srdf", posture="default",
        joint_values={"panda_finger_joint2": 0.001},
        end_effector="panda_hand",
    ),
}


#: The robots a demo, benchmark or sweep runs when none is named: a humanoid, a quadruped, an arm.
DEFAULT_HUMANOID, DEFAULT_QUADRUPED, DEFAULT_ARM = "talos", "go2", "panda"
#: The robots ``tsid-py bench`` times by default (two humanoids and a quadruped).
BENCHMARK_ROBOTS = ("talos", "g1", "go2")


def available() -> list[str]:
    """Names accepted by :func:`load`."""
    return sorted(SPECS)


@lru_cache(maxsize=1)
def data_root() -> Path:
    """The installed example-robot-data ``robots/`` folder."""
    try:
        distribution = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        raise ModuleNotFoundError(
            "example-robot-data is not installed: pip install 'tsid_py[sim]' or example-robot-data"
        ) from None
    root = Path(distribution.locate_file(_DATA_PREFIX))
    if not root.is_dir():
        raise FileNotFoundError(f"example-robot-data is installed but {root} does not exist")
    return root


def package_dir() -> str:
    """The folder that ``package://example-robot-data/...`` mesh URIs resolve against."""
    return str(data_root().parent.parent)


def load(name, *, srdf=None, posture: str | None = None) -> Robot:
    """A built-in robot at its reference posture, by name (:func:`available`), or any robot
    file by path: a URDF (with its SRDF, ``srdf``, or the one beside it) or an MJCF file,
    standing in ``posture`` with its feet and profile derived from the model
    (:func:`tsid_py.models.loading.load_robot`).

    A built-in floating-base robot is raised so that its lowest foot touches ``z = 0`` (point
    feet: their centre is ``foot_radius`` above it).
    """
    if not isinstance(name, (str, os.PathLike)):
        raise ValueError(f"name must be a built-in robot's name {available()} or a robot file's path, got {name!r}")
    if isinstance(name, str) and name in SPECS:
        if srdf is not None or posture is not None:
            raise ValueError(f"srdf and posture apply to a robot file; {name!r} is built in")
        return _load_built_in(name)
    if not Path(os.fspath(name)).is_file():
        raise KeyError(f"robot {name!r} is neither built in (available: {', '.join(available())}) nor an existing "
                       "robot file")
    return load_robot(name, srdf=srdf, posture=posture)


def _load_built_in(name: str) -> Robot:
    spec = SPECS[name]
    urdf = data_root() / spec.urdf
    root_joint = pin.JointModelFreeFlyer() if spec.floating_base else None
    model = pin.buildModelFromUrdf(str(urdf), root_joint) if root_joint else pin.buildModelFromUrdf(str(urdf))
    for frame_name, parent_name, translation in spec.extra_frames:
        parent = model.frames[model.getFrameId(parent_name)]
        placement = parent.placement * pin.SE3(np.eye(3), np.array(translation))
        model.addFrame(pin.Frame(frame_name, parent.parentJoint, model.getFrameId(parent_name),
                                 placement, pin.FrameType.OP_FRAME))
    if spec.srdf is not None:                 # the drives' rotor parameters (model.armature untouched)
        read_rotor_parameters(model, str(data_root() / spec.srdf))
    q_ref = _reference_posture(model, spec)
    feet = _add_contact_points(model, spec, q_ref) if spec.foot_radius > 0 else spec.feet
    source = ModelSource(path=str(urdf), kind="urdf", package_dirs=(package_dir(),),
                         srdf=None if spec.srdf is None else str(data_root() / spec.srdf))
    robot = Robot(model, name=name, feet=feet, sole_size=spec.sole_size, foot_radius=spec.foot_radius,
                  q_ref=q_ref, package_dirs=[package_dir()], end_effector=spec.end_effector, source=source)
    robot.profile = derive_profile(robot, **spec.profile)
    return robot


def _add_contact_points(model: pin.Model, spec: RobotSpec, q_ref: np.ndarray) -> tuple[str, ...]:
    """For sphere feet, a frame ``<foot>_contact`` at the bottom of each sphere at ``q_ref``, with
    world-aligned axes there (z along the ground normal: the friction cone's axis). The
    contact point of a sphere on the floor is its lowest point, not its centre."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q_ref)
    names = []
    for foot in spec.feet:
        foot_id = model.getFrameId(foot)
        frame = model.frames[foot_id]
        world = data.oMf[foot_id]
        contact_in_world = pin.SE3(np.eye(3), world.translation - np.array([0.0, 0.0, spec.foot_radius]))
        joint_placement = data.oMi[frame.parentJoint]
        name = f"{foot}_contact"
        model.addFrame(pin.Frame(name, frame.parentJoint, foot_id, joint_placement.actInv(contact_in_world),
                                 pin.FrameType.OP_FRAME))
        names.append(name)
    return tuple(names)


def _reference_posture(model: pin.Model, spec: RobotSpec) -> np.ndarray:
    q = pin.neutral(model)
    if spec.srdf is not None:
        pin.loadReferenceConfigurations(model, str(data_root() / spec.srdf), False)
        q = np.array(model.referenceConfigurations[spec.posture])
    for joint_name, value in spec.joint_values.items():
        q[model.joints[model.getJointId(joint_name)].idx_q] = value
    if spec.floating_base and spec.feet:
        data = model.createData()
        pin.framesForwardKinematics(model, data, q)
        lowest = min(data.oMf[model.getFrameId(foot)].translation[2] for foot in spec.feet)
        q[2] += spec.foot_radius - lowest
    return q
