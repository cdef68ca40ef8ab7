"""Compiled row writers: the PD law and the affine rows tasks, limits and the equation of
motion write into the solver's buffers, one call each (see :mod:`tsid_py._numba`).

The library calls them through :data:`direct`; a user's task goes through numba's
dispatcher, which checks the arguments' types first.
"""

from __future__ import annotations

from numba import intp, njit, void

from ._numba import MATRIX, ORDERED_MATH, VECTOR, direct_calls, inlined


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def desired_acceleration(acceleration_ref, kp, error, kd, error_rate, axis):
    """The PD law on one axis: ``a* = a_ref + Kp e + Kd ė``."""
    return acceleration_ref[axis] + kp[axis] * error[axis] + kd[axis] * error_rate[axis]


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def pd_target(acceleration_ref, kp, error, kd, error_rate, drift, kept, scale, out):
    """``out[i] = scale[i] (a* − J̇v)[kept[i]]``: the right-hand side of a PD task's kept
    rows, weighted (inlined where a kernel calls it)."""
    for i in range(kept.size):
        r = kept[i]
        out[i] = scale[i] * (desired_acceleration(acceleration_ref, kp, error, kd, error_rate, r) - drift[r])


@njit(void(MATRIX, VECTOR, VECTOR, VECTOR, intp, intp[:], VECTOR, VECTOR, VECTOR, VECTOR, VECTOR,
           MATRIX, VECTOR, VECTOR), cache=True, fastmath=ORDERED_MATH)
def pd_rows(jacobian, v, drift, error, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd,
            matrix, vector, error_rate):
    """A PD task's rows from its kinematics, whose rows ``first_row + a`` are the task's axes
    ``a``: ``ė = v_ref − J v`` into ``error_rate`` (every axis; ``v`` the robot's velocity),
    and for the kept axes ``matrix[i] = scale[i] J[·]`` and
    ``vector[i] = scale[i] (a_ref + Kp e + Kd ė − J̇v)``."""
    for a in range(error_rate.size):
        row = first_row + a
        velocity = 0.0
        for j in range(v.size):
            velocity += jacobian[row, j] * v[j]
        error_rate[a] = velocity_ref[a] - velocity
    for i in range(kept.size):
        row = first_row + kept[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = scale[i] * jacobian[row, j]
    pd_target(acceleration_ref, kp, error, kd, error_rate, drift[first_row:], kept, scale, vector)


pd_rows_inline = inlined(pd_rows)



@njit(void(MATRIX, VECTOR, intp[:], VECTOR, VECTOR, MATRIX, VECTOR), cache=True, fastmath=ORDERED_MATH)
def affine_target_rows(T, t, index, scale, reference, matrix, vector):
    """Rows asking ``T[index] x + t[index] = reference`` (an affine map of ``x``, such as the
    torques ``τ = T x + t``), scaled: ``matrix[i] = scale[i] T[index[i]]`` and
    ``vector[i] = scale[i] (reference[i] − t[index[i]])``."""
    for i in range(index.size):
        row, factor = index[i], scale[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = factor * T[row, j]
        vector[i] = factor * (reference[i] - t[row])


affine_target_rows_inline = inlined(affine_target_rows)


@njit(void(MATRIX, VECTOR, intp[:], VECTOR, VECTOR, MATRIX, VECTOR, VECTOR), cache=True, fastmath=ORDERED_MATH)
def affine_bound_rows(T, t, index, lowest, highest, matrix, lower, upper):
    """Rows bounding ``lowest ≤ T[index] x + t[index] ≤ highest``: ``matrix[i] = T[index[i]]``,
    ``lower[i] = lowest[i] − t[index[i]]`` and ``upper[i] = highest[i] − t[index[i]]``."""
    for i in range(index.size):
        row = index[i]
        for j in range(matrix.shape[1]):
            matrix[i, j] = T[row, j]
        lower[i] = lowest[i] - t[row]
        upper[i] = highest[i] - t[row]


affine_bound_rows_inline = inlined(affine_bound_rows)


@njit(void(MATRIX, VECTOR, MATRIX, MATRIX, VECTOR), cache=True, fastmath=ORDERED_MATH)
def dynamics_rows(mass_matrix, bias, ddq_block, root_rows, root_rhs):
    """The q̈ columns of the equation of motion ``D x + h = Sᵀτ``: ``ddq_block = M``, and, for
    an unactuated root of ``r`` velocities held as equalities ``D[:r] x = −h[:r]``, their q̈
    columns ``root_rows = M[:r]`` and ``root_rhs = −h[:r]`` (``r = 0``: no root rows)."""
    nv = mass_matrix.shape[0]
    for i in range(nv):
        for j in range(nv):
            ddq_block[i, j] = mass_matrix[i, j]
    for i in range(root_rows.shape[0]):
        for j in range(nv):
            root_rows[i, j] = mass_matrix[i, j]
        root_rhs[i] = -bias[i]


dynamics_rows_inline = inlined(dynamics_rows)


#: The writers' compiled functions, for arrays the library builds (:func:`direct_calls`).
direct = direct_calls(pd_rows, affine_target_rows, affine_bound_rows, dynamics_rows)
