r"""Joint positions and velocities from encoders: a steady-state Kalman filter per joint that
predicts with the controller's commanded acceleration.

Finite differences of encoder positions amplify their noise by ``√2 / dt`` (σ = 1 mrad at
1 kHz reads as 1.4 rad/s), and a low-pass filter after them trades that noise for lag: the
velocity of a joint that starts to move shows up only after the filter's time constant. A
Kalman filter whose model is the controller's own command does not lag on what was
commanded. Per joint, with state ``x = (q, q̇)``, encoder reading ``y`` and the acceleration
``a`` the last control step commanded (the solution's q̈), a prediction then a correction:

.. math::

    q^- &= q + dt\, \dot q + ½\, dt² a, \qquad \dot q^- = \dot q + dt\, a \\
    e &= y − q^-, \qquad q = q^- + α e, \qquad \dot q = \dot q^- + \frac{β}{dt} e

The model is the white-noise-acceleration one (Bar-Shalom, Li, Kirubarajan, *Estimation
with Applications to Tracking and Navigation*, 2001, §6.5): the joint's acceleration is the
commanded one plus a piecewise-constant white error of standard deviation ``σ_w`` (rad/s²:
contacts, pushes, the plant's unmodelled armature and friction), the encoder adds white
noise of standard deviation ``σ_n`` (rad). Its steady-state Kalman gains depend only on
the *tracking index* ``λ = σ_w dt² / σ_n`` (Kalata, 1984):

.. math::

    α = −\frac{λ² + 8λ − (λ + 4) \sqrt{λ² + 8λ}}{8}, \qquad
    β = \frac{λ² + 4λ − λ \sqrt{λ² + 8λ}}{4}

and so does the steady-state error covariance (:func:`steady_state_covariance`, the model's
whole error: noise and unpredicted motion), and the part of the estimate that is the
encoders' noise passed through (:func:`filtered_noise`: what a joint at rest shows). With
``σ_n`` = 1 mrad and ``σ_w`` = 10 rad/s² at 1 kHz (λ = 0.01: α = 0.13, β = 0.0093) a joint at
rest reads 0.019 rad/s of velocity noise, 75 times less than its finite differences' 1.4 rad/s,
the whole error is 0.037 rad/s, and an unmodelled acceleration step is followed within about
``dt / √β`` ≈ 10 ms.
Quantisation is white noise of ``σ = step / √12`` for this purpose.
"""

from __future__ import annotations

import math

import numpy as np
from numba import float64, njit, void

from .._numba import ORDERED_MATH, inlined
from .kalman import VECTOR


def alpha_beta_gains(tracking_index: float) -> tuple[float, float]:
    """Steady-state gains ``(α, β)`` of the white-noise-acceleration filter for the tracking
    index ``λ = σ_w dt² / σ_n`` (> 0; see the module)."""
    lam = float(tracking_index)
    if not lam > 0 or not math.isfinite(lam):
        raise ValueError(f"tracking_index must be a positive finite number, got {tracking_index!r}")
    root = math.sqrt(lam * lam + 8.0 * lam)
    alpha = -(lam * lam + 8.0 * lam - (lam + 4.0) * root) / 8.0
    beta = (lam * lam + 4.0 * lam - lam * root) / 4.0
    return alpha, beta


def steady_state_covariance(alpha: float, beta: float, position_noise: float, dt: float) -> np.ndarray:
    r"""The filtered estimate's error covariance (2 × 2, ``(q, q̇)``) in the steady state of
    gains ``(α, β)``, for encoder noise ``position_noise`` (σ, rad) at period ``dt`` (s):

    .. math::

        P = σ_n² \begin{bmatrix} α & β / dt \\ β / dt & \frac{β (α − β/2)}{(1 − α)\, dt²} \end{bmatrix}

    (the corrected covariance of the Kalman filter whose steady-state gains they are)."""
    variance = float(position_noise) ** 2
    return variance * np.array([[alpha, beta / dt],
                                [beta / dt, beta * (alpha - beta / 2.0) / ((1.0 - alpha) * dt * dt)]])


def filtered_noise(alpha: float, beta: float, position_noise: float, dt: float) -> tuple[float, float]:
    r"""``(σ_q, σ_v)``, the standard deviations the encoders' white noise ``position_noise``
    (rad) leaves in the filtered position and velocity (period ``dt``), from the stationary
    covariance of the filter's error driven by that noise alone:

    .. math::

        σ_q² = σ_n² \frac{2α² + β (2 − 3α)}{α (4 − 2α − β)}, \qquad
        σ_v² = σ_n² \frac{2β²}{α (4 − 2α − β)\, dt²}
    """
    denominator = alpha * (4.0 - 2.0 * alpha - beta)
    return (position_noise * math.sqrt((2.0 * alpha ** 2 + beta * (2.0 - 3.0 * alpha)) / denominator),
            position_noise * math.sqrt(2.0 * beta ** 2 / denominator) / dt)


@njit(void(VECTOR, VECTOR, VECTOR, VECTOR, float64, float64, float64), cache=True, fastmath=ORDERED_MATH)
def joint_filter_step(position, velocity, reading, acceleration, alpha, beta, dt):
    """One predict/correct step of the filter (see the module), in place on ``position`` and
    ``velocity`` (n,), with the encoder ``reading`` and commanded ``acceleration`` (n,)."""
    half = 0.5 * dt * dt
    gain = beta / dt
    for i in range(position.size):
        predicted = position[i] + dt * velocity[i] + half * acceleration[i]
        error = reading[i] - predicted
        position[i] = predicted + alpha * error
        velocity[i] = velocity[i] + dt * acceleration[i] + gain * error


joint_filter_step_inline = inlined(joint_filter_step)


class JointFilter:
    """The per-joint filter of the module for ``size`` joints at period ``dt`` (s).

    Parameters
    ----------
    size : number of joints.
    dt : period, s.
    position_noise : encoder noise σ_n, rad (white; a quantisation step counts ``step / √12``).
    acceleration_noise : σ_w, rad/s², the standard deviation of the joints' acceleration
        about the commanded one.
    """

    def __init__(self, size: int, dt: float, *, position_noise: float, acceleration_noise: float):
        if dt <= 0 or position_noise <= 0 or acceleration_noise <= 0:
            raise ValueError("dt, position_noise and acceleration_noise must be positive, got "
                             f"{dt!r}, {position_noise!r}, {acceleration_noise!r}")
        self.dt = float(dt)
        self.position_noise, self.acceleration_noise = float(position_noise), float(acceleration_noise)
        self.alpha, self.beta = alpha_beta_gains(acceleration_noise * dt * dt / position_noise)
        self.position = np.zeros(size)
        self.velocity = np.zeros(size)
        self._zero = np.zeros(size)

    def reset(self, position, velocity=None) -> None:
        """Start from ``position`` (and ``velocity``, default 0)."""
        self.position[:] = position
        self.velocity[:] = 0.0 if velocity is None else velocity

    def step(self, reading: np.ndarray, acceleration: np.ndarray | None = None) -> None:
        """Advance one period with the encoder ``reading`` and the commanded ``acceleration``
        (None: zero)."""
        joint_filter_step(self.position, self.velocity, reading,
                          self._zero if acceleration is None else acceleration, self.alpha, self.beta, self.dt)

    def noise(self) -> tuple[float, float]:
        """``(σ_q, σ_v)`` of the estimate of a joint at rest (:func:`filtered_noise`)."""
        return filtered_noise(self.alpha, self.beta, self.position_noise, self.dt)

    def covariance(self) -> np.ndarray:
        """The steady-state error covariance (2 × 2, one joint; :func:`steady_state_covariance`)."""
        return steady_state_covariance(self.alpha, self.beta, self.position_noise, self.dt)
