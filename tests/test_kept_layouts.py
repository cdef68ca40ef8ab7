"""A solver keeps the QP layouts of the item sets it held before (:mod:`tsid_py.solver_layouts`,
:mod:`tsid_py.layout_rebind`): a walk's contact events — a foot lifted with its swing task
added, a NEW contact object made at the touch-down — find the layout built the first time,
bound to the new contact. Checked here: such a sequence builds no layout on its second
cycle, and every QP it assembles is, to the bit, the QP of a fresh solver holding the same
items (new objects, the same anchors) at the same state; an item whose structure changed
while it was out of the solver (a friction coefficient, a priority), or a contact of another
structure, gets a new layout; the kept sets are bounded."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.solver_layouts import KEPT_ITEM_SETS


@pytest.fixture(scope="module")
def robots():
    """Two G1s: one for the solver under test, one for the fresh solvers it is compared with."""
    return tp.robots.load("g1"), tp.robots.load("g1")


def _sole(foot: str, **options) -> tp.PlanarContact:
    return tp.PlanarContact(foot, length=0.16, width=0.07, **{"mu": 0.8, **options})


def _swing(robot, foot: str, **options) -> tp.tasks.FrameTask:
    target = robot.placement_at(robot.q_ref, robot.frame_id(foot))
    target.translation += np.array([0.02, 0.0, 0.05])
    return tp.tasks.FrameTask(foot, target, kp=100.0, weight=10.0, **options)


def _state(robot, k: int):
    """A state of its own for step ``k`` (q near the reference posture, v small), the same on
    both robots."""
    rng = np.random.default_rng(k)
    q = robot.q_ref.copy()
    q[7:] += 0.02 * rng.standard_normal(robot.nq - 7)
    return q, 0.05 * rng.standard_normal(robot.nv)


class _Held:
    """The solver under test and its items' recipes (so that a fresh solver makes its own)."""

    def __init__(self, robot):
        self.robot = robot
        self.solver = tp.DynamicsSolver(robot, dt=1e-3)
        self.contacts = {}                       # name -> options of the contact made for it
        self.tasks = []                          # (kind, the task or None) in the solver's order
        self.swings = {}                         # foot -> its swing task, made once
        for foot in robot.feet:
            self.add_contact(foot)
        self.add_task("com")
        self.add_task("posture")
        self.solver.add_constraint(tp.constraints.TorqueLimits())

    def add_contact(self, foot: str, **options) -> None:
        self.contacts[foot] = options
        self.solver.add_contact(_sole(foot, **options))

    def remove_contact(self, foot: str) -> None:
        del self.contacts[foot]
        self.solver.remove_contact(foot)

    def add_task(self, kind: str, task=None) -> None:
        self.tasks.append((kind, task))
        self.solver.add_task(task if task is not None else _task(self.robot, kind))

    def remove_task(self, kind: str) -> None:
        index = [held for held, _ in self.tasks].index(kind)
        self.tasks.pop(index)
        self.solver.remove_task(self.solver.tasks[index])

    def fresh(self, robot) -> tp.DynamicsSolver:
        """A new solver on ``robot`` with new items like these, in this order, its contacts
        anchored where this solver's are."""
        solver = tp.DynamicsSolver(robot, dt=self.solver.dt)
        for foot, options in self.contacts.items():
            solver.add_contact(_sole(foot, **options))
            solver.reanchor_contact(foot, self.solver.contacts[foot].anchor)
        for (kind, _), held in zip(self.tasks, self.solver.tasks):
            task = _task(robot, kind) if not kind.startswith("swing") else _swing(robot, held.frame,
                                                                                    priority=held.priority)
            solver.add_task(task)
        solver.add_constraint(tp.constraints.TorqueLimits())
        return solver


def _task(robot, kind: str):
    if kind == "com":
        return tp.tasks.CoMTask(kp=50.0, weight=1.0)
    if kind == "posture":
        return tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2)
    return _swing(robot, kind.split(":")[1])


def _qp_arrays(qp) -> list[np.ndarray]:
    return [qp.A, qp.b, qp.C, qp.l, qp.u, qp.lb, qp.ub, qp.cost.R, qp.cost.s, qp.cost.d, qp.cost.e]


def _solve_and_compare(held: _Held, other_robot, k: int) -> None:
    """Solve the held solver at state ``k`` and a fresh one with the same items: the same QP
    to the bit, the same solution (each backend from its own history: to rounding)."""
    q, v = _state(held.robot, k)
    solution = held.solver.solve(q, v)
    fresh = held.fresh(other_robot)
    expected = fresh.solve(q, v)
    assert list(fresh.contacts) == list(held.solver.contacts)
    for ours, theirs in zip(_qp_arrays(held.solver.last_qp), _qp_arrays(fresh.last_qp)):
        assert ours.shape == theirs.shape and np.array_equal(ours, theirs)
    np.testing.assert_allclose(solution.x, expected.x, rtol=0, atol=1e-8)
    for name in held.contacts:
        np.testing.assert_allclose(solution.wrenches[name], expected.wrenches[name], rtol=0, atol=1e-6)


def _walk_cycle(held: _Held, other_robot, k: int, kp: float) -> int:
    """Lift and land each foot once, as a walk does (the foot's swing task, made once, while
    it is up; a new contact at its touch-down, here with gains ``kp``), solving and comparing
    after each event; the layouts built."""
    before = held.solver.layouts_built
    for foot in held.robot.feet:
        held.remove_contact(foot)
        held.add_task(f"swing:{foot}", held.swings.setdefault(foot, _swing(held.robot, foot)))
        _solve_and_compare(held, other_robot, k)
        held.remove_task(f"swing:{foot}")
        held.add_contact(foot, kp=kp)
        _solve_and_compare(held, other_robot, k + 1)
        k += 2
    return held.solver.layouts_built - before


def test_a_walks_contact_events_build_each_layout_once_and_assemble_a_fresh_solvers_qp(robots):
    robot, other = robots
    held = _Held(robot)
    _solve_and_compare(held, other, 0)
    first = _walk_cycle(held, other, 1, kp=10.0)
    second = _walk_cycle(held, other, 10, kp=25.0)     # new contacts, other gains: the same structure
    third = _walk_cycle(held, other, 20, kp=10.0)
    # [R]+swing L, [R, L], [L]+swing R, [L, R] (the first set's, kept): three new layouts, then none
    assert (first, second, third) == (3, 0, 0)


def test_an_item_changed_while_out_of_the_solver_gets_a_new_layout(robots):
    robot, other = robots
    held = _Held(robot)
    left, right = robot.feet
    _solve_and_compare(held, other, 0)
    _walk_cycle(held, other, 1, kp=10.0)
    built = held.solver.layouts_built
    # A new contact of another friction coefficient: another structure (its friction rows).
    held.remove_contact(left)
    held.add_contact(left, mu=0.5)
    _solve_and_compare(held, other, 10)
    assert held.solver.layouts_built == built + 1
    # The same contact object back after its mu was changed while out of the solver.
    contact, options = held.solver.contacts[right], held.contacts[right]
    held.remove_contact(right)
    _solve_and_compare(held, other, 11)             # [L (mu 0.5)]: new, once
    contact.mu = 0.6
    held.contacts[right] = {**options, "mu": 0.6}
    held.solver.add_contact(contact)
    built = held.solver.layouts_built
    _solve_and_compare(held, other, 12)
    assert held.solver.layouts_built == built + 1
    # A swing task made hard while out of the solver: a task's structure, by its version.
    held.remove_contact(left)
    swing = _swing(robot, left)
    held.add_task(f"swing:{left}", swing)
    _solve_and_compare(held, other, 13)
    held.remove_task(f"swing:{left}")
    held.add_contact(left, mu=0.5)
    _solve_and_compare(held, other, 14)
    held.remove_contact(left)
    swing.priority = "hard"
    held.add_task(f"swing:{left}", swing)
    built = held.solver.layouts_built
    _solve_and_compare(held, other, 15)
    assert held.solver.layouts_built == built + 1


def test_a_setting_that_shapes_the_qp_drops_every_kept_layout(robots):
    robot, other = robots
    held = _Held(robot)
    left = robot.feet[0]
    _solve_and_compare(held, other, 0)
    held.remove_contact(left)
    _solve_and_compare(held, other, 1)
    held.add_contact(left)
    _solve_and_compare(held, other, 2)
    held.remove_contact(left)
    built = held.solver.layouts_built
    _solve_and_compare(held, other, 3)              # [R]: kept
    assert held.solver.layouts_built == built
    held.solver.dt = 2e-3                           # a solver setting: every layout dropped
    held.add_contact(left)
    _solve_and_compare(held, other, 4)
    assert held.solver.layouts_built == built + 1


def test_the_kept_item_sets_are_bounded_and_the_least_recently_left_goes_first(robots):
    robot, _ = robots
    solver = tp.DynamicsSolver(robot, dt=1e-3)
    left, right = robot.feet
    solver.add_contact(_sole(right))
    solver.add_task(tp.tasks.CoMTask(kp=50.0))
    q, v = _state(robot, 0)
    frictions = 0.3 + 0.01 * np.arange(KEPT_ITEM_SETS + 2)
    for mu in frictions:                              # one set of items (and layout) per mu
        solver.add_contact(_sole(left, mu=mu))
        solver.solve(q, v)
        solver.remove_contact(left)
    solver.solve(q, v)
    built = solver.layouts_built
    for mu, kept in ((frictions[-1], True), (frictions[0], False)):
        solver.add_contact(_sole(left, mu=mu))
        solver.solve(q, v)
        solver.remove_contact(left)
        assert solver.layouts_built == built + (0 if kept else 1)
        built = solver.layouts_built


def test_a_copy_of_a_solver_with_kept_layouts_solves_as_the_solver(robots):
    robot, other = robots
    held = _Held(robot)
    _walk_cycle(held, other, 0, kp=10.0)
    copied = copy.deepcopy(held.solver)
    q, v = _state(robot, 30)
    np.testing.assert_allclose(copied.solve(q, v).x, held.solver.solve(q, v).x, rtol=0, atol=1e-8)
