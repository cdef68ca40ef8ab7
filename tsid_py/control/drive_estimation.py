r"""The drives' viscous damping and dry friction, estimated online from the equation of motion.

A controller is told its drives' friction only roughly (a datasheet, an identification run
months ago, a share of either: the ``--realistic`` preset feeds half forward); what it does not
feed forward the plant takes from every motion, and a light limb lags its task (iCub's swing
sole tilted 7.9° before landing). The part that is missing shows in the equation of motion.

For an actuated joint ``i`` that no active contact loads — every contact's Jacobian has a zero
column ``i``: the joint is not on the path from the root to any contact frame (a swing leg's,
an arm's) — row ``i`` of the plant's and of the controller's equations of motion read::

    (M q̈ + h)_i = τ_i + u_i − b_i q̇_i − f_i sgn(q̇_i)        (the plant)
    (M q̈* + h)_i = τ_i                                         (the QP, for its q̈*)

with ``u_i`` the drive stage's feed-forward. Their difference needs no contact force::

    y_i ≡ u_i − (M (q̈ − q̈*))_i = b_i q̇_i + f_i sgn(q̇_i) (+ the model's other errors)

The accelerations are measured, not estimated: a state estimator that predicts with the
commanded ``q̈*`` (:mod:`tsid_py.estimation.joints`) reports a departure from it late and
small, and the damping estimated from it confirms whatever was fed forward (iCub's swing hip
read 4.7 rad/s for a true 6.8). Over two windows of ``W`` steps (``window`` s), the joints'
``q̈`` is the second difference of their measured positions (the encoders),
``(q_k − 2 q_{k−W} + q_{k−2W}) / (W dt)²``, which weighs each step's acceleration by a
triangle; ``q̈*``, ``u`` and ``τ`` are averaged with the same weights, the floating base's
``q̈`` is the same average of the state's velocity differences, and ``q̇`` is
``(q_k − q_{k−2W}) / (2 W dt)``. A joint counts as free when it was free the whole span; the
estimates are updated once a window.

Per joint a Kalman filter estimates ``θ = (b, f, k, c)`` from
``y = θ · (q̇, tanh(q̇ / v_s), τ_i, 1)``: ``k τ_i`` takes the links' mass and inertia errors
(the plant's ``(M q̈ + h)_i`` is the model's scaled, to first order, when its links are), ``c``
the rest (an offset, the torque's delay), a random walk of rate ``bias_drift · τ_max`` per
√s. ``b`` and ``f`` start from what the controller was told, with a standard deviation of
the largest of that, the model's own (:func:`~tsid_py.models.actuators.drive_parameters`:
its file's values, or the typical drive's) and the typical drive's
(:data:`~tsid_py.models.actuators.TYPICAL_DAMPING`,
:data:`~tsid_py.models.actuators.TYPICAL_FRICTION` times ``τ_max``), and drift slowly
(``parameter_memory`` s); ``k`` starts at 0 with deviation ``model_error``.

The measurement noise ``R`` is the innovations' running mean square, never below what the
encoders alone put in the residual: with white noise ``σ_q`` on each joint's position, the
second difference's is ``σ_q̈ = √6 σ_q / (W dt)²`` and row ``i``'s ``(σ_q̈ ‖M_ia‖)²`` (``M_ia``
the row's joint block). On G1 walking (``--realistic``, σ_q = 1 mrad, W dt = 10 ms: σ_q̈ =
24 rad/s²) that is 0.24 N·m on an ankle roll, 7 on a knee, 23 on a hip pitch, and the
innovations' RMS was that within 5–15 % on every joint — against a drive's friction of
0.2–0.7 N·m: one window tells little, a swing's forty tell some. Started from a smaller
``R`` (the prior's own spread), the filter took the first five windows of each joint at their
word and ran G1's knee friction from 0.35 to 1.44 N·m (the plant's 0.695), where it stayed
(its ``R`` had grown meanwhile) and its rough-ground walk lost its footing (``--drive-estimate``
off by default until this floor). An innovation beyond ``gate`` standard deviations (a foot
touching down before its contact is in the QP, a push) is clipped to it.

A window counts for a joint only when its velocity is beyond ``gate`` deviations of its noise
(``σ_v = √2 σ_q / (2 W dt)``, 0.07 rad/s above): a joint at rest whose measured velocity is its
noise regresses ``y`` on that noise and pulls ``b`` toward 0 (iCub's arms' ran from 0.5 to 0 and
below, the plant's 1.0). Nor does a step whose command ``τ + u`` reached the joint's torque limit
(the drive applied less than the residual assumes).
The estimates fed forward stay in ``[0, b_max]`` and ``[0, f_max]``: ``gate`` deviations
above the prior, and for ``b`` at least ``τ_max / v_max`` (the damping that takes the whole
torque limit at the velocity limit).

A joint loaded by a contact is not updated (its estimate holds: damping and friction are the
drive's, not the phase's); a joint that does not move teaches nothing about them (its ``q̇``
regressor is zero) and keeps its prior.
"""

from __future__ import annotations

import math

import numpy as np
from numba import boolean, float64, int64, njit, void

from .._numba import FASTMATH, MATRIX, VECTOR
from ..models.actuators import (
    TYPICAL_DAMPING,
    TYPICAL_FRICTION,
    DriveParameters,
    drive_parameters,
)

MATRIX3 = float64[:, :, ::1]


@njit(void(VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, boolean[::1], MATRIX3, VECTOR, VECTOR, float64[:, ::1],
           float64[:, ::1], float64, float64, float64, float64), cache=True, fastmath=FASTMATH)
def drive_filter_step(residual, velocity, previous_velocity, feedforward, torque, free, covariance, noise, noise_floor,
                      theta, process_noise, smoothing, dt, gate, noise_memory):
    """One Kalman step per joint ``i`` with ``free[i]`` (see the module): ``residual`` is
    ``(M (q̈ − q̈*))_i``, ``feedforward`` and ``torque`` the last step's ``u`` and ``τ``;
    ``theta`` (n, 4), ``covariance`` (n, 4, 4) and ``noise`` (n,) (the innovations' mean
    square) are updated in place; the measurement noise is ``max(noise, noise_floor)`` (n,,
    N·m², what the sensors' noise alone puts in the residual); ``process_noise`` (n, 4) the
    parameters' per-step variances."""
    n, m = residual.size, theta.shape[1]
    h = np.empty(m)
    ph = np.empty(m)
    for i in range(n):
        p = covariance[i]
        for r in range(m):
            p[r, r] += process_noise[i, r]
        if not free[i]:
            continue
        mean = 0.5 * (velocity[i] + previous_velocity[i])
        h[0], h[1], h[2], h[3] = mean, math.tanh(mean / smoothing), torque[i], 1.0
        predicted = 0.0
        for r in range(m):
            predicted += theta[i, r] * h[r]
        innovation = feedforward[i] - residual[i] - predicted
        s = max(noise[i], noise_floor[i])
        for r in range(m):
            total = 0.0
            for c in range(m):
                total += p[r, c] * h[c]
            ph[r] = total
            s += h[r] * total
        noise[i] += (innovation * innovation - noise[i]) * dt / noise_memory
        bound = gate * math.sqrt(s)
        innovation = min(max(innovation, -bound), bound)
        for r in range(m):
            theta[i, r] += ph[r] / s * innovation
        for r in range(m):
            for c in range(m):
                p[r, c] -= ph[r] * ph[c] / s


@njit(void(float64[:, ::1], float64[:, ::1], int64[::1], VECTOR, VECTOR, float64, MATRIX, float64, boolean[::1],
           VECTOR), cache=True, fastmath=FASTMATH)
def window_gates(torques, feedforwards, steps, limits, velocity, velocity_bound, joints_mass, acceleration_noise, free,
                 noise_floor):
    """A window's gates and noise floor (see the module), in place: ``free[i]`` is cleared
    when a step of ``steps`` (rows of ``torques`` and ``feedforwards``) commanded
    ``|τ + u| ≥ limits[i]`` or ``|velocity[i]| ≤ velocity_bound``; ``noise_floor[i] =
    (acceleration_noise ‖joints_mass[i]‖)²``."""
    for i in range(free.size):
        total = 0.0
        for c in range(joints_mass.shape[1]):
            total += joints_mass[i, c] * joints_mass[i, c]
        noise_floor[i] = acceleration_noise * acceleration_noise * total
        if not free[i]:
            continue
        if abs(velocity[i]) <= velocity_bound:
            free[i] = False
            continue
        for k in steps:
            if abs(torques[k, i] + feedforwards[k, i]) >= limits[i]:
                free[i] = False
                break


class DriveFrictionEstimate:
    """Online estimates of each actuated joint's viscous damping ``b`` (N·m·s/rad) and dry
    friction ``f`` (N·m) (see the module).

    Parameters
    ----------
    robot : the controlled robot (its torque limits set the scales).
    dt : the control period, s.
    prior : what the controller was told of its drives (``damping``, ``friction``; the
        armature is not used).
    smoothing : ``v_s`` of the friction's ``tanh``, rad/s (the drive stage's).
    model_error : the prior deviation of ``k``, the scale error of the rigid-body model's
        torque (a link's mass and inertia known to this share).
    bias_drift : the rate of the offset's random walk, a fraction of ``τ_max`` per √s.
    parameter_memory : s over which ``b``, ``f`` and ``k`` may drift by their prior deviation.
    gate : innovations are clipped at this many standard deviations; the estimates at
        ``prior + gate σ`` (see the module).
    noise_memory : s, the time constant of the innovations' running mean square.
    window : s, half the span of the second differences (see the module).
    encoder_noise : σ of the joint positions read, rad (white, each joint's own): the
        measurement noise never goes below what it puts in the residual (see the module).
    """

    def __init__(self, robot, dt: float, prior: DriveParameters, *, smoothing: float = 0.05,
                 model_error: float = 0.2, bias_drift: float = 0.01, parameter_memory: float = 60.0,
                 gate: float = 3.0, noise_memory: float = 0.5, window: float = 0.01, encoder_noise: float = 0.0):
        for name, value in (("dt", dt), ("smoothing", smoothing), ("model_error", model_error),
                            ("bias_drift", bias_drift), ("parameter_memory", parameter_memory), ("gate", gate),
                            ("noise_memory", noise_memory), ("window", window)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if not (isinstance(encoder_noise, (int, float)) and math.isfinite(encoder_noise) and encoder_noise >= 0):
            raise ValueError(f"encoder_noise must be a number >= 0 (rad), got {encoder_noise!r}")
        if not isinstance(prior, DriveParameters) or prior.damping.size != robot.na:
            raise ValueError(f"prior must be a DriveParameters of {robot.na} joints, got {prior!r}")
        self.robot, self.dt, self.smoothing, self.gate = robot, float(dt), float(smoothing), float(gate)
        self.noise_memory = float(noise_memory)
        self.first = robot.nv - robot.na
        limits = np.asarray(robot.effort_limits, dtype=float)[-robot.na:]
        #: (na,) N·m, the torque limits: a step whose command ``τ + u`` reached one is not
        #: counted (the drive applied less than the residual assumes).
        self.torque_limits = np.where(np.isfinite(limits) & (limits > 0), limits, np.inf)
        limits = np.where(np.isfinite(limits), limits, 0.0)
        model = drive_parameters(robot)
        #: The prior's standard deviations of ``b`` and ``f``.
        self.damping_spread = np.maximum.reduce([prior.damping, model.damping, TYPICAL_DAMPING * limits])
        self.friction_spread = np.maximum.reduce([prior.friction, model.friction, TYPICAL_FRICTION * limits])
        self.prior = prior
        velocities = np.asarray(robot.velocity_limits, dtype=float)[-robot.na:]
        rated = np.where(np.isfinite(velocities) & (velocities > 0), limits / np.where(velocities > 0, velocities, 1.0),
                         0.0)
        #: The largest ``b`` and ``f`` fed forward: ``b`` the damping that would take the whole
        #: torque limit at the velocity limit (``τ_max / v_max``), or ``gate`` deviations
        #: above the prior if more; ``f`` ``gate`` deviations above the prior.
        self.upper = (np.maximum(rated, prior.damping + gate * self.damping_spread),
                      prior.friction + gate * self.friction_spread)
        #: Prior deviations of ``(b, f, k, c)`` (na, 4).
        self.spread = np.column_stack([self.damping_spread, self.friction_spread, np.full(robot.na, model_error),
                                       np.maximum(bias_drift * limits, 1e-9)])
        #: Steps per window (``window`` s): the joints' accelerations are the second
        #: differences of their measured positions over two windows.
        self.window = max(1, round(window / dt))
        update = dt * self.window                            # the period of the updates
        #: σ of the encoders' second difference, rad/s²: ``√6 σ_q / (W dt)²``.
        self.acceleration_noise = math.sqrt(6.0) * float(encoder_noise) / update ** 2
        #: σ of the encoders' central difference, rad/s: ``√2 σ_q / (2 W dt)``.
        self.velocity_noise = math.sqrt(2.0) * float(encoder_noise) / (2.0 * update)
        #: (na,) N², the residual's variance the encoders alone explain, ``(σ_q̈ ‖M_ia‖)²``
        #: (``M_ia`` row ``i`` of the mass matrix's joint block, at the last update).
        self.noise_floor = np.zeros(robot.na)
        self.process_noise = self.spread ** 2 * update / parameter_memory
        self.process_noise[:, 3] = self.spread[:, 3] ** 2 * update
        self._supports: dict[str, np.ndarray] = {}
        self._free: dict[tuple, np.ndarray] = {}
        self._slots = 2 * self.window + 1
        self._positions, self._velocities = np.zeros((self._slots, robot.na)), np.zeros((self._slots, robot.nv))
        self._ddq = np.zeros((self._slots, robot.nv))
        self._torque, self._feedforward = np.zeros((self._slots, robot.na)), np.zeros((self._slots, robot.na))
        self._free_steps = np.zeros((self._slots, robot.na), dtype=bool)
        ramp = np.arange(self.window) + 0.5                  # the second difference's weights on each step's q̈
        self._weights = np.r_[ramp, ramp[::-1]] / self.window ** 2
        self._acceleration = np.zeros(robot.nv)
        self.reset()

    def reset(self) -> None:
        """Back to the prior."""
        n = self.robot.na
        #: ``(b, f, k, c)`` per joint (na, 4), and their covariance (na, 4, 4).
        self.theta = np.zeros((n, 4))
        self.theta[:, 0], self.theta[:, 1] = self.prior.damping, self.prior.friction
        self.covariance = np.zeros((n, 4, 4))
        for r in range(4):
            self.covariance[:, r, r] = self.spread[:, r] ** 2
        self.noise = np.maximum(self.friction_spread + self.damping_spread, 1e-6) ** 2   # adapts within noise_memory
        if not hasattr(self, "damping"):               # the arrays a drive stage reads stay the same objects
            self.damping, self.friction = np.empty(n), np.empty(n)
        self.damping[:], self.friction[:] = self.prior.damping, self.prior.friction
        self._count = 0

    def free_joints(self, contacts) -> np.ndarray:
        """(na,) bool: the actuated joints no frame of ``contacts`` (names) hangs from. A
        contact whose name is not a frame loads every joint (the array is cached: read it)."""
        key = tuple(contacts)
        free = self._free.get(key)
        if free is None:
            free = np.ones(self.robot.na, dtype=bool)
            for name in key:
                free &= ~self._support(name)
            self._free[key] = free
        return free

    def _support(self, name: str) -> np.ndarray:
        mask = self._supports.get(name)
        if mask is None:
            model = self.robot.model
            mask = np.ones(self.robot.na, dtype=bool)
            if model.existFrame(name):
                loaded = np.zeros(self.robot.nv, dtype=bool)
                for joint in model.supports[model.frames[model.getFrameId(name)].parentJoint]:
                    if joint > 0:
                        loaded[model.joints[joint].idx_v:model.joints[joint].idx_v + model.joints[joint].nv] = True
                mask = loaded[self.first:]
            self._supports[name] = mask
        return mask

    def update(self, positions: np.ndarray, v: np.ndarray, ddq: np.ndarray, torque: np.ndarray,
               feedforward: np.ndarray, contacts, mass_matrix: np.ndarray) -> None:
        """One control step: the joints' measured ``positions`` (na,, the encoders') and the
        state's ``v`` (nv,) at its start, the ``ddq`` (nv,) it commanded, the QP's ``torque``
        and the ``feedforward`` (na,) sent, its active ``contacts`` (names) and the
        ``mass_matrix`` (nv, nv); every ``window`` steps the estimates (:attr:`damping`,
        :attr:`friction`) are updated over the last two windows (see the module)."""
        slot = self._count % self._slots
        self._positions[slot], self._velocities[slot], self._ddq[slot] = positions, v, ddq
        self._torque[slot], self._feedforward[slot] = torque, feedforward
        self._free_steps[slot] = self.free_joints(contacts)
        self._count += 1
        if self._count < self._slots or (self._count - self._slots) % self.window:
            return
        order = (np.arange(self._count - self._slots, self._count)) % self._slots     # oldest first
        w, h = self.window, self.dt * self.window
        steps = order[:-1]                                                          # the 2W steps applied
        weights = self._weights
        commanded = weights @ self._ddq[steps]
        acceleration = self._acceleration
        acceleration[:self.first] = weights @ np.diff(self._velocities[order, :self.first], axis=0) / self.dt
        q = self._positions[order[[0, w, 2 * w]]]
        acceleration[self.first:] = (q[2] - 2.0 * q[1] + q[0]) / (h * h)
        acceleration -= commanded
        residual = mass_matrix[self.first:] @ acceleration
        velocity = (q[2] - q[0]) / (2.0 * h)
        free = np.logical_and.reduce(self._free_steps[steps], axis=0)
        # the torque limits, a velocity beyond its noise, the encoders' share of the residual
        window_gates(self._torque, self._feedforward, steps, self.torque_limits, velocity,
                     self.gate * self.velocity_noise if self.velocity_noise > 0.0 else -1.0,
                     mass_matrix[self.first:, self.first:], self.acceleration_noise, free, self.noise_floor)
        drive_filter_step(residual, velocity, velocity, weights @ self._feedforward[steps],
                          weights @ self._torque[steps], free, self.covariance, self.noise, self.noise_floor,
                          self.theta, self.process_noise, self.smoothing, h, self.gate, self.noise_memory)
        np.clip(self.theta[:, 0], 0.0, self.upper[0], out=self.damping)
        np.clip(self.theta[:, 1], 0.0, self.upper[1], out=self.friction)
