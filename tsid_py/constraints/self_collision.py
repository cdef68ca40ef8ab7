"""Self-collision avoidance: a velocity damper on the distance of each close pair of bodies.

**Distances.** The robot's collision geometry is a set of convex pieces
(:mod:`tsid_py.collision_geometry`: meshes as their hulls), and the pairs watched are those
of :func:`~tsid_py.collision_geometry.collision_pairs` (adjacent bodies, the SRDF's disabled
pairs and pairs in collision at the reference posture left out). For a pair ``(A, B)`` at
distance ``d`` (coal's GJK; negative when they overlap) with nearest points ``p_A`` and
``p_B`` and unit normal ``n`` (``p_B − p_A = d n``), the distance's rate and acceleration
are, with ``J_P`` the Jacobian of a body point ``P`` and ``J̇_P v`` its drift,

    ḋ = n · (J_pB − J_pA) v,       d̈ ≈ n · (J_pB − J_pA) q̈ + n · (J̇_pB v − J̇_pA v).

The row ``nᵀ (J_pB − J_pA)`` is the generalized force of a unit force pair ``±n`` at the
nearest points (:func:`tsid_py.frames.add_generalized_force`, the package's one wrench
map). Left out is the motion of the normal and of the nearest points over the surfaces:
for two points it is ``|ṙ_⊥|² / d ≥ 0`` (``r = p_B − p_A``), so the row asks for at least the
separating acceleration needed. But the pieces are polytopes (hulls), and when they turn
against each other (relative angular velocity ``ω`` across ``n``) the nearest points jump to
other features: the rate jumps by ``n · (ω × Δp)``, ``Δp`` the jump, always toward closing
(the distance is the least of its features' distances). Measured on Talos (random hand
targets, seed 2): the shoulder's hull rolling down the torso's at 1.7 rad/s moved the
nearest points 72 mm in 20 ms and the rate from −17 to −106 mm/s while the rows held
``d̈ ≥ 0`` — which that pair's joints (0.8 m/s² of braking) could not undo before ``d_s``.

**Look-ahead.** So each computed pair's distance is also taken at the configuration
``h = τ`` ahead at the present velocity, ``d' = d(q ⊕ h v)`` (coal's), and the pair closes,
for the damper, at ``ḋ_c = min(ḋ, (d' − d) / h)``: the mean rate over the look-ahead shows
the jumps to come. And it has a row at its present nearest points and, where it asks more,
a second at the look-ahead's (``p'_A``, ``p'_B``, ``n'`` carried back to the bodies now and
put on the normal through their midpoint, :func:`~tsid_py.constraints.collision_rows.on_normals`:
offset across ``n'``, the row had entries ``n' · (ω_j × (p'_B − p'_A))`` on the joints that
move both bodies, and G1 was turned on its soles to "separate" a chest/shoulder pair): a
wrist spinning to push its nearest point away brings another corner round, and a row at that
corner asks the spin to stop (measured on G1's wrists crossing with present rows only:
spins of 16 rad/s, rate jumps of 0.55 m/s); the present row stays, or the present points,
unwatched for a step, close at the tasks' will (measured: 17 m/s² on Talos's forearms).

**The damper** (Faverjon and Tournassoud's, in Kanoun's form for velocities). With the gap
``e = d − d_r`` to the resting distance ``d_r = d_s + ¼ (d_i − d_s)`` (:data:`REST_FRACTION`;
``d_s`` the safety distance, ``d_i`` the activation distance), the pair may close at most at

    v_allow(e) = min(e / τ, √(2 a e))      (e ≥ 0; for e < 0, −e/τ is a separating speed):

near ``d_r`` the classic damper ``ḋ ≥ −ξ (d − d_r) / (d_i − d_r)`` with ``ξ / (d_i − d_r) = 1/τ``
(the gap shrinks no faster than ``e^{−t/τ}``: a pair pushed together comes to rest at
``d_r``); farther away, the speed from which it can still stop braking at ``a``. The row
brings the rate back to that within ``T = max(dt, 0.1 τ)``
(:data:`~tsid_py.constraints.collision_rows.RESPONSE_FRACTION`),
asking for at most ``a`` of separating acceleration:

    n · (J_pB − J_pA) q̈ ≥ min(min(a, (−v_allow(e) − ḋ_c) / T) − n · (J̇_pB v − J̇_pA v), c),

``c = Σ_j |r_j| α_j`` what its joints' torques give along its row ``r``
(:func:`reachable_accelerations`: ``α_j`` half of joint j's acceleration at its torque limit),
and ``a`` the pair's braking acceleration, the least of ``max_acceleration`` and ``c`` — a
pair near a joint's axis (a shoulder against the chest) moves little per rad/s². The row
never asks more than ``c``: the drift (the bodies' spin, ``ω × (ω × p)``) comes on top of the
damper's ``a`` and, on a pair whose distance hardly depends on its joints, asked many times
what they give — measured on G1 (random hand targets, seed 6): pairs of its wrist's links
across one wrist joint (0.05–0.33 mm/rad, ``c`` 0.04–0.23 m/s²) asked 2.5 to 200 ``c``, rows
no acceleration the joint limits allowed could meet (three infeasible steps); capped, the
pair may close at ``c + drift``, all its joints can do. The margin between ``d_r`` and ``d_s``
is for what the rows do not see: the plant tracking the commanded accelerations imperfectly,
and jumps of the nearest points beyond the look-ahead.

**Activation.** A pair gets rows while its distance is within ``d_i`` plus its approach
distance ``max(w τ, w² / (2 a)) + w dt`` at its closing speed ``w = max(−ḋ_c, 0)`` — the gap
at which the damper starts slowing a pair that closes at ``w`` (:func:`~tsid_py.constraints.collision_screen.approach_distance`),
so a fast pair starts braking on the damper's curve, not with a jump. Each step the pairs
are screened without computing their distances (:mod:`tsid_py.constraints.collision_screen`:
lower bounds from how far the bodies moved); only the candidates get an exact distance. While
nothing comes near, a step costs that screen only.

**Defaults from the model.** ``d_s = 0.05 L`` and ``d_i = d_s + 0.05 L`` with ``L`` the
median bounding radius of the pieces (:func:`~tsid_py.collision_geometry.characteristic_size`;
Talos: 0.11 m, so 5.6 mm and 11.2 mm, resting at 7.0 mm); ``τ`` (0.05 s) and
``max_acceleration`` (20 m/s²) are the damper's time constant and largest braking
acceleration.

**Rows.** The layout holds ``max_pairs`` rows; the pairs within activation fill them, the
most demanding bound first and at most :data:`ROWS_PER_BODY_PAIR` per pair of bodies (the
others are counted in :attr:`SelfCollisionAvoidance.dropped`); unused rows are ``−inf ≤ 0``.
The constraint is ``relaxable``: before a step fails, a control loop's failure policy
(:class:`tsid_py.control.FailurePolicy`) relaxes its rows for that step to ``d̈ ≥ min(bound, 0)``
(:meth:`SelfCollisionAvoidance.relax_rows`: no pair accelerates toward the other, none is
asked to separate — what contacts, limits or the plant may not allow).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pinocchio as pin

from .._validation import positive_scalar
from ..collision_geometry import characteristic_size, collision_model, collision_pairs, geometry_data, points_now
from ..rows import Bounds
from ..settings import positive
from .base import LinearConstraint, setting
from .collision_rows import damper_bound
from .collision_rows import direct as _direct
from .collision_screen import PairScreen, joint_placements, placements_array

#: Default safety and activation margins, as fractions of the geometry's characteristic size.
SAFETY_FRACTION, ACTIVATION_FRACTION = 0.05, 0.05
#: Where a pair pushed together comes to rest: ``d_r = d_s + REST_FRACTION (d_i − d_s)``.
REST_FRACTION = 0.25
#: The share of each joint's own acceleration at its torque limit a row may count on.
REACHABLE_SHARE = 0.5


def _optional_distance(value, name: str):
    return None if value is None else positive_scalar(value, name)


def _srdf(value, name: str):
    """``"robot"``, None, or an SRDF file's path."""
    if value is None or value == "robot":
        return value
    import os

    if not isinstance(value, (str, os.PathLike)) or not os.path.isfile(os.fspath(value)):
        raise ValueError(f"{name} must be 'robot', None or an existing SRDF file, got {value!r}")
    return os.fspath(value)


def _links(value, name: str):
    """None, or ``(link, link)`` pairs of names."""
    if value is None:
        return None
    pairs = [tuple(pair) for pair in value] if not isinstance(value, str) else None
    if pairs is None or any(len(pair) != 2 or not all(isinstance(n, str) for n in pair) for pair in pairs):
        raise ValueError(f"{name} must be None or (link, link) pairs of body names, got {value!r}")
    return pairs


def _row_count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1, got {value!r}")
    return int(value)


class PairRow(NamedTuple):
    """A row at the last step: its pair's pieces' names, their distance (m), the rate (m/s)
    and the points of its row (world, m) — the nearest points now or, for a pair's second
    row, the look-ahead's carried back to the bodies (see the module) — and the unit
    normal from the first to the second (for the nearest points now,
    ``second_point − first_point = distance · normal``)."""

    first: str
    second: str
    distance: float
    rate: float
    first_point: np.ndarray
    second_point: np.ndarray
    normal: np.ndarray


#: At most this many rows per pair of bodies (the closest of their pieces' pairs).
ROWS_PER_BODY_PAIR = 3


class SelfCollisionAvoidance(LinearConstraint):
    """Keep every watched pair of the robot's bodies at least ``safety_distance`` apart (see
    the module for the maths).

    Parameters
    ----------
    safety_distance : ``d_s``, m (default :data:`SAFETY_FRACTION` of the geometry's
        characteristic size).
    activation_distance : ``d_i`` > ``d_s``, m: a pair at rest gets rows within it (default
        ``d_s`` + :data:`ACTIVATION_FRACTION` of the size).
    time_constant : ``τ``, s: near ``d_s`` the gap shrinks no faster than ``e^{−t/τ}``.
    max_acceleration : ``a_max``, m/s²: the braking acceleration of the damper, and the most
        separating acceleration a row asks.
    max_pairs : rows in the QP (the closest pairs within activation fill them, at most
        :data:`ROWS_PER_BODY_PAIR` per pair of bodies).
    srdf : ``"robot"`` (default: the robot's own SRDF, when it was loaded with one), None
        (none), or an SRDF file whose ``<disable_collisions>`` pairs are left out.
    links : only the pairs between these ``(link, link)`` body names, else every pair.
    geometry : a ``pinocchio.GeometryModel`` on the robot's model to use instead of its
        file's collision geometry (copied).

    After each solve :attr:`active_pairs` lists the rows (:class:`PairRow`).
    """

    name = "self-collision avoidance"
    #: A control loop's failure policy may lift these rows for a step (see :mod:`tsid_py.control.failure`).
    relaxable = True
    safety_distance = setting(_optional_distance)
    activation_distance = setting(_optional_distance)
    time_constant = setting(positive)
    max_acceleration = setting(positive)
    max_pairs = setting(_row_count)
    srdf = setting(_srdf)
    links = setting(_links)

    def __init__(self, *, safety_distance: float | None = None, activation_distance: float | None = None,
                 time_constant: float = 0.05, max_acceleration: float = 20.0, max_pairs: int = 16,
                 srdf="robot", links=None, geometry: pin.GeometryModel | None = None):
        if geometry is not None and not isinstance(geometry, pin.GeometryModel):
            raise ValueError(f"geometry must be a pinocchio.GeometryModel, got {type(geometry).__name__}")
        self._geometry = None if geometry is None else geometry.copy()
        self._geometry_robot = None if geometry is None else "given"
        self.srdf, self.links = srdf, links
        self.safety_distance, self.activation_distance = safety_distance, activation_distance
        self.time_constant, self.max_acceleration, self.max_pairs = time_constant, max_acceleration, max_pairs

    # ------------------------------------------------------------------ binding
    def bind(self, robot) -> None:
        """Read the geometry (once per robot model), choose the pairs, resolve the distances
        and prepare the per-step buffers (the pairs start from their reference-posture
        distances, the joints from their reference placements)."""
        model_file = (robot.source.path if robot.source is not None else None, robot.model.njoints)
        if self._geometry is None or (self._geometry_robot != "given" and self._geometry_robot != model_file):
            self._geometry, self._geometry_robot = collision_model(robot), model_file
        geometry = self._geometry
        size = characteristic_size(geometry)
        safety = SAFETY_FRACTION * size if self._safety_distance is None else self._safety_distance
        activation = safety + ACTIVATION_FRACTION * size if self._activation_distance is None \
            else self._activation_distance
        if activation <= safety:
            raise ValueError(f"activation_distance must be > safety_distance ({safety:.4g} m), got {activation!r}")
        #: The distances in force, m: ``(d_s, d_i)``.
        self.distances = (float(safety), float(activation))
        srdf = (robot.source.srdf if robot.source is not None else None) if self._srdf == "robot" else self._srdf
        self.pairs = collision_pairs(robot, geometry, safety, srdf, self._links)
        self._geometry_data = geometry_data(geometry)
        self._columns, self._depths = _supporting_columns(robot.model)
        self._J, self._dJ = robot.dynamics.joint_jacobians, robot.dynamics.joint_jacobian_rates
        self._placements = joint_placements(robot.placed_data)
        self._screen = PairScreen(robot, geometry, self.pairs, activation)
        count = len(self.pairs.pieces)
        self._evaluated, self._staged = np.zeros(count, dtype=np.intp), np.zeros(count, dtype=np.intp)
        self._evaluated_count = 0
        self._points, self._pair_joints = np.zeros((count, 3, 3)), np.zeros((count, 2), dtype=np.intp)
        self._distances, self._rates, self._bounds = np.zeros(count), np.zeros(count), np.zeros(count)
        self._drifts, self._brakings, self._scratch = np.zeros(count), np.zeros(count), np.zeros(robot.nv)
        self._capacities = np.zeros(count)
        self._closings, self._secants = np.zeros(count), np.zeros(count)
        self._ahead_data, self._ahead_geometry_data = robot.model.createData(), geometry_data(geometry)
        self._later_points, self._later = np.zeros((count, 3, 3)), np.zeros((6, count))
        self._relaxed_rows, self._relaxed_lower = np.zeros((self._max_pairs, robot.nv)), np.zeros(self._max_pairs)
        self._relaxed_count = 0
        self._scales = np.ones(self._max_pairs)
        self._reachable = reachable_accelerations(robot)
        #: The pairs that had rows at the last step (:class:`PairRow`), in the rows' order.
        self.active_pairs: list[PairRow] = []
        #: How many pairs within activation had no row at the last step (``max_pairs`` full).
        self.dropped = 0
        #: The smallest exact distance computed at the last step (inf when none was), m.
        self.closest = np.inf

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for key in ("_geometry_data", "_J", "_dJ", "_placements", "_ahead_data", "_ahead_geometry_data"):
            state.pop(key, None)             # bound again to the copy's robot
        return state

    # ------------------------------------------------------------------ rows
    def row_count(self, context) -> int:
        """``max_pairs`` rows, whatever the number of pairs within activation."""
        return self._max_pairs

    def rows(self, context) -> Bounds:
        """The readable definition of the rows (every pair's exact distance, pinocchio's
        Jacobians and their rates, numpy), ``Bounds(C, lower, upper)`` over ``x``; the same rows
        as :meth:`write_rows`, which screens the pairs first and computes what it needs in
        compiled code (its screen's state is not touched here)."""
        robot, (safety, activation) = context.robot, self.distances
        model, data, v, dt = robot.model, robot.data, robot.v, context.dt
        rest = safety + REST_FRACTION * (activation - safety)
        pin.updateGeometryPlacements(model, data, self._geometry, self._geometry_data)
        ahead, ahead_data = pin.GeometryData(self._geometry), model.createData()
        pin.updateGeometryPlacements(model, ahead_data, self._geometry, ahead,
                                     pin.integrate(model, robot.q, self._time_constant * v))
        entries = []
        for pair, (joint_a, joint_b) in enumerate(self.pairs.joints.tolist()):
            result = pin.computeDistance(self._geometry, self._geometry_data, pair)
            later = pin.computeDistance(self._geometry, ahead, pair)
            secant = (later.min_distance - result.min_distance) / self._time_constant
            present = np.array([result.getNearestPoint1(), result.getNearestPoint2(), result.normal])
            future = np.zeros((3, 3))
            if secant < 0.0:                            # closer ahead: its features there may ask more
                points_now(data, ahead_data, joint_a, joint_b, later, future)
                _direct.on_normals(future[None])
            candidates = []
            for points in (present, future)[:1 + (secant < 0.0)]:   # the present features, the look-ahead's
                normal = points[2]
                motions = [self._readable_point(model, data, joint, point, v)
                           for joint, point in ((joint_a, points[0]), (joint_b, points[1]))]
                row = normal @ (motions[1][0] - motions[0][0])
                closing = min(row @ v, secant)
                capacity = np.abs(row) @ self._reachable
                brake = min(self._max_acceleration, capacity)
                speed = max(-closing, 0.0)
                if result.min_distance < activation + max(speed * self._time_constant,
                                                          speed**2 / (2 * brake)) + speed * dt:
                    bound = damper_bound(result.min_distance - rest, closing, dt, self._time_constant, brake)
                    candidates.append((bound - normal @ (motions[1][1] - motions[0][1]), (joint_a, joint_b), row,
                                       capacity))
            if len(candidates) == 2 and candidates[1][0] <= candidates[0][0]:
                candidates.pop()                        # the look-ahead's asks no more: left out
            entries.extend(candidates)
        matrix, lower = np.zeros((self._max_pairs, context.n)), np.full(self._max_pairs, -np.inf)
        per_body_pair, rows = {}, 0
        for bound, key, row, capacity in sorted(entries, key=lambda entry: -entry[0]):
            if rows < self._max_pairs and per_body_pair.get(key, 0) < ROWS_PER_BODY_PAIR:
                per_body_pair[key] = per_body_pair.get(key, 0) + 1
                norm = np.linalg.norm(row)                  # unit rows, as write_rows makes them
                matrix[rows, :robot.nv], lower[rows] = row / norm, min(bound, capacity) / norm
                rows += 1
        return Bounds(matrix, lower, np.full(self._max_pairs, np.inf))

    @staticmethod
    def _readable_point(model, data, joint: int, point: np.ndarray, v: np.ndarray):
        """``(J_p, J̇_p v)``: the linear Jacobian (3, nv) of the world point ``point`` fixed
        to ``joint``'s body and its classical acceleration at q̈ = 0, from pinocchio's world
        joint Jacobian and its rate (``v_p = v_O + ω × p``, ``a_p = a_O + ω̇ × p + ω × v_p``)."""
        jacobian = pin.getJointJacobian(model, data, joint, pin.WORLD)
        rate = pin.getJointJacobianTimeVariation(model, data, joint, pin.WORLD)
        skew = pin.skew(point)
        linear = jacobian[:3] - skew @ jacobian[3:]
        velocity, spin = jacobian @ v, jacobian[3:] @ v
        acceleration = rate @ v
        point_velocity = velocity[:3] + np.cross(spin, point)
        return linear, acceleration[:3] + np.cross(acceleration[3:], point) + np.cross(spin, point_velocity)

    def write_rows(self, context, matrix, lower, upper) -> None:
        """Screen the pairs, compute the exact distances the rows need and write the rows of
        the pairs within activation, the most demanding bound first (see the module)."""
        robot, (safety, activation) = context.robot, self.distances
        data = robot.placed_data                  # oMi at this update (self._placements views it)
        placements = self._placements if self._placements is not None else placements_array(data)
        braking, dt, pairs = self._max_acceleration, context.dt, self.pairs
        count = self._screen.screen(placements, activation, self._time_constant, braking, dt)
        self.closest, self.dropped = np.inf, 0
        evaluated = self._evaluated_count = self._exact_distances(robot, count) if count else 0
        if not evaluated:                  # nothing near: no row (the QP's rows stay unbounded)
            lower.fill(-np.inf)
            upper.fill(np.inf)
            self.active_pairs, self._relaxed_count = [], 0
            return
        joints, points, distances = self._pair_joints[:evaluated], self._points[:evaluated], self._distances[:evaluated]
        rest = safety + REST_FRACTION * (activation - safety)
        present = (self._rates[:evaluated], self._closings[:evaluated], self._bounds[:evaluated],
                   self._drifts[:evaluated], self._brakings[:evaluated], self._capacities[:evaluated])
        secants, later = self._look_ahead(robot, evaluated), self._later[:, :evaluated]
        for features, out in ((points, present), (self._later_points[:evaluated], later)):
            _direct.pair_bounds(self._J, self._dJ, self._columns, self._depths, joints, features, distances, secants,
                                robot.v, self._reachable, rest, activation, dt, self._time_constant, braking, *out,
                                self._scratch)
        self._screen.reset(self._evaluated[:evaluated], self._staged[:evaluated], distances,
                           np.minimum(present[1], later[1]), present[4], activation)
        if np.isneginf(present[2]).all() and np.isneginf(later[2]).all():   # none within activation
            lower.fill(-np.inf)
            upper.fill(np.inf)
            self.active_pairs, self._relaxed_count = [], 0
            return
        # every pair's present features, and its look-ahead's where they ask more (both hold)
        extra = np.flatnonzero(later[2] > present[2])
        source = np.concatenate([np.arange(evaluated), extra])
        points = np.concatenate([points, self._later_points[extra]]) if extra.size else points
        rates, bounds, drifts, capacities = (np.concatenate([mine, theirs[extra]]) if extra.size else mine
                                             for mine, theirs in ((present[0], later[0]), (present[2], later[2]),
                                                                  (present[3], later[3]), (present[5], later[5])))
        joints = joints[source]
        chosen, per_body_pair = [], {}
        for i in np.argsort(-bounds, kind="stable")[:int(np.isfinite(bounds).sum())]:
            key = (joints[i, 0], joints[i, 1])
            if len(chosen) == self._max_pairs or per_body_pair.get(key, 0) == ROWS_PER_BODY_PAIR:
                self.dropped += 1
                continue
            per_body_pair[key] = per_body_pair.get(key, 0) + 1
            chosen.append(i)
        chosen = np.array(chosen, dtype=np.intp)
        scales = self._scales[:len(chosen)]
        asked = np.minimum(bounds, capacities)       # never more than the joints give along the row
        _direct.write_pair_rows(self._J, self._columns, self._depths, joints, points, asked, chosen, matrix, lower,
                                upper, scales)
        rows = len(chosen)               # what relax_rows writes if this step must be relaxed
        self._relaxed_rows[:rows] = matrix[:rows, :robot.nv]
        self._relaxed_lower[:rows] = np.minimum(np.minimum(bounds[chosen] + drifts[chosen], 0.0) - drifts[chosen],
                                                asked[chosen]) * scales
        self._relaxed_count = rows
        names = pairs.names
        self.active_pairs = [PairRow(*names[self._evaluated[source[i]]], float(distances[source[i]]), float(rates[i]),
                                     *points[i].copy()) for i in chosen]

    def relax_rows(self, context, matrix, lower, upper) -> None:
        """This step's rows relaxed (the failure policy's first rung): each pair only kept
        from accelerating toward the other, ``d̈ ≥ min(bound, 0)`` — no separation asked for,
        which the contacts, limits or the plant may not allow."""
        rows = self._relaxed_count
        matrix[:rows] = 0.0
        matrix[:rows, :context.nv] = self._relaxed_rows[:rows]
        lower[:rows] = self._relaxed_lower[:rows]
        lower[rows:] = -np.inf
        upper.fill(np.inf)

    def _exact_distances(self, robot, count: int) -> int:
        """Exact distances of the screened candidates the rows may need, into the pair
        buffers (pair, joints, nearest points and normal, distance); returns how many. At
        most :data:`ROWS_PER_BODY_PAIR` rows go to a pair of bodies, so its candidates are
        taken by their margin, distance less approach distance at their closing speed (from
        their lower bounds), and one whose margin's lower bound is beyond the
        ``ROWS_PER_BODY_PAIR``-th margin found for its bodies is not computed (it stays a
        candidate)."""
        geometry, data = self._geometry, self._geometry_data
        pin.updateGeometryPlacements(robot.model, robot.placed_data, geometry, data)
        screen = self._screen
        candidates, speeds = screen.candidates[:count], screen.speeds[:count]
        approach = np.maximum(speeds * self._time_constant, speeds * speeds / (2.0 * self._max_acceleration))
        margins = screen.lowers[:count] - approach
        groups = screen.body_pair[candidates]
        points, distances, evaluated, staged = self._points, self._distances, self._evaluated, self._staged
        found: dict = {}                      # body pair -> the margins found, smallest first
        done = 0
        for index in np.lexsort((margins, groups)).tolist():
            closest = found.setdefault(groups[index], [])
            if len(closest) == ROWS_PER_BODY_PAIR and margins[index] >= closest[-1]:
                continue
            pair = int(candidates[index])
            result = pin.computeDistance(geometry, data, pair)
            distance = distances[done] = result.min_distance
            points[done] = (result.getNearestPoint1(), result.getNearestPoint2(), result.normal)
            evaluated[done], staged[done] = pair, index
            closest.append(distance - approach[index])
            closest.sort()
            del closest[ROWS_PER_BODY_PAIR:]
            done += 1
        if done:
            self._pair_joints[:done] = self.pairs.joints[evaluated[:done]]
            self.closest = float(distances[:done].min())
        return done

    def _look_ahead(self, robot, evaluated: int) -> np.ndarray:
        """The computed pairs' mean rates over the look-ahead ``h = τ`` at the present
        velocity, ``(d(q ⊕ h v) − d(q)) / h`` (m/s, coal's distances at the configuration
        ``h`` s ahead): the rate the pair's nearest features will close at, where the present
        one's ``ḋ`` does not show it (faces turning against each other, see the module)."""
        geometry, data, h = self._geometry, self._ahead_geometry_data, self._time_constant
        pin.updateGeometryPlacements(robot.model, self._ahead_data, geometry, data,
                                     pin.integrate(robot.model, robot.q, h * robot.v))
        secants, now, later = self._secants[:evaluated], robot.placed_data, self._ahead_data
        for i, pair in enumerate(self._evaluated[:evaluated].tolist()):
            result = pin.computeDistance(geometry, data, pair)
            secants[i] = (result.min_distance - self._distances[i]) / h
            if secants[i] < 0.0:             # closer ahead: its features there may ask more
                points_now(now, later, int(self._pair_joints[i, 0]), int(self._pair_joints[i, 1]), result,
                              self._later_points[i])
                _direct.on_normals(self._later_points[i:i + 1])   # no entry on the joints moving both
            else:                            # farther ahead: the present features'
                self._later_points[i] = self._points[i]
        return secants

    def evaluated_pairs(self) -> np.ndarray:
        """The pairs (indices into :attr:`pairs`) whose exact distance the last step computed."""
        return self._evaluated[:self._evaluated_count].copy()

    @property
    def geometry(self) -> pin.GeometryModel | None:
        """The collision geometry in use (pinocchio's model of the convex pieces; None before
        the constraint is bound to a robot)."""
        return self._geometry

    @property
    def engaged(self) -> bool:
        """Whether the last step gave a pair rows."""
        return bool(self.active_pairs)

    def __repr__(self) -> str:
        return f"SelfCollisionAvoidance(max_pairs={self._max_pairs})"


def reachable_accelerations(robot) -> np.ndarray:
    """Per velocity index (nv,), :data:`REACHABLE_SHARE` of the acceleration the joint alone
    gives at its torque limit at ``q_ref``, ``τ_max / M_jj`` (rad/s² or m/s²): 0 for the
    floating base's (unactuated) velocities, inf for a joint without a finite limit."""
    model, data = robot.model, robot.model.createData()
    inertia = np.diag(pin.crba(model, data, robot.q_ref)).copy()
    offset = robot.nv - robot.na
    effort = np.asarray(robot.effort_limits, dtype=float)
    effort = np.where((effort > 0) & np.isfinite(effort), effort, np.inf)
    reachable = np.zeros(robot.nv)
    reachable[offset:] = REACHABLE_SHARE * effort / inertia[offset:]
    return reachable


def _supporting_columns(model: pin.Model) -> tuple[np.ndarray, np.ndarray]:
    """Per joint, the velocity indices of the joints from the root to it (njoints, depth),
    padded, and how many (njoints,)."""
    lists = [[model.joints[k].idx_v + i for k in model.supports[j] if k > 0 for i in range(model.joints[k].nv)]
             for j in range(model.njoints)]
    depth = max(len(entry) for entry in lists)
    columns = np.zeros((model.njoints, max(depth, 1)), dtype=np.intp)
    for j, entry in enumerate(lists):
        columns[j, :len(entry)] = entry
    return columns, np.array([len(entry) for entry in lists], dtype=np.intp)
