"""Property-based tests (hypothesis) over random states of Talos, G1 and Go2.

For every drawn state and CoM target the reference controller's solution must satisfy,
checked with pinocchio independently of the solver: the equation of motion, the friction
pyramid, the centre of pressure, no slip, and the torque limits (which are drawn tight
enough to be active in some examples). The same inputs must give the same outputs.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance, quadruped_stance

from .conftest import check_contact_solution, load_robot

ROBOTS = {"talos": humanoid_balance, "g1": humanoid_balance, "go2": quadruped_stance}
MAX_NV = 38
unit = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow])


def _state(robot: tp.Robot, joints: np.ndarray, velocity: np.ndarray, tilt: np.ndarray):
    """Joints within ±0.15 rad of the reference (inside the limits), velocities within
    ±0.5, the base rotated by up to 0.1 rad about each axis."""
    q = robot.q_ref.copy()
    q[7:] = np.clip(q[7:] + 0.15 * joints[: robot.nq - 7], robot.position_lower + 1e-3, robot.position_upper - 1e-3)
    rotation = pin.Quaternion(q[3:7]).matrix() @ pin.exp3(0.1 * tilt)
    q[3:7] = pin.Quaternion(rotation).coeffs()
    return q, 0.5 * velocity[: robot.nv]


def _controller(name: str, torque_scale: float):
    controller = ROBOTS[name](load_robot(name))
    solver = controller.solver
    solver.remove_constraint("torque limits")
    limits = solver.add_constraint(tp.constraints.TorqueLimits(scale=torque_scale))
    return controller, limits


def _check(name, joints, velocity, tilt, com_offset, torque_scale):
    controller, limits = _controller(name, torque_scale)
    solver, robot = controller.solver, controller.solver.robot
    q, v = _state(robot, joints, velocity, tilt)
    controller.com.set_target(controller.com.position_ref + 0.03 * com_offset)
    solution = solver.solve(q, v)
    assert np.all(np.isfinite(solution.x)) and np.all(np.isfinite(solution.tau))
    check_contact_solution(robot, solver, solution, q, v)
    torque = np.abs(solution.tau_actuated[limits.index])
    assert np.all(torque <= limits.effort * (1 + 1e-7) + 1e-9)
    # Same inputs, same outputs: a fresh controller gives the same bits; the same solver
    # asked again (hot-started: the active set is reused and solved directly instead of by
    # DAQP) gives the same solution to round-off. The reduced Hessian's condition number is
    # up to ~1e8 (the 1e-8 force regularisation fixes the force split), hence 1e-6.
    twin, _ = _controller(name, torque_scale)
    twin.com.set_target(controller.com.position_ref)
    np.testing.assert_array_equal(twin.solver.solve(q, v).x, solution.x)
    again = solver.solve(q, v)
    np.testing.assert_allclose(again.x, solution.x, rtol=0, atol=1e-6 * np.abs(solution.x).max())
    return torque / limits.effort


state = dict(joints=arrays(float, MAX_NV, elements=unit), velocity=arrays(float, MAX_NV, elements=unit),
             tilt=arrays(float, 3, elements=unit), com_offset=arrays(float, 3, elements=unit))


@PROPERTY_SETTINGS
@given(**state, torque_scale=st.floats(0.4, 1.0))
def test_talos_properties(joints, velocity, tilt, com_offset, torque_scale):
    _check("talos", joints, velocity, tilt, com_offset, torque_scale)


@PROPERTY_SETTINGS
@given(**state, torque_scale=st.floats(0.4, 1.0))
def test_g1_properties(joints, velocity, tilt, com_offset, torque_scale):
    _check("g1", joints, velocity, tilt, com_offset, torque_scale)


@PROPERTY_SETTINGS
@given(**state, torque_scale=st.floats(0.4, 1.0))
def test_go2_properties(joints, velocity, tilt, com_offset, torque_scale):
    _check("go2", joints, velocity, tilt, com_offset, torque_scale)


def test_tight_limits_are_active_in_some_states(rng):
    """The torque-limit property is not vacuous: at 40 % of the URDF efforts and fast
    joint motions, some limit is reached."""
    ratios = [_check("talos", rng.uniform(-1, 1, MAX_NV), 4 * rng.uniform(-1, 1, MAX_NV), rng.uniform(-1, 1, 3),
                     rng.uniform(-1, 1, 3), 0.4).max() for _ in range(4)]
    assert max(ratios) > 1 - 1e-6


def test_the_plane_hull_is_scipys_counter_clockwise(rng):
    """The plots' and the viewer's hull of random points: the vertices qhull finds, counter-
    clockwise (positive signed area), each once."""
    from scipy.spatial import ConvexHull

    from tsid_py._geometry import convex_hull_2d

    for _ in range(20):
        points = rng.normal(size=(int(rng.integers(3, 40)), 2))
        hull = convex_hull_2d(points)
        expected = points[ConvexHull(points).vertices]
        assert sorted(map(tuple, hull)) == sorted(map(tuple, expected))
        x, y = hull[:, 0], hull[:, 1]
        assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0
