"""Swing-foot trajectories: from lift-off to touch-down with zero velocity and acceleration at
both ends, clearing the ground in between and landing aligned with the surface.

* Horizontal position and yaw follow a quintic polynomial between two states
  (:func:`quintic`); from rest to rest it is the minimum-jerk profile
  ``s(r) = 10 r³ − 15 r⁴ + 6 r⁵``, ``r = τ / T``.
* The height rises from the start foothold to an **apex** and comes down to the landing
  foothold, each half a quintic from rest to rest (the first ``apex_fraction`` of the swing
  up, the rest down): the sole leaves and meets the ground still, and it is at the apex, at
  rest vertically, at the switch. The apex is ``height`` above the higher of the two
  footholds, or a given height (a planner that knows the ground between them: the riser of
  a step, a bump).
* The horizontal motion (and the turn) may wait for the first ``delays[0]`` of the swing and
  end ``delays[1]`` of it before touch-down: the foot then only rises from its foothold
  (clearing the riser of a step up before moving toward it), and only comes down onto the
  landing one (the edge of a step down behind it). A planner that knows the ground picks the
  delays (:func:`~.footholds.clear_swing`).
* The sole's orientation is ``R = exp(τ) R_z(ψ)``: the yaw ``ψ`` about the vertical, then a
  tilt by the rotation vector ``τ = (τx, τy, 0)`` (the smallest rotation taking the vertical
  onto the surface's normal, :func:`tsid_py.control.terrain.tilt_rotation`); both follow quintics
  between the footholds' (yaw by the shortest angle), so the sole lands aligned with the
  surface it lands on. Its world angular velocity is ``ω = J_l(τ) τ̇ + exp(τ) e_z ψ̇``
  (``J_l`` the left Jacobian of SO(3)); the acceleration feed-forward is
  ``J_l(τ) τ̈ + exp(τ) e_z ψ̈`` (the product terms of the rates, second order in small tilts
  and slow turns, are left out). Level footholds take ``R = R_z(ψ)`` exactly.

A landing point can be changed mid-swing (:meth:`SwingTrajectory.retarget`, for step
recovery and step adjustment), and its touch-down brought forward or delayed: the horizontal
motion, yaw and tilt are re-planned from the current reference state (position, velocity,
acceleration) to the new pose, and the descent to its height (re-planned from the current
vertical state once past the apex), so the reference stays twice differentiable. A swing
delayed while it comes down rises again, to :data:`OBSTACLE_CLEARANCE` of its ``height``
above the landing (or stays where it is, when higher), halfway to the new touch-down, and
comes down from there: it moves sideways above the ground instead of along it.

Units: m, rad, s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from ..._validation import positive_scalar
from ..terrain import tilt_rotation
from .angles import wrap_angle, yaw_of_sole, yaw_rotation

#: Share of a swing's ``height`` it keeps over an obstacle (:func:`~.footholds.swing_clearance`),
#: the rise of a swing down from the highest ground it passes (:func:`~.footholds.descent_apex`)
#: and the height a delayed swing rises back to (:meth:`SwingTrajectory.retarget`).
OBSTACLE_CLEARANCE = 0.4


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
    (rad, :func:`yaw_of_sole`)."""

    placement: pin.SE3
    velocity: np.ndarray
    acceleration: np.ndarray
    yaw: float


class SwingTrajectory:
    """The foot's path from ``start`` to ``end`` (pin.SE3 of the soles) between ``lift_off``
    and ``touch_down`` (s): its apex ``height`` m above the higher foothold, or at ``apex`` m
    (a height, world z) when given, reached after ``apex_fraction`` of the swing; the
    horizontal motion within the swing less its ``delays`` (fractions at the start and the
    end, see the module)."""

    def __init__(self, start: pin.SE3, end: pin.SE3, lift_off: float, touch_down: float, height: float, *,
                 apex: float | None = None, apex_fraction: float = 0.5, delays=(0.0, 0.0)):
        self.lift_off = float(lift_off)
        self.touch_down = float(touch_down)
        positive_scalar(self.touch_down - self.lift_off, "touch_down - lift_off")
        self.height = positive_scalar(height, "height", allow_zero=True)
        fraction = positive_scalar(apex_fraction, "apex_fraction")
        if not fraction < 1.0:
            raise ValueError(f"apex_fraction must be in (0, 1), got {apex_fraction!r}")
        first, last = (positive_scalar(value, "delays", allow_zero=True) for value in delays)
        if not first + last < 0.8:
            raise ValueError(f"delays must leave at least a fifth of the swing to move, got {tuple(delays)!r}")
        self.delays = (first, last)
        #: When the horizontal motion starts and ends, s.
        self.move_start = self.lift_off + first * self.duration
        self.move_end = self.touch_down - last * self.duration
        self.apex_time = self.lift_off + fraction * self.duration
        self.start = start.copy()
        self._rise_start, self._hovering = self.lift_off, False
        low = max(float(start.translation[2]), float(end.translation[2])) + self.height
        self.apex = low if apex is None else max(float(apex), low - self.height)
        self._rise = (float(start.translation[2]), 0.0, 0.0, *quintic_coefficients(
            float(start.translation[2]), 0.0, 0.0, self.apex, self.apex_time - self.lift_off))
        tilt = _tilt_vector(start.rotation)
        self._plan(self.move_start, [*start.translation[:2], yaw_of_sole(start.rotation), *tilt], [0.0] * 5,
                   [0.0] * 5, end)
        self._descend(self.apex_time, self.apex, 0.0, 0.0)

    @property
    def duration(self) -> float:
        return self.touch_down - self.lift_off

    def _plan(self, t0: float, position, velocity, acceleration, end: pin.SE3) -> None:
        """Coefficients (plain floats) of the quintics of x, y, yaw, τx, τy from the state at
        ``t0`` to ``end`` at rest when the horizontal motion ends."""
        self.end = end.copy()
        goal = [*end.translation[:2], position[2] + wrap_angle(yaw_of_sole(end.rotation) - position[2]),
                *_tilt_vector(end.rotation)]
        self._t0 = t0
        self._terms = [(float(x0), float(v0), 0.5 * float(a0), *(float(c) for c in quintic_coefficients(
            float(x0), float(v0), float(a0), float(x1), max(self.move_end - t0, 1e-3))))
            for x0, v0, a0, x1 in zip(position, velocity, acceleration, goal)]
        self._level = all(abs(term[i]) < 1e-12 for term in self._terms[3:] for i in range(6))

    def _descend(self, t0: float, z0: float, v0: float, a0: float) -> None:
        """The vertical quintic from ``(z0, v0, a0)`` at ``t0`` down to the end's height."""
        self._descent_start = t0
        self._descent = (z0, v0, 0.5 * a0, *quintic_coefficients(z0, v0, a0, float(self.end.translation[2]),
                                                                   self.touch_down - t0))

    def retarget(self, end: pin.SE3, t: float, touch_down: float | None = None) -> None:
        """Land at ``end`` instead, and at ``touch_down`` (s; None: as planned; another one
        scales what is left of the swing — its delays and the time to its apex — in
        proportion; a later one while coming down rises again first, see the module): from
        time ``t`` on, quintics from the current reference state (continuous position,
        velocity and acceleration) to ``end``."""
        if t >= self.touch_down:
            return
        t = max(t, self.lift_off)
        position, velocity, acceleration = self._state(t)
        vertical = self._vertical(t)
        later = touch_down is not None and touch_down > self.touch_down
        if touch_down is not None and t < touch_down != self.touch_down:
            ratio = (touch_down - t) / (self.touch_down - t)
            self.move_start, self.move_end, self.apex_time = (
                moment if moment <= t else t + (moment - t) * ratio
                for moment in (self.move_start, self.move_end, self.apex_time))
            self.touch_down = float(touch_down)
        if t >= self.move_end - 0.1 * self.duration:   # past its delay's start: move until touch-down
            self.move_end = self.touch_down
        self._plan(max(t, self.move_start), position, velocity, acceleration, end)
        if later and t >= self.apex_time and vertical[1] < 0.0:     # delayed while coming down: up again
            self._hovering = True
            self.apex_time, self.apex = t + 0.5 * (self.touch_down - t), vertical[0]
        if t < self.apex_time:
            rise = (OBSTACLE_CLEARANCE if self._hovering else 1.0) * self.height
            self.apex = max(self.apex, float(end.translation[2]) + rise)
            z, vz, az = vertical
            self._rise = (z, vz, 0.5 * az, *quintic_coefficients(z, vz, az, self.apex, self.apex_time - t))
            self._rise_start = t
            self._descend(self.apex_time, self.apex, 0.0, 0.0)
        else:
            self._descend(t, *vertical)

    def _vertical(self, t: float) -> tuple[float, float, float]:
        """Height, vertical velocity and acceleration at ``t``."""
        if t < self.apex_time:
            terms, tau = self._rise, min(max(t, self._rise_start), self.apex_time) - self._rise_start
        else:
            terms, tau = self._descent, min(max(t, self._descent_start), self.touch_down) - self._descent_start
        return _evaluate(terms, tau)

    def _state(self, t: float):
        """x, y, yaw, τx, τy and their first two derivatives at ``t``."""
        tau = min(max(t, self._t0), self.move_end) - self._t0
        position, velocity, acceleration = [], [], []
        for terms in self._terms:
            p, v, a = _evaluate(terms, tau)
            position.append(p)
            velocity.append(v)
            acceleration.append(a)
        return position, velocity, acceleration

    def sample(self, t: float) -> SwingSample:
        """The reference at time ``t`` (clamped to the swing)."""
        (x, y, yaw, tx, ty), (vx, vy, vyaw, vtx, vty), (ax, ay, ayaw, atx, aty) = self._state(t)
        z, vz, az = self._vertical(min(max(t, self.lift_off), self.touch_down))
        heading = yaw_rotation(yaw)
        if self._level:
            return SwingSample(pin.SE3(heading, np.array([x, y, z])), np.array([vx, vy, vz, 0.0, 0.0, vyaw]),
                               np.array([ax, ay, az, 0.0, 0.0, ayaw]), yaw)
        tilt = np.array([tx, ty, 0.0])
        rotation = pin.exp3(tilt)
        left = pin.Jexp3(tilt).T                       # J_l(τ) = J_r(τ)ᵀ
        spin = rotation[:, 2]
        omega = left @ np.array([vtx, vty, 0.0]) + spin * vyaw
        alpha = left @ np.array([atx, aty, 0.0]) + spin * ayaw
        return SwingSample(pin.SE3(rotation @ heading, np.array([x, y, z])), np.array([vx, vy, vz, *omega]),
                           np.array([ax, ay, az, *alpha]), yaw)


def _evaluate(terms, tau: float) -> tuple[float, float, float]:
    """Position, velocity and acceleration of ``x0 + v0 τ + (a0/2) τ² + c3 τ³ + c4 τ⁴ + c5 τ⁵``."""
    x0, v0, half_a0, c3, c4, c5 = terms
    return (x0 + tau * (v0 + tau * (half_a0 + tau * (c3 + tau * (c4 + tau * c5)))),
            v0 + tau * (2 * half_a0 + tau * (3 * c3 + tau * (4 * c4 + tau * 5 * c5))),
            2 * half_a0 + tau * (6 * c3 + tau * (12 * c4 + tau * 20 * c5)))


def _tilt_vector(rotation: np.ndarray) -> tuple[float, float]:
    """``(τx, τy)``: the rotation vector of the tilt that takes the vertical onto the sole's
    normal (:func:`tsid_py.control.terrain.tilt_rotation`)."""
    tilt = pin.log3(tilt_rotation(rotation[:, 2]))
    return float(tilt[0]), float(tilt[1])
