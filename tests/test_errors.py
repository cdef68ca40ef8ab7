"""Failures are explained: infeasible stances name the conflicting constraints."""

import numpy as np
import pytest

import tsid_py as tp

from .conftest import standing_solver


def test_a_hard_task_fighting_a_contact_is_named(talos):
    solver = standing_solver(talos)
    foot = solver.add_task(tp.tasks.PositionTask(talos.feet[0], kp=100.0, priority="hard"))
    foot.set_target(foot.target.translation + [0, 0, 0.1])       # lift a foot that is in contact
    with pytest.raises(tp.InfeasibleError) as caught:
        solver.solve(talos.q_ref, talos.zero_velocity())
    names = " ".join(caught.value.conflicts)
    assert "PositionTask" in names or "no-slip" in names
    # the solver stays usable: drop the conflicting task and solve again
    solver.remove_task(foot)
    assert solver.solve(talos.q_ref, talos.zero_velocity()).success


@pytest.mark.parametrize("q_bad, message", [
    (np.zeros(5), "shape"),
    (np.full(39, np.nan), "finite"),
])
def test_bad_states_are_value_errors(talos, q_bad, message):
    solver = standing_solver(talos)
    with pytest.raises(ValueError, match=message):
        solver.solve(q_bad, talos.zero_velocity())


def test_torque_limits_too_tight_for_standing_are_named(talos):
    """Holding the posture still (q̈ = 0, a hard task) needs gravity-compensation torques of
    up to ~100 N·m; at 1 % of the URDF efforts that is impossible. The error must name the
    torque limits, and the next feasible solve must succeed."""
    solver = standing_solver(talos)
    tight = solver.add_constraint(tp.constraints.TorqueLimits(scale=0.01))
    solver.add_task(tp.tasks.AccelerationTask(priority="hard", name="stand still"))
    q, v = talos.q_ref, talos.zero_velocity()
    with pytest.raises(tp.InfeasibleError) as caught:
        solver.solve(q, v)
    assert "torque limits" in caught.value.conflicts
    assert "torque limits" in str(caught.value)
    assert caught.value.qp is not None and caught.value.qp.n == solver.last_qp.n
    solver.remove_constraint(tight)
    urdf = solver.add_constraint(tp.constraints.TorqueLimits())
    solution = solver.solve(q, v)
    assert np.all(np.isfinite(solution.tau))
    np.testing.assert_allclose(solution.ddq, 0.0, atol=1e-8)
    assert np.all(np.abs(solution.tau_actuated[urdf.index]) <= urdf.effort + 1e-6)
