"""The core QP: equation of motion, contacts, friction, backends — against pinocchio."""

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp

from .conftest import check_contact_solution, load_robot, perturbed_state, standing_solver


@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_fixed_base_hard_joint_acceleration_gives_rnea(name, rng):
    robot = load_robot(name)
    solver = tp.DynamicsSolver(robot)
    names = [n for n in robot.joint_names]
    task = solver.add_task(tp.tasks.JointTask(joints=names, kp=0.0, kd=0.0, priority="hard"))
    for _ in range(5):
        q = pin.randomConfiguration(robot.model)
        v = rng.normal(0, 1.0, robot.nv)
        a = rng.normal(0, 2.0, robot.nv)
        task.set_target(q, velocity=v, acceleration=a)
        sol = solver.solve(q, v)
        expected = pin.rnea(robot.model, robot.model.createData(), q, v, a)
        np.testing.assert_allclose(sol.ddq, a, atol=1e-8)
        np.testing.assert_allclose(sol.tau, expected, atol=1e-8 * max(1.0, np.abs(expected).max()))
        np.testing.assert_array_equal(sol.tau_actuated, sol.tau)


def test_talos_two_planar_contacts_random_states(talos, rng):
    solver = standing_solver(talos)
    solver.add_constraint(tp.constraints.TorqueLimits())
    for _ in range(6):
        q, v = perturbed_state(talos, rng)
        sol = solver.solve(q, v)
        check_contact_solution(talos, solver, sol, q, v)


def test_a_solution_keeps_its_own_step_after_the_next(talos, rng):
    """The world wrenches are formed on first access, the views ddq and tau_actuated share
    the solution's own arrays: read after the next solve, they are still the first step's."""
    solver = standing_solver(talos)
    q, v = perturbed_state(talos, rng, joint_spread=0.2)
    first = solver.solve(q, v)
    ddq = first.ddq.copy()
    solver.solve(*perturbed_state(talos, rng, joint_spread=0.2))
    np.testing.assert_array_equal(first.ddq, ddq)
    check_contact_solution(talos, solver, first, q, v)


def test_quadruped_point_contacts_random_states(rng):
    robot = load_robot("go2")
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PointContact(foot, mu=0.6))
    solver.add_task(tp.tasks.CoMTask(kp=50.0))
    solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
    for _ in range(4):
        q, v = perturbed_state(robot, rng)
        sol = solver.solve(q, v)
        check_contact_solution(robot, solver, sol, q, v)
        assert np.all(sol.local_wrenches[robot.feet[0]][3:] == 0)


def test_standing_still_carries_the_weight(talos):
    solver = standing_solver(talos)
    sol = solver.solve(talos.q_ref, talos.zero_velocity())
    assert sol.total_normal_force == pytest.approx(talos.weight, rel=1e-3)
    # symmetric posture: both feet carry about half
    left, right = (sol.wrenches[f][2] for f in talos.feet)
    assert left == pytest.approx(right, rel=0.05)


def test_backends_agree(talos, rng):
    q, v = perturbed_state(talos, rng)
    # all built before any solve: a contact is anchored where its frame is at the robot's
    # last state, so every solver's contacts pull toward the same placements
    solvers = {backend: standing_solver(talos, qp_solver=backend)
               for backend in ["proxsuite", "osqp", "daqp", "quadprog"]}
    solutions = {}
    for backend, solver in solvers.items():
        solver.add_constraint(tp.constraints.TorqueLimits())
        solutions[backend] = solver.solve(q, v)
    reference = solutions["proxsuite"]
    for backend, sol in solutions.items():
        np.testing.assert_allclose(sol.ddq, reference.ddq, atol=1e-4, err_msg=backend)
        np.testing.assert_allclose(sol.tau, reference.tau, atol=1e-3 * np.abs(reference.tau).max(), err_msg=backend)


def test_proxsuite_is_reused_while_sizes_hold(talos):
    solver = standing_solver(talos, qp_solver="proxsuite")
    solver.solve(talos.q_ref, talos.zero_velocity())
    first = solver.backend._solver
    solver.solve(talos.q_ref, talos.zero_velocity())
    assert solver.backend._solver is first
    solver.remove_contact(talos.feet[0])
    solver.solve(talos.q_ref, talos.zero_velocity())
    assert solver.backend._solver is not first


def test_soft_contact_still_balances(talos):
    solver = tp.DynamicsSolver(talos)
    for foot in talos.feet:
        solver.add_contact(tp.PlanarContact(foot, priority="soft", weight=1e4))
    solver.add_task(tp.tasks.CoMTask(kp=100.0))
    solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
    sol = solver.solve(talos.q_ref, talos.zero_velocity())
    assert sol.total_normal_force == pytest.approx(talos.weight, rel=1e-2)


def test_contacts_need_a_floating_base():
    robot = load_robot("ur5")
    solver = tp.DynamicsSolver(robot)
    with pytest.raises(ValueError, match="floating-base"):
        solver.add_contact(tp.PointContact("tool0"))
