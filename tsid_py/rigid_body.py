"""The robot's kinematics and dynamics at one state, in one compiled pass: what a control
step reads, and nothing else.

One forward and one backward sweep over the kinematic tree, in world axes at the world origin
(spatial vectors ``[linear; angular]``, pinocchio's WORLD convention), give

* the joints' world placements ``oMᵢ`` and the world joint Jacobians ``J`` (6 × nv, pinocchio's
  ``data.J``): joint ``i``'s columns are its motion subspace ``Sᵢ`` moved to the world origin;
* their rates ``J̇ᵢ = vᵢ × Jᵢ`` (``data.dJ``), ``vᵢ`` the body's spatial velocity;
* ``M(q)`` by the composite-rigid-body algorithm: ``M[i, j] = Jᵢᵀ Yᶜⱼ Jⱼ`` for ``i`` on the path
  from the root to ``j``, ``Yᶜⱼ`` the composite inertia of ``j``'s subtree, plus the armature;
* ``h(q, v) = C(q, v) v + g(q)`` by the recursive Newton–Euler algorithm at ``q̈ = 0``: each
  body's force ``fᵢ = Yᵢ (aᵢ − g) + vᵢ ×* Yᵢ vᵢ`` (``aᵢ = Σ J̇ⱼ vⱼ`` over its path), and
  ``hᵢ = Jᵢᵀ Σ_subtree f``;
* the centre of mass ``c``, its velocity, its acceleration at ``q̈ = 0`` and its Jacobian
  ``J_com = (Yᶜ J)_linear / m``; the centroidal momentum matrix ``A_g`` (the columns ``Yᶜⱼ Jⱼ``
  moved to ``c``), the momentum ``h_g = A_g v`` and its drift ``Ȧ_g v`` (the bodies' forces
  at ``q̈ = 0`` without gravity, about ``c``);
* the placements of the frames asked for (``oMf = oMᵢ · ᵢMf``).

These are the quantities of pinocchio's ``computeAllTerms``, ``updateFramePlacements`` and
``centerOfMass`` that tasks and contacts read (the tests compare them to 1e-12), without what
they compute besides (the centroidal matrix's time derivative column by column, the energies,
every frame). Joints: a free flyer, revolute and prismatic joints about any axis and unbounded
(continuous) revolute joints; a model with others is updated by pinocchio
(:mod:`tsid_py.dynamics_pass` chooses).
"""

from __future__ import annotations

import numpy as np
from numba import float64, intp, njit

from ._numba import FASTMATH

#: Joint kinds of the compiled pass.
FREE_FLYER, REVOLUTE, PRISMATIC, UNBOUNDED = 0, 1, 2, 3

#: A joint kind by pinocchio's joint short name (the axis-aligned ones end in X, Y or Z).
KINDS = {"JointModelFreeFlyer": FREE_FLYER, "JointModelRevoluteUnaligned": REVOLUTE,
          "JointModelPrismaticUnaligned": PRISMATIC, "JointModelRevoluteUnboundedUnaligned": UNBOUNDED,
          **{f"JointModelR{a}": REVOLUTE for a in "XYZ"}, **{f"JointModelP{a}": PRISMATIC for a in "XYZ"},
          **{f"JointModelRUB{a}": UNBOUNDED for a in "XYZ"}}

#: Columns of a body's row in the model table: joint axis (3), the joint's placement in its
#: parent's frame (rotation 9, row by row, translation 3), the body's mass (1), centre of mass
#: in the joint frame (3) and rotational inertia about it (9, row by row).
AXIS, PLACEMENT_R, PLACEMENT_P, MASS, LEVER, INERTIA, BODY_COLUMNS = 0, 3, 12, 15, 16, 19, 28

#: Entries per joint of the work table, world axes at the world origin: rotation (9, row by
#: row), origin (3), velocity (6), drift acceleration (6); then what the backward sweep sums
#: over subtrees: force with gravity (6), inertia (10: m, m c, the rotational inertia about the
#: origin's distinct entries I00 I01 I02 I11 I12 I22), momentum (6), force without gravity (6).
ROTATION, ORIGIN, VELOCITY, DRIFT, FORCE, COMPOSITE, MOMENTUM, RATE, JOINT_COLUMNS = 0, 9, 12, 18, 24, 30, 40, 46, 52


def output_sizes(nv: int, frames: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The named outputs, in the order the buffer of :func:`rigid_body_pass` holds them."""
    return (("mass_matrix", (nv, nv)), ("bias", (nv,)), ("joint_jacobians", (6, nv)),
            ("joint_jacobian_rates", (6, nv)), ("com", (3,)), ("com_velocity", (3,)), ("com_drift", (3,)),
            ("com_jacobian", (3, nv)), ("centroidal_matrix", (6, nv)), ("centroidal_momentum", (6,)),
            ("centroidal_drift", (6,)), ("frame_rotations", (frames, 3, 3)), ("frame_translations", (frames, 3)))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _joint_motion(kind, axis, q, iq):
    """The joint's rotation (9-tuple, row by row) and translation (3-tuple) at ``q``."""
    if kind == FREE_FLYER:
        x, y, z, w = q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6]
        return ((1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
                 2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
                 2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)),
                (q[iq], q[iq + 1], q[iq + 2]))
    a0, a1, a2 = axis[0], axis[1], axis[2]
    if kind == PRISMATIC:
        d = q[iq]
        return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (a0 * d, a1 * d, a2 * d)
    if kind == REVOLUTE:
        c, s = np.cos(q[iq]), np.sin(q[iq])
    else:
        c, s = q[iq], q[iq + 1]
    t = 1.0 - c                                    # Rodrigues: R = c I + s [a]× + (1 − c) a aᵀ
    return ((c + t * a0 * a0, t * a0 * a1 - s * a2, t * a0 * a2 + s * a1,
             t * a0 * a1 + s * a2, c + t * a1 * a1, t * a1 * a2 - s * a0,
             t * a0 * a2 - s * a1, t * a1 * a2 + s * a0, c + t * a2 * a2), (0.0, 0.0, 0.0))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _inertia_times(Y, lx, ly, lz, wx, wy, wz):
    """The spatial inertia ``Y = (m, m c, I_O)`` at the origin times the motion ``(l, ω)``:
    ``(m l − m c × ω, m c × l + I_O ω)``, a 6-tuple."""
    m, hx, hy, hz = Y[0], Y[1], Y[2], Y[3]
    return (m * lx - (hy * wz - hz * wy), m * ly - (hz * wx - hx * wz), m * lz - (hx * wy - hy * wx),
            hy * lz - hz * ly + Y[4] * wx + Y[5] * wy + Y[6] * wz,
            hz * lx - hx * lz + Y[5] * wx + Y[7] * wy + Y[8] * wz,
            hx * ly - hy * lx + Y[6] * wx + Y[8] * wy + Y[9] * wz)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _forward(tree, bodies, gravity, q, v, work, J, dJ):
    """The forward sweep: placements, Jacobians and their rates, velocities, drift
    accelerations, the bodies' inertias and Newton–Euler forces, in world axes."""
    gx, gy, gz = gravity[0], gravity[1], gravity[2]
    for i in range(1, tree.shape[0]):
        parent, kind, iq, col = tree[i, 0], tree[i, 1], tree[i, 2], tree[i, 3]
        body, W, P = bodies[i], work[i], work[parent]
        Rj, tj = _joint_motion(kind, body[AXIS:AXIS + 3], q, iq)
        # oMᵢ = oM_parent · placement · joint: A = R_parent R_placement, then R = A R_joint.
        for r in range(3):
            a0 = P[3 * r] * body[PLACEMENT_R] + P[3 * r + 1] * body[PLACEMENT_R + 3] + P[3 * r + 2] * body[PLACEMENT_R + 6]
            a1 = (P[3 * r] * body[PLACEMENT_R + 1] + P[3 * r + 1] * body[PLACEMENT_R + 4]
                  + P[3 * r + 2] * body[PLACEMENT_R + 7])
            a2 = (P[3 * r] * body[PLACEMENT_R + 2] + P[3 * r + 1] * body[PLACEMENT_R + 5]
                  + P[3 * r + 2] * body[PLACEMENT_R + 8])
            W[ORIGIN + r] = (P[ORIGIN + r] + P[3 * r] * body[PLACEMENT_P] + P[3 * r + 1] * body[PLACEMENT_P + 1]
                             + P[3 * r + 2] * body[PLACEMENT_P + 2] + a0 * tj[0] + a1 * tj[1] + a2 * tj[2])
            W[3 * r] = a0 * Rj[0] + a1 * Rj[3] + a2 * Rj[6]
            W[3 * r + 1] = a0 * Rj[1] + a1 * Rj[4] + a2 * Rj[7]
            W[3 * r + 2] = a0 * Rj[2] + a1 * Rj[5] + a2 * Rj[8]
        px, py, pz = W[ORIGIN], W[ORIGIN + 1], W[ORIGIN + 2]
        # Jacobian columns: S moved to the world origin, [R s + p × (R σ); R σ].
        if kind == FREE_FLYER:
            for c in range(3):
                J[0, col + c], J[1, col + c], J[2, col + c] = W[c], W[3 + c], W[6 + c]
                J[3, col + c] = J[4, col + c] = J[5, col + c] = 0.0
                ux, uy, uz = W[c], W[3 + c], W[6 + c]
                J[0, col + 3 + c], J[1, col + 3 + c], J[2, col + 3 + c] = py * uz - pz * uy, pz * ux - px * uz, \
                    px * uy - py * ux
                J[3, col + 3 + c], J[4, col + 3 + c], J[5, col + 3 + c] = ux, uy, uz
            dofs = 6
        else:
            a0, a1, a2 = body[AXIS], body[AXIS + 1], body[AXIS + 2]
            ux, uy, uz = W[0] * a0 + W[1] * a1 + W[2] * a2, W[3] * a0 + W[4] * a1 + W[5] * a2, \
                W[6] * a0 + W[7] * a1 + W[8] * a2
            if kind == PRISMATIC:
                J[0, col], J[1, col], J[2, col] = ux, uy, uz
                J[3, col] = J[4, col] = J[5, col] = 0.0
            else:
                J[0, col], J[1, col], J[2, col] = py * uz - pz * uy, pz * ux - px * uz, px * uy - py * ux
                J[3, col], J[4, col], J[5, col] = ux, uy, uz
            dofs = 1
        for r in range(6):
            W[VELOCITY + r] = P[VELOCITY + r]
        for c in range(col, col + dofs):
            for r in range(6):
                W[VELOCITY + r] += J[r, c] * v[c]
        # J̇ᵢ = vᵢ × Jᵢ (motion cross product) and the drift aᵢ = a_parent + J̇ᵢ vᵢ.
        lx, ly, lz, wx, wy, wz = W[VELOCITY], W[VELOCITY + 1], W[VELOCITY + 2], W[VELOCITY + 3], W[VELOCITY + 4], \
            W[VELOCITY + 5]
        for r in range(6):
            W[DRIFT + r] = P[DRIFT + r]
        for c in range(col, col + dofs):
            sx, sy, sz, tx, ty, tz = J[0, c], J[1, c], J[2, c], J[3, c], J[4, c], J[5, c]
            dJ[0, c] = wy * sz - wz * sy + ly * tz - lz * ty
            dJ[1, c] = wz * sx - wx * sz + lz * tx - lx * tz
            dJ[2, c] = wx * sy - wy * sx + lx * ty - ly * tx
            dJ[3, c] = wy * tz - wz * ty
            dJ[4, c] = wz * tx - wx * tz
            dJ[5, c] = wx * ty - wy * tx
            for r in range(6):
                W[DRIFT + r] += dJ[r, c] * v[c]
        # The body's inertia at the origin: m, m c, I_O = R I Rᵀ + m (|c|² 1 − c cᵀ).
        m = body[MASS]
        cx = px + W[0] * body[LEVER] + W[1] * body[LEVER + 1] + W[2] * body[LEVER + 2]
        cy = py + W[3] * body[LEVER] + W[4] * body[LEVER + 1] + W[5] * body[LEVER + 2]
        cz = pz + W[6] * body[LEVER] + W[7] * body[LEVER + 1] + W[8] * body[LEVER + 2]
        Y = W[COMPOSITE:COMPOSITE + 10]
        Y[0], Y[1], Y[2], Y[3] = m, m * cx, m * cy, m * cz
        centre = (cx, cy, cz)
        squared = cx * cx + cy * cy + cz * cz
        k = 4
        for r in range(3):
            b0 = W[3 * r] * body[INERTIA] + W[3 * r + 1] * body[INERTIA + 3] + W[3 * r + 2] * body[INERTIA + 6]
            b1 = W[3 * r] * body[INERTIA + 1] + W[3 * r + 1] * body[INERTIA + 4] + W[3 * r + 2] * body[INERTIA + 7]
            b2 = W[3 * r] * body[INERTIA + 2] + W[3 * r + 1] * body[INERTIA + 5] + W[3 * r + 2] * body[INERTIA + 8]
            for s in range(r, 3):
                value = b0 * W[3 * s] + b1 * W[3 * s + 1] + b2 * W[3 * s + 2] - m * centre[r] * centre[s]
                Y[k] = value + m * squared if s == r else value
                k += 1
        # Newton–Euler at q̈ = 0: f = Y (a − g) + v ×* (Y v); the momentum Y v for ċ.
        ml = _inertia_times(Y, lx, ly, lz, wx, wy, wz)
        ax, ay, az = W[DRIFT], W[DRIFT + 1], W[DRIFT + 2]
        bx, by, bz = W[DRIFT + 3], W[DRIFT + 4], W[DRIFT + 5]
        fa = _inertia_times(Y, ax, ay, az, bx, by, bz)
        fg = _inertia_times(Y, -gx, -gy, -gz, 0.0, 0.0, 0.0)
        cross = (wy * ml[2] - wz * ml[1], wz * ml[0] - wx * ml[2], wx * ml[1] - wy * ml[0],
                 wy * ml[5] - wz * ml[4] + ly * ml[2] - lz * ml[1], wz * ml[3] - wx * ml[5] + lz * ml[0] - lx * ml[2],
                 wx * ml[4] - wy * ml[3] + lx * ml[1] - ly * ml[0])
        for r in range(6):
            W[MOMENTUM + r] = ml[r]
            W[RATE + r] = fa[r] + cross[r]
            W[FORCE + r] = W[RATE + r] + fg[r]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _backward(tree, armature, work, J, M, h, Ag):
    """The backward sweep: composite inertias, ``h``, ``M`` (both triangles) and the
    columns ``Yᶜⱼ Jⱼ`` of the centroidal matrix (at the origin); the root's (index 0) work
    row collects the totals."""
    root = work[0]
    for r in range(FORCE, JOINT_COLUMNS):
        root[r] = 0.0
    for i in range(tree.shape[0] - 1, 0, -1):
        parent, kind, col = tree[i, 0], tree[i, 1], tree[i, 3]
        W = work[i]
        Y = W[COMPOSITE:COMPOSITE + 10]
        dofs = 6 if kind == FREE_FLYER else 1
        for c in range(col, col + dofs):
            value = 0.0
            for r in range(6):
                value += J[r, c] * W[FORCE + r]
            h[c] = value
            F = _inertia_times(Y, J[0, c], J[1, c], J[2, c], J[3, c], J[4, c], J[5, c])
            for r in range(6):
                Ag[r, c] = F[r]
            a = i                                  # M[a, c] for every joint a from i to the root
            while a > 0:
                start = tree[a, 3]
                for row in range(start, start + (6 if tree[a, 1] == FREE_FLYER else 1)):
                    value = 0.0
                    for r in range(6):
                        value += J[r, row] * F[r]
                    M[row, c] = value
                    M[c, row] = value
                a = tree[a, 0]
            M[c, c] += armature[c]
        P = work[parent]
        for r in range(FORCE, JOINT_COLUMNS):     # forces, composite inertias, momenta: sums
            P[r] += W[r]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _centroidal(work, gravity, com, com_velocity, com_drift, com_jacobian, Ag, hg, drift):
    """The CoM terms, and the centroidal matrix, momentum and drift moved from the origin to
    ``c`` (a moment about ``c`` is ``n_O + l × c``; the drift's also gains ``l̇ × c``, since
    ``l × ċ = 0``), from the totals in ``work[0]``."""
    root = work[0]
    m = root[COMPOSITE]
    c = (root[COMPOSITE + 1] / m, root[COMPOSITE + 2] / m, root[COMPOSITE + 3] / m)
    for r in range(3):
        com[r] = c[r]
        com_velocity[r] = root[MOMENTUM + r] / m
        com_drift[r] = root[FORCE + r] / m + gravity[r]
    for column in range(Ag.shape[1]):
        for r in range(3):
            com_jacobian[r, column] = Ag[r, column] / m
        _about(Ag[:, column], c)
    for r in range(6):
        hg[r] = root[MOMENTUM + r]
        drift[r] = root[RATE + r]
    _about(hg, c)
    _about(drift, c)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _about(wrench, c):
    """Move the spatial force ``wrench`` (6,) from the origin to the point ``c``, in place."""
    lx, ly, lz = wrench[0], wrench[1], wrench[2]
    wrench[3] += ly * c[2] - lz * c[1]
    wrench[4] += lz * c[0] - lx * c[2]
    wrench[5] += lx * c[1] - ly * c[0]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def place_frames(work, frame_parents, frame_placements, tracked, rotations, translations):
    """``oMf = oMᵢ · ᵢMf`` of the frames ``tracked``."""
    for k in range(tracked.size):
        f = tracked[k]
        W, F = work[frame_parents[f]], frame_placements[f]
        for r in range(3):
            for c in range(3):
                rotations[f, r, c] = W[3 * r] * F[c] + W[3 * r + 1] * F[3 + c] + W[3 * r + 2] * F[6 + c]
            translations[f, r] = W[ORIGIN + r] + W[3 * r] * F[9] + W[3 * r + 1] * F[10] + W[3 * r + 2] * F[11]


@njit(cache=True, inline="always")
def outputs(buffer, nv, frames):
    """The views of :func:`output_sizes`'s outputs in ``buffer`` (one after the other)."""
    mass_matrix = buffer[:nv * nv].reshape((nv, nv))
    start = nv * nv
    bias = buffer[start:start + nv]
    start += nv
    J = buffer[start:start + 6 * nv].reshape((6, nv))
    start += 6 * nv
    dJ = buffer[start:start + 6 * nv].reshape((6, nv))
    start += 6 * nv
    com, com_velocity, com_drift = buffer[start:start + 3], buffer[start + 3:start + 6], buffer[start + 6:start + 9]
    start += 9
    com_jacobian = buffer[start:start + 3 * nv].reshape((3, nv))
    start += 3 * nv
    Ag = buffer[start:start + 6 * nv].reshape((6, nv))
    start += 6 * nv
    hg, drift = buffer[start:start + 6], buffer[start + 6:start + 12]
    start += 12
    rotations = buffer[start:start + 9 * frames].reshape((frames, 3, 3))
    start += 9 * frames
    translations = buffer[start:start + 3 * frames].reshape((frames, 3))
    return mass_matrix, bias, J, dJ, com, com_velocity, com_drift, com_jacobian, Ag, hg, drift, rotations, translations


def buffer_size(nv: int, frames: int) -> int:
    """Entries of the outputs' buffer."""
    return sum(int(np.prod(shape)) for _, shape in output_sizes(nv, frames))


_INTS, _ROWS, _VALUES = intp[:, ::1], float64[:, ::1], float64[::1]


@njit(intp(_INTS, _ROWS, _VALUES, _VALUES, intp[::1], _ROWS, intp[::1], float64[:], float64[:], float64[::1],
           float64[::1], _ROWS, _VALUES, float64),
      cache=True, fastmath=FASTMATH, _nrt=False)
def update_state(tree, bodies, gravity, armature, frame_parents, frame_placements, tracked, q_in, v_in, q, v, work,
                 buffer, quaternion_tolerance):
    """Check ``(q_in, v_in)``, copy them into the robot's ``q`` and ``v`` (a floating root's
    quaternion ``q[3:7]`` normalised) and run the pass into ``buffer`` (:func:`outputs`).

    Returns 0, or without writing anything: 1 when ``q_in`` holds NaN or inf, 2 when ``v_in``
    does, 3 when the root's quaternion norm is farther than ``quaternion_tolerance`` from 1.
    ``q_in`` and ``v_in`` may be ``q`` and ``v`` themselves."""
    for i in range(q_in.size):
        if not np.isfinite(q_in[i]):
            return 1
    for i in range(v_in.size):
        if not np.isfinite(v_in[i]):
            return 2
    floating = tree.shape[0] > 1 and tree[1, 1] == FREE_FLYER and tree[1, 2] == 0
    norm = 1.0
    if floating:
        norm = np.sqrt(q_in[3] * q_in[3] + q_in[4] * q_in[4] + q_in[5] * q_in[5] + q_in[6] * q_in[6])
        if not abs(norm - 1.0) <= quaternion_tolerance:
            return 3
    for i in range(q_in.size):
        q[i] = q_in[i]
    for i in range(v_in.size):
        v[i] = v_in[i]
    if floating and norm != 1.0:
        for i in range(3, 7):
            q[i] = q[i] / norm
    nv = v.size
    M, h, J, dJ, com, com_velocity, com_drift, com_jacobian, Ag, hg, drift, rotations, translations = outputs(
        buffer, nv, frame_parents.size)
    _forward(tree, bodies, gravity, q, v, work, J, dJ)
    _backward(tree, armature, work, J, M, h, Ag)
    _centroidal(work, gravity, com, com_velocity, com_drift, com_jacobian, Ag, hg, drift)
    place_frames(work, frame_parents, frame_placements, tracked, rotations, translations)
    return 0

