"""The quickest swing within the legs' joint limits (tsid_py.models.swing_time) against the
minimum-jerk quintic sampled densely, mapped to joint rates through the leg's Jacobian and to
torques by pinocchio's RNEA; the swing's reaction against the bodies' momenta summed from
finite differences of their placements."""

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.walking.swing import quintic
from tsid_py.models.swing_time import foot_rates, leg_rates, quickest_swing, swing_reaction


@pytest.mark.parametrize("robot_name", ["g1", "talos"])
def test_quickest_lateral_swing_reaches_a_joint_limit_exactly(robot_name):
    robot = tp.robots.load(robot_name)
    model, q, foot, distance = robot.model, robot.q_ref, robot.feet[0], 0.4
    columns, rates, torques, gravity = leg_rates(model, q, foot, [0.0, 1.0, 0.0])
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    jacobian = pin.getFrameJacobian(model, data, model.getFrameId(foot), pin.LOCAL_WORLD_ALIGNED)[:, columns]
    np.testing.assert_allclose(jacobian @ rates, [0, 1, 0, 0, 0, 0], atol=1e-9)   # the foot moves as asked
    accelerations = np.zeros(model.nv)
    accelerations[columns] = rates
    rnea = pin.rnea(model, data, q, np.zeros(model.nv), accelerations)[columns]
    np.testing.assert_allclose(rnea, torques + gravity, atol=1e-9)                 # τ = M J⁺ a + g, base still

    def worst(duration: float) -> float:
        """The largest share of a joint limit the sampled swing uses."""
        times = np.linspace(0.0, duration, 4001)
        _, speed, acceleration = quintic(0.0, 0.0, 0.0, distance, duration, times)
        share = 0.0
        for k, column in enumerate(columns):
            limit_v, limit_tau = model.velocityLimit[column], model.effortLimit[column]
            if 0 < limit_v < np.inf:
                share = max(share, np.max(np.abs(rates[k] * speed)) / limit_v)
            if 0 < limit_tau < np.inf:
                share = max(share, (np.max(np.abs(torques[k] * acceleration)) + abs(gravity[k])) / limit_tau)
        return share

    quickest = quickest_swing(model, q, foot, distance)
    assert 0.0 < quickest < 1.0
    assert worst(quickest) == pytest.approx(1.0, abs=1e-5)
    assert worst(0.99 * quickest) > 1.0 and worst(1.01 * quickest) < 1.0


def test_quickest_swing_rejects_a_zero_direction():
    robot = tp.robots.load("g1")
    with pytest.raises(ValueError, match="direction"):
        quickest_swing(robot.model, robot.q_ref, robot.feet[0], 0.3, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="direction"):
        foot_rates(robot.model, robot.q_ref, robot.feet[0], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="direction"):
        swing_reaction(robot.model, robot.q_ref, robot.feet[0], [np.nan, 1.0, 0.0])


def _angular_momentum(model, q, velocity, step=1e-7) -> np.ndarray:
    """The angular momentum (3,) about the CoM, summed body by body (``(c_i − c) × m_i ċ_i +
    R_i I_i R_iᵀ ω_i``) from the bodies' placements at ``q`` and one small step along
    ``velocity``: no centroidal routine of pinocchio's."""
    data, later = model.createData(), model.createData()
    pin.forwardKinematics(model, data, q)
    pin.forwardKinematics(model, later, pin.integrate(model, q, step * velocity))
    bodies = range(1, model.njoints)
    masses = np.array([model.inertias[i].mass for i in bodies])
    centres = np.array([data.oMi[i].act(model.inertias[i].lever) for i in bodies])
    moved = np.array([later.oMi[i].act(model.inertias[i].lever) for i in bodies])
    com = masses @ centres / masses.sum()
    momentum = np.zeros(3)
    for k, i in enumerate(bodies):
        rotation = data.oMi[i].rotation
        spin = pin.log3(later.oMi[i].rotation @ rotation.T) / step
        momentum += np.cross(centres[k] - com, masses[k] * (moved[k] - centres[k]) / step)
        momentum += rotation @ model.inertias[i].inertia @ rotation.T @ spin
    return momentum


@pytest.mark.parametrize("robot_name", ["g1", "talos"])
def test_swing_reaction_is_the_legs_angular_momentum_per_foot_speed(robot_name):
    """``κ = e · (−L_y, L_x)`` for the leg's joints moving the foot at 1 m/s along ``e``; the
    foot moved outward drives the CoM outward (κ > 0), the same for either foot's side."""
    robot = tp.robots.load(robot_name)
    model, q = robot.model, robot.q_ref
    for foot, outward in zip(robot.feet, ([0.0, 1.0, 0.0], [0.0, -1.0, 0.0])):
        columns, rates, _, _ = leg_rates(model, q, foot, outward)
        velocity = np.zeros(model.nv)
        velocity[columns] = rates
        momentum = _angular_momentum(model, q, velocity)
        expected = outward[0] * -momentum[1] + outward[1] * momentum[0]
        assert swing_reaction(model, q, foot, outward) == pytest.approx(expected, rel=1e-4)
        assert swing_reaction(model, q, foot, outward) > 0.0
        assert swing_reaction(model, q, foot, -np.asarray(outward)) == pytest.approx(
            swing_reaction(model, q, foot, outward), rel=1e-9)
