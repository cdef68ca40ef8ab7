"""A table of bad inputs at the public entry points and the error each one gets.

Every row names the argument in the message; none crashes the interpreter or returns NaN.
After each failure the same solver still solves a good state.
"""

from __future__ import annotations

import numpy as np
import pytest

import tsid_py as tp

from .conftest import load_robot, standing_solver

TALOS = load_robot("talos")
UR5 = load_robot("ur5")
FOOT = TALOS.feet[0]
Q, V, A = TALOS.q_ref, TALOS.zero_velocity(), TALOS.zero_velocity()


def _with(array, index, value):
    array = np.array(array, dtype=float)
    array[index] = value
    return array


def _solver():
    return standing_solver(TALOS)


def _add(item):
    """Add a task, contact or constraint to a fresh standing solver."""
    solver = _solver()
    if isinstance(item, tp.tasks.Task):
        return solver.add_task(item)
    if isinstance(item, (tp.PlanarContact, tp.PointContact)):
        return solver.add_contact(item)
    return solver.add_constraint(item)


#: (case, call, exception, text the message must contain)
BAD_INPUTS = [
    # --- solver construction
    ("robot is a name", lambda: tp.DynamicsSolver("talos"), ValueError, "robot"),
    ("dt is zero", lambda: tp.DynamicsSolver(TALOS, dt=0.0), ValueError, "dt"),
    ("dt is negative", lambda: tp.DynamicsSolver(TALOS, dt=-1e-3), ValueError, "dt"),
    ("dt is NaN", lambda: tp.DynamicsSolver(TALOS, dt=float("nan")), ValueError, "dt"),
    ("unknown QP solver", lambda: tp.DynamicsSolver(TALOS, qp_solver="simplex9000"), ValueError, "qp_solver"),
    ("unknown regularisation key", lambda: tp.DynamicsSolver(TALOS, regularization={"jerk": 1.0}), KeyError, "jerk"),
    ("negative regularisation", lambda: tp.DynamicsSolver(TALOS, regularization={"force": -1.0}), ValueError,
     "regularization"),
    # --- states passed to solve()
    ("q too short", lambda: _solver().solve(Q[:10], V), ValueError, "q must have shape"),
    ("q with NaN", lambda: _solver().solve(_with(Q, 12, np.nan), V), ValueError, "q must be finite"),
    ("q with inf", lambda: _solver().solve(_with(Q, 0, np.inf), V), ValueError, "q must be finite"),
    ("q is 2-D", lambda: _solver().solve(Q[None, :], V), ValueError, "q must be a 1-D"),
    ("q is text", lambda: _solver().solve("half-sitting", V), ValueError, "q must be an array of numbers"),
    ("q is complex", lambda: _solver().solve(Q + 1j, V), ValueError, "q"),
    ("quaternion far from unit", lambda: _solver().solve(_with(Q, slice(3, 7), [0, 0, 0, 2.0]), V), ValueError,
     "unit quaternion"),
    ("v too long", lambda: _solver().solve(Q, np.zeros(TALOS.nv + 1)), ValueError, "v must have shape"),
    ("v with NaN", lambda: _solver().solve(Q, _with(V, 3, np.nan)), ValueError, "v must be finite"),
    # --- contacts
    ("contact frame unknown", lambda: _add(tp.PlanarContact("left_shoe")), KeyError, "left_shoe"),
    ("negative friction", lambda: tp.PlanarContact(FOOT, mu=-0.5), ValueError, "mu"),
    ("zero sole length", lambda: tp.PlanarContact(FOOT, length=0.0), ValueError, "length"),
    ("contact on a fixed base", lambda: tp.DynamicsSolver(UR5).add_contact(tp.PointContact("tool0")), ValueError,
     "floating-base"),
    ("contact added twice", lambda: _solver().add_contact(tp.PlanarContact(FOOT)), ValueError, "already active"),
    ("remove unknown contact", lambda: _solver().remove_contact("right_hand"), KeyError, "right_hand"),
    ("negative transition", lambda: _solver().remove_contact(FOOT, transition=-0.1), ValueError, "transition"),
    # --- tasks
    ("negative kp", lambda: tp.tasks.CoMTask(kp=-1.0), ValueError, "kp"),
    ("negative weight", lambda: tp.tasks.CoMTask(weight=-1.0), ValueError, "weight"),
    ("kp of the wrong size", lambda: tp.tasks.CoMTask(kp=[1.0, 2.0]), ValueError, "kp"),
    ("unknown priority", lambda: tp.tasks.CoMTask(priority="urgent"), ValueError, "priority"),
    ("mask of the wrong size", lambda: tp.tasks.CoMTask(mask=[1, 0]), ValueError, "mask"),
    ("CoM target of the wrong size", lambda: tp.tasks.CoMTask().set_target([0.0, 0.0]), ValueError, "target"),
    ("frame task on an unknown frame", lambda: _add(tp.tasks.FrameTask("head_camera")), KeyError, "head_camera"),
    ("orientation that is not a rotation", lambda: tp.tasks.OrientationTask(FOOT, target=2 * np.eye(3)),
     ValueError, "target"),
    ("joint task on an unknown joint", lambda: _add(tp.tasks.JointTask(joints=["knee_x"])), KeyError, "knee_x"),
    ("joint task with no joints", lambda: tp.tasks.JointTask(joints=[]), ValueError, "joints"),
    ("task is a string", lambda: _solver().add_task("com"), ValueError, "task"),
    ("remove unknown task", lambda: _solver().remove_task("swing foot"), KeyError, "swing foot"),
    # --- constraints
    ("torque-limit scale zero", lambda: tp.constraints.TorqueLimits(scale=0.0), ValueError, "scale"),
    ("torque limit for an unknown joint", lambda: _add(tp.constraints.TorqueLimits({"elbow_z": 10.0})), KeyError,
     "elbow_z"),
    ("constraint is a dict", lambda: _solver().add_constraint({"torque": 10}), ValueError, "constraint"),
    # --- inverse-dynamics functions
    ("acceleration of the wrong size", lambda: tp.inverse_dynamics(TALOS, Q, V, A[:5]), ValueError, "a"),
    ("empty contact list", lambda: tp.multiple_contact_inverse_dynamics(TALOS, Q, V, A, []), ValueError,
     "contacts"),
    ("repeated contact", lambda: tp.multiple_contact_inverse_dynamics(TALOS, Q, V, A, [FOOT, FOOT]), ValueError,
     "distinct"),
    ("contact ID on a fixed base", lambda: tp.contact_inverse_dynamics(UR5, UR5.q_ref, UR5.zero_velocity(),
                                                                         UR5.zero_velocity(), "tool0"),
     ValueError, "floating-base"),
    ("unknown gravity-compensation objective", lambda: tp.gravity_compensation(TALOS, Q, [FOOT], minimize="effort"),
     ValueError, "minimize"),
    ("over-time ID with one frame", lambda: tp.multiple_contact_inverse_dynamics_over_time(TALOS, Q[None], 0.01,
                                                                                            [FOOT]),
     ValueError, "positions"),
    ("unknown robot", lambda: tp.robots.load("atlas9000"), KeyError, "atlas9000"),
]


def test_the_table_has_at_least_25_distinct_cases():
    assert len({case for case, *_ in BAD_INPUTS}) >= 25


@pytest.mark.parametrize("case, call, exception, text", BAD_INPUTS, ids=[row[0] for row in BAD_INPUTS])
def test_bad_input_gets_a_clear_error(case, call, exception, text):
    with pytest.raises(exception) as caught:
        call()
    assert text in str(caught.value), f"{case}: message {caught.value!s} does not mention {text!r}"


def test_a_solver_is_usable_after_rejecting_input():
    solver = _solver()
    with pytest.raises(ValueError):
        solver.solve(_with(Q, 12, np.nan), V)
    with pytest.raises(ValueError):
        solver.solve(Q, V[:3])
    solution = solver.solve(Q, V)
    assert np.all(np.isfinite(solution.tau)) and np.all(np.isfinite(solution.x))


def test_a_nearly_unit_quaternion_is_normalised():
    q = _with(Q, slice(3, 7), Q[3:7] * (1 + 5e-4))
    solution = _solver().solve(q, V)
    reference = _solver().solve(Q, V)
    np.testing.assert_allclose(solution.tau, reference.tau, atol=1e-6 * np.abs(reference.tau).max())
