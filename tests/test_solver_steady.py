"""The steady step (:mod:`tsid_py.solver_steady`) gives the general step's numbers bit for bit,
and goes the general way whenever something it reuses changed between steps: a target set
or edited in place, a setting assigned, a step with overrides, a contact anchored anew, a
task removed and added back, a bound changed. The reference is a solver of the same problem
stepping without ``out=`` (a new solution each step: never the steady step); a backend
assigned also sends it the general way."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance, quadruped_stance
from tsid_py.backends import make_backend
from tsid_py.overrides import StepOverrides


def _controller(robot_name: str):
    robot = tp.robots.load(robot_name)
    build = humanoid_balance if robot.sole_size else quadruped_stance
    return robot, build(robot, 1e-3)


def _event(k: int, controller, centre) -> StepOverrides | None:
    """What changes before step ``k`` (the same on both solvers); a step's overrides."""
    solver = controller.solver
    if k == 20:
        controller.com.set_target(centre + [0.0, 0.02, 0.0])
    elif k == 30:
        controller.torso.acceleration_ref[0] = 0.2            # a public target edited in place
    elif k == 40:
        controller.posture.kp = 20.0                          # a setting
    elif k == 50:
        overrides = StepOverrides()
        overrides.scale_torque_limits(0.9)
        return overrides
    elif k == 60:
        solver.reanchor_contact(next(iter(solver.contacts)))
    elif k == 70:
        solver.remove_task(controller.torso)
    elif k == 75:
        solver.add_task(controller.torso)
    elif k == 85:
        next(iter(solver.contacts.values())).f_max *= 0.9
    elif k == 95:
        controller.posture.acceleration_ref[3] = 0.5          # a diagonal cost's target, in place
    elif k == 100:
        solver.backend = make_backend("reduced")              # another backend, started cold
    return None


@pytest.mark.parametrize("robot_name", [tp.robots.DEFAULT_HUMANOID, tp.robots.DEFAULT_QUADRUPED])
def test_steady_steps_equal_general_steps_through_changes(robot_name):
    robot_a, general = _controller(robot_name)
    robot_b, steady = _controller(robot_name)
    robot_a.update(robot_a.q_ref, robot_a.zero_velocity())
    centre = robot_a.com.copy()
    q, v, sol, steady_steps = robot_a.q_ref.copy(), robot_a.zero_velocity(), None, 0
    assert np.isnan(steady.solver.last_step_seconds) and steady.solver.timings == {}
    for k in range(110):
        overrides = _event(k, general, centre)
        _event(k, steady, centre)
        kept = steady.solver._steady is not None and steady.solver._steady.current() and overrides is None
        steady_steps += kept
        new = general.solver.solve(q, v, overrides)
        sol = steady.solver.solve(q, v, overrides, out=sol)
        assert np.array_equal(new.x, sol.x) and np.array_equal(new.tau, sol.tau), f"step {k}"
        assert new.status == sol.status and new.iterations == sol.iterations
        for name in new.local_wrenches:
            assert np.array_equal(new.local_wrenches[name], sol.local_wrenches[name])
            assert np.array_equal(new.wrenches[name], sol.wrenches[name])
        assert general.solver.timings.keys() == steady.solver.timings.keys()
        for solver in (general.solver, steady.solver):        # either step's time, its phases' sum
            assert 0 < solver.last_step_seconds == pytest.approx(sum(solver.timings.values()), rel=1e-9)
        assert steady.solver.last_step_steady == kept and not general.solver.last_step_steady
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot_a.model, q, 1e-3 * v)
    assert steady_steps > 80                # most steps went the steady way
    with pytest.raises(ValueError, match="q"):
        steady.solver.solve(q[:-1], v, out=sol)          # its inputs checked as a general step's
    assert np.array_equal(steady.solver.solve(q, v, out=sol).x, general.solver.solve(q, v).x)
