"""The quickest swing within the legs' joint limits (tsid_py.models.swing_time) against the
minimum-jerk quintic sampled densely, mapped to joint rates through the leg's Jacobian and to
torques by pinocchio's RNEA."""

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.walking.swing import quintic
from tsid_py.models.swing_time import leg_rates, quickest_swing


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
