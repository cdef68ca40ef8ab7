"""tsid_py.report: task errors and costs, contact margins and active limits of one solve."""

import json

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.report import report

from .conftest import load_robot


def standing(robot, torque_scale=1.0):
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=0.20, width=0.13, mu=0.8))
    com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=2.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    solver.add_constraint(tp.constraints.TorqueLimits(scale=torque_scale))
    return solver, com


def test_standing_still_reports_every_item_and_no_active_limit(talos):
    solver, com = standing(talos)
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    result = report(solver, solution)
    assert [task["name"] for task in result.tasks] == [task.name for task in solver.tasks]
    assert [contact["name"] for contact in result.contacts] == talos.feet
    assert result.limits == []
    assert sum(c["normal_force"] for c in result.contacts) == pytest.approx(talos.weight, rel=1e-3)
    for contact in result.contacts:
        assert 0 <= contact["cone_usage"] < 0.2 and contact["edge_margin"] > 0.01
        half = np.array([0.10, 0.065])
        assert contact["edge_margin"] == pytest.approx(np.min(half - np.abs(contact["cop"])))
    text = str(result)
    for name in [t.name for t in solver.tasks] + talos.feet + ["active limits: none"]:
        assert name in text
    assert json.loads(json.dumps(result.as_dict()))["contacts"][0]["name"] == talos.feet[0]


def test_the_cost_of_a_pd_task_is_its_weighted_residual(talos):
    """Checked against the CoM's own Jacobian and drift: w ‖J q̈ + J̇v − Kp e‖² (v = 0)."""
    solver, com = standing(talos)
    talos.update(talos.q_ref, talos.zero_velocity())
    target = talos.com + [0.02, -0.03, 0.0]
    com.set_target(target)
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    entry = report(solver, solution).tasks[0]
    error = target - talos.com
    residual = talos.com_jacobian @ solution.ddq + talos.com_drift - 100.0 * error
    assert entry["error_norm"] == pytest.approx(np.linalg.norm(error))
    assert entry["cost"] == pytest.approx(2.0 * residual @ residual, rel=1e-9)


def test_saturated_torques_are_listed_with_their_joint_and_bound(talos):
    solver, com = standing(talos, torque_scale=0.3)
    talos.update(talos.q_ref, talos.zero_velocity())
    com.set_target(talos.com + [0.03, 0.05, -0.02])
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    limits = report(solver, solution).limits
    assert limits, "a 30 % torque budget pushed this far saturates some joint"
    for limit in limits:
        index = talos.joint_v_index(limit["joint"]) - 6
        assert abs(limit["bound"]) == pytest.approx(0.3 * talos.effort_limits[index])
        assert solution.tau_actuated[index] == pytest.approx(limit["value"])
        assert abs(limit["value"]) == pytest.approx(abs(limit["bound"]), rel=2e-3)
    assert "torque limits" in str(report(solver, solution))


def test_a_negative_tolerance_is_refused(talos):
    solver, _ = standing(talos)
    solution = solver.solve(talos.q_ref, talos.zero_velocity())
    with pytest.raises(ValueError, match="tolerance"):
        report(solver, solution, tolerance=-1.0)


def test_a_fixed_base_arm_has_no_contacts():
    robot = load_robot("panda")
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0))
    result = report(solver, solver.solve(robot.q_ref, robot.zero_velocity()))
    assert result.contacts == [] and "contacts: none" in str(result)
