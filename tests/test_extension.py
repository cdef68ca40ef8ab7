"""Extending the library against its contracts: a task written in one file (the example
``examples/joint_coupling_task.py``) and a user-written QP backend."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.backends import Backend, QPResult

from .conftest import load_robot

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "joint_coupling_task.py"


def load_example():
    spec = importlib.util.spec_from_file_location("joint_coupling_task", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_joint_coupling_task_gives_the_kkt_optimum(rng):
    """Hard coupling ``q̈_a − r q̈_b = Kp e + Kd ė`` under the default regularisation
    ``w_a ||q̈||² + w_τ ||M q̈ + h||²``: q̈ equals the solution of that problem's KKT system,
    formed from pinocchio's CRBA and RNEA."""
    robot = load_robot("ur5")
    task = load_example().JointCouplingTask("wrist_1_joint", "elbow_joint", 0.5, target=0.2, kp=40.0,
                                            priority="hard")
    solver = tp.DynamicsSolver(robot)
    solver.add_task(task)
    q = robot.q_ref + rng.uniform(-0.3, 0.3, robot.nq)
    v = rng.normal(0, 0.5, robot.nv)
    ddq = solver.solve(q, v).ddq

    a, b = robot.joint_v_index("wrist_1_joint"), robot.joint_v_index("elbow_joint")
    row = np.zeros(robot.nv)
    row[a], row[b] = 1.0, -0.5
    error = 0.2 - (q[robot.joint_q_index("wrist_1_joint")] - 0.5 * q[robot.joint_q_index("elbow_joint")])
    desired = 40.0 * error + 2 * np.sqrt(40.0) * (0.0 - row @ v)
    data = robot.model.createData()
    M = pin.crba(robot.model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(robot.model, data, q, v, np.zeros(robot.nv))
    w_a, w_tau = tp.solver.DEFAULT_REGULARIZATION["acceleration"], tp.solver.DEFAULT_REGULARIZATION["torque"]
    kkt = np.zeros((robot.nv + 1, robot.nv + 1))
    kkt[:robot.nv, :robot.nv] = 2 * (w_a * np.eye(robot.nv) + w_tau * M.T @ M)
    kkt[:robot.nv, robot.nv] = kkt[robot.nv, :robot.nv] = row
    rhs = np.concatenate([-2 * w_tau * M.T @ h, [desired]])
    expected = np.linalg.solve(kkt, rhs)[:robot.nv]
    assert row @ ddq == pytest.approx(desired, abs=1e-9)
    np.testing.assert_allclose(ddq, expected, rtol=1e-6, atol=1e-8)
    assert task.error[0] == pytest.approx(error)


def test_joint_coupling_task_converges_as_a_soft_task():
    robot = load_robot("ur5")
    task = load_example().JointCouplingTask("wrist_1_joint", "elbow_joint", 0.5, target=0.1, kp=100.0)
    solver = tp.DynamicsSolver(robot)
    solver.add_task(task)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for _ in range(1500):
        sol = solver.solve(q, v)
        v = v + solver.dt * sol.ddq
        q = q + solver.dt * v
    assert abs(task.error[0]) < 1e-3


class QuadprogBackend(Backend):
    """A user's backend: the QP handed to quadprog (Goldfarb–Idnani, dense), equalities first."""

    name = "user quadprog"

    def __init__(self):
        self.calls = 0

    def solve(self, qp):
        import quadprog

        self.calls += 1
        C, lower, upper = qp.rows_with_box()
        finite_upper, finite_lower = np.isfinite(upper), np.isfinite(lower)
        rows = np.vstack([qp.A, -C[finite_upper], C[finite_lower]])
        bounds = np.concatenate([qp.b, -upper[finite_upper], lower[finite_lower]])
        try:
            x = quadprog.solve_qp(qp.H, -qp.g, rows.T, bounds, meq=qp.A.shape[0])[0]
        except ValueError as error:
            return QPResult(np.full(qp.n, np.nan), str(error), False)
        return QPResult(x, "solved", True)


def test_a_user_backend_instance_solves_like_the_default(talos):
    """The same standing problem through a user's Backend instance and the default
    backend: the same torques and wrenches."""
    results = []
    for qp_solver in (QuadprogBackend(), "reduced"):
        solver = tp.DynamicsSolver(talos, qp_solver=qp_solver)
        for foot in talos.feet:
            solver.add_contact(tp.PlanarContact(foot, length=0.2, width=0.1, mu=0.8))
        solver.add_task(tp.tasks.CoMTask(talos.com_at(talos.q_ref) + [0.02, 0.01, 0.0], kp=50.0))
        solver.add_task(tp.tasks.JointTask(kp=10.0, weight=1e-2))
        solver.add_constraint(tp.constraints.TorqueLimits())
        results.append(solver.solve(talos.q_ref, talos.zero_velocity()))
        if isinstance(qp_solver, Backend):
            assert solver.backend is qp_solver and qp_solver.calls == 1
    user, default = results
    np.testing.assert_allclose(user.tau, default.tau, rtol=1e-6, atol=1e-5)
    for foot in talos.feet:
        np.testing.assert_allclose(user.wrenches[foot], default.wrenches[foot], rtol=1e-6, atol=1e-4)


def test_make_backend_refuses_what_is_neither_a_name_nor_a_backend(talos):
    with pytest.raises(ValueError, match="qp_solver must be a solver name"):
        tp.DynamicsSolver(talos, qp_solver=42)
