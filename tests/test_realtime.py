"""The control step in steady state allocates nothing that outlives it, triggers no garbage
collection, and refilling a solution gives the same numbers as a new one.

Counted, not timed: :mod:`tracemalloc` traces every Python allocation (objects, numpy's
buffers and numba's runtime, which allocates through Python's raw allocator), numba's runtime
statistics count its own blocks, :data:`gc.callbacks` see every collection."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from numba.core.runtime import _nrt_python

import tsid_py as tp
from tsid_py.control.reference import humanoid_balance, quadruped_stance
from tsid_py.loop import prepare_loop

#: numba wraps each array argument of a compiled call in a record of this size (``NRT_MemInfo``:
#: six machine words), freed when the call returns; the step's largest call takes 22 arrays.
MEMINFO_BYTES, LARGEST_CALL_ARRAYS = 48, 22


def _states(robot_name: str, steps: int):
    """``steps`` states of the reference balance problem (CoM sinusoid, the state following the
    solver's q̈), and a solver of that problem warmed up on the first ones."""
    robot = tp.robots.load(robot_name)
    build = humanoid_balance if robot.sole_size else quadruped_stance
    controller = build(robot, 1e-3)
    robot.update(robot.q_ref, robot.zero_velocity())
    centre = robot.com.copy()
    q, v, states = robot.q_ref.copy(), robot.zero_velocity(), []
    for k in range(steps):
        s = np.sin(np.pi * k * 1e-3)
        controller.com.set_target(centre + [0, 0.04 * s, 0])
        sol = controller.solver.solve(q, v)
        states.append((q.copy(), v.copy()))
        v = v + 1e-3 * sol.ddq
        q = pin.integrate(robot.model, q, 1e-3 * v)
    return controller.solver, states


def measure_steady_steps(robot_name: str, prepare=None) -> dict:
    """Run 290 refilled steady-state steps of ``robot_name``'s reference problem under
    :mod:`tracemalloc`, :data:`gc.callbacks` and numba's runtime statistics, and return what
    they counted (bytes retained, objects kept, collections, numba blocks left, the largest
    allocation at once). ``prepare(solver)``, when given, is called before the warm-up steps
    (a flight recorder attached: :mod:`tests.test_recorder`).

    Called in a fresh interpreter by the test below: :mod:`tracemalloc` counts every thread's
    allocations, and a pytest-xdist worker has a second thread (execnet's reader) that
    allocates whenever the controller sends it more tests."""
    solver, states = _states(robot_name, 400)
    if prepare is not None:
        prepare(solver)
    sol = None
    for q, v in states[:100]:                            # steady state: buffers and layouts built
        sol = solver.solve(q, v, out=sol)
    settle, steady, peaks = states[100:110], states[110:], np.zeros(len(states) - 110)

    def run(states):                    # the loop's own variables die with it
        for k, (q, v) in enumerate(states):
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            if solver.solve(q, v, out=sol) is not sol:
                raise AssertionError("the solution was not refilled")
            peaks[k] = tracemalloc.get_traced_memory()[1] - before

    collections = []
    callback = lambda phase, info: collections.append(info["generation"]) if phase == "start" else None  # noqa: E731
    _nrt_python.memsys_enable_stats()
    blocks = _nrt_python.memsys_get_stats_alloc() - _nrt_python.memsys_get_stats_free()
    tracemalloc.start(1)
    gc.collect()                    # the collector's counts start at 0: a step that keeps nothing never reaches them
    gc.callbacks.append(callback)
    try:
        run(settle)                 # (the collection emptied Python's free lists: let the steps refill them)
        young = {id(obj) for obj in gc.get_objects(0)}
        marks = np.zeros(2)         # (into an array: a kept int would count as retained)
        marks[0] = tracemalloc.get_traced_memory()[0]
        run(steady)
        marks[1] = tracemalloc.get_traced_memory()[0]
        after, kept = gc.get_objects(0), []
        for obj in after:           # (a loop, not a comprehension: its closure would be a new object)
            if id(obj) not in young and obj is not young and obj is not after and obj is not kept:
                kept.append(obj)
    finally:
        tracemalloc.stop()
        gc.callbacks.remove(callback)
    return {"steps": len(steady), "retained": int(marks[1] - marks[0]), "kept": [repr(obj)[:80] for obj in kept[:5]],
            "collections": collections,
            "numba_blocks": int(_nrt_python.memsys_get_stats_alloc() - _nrt_python.memsys_get_stats_free() - blocks),
            "worst": int(peaks.max())}


@pytest.mark.parametrize("robot_name", [tp.robots.DEFAULT_HUMANOID, tp.robots.DEFAULT_QUADRUPED])
def test_a_refilled_step_allocates_nothing_that_outlives_it(robot_name):
    probe = f"import json; from tests.test_realtime import measure_steady_steps as m; print(json.dumps(m({robot_name!r})))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600,
                            cwd=Path(__file__).parent.parent)
    assert result.returncode == 0, result.stderr
    counted = json.loads(result.stdout.strip().splitlines()[-1])
    assert counted["retained"] == 0, f"{counted['retained']} bytes retained over {counted['steps']} steps"
    assert counted["kept"] == [], f"objects the collector tracks were created and kept: {counted['kept']}"
    assert counted["collections"] == []
    # numba's blocks are all freed when its calls return, and what a step allocates while it
    # runs is at most the argument records of one compiled call (no array, no object).
    assert counted["numba_blocks"] == 0
    assert counted["worst"] <= MEMINFO_BYTES * LARGEST_CALL_ARRAYS + 256, f"a step allocated {counted['worst']} bytes at once"


@pytest.mark.parametrize("robot_name", [tp.robots.DEFAULT_HUMANOID, tp.robots.DEFAULT_QUADRUPED])
def test_a_refilled_solution_equals_a_new_one_bit_for_bit(robot_name):
    """Two solvers of the same problem, one returning new solutions and one refilling its own,
    give identical arrays step after step (the refill copies, it computes nothing else): planar
    contacts' wrenches (views of x), point contacts' (copies) and the frames' rotations."""
    fresh, states = _states(robot_name, 200)
    refilled, _ = _states(robot_name, 200)
    sol = None
    for q, v in states[100:]:
        new = fresh.solve(q, v)
        sol = refilled.solve(q, v, out=sol)
        assert np.array_equal(new.x, sol.x) and np.array_equal(new.tau, sol.tau)
        assert np.array_equal(new.tau_actuated, sol.tau_actuated) and np.array_equal(new.ddq, sol.ddq)
        for name in new.local_wrenches:
            assert np.array_equal(new.local_wrenches[name], sol.local_wrenches[name])
            assert np.array_equal(new.wrenches[name], sol.wrenches[name])
            assert np.array_equal(new.frame_rotations[name], sol.frame_rotations[name])
        assert new.status == sol.status and new.iterations == sol.iterations


def test_a_solution_from_another_layout_is_not_refilled():
    """``out`` of another QP shape (a contact removed since) gets a new solution; the old one
    keeps its numbers."""
    solver, states = _states(tp.robots.DEFAULT_HUMANOID, 3)
    q, v = states[-1]
    old = solver.solve(q, v)
    kept = old.x.copy()
    solver.remove_contact(solver.robot.feet[0])
    new = solver.solve(q, v, out=old)
    assert new is not old and new.x.size == old.x.size - 6
    assert np.array_equal(old.x, kept)


def test_prepare_loop_pins_limits_freezes_and_restores():
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this OS")
    allowed = os.sched_getaffinity(0)
    with prepare_loop(blas_threads=1) as settings:
        assert os.sched_getaffinity(0) == {max(allowed)} == {settings.core}
        assert settings.gc_frozen == gc.get_freeze_count() > 0
    assert os.sched_getaffinity(0) == allowed and gc.get_freeze_count() == 0
    with pytest.raises(ValueError, match="core"):
        prepare_loop(core=10_000)
    with pytest.raises(ValueError, match="blas_threads"):
        prepare_loop(core=None, blas_threads=0, freeze_gc=False)
