r"""The floating base's orientation, position and velocity: an error-state extended Kalman
filter fusing the IMU with leg kinematics, standing feet assumed fixed.

The filter of Bloesch et al. ("State estimation for legged robots: consistent fusion of leg
kinematics and IMU", RSS 2012) on point contacts, in the error-state form of Solà
("Quaternion kinematics for the error-state Kalman filter", 2017, §5–6).

**State**: the base's orientation ``R`` (world ← base), position ``p`` and velocity ``v``
(world), the gyroscope's and accelerometer's biases ``b_g``, ``b_a`` (base axes) and the
position ``d_i`` of each standing foot (world). **Errors**: ``R = R̂ Exp(δθ)`` (base axes),
the others additive — ``δx = (δθ, δp, δv, δb_g, δb_a, δd_1, …, δd_k)``, ``15 + 3k`` states.

**Prediction** with the gyroscope's ``ω_m`` and the accelerometer's specific force ``f_m``
over ``dt`` (semi-implicit, as the plant integrates and as a sampled IMU's mean readings
are consistent with): ``ω = ω_m − b̂_g``, ``f = f_m − b̂_a``:

.. math::

    \hat R ← \hat R \operatorname{Exp}(ω\, dt), \quad \hat v ← \hat v + dt\, (\hat R f + g),
    \quad \hat p ← \hat p + dt\, \hat v, \quad \hat b, \hat d \text{ unchanged}

(the specific force read at the end of the period is in the base's axes then: it is rotated
by the new ``R̂``; the Jacobians below are taken there too)

.. math::

    δθ &← \operatorname{Exp}(−ω\, dt)\, δθ − dt\, δb_g − dt\, n_g \\
    δv &← δv − dt\, \hat R [f]_× δθ − dt\, \hat R\, δb_a − dt\, \hat R\, n_a \\
    δp &← δp + dt\, δv \quad \text{(the new } δv\text{)}

with the covariance grown by the gyroscope's and accelerometer's white noise (``σ_g²``,
``σ_a²`` per sample), the biases' random walks (``σ_bg² dt``, ``σ_ba² dt``) and each
standing foot's creep (``σ_d² dt``).

**Measurement**: the legs' kinematics at the encoders' angles give each standing foot's
position in the base, ``y_i = Rᵀ (d_i − p) + n`` (``σ_r`` m per axis); with
``ŷ = R̂ᵀ (d̂_i − p̂)`` the residual is ``y_i − ŷ ≈ [ŷ]× δθ − R̂ᵀ δp + R̂ᵀ δd_i``. Through
the accelerometer's coupling (a tilt error makes ``R̂ f + g`` accelerate the base sideways,
which the feet's positions contradict) this corrects roll and pitch as well as the position
and velocity; the yaw and the absolute position are unobservable and drift only as the
gyroscope's bias and the feet's slips make them.

A foot is **put down** when the contact detector says it stands (``d̂_i = p̂ + R̂ y_i``, its
error ``δd_i = δp − R̂ [y_i]× δθ − R̂ n``: the covariance is augmented for it) and taken out
when it lifts. A foot whose residual fails the χ² gate (``gate``, the squared Mahalanobis
distance) for ``max_rejections`` steps on end has slid: it is put down anew where it is.
"""

from __future__ import annotations

import numpy as np
from numba import float64, njit, void

from .._numba import ORDERED_MATH, inlined
from .kalman import MATRIX, VECTOR, exp3, inverse3, rotate_right

# The parameter vector the kernel reads (see BaseFilter): indices.
_GYRO, _ACCEL, _GYRO_WALK, _ACCEL_WALK, _FOOT, _KINEMATICS, _GATE, _REJECTIONS, _GRAVITY = range(9)
#: The state's first foot row (after p, v, b_g, b_a).
_FOOT_ROW = 4
#: Error-state offsets: orientation, position, velocity, gyroscope bias, accelerometer bias, feet.
THETA, POSITION, VELOCITY, GYRO_BIAS, ACCEL_BIAS, FEET = 0, 3, 6, 9, 12, 15


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _predict_rows(P, gamma, rf, R, dt, column):
    """``P ← F P``: the rows ``δθ``, ``δv``, ``δp`` of the prediction's ``F`` (see the module;
    the others are the identity's), column by column (a column of ``F P`` reads only that
    column of ``P``); ``rf`` is ``R̂ [f]×``, ``column`` (9,) scratch."""
    for c in range(P.shape[0]):
        for i in range(3):
            column[i] = (gamma[i, 0] * P[0, c] + gamma[i, 1] * P[1, c] + gamma[i, 2] * P[2, c]
                         - dt * P[GYRO_BIAS + i, c])
        for i in range(3):
            velocity = P[VELOCITY + i, c]
            for m in range(3):
                velocity -= dt * (rf[i, m] * P[m, c] + R[i, m] * P[ACCEL_BIAS + m, c])
            column[6 + i] = velocity
            column[3 + i] = P[POSITION + i, c] + dt * velocity
        for i in range(9):
            P[i, c] = column[i]


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _predict_columns(P, gamma, rf, R, dt, row):
    """``P ← P Fᵀ`` (after :func:`_predict_rows`: ``F P Fᵀ``), row by row; ``row`` (9,) scratch."""
    for r in range(P.shape[0]):
        for i in range(3):
            row[i] = gamma[i, 0] * P[r, 0] + gamma[i, 1] * P[r, 1] + gamma[i, 2] * P[r, 2] - dt * P[r, GYRO_BIAS + i]
        for i in range(3):
            velocity = P[r, VELOCITY + i]
            for m in range(3):
                velocity -= dt * (rf[i, m] * P[r, m] + R[i, m] * P[r, ACCEL_BIAS + m])
            row[6 + i] = velocity
            row[3 + i] = P[r, POSITION + i] + dt * velocity
        for i in range(9):
            P[r, i] = row[i]


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _foot_update(P, H, foot, residual, variance, gate, correction, PHt, gain, scratch):
    """The measurement update of foot ``foot`` whose 3 × 9 ``H`` holds the blocks on
    ``δθ``, ``δp`` and ``δd_foot``: ``S = H P Hᵀ + variance I``, and unless the innovation's
    squared Mahalanobis distance ``d² = rᵀ S⁻¹ r`` exceeds ``gate``, ``K = P Hᵀ S⁻¹``,
    ``correction = K r``, ``P ← P − K (P Hᵀ)ᵀ``. Returns ``d²``. ``PHt``, ``gain`` (n × 3) and
    ``scratch`` (3 × 6) are work space."""
    n = P.shape[0]
    columns = (THETA, POSITION, FEET + 3 * foot)
    for r in range(n):
        for j in range(3):
            value = 0.0
            for b in range(3):
                for m in range(3):
                    value += P[r, columns[b] + m] * H[j, 3 * b + m]
            PHt[r, j] = value
    S, S_inv = scratch[0:3, 0:3], scratch[0:3, 3:6]
    for i in range(3):
        for j in range(3):
            value = 0.0
            for b in range(3):
                for m in range(3):
                    value += H[i, 3 * b + m] * PHt[columns[b] + m, j]
            S[i, j] = value
        S[i, i] += variance
    inverse3(S, S_inv)
    distance = 0.0
    for i in range(3):
        distance += residual[i] * (S_inv[i, 0] * residual[0] + S_inv[i, 1] * residual[1] + S_inv[i, 2] * residual[2])
    if distance > gate:
        return distance
    for r in range(n):
        for j in range(3):
            gain[r, j] = PHt[r, 0] * S_inv[0, j] + PHt[r, 1] * S_inv[1, j] + PHt[r, 2] * S_inv[2, j]
        correction[r] = gain[r, 0] * residual[0] + gain[r, 1] * residual[1] + gain[r, 2] * residual[2]
    for r in range(n):
        for c in range(r, n):
            value = P[r, c] - (gain[r, 0] * PHt[c, 0] + gain[r, 1] * PHt[c, 1] + gain[r, 2] * PHt[c, 2])
            P[r, c] = value
            P[c, r] = value
    return distance


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _put_down(X, R, P, y, foot, kinematic_variance, J):
    """Foot ``foot`` stands from now at ``d̂ = p̂ + R̂ y``; its error ``δd = δp − R̂ [y]× δθ −
    R̂ n`` sets its rows of the covariance (``J`` (3 × 6) scratch: the map from ``(δθ, δp)``,
    the first six error states)."""
    n, block = P.shape[0], FEET + 3 * foot
    for i in range(3):
        X[_FOOT_ROW + foot, i] = X[0, i] + R[i, 0] * y[0] + R[i, 1] * y[1] + R[i, 2] * y[2]
        # −R̂ [y]×: its column m is −R̂ (y × e_m) = R̂ (e_m × y)
        J[i, 0] = R[i, 2] * y[1] - R[i, 1] * y[2]
        J[i, 1] = R[i, 0] * y[2] - R[i, 2] * y[0]
        J[i, 2] = R[i, 1] * y[0] - R[i, 0] * y[1]
        for m in range(3):
            J[i, 3 + m] = 1.0 if i == m else 0.0
    P[block:block + 3, :] = 0.0
    P[:, block:block + 3] = 0.0
    for i in range(3):
        for c in range(n):
            if c < block or c >= block + 3:
                value = 0.0
                for a in range(6):
                    value += J[i, a] * P[a, c]
                P[block + i, c] = value
                P[c, block + i] = value
    for i in range(3):
        for j in range(3):
            value = 0.0
            for a in range(6):
                for b in range(6):
                    value += J[i, a] * P[a, b] * J[j, b]
            P[block + i, block + j] = value + (kinematic_variance if i == j else 0.0)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _inject(R, X, correction, scratch):
    """Move the estimate by the error-state ``correction`` (and leave the errors at zero)."""
    rotate_right(R, correction[0], correction[1], correction[2], scratch)
    for i in range(3):
        X[0, i] += correction[POSITION + i]
        X[1, i] += correction[VELOCITY + i]
        X[2, i] += correction[GYRO_BIAS + i]
        X[3, i] += correction[ACCEL_BIAS + i]
    for s in range(X.shape[0] - _FOOT_ROW):
        for i in range(3):
            X[_FOOT_ROW + s, i] += correction[FEET + 3 * s + i]
    correction[:] = 0.0


@njit(cache=True, inline="always")
def work_shape(states):
    """The shape of :func:`base_step`'s scratch for ``states`` error states (``15 + 3k``):
    ``P Hᵀ``, the gain and the correction (``states`` rows), then the measurement's ``H``,
    the put-down's Jacobian, ``S`` and ``S⁻¹``, ``Exp(−ω dt)``, ``R̂ [f]×``, a row of the
    prediction and the residual (14 rows of 9). Compiled: the estimator's kernel calls it."""
    return states + 14, 9


@njit(void(MATRIX, MATRIX, MATRIX, VECTOR, VECTOR, VECTOR, VECTOR, MATRIX, VECTOR, VECTOR, float64, MATRIX),
      cache=True, fastmath=ORDERED_MATH)
def base_step(R, X, P, active, rejections, gyro, accel, relative, stance, params, dt, work):
    """One step of the filter (see the module), in place on the orientation ``R`` (3 × 3),
    the state ``X`` ((4 + k) × 3: rows ``p, v, b_g, b_a, d_1 … d_k``), the covariance ``P``
    ((15 + 3k) square), ``active`` and ``rejections`` (k,): ``gyro``, ``accel`` (3,) the
    IMU's readings in base axes, ``relative`` (k × 3) each foot's position in the base from
    the kinematics, ``stance`` (k,) 1 where a foot stands, ``params`` the noise settings and
    gravity; ``work`` ((15 + 3k + 14) × 9, :func:`work_shape`) scratch."""
    n, k = P.shape[0], X.shape[0] - _FOOT_ROW
    PHt, gain, correction = work[:n, 0:3], work[:n, 3:6], work[:n, 6]
    H, J, scratch, gamma = work[n:n + 3], work[n + 3:n + 6, 0:6], work[n + 6:n + 9, 0:6], work[n + 6:n + 9, 6:9]
    rf, row, residual = work[n + 9:n + 12, 0:3], work[n + 12], work[n + 13, 0:3]
    # ---- predict
    wx, wy, wz = (gyro[0] - X[2, 0]) * dt, (gyro[1] - X[2, 1]) * dt, (gyro[2] - X[2, 2]) * dt
    f0, f1, f2 = accel[0] - X[3, 0], accel[1] - X[3, 1], accel[2] - X[3, 2]
    rotate_right(R, wx, wy, wz, gamma)      # the orientation at the end of the period, which the
    for i in range(3):                      # specific force (read then) is in: R̂ [f]×
        rf[i, 0] = R[i, 1] * f2 - R[i, 2] * f1
        rf[i, 1] = R[i, 2] * f0 - R[i, 0] * f2
        rf[i, 2] = R[i, 0] * f1 - R[i, 1] * f0
    exp3(-wx, -wy, -wz, gamma)
    _predict_rows(P, gamma, rf, R, dt, row)
    _predict_columns(P, gamma, rf, R, dt, row)
    for i in range(3):
        X[1, i] += dt * (R[i, 0] * f0 + R[i, 1] * f1 + R[i, 2] * f2 + params[_GRAVITY + i])
        X[0, i] += dt * X[1, i]
    q_accel = params[_ACCEL]
    for i in range(3):
        P[THETA + i, THETA + i] += params[_GYRO] * dt * dt
        P[VELOCITY + i, VELOCITY + i] += q_accel * dt * dt
        P[POSITION + i, POSITION + i] += q_accel * dt ** 4
        P[POSITION + i, VELOCITY + i] += q_accel * dt ** 3
        P[VELOCITY + i, POSITION + i] += q_accel * dt ** 3
        P[GYRO_BIAS + i, GYRO_BIAS + i] += params[_GYRO_WALK] * dt
        P[ACCEL_BIAS + i, ACCEL_BIAS + i] += params[_ACCEL_WALK] * dt
    for s in range(k):
        if active[s] > 0.0:
            for i in range(3):
                P[FEET + 3 * s + i, FEET + 3 * s + i] += params[_FOOT] * dt
    # ---- the feet
    for s in range(k):
        block = FEET + 3 * s
        if stance[s] <= 0.0:
            if active[s] > 0.0:
                P[block:block + 3, :] = 0.0
                P[:, block:block + 3] = 0.0
                for i in range(3):
                    P[block + i, block + i] = 1.0
                active[s], rejections[s] = 0.0, 0.0
            continue
        y = relative[s]
        if active[s] <= 0.0 or rejections[s] >= params[_REJECTIONS]:
            _put_down(X, R, P, y, s, params[_KINEMATICS], J)
            active[s], rejections[s] = 1.0, 0.0
            continue
        # ŷ = R̂ᵀ (d̂ − p̂);  H = [[ŷ]×, −R̂ᵀ, R̂ᵀ] on (δθ, δp, δd)
        d0, d1, d2 = X[_FOOT_ROW + s, 0] - X[0, 0], X[_FOOT_ROW + s, 1] - X[0, 1], X[_FOOT_ROW + s, 2] - X[0, 2]
        y0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
        y1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
        y2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
        residual[0], residual[1], residual[2] = y[0] - y0, y[1] - y1, y[2] - y2
        H[0, 0], H[0, 1], H[0, 2] = 0.0, -y2, y1
        H[1, 0], H[1, 1], H[1, 2] = y2, 0.0, -y0
        H[2, 0], H[2, 1], H[2, 2] = -y1, y0, 0.0
        for i in range(3):
            for m in range(3):
                H[i, 3 + m] = -R[m, i]
                H[i, 6 + m] = R[m, i]
        if _foot_update(P, H, s, residual, params[_KINEMATICS], params[_GATE], correction, PHt, gain,
                        scratch) > params[_GATE]:
            rejections[s] += 1.0
            continue
        rejections[s] = 0.0
        _inject(R, X, correction, gamma)


base_step_inline = inlined(base_step)


class BaseFilter:
    """The filter of the module for ``feet`` feet's slots.

    Parameters
    ----------
    feet : number of feet that may stand.
    gyro_noise : σ_g, the gyroscope's noise per sample, rad/s.
    accel_noise : σ_a, the accelerometer's noise per sample, m/s² (with what the model leaves
        out: the IMU's sampling, the feet's compliance).
    gyro_bias_walk, accel_bias_walk : σ_bg (rad/s/√s), σ_ba (m/s²/√s), the biases' random walks.
    foot_drift : σ_d, a standing foot's creep, m/√s.
    kinematic_noise : σ_r, a foot's position in the base from the encoders' angles, m.
    gravity : the world's gravity (3,), m/s².
    gate : χ² quantile (3 degrees of freedom) above which a foot's residual is refused.
    max_rejections : steps of refused residuals after which a foot is put down anew.
    initial : standard deviations at :meth:`reset` of the orientation's tilt and yaw (rad),
        the position (m), velocity (m/s), gyroscope bias (rad/s), accelerometer bias (m/s²).
    """

    def __init__(self, feet: int, *, gyro_noise: float, accel_noise: float, gyro_bias_walk: float,
                 accel_bias_walk: float, foot_drift: float, kinematic_noise: float, gravity=(0.0, 0.0, -9.81),
                 gate: float = 16.27, max_rejections: int = 20,
                 initial=(1e-3, 1e-4, 1e-3, 1e-3, 1e-4, 1e-3)):
        values = dict(gyro_noise=gyro_noise, accel_noise=accel_noise, gyro_bias_walk=gyro_bias_walk,
                      accel_bias_walk=accel_bias_walk, foot_drift=foot_drift, kinematic_noise=kinematic_noise,
                      gate=gate)
        for name, value in values.items():
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        initial = np.asarray(initial, dtype=float)
        if initial.shape != (6,) or not np.all(np.isfinite(initial)) or np.any(initial <= 0):
            raise ValueError(f"initial must be six positive standard deviations, got {initial!r}")
        self.feet = int(feet)
        self.params = np.array([gyro_noise ** 2, accel_noise ** 2, gyro_bias_walk ** 2, accel_bias_walk ** 2,
                                foot_drift ** 2, kinematic_noise ** 2, gate, float(max_rejections),
                                *np.asarray(gravity, dtype=float)])
        self.initial = initial
        n = FEET + 3 * self.feet
        self.rotation = np.eye(3)
        self.state = np.zeros((_FOOT_ROW + self.feet, 3))
        self.covariance = np.eye(n)
        self.active = np.zeros(self.feet)
        self.rejections = np.zeros(self.feet)
        self.work = np.zeros(work_shape(n))
        self.reset(np.eye(3), np.zeros(3))

    @property
    def position(self) -> np.ndarray:
        """The base's position (3,), m, world (a view of the state)."""
        return self.state[0]

    @property
    def velocity(self) -> np.ndarray:
        """The base's linear velocity (3,), m/s, world axes (a view of the state)."""
        return self.state[1]

    @property
    def gyro_bias(self) -> np.ndarray:
        """The gyroscope's bias (3,), rad/s, base axes (a view of the state)."""
        return self.state[2]

    @property
    def accel_bias(self) -> np.ndarray:
        """The accelerometer's bias (3,), m/s², base axes (a view of the state)."""
        return self.state[3]

    @property
    def feet_positions(self) -> np.ndarray:
        """The standing feet's positions (k × 3), m, world (a view; a foot's row is meaningful
        while :attr:`active`)."""
        return self.state[_FOOT_ROW:]

    def reset(self, rotation, position, velocity=None) -> None:
        """Start at ``rotation`` (world ← base), ``position`` and ``velocity`` (world, default
        0) with the initial uncertainties and zero biases; no foot stands."""
        self.rotation[:] = rotation
        self.state[:] = 0.0
        self.state[0] = position
        self.state[1] = 0.0 if velocity is None else velocity
        tilt, yaw, position_sigma, velocity_sigma, gyro_bias, accel_bias = self.initial
        diagonal = np.ones(self.covariance.shape[0])
        diagonal[:FEET] = np.repeat([0.0, position_sigma, velocity_sigma, gyro_bias, accel_bias], 3) ** 2
        diagonal[THETA:THETA + 3] = [tilt ** 2, tilt ** 2, yaw ** 2]
        self.covariance[:] = np.diag(diagonal)
        self.active[:] = 0.0
        self.rejections[:] = 0.0

    def step(self, gyro, accel, relative, stance, dt: float) -> None:
        """Advance one period ``dt`` with the IMU's ``gyro`` and ``accel`` (3,), each foot's
        position in the base ``relative`` (k × 3) and the ``stance`` flags (k,)."""
        base_step(self.rotation, self.state, self.covariance, self.active, self.rejections, gyro, accel, relative,
                  stance, self.params, dt, self.work)
