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

:func:`fitted_posture` changes the legs' joints where the posture cannot be stood in as it is:

3. **Inside the joint ranges** (:func:`posture_in_ranges`, for any robot): every 1-dof joint
   within its range — a revolute joint turned by a whole turn when that brings it in (the
   same pose: Kinova's posture has a joint at −π/2 whose range is [0.33, 5.95] rad), else
   clipped (Simple Humanoid's SRDF posture puts both ankles and a hip and a knee outside their
   URDF ranges, which MuJoCo enforces: it falls at once); the legs' joints at least
   :data:`LIMIT_MARGIN` inside;
4. **Knees bent**: each leg stretched at most :data:`MAX_EXTENSION` of its straight length
   (:mod:`tsid_py.models.legs`: ``ℓ / ℓ_s``; Alexander's SRDF posture and the neutral postures
   of Talos's, G1's and HyQ's files stand on straight legs, the knees at their limit, where the
   hip cannot move up and a knee that straightens further hits its stop).

Both by one least-squares fit of the base and the legs' joints (bounded to the ranges), its
residuals in decreasing weight: the feet stay where they stood (each sole's pose, each point
foot's position) and each leg's extension above :data:`MAX_EXTENSION` is a residual (10 per m,
rad or unit of extension); the CoM stays above the same point of the ground (3); the base
keeps its orientation (1); the joints move as little as they can (0.01 per rad). A fit that
leaves a foot off its place (by more than :data:`FOOT_TOLERANCE`) is fitted again with the
feet weighted :data:`FOOT_WEIGHT`: every foot starts on the floor, the legs' extension gives
way. The fit
starts from the posture and from its knees bent to :data:`MAX_EXTENSION` (at a straight knee
the extension's gradient vanishes) and keeps the better. Where the ranges leave no room
(Simple Humanoid's: its left knee's upper limit, 0.70 rad, and both ankles' lower one, 0,
with its hips' ranges, allow no knee bend with the soles flat, the base upright and the CoM
where it was), the knees win over the CoM's place (its CoM ends 10 cm behind its ankles,
inside its 25 cm soles). The arms and
other joints outside the legs are only clipped into their ranges.

5. **Knees within their torque** (a biped on two soles): a knee that needs more than
   :data:`KNEE_TORQUE_SHARE` of its torque limit to hold the robot still on one sole
   (:func:`single_support_knee_share`, a walk's single support) is given straighter legs:
   the fit again, each leg's extension held at least ``e`` (the same weight as rule 4's
   bound), ``e`` raised until the share is below the target or the legs reach
   :func:`straightest_extension` — as straight as the gait's step still reaches
   (:data:`~tsid_py.models.gait.REACH`). A straighter knee carries the weight with a shorter
   lever (``∝ √(1 − e²)``) but leaves the hip less to rise by: Romeo's SRDF posture (0.94,
   its knee 0.71 of its 38.2 N·m on one sole) stands at 0.968 (0.48); iCub's (0.35), and
   Talos's and G1's URDFs loaded as files (0.30, 0.15), need none.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .feet import FootGeometry
from .gait import REACH, STEP_LENGTH
from .legs import Leg, ankle_of, leg_geometry, point_of

#: A standing posture stretches each leg at most this much of its straight length (ℓ / ℓ_s):
#: a knee bent by θ between a thigh and a shank of equal length gives ``cos(θ/2)``, 0.95 at
#: θ = 36°. Talos's half-sitting posture is at 0.91, Romeo's 0.94, G1's measured one 0.978 (its
#: 3 m walk); at 0.95 the hip keeps 5 % of the leg's length to rise by, more than a stance leg
#: reaching a foothold half a step length ahead (``√(1 + 0.15²) − 1``, 1.1 % at the gait's step
#: of 0.3 × the hip height, :mod:`tsid_py.models.gait`) asks.
MAX_EXTENSION = 0.95
#: A standing posture's knee holds the robot still on one sole with at most this share of its
#: torque limit (rule 5): half is left for what a walk adds to a static single support — the
#: sway's and the swing's accelerations, the deeper bend of a stance knee down a slope or a
#: step. Talos's knee needs 0.38 of its limit at its half-sitting posture and walks every
#: terrain; Romeo's needed 0.71 at its SRDF posture (its knee 38 N·m for 40.5 kg) and its
#: stance knee saturated 10° down a slope, the CoM sinking 5 cm.
KNEE_TORQUE_SHARE = 0.5
#: Rule 5 fits the posture at most this many times.
STRAIGHTENING_TRIES = 4
#: A standing posture keeps the legs' joints this far inside their ranges (rad or m).
LIMIT_MARGIN = 0.02
#: A sole tilted more than this (rad) in a posture is flattened by its legs' joints: MuJoCo's
#: floor sinks about 0.03 mm under a standing robot, and a 6 cm-wide sole tilted 1e-3 rad
#: already stands on one edge (iCub's SRDF posture splays its soles ±1.1e-3 rad in roll, and
#: it starts by rolling them flat at 0.9 rad/s).
FLAT_TOLERANCE = 1e-4
#: A fit that leaves a foot farther than this (m, or rad for a sole's tilt) from its place is
#: fitted again with the feet's residuals weighted :data:`FOOT_WEIGHT` instead of 10: a robot
#: must start with every foot on the floor. Simple Humanoid's fit traded its legs' extension
#: (0.98 where 0.95 is asked) for its right sole 5.1 mm above the floor; MuJoCo dropped the
#: foot and rolled the robot 1.6°, while its controller (and estimator) held the foot 5.1 mm
#: up, and planned its footsteps there.
FOOT_TOLERANCE = 1e-4
FOOT_WEIGHT = 1e4


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


def fitted_posture(model: pin.Model, q: np.ndarray, feet, *, point_feet: bool = False) -> np.ndarray:
    """``q`` of a floating-base ``model`` standing on the contact frames ``feet`` (names,
    the feet at their standing place in ``q``; ``point_feet``: held by their position only,
    else by their whole pose), its joints inside their ranges and its knees bent (rules 3
    and 4 of the module); ``q`` itself (a copy) when it already is."""
    q = posture_in_ranges(model, q, clip=False)
    legs = [leg_geometry(model, q, foot) for foot in feet]
    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    leg_index = _fitted_joints(model, legs)
    one_dof = [model.joints[j].idx_q for j in range(2, model.njoints) if model.joints[j].nq == 1]
    outside = [i for i in one_dof if not lower[i] <= q[i] <= upper[i]]
    stretched = [leg for leg in legs if leg.knee is not None and leg.extension > MAX_EXTENSION + 1e-6]
    tilted = not point_feet and _largest_tilt(model, q, feet) > FLAT_TOLERANCE
    bipedal = not point_feet and len(feet) == 2
    heavy = bipedal and single_support_knee_share(model, q, feet) > KNEE_TORQUE_SHARE
    if not outside and not stretched and not tilted and not heavy:
        return q
    low, high = joint_bounds(lower[leg_index], upper[leg_index])
    clipped = q.copy()
    clipped[one_dof] = np.clip(q[one_dof], lower[one_dof], upper[one_dof])
    clipped[leg_index] = np.clip(clipped[leg_index], low, high)
    bent, drop = clipped.copy(), 0.0
    for leg in legs:                      # a start on bent knees: at a straight one the fit is singular
        index = None if leg.knee is None else model.joints[leg.knee].idx_q
        if index in leg_index:
            column = list(leg_index).index(index)
            bent[index], length = _bent_knee(model, clipped, leg, low[column], high[column])
            drop = max(drop, leg.length - length)
    bent[2] -= drop                       # the base down by what the legs shortened
    fits = [_fit(model, q, start, feet, legs, leg_index, low, high, point_feet) for start in (clipped, bent)]
    fitted = min(fits, key=lambda fit: fit[1])[0]
    if _largest_foot_error(model, q, fitted, feet, point_feet) > FOOT_TOLERANCE:
        fitted = _fit(model, q, fitted, feet, legs, leg_index, low, high, point_feet, foot_weight=FOOT_WEIGHT)[0]
    if bipedal:
        fitted = _straightened(model, q, fitted, feet, legs, leg_index, low, high)
    return fitted


def _fitted_joints(model: pin.Model, legs: list[Leg]) -> np.ndarray:
    """The ``q`` indices of the legs' 1-dof joints that have a range (a joint without one is
    held)."""
    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    joints = sorted({joint for leg in legs for joint in leg.joints
                     if upper[model.joints[joint].idx_q] > lower[model.joints[joint].idx_q] + 1e-9})
    return np.array([model.joints[joint].idx_q for joint in joints], dtype=int)


def posture_at_extension(model: pin.Model, q: np.ndarray, feet, extension: float) -> np.ndarray:
    """A standing posture ``q`` of a biped on the soles ``feet`` with each leg at
    ``extension`` of its straight length (``ℓ / ℓ_s``): rule 4's fit, the soles and the CoM
    where they stand in ``q``, the extension's bounds both at ``extension`` — e.g. the stance
    leg of a walk shortened by a step down."""
    legs = [leg_geometry(model, q, foot) for foot in feet]
    leg_index = _fitted_joints(model, legs)
    low, high = joint_bounds(model.lowerPositionLimit[leg_index], model.upperPositionLimit[leg_index])
    start = np.array(q, dtype=float)
    start[leg_index] = np.clip(start[leg_index], low, high)
    return _fit(model, q, start, feet, legs, leg_index, low, high, False, least_extension=extension,
                most_extension=extension)[0]


def single_support_knee_share(model: pin.Model, q: np.ndarray, feet) -> float:
    """The largest share of its torque limit a knee needs to hold the robot at ``q``, still,
    on one of the two soles ``feet`` alone (rule 5): for each sole, the wrench ``f`` (in the
    sole's frame) that alone balances gravity on the floating base, ``J_bᵀ f = g_b(q)`` (six
    equations, six unknowns), and the knee's torque ``τ = g_a(q) − J_aᵀ f``; 0 where no knee
    has a torque limit. The knees' (and ankles') pitch torques do not depend on where the CoM
    is across the sole: ``f``'s roll moment, which the sway to the sole takes away, has no
    component about a knee's axis (to the leg's lateral lean, a few degrees)."""
    data = model.createData()
    gravity = pin.computeGeneralizedGravity(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    share = 0.0
    for foot in feet:
        leg = leg_geometry(model, q, foot)
        if leg.knee is None:
            continue
        index = model.joints[leg.knee].idx_v
        limit = float(model.effortLimit[index])
        if not 0.0 < limit < 1e300:
            continue
        jacobian = pin.getFrameJacobian(model, data, model.getFrameId(foot), pin.LOCAL)
        wrench = np.linalg.lstsq(jacobian[:, :6].T, gravity[:6], rcond=None)[0]
        share = max(share, abs(gravity[index] - jacobian[:, index] @ wrench) / limit)
    return float(share)


def straightest_extension(model: pin.Model, q: np.ndarray, feet, legs: list[Leg]) -> float:
    """How far (``ℓ / ℓ_s``) rule 5 may straighten the legs: the stance leg, half a step of
    the gait's size rule ahead of the hip (``s = STEP_LENGTH z``, ``z`` the CoM's height
    above the soles at ``q``), stretched to the gait's :data:`~tsid_py.models.gait.REACH`:
    ``√(REACH² − (s / 2ℓ_s)²)`` (the size rule's step stays within the legs' reach)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    ground = np.mean([data.oMf[model.getFrameId(foot)].translation[2] for foot in feet])
    height = float(pin.centerOfMass(model, data, q, False)[2] - ground)
    straight = min(leg.straight_length for leg in legs if leg.knee is not None)
    return float(np.sqrt(max(REACH**2 - (STEP_LENGTH * height / (2.0 * straight)) ** 2, 0.0)))


def _straightened(model, original, fitted, feet, legs: list[Leg], leg_index, low, high) -> np.ndarray:
    """``fitted`` with its legs straightened (rule 5) until a knee holds the robot on one sole
    with at most :data:`KNEE_TORQUE_SHARE` of its limit, at most to
    :func:`straightest_extension`; ``fitted`` itself when its knees already do. Each try
    fits the posture with the legs' extension at least ``e``, ``e`` from the share ``r`` at
    the extension ``e_0``: a knee's torque grows with its horizontal offset from the line of
    the hip and ankle, ``ℓ_s/2 · √(1 − e²)`` for a thigh and shank of equal length, so
    ``√(1 − e²) = √(1 − e_0²) · KNEE_TORQUE_SHARE / r``, repeated from the new share (at most
    :data:`STRAIGHTENING_TRIES` fits)."""
    share = single_support_knee_share(model, fitted, feet)
    knees = [leg for leg in legs if leg.knee is not None]
    if share <= KNEE_TORQUE_SHARE or not knees:
        return fitted
    cap = straightest_extension(model, fitted, feet, knees)
    best = fitted
    for _ in range(STRAIGHTENING_TRIES):
        extension = min(leg_geometry(model, best, leg.foot).extension for leg in knees)
        wanted = np.sqrt(max(1.0 - (1.0 - extension**2) * (KNEE_TORQUE_SHARE / share) ** 2, 0.0))
        target = min(wanted, cap)
        if target <= extension + 1e-4:
            break
        candidate = _fit(model, original, best, feet, legs, leg_index, low, high, False, least_extension=target)[0]
        if _largest_foot_error(model, original, candidate, feet, False) > FOOT_TOLERANCE:
            break
        best, share = candidate, single_support_knee_share(model, candidate, feet)
        if share <= KNEE_TORQUE_SHARE or target >= cap:
            break
    return best


def _largest_foot_error(model: pin.Model, original: np.ndarray, q: np.ndarray, feet, point_feet: bool) -> float:
    """The largest distance (m) or angle (rad) of a foot at ``q`` from its place in
    ``original`` (its position; a sole's pose, made flat)."""
    data, moved = model.createData(), model.createData()
    pin.framesForwardKinematics(model, data, original)
    pin.framesForwardKinematics(model, moved, q)
    errors = []
    for foot in feet:
        frame = model.getFrameId(foot)
        if point_feet:
            errors.append(np.linalg.norm(moved.oMf[frame].translation - data.oMf[frame].translation))
        else:
            error = pin.log6(_flat(data.oMf[frame]).actInv(moved.oMf[frame])).vector
            errors.extend([np.linalg.norm(error[:3]), np.linalg.norm(error[3:])])
    return float(max(errors))


def _bent_knee(model: pin.Model, q: np.ndarray, leg: Leg, low: float, high: float) -> tuple[float, float]:
    """The value of ``leg``'s knee nearest its own in ``q``, within ``[low, high]``, that
    stretches the leg to :data:`MAX_EXTENSION` at most, and the leg's length then (m); its own
    value and length when no value does."""
    data = model.createData()
    end, hip, index = ankle_of(model, leg), leg.joints[0], model.joints[leg.knee].idx_q
    values = np.linspace(low, high, max(2, int(np.ceil((high - low) / 0.005)) + 1))
    lengths = []
    for value in values:
        trial = q.copy()
        trial[index] = value
        pin.forwardKinematics(model, data, trial)
        pin.updateFramePlacements(model, data)
        lengths.append(np.linalg.norm(point_of(data, end) - data.oMi[hip].translation))
    lengths = np.array(lengths)
    bent = np.flatnonzero(lengths <= MAX_EXTENSION * leg.straight_length)
    if not len(bent):
        return float(q[index]), leg.length
    best = bent[np.argmin(np.abs(values[bent] - q[index]))]
    return float(values[best]), float(lengths[best])


def posture_in_ranges(model: pin.Model, q: np.ndarray, *, clip: bool = True) -> np.ndarray:
    """``q`` with each 1-dof revolute joint outside its range turned by the whole turns that
    bring it inside, when some do (the same pose), and with ``clip`` every 1-dof joint still
    outside clipped to its range (a new array)."""
    q = np.array(q, dtype=float)
    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    for joint in range(1, model.njoints):
        if model.joints[joint].nq != 1:
            continue
        index = model.joints[joint].idx_q
        value = q[index]
        if lower[index] <= value <= upper[index]:
            continue
        if model.joints[joint].shortname().startswith(("JointModelR", "JointModelRevolute")):
            turned = value + 2 * np.pi * np.ceil((lower[index] - value) / (2 * np.pi))
            if turned <= upper[index]:
                q[index] = turned
                continue
        if clip:
            q[index] = min(max(value, lower[index]), upper[index])
    return q


def _largest_tilt(model: pin.Model, q: np.ndarray, feet) -> float:
    """The largest angle (rad) between a contact frame's z axis in ``feet`` and the vertical."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return max(float(np.arccos(np.clip(data.oMf[model.getFrameId(foot)].rotation[2, 2], -1.0, 1.0))) for foot in feet)


def _flat(placement: pin.SE3) -> pin.SE3:
    """``placement`` turned by the smallest rotation that makes its z axis vertical (its
    heading kept)."""
    return pin.SE3(_rotation_between(placement.rotation[:, 2], np.array([0.0, 0.0, 1.0])) @ placement.rotation,
                   placement.translation)


def moved_configuration(start: np.ndarray, base: pin.SE3, index: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``start`` with its floating base at ``base · exp(x[:6])`` and its entries ``index`` set
    to ``x[6:]``: the unknowns of a fit of the base and some 1-dof joints."""
    q = start.copy()
    q[:7] = pin.SE3ToXYZQUAT(base * pin.exp6(x[:6]))
    q[index] = x[6:]
    return q


def joint_bounds(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ranges shrunk by :data:`LIMIT_MARGIN` (by less where a range is narrower than
    four margins)."""
    margin = np.minimum(LIMIT_MARGIN, 0.25 * np.maximum(upper - lower, 0.0))
    return lower + margin, upper - margin


def _fit(model, original, start, feet, legs: list[Leg], leg_index, low, high,
         point_feet: bool, foot_weight: float = 10.0, least_extension: float = 0.0,
         most_extension: float | None = None) -> tuple[np.ndarray, float]:
    """The least-squares fit of :func:`fitted_posture` from ``start`` (a configuration inside
    the bounds) and its cost; the targets are the feet's and the CoM's places in ``original``
    and the base's orientation there, the feet's residuals weighted ``foot_weight``, each
    leg's extension kept within ``[least_extension, most_extension]`` (by default
    ``max(least_extension, MAX_EXTENSION)``)."""
    from scipy.optimize import least_squares

    data = model.createData()
    frames = [model.getFrameId(foot) for foot in feet]
    pin.framesForwardKinematics(model, data, original)
    targets = [data.oMf[frame].copy() if point_feet else _flat(data.oMf[frame]) for frame in frames]
    base = pin.XYZQUATToSE3(original[:7])
    com = pin.centerOfMass(model, data, original)[:2].copy()
    chains = [(leg.joints[0], ankle_of(model, leg), leg.straight_length) for leg in legs if leg.knee is not None]
    reference = start[leg_index].copy()
    most_extension = max(least_extension, MAX_EXTENSION) if most_extension is None else most_extension

    def configuration(x):
        return moved_configuration(start, base, leg_index, x)

    def residuals(x):
        q = configuration(x)
        pin.framesForwardKinematics(model, data, q)
        parts = []
        for frame, target in zip(frames, targets):
            parts.append(foot_weight * (data.oMf[frame].translation - target.translation) if point_feet
                         else foot_weight * pin.log6(target.actInv(data.oMf[frame])).vector)
        parts.append(x[3:6])                                          # the base's orientation
        parts.append(3.0 * (pin.centerOfMass(model, data, q, False)[:2] - com))   # the CoM above the same point
        for hip, end, straight in chains:
            extension = np.linalg.norm(point_of(data, end) - data.oMi[hip].translation) / straight
            parts.append([10.0 * max(0.0, extension - most_extension, least_extension - extension)])
        parts.append(1e-2 * (x[6:] - reference))                      # move the joints as little as possible
        return np.concatenate([np.atleast_1d(np.asarray(part, dtype=float)) for part in parts])

    x0 = np.concatenate([pin.log6(base.actInv(pin.XYZQUATToSE3(start[:7]))).vector, start[leg_index]])
    lower = np.r_[np.full(6, -np.inf), low]
    upper = np.r_[np.full(6, np.inf), high]
    result = least_squares(residuals, np.clip(x0, lower, upper), bounds=(lower, upper), xtol=1e-10, ftol=1e-12)
    return configuration(result.x), float(result.cost)

