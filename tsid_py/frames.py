"""Frame kinematics, compiled: a frame's Jacobian, drift and placement error from
pinocchio's joint Jacobians, a frame task's rows in one call, and the dual map, the
generalized force of a wrench on a body (see :mod:`tsid_py._numba`).
"""

from __future__ import annotations

import numpy as np
from numba import boolean, float64, intp, njit, void

from ._numba import MATRIX, ORDERED_MATH, VECTOR, direct_calls, inlined
from .row_writers import pd_rows_inline

#: A frame's sources, as the frame kernels take them (see :class:`tsid_py.robot.FrameSources`):
#: pinocchio's world joint Jacobians ``data.J`` and their rates ``data.dJ`` (6 × nv), the
#: frame's supporting columns, and its world translation (3,) and rotation (3 × 3).
FRAME_SOURCES = (MATRIX, MATRIX, intp[:], VECTOR, MATRIX)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def rotation_vector(m):
    """The rotation vector ``θ n`` (``θ`` in [0, π]) of the rotation matrix whose entries,
    row by row, are the 9-tuple ``m``; a 3-tuple. pinocchio's ``log3``.

    ``θ = atan2(|s| / 2, (tr R − 1) / 2)`` with ``s = vee(R − Rᵀ) = 2 sin θ n``, and
    ``θ n = θ / (2 sin θ) s``, the factor by its series ``½ (1 + θ²/6)`` near 0. Near π, where
    ``s`` vanishes, ``n`` comes from ``R + Rᵀ = 2 cos θ I + 2 (1 − cos θ) n nᵀ`` (the column of
    the largest diagonal entry), its sign from ``s``."""
    sx, sy, sz = m[7] - m[5], m[2] - m[6], m[3] - m[1]
    cosine = 0.5 * (m[0] + m[4] + m[8] - 1.0)
    theta = np.arctan2(0.5 * np.sqrt(sx * sx + sy * sy + sz * sz), cosine)
    if theta < 1e-4:
        factor = 0.5 * (1.0 + theta * theta / 6.0)
        return factor * sx, factor * sy, factor * sz
    if theta < np.pi - 1e-3:
        factor = theta / (2.0 * np.sin(theta))
        return factor * sx, factor * sy, factor * sz
    k = 0
    if m[4] > m[4 * k]:
        k = 1
    if m[8] > m[4 * k]:
        k = 2
    scale = 1.0 / (1.0 - cosine)
    nk = np.sqrt(max((m[4 * k] - cosine) * scale, 0.0))
    # n_i = (R_ik + R_ki) / (2 (1 − cos θ) n_k); n_k itself from the diagonal.
    nx = nk if k == 0 else 0.5 * (m[k] + m[3 * k]) * scale / nk
    ny = nk if k == 1 else 0.5 * (m[3 + k] + m[3 * k + 1]) * scale / nk
    nz = nk if k == 2 else 0.5 * (m[6 + k] + m[3 * k + 2]) * scale / nk
    if nx * sx + ny * sy + nz * sz < 0.0:
        theta = -theta
    return theta * nx, theta * ny, theta * nz


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _rows_dot(A, i, B, j):
    """``A[i] · B[j]`` for 3-column matrices: entry ``(i, j)`` of ``A Bᵀ``."""
    return A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _rotate_back(R, x, y, z):
    """``Rᵀ (x, y, z)`` as a 3-tuple."""
    return (R[0, 0] * x + R[1, 0] * y + R[2, 0] * z, R[0, 1] * x + R[1, 1] * y + R[2, 1] * z,
            R[0, 2] * x + R[1, 2] * y + R[2, 2] * z)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def placement_error(translation, rotation, translation_ref, rotation_ref, local):
    """``[p_ref − p; log3(R_ref Rᵀ)]`` in world axes or, when ``local``, the same rotated by
    ``Rᵀ`` (that is ``[Rᵀ (p_ref − p); log3(Rᵀ R_ref)]``), as a 6-tuple."""
    dx, dy, dz = (translation_ref[0] - translation[0], translation_ref[1] - translation[1],
                  translation_ref[2] - translation[2])
    A, B = rotation_ref, rotation
    ox, oy, oz = rotation_vector((_rows_dot(A, 0, B, 0), _rows_dot(A, 0, B, 1), _rows_dot(A, 0, B, 2),
                                  _rows_dot(A, 1, B, 0), _rows_dot(A, 1, B, 1), _rows_dot(A, 1, B, 2),
                                  _rows_dot(A, 2, B, 0), _rows_dot(A, 2, B, 1), _rows_dot(A, 2, B, 2)))
    if not local:
        return dx, dy, dz, ox, oy, oz
    dx, dy, dz = _rotate_back(rotation, dx, dy, dz)
    ox, oy, oz = _rotate_back(rotation, ox, oy, oz)
    return dx, dy, dz, ox, oy, oz


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def point_motion(joint_jacobians, joint_jacobian_rates, columns, px, py, pz, v):
    """The velocity and drift of the world point ``p`` fixed to a body, from pinocchio's world
    joint Jacobians ``J`` and their rates ``J̇`` over the body's supporting columns ``c``: with
    ``(v_o, ω) = J_c v`` and ``(a_o, ω̇) = J̇_c v`` the spatial velocity and acceleration drift
    at the world origin, the point's velocity ``v_p = v_o + ω × p`` and classical acceleration
    at q̈ = 0 ``a_o + ω̇ × p + ω × v_p``; returns ``(v_p, that, ω̇)`` as a 9-tuple."""
    vx = vy = vz = wx = wy = wz = ax = ay = az = bx = by = bz = 0.0
    J, dJ = joint_jacobians, joint_jacobian_rates
    for k in range(columns.size):
        j = columns[k]
        vj = v[j]
        vx += J[0, j] * vj
        vy += J[1, j] * vj
        vz += J[2, j] * vj
        wx += J[3, j] * vj
        wy += J[4, j] * vj
        wz += J[5, j] * vj
        ax += dJ[0, j] * vj
        ay += dJ[1, j] * vj
        az += dJ[2, j] * vj
        bx += dJ[3, j] * vj
        by += dJ[4, j] * vj
        bz += dJ[5, j] * vj
    vx, vy, vz = vx + wy * pz - wz * py, vy + wz * px - wx * pz, vz + wx * py - wy * px
    return (vx, vy, vz, ax + by * pz - bz * py + wy * vz - wz * vy, ay + bz * px - bx * pz + wz * vx - wx * vz,
            az + bx * py - by * px + wx * vy - wy * vx, bx, by, bz)


@njit(void(*FRAME_SOURCES, VECTOR, boolean, MATRIX, VECTOR), cache=True, fastmath=ORDERED_MATH)
def frame_motion(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, local, jacobian, drift):
    """A frame's Jacobian (6 × nv, linear rows first) and drift (its classical acceleration
    at q̈ = 0) from pinocchio's world joint Jacobians ``J`` and their rates ``J̇``.

    Over the frame's supporting columns ``c``, ``(v_o, ω) = J_c v`` and ``(a_o, ω̇) = J̇_c v``
    are the spatial velocity and acceleration drift at the world origin; at the frame origin
    ``p`` the Jacobian is ``[J_c,lin + J_c,ang × p; J_c,ang]`` column by column and the drift
    ``[a_o + ω̇ × p + ω × (v_o + ω × p); ω̇]``. World axes (pinocchio's LOCAL_WORLD_ALIGNED),
    or the frame's own (LOCAL: both 3-row blocks rotated by ``Rᵀ``) when ``local``. Columns
    outside ``c`` are not written (the caller's buffer keeps them at zero)."""
    px, py, pz = translation[0], translation[1], translation[2]
    J = joint_jacobians
    for k in range(columns.size):
        j = columns[k]
        ux, uy, uz = J[3, j], J[4, j], J[5, j]
        lx, ly, lz = J[0, j] + uy * pz - uz * py, J[1, j] + uz * px - ux * pz, J[2, j] + ux * py - uy * px
        if local:
            jacobian[0, j], jacobian[1, j], jacobian[2, j] = _rotate_back(rotation, lx, ly, lz)
            jacobian[3, j], jacobian[4, j], jacobian[5, j] = _rotate_back(rotation, ux, uy, uz)
        else:
            jacobian[0, j], jacobian[1, j], jacobian[2, j] = lx, ly, lz
            jacobian[3, j], jacobian[4, j], jacobian[5, j] = ux, uy, uz
    motion = point_motion(joint_jacobians, joint_jacobian_rates, columns, px, py, pz, v)
    linear, angular = (motion[3], motion[4], motion[5]), (motion[6], motion[7], motion[8])
    if local:
        linear = _rotate_back(rotation, linear[0], linear[1], linear[2])
        angular = _rotate_back(rotation, angular[0], angular[1], angular[2])
    for r in range(3):
        drift[r], drift[3 + r] = linear[r], angular[r]


frame_motion_inline = inlined(frame_motion)


@njit(void(*FRAME_SOURCES, VECTOR, VECTOR, MATRIX, boolean, intp, intp[:], VECTOR, VECTOR, VECTOR, VECTOR,
           VECTOR, MATRIX, VECTOR, VECTOR, VECTOR, MATRIX, VECTOR), cache=True, fastmath=ORDERED_MATH)
def frame_pd_rows(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, translation_ref,
                  rotation_ref, local, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd, jacobian,
                  drift, error, error_rate, matrix, vector):
    """A frame task's rows, from the frame's sources to :func:`pd_rows` in one call: the
    frame's Jacobian and drift into ``jacobian`` and ``drift`` (:func:`frame_motion`), the
    error of the task's axes ``first_row …`` into ``error`` (:func:`placement_error`)."""
    frame_motion_inline(joint_jacobians, joint_jacobian_rates, columns, translation, rotation, v, local, jacobian,
                        drift)
    full = placement_error(translation, rotation, translation_ref, rotation_ref, local)
    for a in range(error.size):
        error[a] = full[first_row + a]
    pd_rows_inline(jacobian, v, drift, error, first_row, kept, scale, acceleration_ref, velocity_ref, kp, kd, matrix,
                   vector, error_rate)


frame_pd_rows_inline = inlined(frame_pd_rows)


@njit(void(MATRIX, MATRIX, VECTOR, intp[:], intp[:]), cache=True, fastmath=ORDERED_MATH)
def correct_composite_rates(joint_jacobians, joint_jacobian_rates, v, starts, sizes):
    """Make pinocchio's ``J̇`` the time derivative of ``J`` on composite joints (an MJCF body
    with several joints), in place.

    A joint's world Jacobian column ``J_k`` is its axis carried by the body the joint moves, so
    ``J̇_k = v_k ×ₘ J_k`` with ``v_k`` that body's spatial velocity (``×ₘ`` the motion cross
    product, ``(v, ω) ×ₘ (u, μ) = (ω × u + v × μ, ω × μ)``). pinocchio 4.1 forms every column
    of a composite joint with the velocity of its *last* body, which adds the motion of the
    composite's later axes: the column ``k`` is corrected by
    ``− (Σ_{l > k} J_l q̇_l) ×ₘ J_k``. Without it a frame's drift ``J̇ v`` beyond such a joint
    is wrong (by 0.4 m/s² at 1 rad/s). ``starts`` and ``sizes``: each composite joint's first
    column and number of columns."""
    for joint in range(starts.size):
        first, count = starts[joint], sizes[joint]
        lx = ly = lz = ax = ay = az = 0.0       # Σ_{l > k} J_l q̇_l, from the last column back
        for k in range(first + count - 1, first - 1, -1):
            ux, uy, uz = joint_jacobians[0, k], joint_jacobians[1, k], joint_jacobians[2, k]
            mx, my, mz = joint_jacobians[3, k], joint_jacobians[4, k], joint_jacobians[5, k]
            joint_jacobian_rates[0, k] -= ay * uz - az * uy + ly * mz - lz * my
            joint_jacobian_rates[1, k] -= az * ux - ax * uz + lz * mx - lx * mz
            joint_jacobian_rates[2, k] -= ax * uy - ay * ux + lx * my - ly * mx
            joint_jacobian_rates[3, k] -= ay * mz - az * my
            joint_jacobian_rates[4, k] -= az * mx - ax * mz
            joint_jacobian_rates[5, k] -= ax * my - ay * mx
            lx += ux * v[k]
            ly += uy * v[k]
            lz += uz * v[k]
            ax += mx * v[k]
            ay += my * v[k]
            az += mz * v[k]


@njit(void(MATRIX, intp[:], float64, float64, float64, float64, float64, float64, VECTOR), cache=True,
      fastmath=ORDERED_MATH)
def add_generalized_force(joint_jacobians, columns, fx, fy, fz, mx, my, mz, out):
    """``out[c] += f · J_lin[:, c] + m_O · J_ang[:, c]`` over a body's supporting columns
    ``c``: the generalized force ``J_pᵀ [f; m_p]`` of a wrench on the body, given as its force
    ``f`` and its moment ``m_O = m_p + p × f`` about the world origin (world axes, N and N·m).

    pinocchio's world joint Jacobians ``J`` map ``v`` to the body's spatial velocity at the
    world origin, ``(v_O, ω) = J_c v``; the wrench's power is ``f · v_p + m_p · ω`` with
    ``v_p = v_O + ω × p``, i.e. ``f · v_O + (m_p + p × f) · ω``. This is the one definition of
    a wrench's Jacobian map in the package: known external wrenches
    (:class:`tsid_py.external_wrenches.ExternalWrench`, online and offline) and the
    self-collision rows (a unit force pair at the nearest points) use it."""
    J = joint_jacobians
    for k in range(columns.size):
        j = columns[k]
        out[j] += fx * J[0, j] + fy * J[1, j] + fz * J[2, j] + mx * J[3, j] + my * J[4, j] + mz * J[5, j]


add_generalized_force_inline = inlined(add_generalized_force)


#: The frame kernels' compiled functions, for arrays the library builds.
direct = direct_calls(frame_motion, frame_pd_rows, add_generalized_force, correct_composite_rates)
