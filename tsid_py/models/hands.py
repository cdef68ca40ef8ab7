"""A humanoid's hands, from its model: where a load hangs, what a reaching task moves.

The rule: the kinematic tree's leaves that carry no foot are the limbs' ends (hands, a head);
at the reference posture ``q_ref`` the leftmost (+y) and rightmost (−y) are the arms'. A hand
is the deepest joint of that limb whose subtree weighs at least :data:`HAND_MASS_FRACTION` of
the robot — a gripper's finger, or a light wrist link beyond the hand, is not where a load
hangs nor what a reaching task should move — and its frame is that joint's body frame.
Talos: ``arm_left_7_link``/``arm_right_7_link`` (the grippers' finger joint, 0.17 kg, is
passed over); G1: ``left_wrist_pitch_link``/``right_wrist_pitch_link``.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

#: The smallest subtree mass of a hand's joint, as a fraction of the robot's mass.
HAND_MASS_FRACTION = 0.01


def hands(robot) -> tuple[str, str]:
    """``(left, right)``: the body frames of the robot's hands (see the module); ``ValueError``
    when it has fewer than two limbs besides its feet."""
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, robot.q_ref)
    subtree = np.array([inertia.mass for inertia in model.inertias])
    for joint in range(model.njoints - 1, 0, -1):
        subtree[model.parents[joint]] += subtree[joint]
    parents = set(model.parents[1:])
    feet = {model.frames[robot.frame_id(foot)].parentJoint for foot in robot.feet}
    leaves = [joint for joint in range(2, model.njoints) if joint not in parents and joint not in feet]
    if len(leaves) < 2:
        raise ValueError(f"robot {robot.name!r} has {len(leaves)} limb(s) besides its feet: no pair of hands")
    by_side = sorted(leaves, key=lambda leaf: data.oMi[leaf].translation[1])
    return _hand(model, subtree, by_side[-1], robot.mass), _hand(model, subtree, by_side[0], robot.mass)


def _hand(model: pin.Model, subtree: np.ndarray, leaf: int, mass: float) -> str:
    """The body frame of the deepest joint from ``leaf`` up whose subtree is heavy enough."""
    joint = leaf
    while subtree[joint] < HAND_MASS_FRACTION * mass and model.parents[joint] > 1:
        joint = model.parents[joint]
    return next(frame.name for frame in model.frames if frame.type == pin.FrameType.BODY and frame.parentJoint == joint
                and model.frames[frame.parentFrame].type == pin.FrameType.JOINT)
