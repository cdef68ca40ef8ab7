"""What a biped's joint ranges let it reach while it walks: the stance width of its walk.

In single support the walking controller brings the CoM toward the stance sole (the linear
inverted pendulum's sway: the plan's CoM reaches about 0.8 of the way from the feet's middle
to the sole's centre). The legs must reach that with both soles flat, inside their joint
ranges, which MuJoCo enforces and the controller's joint limits respect. A robot that stands
with its feet wider than its hips needs its hip roll to swing the pelvis over a foot: iCub's
SRDF posture stands its feet 3.9 cm outside its hips (hip roll 0.09 rad) and its hip roll
stops at 0.30 rad, so its hips reach the stop before its CoM is over a sole, the capture point
falls behind the plan and the step adjustment moves its feet by tens of centimetres.

The rule (:func:`walking_width`): the walk's step width is the standing width when the legs
can put the CoM over either sole's centre (:data:`SWAY` of the way) with the soles flat and
the joints :func:`~tsid_py.models.posture.joint_bounds` inside their ranges; else the widest
narrower one at which they can (the feet moved symmetrically toward the middle, in steps of
:data:`WIDTH_STEP` of the standing width, down to :data:`NARROWEST` sole widths); the
standing width when none can. Each test is a bounded least-squares fit of the base and the
legs' joints (:func:`reaches`): the soles at their places, the CoM's horizontal position at
its target, the base's orientation kept (soft), the joints moved little.

Units: m, rad.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .legs import leg_geometry
from .posture import joint_bounds, moved_configuration

#: The CoM's lateral target, as a fraction of the way from the feet's middle to a sole's
#: centre (1: over the centre; the plan's sway reaches about 0.8 of it).
SWAY = 1.0
#: Narrower widths tried, as fractions of the standing width.
WIDTH_STEP = 0.05
#: The narrowest width tried, in sole widths (the soles' inner edges half a sole apart).
NARROWEST = 1.5
#: A fit reaches its targets when the soles are within this of theirs (m, rad) and the CoM
#: within :data:`COM_TOLERANCE` m.
FOOT_TOLERANCE, COM_TOLERANCE = 1e-3, 2e-3


def reaches(model: pin.Model, q: np.ndarray, feet, placements, com_xy) -> bool:
    """Whether ``model``'s legs (those ending at the contact frames ``feet``) can put the soles
    at ``placements`` (``pin.SE3`` each) and the CoM's horizontal position at ``com_xy`` (2,)
    with every leg joint inside :func:`~tsid_py.models.posture.joint_bounds`, from the
    configuration ``q`` (see the module)."""
    from scipy.optimize import least_squares

    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    index = np.array(sorted({model.joints[joint].idx_q for foot in feet for joint in leg_geometry(model, q, foot).joints
                             if model.joints[joint].nq == 1}), dtype=int)
    index = index[upper[index] > lower[index] + 1e-9]                  # a joint with no range is held
    low, high = joint_bounds(lower[index], upper[index])
    data = model.createData()
    frames = [model.getFrameId(foot) for foot in feet]
    base = pin.XYZQUATToSE3(q[:7])
    target_com = np.asarray(com_xy, dtype=float)

    def errors(x):
        trial = moved_configuration(q, base, index, x)
        pin.framesForwardKinematics(model, data, trial)
        feet_error = np.concatenate([pin.log6(target.actInv(data.oMf[frame])).vector
                                     for frame, target in zip(frames, placements)])
        return feet_error, pin.centerOfMass(model, data, trial, False)[:2] - target_com

    def residuals(x):
        feet_error, com_error = errors(x)
        return np.concatenate([10.0 * feet_error, 10.0 * com_error, x[3:6], 1e-2 * (x[6:] - q[index])])

    bounds = (np.r_[np.full(6, -np.inf), low], np.r_[np.full(6, np.inf), high])
    start = np.clip(np.r_[np.zeros(6), q[index]], *bounds)
    result = least_squares(residuals, start, bounds=bounds, xtol=1e-10, ftol=1e-12)
    feet_error, com_error = errors(result.x)
    return bool(np.abs(feet_error).max() < FOOT_TOLERANCE and np.linalg.norm(com_error) < COM_TOLERANCE)


def walking_width(model: pin.Model, q: np.ndarray, feet, sole_width: float | None) -> float | None:
    """The walk's step width by the module's rule for the biped ``model`` standing at ``q`` on
    the two contact frames ``feet`` (soles ``sole_width`` m wide, None for point feet): None
    when the standing width does (the walk keeps it), else the width (m)."""
    if len(feet) != 2:
        return None
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    standing = [data.oMf[model.getFrameId(foot)].copy() for foot in feet]
    middle = 0.5 * (standing[0].translation + standing[1].translation)
    across = standing[0].translation - standing[1].translation
    across[2] = 0.0
    width = float(np.linalg.norm(across))
    if width <= 0.0:
        return None
    across /= width
    narrowest = NARROWEST * (sole_width or 0.0)
    fraction = 1.0
    while fraction * width >= narrowest and fraction > 0.0:
        placements = []
        for sign, placement in zip((1.0, -1.0), standing):
            moved = placement.copy()
            moved.translation = placement.translation + across * (sign * 0.5 * fraction * width
                                                                  - float(across @ (placement.translation - middle)))
            placements.append(moved)
        if all(reaches(model, q, feet, placements, middle[:2] + SWAY * (foot.translation[:2] - middle[:2]))
               for foot in placements):
            return None if fraction == 1.0 else fraction * width
        fraction = round(fraction - WIDTH_STEP, 10)
    return None
