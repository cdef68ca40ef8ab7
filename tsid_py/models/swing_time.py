r"""How quickly a leg can carry its foot: the least duration of a rest-to-rest swing within the
leg's joint velocity and torque limits.

A swing foot moved ``D`` m from rest to rest by the minimum-jerk quintic
``s(r) = 10 r³ − 15 r⁴ + 6 r⁵`` (:func:`tsid_py.control.walking.swing.quintic`) in ``T`` s peaks
at the speed ``(15/8) D / T`` (at ``r = 1/2``) and the acceleration ``(10/√3) D / T²`` (at
``r = 1/2 ± 1/(2√3)``). Near the posture ``q`` the leg's joints follow the foot linearly: with
the foot's Jacobian ``J`` (world-aligned, over the leg's 1-dof joints; the foot's orientation
held), ``q̇ = J⁺ ẋ`` and, the base held still and the velocity-product terms left out,
``τ = M_leg J⁺ ẍ + g`` (``M_leg`` the leg's block of the mass matrix, ``g`` its gravity
torques). So the swing keeps every joint ``j`` within its velocity limit ``v̄_j`` and its
effort limit ``τ̄_j`` when

.. math::

    T \ge \tfrac{15}{8} D \max_j \frac{|(J^+ e)_j|}{\bar v_j}, \qquad
    T \ge \sqrt{\tfrac{10}{\sqrt 3} D \max_j \frac{|(M_{leg} J^+ e)_j|}{\bar τ_j − |g_j|}},

``e`` the unit direction of the move. :func:`quickest_swing` is the larger of the two (joints
without a limit — 0 or infinite in the model — do not bound it).

**The swing's reaction.** The leg's joints moving the foot at ``ẋ = e`` (1 m/s) carry the
centroidal angular momentum ``h = A_g J⁺ e`` (N·m·s; ``A_g`` the centroidal momentum matrix's
angular rows over the leg's joints). With the centre of pressure ``p`` and the CoM ``z`` above
it, the horizontal CoM obeys ``m z c̈ = m g (c − p) + (−L̇_y, L̇_x)``: a foot accelerated at
``a`` along ``e`` asks the stance sole to move its centre of pressure by ``κ a / (m g)`` to
keep the CoM's motion, with ``κ = e · (−h_y, h_x)`` (:func:`swing_reaction`; positive: the
reaction drives the CoM the way the foot moves, G1 1.35, Talos 4.55 N·m·s per m/s sideways).

Units: m, s.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from .legs import leg_joints

#: Peak speed and acceleration of the rest-to-rest quintic over a unit distance in unit time.
QUINTIC_SPEED, QUINTIC_ACCELERATION = 15.0 / 8.0, 10.0 / math.sqrt(3.0)


def foot_rates(model: pin.Model, q: np.ndarray, foot: str, direction) -> tuple[list[int], np.ndarray]:
    """``(velocity indices, q̇ per m/s)`` of ``foot``'s leg joints (1-dof) at ``q`` for the foot
    moved along ``direction`` (3,) (normalised; orientation held, base still): ``J⁺ e``."""
    direction = np.asarray(direction, dtype=float)
    norm = float(np.linalg.norm(direction))
    if direction.shape != (3,) or not norm > 0.0 or not np.isfinite(norm):
        raise ValueError(f"direction must be a nonzero finite (3,) vector, got {direction!r}")
    columns = [model.joints[joint].idx_v for joint in leg_joints(model, foot)]
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    jacobian = pin.getFrameJacobian(model, data, model.getFrameId(foot), pin.LOCAL_WORLD_ALIGNED)[:, columns]
    return columns, np.linalg.pinv(jacobian) @ np.r_[direction / norm, 0.0, 0.0, 0.0]


def leg_rates(model: pin.Model, q: np.ndarray, foot: str, direction) -> tuple[list[int], np.ndarray, np.ndarray,
                                                                                np.ndarray]:
    """``(velocity indices, q̇ per m/s, τ per m/s², gravity torques)`` of ``foot``'s leg joints
    (1-dof) at ``q`` for the foot moved along ``direction`` (3,) (:func:`foot_rates`; the
    torques ``M_leg J⁺ e``, see the module)."""
    columns, rates = foot_rates(model, q, foot, direction)
    data = model.createData()
    mass = pin.crba(model, data, q)
    mass = np.triu(mass) + np.triu(mass, 1).T
    gravity = pin.computeGeneralizedGravity(model, data, q)[columns]
    return columns, rates, mass[np.ix_(columns, columns)] @ rates, gravity


def quickest_swing(model: pin.Model, q: np.ndarray, foot: str, distance: float, direction=(0.0, 1.0, 0.0)) -> float:
    """The least duration (s) of a rest-to-rest quintic moving ``foot`` ``distance`` m along
    ``direction`` from the posture ``q`` within its leg's joint velocity and effort limits
    (see the module); 0 when no joint limits it."""
    columns, rates, torques, gravity = leg_rates(model, q, foot, direction)
    distance = abs(float(distance))
    quickest = 0.0
    for column, rate, torque, weight in zip(columns, rates, torques, gravity):
        speed, effort = float(model.velocityLimit[column]), float(model.effortLimit[column])
        if 0.0 < speed < np.inf and abs(rate) > 0.0:
            quickest = max(quickest, QUINTIC_SPEED * distance * abs(rate) / speed)
        spare = effort - abs(float(weight))
        if 0.0 < effort < np.inf and abs(torque) > 0.0:
            if spare <= 0.0:
                return math.inf                          # gravity alone saturates the joint
            quickest = max(quickest, math.sqrt(QUINTIC_ACCELERATION * distance * abs(torque) / spare))
    return quickest


def swing_reaction(model: pin.Model, q: np.ndarray, foot: str, direction=(0.0, 1.0, 0.0)) -> float:
    """The reaction ``κ`` (N·m·s per m/s) of ``foot``'s leg moving the foot along the horizontal
    ``direction`` at ``q`` (see the module): the CoM is driven along ``direction`` by ``κ ä / (m z)``
    (m/s², ``ä`` the foot's acceleration) besides the pendulum's ``ω² (c − p)``."""
    direction = np.asarray(direction, dtype=float)
    columns, rates = foot_rates(model, q, foot, direction)
    data = model.createData()
    pin.computeCentroidalMap(model, data, q)
    momentum = data.Ag[3:, columns] @ rates
    unit = direction / np.linalg.norm(direction)
    return float(unit[0] * -momentum[1] + unit[1] * momentum[0])
