"""What the hip strategy buys: the capture-point shift from the upper body's angular momentum.

With a centroidal angular-momentum rate ``L̇`` the horizontal CoM dynamics of the linear inverted
pendulum (CoM height ``h``, ``ω = sqrt(g/h)``, moment balance about the CoM with the ground force
at the CoP ``p``) read

    c̈_x = ω² (c_x − (p_x + L̇_y / (m g))),     c̈_y = ω² (c_y − (p_y − L̇_x / (m g))),

so the centroidal moment pivot (CMP) is the CoP shifted by ``|L̇_⊥| / (m g)`` (m). The divergent
component ``ξ = c + ċ/ω`` obeys ``ξ̇ = ω (ξ − p_cmp)``; a CMP offset ``Δ(t)`` beyond the CoP bound
catches an extra initial DCM offset ``Δξ = ∫₀^∞ ω e^{−ωs} Δ(s) ds``. For a bang-bang rate
(``+τ`` for ``T`` then ``−τ`` for ``T``, the flywheel's momentum back to 0 at ``2T``)

    Δξ = (τ / (m g)) (1 − e^{−ωT})².

The rate ``τ`` the upper body can give comes from the centroidal momentum matrix ``A_g``
(``pin.computeCentroidalMap``): joint ``j`` (legs excluded) contributes ``A_g[axis, j] q̈_j``
with ``q̈_j`` bounded by its torque (diagonal joint-space inertia), its velocity limit
(peak ``q̈_j T``) and its range (travel ``q̈_j T²`` in the chosen direction). Joints are taken
independently (coupling neglected, so an estimate, not a bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin


@dataclass(frozen=True)
class HipCapacity:
    """The upper body's bang-bang angular-momentum rate about one horizontal axis."""

    axis: int            # 0: about x (moves the CMP along y), 1: about y (along x)
    duration: float      # T (s): one half of the bang-bang
    rate: float          # τ = |L̇| (N·m) for both halves
    cmp_shift: float     # τ / (m g) (m)
    dcm_shift: float     # (τ/(m g)) (1 − e^{−ωT})² (m)


def dcm_shift(rate: float, duration: float, mass: float, gravity: float, omega: float) -> float:
    """Extra initial DCM offset (m) a bang-bang ``±rate`` (N·m) over ``2 duration`` catches."""
    return rate / (mass * gravity) * (1.0 - math.exp(-omega * duration)) ** 2


def upper_body_joints(model: pin.Model, foot_frames: list[str]) -> list[int]:
    """Actuated joints (pinocchio joint ids) that do not carry a foot."""
    leg = set()
    for name in foot_frames:
        j = model.frames[model.getFrameId(name)].parentJoint
        while j > 0:
            leg.add(j)
            j = model.parents[j]
    return [j for j in range(1, model.njoints)
            if j not in leg and model.joints[j].nv == 1]


def capacity(model: pin.Model, q: np.ndarray, foot_frames: list[str], axis: int,
             duration: float, sign: float = 1.0) -> HipCapacity:
    """The bang-bang rate about ``axis`` (``sign`` its direction) within torque, velocity and range."""
    if axis not in (0, 1):
        raise ValueError(f"axis: expected 0 (x) or 1 (y), got {axis!r}")
    if not duration > 0.0:
        raise ValueError(f"duration: expected a positive time (s), got {duration!r}")
    data = model.createData()
    ag = pin.computeCentroidalMap(model, data, q)
    mass_matrix = pin.crba(model, data, q)
    mass = float(sum(inertia.mass for inertia in model.inertias))
    gravity = float(np.linalg.norm(model.gravity.linear))
    pin.framesForwardKinematics(model, data, q)
    sole = min(float(data.oMf[model.getFrameId(f)].translation[2]) for f in foot_frames)
    com_height = float(pin.centerOfMass(model, data, q)[2]) - sole
    omega = math.sqrt(gravity / com_height)
    rate = 0.0
    for j in upper_body_joints(model, foot_frames):
        iv, iq = model.joints[j].idx_v, model.joints[j].idx_q
        gain = float(ag[3 + axis, iv])           # N·m·s per rad/s
        if gain == 0.0:
            continue
        direction = math.copysign(1.0, gain * sign)
        travel = (model.upperPositionLimit[iq] - q[iq]) if direction > 0 else (q[iq] - model.lowerPositionLimit[iq])
        bounds = [model.effortLimit[iv] / mass_matrix[iv, iv],
                  model.velocityLimit[iv] / duration,
                  max(float(travel), 0.0) / duration ** 2]
        finite = [b for b in bounds if np.isfinite(b) and b > 0.0] or [0.0]
        rate += abs(gain) * min(finite)
    return HipCapacity(axis, duration, rate, rate / (mass * gravity),
                       dcm_shift(rate, duration, mass, gravity, omega))

