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
