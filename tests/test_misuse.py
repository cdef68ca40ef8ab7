"""Off the happy path: shared objects, settings changed after construction, non-finite data
and copies. Each case checks against an independent truth: a solver built afresh with the
final settings, a sequential reference solve, or pinocchio."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.rows import PDKinematics, Rows

from .conftest import check_contact_solution, load_robot, perturbed_state, standing_solver


def fresh_state(robot, rng):
    return perturbed_state(robot, rng, joint_spread=0.1, velocity_spread=0.3)


# ---------------------------------------------------------------------------- ownership
@pytest.mark.parametrize("make, add", [
    (lambda r: tp.tasks.CoMTask(kp=10.0), "add_task"),
    (lambda r: tp.tasks.JointTask(kp=10.0), "add_task"),
    (lambda r: tp.tasks.FrameTask(r.feet[0]), "add_task"),
    (lambda r: tp.PlanarContact(r.feet[0]), "add_contact"),
    (lambda r: tp.constraints.TorqueLimits(), "add_constraint"),
    (lambda r: tp.constraints.JointLimits(), "add_constraint"),
], ids=["com", "posture", "frame", "contact", "torque-limits", "joint-limits"])
def test_an_item_belongs_to_one_solver(talos, make, add):
    item = make(talos)
    first, second = tp.DynamicsSolver(talos), tp.DynamicsSolver(load_robot("talos"))
    getattr(first, add)(item)
    with pytest.raises(ValueError, match="another solver"):
        getattr(second, add)(item)
    if add != "add_contact":                       # a contact's name already says it is active
        with pytest.raises(ValueError, match="already added"):
            getattr(first, add)(item)


def test_a_removed_item_may_be_added_elsewhere(talos):
    task = tp.tasks.CoMTask(kp=10.0)
    first, second = tp.DynamicsSolver(talos), tp.DynamicsSolver(load_robot("talos"))
    first.add_task(task)
    first.remove_task(task)
    assert second.add_task(task) is task and task.owner is second


def test_adding_items_never_moves_the_robot(talos, rng):
    """A frame task without a target takes its default at q_ref, computed aside: the robot
    keeps its state; a contact added next is anchored where the foot is at the next solve."""
    q, v = fresh_state(talos, rng)
    talos.update(q, v)
    solver = tp.DynamicsSolver(talos)
    solver.add_task(tp.tasks.FrameTask(talos.feet[1]))
    solver.add_task(tp.tasks.CoMTask())
    np.testing.assert_array_equal(talos.q, q)
    contact = solver.add_contact(tp.PlanarContact(talos.feet[0], kp=10.0))
    np.testing.assert_array_equal(talos.q, q)
    q_next = pin.integrate(talos.model, q, 0.01 * v)
    solver.solve(q_next, v)
    data = talos.model.createData()
    pin.framesForwardKinematics(talos.model, data, q_next)
    assert contact.anchor.isApprox(data.oMf[talos.frame_id(talos.feet[0])], 1e-12)


def test_the_robot_keeps_its_own_state(talos, rng):
    q, v = fresh_state(talos, rng)
    solver = standing_solver(talos)
    solver.solve(q, v)
    q_seen = q.copy()
    q[7:] += 1.0
    v[:] = 5.0
    np.testing.assert_array_equal(talos.q, q_seen)
    assert talos.q is not q and not np.any(talos.v == 5.0)


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda r: pickle.loads(pickle.dumps(r))],
                         ids=["deepcopy", "pickle"])
def test_a_copied_robot_is_independent_and_correct(talos, rng, duplicate):
    q, v = fresh_state(talos, rng)
    twin = duplicate(talos)
    twin.update(q, v)
    talos.update(talos.q_ref, talos.zero_velocity())
    data = twin.model.createData()
    np.testing.assert_allclose(twin.bias, pin.nonLinearEffects(twin.model, data, q, v), atol=1e-10)
    np.testing.assert_allclose(twin.com, pin.centerOfMass(twin.model, data, q), atol=1e-12)
    np.testing.assert_allclose(talos.bias, pin.nonLinearEffects(talos.model, data, talos.q_ref, talos.zero_velocity()),
                               atol=1e-10)


@pytest.mark.parametrize("qp_solver", ["reduced", "proxsuite", "osqp"])
@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))],
                         ids=["deepcopy", "pickle"])
def test_a_copied_solver_solves_like_the_original_and_apart_from_it(talos, rng, qp_solver, duplicate):
    solver = standing_solver(talos, qp_solver=qp_solver)
    solver.add_constraint(tp.constraints.TorqueLimits())
    q, v = fresh_state(talos, rng)
    expected = solver.solve(q, v)
    twin = duplicate(solver)
    assert twin.robot is not solver.robot and twin.tasks[0].owner is twin
    solver.solve(talos.q_ref, talos.zero_velocity())         # moves the original only
    got = twin.solve(q, v)
    np.testing.assert_allclose(got.tau, expected.tau, rtol=1e-6, atol=1e-6)
    check_contact_solution(twin.robot, twin, got, q, v)


def test_one_solver_from_two_threads_raises_instead_of_mixing(talos, rng):
    """Two threads share one solver: each call either raises RuntimeError or returns the
    answer a sequential solve gives for its own state."""
    solver = standing_solver(talos)
    states = [fresh_state(talos, rng) for _ in range(4)]
    solver.solve(*states[0])                 # contacts anchored: each answer depends on its state only
    reference = [copy.deepcopy(solver).solve(q, v).tau.copy() for q, v in states]
    refused, wrong = [], []

    def run(k):
        for step in range(150):
            q, v = states[(k + step) % 4]
            try:
                tau = solver.solve(q, v).tau
            except RuntimeError:
                refused.append(1)
                continue
            if not np.allclose(tau, reference[(k + step) % 4], rtol=1e-6, atol=1e-6):
                wrong.append(step)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong


# ---------------------------------------------------------------------------- settings
@pytest.mark.parametrize("setting, value, message", [
    ("kp", [10.0, 10.0], "kp"),
    ("kp", np.nan, "kp"),
    ("kd", -1.0, "kd"),
    ("weight", -1.0, "weight"),
    ("weight", [1.0, np.inf, 1.0, 1.0, 1.0, 1.0], "weight"),
    ("mask", [False] * 6, "mask"),
    ("mask", [True, False], "mask"),
    ("priority", "firm", "priority"),
], ids=["kp-size", "kp-nan", "kd-negative", "weight-negative", "weight-inf", "mask-empty", "mask-size",
        "priority"])
def test_task_settings_are_validated_like_the_constructor(talos, setting, value, message):
    solver = tp.DynamicsSolver(talos)
    task = solver.add_task(tp.tasks.JointTask(joints=[f"leg_left_{i}_joint" for i in range(1, 7)]))
    with pytest.raises(ValueError, match=message):
        setattr(task, setting, value)


@pytest.mark.parametrize("setting, value", [
    ("mu", 0.0), ("mu", np.nan), ("f_min", -1.0), ("f_max", 0.0), ("kp", -1.0), ("kd", np.inf),
    ("priority", "sometimes"), ("weight", 0.0), ("length", 0.0), ("width", np.nan),
])
def test_contact_settings_are_validated_like_the_constructor(talos, setting, value):
    contact = tp.PlanarContact(talos.feet[0])
    with pytest.raises(ValueError, match=setting):
        setattr(contact, setting, value)


@pytest.mark.parametrize("build", [
    lambda: tp.constraints.TorqueLimits(limits=np.nan),
    lambda: tp.constraints.TorqueLimits(limits=-5.0),
    lambda: tp.constraints.TorqueLimits(limits={"leg_left_1_joint": np.nan}),
    lambda: tp.constraints.TorqueLimits(scale=0.0),
    lambda: tp.constraints.VelocityLimits(limits="fast"),
    lambda: tp.constraints.JointLimits(margin=-0.1),
], ids=["nan", "negative", "dict-nan", "scale-zero", "text", "margin"])
def test_constraint_settings_are_validated(build):
    with pytest.raises(ValueError):
        build()


def test_solver_settings_are_validated(talos):
    with pytest.raises(ValueError, match="regularization must be a dict"):
        tp.DynamicsSolver(talos, regularization=[1e-5, 1e-8, 1e-7])
    solver = tp.DynamicsSolver(talos)
    with pytest.raises(ValueError, match="dt"):
        solver.dt = -1e-3
    with pytest.raises(KeyError, match="unknown"):
        solver.regularization = {"jerk": 1.0}


def _standing_tau(robot, q, v, *, com_kp=100.0, mu=0.8, com_priority="soft", dt=1e-3, scale=1.0):
    """The reference: a solver built with these settings from the start."""
    solver = tp.DynamicsSolver(robot, dt=dt)
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1, mu=mu))
    solver.add_task(tp.tasks.CoMTask(robot.com_at(robot.q_ref) + [0.01, 0.005, -0.01], kp=com_kp,
                                     priority=com_priority))
    solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
    solver.add_constraint(tp.constraints.VelocityLimits(limits=0.5))
    solver.add_constraint(tp.constraints.TorqueLimits(scale=scale))
    return solver


@pytest.mark.parametrize("change", ["com_kp", "mu", "com_priority", "dt", "scale"])
def test_a_setting_changed_after_adding_takes_effect_at_the_next_solve(rng, change):
    """Change one setting on a running solver; its next solve equals a solver built with
    the new setting from the start."""
    robot, reference_robot = load_robot("talos"), load_robot("talos")
    q, v = fresh_state(robot, rng)
    if change == "com_priority":
        v *= 0.1                    # slow enough for a hard CoM task to be feasible on the soles
    new = {"com_kp": 400.0, "mu": 0.05, "com_priority": "hard", "dt": 0.05, "scale": 0.2}[change]
    solver = _standing_tau(robot, q, v)
    solver.solve(q, v)
    if change == "com_kp":
        solver.tasks[0].set_gains(new)
    elif change == "mu":
        for contact in solver.contacts.values():
            contact.mu = new
    elif change == "com_priority":
        solver.tasks[0].priority = new
    elif change == "dt":
        solver.dt = new
    else:
        solver.constraints[1].scale = new
    got = solver.solve(q, v)
    expected = _standing_tau(reference_robot, q, v, **{change: new}).solve(q, v)
    np.testing.assert_allclose(got.tau, expected.tau, rtol=1e-6, atol=1e-6)
    before = _standing_tau(load_robot("talos"), q, v).solve(q, v)
    assert np.abs(before.tau - expected.tau).max() > 1e-3          # the setting matters here


@pytest.mark.parametrize("make, target, velocity, acceleration, standing", [
    (lambda r: tp.tasks.JointTask(joints=["arm_left_4_joint", "arm_right_4_joint"], priority="hard", kp=0.0,
                                  kd=0.0),
     lambda r: [-0.5, -0.5], [0.1, -0.2], [1.5, -2.0], True),
    (lambda r: tp.tasks.JointTask(priority="hard", kp=0.0, kd=0.0), lambda r: r.q_ref,
     lambda r: np.full(r.na, 0.1), lambda r: np.linspace(-1, 1, r.na), False),
    (lambda r: tp.tasks.CoMTask(priority="hard", kp=0.0, kd=0.0), lambda r: r.com_at(r.q_ref),
     [0.01, 0.0, 0.0], [0.2, -0.1, 0.05], True),
], ids=["posture-some", "posture-all", "com"])
def test_feedforward_given_before_adding_is_kept(talos, make, target, velocity, acceleration, standing):
    """With zero gains a hard task asks exactly for its acceleration feed-forward: set before
    add_task, it must still be what the solution achieves (J q̈ + J̇v = a_ref)."""
    resolve = (lambda value: value(talos) if callable(value) else value)
    task = make(talos)
    task.set_target(resolve(target), velocity=resolve(velocity), acceleration=resolve(acceleration))
    solver = standing_solver(talos) if standing else tp.DynamicsSolver(talos)   # every joint prescribed: no feet
    solver.add_task(task)
    q, v = talos.q_ref, talos.zero_velocity()
    sol = solver.solve(q, v)
    error, jacobian, drift, first = task.kinematics(talos)
    rows = slice(first, first + task.dim)
    np.testing.assert_allclose(jacobian[rows] @ sol.ddq + drift[rows], resolve(acceleration), atol=1e-7)
    np.testing.assert_allclose(task.velocity_ref, resolve(velocity))


def test_a_nan_target_is_refused_for_every_form(talos):
    frame = tp.tasks.FrameTask(talos.feet[0])
    with pytest.raises(ValueError, match="finite"):
        frame.set_target(pin.SE3(np.eye(3), np.array([np.nan, 0.0, 0.0])))
    with pytest.raises(ValueError, match="finite"):
        tp.tasks.CoMTask([0.0, np.inf, 1.0])
    with pytest.raises(ValueError, match="velocity"):
        tp.tasks.CoMTask().set_target([0, 0, 1], velocity=[np.nan, 0, 0])


# ---------------------------------------------------------------------------- finite in, finite out
class NaNTask(tp.tasks.Task):
    """A user's task whose rows go bad."""

    def __init__(self):
        super().__init__(1, name="bad user task")

    def compute(self, context):
        row = np.zeros((1, context.nv))
        row[0, 0] = np.nan
        return Rows(row, np.zeros(1))


class NaNKinematicsTask(tp.tasks.PDTask):
    def __init__(self):
        super().__init__(1, name="bad kinematics", priority="hard")

    def kinematics(self, robot):
        jacobian = np.zeros((1, robot.nv))
        jacobian[0, 7] = 1.0
        return PDKinematics(np.array([np.nan]), jacobian, np.zeros(1))


@pytest.mark.parametrize("qp_solver", ["reduced", "proxsuite", "osqp", "quadprog"])
@pytest.mark.parametrize("task", [NaNTask, NaNKinematicsTask])
def test_nan_rows_raise_a_solver_error_naming_their_task(talos, qp_solver, task):
    solver = standing_solver(talos, qp_solver=qp_solver)
    solver.add_task(task())
    with pytest.raises(tp.SolverError, match="bad") as caught:
        solver.solve(talos.q_ref, talos.zero_velocity())
    assert "NaN or inf" in str(caught.value)


def test_an_absurd_velocity_fails_quickly_and_clearly(talos):
    solver = standing_solver(talos)
    v = np.full(talos.nv, 1e150)
    with pytest.raises(tp.SolverError) as caught:
        solver.solve(talos.q_ref, v)
    assert "infeasible" in str(caught.value) or "NaN or inf" in str(caught.value)
    assert solver.solve(talos.q_ref, talos.zero_velocity()).success      # still usable


class LyingBackend(tp.backends.Backend):
    """Claims success with an answer that ignores every constraint."""

    name = "liar"

    def __init__(self, x_value):
        self.x_value = x_value

    def solve(self, qp):
        return tp.backends.QPResult(np.full(qp.n, self.x_value), "fine", True)


@pytest.mark.parametrize("x_value", [0.0, np.nan, np.inf])
def test_a_backend_answer_violating_the_constraints_is_not_a_success(talos, x_value):
    solver = standing_solver(talos, qp_solver=LyingBackend(x_value))
    with pytest.raises(tp.SolverError):
        solver.solve(talos.q_ref, talos.zero_velocity())
