"""Small dense pieces for the compiled estimators: ``Exp``, a rotation applied on the right
with re-orthonormalisation, the quaternion of a rotation matrix, a 3 × 3 inverse (see
:mod:`tsid_py._numba`: each filter advances in one compiled call built from these)."""

from __future__ import annotations

import numpy as np
from numba import float64, intp, njit

from .._numba import FASTMATH

#: The estimators' kernels take C-contiguous arrays (the estimator's own buffers and rows of
#: them): numba then generates unit-stride loops, 40 % faster than for arrays of any layout.
VECTOR, MATRIX, TENSOR, INDICES = float64[::1], float64[:, ::1], float64[:, :, ::1], intp[::1]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def exp3(x, y, z, out):
    """``out = Exp([x, y, z])`` (3 × 3): Rodrigues' formula, ``I + sin θ/θ [w]× + (1 − cos θ)/θ² [w]×²``,
    with the factors' series below θ = 1e-6."""
    theta2 = x * x + y * y + z * z
    if theta2 < 1e-12:
        a, b = 1.0 - theta2 / 6.0, 0.5 - theta2 / 24.0
    else:
        theta = np.sqrt(theta2)
        a, b = np.sin(theta) / theta, (1.0 - np.cos(theta)) / theta2
    out[0, 0] = 1.0 - b * (y * y + z * z)
    out[1, 1] = 1.0 - b * (x * x + z * z)
    out[2, 2] = 1.0 - b * (x * x + y * y)
    out[0, 1] = -a * z + b * x * y
    out[1, 0] = a * z + b * x * y
    out[0, 2] = a * y + b * x * z
    out[2, 0] = -a * y + b * x * z
    out[1, 2] = -a * x + b * y * z
    out[2, 1] = a * x + b * y * z


@njit(cache=True, fastmath=FASTMATH, inline="always")
def rotate_right(R, x, y, z, scratch):
    """``R ← R Exp([x, y, z])``, re-orthonormalised (a Gram–Schmidt pass on the columns keeps
    rounding from accumulating over millions of steps)."""
    exp3(x, y, z, scratch)
    for i in range(3):
        a, b, c = R[i, 0], R[i, 1], R[i, 2]
        for j in range(3):
            R[i, j] = a * scratch[0, j] + b * scratch[1, j] + c * scratch[2, j]
    orthonormalise(R)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def orthonormalise(R):
    """Gram–Schmidt on the columns of ``R`` (in place): the nearest rotation to first order."""
    n = np.sqrt(R[0, 0] ** 2 + R[1, 0] ** 2 + R[2, 0] ** 2)
    for i in range(3):
        R[i, 0] /= n
    d = R[0, 0] * R[0, 1] + R[1, 0] * R[1, 1] + R[2, 0] * R[2, 1]
    for i in range(3):
        R[i, 1] -= d * R[i, 0]
    n = np.sqrt(R[0, 1] ** 2 + R[1, 1] ** 2 + R[2, 1] ** 2)
    for i in range(3):
        R[i, 1] /= n
    R[0, 2] = R[1, 0] * R[2, 1] - R[2, 0] * R[1, 1]
    R[1, 2] = R[2, 0] * R[0, 1] - R[0, 0] * R[2, 1]
    R[2, 2] = R[0, 0] * R[1, 1] - R[1, 0] * R[0, 1]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def quaternion_of(R, out):
    """``out`` (4,) = the unit quaternion ``(x, y, z, w)`` of ``R`` (pinocchio's order;
    Shepperd's method: the largest of ``w, x, y, z`` first, so no division is small)."""
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    if trace > R[0, 0] and trace > R[1, 1] and trace > R[2, 2]:
        s = 2.0 * np.sqrt(1.0 + trace)
        out[3] = 0.25 * s
        out[0], out[1], out[2] = (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        out[3] = (R[2, 1] - R[1, 2]) / s
        out[0], out[1], out[2] = 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        out[3] = (R[0, 2] - R[2, 0]) / s
        out[0], out[1], out[2] = (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        out[3] = (R[1, 0] - R[0, 1]) / s
        out[0], out[1], out[2] = (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s
    if out[3] < 0.0:
        for i in range(4):
            out[i] = -out[i]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def inverse3(S, out):
    """``out = S⁻¹`` of a 3 × 3 matrix by its adjugate."""
    a, b, c = S[0, 0], S[0, 1], S[0, 2]
    d, e, f = S[1, 0], S[1, 1], S[1, 2]
    g, h, i = S[2, 0], S[2, 1], S[2, 2]
    A, B, C = e * i - f * h, f * g - d * i, d * h - e * g
    det = a * A + b * B + c * C
    out[0, 0], out[1, 0], out[2, 0] = A / det, B / det, C / det
    out[0, 1], out[1, 1], out[2, 1] = (c * h - b * i) / det, (a * i - c * g) / det, (b * g - a * h) / det
    out[0, 2], out[1, 2], out[2, 2] = (b * f - c * e) / det, (c * d - a * f) / det, (a * e - b * d) / det
