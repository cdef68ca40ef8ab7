"""Strict priorities (tsid_py.hierarchy): levels 1, 2, … between the hard rows and the soft cost.

The reference is independent of the library's level machinery: the tasks' rows are built here
from pinocchio (frame and CoM Jacobians and classical drifts), and the levels are solved one at
a time by proxsuite on the full QP (the hard rows and the soft cost of ``solver.last_qp``), each
level's optimum added as equality rows ``R x = R x_k`` and its inequality rows held with their
slack fixed (``l + w ≤ C x ≤ u + w``), as in Kanoun et al. (2011).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from proxsuite import proxqp

import tsid_py as tp
from tsid_py.backends import Backend, make_backend
from tsid_py.backends.base import FEASIBILITY_TOLERANCE as ACCEPTED
from tsid_py.backends.base import constraint_violation
from tsid_py.backends.reduced import FEASIBILITY_TOLERANCE
from tsid_py.control import FailurePolicy
from tsid_py.overrides import StepOverrides

HAND, TORSO = "arm_left_7_link", "torso_2_link"


# ------------------------------------------------------------------------------ the reference
def _kinematics(robot, q, v):
    model, data = robot.model, robot.model.createData()
    pin.forwardKinematics(model, data, q, v, np.zeros(robot.nv))
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    return model, data


def hand_rows(robot, q, v, target, kp):
    """``J q̈ = kp e + kd ė − J̇v`` for the hand's position, world-aligned."""
    model, data = _kinematics(robot, q, v)
    frame = model.getFrameId(HAND)
    J = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)[:3]
    drift = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL_WORLD_ALIGNED).linear
    return J, kp * (target - data.oMf[frame].translation) - 2 * np.sqrt(kp) * J @ v - drift


def com_rows(robot, q, v, target, kp):
    model, data = robot.model, robot.model.createData()
    pin.centerOfMass(model, data, q, v, np.zeros(robot.nv))
    J = pin.jacobianCenterOfMass(model, data, q)
    return J, kp * (target - data.com[0]) - 2 * np.sqrt(kp) * J @ v - data.acom[0]


def torso_rows(robot, q, v, kp):
    """The torso's orientation held where it is at ``q_ref``: ``e = log(R_ref Rᵀ)``."""
    model, data = _kinematics(robot, q, v)
    frame = model.getFrameId(TORSO)
    J = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)[3:]
    drift = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL_WORLD_ALIGNED).angular
    target = robot.placement_at(robot.q_ref, frame).rotation
    return J, kp * pin.log3(target @ data.oMf[frame].rotation.T) - 2 * np.sqrt(kp) * J @ v - drift


def posture_rows(robot, q, v, kp):
    J = np.zeros((robot.nv - 6, robot.nv))
    J[:, 6:] = np.eye(robot.nv - 6)
    return J, kp * (robot.q_ref[7:] - q[7:]) - 2 * np.sqrt(kp) * v[6:]


def proxsuite_qp(H, g, A, b, C, l, u, nv):
    """proxsuite on the QP with forces in units of 100 N and unit rows (no other change)."""
    n = H.shape[0]
    scale = np.ones(n)
    scale[nv:] = 100.0
    H, g, A, C = H * np.outer(scale, scale), g * scale, A * scale, C * scale
    rows_A, rows_C = np.linalg.norm(A, axis=1), np.linalg.norm(C, axis=1)
    rows_C[rows_C == 0] = 1.0
    A, b, C, l, u = A / rows_A[:, None], b / rows_A, C / rows_C[:, None], l / rows_C, u / rows_C
    solver = proxqp.dense.QP(n, A.shape[0], C.shape[0])
    solver.settings.eps_abs, solver.settings.eps_rel, solver.settings.max_iter = 1e-10, 0.0, 100000
    solver.settings.eps_primal_inf = solver.settings.eps_dual_inf = 1e-14   # (its default declares these infeasible)
    solver.init(H, g, A, b, C, np.clip(l, -1e20, 1e20), np.clip(u, -1e20, 1e20))
    solver.solve()
    assert str(solver.results.info.status).endswith("PROXQP_SOLVED"), solver.results.info.status
    return scale * solver.results.x


def lexicographic_reference(qp, levels, nv):
    """``levels``: ``(R, s, C, l, u)`` each; one QP per level, then the soft cost."""
    A, b = qp.A.copy(), qp.b.copy()
    C, l, u = (array.copy() for array in qp.rows_with_box())
    n = qp.n
    for R, s, Cl, ll, ul in levels:
        m = Cl.shape[0]
        H = np.zeros((n + m, n + m))
        H[:n, :n], H[n:, n:] = 2 * R.T @ R, 2 * np.eye(m)
        g = np.r_[-2 * R.T @ s, np.zeros(m)]
        x = proxsuite_qp(H, g, np.hstack([A, np.zeros((A.shape[0], m))]), b,
                         np.vstack([np.hstack([C, np.zeros((C.shape[0], m))]), np.hstack([Cl, -np.eye(m)])]),
                         np.r_[l, ll], np.r_[u, ul], nv)
        x_k, w = x[:n], x[n:]
        A, b = np.vstack([A, R]), np.r_[b, R @ x_k]                           # the level's optimum
        C, l, u = np.vstack([C, Cl]), np.r_[l, ll + w], np.r_[u, ul + w]       # its slack, fixed
    return proxsuite_qp(qp.cost.hessian(), qp.cost.gradient(), A, b, C, l, u, nv)


def no_rows(n):
    return np.zeros((0, n)), np.zeros(0), np.zeros(0)


def padded(J, n):
    rows = np.zeros((J.shape[0], n))
    rows[:, : J.shape[1]] = J
    return rows


# ------------------------------------------------------------------------------ the problems
def talos_state(robot, seed=0):
    rng = np.random.default_rng(seed)
    q = robot.q_ref.copy()
    q[7:] += rng.uniform(-0.05, 0.05, robot.nq - 7)
    return q, rng.normal(0.0, 0.1, robot.nv)


def talos_levels(robot, q, qp_solver="reduced", acceleration_limit=None):
    """Feet in contact, torque limits; level 1 the hand 10 cm away, level 2 the CoM 2 cm away,
    level 3 the posture. With ``acceleration_limit``: level 2 acceleration limits, level 3 the
    CoM, level 4 the torso's orientation, and the posture soft."""
    solver = tp.DynamicsSolver(robot, qp_solver=qp_solver)
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
    solver.add_constraint(tp.constraints.TorqueLimits())
    level = 1
    hand_target = robot.placement_at(q, robot.model.getFrameId(HAND)).translation + [0.1, 0.05, 0.1]
    solver.add_task(tp.tasks.PositionTask(HAND, hand_target, kp=100.0, priority=level))
    if acceleration_limit is not None:
        level += 1
        solver.add_constraint(tp.constraints.AccelerationLimits(acceleration_limit, priority=level))
    com = solver.add_task(tp.tasks.CoMTask(kp=100.0, priority=level + 1))
    com.set_target(com.position_ref + [0.02, 0.01, 0.0])
    if acceleration_limit is None:
        solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, priority=level + 2))
    else:
        solver.add_task(tp.tasks.OrientationTask(TORSO, kp=50.0, priority=level + 2))
        solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    return solver, hand_target, com.position_ref.copy()


def reference_levels(robot, q, v, n, hand_target, com_target, acceleration_limit=None):
    J1, b1 = hand_rows(robot, q, v, hand_target, 100.0)
    J2, b2 = com_rows(robot, q, v, com_target, 100.0)
    J3, b3 = posture_rows(robot, q, v, 10.0) if acceleration_limit is None else torso_rows(robot, q, v, 50.0)
    levels = [(padded(J1, n), b1, *no_rows(n))]
    if acceleration_limit is not None:
        bounds = padded(np.eye(robot.nv)[6:], n)
        limit = np.full(robot.nv - 6, acceleration_limit)
        levels.append((np.zeros((0, n)), np.zeros(0), bounds, -limit, limit))
    return levels + [(padded(J2, n), b2, *no_rows(n)), (padded(J3, n), b3, *no_rows(n))]


def level_values(levels, x):
    """Each level's residual ‖R x − s‖ and violation ‖C x − clip(C x, l, u)‖."""
    return np.array([(np.linalg.norm(R @ x - s), np.linalg.norm(C @ x - np.clip(C @ x, l, u)))
                     for R, s, C, l, u in levels])


# ------------------------------------------------------------------------------ must show
def test_three_levels_equal_the_levels_solved_one_at_a_time(talos):
    """Level 1: a hand position; 2: the CoM; 3: the posture (which cannot be met: it gives
    way); the soft level: the regularisation. The answer is the reference's to 1e-6: q̈ in
    rad/s² (measured 2e-11), the contact forces relative to the robot's weight (measured
    8.5e-7 N: the feet's force split rests on the 1e-8 N⁻² force regularisation alone)."""
    q, v = talos_state(talos)
    solver, hand_target, com_target = talos_levels(talos, q)
    solution = solver.solve(q, v)
    qp = solver.last_qp
    levels = reference_levels(talos, q, v, qp.n, hand_target, com_target)
    for level, (R, s, *_) in zip(qp.levels, levels):             # the library's rows are pinocchio's
        np.testing.assert_allclose(level.R, R, atol=1e-12)
        np.testing.assert_allclose(level.s, s, atol=1e-12 * (1 + np.abs(s).max()))
    reference = lexicographic_reference(qp, levels, talos.nv)
    np.testing.assert_allclose(solution.ddq, reference[: talos.nv], atol=1e-6)
    np.testing.assert_allclose(solution.x[talos.nv:], reference[talos.nv:], atol=1e-6 * talos.weight)
    assert solution.gave_way == (3,)
    values = level_values(levels, solution.x)
    assert values[0, 0] < 1e-9 and values[1, 0] < 1e-9 and values[2, 0] > 1.0
    assert constraint_violation(qp, solution.x) < 1e-7         # the hard rows, as every answer is checked


def test_four_levels_with_inequalities_at_level_2(talos):
    """Level 1 the hand; level 2 bounds every joint's acceleration to 10 rad/s², which the
    hand needs to exceed: the bounds give way where they must (their violation fixed for the
    levels below) and hold elsewhere; level 3 the CoM, level 4 the torso's orientation, the
    posture soft. Each level's residual and violation are the reference's to 1e-6
    (relative), q̈ to 1e-5 rad/s²."""
    q, v = talos_state(talos)
    solver, hand_target, com_target = talos_levels(talos, q, acceleration_limit=10.0)
    solution = solver.solve(q, v)
    qp = solver.last_qp
    assert [level.priority for level in qp.levels] == [1, 2, 3, 4]
    assert qp.levels[1].C.shape[0] == talos.nv - 6 and qp.levels[1].R.shape[0] == 0
    levels = reference_levels(talos, q, v, qp.n, hand_target, com_target, acceleration_limit=10.0)
    reference = lexicographic_reference(qp, levels, talos.nv)
    ours, theirs = level_values(levels, solution.x), level_values(levels, reference)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(solution.ddq, reference[: talos.nv], atol=1e-5)
    accelerations = np.abs(solution.ddq[6:])
    assert np.sum(accelerations > 10.0 + 1e-6) >= 5 and np.sum(accelerations < 10.0 - 1e-6) >= 5
    assert solution.gave_way == (2, 3, 4) and solution.levels[0].met
    assert constraint_violation(qp, solution.x) < 1e-7         # the hard rows, as every answer is checked


def test_a_level_that_cannot_be_met_leaves_the_levels_above_exact(talos):
    """Two targets for one hand: level 2 gives way, level 1 is met exactly as without level 2;
    the step is a success (no infeasibility), and the failure policy reports the level that
    gave way. The same two tasks hard are an infeasibility naming both."""
    q, v = talos_state(talos, seed=1)
    point = talos.placement_at(q, talos.model.getFrameId(HAND)).translation

    def build(first, second):
        solver = tp.DynamicsSolver(talos)
        length, width = talos.sole_size
        for foot in talos.feet:
            solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
        solver.add_constraint(tp.constraints.TorqueLimits())
        near = solver.add_task(tp.tasks.PositionTask(HAND, point + [0.05, 0, 0], kp=100.0, priority=first,
                                                     name="hand near"))
        if second is not None:
            solver.add_task(tp.tasks.PositionTask(HAND, point + [0, 0.2, 0], kp=100.0, priority=second,
                                                  name="hand far"))
        solver.add_task(tp.tasks.CoMTask(kp=50.0))
        return solver, near

    alone, near = build(1, None)
    J, b = hand_rows(talos, q, v, point + [0.05, 0, 0], 100.0)
    expected = J @ alone.solve(q, v).ddq
    np.testing.assert_allclose(expected, b, atol=1e-9)

    solver, _ = build(1, 2)
    policy = FailurePolicy(solver)
    solution = policy.solve(q, v)
    assert solution.success and solution.relaxed == () and solution.gave_way == (2,)
    assert policy.gave_way == {2: 1}
    np.testing.assert_allclose(J @ solution.ddq, expected, atol=1e-9)   # level 1 exact, unchanged
    assert solution.levels[1].residual > 1.0

    hard, _ = build("hard", "hard")
    with pytest.raises(tp.InfeasibleError) as caught:
        hard.solve(q, v)
    assert set(caught.value.conflicts) >= {"task hand near", "task hand far"}


def test_a_level_beyond_the_hard_rows_gives_way_instead_of_failing(talos):
    """A hand acceleration the torque limits cannot give: hard, the step is infeasible (the
    diagnosis names the task and the limits); at level 1 it gives way, the limits hold."""
    q, v = talos_state(talos, seed=2)
    point = talos.placement_at(q, talos.model.getFrameId(HAND)).translation

    def build(priority):
        solver = tp.DynamicsSolver(talos)
        length, width = talos.sole_size
        for foot in talos.feet:
            solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
        solver.add_constraint(tp.constraints.TorqueLimits(scale=0.2))
        solver.add_task(tp.tasks.PositionTask(HAND, point + [0, 0, 1.0], kp=5000.0, priority=priority, name="hand"))
        solver.add_task(tp.tasks.JointTask(talos.q_ref, kp=10.0, weight=1e-2))
        return solver

    with pytest.raises(tp.InfeasibleError) as caught:
        build("hard").solve(q, v)
    assert "task hand" in caught.value.conflicts and "torque limits" in caught.value.conflicts
    solver = build(1)
    solution = solver.solve(q, v)
    assert solution.gave_way == (1,)
    assert constraint_violation(solver.last_qp, solution.x) < 1e-7        # the hard rows hold
    limits = solver.constraints[0]           # (to the backend's feasibility tolerance: measured 1.7e-9)
    assert np.all(np.abs(solution.tau_actuated[limits.index]) <= limits.effort * (1 + FEASIBILITY_TOLERANCE))


def test_infeasible_hard_rows_are_diagnosed_with_levels_present(talos):
    """The diagnosis looks at the hard rows only and says the levels give way instead."""
    q, v = talos_state(talos)
    solver = tp.DynamicsSolver(talos)
    length, width = talos.sole_size
    for foot in talos.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
    com = pin.centerOfMass(talos.model, talos.model.createData(), q).copy()
    solver.add_task(tp.tasks.CoMTask(com, kp=100.0, priority="hard", name="com A"))
    solver.add_task(tp.tasks.CoMTask(com + [0.1, 0, 0], kp=100.0, priority="hard", name="com B"))
    solver.add_task(tp.tasks.PositionTask(HAND, kp=100.0, priority=1, name="hand"))
    with pytest.raises(tp.InfeasibleError) as caught:
        solver.solve(q, v)
    assert sorted(caught.value.conflicts) == ["task com A", "task com B"]
    assert "level 1" in str(caught.value) and "give way" in str(caught.value)
    assert caught.value.level is None


# ------------------------------------------------------------------------------ backends
@pytest.mark.parametrize("acceleration_limit", [None, 10.0])
def test_backends_give_the_same_levels_or_refuse_them(talos, acceleration_limit):
    """DAQP (through qpsolvers) gives the reduced backend's answer to the three- and
    four-level problems (q̈ to 1e-6 rad/s²); proxsuite, OSQP and quadprog refuse levels with
    an error naming the way out (their answers to the levels' QPs failed the solver's checks:
    see their ``proximal_weight``)."""
    q, v = talos_state(talos)
    answers = {backend: talos_levels(talos, q, qp_solver=backend, acceleration_limit=acceleration_limit)[0]
               .solve(q, v) for backend in ("reduced", "daqp")}
    np.testing.assert_allclose(answers["daqp"].ddq, answers["reduced"].ddq, atol=1e-6)
    assert answers["daqp"].gave_way == answers["reduced"].gave_way
    for backend in ("proxsuite", "osqp", "quadprog"):
        solver, _, _ = talos_levels(talos, q, qp_solver=backend, acceleration_limit=acceleration_limit)
        with pytest.raises(ValueError, match=f"qp_solver '{backend}' does not solve priority levels.*'reduced'"):
            solver.solve(q, v)


# ------------------------------------------------------------------------------ behaviour
def test_levels_cost_nothing_when_unused(talos):
    """The default problem has no level block, and its QP no level."""
    solver = tp.DynamicsSolver(talos)
    for foot in talos.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1))
    solver.add_task(tp.tasks.CoMTask(kp=10.0))
    solver.add_constraint(tp.constraints.TorqueLimits())
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    assert solver.layout.levels == [] and solver.last_qp.levels == () and solution.levels == ()
    assert solution.gave_way == ()
    solver.add_constraint(tp.constraints.AccelerationLimits(1.0, priority="soft"))   # a soft inequality
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    assert [level.priority for level in solver.last_qp.levels] == ["soft"] and solution.levels[0].met


def test_levels_are_warm_started_across_steps(talos):
    """At the same state again every level's first proximal solve is its optimum."""
    q, v = talos_state(talos)
    solver, _, _ = talos_levels(talos, q)
    first = solver.solve(q, v)
    again = solver.solve(q, v)
    assert max(level.solves for level in first.levels) >= 2
    assert [level.solves for level in again.levels] == [1, 1, 1]
    np.testing.assert_allclose(again.x, first.x, atol=1e-8)


def test_a_levelled_solver_copies_and_pickles(talos):
    q, v = talos_state(talos)
    solver, _, _ = talos_levels(talos, q)
    expected = solver.solve(q, v).x
    for other in (copy.deepcopy(solver), pickle.loads(pickle.dumps(solver))):
        np.testing.assert_allclose(other.solve(q, v).x, expected, atol=1e-8)


class FailsAtRows(Backend):
    """The reduced backend, failing on QPs whose cost has ``rows`` rows (one level's)."""

    name = "fails at one level"
    checks_constraints = True
    proximal_weight = 1e-10

    def __init__(self, rows):
        self.rows, self.inner = rows, make_backend("reduced")

    def solve(self, qp):
        if qp.cost.R.shape[0] == self.rows:
            return tp.backends.QPResult(np.full(qp.n, np.nan), "made to fail", False)
        return self.inner.solve(qp)


def test_the_failure_policy_drops_a_failing_level_and_keeps_the_ones_above(talos):
    """A level's QP that fails is a SolverError naming the level (not an infeasibility); the
    failure policy solves the step again without that level and those below it."""
    q, v = talos_state(talos)
    solver = tp.DynamicsSolver(talos, qp_solver=FailsAtRows(2))
    for foot in talos.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1))
    solver.add_task(tp.tasks.PositionTask(HAND, kp=100.0, priority=1))
    solver.add_task(tp.tasks.CoMTask(kp=100.0, mask=[1, 1, 0], priority=2))
    solver.add_task(tp.tasks.JointTask(talos.q_ref, kp=10.0, priority=3))
    with pytest.raises(tp.SolverError) as caught:
        solver.solve(q, v)
    assert not isinstance(caught.value, tp.InfeasibleError)
    assert caught.value.level == 2 and "level 2" in str(caught.value) and "level 1" in str(caught.value)
    policy = FailurePolicy(solver)
    solution = policy.solve(q, v)
    assert solution.relaxed == ("levels dropped from 2",) and not solution.success
    assert [level.priority for level in solution.levels] == [1] and solution.levels[0].met
    assert policy.counts["levels dropped from 2"] == 1


def test_softened_contacts_come_before_the_levels(talos):
    """With levels, the contacts a step softens make level 0, solved before level 1."""
    q, v = talos_state(talos)
    solver, _, _ = talos_levels(talos, q)
    overrides = StepOverrides()
    overrides.soften(talos.feet[0], 1e3)
    solution = solver.solve(q, v, overrides)
    assert [level.priority for level in solver.last_qp.levels] == [0, 1, 2, 3]
    assert solver.last_qp.levels[0].cost_labels[0] == f"contact {talos.feet[0]}: no-slip acceleration"
    assert solution.levels[0].met                     # nothing asks the foot to slip
    assert f"contact {talos.feet[0]}: no-slip acceleration" not in solver.last_layout.soft_labels


def test_priorities_are_validated():
    for good in ("hard", "soft", 1, 3, np.int64(2)):
        task = tp.tasks.CoMTask(priority=good)
        assert task.priority == good and type(task.priority) in (str, int)
        assert tp.constraints.TorqueLimits(priority=good).priority == good
    for bad in (0, -1, True, 1.5, "1", None, "level 1"):
        with pytest.raises(ValueError, match="priority must be 'hard', 'soft' or a level 1, 2, …"):
            tp.tasks.CoMTask(priority=bad)
        with pytest.raises(ValueError, match="priority must be"):
            tp.constraints.JointLimits(priority=bad)
    with pytest.raises(ValueError, match="weight"):
        tp.constraints.VelocityLimits(priority=1, weight=0.0)
    overrides = StepOverrides()
    with pytest.raises(ValueError, match="first must be a level"):
        overrides.drop_levels("soft")


def test_closed_form_levels_on_a_small_qp():
    """Three variables, no hard equality, the hard row ``x₀ ≥ 2``. Level 1: ``x₀ ≤ 1`` (an
    inequality that must give way: its violation is 1 at best, and stays 1); level 2:
    ``x₀ + x₁ = 5`` and ``x₀ = 7`` (conflicting with level 1: only ``x₁ = 3`` is met); soft:
    ``10⁻² ‖x‖²``. The lexicographic answer is ``(2, 3, 0)``."""
    from tsid_py.hierarchy import Hierarchy
    from tsid_py.qp import QP, LeastSquaresCost, Level

    n = 3
    level_1 = Level(1, np.zeros((0, n)), np.zeros(0), np.array([[1.0, 0, 0]]), np.array([-np.inf]), np.array([1.0]),
                    np.ones(1), [], ["x0 below 1"])
    level_2 = Level(2, np.array([[1.0, 1, 0], [1, 0, 0]]), np.array([5.0, 7.0]), np.zeros((0, n)), np.zeros(0),
                    np.zeros(0), np.zeros(0), ["sum", "x0"], [])
    cost = LeastSquaresCost(np.zeros((0, n)), np.zeros(0), np.full(n, 1e-2), np.zeros(n))
    qp = QP(None, None, np.zeros((0, n)), np.zeros(0), np.array([[1.0, 0, 0]]), np.array([2.0]), np.array([np.inf]),
            cost=cost, levels=(level_1, level_2))
    for backend in ("reduced", "daqp"):
        result = Hierarchy().solve(qp, nv=n, backend=make_backend(backend))
        assert result.success
        np.testing.assert_allclose(result.x, [2.0, 3.0, 0.0], atol=1e-8)
        assert [level.gave_way for level in result.levels] == [True, True]
        assert result.levels[0].violation == pytest.approx(1.0, abs=1e-8)
        assert result.levels[1].residual == pytest.approx(5.0, abs=1e-8)       # |x₀ − 7| with x₀ = 2


def test_contacts_and_weight_overrides_at_a_level(talos):
    """A contact's no-slip rows at level 1 (scaled by √weight) are met when nothing conflicts
    with them; a step's weight override on a levelled task scales its rows by √weight; a
    changed priority rebuilds the layout."""
    q, v = talos_state(talos)
    left, right = talos.feet

    def build(weight):
        solver = tp.DynamicsSolver(talos)
        solver.add_contact(tp.PlanarContact(left, length=0.2, width=0.1))
        solver.add_contact(tp.PlanarContact(right, length=0.2, width=0.1, priority=1, weight=weight))
        return solver, solver.add_task(tp.tasks.CoMTask(kp=10.0, priority=2))

    plain, _ = build(1.0)
    plain.solve(q, v)
    solver, com = build(4.0)
    solution = solver.solve(q, v)
    level = solver.last_qp.levels[0]
    assert level.priority == 1 and level.cost_labels == [f"contact {right}: no-slip acceleration"] * 6
    assert solution.levels[0].met and solution.levels[0].residual < 1e-9
    np.testing.assert_allclose(level.R, 2.0 * plain.last_qp.levels[0].R, atol=1e-12)       # √4
    assert np.abs(level.R).max() > 0.1
    com_rows = solver.last_qp.levels[1].R.copy()
    overrides = StepOverrides()
    overrides.weigh(com, 9.0)
    solver.solve(q, v, overrides)
    np.testing.assert_allclose(solver.last_qp.levels[1].R, 3.0 * com_rows, atol=1e-12)
    built = solver.layouts_built
    com.priority = "soft"
    solver.solve(q, v)
    assert solver.layouts_built == built + 1 and [lv.priority for lv in solver.last_qp.levels] == [1]


class Outside(Backend):
    """The reduced backend, its answers to the QPs whose cost has ``rows`` rows (one level's)
    moved by ``offset`` along ``x₀``: an answer accepted within the tolerance, outside a row."""

    name = "answers just outside"
    checks_constraints = True
    proximal_weight = 1e-10

    def __init__(self, rows, offset):
        self.rows, self.offset, self.inner = rows, offset, make_backend("reduced")

    def solve(self, qp):
        result = self.inner.solve(qp)
        if qp.cost.R.shape[0] == self.rows and result.success:
            result.x[0] += self.offset
        return result

    def reset(self):
        self.inner.reset()


@pytest.mark.parametrize("widen", [True, False])
def test_a_level_answer_just_outside_a_hard_row_leaves_the_next_level_feasible(widen, monkeypatch):
    """The hard row ``x₀ ≤ 1``; level 1 asks ``x = (2, 0.5)`` and fixes both variables, its
    answer ``x₀ = 1`` returned ``3·10⁻⁷`` outside the row (within the tolerance). The soft
    level's QP, ``x`` fixed there and ``x₀ ≤ 1``, is infeasible by that much; solved again with
    the bounds widened to contain the answer, it is ``(1 + 3·10⁻⁷, 0.5)``. Without the second
    solve (``widen`` False: the check sees what it is for) the hierarchy fails."""
    from tsid_py.hierarchy import Hierarchy, _HardBounds
    from tsid_py.qp import QP, LeastSquaresCost, Level

    if not widen:
        monkeypatch.setattr(_HardBounds, "widen", lambda self: False)
    n, offset = 2, 3e-7
    level_1 = Level(1, np.eye(n), np.array([2.0, 0.5]), np.zeros((0, n)), np.zeros(0), np.zeros(0), np.zeros(0),
                    ["x0", "x1"], [])
    cost = LeastSquaresCost(np.zeros((0, n)), np.zeros(0), np.full(n, 1e-2), np.zeros(n))
    qp = QP(None, None, np.zeros((0, n)), np.zeros(0), np.array([[1.0, 0.0]]), np.array([-np.inf]),
            np.array([1.0]), cost=cost, levels=(level_1,))
    result = Hierarchy().solve(qp, nv=n, backend=Outside(rows=n, offset=offset))
    assert result.success == widen
    if widen:
        np.testing.assert_allclose(result.x, [1.0 + offset, 0.5], atol=1e-12)
        assert constraint_violation(qp, result.x) <= ACCEPTED
