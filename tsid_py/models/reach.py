"""What a biped's joint ranges let it reach while it walks: the width and length of its steps.

A walk asks the legs for two stances with both soles flat, inside their joint ranges (MuJoCo
enforces them, and the controller's joint limits respect them):

* **the CoM over a sole**: in single support the controller brings the CoM toward the stance
  sole (the linear inverted pendulum's sway: the plan's CoM reaches about 0.8 of the way from
  the feet's middle to the sole's centre). A robot that stands with its feet wider than its
  hips swings its pelvis over a foot with its hip roll: iCub's SRDF posture stands its feet
  3.9 cm outside its hips (hip roll 0.09 rad) and its hip roll stops at 0.30 rad, so its hips
  reached the stop before its CoM was over a sole, the capture point fell behind the plan and
  the step adjustment moved its feet by tens of centimetres;
* **the feet a step apart**: in double support the feet are one step length apart along the
  walk and the CoM between them.

The rules (each stance tested by :func:`reach`, a bounded least-squares fit of the base and
the legs' joints: the soles at their places and the CoM's horizontal position at its target,
the base upright as it stands (its orientation held: the walking controller keeps the torso
upright; with the base free to turn by a few degrees every robot tried reaches every stance,
iCub's by rolling its pelvis 6°), the joints moved little, every leg joint within
:func:`~tsid_py.models.posture.joint_bounds`):

* :func:`walking_width`: the walk's step width is the standing width when the legs can put
  the CoM over either sole's centre (:data:`SWAY` of the way) at it; else the widest narrower
  one at which they can (the feet moved symmetrically toward the middle, in steps of
  :data:`WIDTH_STEP` of the standing width, down to :data:`NARROWEST` sole widths);
* :func:`step_length`: the gait's step length when the legs can hold the feet that far apart
  (either foot ahead) with the CoM over their middle; else the longest shorter one (steps of
  :data:`LENGTH_STEP` of it) at which they can.

When no width or length is reachable the rule keeps the gait's (the robot cannot walk on
flat soles within its ranges: the model check says which joints stop it).

* :func:`com_rise`: a biped whose legs sway its CoM across the walk over each sole but cannot
  put it over the sole at its standing height (:func:`needs_vault`: along the walk is what
  stops it) walks **vaulting**: its CoM rises in each single support (the gait's ``com_rise``,
  :class:`~tsid_py.control.walking.height.RiseProfile`) by as much as its stance leg can lift
  the hip when it turns vertical under it and stretches to :data:`RISE_EXTENSION` of its
  straight length — ``RISE_EXTENSION ℓ_s − h``, ``h`` the hip's height above the ankle
  standing, the smaller of the two legs' — and its swing sole is left free to tilt (the gait's
  ``free_swing_tilt``). Simple Humanoid's ankles only turn its shanks back from its feet (its
  ankles' pitch range is [0, 2.62] rad): it stands with its ankles 16 cm ahead of its hips and
  its CoM 10 cm behind its ankles, and with both soles flat and its base upright its CoM
  reaches no further than 4.8 cm behind their middle, on straight legs. With its stance leg
  straight under the hip and the swing sole pitched toes down it gets 4.4 cm ahead of the
  stance sole (``benchmarks/com_reach.py --parts mid-swing``). Its walk of 2 m, measured
  (``benchmarks/walk_variants.py --rise H``): rises of 2.7 and 3.0 cm walk, 2.4, 3.2 and 3.5
  cm fall (its left hip stands 3.19 cm below its straight vertical height: a larger rise asks
  that leg for more than straight); :data:`RISE_EXTENSION` gives 2.86 cm. A robot that reaches
  over its soles keeps a constant height and a level swing sole.

Units: m, rad.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .legs import ankle_of, leg_geometry, leg_joints, point_of
from .posture import joint_bounds, moved_configuration

#: The CoM's lateral target, as a fraction of the way from the feet's middle to a sole's
#: centre (1: over the centre; the plan's sway reaches about 0.8 of it).
SWAY = 1.0
#: Narrower widths tried, as fractions of the standing width.
WIDTH_STEP = 0.05
#: The narrowest width tried, in sole widths (the soles' inner edges half a sole apart).
NARROWEST = 1.5
#: :func:`carry_width`'s resolution, m.
CARRY_RESOLUTION = 0.005
#: Shorter step lengths tried, as fractions of the gait's.
LENGTH_STEP = 0.1
#: Weight of the joints' distance from the standing posture in a fit (per rad, against 1 per
#: m or rad of the soles' and CoM's errors): small, it only picks one among exact solutions.
REGULARIZATION = 1e-3
#: A fit reaches its targets when the soles are within this of theirs (m, rad) and the CoM
#: within :data:`COM_TOLERANCE` m.
FOOT_TOLERANCE, COM_TOLERANCE = 1e-3, 2e-3
#: A vaulting walk's stance leg stretches to this fraction of its straight length under the
#: hip at mid-swing (:func:`com_rise`; measured on Simple Humanoid, see the module).
RISE_EXTENSION = 0.995


@dataclass(frozen=True)
class Reach:
    """The best fit of a stance (see the module), base upright.

    reached : whether the soles and the CoM are at their targets (within the tolerances).
    feet_error : the soles' largest pose error, m or rad.
    com_error : the CoM's horizontal distance from its target, m.
    at_limits : the leg joints the fit leaves at a bound of their ranges (names).
    configuration : the fitted configuration (nq,).
    """

    reached: bool
    feet_error: float
    com_error: float
    at_limits: tuple[str, ...]
    configuration: np.ndarray | None = None


def reach(model: pin.Model, q: np.ndarray, feet, placements, com_xy, com_axis=None) -> Reach:
    """The best fit of ``model``'s legs (those ending at the contact frames ``feet``) putting
    the soles at ``placements`` (``pin.SE3`` each) and the CoM's horizontal position at
    ``com_xy`` (2,), every leg joint inside :func:`~tsid_py.models.posture.joint_bounds`, from
    the configuration ``q`` (see the module). ``com_axis`` (a unit (2,) vector): only the CoM's
    position along it is fitted (and its error reported)."""
    from scipy.optimize import least_squares

    lower, upper = model.lowerPositionLimit, model.upperPositionLimit
    joints = sorted({joint for foot in feet for joint in leg_joints(model, foot)})
    joints = [joint for joint in joints                                # a joint with no range is held
              if upper[model.joints[joint].idx_q] > lower[model.joints[joint].idx_q] + 1e-9]
    index = np.array([model.joints[joint].idx_q for joint in joints], dtype=int)
    low, high = joint_bounds(lower[index], upper[index])
    data = model.createData()
    frames = [model.getFrameId(foot) for foot in feet]
    base = pin.XYZQUATToSE3(q[:7])
    target_com = np.asarray(com_xy, dtype=float)

    def errors(x):
        trial = moved_configuration(q, base, index, np.r_[x[:3], 0.0, 0.0, 0.0, x[3:]])
        pin.framesForwardKinematics(model, data, trial)
        feet_error = np.concatenate([pin.log6(target.actInv(data.oMf[frame])).vector
                                     for frame, target in zip(frames, placements)])
        com_error = pin.centerOfMass(model, data, trial, False)[:2] - target_com
        return feet_error, com_error if com_axis is None else np.atleast_1d(com_axis @ com_error)

    def residuals(x):
        feet_error, com_error = errors(x)
        return np.concatenate([feet_error, com_error, REGULARIZATION * (x[3:] - q[index])])

    bounds = (np.r_[np.full(3, -np.inf), low], np.r_[np.full(3, np.inf), high])
    start = np.clip(np.r_[np.zeros(3), q[index]], *bounds)
    result = least_squares(residuals, start, bounds=bounds, xtol=1e-12, ftol=1e-14)
    feet_error, com_error = errors(result.x)
    at_limits = tuple(model.names[joint] for joint, value, a, b in zip(joints, result.x[3:], low, high)
                      if min(value - a, b - value) < 1e-6)
    feet_error, com_error = float(np.abs(feet_error).max()), float(np.linalg.norm(com_error))
    configuration = moved_configuration(q, base, index, np.r_[result.x[:3], 0.0, 0.0, 0.0, result.x[3:]])
    return Reach(feet_error < FOOT_TOLERANCE and com_error < COM_TOLERANCE, feet_error, com_error, at_limits,
                 configuration)


def standing_soles(model: pin.Model, q: np.ndarray, feet) -> list[pin.SE3]:
    """The placements of the contact frames ``feet`` at ``q``."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return [data.oMf[model.getFrameId(foot)].copy() for foot in feet]


def walk_axes(soles) -> tuple[np.ndarray, np.ndarray]:
    """The walk's forward axis (the two ``soles``' mean x axis on the ground) and its left
    one, unit (3,) vectors."""
    forward = soles[0].rotation[:, 0] + soles[1].rotation[:, 0]
    forward[2] = 0.0
    forward /= np.linalg.norm(forward)
    return forward, np.array([-forward[1], forward[0], 0.0])


def stance(soles, *, width: float | None = None, split: float = 0.0) -> list[pin.SE3]:
    """Two soles (the standing ``soles``) moved to ``width`` m apart across the walk (None: as
    they are) and by ``±split / 2`` m along it (the first ahead for a positive ``split``),
    about their middle; the walk's forward axis is :func:`walk_axes`'."""
    middle = 0.5 * (soles[0].translation + soles[1].translation)
    forward, left = walk_axes(soles)
    moved = []
    for sign, sole in zip((1.0, -1.0), soles):
        offset = sole.translation - middle
        across = float(left @ offset)
        if width is not None:
            across = float(np.copysign(0.5 * width, across))
        along = float(forward @ offset) + sign * 0.5 * split
        placement = sole.copy()
        placement.translation = middle + left * across + forward * along + np.array([0.0, 0.0, offset[2]])
        moved.append(placement)
    return moved


def over_each_sole(model: pin.Model, q: np.ndarray, feet, placements, sway: float = SWAY) -> list[Reach]:
    """:func:`reach` of the CoM ``sway`` of the way from the soles' middle to each sole's
    centre (:data:`SWAY`: over it), the soles at ``placements``."""
    middle = 0.5 * (placements[0].translation[:2] + placements[1].translation[:2])
    return [reach(model, q, feet, placements, middle + sway * (sole.translation[:2] - middle)) for sole in placements]


def between_soles(model: pin.Model, q: np.ndarray, feet, soles, split: float,
                  width: float | None = None) -> list[Reach]:
    """:func:`reach` of the feet ``split`` m apart along the walk (each ahead in turn; ``width``
    m apart across it, None: as they stand) with the CoM over their middle."""
    results = []
    for sign in (1.0, -1.0):
        placements = stance(soles, width=width, split=sign * split)
        middle = 0.5 * (placements[0].translation[:2] + placements[1].translation[:2])
        results.append(reach(model, q, feet, placements, middle))
    return results


def walking_width(model: pin.Model, q: np.ndarray, feet, sole_width: float | None) -> float | None:
    """The walk's step width by the module's rule for the biped ``model`` standing at ``q`` on
    the two contact frames ``feet`` (soles ``sole_width`` m wide, None for point feet): None
    when the standing width does (the walk keeps it) or none does, else the width (m)."""
    if len(feet) != 2:
        return None
    soles = standing_soles(model, q, feet)
    width = float(np.linalg.norm((soles[0].translation - soles[1].translation)[:2]))
    narrowest = NARROWEST * (sole_width or 0.0)
    fraction = 1.0
    while fraction > 0.0 and fraction * width >= narrowest:
        if all(result.reached for result in over_each_sole(model, q, feet, stance(soles, width=fraction * width))):
            return None if fraction == 1.0 else fraction * width
        fraction = round(fraction - WIDTH_STEP, 10)
    return None


def carry_width(model: pin.Model, q: np.ndarray, feet, limit: float, sole_width: float | None = None,
                resolution: float = CARRY_RESOLUTION, sway: float = SWAY) -> float:
    """The widest stance (m between the soles' centres across the walk, the feet moved
    symmetrically about their middle as :func:`stance` does) at which the legs of the biped
    ``model`` standing at ``q`` on its two ``feet`` can carry the CoM over either sole's
    centre (:func:`over_each_sole`; ``sway`` < 1: that fraction of the way from the soles'
    middle to it), by bisection up to ``limit`` m, to ``resolution`` m (the
    last width found carried: a lower bound), from the walk's width by the module's rule
    (:func:`walking_width`), or the standing width when that is the walk's, taken as carried;
    that width when ``limit`` is not above it. Wider, in a double support the other sole cannot
    stay flat while the CoM comes over one: a leg leans sideways by what its ankle roll turns
    (G1 0.245 m, an ankle roll at its ±0.26 rad stop one step wider; Talos 0.388 m, iCub
    0.165 m, Romeo 0.263 m; with the CoM where the walk lifts a foot off, G1's ``sway``
    0.205, 0.434 m). About 0.3 s; kept per model (its geometry, masses and ranges), posture,
    feet, ``limit`` and ``sway``."""
    if len(feet) != 2:
        raise ValueError(f"feet must be a biped's two contact frames, got {list(feet)!r}")
    sway = float(sway)
    if not 0.0 <= sway <= 1.0:
        raise ValueError(f"sway must be a fraction in [0, 1] of the way to a sole's centre, got {sway!r}")
    key = (_fingerprint(model, q, feet), float(limit), sole_width, float(resolution), sway)
    if key not in _CARRIED:
        soles = standing_soles(model, q, feet)
        low = walking_width(model, q, feet, sole_width) or float(np.linalg.norm(
            (soles[0].translation - soles[1].translation)[:2]))

        def carried(width: float) -> bool:
            return all(result.reached for result in over_each_sole(model, q, feet, stance(soles, width=width), sway))

        high = float(limit)
        if high <= low or carried(high):
            _CARRIED[key] = max(low, high)
        else:
            while high - low > resolution:
                middle = 0.5 * (low + high)
                low, high = (middle, high) if carried(middle) else (low, middle)
            _CARRIED[key] = low
        while len(_CARRIED) > CARRIED_KEPT:             # the oldest first
            del _CARRIED[next(iter(_CARRIED))]
    return _CARRIED[key]


def _fingerprint(model: pin.Model, q: np.ndarray, feet) -> str:
    """A digest of what :func:`carry_width` depends on: the joints' placements and ranges, the
    bodies' inertias, the frames' placements, the posture ``q`` and the ``feet``."""
    digest = hashlib.sha256(repr((model.name, model.nq, tuple(feet))).encode())
    for placement in [*model.jointPlacements, *(frame.placement for frame in model.frames)]:
        digest.update(placement.homogeneous.tobytes())
    for inertia in model.inertias:
        digest.update(np.r_[inertia.mass, inertia.lever, inertia.inertia.ravel()].tobytes())
    for array in (model.lowerPositionLimit, model.upperPositionLimit, np.asarray(q, dtype=float)):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


#: :func:`carry_width`'s results, by :func:`_fingerprint` and its arguments (a few per process;
#: at most :data:`CARRIED_KEPT`, the oldest dropped first).
_CARRIED: dict[tuple, float] = {}
#: How many :func:`carry_width` results are kept.
CARRIED_KEPT = 32


def step_length(model: pin.Model, q: np.ndarray, feet, length: float, width: float | None = None) -> float | None:
    """The gait's step length by the module's rule for the biped ``model`` standing at ``q``
    on the contact frames ``feet``, the size rule's ``length`` m, the feet ``width`` m apart
    (None: as they stand): None when ``length`` is reachable or no shorter length is, else the
    length (m)."""
    if len(feet) != 2:
        return None
    soles = standing_soles(model, q, feet)
    fraction = 1.0
    while fraction > 1e-9:
        if all(result.reached for result in between_soles(model, q, feet, soles, fraction * length, width)):
            return None if fraction == 1.0 else fraction * length
        fraction = round(fraction - LENGTH_STEP, 10)
    return None


def needs_vault(model: pin.Model, q: np.ndarray, feet, width: float | None) -> bool:
    """Whether the biped walks vaulting (see the module): with the feet ``width`` m apart
    (None: as they stand at ``q``), its legs sway the CoM across the walk over each sole but
    cannot put it over the sole (:func:`over_each_sole`) — what stops it is along the walk."""
    placements = stance(standing_soles(model, q, feet), width=width)
    if all(result.reached for result in over_each_sole(model, q, feet, placements)):
        return False
    middle = 0.5 * (placements[0].translation[:2] + placements[1].translation[:2])
    across = walk_axes(placements)[1][:2]
    return all(reach(model, q, feet, placements, middle + SWAY * (sole.translation[:2] - middle), across).reached
               for sole in placements)


def com_rise(model: pin.Model, q: np.ndarray, feet) -> float:
    """The vaulting walk's rise of the CoM in single support (m, see the module): the smaller
    over the legs ending at the contact frames ``feet`` of ``RISE_EXTENSION ℓ_s − h`` at the
    posture ``q`` (``ℓ_s`` the leg's straight length, ``h`` its hip's height above its
    ankle), at least 0."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    rises = []
    for foot in feet:
        leg = leg_geometry(model, q, foot)
        if leg.knee is None:
            continue
        height = float(data.oMi[leg.joints[0]].translation[2] - point_of(data, ankle_of(model, leg))[2])
        rises.append(RISE_EXTENSION * leg.straight_length - height)
    return max(0.0, min(rises)) if rises else 0.0
