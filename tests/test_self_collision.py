"""Self-collision avoidance: pairs, distances, rows and screen against pinocchio and coal."""

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.collision_geometry import collision_model
from tsid_py.constraints import SelfCollisionAvoidance
from tsid_py.constraints.collision_rows import RESPONSE_FRACTION
from tsid_py.constraints.self_collision import REST_FRACTION, damper_bound, reachable_accelerations
from tsid_py.control import FailurePolicy
from tsid_py.control.failure import RELAXED
from tsid_py.overrides import StepOverrides

from .conftest import standing_solver


@pytest.fixture(scope="module")
def talos():
    """Talos as built in, with its SRDF (its disabled pairs)."""
    return tp.robots.load("talos")


@pytest.fixture(scope="module")
def bound(talos):
    """A constraint bound to Talos (the pairs and distances; not added to a solver)."""
    constraint = SelfCollisionAvoidance()
    constraint.bind(talos)
    return constraint


def _meshes(robot):
    """Talos's collision geometry as its meshes (no hulls): an independent distance."""
    return pin.buildGeomFromUrdf(robot.model, robot.urdf_path, pin.COLLISION, package_dirs=list(robot.package_dirs))


def test_pairs_leave_out_adjacent_bodies_the_srdf_and_contacts_at_the_posture(talos, bound):
    model, pairs = talos.model, bound.pairs
    for a, b in pairs.joints.tolist():
        assert a != b and model.parents[a] != b and model.parents[b] != a
    meshes = _meshes(talos)
    meshes.addAllCollisionPairs()
    pin.removeCollisionPairs(model, meshes, talos.source.srdf, False)
    allowed = {(p.first, p.second) for p in meshes.collisionPairs}
    assert {tuple(map(int, pair)) for pair in pairs.pieces} <= allowed
    assert pairs.excluded["srdf"] > 0 and pairs.excluded["adjacent"] > 0
    # the meshes themselves (not the hulls) are at least the safety distance apart at q_ref
    data, geometry_data = model.createData(), pin.GeometryData(meshes)
    pin.updateGeometryPlacements(model, data, meshes, geometry_data, talos.q_ref)
    import coal

    for (first, second), hull_distance in zip(pairs.pieces[::40], pairs.reference_distances[::40]):
        request, result = coal.DistanceRequest(), coal.DistanceResult()
        mesh_distance = coal.distance(meshes.geometryObjects[int(first)].geometry, geometry_data.oMg[int(first)],
                                      meshes.geometryObjects[int(second)].geometry, geometry_data.oMg[int(second)],
                                      request, result)
        assert mesh_distance >= hull_distance - 1e-9 and hull_distance > bound.distances[0]


def test_default_distances_are_fractions_of_the_pieces_size(talos, bound):
    radii = []
    for item in collision_model(talos).geometryObjects:
        item.geometry.computeLocalAABB()
        radii.append(item.geometry.aabb_radius)
    size = np.median(radii)
    np.testing.assert_allclose(bound.distances, (0.05 * size, 0.1 * size), rtol=1e-12)
    explicit = SelfCollisionAvoidance(safety_distance=0.01, activation_distance=0.03)
    explicit.bind(talos)
    assert explicit.distances == (0.01, 0.03)


def test_the_damper_bound():
    """``min(a, (−v_allow(e) − ḋ) / T)``, ``T = max(dt, 0.1 τ)``: a pair closing at the allowed
    speed is asked for nothing more; one closing faster is slowed, at most at ``a``; a gap
    below the resting distance asks for a separating speed."""
    dt, tau, a = 1e-3, 0.05, 20.0
    response = max(dt, 0.1 * tau)
    for gap, rate in [(0.004, -0.05), (0.02, -0.3), (0.001, 0.0), (0.01, -0.001), (0.2, -1.0)]:
        allowed = min(gap / tau, np.sqrt(2 * a * gap))
        assert damper_bound(gap, rate, dt, tau, a) == pytest.approx(min(a, (-allowed - rate) / response))
        assert damper_bound(gap, -allowed, dt, tau, a) == pytest.approx(0.0, abs=1e-9)
    assert damper_bound(0.001, -2.0, dt, tau, a) == a
    assert damper_bound(0.001, -2.0, dt, tau, 3.0) == 3.0
    assert damper_bound(-0.001, 0.0, dt, tau, a) == pytest.approx(0.001 / tau / response)


def _crossed(robot, solver, rng, reach=0.3):
    """A state with the hands in front of the chest near each other, moving: hand position
    tasks toward each other and the state stepped by the solver's own q̈ (no simulator)."""
    from tsid_py.models.hands import hands

    robot.update(robot.q_ref, robot.zero_velocity())
    frames = hands(robot)
    starts = [robot.frame_translation(robot.frame_id(frame)).copy() for frame in frames]
    middle = sum(starts) / 2 + [reach, 0.0, 0.1]
    for frame, side in zip(frames, (-1, 1)):
        solver.add_task(tp.tasks.PositionTask(frame, middle + [0, side * 0.1, 0], kp=50.0, weight=3.0))
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    policy = FailurePolicy(solver)              # the state follows the solver's own q̈: it may drift
    for _ in range(700):
        solution = policy.solve(q, v)
        v = v + 1e-3 * solution.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    return q, v


def test_rows_are_the_distance_rate_and_acceleration_of_the_nearest_points(talos, rng):
    """Each row is ``nᵀ (J_pB − J_pA)`` with pinocchio's Jacobians at its pair's nearest
    points — now (coal's), or those of coal's distance at the look-ahead configuration
    ``q ⊕ τ v`` carried back to the bodies now and put on the normal through their midpoint
    (no entry on the floating base: a motion of the whole pair changes no distance) —, its
    rate the finite difference of coal's distance (present features), its bound the damper's
    at the closing rate, the least of the rate and coal's mean rate over the look-ahead, with
    pinocchio's classical accelerations as drift, capped at the joints' capacity along the
    row; the solution keeps every row."""
    robot = tp.robots.load("talos")
    solver = standing_solver(robot)
    constraint = solver.add_constraint(SelfCollisionAvoidance())
    q, v_crossing = _crossed(robot, solver, rng)
    present_rows = ahead_rows = 0
    # the hands turning back at a few speeds: a pair's other features close (second rows); which
    # states give them depends on the chaotic approach, so the rows of each are checked
    for speed in (-1.0, -1.5, -2.0, -0.5):
        kinds = _check_rows(robot, solver, constraint, q, speed * v_crossing)
        present_rows, ahead_rows = present_rows + kinds[0], ahead_rows + kinds[1]
        if present_rows and ahead_rows:
            break
    assert present_rows >= 1 and ahead_rows >= 1      # both kinds of rows were checked


def _check_rows(robot, solver, constraint, q, v) -> tuple[int, int]:
    """The checks of :func:`test_rows_are_the_distance_rate_and_acceleration_of_the_nearest_points`
    at the state ``(q, v)``; the numbers of present-feature and look-ahead rows checked."""
    solution = solver.solve(q, v)
    rows = constraint.active_pairs
    assert rows, "the hands came within activation"
    layout = solver.last_layout
    _, matrix, lower, _ = next(view for view in layout.linear_views if view[0] is constraint)
    model = pin.Model(robot.model)          # a copy: the probe frames below must not join the robot's
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, np.zeros(robot.nv))
    pin.computeJointJacobians(model, data, q)
    geometry = constraint.geometry
    geometry_data = pin.GeometryData(geometry)
    index = {item.name: item for item in geometry.geometryObjects}
    pieces = {item.name: k for k, item in enumerate(geometry.geometryObjects)}
    pair_of = {frozenset((p.first, p.second)): k for k, p in enumerate(geometry.collisionPairs)}

    def distance(pair, t):
        """Coal's distance and nearest points at ``q ⊕ t v`` (copied: coal's result is reused)."""
        pin.updateGeometryPlacements(model, model.createData(), geometry, geometry_data,
                                     pin.integrate(model, q, t * v))
        result = pin.computeDistance(geometry, geometry_data, pair)
        return result.min_distance, np.array(result.getNearestPoint1()), np.array(result.getNearestPoint2())

    safety, activation = constraint.distances
    tau = constraint.time_constant
    pairs = [pair_of[frozenset((pieces[entry.first], pieces[entry.second]))] for entry in rows]
    # coal's distances now and at the look-ahead (before the probe frames below join the model)
    measured = [(distance(pair, 0.0), distance(pair, tau)) for pair in pairs]
    derivatives = []                      # forward and backward differences of the distance now
    for pair in pairs:
        h, here = 1e-7, distance(pair, 0.0)[0]
        derivatives.append(((distance(pair, h)[0] - here) / h, (here - distance(pair, -h)[0]) / h))
    ahead_data = model.createData()
    pin.forwardKinematics(model, ahead_data, pin.integrate(model, q, tau * v))
    present_rows = ahead_rows = 0
    for row, entry in enumerate(rows):
        jacobians, drifts = [], []
        for name, point in ((entry.first, entry.first_point), (entry.second, entry.second_point)):
            joint = index[name].parentJoint
            local = data.oMi[joint].actInv(pin.SE3(np.eye(3), point))
            frame = model.addFrame(pin.Frame(f"probe_{row}_{name}", joint, 0, local, pin.FrameType.OP_FRAME))
            extended = model.createData()
            pin.forwardKinematics(model, extended, q, v, np.zeros(robot.nv))
            pin.computeJointJacobians(model, extended, q)
            pin.updateFramePlacements(model, extended)
            jacobians.append(pin.getFrameJacobian(model, extended, frame, pin.LOCAL_WORLD_ALIGNED)[:3])
            drifts.append(pin.getFrameClassicalAcceleration(model, extended, frame, pin.LOCAL_WORLD_ALIGNED).linear)
        normal = entry.normal
        expected_row = normal @ (jacobians[1] - jacobians[0])
        norm = np.linalg.norm(expected_row)                     # rows are unit rows
        np.testing.assert_allclose(matrix[row, :robot.nv], expected_row / norm, atol=1e-9)
        assert entry.rate == pytest.approx(expected_row @ v, abs=1e-9)
        now, later = measured[row]
        assert entry.distance == pytest.approx(now[0], abs=1e-5)          # GJK's tolerance
        closing = min(entry.rate, (later[0] - now[0]) / tau)
        drift = normal @ (drifts[1] - drifts[0])
        rest = safety + REST_FRACTION * (activation - safety)
        capacity = np.abs(expected_row) @ reachable_accelerations(robot)   # what the torques give
        braking = min(20.0, capacity)
        # coal's distances here and in the constraint differ within GJK's tolerance (1e-6 m,
        # its GJK warm-started): the mean rate over tau by twice that over tau, the bound by
        # that over the damper's response time
        tolerance = 1e-7 if entry.rate <= closing else 2e-6 / tau / max(1e-3, RESPONSE_FRACTION * tau) / norm
        assert lower[row] == pytest.approx(min(damper_bound(entry.distance - rest, closing, 1e-3, tau, braking)
                                               - drift, capacity) / norm, abs=tolerance)
        assert matrix[row] @ solution.x >= lower[row] - 1e-6
        # a motion of the whole pair changes no distance: no entry on the joints moving both
        # bodies (the floating base's), the points on one line along the normal
        np.testing.assert_allclose(matrix[row, :6], 0.0, atol=1e-9)
        separation = entry.second_point - entry.first_point
        np.testing.assert_allclose(separation, (normal @ separation) * normal, atol=1e-9)
        # the row's points are a nearest pair now, or the look-ahead's (coal's at q ⊕ τ v)
        # carried back to the bodies now and put on the normal through their midpoint
        back = [data.oMi[index[name].parentJoint] * ahead_data.oMi[index[name].parentJoint].inverse()
                for name in (entry.first, entry.second)]
        carried = [back[0].act(later[1]), back[1].act(later[2])]
        present = np.linalg.norm(separation) == pytest.approx(now[0], abs=1e-5)
        ahead_nearest = (np.allclose(entry.first_point + entry.second_point, carried[0] + carried[1], atol=1e-5)
                         and normal @ separation == pytest.approx(normal @ (carried[1] - carried[0]), abs=1e-5))
        assert present or ahead_nearest
        present_rows += present
        ahead_rows += ahead_nearest and not present
        if np.allclose(entry.first_point, now[1], atol=1e-5) and np.allclose(entry.second_point, now[2], atol=1e-5):
            # the rate is the distance's derivative (coal's distance along the motion) where
            # that is smooth: forward and backward differences agree (unique nearest points)
            forward, backward = derivatives[row]
            if abs(forward - backward) < 1e-3:
                assert forward == pytest.approx(entry.rate, abs=1e-3)
    return present_rows, ahead_rows


def test_the_screen_misses_no_pair_within_activation(talos, rng):
    """Random fast motions (and a jump): after each step, every pair whose exact distance
    (all pairs, coal) is within the activation distance was computed — or, its two bodies
    getting at most ROWS_PER_BODY_PAIR rows, that many of their pairs were (the most urgent
    by their bounds)."""
    from tsid_py.constraints.self_collision import ROWS_PER_BODY_PAIR
    from tsid_py.rows import StepContext

    robot = tp.robots.load("talos")
    constraint = SelfCollisionAvoidance(activation_distance=0.04)
    constraint.bind(robot)
    context = StepContext(robot=robot, dt=1e-3, n=robot.nv, nv=robot.nv)
    geometry = constraint.geometry
    geometry_data = pin.GeometryData(geometry)
    model, data = robot.model, robot.model.createData()
    body_pairs = [tuple(joints) for joints in constraint.pairs.joints.tolist()]
    q, v = robot.q_ref.copy(), np.zeros(robot.nv)
    checked = 0
    for step in range(400):
        if step % 50 == 0:
            v[6:] = rng.normal(0.0, 1.5, robot.na)
        if step == 200:
            q = pin.integrate(model, q, np.r_[np.zeros(6), rng.normal(0.0, 0.2, robot.na)])      # a jump
        q = pin.integrate(model, q, 1e-3 * v)
        robot.update(q, v)
        constraint.write_rows(context, np.zeros((16, robot.nv)), np.zeros(16), np.zeros(16))
        computed = set(constraint.evaluated_pairs().tolist())
        pin.computeDistances(model, data, geometry, geometry_data, q)
        distances = np.array([result.min_distance for result in geometry_data.distanceResults])
        for pair in np.flatnonzero(distances < constraint.distances[1]):
            checked += 1
            siblings = [k for k in computed if body_pairs[k] == body_pairs[pair]]
            assert pair in computed or len(siblings) >= ROWS_PER_BODY_PAIR, (step, distances[pair])
    assert checked > 50


def test_no_row_asks_more_than_its_joints_give(rng):
    """G1's right wrist at random positions within its limits, spinning at random: a pair of
    its links across the wrist pitch moves ~0.1 mm per rad (its distance hardly depends on
    the joints), and the drift of its spin came on top of the damper's braking: rows asked up
    to 12 times what the joints' torques give along them (infeasible with the joint limits in
    a random-targets run). Every row's bound is at most ``Σ_j |r_j| α_j`` over the unit row
    ``r``, ``α_j = ½ τ_max,j / M_jj`` (pinocchio's CRBA at ``q_ref``, the model's efforts), the
    cap binds on some row, and the solution keeps every row."""
    robot = tp.robots.load("g1")
    solver = standing_solver(robot)
    constraint = solver.add_constraint(SelfCollisionAvoidance())
    offset = robot.nv - robot.na
    inertia = np.diag(pin.crba(robot.model, robot.model.createData(), robot.q_ref))[offset:]
    reachable = np.zeros(robot.nv)
    reachable[offset:] = 0.5 * np.asarray(robot.effort_limits, dtype=float) / inertia
    wrist = [f"right_wrist_{axis}_joint" for axis in ("roll", "pitch", "yaw")]
    q_index = np.array([robot.joint_q_index(name) for name in wrist])
    v_index = np.array([robot.joint_v_index(name) for name in wrist])
    low, high = robot.position_lower[q_index - 7], robot.position_upper[q_index - 7]
    ratios = []
    for _ in range(40):
        q, v = robot.q_ref.copy(), robot.zero_velocity()
        q[q_index] = low + rng.uniform(0.0, 1.0, 3) * (high - low)
        v[v_index] = rng.normal(0.0, 10.0, 3)
        solution = solver.solve(q, v)
        _, matrix, lower, _ = next(view for view in solver.last_layout.linear_views if view[0] is constraint)
        rows = len(constraint.active_pairs)
        ratios.extend(lower[:rows] / (np.abs(matrix[:rows, :robot.nv]) @ reachable))
        assert np.all(matrix[:rows] @ solution.x >= lower[:rows] - 1e-6)
    assert max(ratios) == pytest.approx(1.0, abs=1e-9)         # capped somewhere, never beyond


def test_an_infeasible_step_is_relaxed_before_it_fails(talos):
    """Hips pushed into each other with both soles held: the separation the rows ask cannot
    be given, the solve raises and names the constraint. The failure policy's first rung
    relaxes the rows to "no pair accelerates toward the other" (d̈ ≥ min(bound, 0)) and
    reports it; a step's override does the same."""
    robot = tp.robots.load("talos")
    solver = standing_solver(robot, diagnose=True)
    constraint = solver.add_constraint(SelfCollisionAvoidance())
    q = robot.q_ref.copy()
    q[robot.joint_q_index("leg_right_2_joint")] += 0.05
    v = robot.zero_velocity()
    with pytest.raises(tp.InfeasibleError, match="self-collision avoidance"):
        solver.solve(q, v)
    _, matrix, lower, _ = next(view for view in solver.last_layout.linear_views if view[0] is constraint)
    rows = len(constraint.active_pairs)
    assert rows and np.max(lower[:rows]) > 0.0                 # a separation was asked for
    strict_lower = lower[:rows].copy()
    solution = FailurePolicy(solver).solve(q, v)
    assert solution.relaxed == (RELAXED,) and not solution.success
    overrides = StepOverrides()
    overrides.relax(constraint)
    relaxed = solver.solve(q, v, overrides)
    _, matrix, lower, upper = next(view for view in solver.last_layout.linear_views if view[0] is constraint)
    assert relaxed.success and np.all(np.isneginf(lower[rows:])) and np.all(np.isposinf(upper))
    assert np.isfinite(lower[:rows]).all() and lower[:rows].max() < strict_lower.max()     # weaker rows, kept
    assert np.all(matrix[:rows] @ relaxed.x >= lower[:rows] - 1e-7)
    with pytest.raises(ValueError, match="not relaxable"):
        overrides.relax(tp.constraints.TorqueLimits())


def test_nothing_near_costs_no_exact_distance(talos):
    robot = tp.robots.load("talos")
    solver = standing_solver(robot)
    constraint = solver.add_constraint(SelfCollisionAvoidance())
    for _ in range(3):
        solver.solve(robot.q_ref, robot.zero_velocity())
        assert constraint.active_pairs == [] and constraint.closest == np.inf and not constraint.engaged


def test_settings_are_validated_and_copies_are_independent(talos):
    for kwargs, match in [({"safety_distance": -0.01}, "safety_distance"), ({"max_pairs": 0}, "max_pairs"),
                          ({"time_constant": 0.0}, "time_constant"), ({"srdf": "missing.srdf"}, "srdf"),
                          ({"links": [("a", "b", "c")]}, "links"), ({"geometry": "mesh"}, "geometry")]:
        with pytest.raises(ValueError, match=match):
            SelfCollisionAvoidance(**kwargs)
    constraint = SelfCollisionAvoidance(safety_distance=0.02, activation_distance=0.01)
    with pytest.raises(ValueError, match="activation_distance must be > safety_distance"):
        constraint.bind(talos)
    robot = tp.robots.load("talos")
    solver = standing_solver(robot)
    constraint = solver.add_constraint(SelfCollisionAvoidance(links=[("arm_left_7_link", "arm_right_7_link")]))
    assert constraint.pairs.excluded["not asked for"] > 0
    assert all("arm" in a or "gripper" in a for pair in constraint.pairs.names for a in pair)
    constraint.max_pairs = 4                       # takes effect at the next solve
    q, v = robot.q_ref, robot.zero_velocity()
    first = solver.solve(q, v)
    assert solver.last_layout.C.shape[0] >= 4
    for other in (pickle.loads(pickle.dumps(solver)), copy.deepcopy(solver)):
        copied = other.constraints[-1]
        assert copied is not constraint and copied.pairs.names == constraint.pairs.names
        np.testing.assert_allclose(other.solve(q, v).tau, first.tau, atol=1e-9)

