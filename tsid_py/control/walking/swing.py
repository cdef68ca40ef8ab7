"""Swing-foot trajectories: from lift-off to touch-down with zero velocity and acceleration at
both ends.

* Horizontal position and yaw follow a quintic polynomial between two states
  (:func:`quintic`); from rest to rest it is the minimum-jerk profile
  ``s(r) = 10 r³ − 15 r⁴ + 6 r⁵``, ``r = τ / T``.
* The height above the straight line between the two footholds is the bump
  ``h(r) = 64 H r³ (1 − r)³``: ``H`` at mid-swing, and zero height, velocity and acceleration
  at lift-off and touch-down (the sole leaves and meets the ground flat and still).
* The foot stays flat (roll and pitch of the footholds, which are level on flat ground); its
  yaw turns by the shortest angle between the footholds.

A landing point can be changed mid-swing (:meth:`SwingTrajectory.retarget`, for step
recovery): the horizontal motion is re-planned from the current reference state (position,
velocity, acceleration) to the new point, so the reference stays twice differentiable.

Units: m, rad, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..._validation import positive_scalar
from .angles import wrap_angle, yaw_of, yaw_rotation


def quintic_coefficients(start, start_velocity, start_acceleration, end, duration: float):
    """``(c3, c4, c5)`` of ``x(τ) = x0 + v0 τ + a0 τ²/2 + c3 τ³ + c4 τ⁴ + c5 τ⁵``, the quintic
    from ``(x0, v0, a0)`` to ``end`` at rest (velocity and acceleration 0) after
    ``duration`` s. Floats or arrays of a common shape."""
    T = float(duration)
    d = end - start - start_velocity * T - 0.5 * start_acceleration * T**2      # what is left to travel
    e = -start_velocity - start_acceleration * T                                # ... of velocity
    f = -start_acceleration                                                     # ... of acceleration
    return ((10 * d - 4 * e * T + 0.5 * f * T**2) / T**3, (-15 * d + 7 * e * T - f * T**2) / T**4,
            (6 * d - 3 * e * T + 0.5 * f * T**2) / T**5)


def quintic(start, start_velocity, start_acceleration, end, duration: float, tau):
    """Position, velocity, acceleration at ``tau`` (clamped to [0, duration]) of the quintic
    of :func:`quintic_coefficients`. Arrays broadcast (e.g. (n,) times against (n, d) ends)."""
    x0, v0, a0, x1 = (np.asarray(value, dtype=float) for value in (start, start_velocity, start_acceleration, end))
    c3, c4, c5 = quintic_coefficients(x0, v0, a0, x1, duration)
    t = np.clip(np.asarray(tau, dtype=float), 0.0, float(duration))
    return (x0 + v0 * t + 0.5 * a0 * t**2 + c3 * t**3 + c4 * t**4 + c5 * t**5,
            v0 + a0 * t + 3 * c3 * t**2 + 4 * c4 * t**3 + 5 * c5 * t**4,
            a0 + 6 * c3 * t + 12 * c4 * t**2 + 20 * c5 * t**3)


def bump(height: float, duration: float, tau: float) -> tuple[float, float, float]:
    """``h = 64 H r³ (1 − r)³`` with ``r = τ / T`` and its two time derivatives."""
    T = float(duration)
    r = min(max(float(tau) / T, 0.0), 1.0)
    u = 1.0 - r
    h = 64.0 * height * r**3 * u**3
    dh = 64.0 * height * 3.0 * r**2 * u**2 * (u - r) / T
    ddh = 64.0 * height * 6.0 * r * u * (u * u - 3.0 * r * u + r * r) / T**2
    return h, dh, ddh


@dataclass
class SwingSample:
    """The swing foot's reference: ``placement`` (pin.SE3), ``velocity`` and
    ``acceleration`` (6,) ``[linear, angular]`` world-aligned at the foot, and its ``yaw``
    (rad)."""

    placement: pin.SE3
    velocity: np.ndarray
    acceleration: np.ndarray
    yaw: float


class SwingTrajectory:
    """The foot's path from ``start`` to ``end`` (pin.SE3, level soles) between ``lift_off``
    and ``touch_down`` (s), ``height`` m above the straight line at mid-swing."""

    def __init__(self, start: pin.SE3, end: pin.SE3, lift_off: float, touch_down: float, height: float):
        self.lift_off = float(lift_off)
        self.touch_down = float(touch_down)
        positive_scalar(self.touch_down - self.lift_off, "touch_down - lift_off")
        self.height = positive_scalar(height, "height", allow_zero=True)
        self.start = start.copy()
        yaw0 = yaw_of(start.rotation)
        self._plan(self.lift_off, [*start.translation, yaw0], [0.0] * 4, [0.0] * 4, end)

    @property
    def duration(self) -> float:
        return self.touch_down - self.lift_off

    def _plan(self, t0: float, position, velocity, acceleration, end: pin.SE3) -> None:
        """Coefficients (plain floats) of the quintic of x, y, z, yaw from the state at ``t0``
        to ``end`` at rest at touch-down."""
        self.end = end.copy()
        goal = [*end.translation, position[3] + wrap_angle(yaw_of(end.rotation) - position[3])]
        self._t0 = t0
        self._terms = [(float(x0), float(v0), 0.5 * float(a0), *(float(c) for c in quintic_coefficients(
            float(x0), float(v0), float(a0), float(x1), self.touch_down - t0)))
            for x0, v0, a0, x1 in zip(position, velocity, acceleration, goal)]

    def retarget(self, end: pin.SE3, t: float) -> None:
        """Land at ``end`` instead: from time ``t`` on, a quintic from the current reference
        state (continuous position, velocity and acceleration) to ``end``."""
        if t >= self.touch_down:
            return
        self._plan(max(t, self.lift_off), *self._state(max(t, self.lift_off)), end)

    def _state(self, t: float):
        """x, y, z (without the bump), yaw and their first two derivatives at ``t``."""
        tau = min(max(t, self._t0), self.touch_down) - self._t0
        position, velocity, acceleration = [], [], []
        for x0, v0, half_a0, c3, c4, c5 in self._terms:
            position.append(x0 + tau * (v0 + tau * (half_a0 + tau * (c3 + tau * (c4 + tau * c5)))))
            velocity.append(v0 + tau * (2 * half_a0 + tau * (3 * c3 + tau * (4 * c4 + tau * 5 * c5))))
            acceleration.append(2 * half_a0 + tau * (6 * c3 + tau * (12 * c4 + tau * 20 * c5)))
        return position, velocity, acceleration

    def sample(self, t: float) -> SwingSample:
        """The reference at time ``t`` (clamped to the swing)."""
        (x, y, z, yaw), (vx, vy, vz, vyaw), (ax, ay, az, ayaw) = self._state(t)
        h, dh, ddh = bump(self.height, self.duration, t - self.lift_off)
        placement = pin.SE3(yaw_rotation(yaw), np.array([x, y, z + h]))
        return SwingSample(placement, np.array([vx, vy, vz + dh, 0.0, 0.0, vyaw]),
                           np.array([ax, ay, az + ddh, 0.0, 0.0, ayaw]), yaw)
