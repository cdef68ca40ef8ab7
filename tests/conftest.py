"""Shared fixtures: robots are loaded once per session (URDF parsing is slow)."""

from __future__ import annotations


import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.reference import balance_rollout  # noqa: F401 (shared with the tests)

_CACHE: dict[str, tp.Robot] = {}


def load_robot(name: str) -> tp.Robot:
    """A fresh Robot (own pinocchio data) sharing the cached model."""
    if name not in _CACHE:
        _CACHE[name] = tp.robots.load(name)
    cached = _CACHE[name]
    return tp.Robot(cached.model.copy(), name=cached.name, feet=cached.feet, sole_size=cached.sole_size,
                    foot_radius=cached.foot_radius, q_ref=cached.q_ref.copy(), urdf_path=cached.urdf_path,
                    package_dirs=cached.package_dirs, end_effector=cached.end_effector, profile=cached.profile)


@pytest.fixture
def talos():
    return load_robot("talos")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def perturbed_state(robot: tp.Robot, rng, joint_spread=0.05, velocity_spread=0.1):
    """A state near the reference posture: joints ± ``joint_spread`` rad, random velocities."""
    q = robot.q_ref.copy()
    offset = 7 if robot.floating_base else 0
    q[offset:] += rng.uniform(-joint_spread, joint_spread, robot.nq - offset)
    q[offset:] = np.clip(q[offset:], robot.position_lower + 1e-3, robot.position_upper - 1e-3)
    v = rng.normal(0.0, velocity_spread, robot.nv)
    return q, v


def standing_solver(robot: tp.Robot, qp_solver="reduced", **kwargs) -> tp.DynamicsSolver:
    """Feet in contact, CoM task, torso orientation, posture: the reference balance problem."""
    solver = tp.DynamicsSolver(robot, dt=1e-3, qp_solver=qp_solver, **kwargs)
    length, width = robot.sole_size
    for foot in robot.feet:
        solver.add_contact(tp.PlanarContact(foot, length=length, width=width, mu=0.8))
    solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))
    solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
    return solver


def check_contact_solution(robot, solver, sol, q, v):
    """Check a solution against pinocchio, independently of the solver: the equation of
    motion (CRBA, RNEA, frame Jacobians), the friction pyramid, the centre of pressure, the
    normal force sign and the no-slip condition (classical acceleration of the contacts)."""
    model, data = robot.model, robot.model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(model, data, q, v, np.zeros(robot.nv))
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    generalized = np.zeros(robot.nv)
    for name, wrench in sol.wrenches.items():
        jacobian = pin.getFrameJacobian(model, data, model.getFrameId(name), pin.LOCAL_WORLD_ALIGNED)
        generalized += jacobian.T @ wrench
    residual = M @ sol.ddq + h - sol.tau - generalized
    assert np.linalg.norm(residual) <= 1e-6 * np.linalg.norm(h)
    assert np.all(sol.tau[:6] == 0.0)
    # friction cone, CoP and normal force in the contact's own axes, from the world wrench
    for name, contact in solver.contacts.items():
        rotation = data.oMf[model.getFrameId(name)].rotation
        force = rotation.T @ sol.wrenches[name][:3]
        moment = rotation.T @ sol.wrenches[name][3:]
        np.testing.assert_allclose(np.r_[force, moment], sol.local_wrenches[name], atol=1e-9)
        tol = 1e-6 * max(1.0, force[2])
        assert force[2] >= -tol
        assert np.hypot(force[0], force[1]) <= contact.mu * force[2] + tol
        if isinstance(contact, tp.PlanarContact):
            # centre of pressure (-m_y, m_x)/f_z in the sole, multiplied through by f_z ≥ 0
            assert abs(moment[1]) <= contact.length / 2 * force[2] + tol
            assert abs(moment[0]) <= contact.width / 2 * force[2] + tol
    # contact frames follow the stabilisation law: classical acceleration (local axes)
    # a = −kd v + kp e, e = [Rᵀ (p_anchor − p); log3(Rᵀ R_anchor)] the drift from the anchor
    pin.forwardKinematics(model, data, q, v, sol.ddq)
    pin.updateFramePlacements(model, data)
    for name, contact in solver.contacts.items():
        frame = model.getFrameId(name)
        acc = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL).vector
        velocity = pin.getFrameVelocity(model, data, frame, pin.LOCAL).vector
        placement, anchor = data.oMf[frame], contact.anchor
        drift = np.r_[placement.rotation.T @ (anchor.translation - placement.translation),
                      pin.log3(placement.rotation.T @ anchor.rotation)]
        expected = -contact.kd * velocity + contact.kp * drift
        np.testing.assert_allclose(acc[contact.motion_rows], expected[contact.motion_rows], atol=1e-7)
