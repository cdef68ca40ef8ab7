"""The hip strategy's closed forms against independent truth: RK4 of the flywheel pendulum and
pinocchio's centroidal momentum."""

import math

import numpy as np
import pinocchio as pin
import pytest

from tsid_py import robots
from tsid_py.control.hip_strategy import capacity, dcm_shift, upper_body_joints


def _rk4_flywheel(xi0, rate, duration, mass, g, omega, steps=4000):
    """c̈ = ω² (c − p − L̇/(m g)), p = 0, ±rate bang-bang over 2·duration; returns ξ(2T)."""
    c, cd = xi0, 0.0  # starts at rest: ξ0 = c0

    def rhs(first_half, c, cd):  # steps align with the switch at T
        ldot = rate if first_half else -rate
        return cd, omega ** 2 * (c - ldot / (mass * g))

    dt = 2 * duration / steps
    for k in range(steps):
        t = k < steps // 2
        k1 = rhs(t, c, cd)
        k2 = rhs(t, c + dt / 2 * k1[0], cd + dt / 2 * k1[1])
        k3 = rhs(t, c + dt / 2 * k2[0], cd + dt / 2 * k2[1])
        k4 = rhs(t, c + dt * k3[0], cd + dt * k3[1])
        c += dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        cd += dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return c + cd / omega


@pytest.mark.parametrize("duration", [0.1, 0.3])
def test_dcm_shift_is_caught_exactly_by_rk4(duration):
    mass, g, omega, rate = 35.0, 9.81, 3.7, 40.0
    shift = dcm_shift(rate, duration, mass, g, omega)
    assert _rk4_flywheel(shift, rate, duration, mass, g, omega) == pytest.approx(0.0, abs=1e-6)
    # A larger start diverges: the closed form is the boundary, not a loose estimate.
    assert _rk4_flywheel(shift + 1e-3, rate, duration, mass, g, omega) > 5e-4


def test_capacity_uses_the_centroidal_map_of_upper_body_joints():
    robot = robots.load("g1")
    model, q = robot.model, robot.q_ref
    joints = upper_body_joints(model, list(robot.feet))
    names = {model.names[j] for j in joints}
    assert "waist_roll_joint" in names and "left_knee_joint" not in names
    # A joint velocity alone gives pinocchio's centroidal momentum: the map's column.
    data = model.createData()
    ag = pin.computeCentroidalMap(model, data, q)
    v = np.zeros(model.nv)
    v[model.joints[model.getJointId("waist_roll_joint")].idx_v] = 1.0
    h = pin.computeCentroidalMomentum(model, data, q, v)
    assert h.angular == pytest.approx(ag[3:, model.joints[model.getJointId("waist_roll_joint")].idx_v])
    short, long_ = (capacity(model, q, list(robot.feet), 0, t) for t in (0.05, 0.6))
    assert short.rate > long_.rate > 0.0           # range-limited: a longer bang is slower
    assert short.cmp_shift == pytest.approx(short.rate / (sum(i.mass for i in model.inertias) * 9.81), rel=1e-2)
    with pytest.raises(ValueError, match="axis"):
        capacity(model, q, list(robot.feet), 2, 0.1)
