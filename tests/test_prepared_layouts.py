"""A controller prepared before its loop (:meth:`tsid_py.control.pipeline.Pipeline.prepare`,
:meth:`tsid_py.DynamicsSolver.prepare_layouts`) builds no layout, compiles nothing and keeps
no new memory on the first step that softens a sole: the first-time work of that step (a
layout's build, about a control period) was done ahead. Counted, not timed."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.loop import CompilationCounter, prepare_loop


def _softened_step(controller, q, v, sole: str):
    """One step of ``controller`` softening ``sole`` (nothing else): the layouts it built, the
    numba compilations during it, the bytes it kept allocated from the library's code
    (tracemalloc), the solution's x."""
    controller.contact_state.softened.clear()
    controller.contact_state.softened[sole] = 0
    built, compilations = controller.solver.layouts_built, CompilationCounter().start()
    tracemalloc.start(10)
    try:
        before = tracemalloc.take_snapshot()
        solution = controller.step(q, v)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
        compilations.stop()
    assert list(controller.state.overrides.softened()) == [sole]
    library = [tracemalloc.Filter(True, f"{tp.__path__[0]}/*")]
    kept = sum(stat.size_diff for stat in after.filter_traces(library).compare_to(before.filter_traces(library),
                                                                                  "filename"))
    return controller.solver.layouts_built - built, compilations.count, kept, solution.x.copy()


def _first_and_second_softening(prepare: bool):
    """A warmed-up balance controller (prepared or not): what its first step softening the
    first sole did, and what the same step did the second time (after a step on both soles)."""
    robot = tp.robots.load("talos")
    controller = BalanceController(robot)
    q, v = robot.q_ref.copy(), robot.zero_velocity()
    for _ in range(5):
        controller.step(q, v)
    if prepare:
        with prepare_loop(core=None, freeze_gc=False, controllers=[controller]) as settings:
            assert settings.layouts_prepared == 3          # {left}, {right}, {left, right}: the plain one was built
    sole = next(iter(controller.solver.contacts))
    first = _softened_step(controller, q, v, sole)
    controller.contact_state.softened.clear()
    controller.step(q, v)
    return first, _softened_step(controller, q, v, sole)


def test_a_prepared_controller_does_no_first_time_work_when_it_first_softens_a_sole():
    """Prepared: the first softening builds no layout, compiles nothing and keeps no more
    memory than the same step the second time (the backend's workspace for the QP's new
    shape, both times); unprepared, the first one builds the layout (a hundred kilobytes).
    The layout built ahead solves the same QP, bit for bit."""
    (built, compiled, kept, x), (_, _, kept_again, _) = _first_and_second_softening(prepare=True)
    assert built == 0 and compiled == 0
    assert kept <= kept_again + 16_000, f"the first softened step kept {kept} bytes, the second {kept_again}"
    (built_lazily, _, kept_lazily, x_lazily), (built_again, _, kept_again, _) = _first_and_second_softening(False)
    assert built_lazily == 1 and built_again == 0 and kept_lazily > kept_again + 50_000
    np.testing.assert_array_equal(x, x_lazily)


def test_prepare_layouts_builds_every_softenable_set_once():
    robot = tp.robots.load("go2")
    solver = tp.DynamicsSolver(robot)
    for foot in robot.feet:
        solver.add_contact(tp.PointContact(foot))
    assert solver.softenable_contacts() == list(robot.feet)
    assert solver.prepare_layouts(most_softened=1) == 1 + len(robot.feet)
    assert solver.prepare_layouts() == 2 ** len(robot.feet) - 1 - len(robot.feet)
    assert solver.prepare_layouts() == 0
    assert set(solver._layouts) == {frozenset(s) for s in _subsets(robot.feet)}
    with pytest.raises(ValueError, match="most_softened must be a non-negative int"):
        solver.prepare_layouts(most_softened=-1)
    with pytest.raises(ValueError, match="most_softened must be a non-negative int or None, got True"):
        solver.prepare_layouts(most_softened=True)


def _subsets(names):
    return [[name for bit, name in enumerate(names) if mask >> bit & 1] for mask in range(2 ** len(names))]
