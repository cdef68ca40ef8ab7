"""A standing posture: a robot's reference configuration put on the ground, soles flat.

A posture from an SRDF or an MJCF keyframe sets the joints, and often the base, with no
reference to a floor: Romeo's SRDF posture has its soles 0.84 m below z = 0, iCub's stands
its soles 3.6° off the ground. :func:`standing_posture` makes it a posture to start a robot
from on a flat floor at z = 0:

1. **Soles flat**: the floating base (and with it the whole robot, a rigid motion) turns by
   the smallest rotation that makes the soles' mean normal vertical; point feet need none.
2. **On the ground**: the base moves vertically so that the lowest sole (or point foot's
   contact point) is at z = 0.

The joints are not changed. Units: m, rad.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .feet import FootGeometry


def standing_posture(model: pin.Model, q: np.ndarray, feet: list[FootGeometry]) -> np.ndarray:
    """``q`` of a floating-base ``model`` turned so its soles are flat and moved so the
    feet touch z = 0 (see the module); a new array."""
    if not feet:
        raise ValueError("feet must hold at least one foot to stand on")
    q = np.array(q, dtype=float)
    data = model.createData()
    soles = [foot for foot in feet if foot.sole_size is not None]
    if soles:
        pin.forwardKinematics(model, data, q)
        normal = np.mean([(data.oMi[foot.joint] * foot.placement).rotation[:, 2] for foot in soles], axis=0)
        turn = _rotation_between(normal / np.linalg.norm(normal), np.array([0.0, 0.0, 1.0]))
        base = pin.XYZQUATToSE3(q[:7])
        turned = pin.SE3(turn @ base.rotation, turn @ base.translation)
        q[:7] = pin.SE3ToXYZQUAT(turned)
    pin.forwardKinematics(model, data, q)
    lowest = min((data.oMi[foot.joint] * foot.placement).translation[2] for foot in feet)
    q[2] -= lowest
    return q


def sole_tilts(model: pin.Model, q: np.ndarray, feet: list[FootGeometry]) -> dict[str, float]:
    """Each sole's angle (rad) from the ground at ``q``: the angle between its normal and the
    vertical."""
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    return {foot.frame_name: float(np.arccos(np.clip((data.oMi[foot.joint] * foot.placement).rotation[2, 2], -1, 1)))
            for foot in feet if foot.sole_size is not None}


def _rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest rotation taking the unit vector ``a`` to the unit vector ``b``."""
    axis = np.cross(a, b)
    sine, cosine = np.linalg.norm(axis), float(a @ b)
    if sine < 1e-12:
        return np.eye(3) if cosine > 0 else pin.exp3(np.pi * _any_perpendicular(a))
    return pin.exp3(axis / sine * np.arctan2(sine, cosine))


def _any_perpendicular(a: np.ndarray) -> np.ndarray:
    seed = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    perpendicular = np.cross(a, seed)
    return perpendicular / np.linalg.norm(perpendicular)
