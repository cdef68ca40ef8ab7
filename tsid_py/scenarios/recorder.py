"""A flight recorder for a :class:`~tsid_py.DynamicsSolver`: what it saw and decided, step by
step, in bounded memory, written to one file that :mod:`tsid_py.tools.replay` re-solves.

    recorder = FlightRecorder(solver, capacity=20_000)   # the last 20 000 steps (20 s at 1 kHz)
    ...                                                   # the control loop, unchanged
    recorder.save("walk.tsidrec")                         # or: tsid-py demo walk --record walk.tsidrec

Each step, before the solve: the state ``(q, v)`` as given, every task's target
(:meth:`~tsid_py.tasks.Task.target_arrays`), the contact force ramps' elapsed times, the
step's :class:`~tsid_py.overrides.StepOverrides` (when any), and the reduced backend's warm
start (the active set and basic columns the step starts from). After it: ``x`` (hence q̈, the
wrenches and τ), the status, the iterations, the QP's size, the step's time (µs) and, for a
step that raised, the error. Whenever the configuration changes otherwise — an item added or
removed, a setting assigned, a contact anchored, a ramp started or ended — the recorder keeps
a copy of the solver's items (a pickle without the robot: kilobytes), a *keyframe*.

Replaying step ``k`` takes the keyframe before it, restores the step's targets, ramps and warm
start, and solves ``(q_k, v_k)`` again: the same arithmetic on the same data, hence the same
``x`` bit for bit (steps that fell back to DAQP, whose own warm start is not recorded, agree to
its tolerance).

Memory is bounded: the per-step rows are a ring of ``capacity`` steps, and keyframes older than
the oldest step kept are dropped. The rows are a :class:`~tsid_py.step_log.StepLog`: a steady
step (no configuration change, no overrides, no force ramp, every task's targets packed by the
assembly's compiled program) costs the solver one compiled call after the solve — for the
solver's steady step, none: its row is written in the refill's call — and none of the
recorder's Python (see :meth:`FlightRecorder.after_step`); the other steps go through its
hooks.
"""

from __future__ import annotations

import io
import json
import os
import pickle
from time import perf_counter

import numpy as np
from numba import float64, intp, njit, types, void

from .._files import atomic_write
from ..settings import CHANGES
from ..solver import DynamicsSolver
from ..step_log import ITERATIONS, MICROSECONDS, STATUS, X_SIZE, StepLog

ROWS = float64[:, ::1]
#: Any 1-D or 2-D float64 array, writable or not, of any strides (a task's target): the
#: compiled functions below read them through their strides.
ANY1, ANY2 = types.Array(float64, 1, "A", readonly=True), types.Array(float64, 2, "A", readonly=True)

#: File format version written in each recording.
FORMAT = 1


@njit(void(ROWS, intp, intp, ANY1), cache=True)
def _pack_range(T, i, offset, values):
    """``T[i, offset:offset + values.size] = values``."""
    T[i, offset:offset + values.size] = values


@njit(void(ROWS, intp, intp, ANY2), cache=True)
def _pack_matrix(T, i, offset, values):
    """``T[i, offset:offset + values.size] = values`` row by row (a rotation)."""
    rows, columns = values.shape
    for r in range(rows):
        for c in range(columns):
            T[i, offset + r * columns + c] = values[r, c]


_direct_range = _pack_range.overloads[_pack_range.signatures[0]].entry_point
_direct_matrix = _pack_matrix.overloads[_pack_matrix.signatures[0]].entry_point

#: A warm start is kept at the first step of each keyframe and every this many steps: a replay
#: goes through the steps in order from there, and the reduced backend's warm start of each
#: later step is then the one the replay itself leaves (the same as the recording's).
CHECKPOINT = 1000

_NO_INDICES = np.zeros(0, dtype=np.intp)
_UNSET = object()


class _RobotFreePickler(pickle.Pickler):
    """Pickles a solver's items with its robot (and, for one item, its solver) as references."""

    def __init__(self, file, robot, solver=None):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.robot, self.solver = robot, solver

    def persistent_id(self, obj):
        if obj is self.robot:
            return "robot"
        return "solver" if obj is self.solver and obj is not None else None


class _RobotFreeUnpickler(pickle.Unpickler):
    def __init__(self, file, robot, solver=None):
        super().__init__(file)
        self.robot, self.solver = robot, solver

    def persistent_load(self, pid):
        if pid == "robot":
            return self.robot
        if pid == "solver" and self.solver is not None:
            return self.solver
        raise pickle.UnpicklingError(f"unknown reference {pid!r} in a keyframe")


def item_state(item, solver: DynamicsSolver) -> bytes:
    """An item's whole state (its attributes), its robot and solver as references: what the
    recorder keeps each step for a task whose targets :meth:`~tsid_py.tasks.Task.target_arrays`
    may not capture (a task defined outside :mod:`tsid_py.tasks`: a controller's, a user's)."""
    buffer = io.BytesIO()
    _RobotFreePickler(buffer, solver.robot, solver).dump(item.__dict__)
    return buffer.getvalue()


def restore_item_state(item, data: bytes, solver: DynamicsSolver) -> None:
    """Put :func:`item_state`'s attributes back into ``item`` (same object: the solver's layout
    keeps referring to it) and bind it to the solver's robot again."""
    item.__dict__.update(_RobotFreeUnpickler(io.BytesIO(data), solver.robot, solver).load())
    item.bind(solver.robot)


def _targets_complete(task) -> bool:
    """Whether the task's :meth:`~tsid_py.tasks.Task.target_arrays` hold all it changes from
    step to step (:attr:`~tsid_py.tasks.Task.targets_complete`): the library's own tasks
    (:mod:`tsid_py.tasks`) and the classes that declare it in their own body, not their
    subclasses elsewhere."""
    kind = type(task)
    return kind.__module__.startswith("tsid_py.tasks.") or kind.__dict__.get("targets_complete", False) is True


def solver_keyframe(solver: DynamicsSolver) -> bytes:
    """The solver and its items, without its robot (:func:`solver_from_keyframe` binds them
    to a robot again)."""
    buffer = io.BytesIO()
    _RobotFreePickler(buffer, solver.robot).dump(solver)
    return buffer.getvalue()


def solver_from_keyframe(data: bytes, robot) -> DynamicsSolver:
    """A solver from :func:`solver_keyframe`'s bytes, its items bound to ``robot``."""
    return _RobotFreeUnpickler(io.BytesIO(data), robot).load()


class FlightRecorder:
    """Records every solve of ``solver`` (see the module) in rings of ``capacity`` steps.

    Parameters
    ----------
    solver : the solver to record (one recorder per solver; ``solver.recorder`` is set, and
        ``solver.step_log`` to the recorder's rows).
    capacity : steps kept (the last ones), > 0.
    x_width : the widest ``x`` kept at first (default: nv + 48, eight planar contacts; widened
        when a step's ``x`` is wider).
    """

    def __init__(self, solver: DynamicsSolver, capacity: int = 20_000, *, x_width: int | None = None):
        if not isinstance(solver, DynamicsSolver):
            raise ValueError(f"solver must be a tsid_py.DynamicsSolver, got {type(solver).__name__}")
        if not isinstance(capacity, (int, np.integer)) or capacity < 1:
            raise ValueError(f"capacity must be a positive int, got {capacity!r}")
        if solver.recorder is not None:
            raise ValueError("this solver already has a recorder; detach it first")
        robot = solver.robot
        self.solver, self.capacity, self.robot_name = solver, int(capacity), robot.name
        #: Steps between warm starts kept: a quarter of the ring at most, so that the steps kept
        #: always begin within reach of one.
        self._checkpoint_every = max(1, min(CHECKPOINT, self.capacity // 4))
        #: The rows (:class:`~tsid_py.step_log.StepLog`): the state, ``x`` and the outcome in its
        #: own columns, the task targets in its extra columns (widened when a configuration needs it).
        self.log = StepLog(self, self.capacity, robot.nq, robot.nv, robot.nv + 48 if x_width is None else int(x_width),
                           16, self._checkpoint_every)
        #: Keyframes: dicts ``step`` (first step they serve), ``solver`` (bytes), ``targets``
        #: (per task of ``solver.tasks``: the shapes of its target arrays).
        self.keyframes: list[dict] = []
        self.sparse: dict[int, dict] = {}          # step -> {"overrides", "ramps", "error"} when any
        self._epochs = (-1, -1)                    # configuration epoch, settings changes
        self._overridden = False                   # whether the step being solved has overrides
        self._tic, self._state = 0.0, (None, None)  # the hooked step's start and (q, v)
        self._target_getters, self._opaque_tasks = [], []
        self._forget_gather()
        #: Whether the backend tells its warm start (the reduced backend does).
        self._warm_starts = hasattr(solver.backend, "warm_start_buffers")
        self.attach()

    # ------------------------------------------------------------------ the rows
    @property
    def count(self) -> int:
        """Steps recorded since the start."""
        return self.log.count

    @property
    def statuses(self) -> list[str]:
        """The statuses seen, by the code a row holds."""
        return self.log.statuses

    def _columns(self, first: int, width: int) -> np.ndarray:
        return self.log.rows[:, first:first + width]

    q = property(lambda self: self._columns(self.log.q_column, self.log.nq), doc="The state q, one row per step.")
    v = property(lambda self: self._columns(self.log.v_column, self.log.nv), doc="The state v, one row per step.")
    x = property(lambda self: self._columns(self.log.x_column, self.log.x_width), doc="x (its first x_size entries).")
    targets = property(lambda self: self.log.rows[:, self.log.extra_column:], doc="The task targets of each step.")
    x_size = property(lambda self: self.log.rows[:, X_SIZE], doc="The size of x (0: the step raised).")
    status = property(lambda self: self.log.rows[:, STATUS], doc="The status' index in statuses (-1: raised).")
    iterations = property(lambda self: self.log.rows[:, ITERATIONS], doc="The QP's iterations.")

    @property
    def step_us(self) -> np.ndarray:
        """The step's time, µs (the last step's filled in when pending, see :mod:`tsid_py.step_log`)."""
        self._settle()
        return self.log.rows[:, MICROSECONDS]

    def _settle(self) -> None:
        """The last row's time, when the steady step that wrote it left it pending (this
        solver's last step is the last row: every step is recorded while attached)."""
        if self.solver.recorder is self:
            self.log.settle(self.solver.last_step_seconds)

    # ------------------------------------------------------------------ recording
    def attach(self) -> None:
        """Record the solver's steps (again, after :meth:`detach`)."""
        if self.solver.recorder is not None and self.solver.recorder is not self:
            raise ValueError("this solver already has a recorder; detach it first")
        self.solver.recorder, self.solver.step_log = self, self.log

    def detach(self) -> None:
        """Stop recording (the rows stay, to save)."""
        self._settle()
        if self.solver.recorder is self:
            self.solver.recorder = None
        if self.solver.step_log is self.log:
            self.solver.step_log = None
        self.log.armed = False

    def before_step(self, solver: DynamicsSolver, q, v, overrides) -> None:
        """The step's inputs the rows' compiled writer does not take (called by the solver
        before a step its :class:`~tsid_py.step_log.StepLog` does not cover): a keyframe when
        the configuration changed, the targets of the tasks the assembly's program does not
        pack (:meth:`after_step` has the others written from its packed floats), the warm
        start at checkpoints, the rarer inputs in ``sparse``."""
        self._settle()                            # (the solver's stamps are still the last step's)
        count = self.count
        i = count % self.capacity
        fresh = solver.configuration_epoch != self._epochs[0] or CHANGES[0] != self._epochs[1]
        if fresh:                                 # (adding or removing a task invalidates: a new epoch)
            self._keyframe(solver)
            self._epochs = (solver.configuration_epoch, CHANGES[0])
        for _, getter, offsets in self._read_before:  # (the others: from the program, after the step)
            self._write_targets(i, getter(), offsets)
        if fresh or count % self._checkpoint_every == 0:
            self._checkpoint(solver, count)
        self._overridden = overrides is not None and overrides.active
        if self._overridden:
            self.sparse.setdefault(count, {})["overrides"] = _overrides_record(overrides, solver)
        if solver.has_transitions:
            self.sparse.setdefault(count, {})["ramps"] = solver.transition_state()
        if self._opaque_tasks:
            self.sparse.setdefault(count, {})["items"] = {
                index: item_state(solver.tasks[index], solver) for index in self._opaque_tasks}
        self._state = (q, v)
        self._tic = perf_counter()

    def _write_targets(self, i: int, arrays, offsets) -> None:
        """One task's target arrays into row ``i``'s target columns."""
        rows, first = self.log.rows, self.log.extra_column
        for array, offset in zip(arrays, offsets):        # float64 arrays: the tasks' own copies
            if array.ndim == 1:
                _direct_range(rows, i, first + offset, array)
            else:
                _direct_matrix(rows, i, first + offset, array)

    def _checkpoint(self, solver: DynamicsSolver, count: int) -> None:
        """Keep the reduced backend's warm start (the step a replay may start from)."""
        self._forget_sparse_before(count - self.capacity + 1)
        if not self._warm_starts:
            return
        backend = solver.backend
        rows, at_upper, sizes, signature = backend.warm_start_buffers()
        held = int(sizes[0])
        basis = backend.basis
        self.sparse.setdefault(count, {})["warm"] = {
            "rows": rows[:held].tolist(), "at_upper": at_upper[:held].tolist(), "shape": signature.tolist(),
            "basis": None if basis is None else [basis[0].tolist(), basis[1].tolist()]}

    def _forget_sparse_before(self, oldest: int) -> None:
        """Drop the sparse entries of the steps before ``oldest`` (they left the ring): the
        entries are kept in step order, so only the stale ones at the front are looked at."""
        stale = []
        for step in self.sparse:
            if step >= oldest:
                break
            stale.append(step)
        for step in stale:
            del self.sparse[step]

    def after_step(self, solver: DynamicsSolver, solution, error) -> None:
        """The step's row (called by the solver after a step :meth:`before_step` saw): the
        state, ``x``, status, iterations and time, and the targets the layout's
        :class:`~tsid_py.assembly_program.StepProgram` packed for the step, in the log's one
        compiled call (see :meth:`_prepare_gather`). When every task's targets come from the
        program and no item's state is kept each step, the log is then armed: it covers the
        next steps at this configuration without the hooks."""
        elapsed = perf_counter() - self._tic
        (q, v), self._state = self._state, (None, None)
        log = self.log
        if solution is None:
            self._read_gathered(log.count % self.capacity)
            self.sparse.setdefault(log.count, {})["error"] = f"{type(error).__name__}: {error}"
            log.record_failure(q, v, elapsed)
            return
        if solution.x.size > log.x_width:
            log.widened(solution.x.size, log.extra)
            self._forget_gather()
        program = None if self._overridden else solver.last_layout.program
        if program is not self._gather_program:
            self._read_gathered(log.count % self.capacity)    # another layout's program, or none: rare
            self._prepare_gather(program)
        log.record(q, v, solution, solver.last_step_seconds)
        if program is not None and not self._read_before and not self._opaque_tasks and not solver.has_transitions:
            log.arm(*self._epochs)            # (a ramp's start or end changes the epoch: disarmed until then)

    def _forget_gather(self) -> None:
        """No target read from a program: every task's read before the step."""
        self._gather_program = _UNSET
        self._gathered: list[int] = []
        self._read_before = [(j, getter, offsets) for j, (_, getter, offsets) in enumerate(self._target_getters)]
        self.log.map(None)

    def _prepare_gather(self, program) -> None:
        """Have the log write the targets ``program`` packs each step (its
        :meth:`~tsid_py.assembly_program.StepProgram.target_columns`) from its floats; the
        other tasks' are read before the step."""
        self._forget_gather()
        self._gather_program = program
        if program is None:
            return
        sources, columns, first = [], [], self.log.extra_column
        for j, (task, _, offsets) in enumerate(self._target_getters):
            where = program.target_columns(task)
            if where is not None and where.size == sum(array.size for array in task.target_arrays()):
                self._gathered.append(j)
                sources.append(where)
                columns.append(np.arange(first + offsets[0], first + offsets[0] + where.size))
        self._read_before = [entry for entry in self._read_before if entry[0] not in self._gathered]
        self.log.map(program, _joined(sources), _joined(columns))

    def _read_gathered(self, i: int) -> None:
        """Row ``i``'s targets of the tasks the gather reads, from the tasks themselves."""
        for j in self._gathered:
            _, getter, offsets = self._target_getters[j]
            self._write_targets(i, getter(), offsets)

    def _keyframe(self, solver: DynamicsSolver) -> None:
        """Keep a copy of the items (the configuration changed) and size the target columns."""
        per_task = [[tuple(array.shape) for array in task.target_arrays()] for task in solver.tasks]
        width = sum(int(np.prod(shape)) for shapes in per_task for shape in shapes)
        if width > self.log.extra:
            self.log.widened(self.log.x_width, max(width, 2 * self.log.extra))
        self.keyframes.append({"step": self.count, "solver": solver_keyframe(solver), "targets": per_task})
        oldest = self.count - self.capacity + 1     # the oldest step still kept after this one
        while len(self.keyframes) > 1 and self.keyframes[1]["step"] <= oldest:
            self.keyframes.pop(0)
        self._target_getters, start = [], 0
        for task in solver.tasks:
            arrays = task.target_arrays()
            if arrays:
                offsets = []
                for array in arrays:
                    offsets.append(start)
                    start += array.size
                self._target_getters.append((task, task.target_arrays, offsets))
        self._forget_gather()
        self._opaque_tasks = [index for index, task in enumerate(solver.tasks) if not _targets_complete(task)]

    # ------------------------------------------------------------------ saving
    def steps(self) -> np.ndarray:
        """The step numbers kept, oldest first."""
        return np.arange(max(0, self.count - self.capacity), self.count)

    def save(self, path: str | os.PathLike) -> str:
        """Write the kept steps to ``path`` (an ``.npz`` archive: one array per field, the
        keyframes as bytes, and a JSON header), atomically; returns the path."""
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise ValueError(f"path's folder does not exist: {folder!r}")
        steps = self.steps()
        rows = steps % self.capacity
        keyframe_of = np.searchsorted([keyframe["step"] for keyframe in self.keyframes], steps, side="right") - 1
        first_keyframe = int(keyframe_of[0]) if rows.size else 0
        keyframes = self.keyframes[first_keyframe:]
        header = {"format": FORMAT, "robot": self.robot_name, "steps": steps.tolist()[:1] + [int(steps.size)],
                  "statuses": self.statuses, "keyframes": [{"step": k["step"], "targets": k["targets"]}
                                                           for k in keyframes],
                  "sparse": {str(step): {key: value for key, value in entry.items() if key != "items"}
                             for step, entry in self.sparse.items() if step >= (steps[0] if steps.size else 0)}}
        arrays = {name: getattr(self, name)[rows] for name in ("q", "v", "x", "step_us", "targets")}
        arrays.update({name: getattr(self, name)[rows].astype(np.int32) for name in ("x_size", "iterations", "status")})
        arrays["keyframe_of"] = (keyframe_of - first_keyframe).astype(np.int32)
        arrays["step"] = steps
        for k, keyframe in enumerate(keyframes):
            arrays[f"keyframe_{k}"] = np.frombuffer(keyframe["solver"], dtype=np.uint8)
        for step, entry in self.sparse.items():
            if step >= (steps[0] if steps.size else 0):
                for index, data in entry.get("items", {}).items():
                    arrays[f"item_{step}_{index}"] = np.frombuffer(data, dtype=np.uint8)
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
        with atomic_write(path, "wb") as file:
            np.savez_compressed(file, **arrays)
        return path


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The index arrays ``parts`` one after the other (none: an empty array)."""
    return np.concatenate([*parts, _NO_INDICES]).astype(np.intp)


def _overrides_record(overrides, solver: DynamicsSolver) -> dict:
    """A step's overrides as plain values, tasks by their index in ``solver.tasks`` (``"r<i>"``
    for the solver's regularisation tasks)."""
    tasks = {id(task): str(index) for index, task in enumerate(solver.tasks)}
    tasks.update({id(task): f"r{index}" for index, task in enumerate(solver.regularization_tasks)})
    return {"contacts": {name: [entry.soft_weight, None if entry.normal_force is None else list(entry.normal_force)]
                         for name, entry in overrides.contacts.items()},
            "torque_limit_scale": overrides.torque_limit_scale,
            "task_weights": {tasks.get(id(task), "?"): np.asarray(weight).tolist()
                             for task, weight in overrides.task_weights.items()}}
