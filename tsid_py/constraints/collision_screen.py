"""Which pairs of bodies may be close: a cheap screen of a robot's collision pairs each step.

Exact distances between convex pieces cost a GJK call each (0.5–10 µs on Talos), too many to
compute every pair every control period. :class:`PairScreen` bounds every pair's distance
from below without computing it, from how far the bodies moved since the pair's distance
was last computed, and hands the pairs whose bound falls within their activation distance
(:func:`screen_pairs`) to :class:`~tsid_py.constraints.SelfCollisionAvoidance`, which computes
theirs and resets their bounds (:meth:`PairScreen.reset`).

**Motion bounds.** A joint's placement in the frame of the robot's root joint (the pelvis:
a distance between two bodies does not change when the whole robot moves) going from
``(R, p)`` to ``(R', p')`` moves none of its pieces' points farther than
``|p' − p| + 2 sin(θ/2) r`` (θ the angle of ``Rᵀ R'``, ``2 sin(θ/2) = √(3 − tr(Rᵀ R'))``, ``r``
the joint's reach, :func:`~tsid_py.collision_geometry.joint_radii`); summed over the steps,
these bound how much closer a pair came since its last exact distance. A pair left by that
cheap test gets tighter bounds of its own: body a's placement in body b's frame (two bodies
moving together do not count) and its pieces' bounding spheres.

**Closing speed.** A pair's activation distance grows with its closing speed ``w`` by the
damper's approach distance (:func:`approach_distance`); ``w`` is its last closing rate (its
rate or its look-ahead's mean rate, the lesser) grown at the braking acceleration since, at
most the motion bounds' speed.

The joints' placements come as one (njoints, 12) array (rotation column-major, then
translation), a view of pinocchio's ``data.oMi`` when it is stored contiguously
(:func:`joint_placements`).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
from numba import float64, intp, njit, types, void

from .._numba import FASTMATH, MATRIX, VECTOR, direct_calls
from ..collision_geometry import bounding_spheres, joint_radii

INDICES = intp[:, :]
#: The joints' placements, a read-only view of pinocchio's (:func:`joint_placements`) or a copy.
PLACEMENTS = types.Array(float64, 2, "A", readonly=True)
#: Per pair, its nearest points and normal: (k, 3, 3) rows ``p_A``, ``p_B``, ``n``.
POINTS = float64[:, :, :]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def relative_placement(A, B, out):
    """``out = A⁻¹ B`` for placements in the (12,) layout of :func:`joint_placements`
    (rotation column-major, then translation): ``Rᵀ R_B`` and ``Rᵀ (p_B − p)``."""
    for c in range(3):
        for r in range(3):
            out[3 * c + r] = A[3 * r] * B[3 * c] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2]
    for r in range(3):
        out[9 + r] = (A[3 * r] * (B[9] - A[9]) + A[3 * r + 1] * (B[10] - A[10])
                      + A[3 * r + 2] * (B[11] - A[11]))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _turn(before, after):
    """``√(3 − tr(R_beforeᵀ R_after)) = 2 sin(θ/2)``, θ the angle between the rotations: a
    point at ``r`` from the origin moves by at most that times ``r`` when the frame turns."""
    trace = 0.0
    for k in range(9):
        trace += before[k] * after[k]
    return math.sqrt(max(3.0 - trace, 0.0))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _motion(before, after, reach):
    """How far a point within ``reach`` of a frame's origin moves when the frame's placement
    goes from ``before`` to ``after`` (12,): at most ``|Δp| + 2 sin(θ/2) r``."""
    shift = 0.0
    for r in range(3):
        delta = after[9 + r] - before[9 + r]
        shift += delta * delta
    return math.sqrt(shift) + reach * _turn(before, after)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _pair_motion(before, after, reach_a, reach_b):
    """How far the pieces of body a, whose placement in body b's frame goes from ``before``
    to ``after``, move relative to those of b: the smaller of the bound seen from b (a's
    points move with a's origin ``p``) and from a (b's points move with b's origin in a's
    frame, ``−Rᵀ p``)."""
    turn = _turn(before, after)
    shift_a = shift_b = 0.0
    for r in range(3):
        delta = after[9 + r] - before[9 + r]
        shift_a += delta * delta
        old = before[3 * r] * before[9] + before[3 * r + 1] * before[10] + before[3 * r + 2] * before[11]
        new = after[3 * r] * after[9] + after[3 * r + 1] * after[10] + after[3 * r + 2] * after[11]
        shift_b += (new - old) * (new - old)
    return min(math.sqrt(shift_a) + reach_a * turn, math.sqrt(shift_b) + reach_b * turn)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def approach_distance(speed, time_constant, braking, dt):
    """The gap at which the damper lets a pair close at ``speed`` (m/s), plus one period's
    travel: ``max(w τ, w² / (2 a_max)) + w dt`` (:func:`damper_bound`'s ``v_allow`` inverted):
    a pair that gets rows there starts braking on the damper's curve, not with a jump."""
    return max(speed * time_constant, speed * speed / (2.0 * braking)) + speed * dt


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _sphere_gap(placements, joint_a, joint_b, sphere_a, sphere_b):
    """The distance between two pieces' bounding spheres (centre in their joint's frame,
    radius: (4,) each), a lower bound on theirs, m."""
    squared = 0.0
    for r in range(3):
        world_a = placements[joint_a, 9 + r]
        world_b = placements[joint_b, 9 + r]
        for k in range(3):
            world_a += placements[joint_a, 3 * k + r] * sphere_a[k]
            world_b += placements[joint_b, 3 * k + r] * sphere_b[k]
        squared += (world_a - world_b) * (world_a - world_b)
    return math.sqrt(squared) - sphere_a[3] - sphere_b[3]


#: Columns of the joints' state (njoints, 14): the placement in the root's frame at the last
#: step (12), the reach of its pieces, m, and the sum of its motions, m.
REACH, TRAVELLED = 12, 13
#: Columns of the pairs' state (p, 6): the last exact distance, m; the bound of the cheap
#: screen; the joints' summed motions then; the last closing rate, m/s; when it was computed, s;
#: the pair's braking acceleration (what its joints' torques give along its normal), m/s².
KNOWN, LIMIT, BASE, RATE, EVALUATED, BRAKING = range(6)
#: Columns of the pairs' index table (p, 4): the two joints, the two pieces.
JOINT_A, JOINT_B, PIECE_A, PIECE_B = range(4)


@njit(intp(PLACEMENTS, intp, MATRIX, INDICES, MATRIX, MATRIX, MATRIX, float64, float64, float64, float64, float64,
           intp[:], VECTOR, VECTOR, MATRIX), cache=True, fastmath=FASTMATH)
def screen_pairs(placements, root, joint_state, pair_index, spheres, pair_state, exact, clock, activation,
                 time_constant, braking, dt, candidates, speeds, lowers, staged):
    """The pairs whose distance may have come within activation since it was last computed
    (written into ``candidates``, with their closing speeds, m/s, into ``speeds``, the lower
    bounds of their distances, m, into ``lowers`` and body a's placement in body b's frame
    into ``staged``; returns how many), by lower bounds on it. ``placements`` (njoints, 12)
    are the joints' world placements now; the state arrays' columns are :data:`REACH`…,
    :data:`KNOWN`… and :data:`JOINT_A`…; ``spheres`` (pieces, 4) the pieces' bounding spheres
    (centre in their joint's frame, radius); ``exact`` (p, 12) body a's placement in body b's
    frame at the pair's last exact distance.

    1. Cheap, per joint: each joint's placement in the ``root`` joint's frame is compared
       with the last step's (a distance does not change when the whole robot moves): its
       points moved by at most ``m`` (:func:`_motion`), summed into ``T``. Since a pair's
       last exact distance ``known``, its pieces came closer by at most ``T_a + T_b − base``,
       so a pair with ``T_a + T_b + approach ≤ limit = known − activation + base`` is no
       candidate, ``approach`` its approach distance at the speed ``(m_a + m_b) / dt`` and
       its braking acceleration (the least of ``braking`` and its own, ``BRAKING``).
    2. Per pair left: its closing speed is taken as its last closing rate (m/s, negative when
       closing) grown at ``braking`` since (``clock − evaluated``, s), at most ``(m_a + m_b)
       / dt``; it is a candidate when the largest of its lower bounds is within
       ``activation`` plus the approach distance at that speed. The bounds: its pieces'
       bounding spheres' gap, and its last exact distance less how far body a moved in body
       b's frame since (:func:`_pair_motion`, which two bodies moving together do not
       count), or less ``T_a + T_b − base``.

    The caller computes the exact distances of the candidates it needs and resets their
    state (:meth:`PairScreen.reset`)."""
    njoints = placements.shape[0]
    motion = np.empty(njoints)
    relative = np.empty(12)
    origin = placements[root]
    for j in range(njoints):
        relative_placement(origin, placements[j], relative)
        step = _motion(joint_state[j], relative, joint_state[j, REACH])
        motion[j] = step / dt
        joint_state[j, TRAVELLED] += step
        for k in range(12):
            joint_state[j, k] = relative[k]
    count = 0
    for p in range(pair_index.shape[0]):
        a = pair_index[p, JOINT_A]
        b = pair_index[p, JOINT_B]
        travelled = joint_state[a, TRAVELLED] + joint_state[b, TRAVELLED]
        brake = min(braking, pair_state[p, BRAKING])
        bound_speed = motion[a] + motion[b]
        if travelled + approach_distance(bound_speed, time_constant, brake, dt) <= pair_state[p, LIMIT]:
            continue
        speed = min(bound_speed, max(-pair_state[p, RATE], 0.0) + braking * (clock - pair_state[p, EVALUATED]))
        threshold = activation + approach_distance(speed, time_constant, brake, dt)
        gap = _sphere_gap(placements, a, b, spheres[pair_index[p, PIECE_A]], spheres[pair_index[p, PIECE_B]])
        if gap >= threshold:
            continue
        relative_placement(placements[b], placements[a], relative)
        since = _pair_motion(exact[p], relative, joint_state[a, REACH], joint_state[b, REACH])
        lower = max(pair_state[p, KNOWN] - min(since, travelled - pair_state[p, BASE]), gap)
        if lower < threshold:
            candidates[count] = p
            speeds[count] = speed
            lowers[count] = lower
            for k in range(12):
                staged[count, k] = relative[k]
            count += 1
    return count


def joint_placements(data: pin.Data) -> np.ndarray:
    """Every joint's world placement as one (njoints, 12) array (rotation column-major, then
    translation), read-only: a view of ``data.oMi`` when pinocchio stores it contiguously
    (refreshed by each update, at no cost), else None."""
    first = data.oMi[0].rotation
    stride = 12 * first.itemsize
    base = first.__array_interface__["data"][0]
    for j, placement in enumerate(data.oMi):
        rotation, translation = placement.rotation, placement.translation
        if (rotation.__array_interface__["data"][0] != base + j * stride or rotation.strides != (8, 24)
                or translation.__array_interface__["data"][0] != base + j * stride + 72):
            return None
    view = np.lib.stride_tricks.as_strided(first, shape=(len(data.oMi), 12), strides=(stride, first.itemsize))
    view.flags.writeable = False
    return view


def placements_array(data: pin.Data, out: np.ndarray | None = None) -> np.ndarray:
    """The (njoints, 12) array of :func:`joint_placements`, copied from ``data.oMi``."""
    out = np.empty((len(data.oMi), 12)) if out is None else out
    for j, placement in enumerate(data.oMi):
        out[j, :9] = placement.rotation.ravel(order="F")
        out[j, 9:] = placement.translation
    return out


def relative_placements(placements: np.ndarray, pairs) -> np.ndarray:
    """``A⁻¹ B`` for each ``(A, B)`` of ``pairs`` (k, 2) joint indices, (k, 12)."""
    out = np.empty((len(pairs), 12))
    for row, (a, b) in enumerate(pairs):
        relative_placement(placements[a], placements[b], out[row])
    return out


@njit(void(intp[:], intp[:], VECTOR, VECTOR, VECTOR, MATRIX, INDICES, MATRIX, MATRIX, MATRIX, float64, float64),
      cache=True, fastmath=FASTMATH)
def reset_pairs(pairs, staged, distances, rates, brakings, joint_state, pair_index, pair_state, exact, staged_placements,
                activation, clock):
    """:meth:`PairScreen.reset` in one compiled call."""
    for i in range(pairs.size):
        p = pairs[i]
        travelled = joint_state[pair_index[p, JOINT_A], TRAVELLED] + joint_state[pair_index[p, JOINT_B], TRAVELLED]
        pair_state[p, KNOWN] = distances[i]
        pair_state[p, BASE] = travelled
        pair_state[p, LIMIT] = distances[i] - activation + travelled
        pair_state[p, RATE] = rates[i]
        pair_state[p, BRAKING] = brakings[i]
        pair_state[p, EVALUATED] = clock
        for k in range(12):
            exact[p, k] = staged_placements[staged[i], k]


_direct = direct_calls(screen_pairs, reset_pairs)


class PairScreen:
    """The screen's state for a robot's collision pairs (see the module).

    Parameters
    ----------
    robot : the robot (its ``q_ref`` is where the joints and pairs start from).
    geometry : its collision geometry (the pieces' bounding spheres, the joints' reach).
    pairs : the :class:`~tsid_py.collision_geometry.CollisionPairs` watched (their distances at
        ``q_ref``).
    activation : the activation distance, m.

    After :meth:`screen`, ``candidates[:count]`` are the pairs (indices into ``pairs``) that
    need an exact distance, with their closing ``speeds`` (m/s), the ``lowers`` bounds of
    their distances (m) and body a's placement in body b's frame, ``staged``.
    """

    def __init__(self, robot, geometry: pin.GeometryModel, pairs, activation: float):
        scratch = robot.model.createData()
        pin.forwardKinematics(robot.model, scratch, robot.q_ref)
        world = placements_array(scratch)
        self.root = 1 if robot.floating_base else 0
        self.joint_state = np.zeros((len(world), 14))
        self.joint_state[:, :12] = relative_placements(world, [(self.root, j) for j in range(len(world))])
        self.joint_state[:, REACH] = joint_radii(robot.model, geometry)
        count = len(pairs.pieces)
        self.pair_index = np.ascontiguousarray(np.column_stack([pairs.joints, pairs.pieces]), dtype=np.intp)
        self.spheres = np.column_stack(bounding_spheres(geometry))
        self.pair_state = np.zeros((count, 6))
        self.pair_state[:, BRAKING] = np.inf          # until a pair's own is known
        self.pair_state[:, KNOWN] = pairs.reference_distances
        self.pair_state[:, LIMIT] = pairs.reference_distances - activation
        self.exact = relative_placements(world, pairs.joints[:, ::-1])      # body a in body b's frame
        self.candidates, self.speeds = np.zeros(count, dtype=np.intp), np.zeros(count)
        self.lowers, self.staged = np.zeros(count), np.zeros((count, 12))
        #: Each pair's pair of bodies (joints), numbered: at most a few rows go to one.
        self.body_pair = np.unique(pairs.joints, axis=0, return_inverse=True)[1].ravel()
        self.clock = 0.0                  # s, advanced by each screen: when each pair was last computed

    def screen(self, placements: np.ndarray, activation: float, time_constant: float, braking: float,
               dt: float) -> int:
        """One step's screen (:func:`screen_pairs`) at the joints' world ``placements``;
        returns how many candidates."""
        self.clock += dt
        return _direct.screen_pairs(placements, self.root, self.joint_state, self.pair_index, self.spheres,
                                    self.pair_state, self.exact, self.clock, activation, time_constant, braking, dt,
                                    self.candidates, self.speeds, self.lowers, self.staged)

    def reset(self, pairs: np.ndarray, staged: np.ndarray, distances: np.ndarray, rates: np.ndarray,
              brakings: np.ndarray, activation: float) -> None:
        """The state of ``pairs`` whose exact ``distances`` (m), ``rates`` (m/s) and braking
        accelerations (m/s²) were just computed (``staged``: their candidates' indices): the
        cheap bound's base, the time, and body a's placement in body b's frame now."""
        _direct.reset_pairs(pairs, staged, distances, rates, brakings, self.joint_state, self.pair_index,
                            self.pair_state, self.exact, self.staged, activation, self.clock)
