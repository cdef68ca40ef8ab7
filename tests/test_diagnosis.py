"""The infeasibility diagnosis: a table of infeasible problems × every backend.

Each case builds a problem whose conflicting groups are derived by reasoning (in the case's
docstring); the test checks that every backend raises InfeasibleError naming exactly them,
that the named set is irreducible by an independent solver (HiGHS, not the diagnosis'
SVD + DAQP), and that the solver solves again once the culprit is removed.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
import qpsolvers
from scipy.optimize import linprog

import tsid_py as tp
from tsid_py.diagnosis import diagnose

from .conftest import load_robot, standing_solver

BACKENDS = ["reduced", "proxsuite"] + [name for name in ("osqp", "daqp", "quadprog", "proxqp")
                                       if name in qpsolvers.available_solvers]
EOM = "equation of motion (floating base)"


@dataclass
class Case:
    solver: tp.DynamicsSolver
    q: np.ndarray
    v: np.ndarray
    expected: set[str]
    fix: Callable[[], None]          # removes the culprit


def _talos(qp_solver, **contact):
    robot = load_robot("talos")
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver)
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, **{"mu": 0.8, **contact}))
    solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    return robot, solver


def _contact(robot, foot, group):
    return f"contact {robot.feet[foot]}: {group}"


def torque_limits_one_percent(qp_solver):
    """Holding still (q̈ = 0, hard) needs ~100 N·m at the knees against gravity: at 1 % of the
    URDF efforts no contact force can supply that. The root rows of the equation of motion
    are not needed: the actuated rows alone (in τ = S(M q̈ + h − Jᵀf), part of the torque
    limits' rows) cannot be balanced by the feet's wrenches at every joint."""
    robot, solver = _talos(qp_solver)
    limits = solver.add_constraint(tp.constraints.TorqueLimits(scale=0.01))
    solver.add_task(tp.tasks.AccelerationTask(priority="hard", name="stand still"))
    return Case(solver, robot.q_ref, robot.zero_velocity(), {"torque limits", "task stand still"},
                lambda: solver.remove_constraint(limits))


def friction_under_com_acceleration(qp_solver):
    """A hard horizontal CoM acceleration of 2 m/s² needs m·2 N of horizontal force from the
    feet (the root rows: Newton), but μ = 0.01 allows ~0.01·m·g ≈ 0.1·m N."""
    robot, solver = _talos(qp_solver, mu=0.01)
    com = solver.add_task(tp.tasks.CoMTask(kp=0.0, kd=0.0, priority="hard", name="com push"))
    com.set_target(robot.com_at(robot.q_ref), acceleration=[2.0, 0.0, 0.0])
    return Case(solver, robot.q_ref, robot.zero_velocity(),
                {"task com push", EOM, _contact(robot, 0, "friction cone"), _contact(robot, 1, "friction cone")},
                lambda: solver.remove_task(com))


def weak_normal_forces(qp_solver):
    """f_max = 50 N per foot cannot hold ~900 N of weight while q̈ = 0 (hard): the root rows
    need Σ f_z = m g."""
    robot, solver = _talos(qp_solver, f_max=50.0)
    still = solver.add_task(tp.tasks.AccelerationTask(priority="hard", name="stand still"))
    return Case(solver, robot.q_ref, robot.zero_velocity(),
                {"task stand still", EOM, _contact(robot, 0, "normal force bounds"),
                 _contact(robot, 1, "normal force bounds")}, lambda: solver.remove_task(still))


def posture_past_joint_limit(qp_solver):
    """UR5's elbow 10 µrad below its limit, at rest: viability over dt = 1 ms allows at most
    ~√(2·10·1e-5)/1e-3 ≈ 14 rad/s², the hard posture task toward 1 rad beyond asks 100."""
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver)
    solver.add_constraint(tp.constraints.JointLimits())
    q = robot.q_ref.copy()
    q[2] = robot.position_upper[2] - 1e-5
    target = q.copy()
    target[2] += 1.0
    task = solver.add_task(tp.tasks.JointTask(target, kp=100.0, priority="hard", name="posture"))
    return Case(solver, q, robot.zero_velocity(), {"joint position limits", "task posture"},
                lambda: solver.remove_task(task))


def two_com_tasks(qp_solver):
    """Two hard CoM tasks 10 cm apart ask for different CoM accelerations (kp = 100: 10 m/s²
    apart along x), whatever the rest of the problem."""
    robot, solver = _talos(qp_solver)
    com = robot.com_at(robot.q_ref)
    solver.add_task(tp.tasks.CoMTask(com, kp=100.0, priority="hard", name="com A"))
    second = solver.add_task(tp.tasks.CoMTask(com + [0.1, 0.0, 0.0], kp=100.0, priority="hard", name="com B"))
    return Case(solver, robot.q_ref, robot.zero_velocity(), {"task com A", "task com B"},
                lambda: solver.remove_task(second))


def lift_a_foot_in_contact(qp_solver):
    """A hard position task asks the left sole to accelerate upward, its contact's no-slip
    rows ask it not to move: the same rows, different right-hand sides."""
    robot, solver = _talos(qp_solver)
    foot = solver.add_task(tp.tasks.PositionTask(robot.feet[0], kp=100.0, priority="hard"))
    foot.set_target(foot.target.translation + [0, 0, 0.1])
    return Case(solver, robot.q_ref, robot.zero_velocity(),
                {f"task {foot.name}", _contact(robot, 0, "no-slip acceleration")},
                lambda: solver.remove_task(foot))


def velocity_target_beyond_velocity_limit(qp_solver):
    """Panda's joint 1 already at its velocity limit (scaled to 0.1 rad/s): the bound
    (v_max − v)/dt is 0, the hard task asks kd (1 − 0.1) = 18 rad/s²."""
    robot = load_robot("panda")
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver)
    limits = tp.constraints.VelocityLimits(limits=0.1)
    solver.add_constraint(limits)
    task = solver.add_task(tp.tasks.JointTask(joints=["panda_joint1"], kp=100.0, priority="hard", name="spin"))
    task.set_target([robot.q_ref[0]], velocity=[1.0])
    v = robot.zero_velocity()
    v[0] = 0.1
    return Case(solver, robot.q_ref, v, {"velocity limits", "task spin"}, lambda: solver.remove_constraint(limits))


def torque_task_beyond_torque_limit(qp_solver):
    """A hard torque of 300 N·m on UR5's shoulder, whose URDF effort is 150 N·m (fixed base:
    q̈ is free, so the task alone is feasible)."""
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver)
    solver.add_constraint(tp.constraints.TorqueLimits())
    task = solver.add_task(tp.tasks.TorqueTask([300.0], joints=["shoulder_pan_joint"], priority="hard",
                                               name="push"))
    return Case(solver, robot.q_ref, robot.zero_velocity(), {"torque limits", "task push"},
                lambda: solver.remove_task(task))


def wrench_outside_friction_cone(qp_solver):
    """A hard wrench of 500 N sideways on 400 N of normal force at the left foot, μ = 0.8
    (≤ 320 N of friction): the wrench task alone fixes the foot's force."""
    robot, solver = _talos(qp_solver)
    task = solver.add_task(tp.tasks.WrenchTask(robot.feet[0], [500.0, 0, 400.0, 0, 0, 0], priority="hard"))
    return Case(solver, robot.q_ref, robot.zero_velocity(), {f"task {task.name}", _contact(robot, 0, "friction cone")},
                lambda: solver.remove_task(task))


def centre_of_pressure_outside_sole(qp_solver):
    """A hard wrench with 400 N normal force and a moment putting the centre of pressure
    0.3 m in front of the left sole's centre (its half length is ~0.1 m)."""
    robot, solver = _talos(qp_solver)
    task = solver.add_task(tp.tasks.WrenchTask(robot.feet[0], [0, 0, 400.0, 0, -120.0, 0], priority="hard"))
    return Case(solver, robot.q_ref, robot.zero_velocity(),
                {f"task {task.name}", _contact(robot, 0, "centre of pressure")}, lambda: solver.remove_task(task))


def ramped_removal_under_wrench_task(qp_solver):
    """The left foot holds 600 N (a hard wrench task); its removal with a 0.1 s ramp lowers
    its f_max to 594 N at the next step: the task and the ramped bound conflict."""
    robot, solver = _talos(qp_solver)
    task = solver.add_task(tp.tasks.WrenchTask(robot.feet[0], [0, 0, 600.0, 0, 0, 0], priority="hard"))
    solver.solve(robot.q_ref, robot.zero_velocity())
    solver.remove_contact(robot.feet[0], transition=0.1)
    return Case(solver, robot.q_ref, robot.zero_velocity(),
                {f"task {task.name}", _contact(robot, 0, "normal force bounds")}, lambda: solver.remove_task(task))


def acceleration_limits_under_posture(qp_solver):
    """Acceleration limits of 1 rad/s² against a hard posture task 0.5 rad away with kp = 100
    (50 rad/s² asked) on UR5's wrist."""
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver)
    limits = solver.add_constraint(tp.constraints.AccelerationLimits(1.0))
    target = robot.q_ref.copy()
    target[4] += 0.5
    solver.add_task(tp.tasks.JointTask(target, kp=100.0, priority="hard", name="posture"))
    return Case(solver, robot.q_ref, robot.zero_velocity(), {"acceleration limits", "task posture"},
                lambda: solver.remove_constraint(limits))


CASES = [torque_limits_one_percent, friction_under_com_acceleration, weak_normal_forces, posture_past_joint_limit,
         two_com_tasks, lift_a_foot_in_contact, velocity_target_beyond_velocity_limit,
         torque_task_beyond_torque_limit, wrench_outside_friction_cone, centre_of_pressure_outside_sole,
         ramped_removal_under_wrench_task, acceleration_limits_under_posture]


def _failure(case: Case) -> tp.InfeasibleError:
    with pytest.raises(tp.InfeasibleError) as caught:
        case.solver.solve(case.q, case.v)
    return caught.value


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_every_backend_names_exactly_the_conflict(build, backend):
    case = build(backend)
    error = _failure(case)
    assert set(error.conflicts) == case.expected
    assert error.complete
    for name in case.expected:
        assert name in str(error)
    case.fix()
    solution = case.solver.solve(case.q, case.v)
    assert solution.success and np.all(np.isfinite(solution.tau))


# ---------------------------------------------------------------------------- independent truth
def _highs_feasible(qp, labels, chosen: set[str]) -> bool:
    """Whether the rows of the ``chosen`` groups can all be met, by HiGHS (a linear program
    with a zero objective) on the QP's unscaled rows."""
    equality = np.array([name in chosen for name in labels["equalities"]], dtype=bool)
    inequality = np.array([name in chosen for name in labels["inequalities"]], dtype=bool)
    C, l, u = qp.C[inequality], qp.l[inequality], qp.u[inequality]
    bounds = [(None, None)] * qp.n
    for column, name in zip(qp.bounded_variables(), labels["box"]):
        if name in chosen:
            bounds[column] = (None if qp.lb[column] == -np.inf else qp.lb[column],
                              None if qp.ub[column] == np.inf else qp.ub[column])
    rows = np.vstack([C[np.isfinite(u)], -C[np.isfinite(l)]])
    limits = np.concatenate([u[np.isfinite(u)], -l[np.isfinite(l)]])
    result = linprog(np.zeros(qp.n), A_ub=rows if len(rows) else None, b_ub=limits if len(rows) else None,
                     A_eq=qp.A[equality] if equality.any() else None, b_eq=qp.b[equality] if equality.any() else None,
                     bounds=bounds, method="highs")
    assert result.status in (0, 2), result.message        # solved or proven infeasible
    return result.status == 0


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_the_named_set_is_irreducible_by_another_solver(build):
    case = build("reduced")
    error = _failure(case)
    qp, labels = case.solver.last_qp, case.solver.layout.labels      # the failed step's rows
    named = set(error.conflicts)
    assert not _highs_feasible(qp, labels, named)
    for member in named:
        assert _highs_feasible(qp, labels, named - {member}), member


# ---------------------------------------------------------------------------- behaviour
def test_solve_raises_before_searching_and_the_search_is_resumable(talos):
    case = torque_limits_one_percent("reduced")
    error = _failure(case)
    assert not error.complete and error.search.tests == 0        # nothing searched yet
    partial = error.find_conflicts(time_limit=0.0)                # out of time at once: all groups
    assert not error.complete and error.search.tests == 0
    assert set(partial) >= case.expected and "time limit" in str(error)
    assert set(error.find_conflicts(time_limit=None)) == case.expected and error.complete
    assert "irreducible" in str(error)


def test_a_backend_failure_on_a_feasible_problem_is_a_plain_solver_error(talos):
    class Failing(tp.backends.Backend):
        name = "failing"

        def solve(self, qp):
            return tp.backends.QPResult(np.full(qp.n, np.nan), "gave up", False)

    solver = standing_solver(talos, qp_solver=Failing())
    with pytest.raises(tp.SolverError, match="feasible.*try another qp_solver") as caught:
        solver.solve(talos.q_ref, talos.zero_velocity())
    assert type(caught.value) is tp.SolverError and caught.value.status == "gave up"


def test_huge_velocities_are_diagnosed_not_hung_on(talos):
    """v = 1e150 (the issue's 333 s case): the rows stay finite (h ≈ v² ≈ 1e300), scaled to
    unit norm. Both feet's no-slip rows ask for accelerations ≈ J̇v/J ≫ the ≈ 1e153 rad/s²
    the velocity limits allow the joints ((v_max − v)/dt); one foot alone can be followed by
    the unbounded base accelerations, so all three groups are needed."""
    solver = standing_solver(talos)
    solver.add_constraint(tp.constraints.VelocityLimits())
    with pytest.raises(tp.InfeasibleError) as caught:
        solver.solve(talos.q_ref, np.full(talos.nv, 1e150))
    error = caught.value
    assert set(error.conflicts) == {_contact(talos, 0, "no-slip acceleration"),
                                    _contact(talos, 1, "no-slip acceleration"), "velocity limits"}
    assert error.complete


def test_one_huge_joint_velocity_is_diagnosed(talos):
    """v = 1e100 on the left knee: h stays finite (≈ 1e200) and no torque within the limits
    balances it while q̈ = 0 (hard)."""
    solver = standing_solver(talos)
    solver.add_constraint(tp.constraints.TorqueLimits())
    solver.add_task(tp.tasks.AccelerationTask(priority="hard", name="stand still"))
    v = talos.zero_velocity()
    v[6 + 3] = 1e100
    with pytest.raises(tp.InfeasibleError) as caught:
        solver.solve(talos.q_ref, v)
    error = caught.value
    assert {"torque limits", "task stand still"} <= set(error.conflicts) and error.complete


def test_non_finite_rows_are_named_by_the_diagnosis_too(talos):
    """Called on a QP with NaN (the solver names such rows before the diagnosis runs), the
    diagnosis reports the groups whose rows hold it, without searching."""
    solver = standing_solver(talos)
    solver.solve(talos.q_ref, talos.zero_velocity())
    qp, labels = solver.last_qp.copy(), solver.layout.labels
    qp.b[labels["equalities"].index(EOM)] = np.nan
    error = diagnose("reduced", labels, qp, "failed")
    assert type(error) is tp.SolverError and f"NaN or inf in {EOM}" in str(error)


def test_the_error_pickles_with_its_search():
    case = two_com_tasks("reduced")
    error = _failure(case)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is tp.InfeasibleError and copy.status == error.status
    assert set(copy.conflicts) == case.expected and copy.qp.n == error.qp.n
