"""Input checks shared by every public entry point.

Each helper returns a clean ``float64`` array (or float) or raises ``ValueError`` whose message
names the argument and the expected form.
"""

from __future__ import annotations

import numpy as np
from numba import boolean, njit

from ._numba import VECTOR, compiled_function

_FLOAT64 = np.dtype(np.float64)


@njit(boolean(VECTOR), cache=True, _nrt=False)
def all_finite(x):
    """Whether every entry of ``x`` is finite (no NaN, no inf); strict IEEE arithmetic."""
    for i in range(x.size):
        if not np.isfinite(x[i]):
            return False
    return True


#: :func:`all_finite`'s compiled function, without the dispatcher: for 1-D float64 arrays only.
finite_vector = compiled_function(all_finite)


def _real_array(value, name: str) -> np.ndarray:
    """``value`` as float64, refusing text, objects and complex numbers (numpy would drop
    the imaginary part with only a warning)."""
    if np.iscomplexobj(value):
        raise ValueError(f"{name} must be an array of real numbers, got complex values")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of numbers, got {type(value).__name__}") from exc


def as_vector(value, name: str, size: int | None = None) -> np.ndarray:
    """A finite 1-D float array, of ``size`` entries when given."""
    if (type(value) is np.ndarray and value.dtype is _FLOAT64 and value.ndim == 1
            and (size is None or value.shape[0] == size) and finite_vector(value)):
        return value        # the common case in a control loop, checked in one compiled call
    array = _real_array(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {array.shape}")
    if size is not None and array.shape[0] != size:
        raise ValueError(f"{name} must have shape ({size},), got {array.shape}")
    if not finite_vector(array):      # the fast path's test
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def as_matrix(value, name: str, shape: tuple[int | None, int | None]) -> np.ndarray:
    """A finite 2-D float array whose shape matches ``shape`` (None matches any size)."""
    array = _real_array(value, name)
    expected = tuple("*" if s is None else s for s in shape)
    if array.ndim != 2 or any(s is not None and s != a for s, a in zip(shape, array.shape)):
        raise ValueError(f"{name} must have shape {expected}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def per_axis(value, name: str, size: int, *, minimum: float = 0.0, strict: bool = False) -> np.ndarray:
    """A scalar or one value per axis, each ``>= minimum`` (``> minimum`` when ``strict``)."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        array = np.full(size, float(array))
    array = as_vector(array, name, size)
    bad = array <= minimum if strict else array < minimum
    if np.any(bad):
        relation = ">" if strict else ">="
        raise ValueError(f"{name} must be {relation} {minimum} on every axis, got {array}")
    return array


def positive_scalar(value, name: str, *, allow_zero: bool = False) -> float:
    """A finite float ``> 0`` (or ``>= 0`` with ``allow_zero``)."""
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number, got {value!r}") from exc
    if not np.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        relation = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {relation}, got {value!r}")
    return number


def mask_vector(mask, name: str, size: int) -> np.ndarray:
    """A boolean selection of axes; ``None`` selects all of them."""
    if mask is None:
        return np.ones(size, dtype=bool)
    array = np.asarray(mask)
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) of booleans, got {array.shape}")
    array = array.astype(bool)
    if not array.any():
        raise ValueError(f"{name} must select at least one axis")
    return array


def as_rotation(value, name: str) -> np.ndarray:
    """A 3x3 rotation matrix (orthonormal, det +1, to 1e-6)."""
    rotation = as_matrix(value, name, (3, 3))
    if np.abs(rotation.T @ rotation - np.eye(3)).max() > 1e-6 or np.linalg.det(rotation) < 0:
        raise ValueError(f"{name} must be a rotation matrix (orthonormal with determinant +1)")
    return rotation


def priority(value, name: str = "priority") -> str | int:
    """``"hard"`` (level 0: equalities, or inequalities that must hold), a level ``1, 2, …``
    (an int: solved lexicographically, level 1 first; see :mod:`tsid_py.hierarchy`) or
    ``"soft"`` (the last level: the weighted cost)."""
    if isinstance(value, str) and value in ("soft", "hard"):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 1:
        return int(value)
    raise ValueError(f"{name} must be 'hard', 'soft' or a level 1, 2, … (an int ≥ 1), got {value!r}")
