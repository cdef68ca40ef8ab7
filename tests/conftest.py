"""Shared fixtures: robots are loaded once per session (URDF parsing is slow)."""

from __future__ import annotations


import numpy as np
import pytest

import tsid_py as tp

_CACHE: dict[str, tp.Robot] = {}


def load_robot(name: str) -> tp.Robot:
    """A fresh Robot (own pinocchio data) sharing the cached model."""
    if name not in _CACHE:
        _CACHE[name] = tp.robots.load(name)
    cached = _CACHE[name]
    return tp.Robot(cached.model.copy(), name=cached.name, feet=cached.feet, sole_size=cached.sole_size,
                    foot_radius=cached.foot_radius, q_ref=cached.q_ref.copy(), urdf_path=cached.urdf_path,
                    package_dirs=cached.package_dirs, end_effector=cached.end_effector)


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
