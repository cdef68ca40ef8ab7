"""Legs from the kinematics: each foot's chain, its knee, how far it is stretched, its height.

A standing posture and a gait depend on the legs' geometry, which no robot names the same
way. :func:`leg_geometry` reads it off the model, for one foot at a posture ``q``:

* **chain**: the 1-dof joints on the path from the base to the foot's frame (the root joint
  of a floating base is not part of a leg);
* **hip**: the origin of the chain's first joint;
* **knee**: the joint of the chain (after the first) that changes the distance from the hip
  to the foot's frame the most over its range (sampled every :data:`KNEE_SCAN_STEP` rad, the
  others held): a knee folds the leg, from the straight length ``a + b`` toward ``|a − b|``
  (``a``, ``b`` thigh and shank), while a hip or ankle joint turns the leg or the foot about
  a point near the hip or the ankle;
* **ankle**: the origin of the joint after the knee (a humanoid's ankle), or the foot's
  frame when the knee is the chain's last joint (a quadruped's point foot). The leg's
  **length** ``ℓ(q)`` is the distance from the hip to the ankle (m);
* **straight length** ``ℓ_s``: the largest ``ℓ`` over the knee's range (the straight leg), at
  the knee value ``q_s`` (a knee's zero is not always straight: a link with an offset);
* **extension** ``ℓ(q) / ℓ_s`` (≤ 1; 1 is a straight leg, a kinematic singularity: no
  vertical motion of the hip, and the knee against its limit when that is where it
  straightens) and the **hip height** above the foot's contact frame (m).

A leg with fewer than two joints has no knee (``knee`` None, extension 1).

Units: m, rad.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

#: Sampling step (rad) of a joint's range when looking for the knee and its straight value.
KNEE_SCAN_STEP = 0.02
#: A joint's range is scanned within this much (rad) of the posture at most (continuous
#: joints, unbounded ranges).
KNEE_SCAN_SPAN = np.pi


@dataclass(frozen=True)
class Leg:
    """One leg's geometry at a posture (see the module).

    ``foot``: the foot's frame; ``joints``: the chain's joint ids, base to foot; ``knee``:
    the knee's joint id (None without one); ``straight``: the knee value of the straight leg
    (rad); ``length``, ``straight_length``: ``ℓ(q)`` and ``ℓ_s`` (m); ``hip_height``: height
    of the hip above the foot's frame (m)."""

    foot: str
    joints: tuple[int, ...]
    knee: int | None
    straight: float
    length: float
    straight_length: float
    hip_height: float

    @property
    def extension(self) -> float:
        """``ℓ(q) / ℓ_s``: 1 for a straight leg."""
        return self.length / self.straight_length if self.straight_length > 0 else 1.0


def leg_chain(model: pin.Model, foot_frame: int) -> tuple[int, ...]:
    """The 1-dof joints (ids) from the base to the frame ``foot_frame`` (a free-flyer root
    and any multi-dof joint left out)."""
    return tuple(joint for joint in model.supports[model.frames[foot_frame].parentJoint]
                 if joint > 0 and model.joints[joint].nq == 1 and model.joints[joint].nv == 1)


def leg_length(model: pin.Model, data: pin.Data, q: np.ndarray, hip: int, end) -> float:
    """The distance (m) from the origin of joint ``hip`` to ``end``: the origin of a joint
    (an int) or a frame (``("frame", id)``), at ``q``."""
    pin.framesForwardKinematics(model, data, q)
    return float(np.linalg.norm(point_of(data, end) - data.oMi[hip].translation))


def leg_joints(model: pin.Model, foot: str) -> tuple[int, ...]:
    """The chain (:func:`leg_chain`) of the leg ending at frame ``foot``: the joints a fit of
    the legs moves, without :func:`leg_geometry`'s search for the knee (its range scanned
    joint by joint: most of the time of a reach fit that only needs the chain)."""
    if not model.existFrame(foot):
        raise KeyError(f"foot {foot!r} is not a frame of the model")
    return leg_chain(model, model.getFrameId(foot))


def leg_geometry(model: pin.Model, q: np.ndarray, foot: str) -> Leg:
    """The geometry of the leg ending at frame ``foot`` at configuration ``q`` (see the
    module)."""
    joints = leg_joints(model, foot)
    frame = model.getFrameId(foot)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    foot_height = data.oMf[frame].translation[2]
    if len(joints) < 2:
        return Leg(foot, joints, None, 0.0, 0.0, 0.0, 0.0)
    hip = joints[0]
    hip_height = float(data.oMi[hip].translation[2] - foot_height)
    best = (-1.0, joints[-1])                                  # (change of the hip-foot distance, knee)
    for joint in joints[1:]:
        lengths = [leg_length(model, data, _with(model, q, joint, value), hip, ("frame", frame))
                   for value in _scan_values(model, q, joint)]
        change = max(lengths) - min(lengths)
        if change > best[0]:
            best = (change, joint)
    knee = best[1]
    end = _ankle(joints, knee, frame)
    length = leg_length(model, data, q, hip, end)
    values = _scan_values(model, q, knee)
    lengths = np.array([leg_length(model, data, _with(model, q, knee, value), hip, end) for value in values])
    top = int(np.argmax(lengths))
    straight, straight_length = _refine_straight(model, data, q, knee, hip, end, float(values[top]),
                                                 float(lengths[top]))
    return Leg(foot, joints, knee, straight, length, max(straight_length, length), hip_height)


def ankle_of(model: pin.Model, leg: Leg):
    """The leg's ankle point for :func:`leg_length`: the joint after the knee (its id), or
    the foot's frame (``("frame", id)``)."""
    return _ankle(leg.joints, leg.knee, model.getFrameId(leg.foot))


def _ankle(joints, knee: int, frame: int):
    after = joints.index(knee) + 1
    return joints[after] if after < len(joints) else ("frame", frame)


def point_of(data: pin.Data, end) -> np.ndarray:
    """The world position (3,) of a :func:`leg_length` end point at ``data``'s kinematics."""
    return data.oMf[end[1]].translation if isinstance(end, tuple) else data.oMi[end].translation


def knee_value(model: pin.Model, q: np.ndarray, joint: int) -> float:
    """The value (rad) of the 1-dof ``joint`` in ``q``."""
    return float(q[model.joints[joint].idx_q])


def _with(model: pin.Model, q: np.ndarray, joint: int, value: float) -> np.ndarray:
    changed = np.array(q, dtype=float)
    changed[model.joints[joint].idx_q] = value
    return changed


def _scan_values(model: pin.Model, q: np.ndarray, joint: int) -> np.ndarray:
    """A joint's range (within :data:`KNEE_SCAN_SPAN` of its value in ``q``), every
    :data:`KNEE_SCAN_STEP` rad, its ends included."""
    index = model.joints[joint].idx_q
    value = q[index]
    low = max(model.lowerPositionLimit[index], value - KNEE_SCAN_SPAN)
    high = min(model.upperPositionLimit[index], value + KNEE_SCAN_SPAN)
    if not high > low:
        return np.array([value])
    count = max(2, int(np.ceil((high - low) / KNEE_SCAN_STEP)) + 1)
    return np.linspace(low, high, count)


def _refine_straight(model, data, q, knee, hip, end, straight: float, length: float) -> tuple[float, float]:
    """The straight knee value to a thousandth of a radian: golden-section search of the
    largest ``ℓ`` within a scan step of ``straight``, inside the knee's range."""
    index = model.joints[knee].idx_q
    low = max(straight - KNEE_SCAN_STEP, model.lowerPositionLimit[index])
    high = min(straight + KNEE_SCAN_STEP, model.upperPositionLimit[index])
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    while high - low > 1e-3:
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        if leg_length(model, data, _with(model, q, knee, left), hip, end) >= \
                leg_length(model, data, _with(model, q, knee, right), hip, end):
            high = right
        else:
            low = left
    value = 0.5 * (low + high)
    refined = leg_length(model, data, _with(model, q, knee, value), hip, end)
    return (value, refined) if refined >= length else (straight, length)


def ankle_tilt_range(model: pin.Model, q: np.ndarray, foot: str) -> tuple[float, float]:
    """How far (rad) the joints after the knee of the leg ending at ``foot`` can tilt the
    foot from posture ``q``, about the foot frame's x axis (roll, along the sole's length)
    and its y axis (pitch): for each joint after the knee, its axis ``a`` in the foot's frame
    and its smaller distance ``r`` to a limit from ``q``; about axis ``e``, ``Σ |a · e| r``
    over the joints (a humanoid's ankle roll and pitch joints, each on one axis). Without a
    knee (no ankle), or joints without limits, ``(π, π)``: nothing bounds it."""
    leg = leg_geometry(model, q, foot)
    if leg.knee is None:
        return (np.pi, np.pi)
    frame = model.getFrameId(foot)
    data = model.createData()
    jacobian = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL)
    ranges = np.zeros(2)
    for joint in leg.joints[leg.joints.index(leg.knee) + 1:]:
        index_q, index_v = model.joints[joint].idx_q, model.joints[joint].idx_v
        axis = jacobian[3:, index_v]
        if np.linalg.norm(axis) < 1e-9:              # a prismatic joint: no tilt
            continue
        value = q[index_q]
        room = min(value - model.lowerPositionLimit[index_q], model.upperPositionLimit[index_q] - value)
        room = np.pi if not np.isfinite(room) else max(float(room), 0.0)
        ranges += np.abs(axis[:2]) / np.linalg.norm(axis) * room
    return tuple(min(float(value), np.pi) for value in ranges)
