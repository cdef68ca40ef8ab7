"""A ring of rows a solver writes each control step into with one compiled call: what a
flight recorder (:mod:`tsid_py.scenarios.recorder`) keeps of a steady step, without running
any of its Python.

A :class:`StepLog` is a float64 array :attr:`~StepLog.rows` (``capacity × width``) and its
column layout. Step ``k`` writes row ``k mod capacity``:

- ``X_SIZE``: the size of the QP's solution ``x`` (0: the step raised);
- ``STATUS``: the status, as an index into :attr:`~StepLog.statuses` (−1: the step raised);
- ``ITERATIONS``: the QP's iterations; ``MICROSECONDS``: the step's time, µs (NaN while
  pending: a row written during its step, see below);
- ``nq`` columns from :attr:`~StepLog.q_column`: ``q`` as given to
  :meth:`~tsid_py.DynamicsSolver.solve`; ``nv`` from :attr:`~StepLog.v_column`: ``v`` as given;
- ``x_width`` from :attr:`~StepLog.x_column`: ``x`` (its first ``x_size`` entries);
- ``extra`` from :attr:`~StepLog.extra_column`: entries of a
  :class:`~tsid_py.assembly_program.StepProgram`'s packed floats mapped to columns (the step's
  task targets, as the program packed them), and what the owner writes itself.

Counts and codes are stored as floats (exact below 2⁵³).

A steady step (:mod:`tsid_py.solver_steady`) writes its row in the compiled call that refills
its solution (:func:`refill_and_write_row`: no call and no Python of its own), before its
time is known: the row's time is pending (NaN) until the next write — the next step's row,
whichever way it is written — or :meth:`StepLog.settle` fills it in from the solver's phase
stamps, which still hold that step's times.

The contract with :class:`~tsid_py.DynamicsSolver` (its ``step_log``): the log *covers* a
step — the solver writes its row (:meth:`StepLog.record` after it, or a steady step in its
refill) instead of calling its ``recorder``'s hooks —
when the solver has a ``recorder`` (the log's :attr:`~StepLog.owner`, which sets both), the
owner :meth:`armed <StepLog.arm>` it for the solver's current
:attr:`~tsid_py.DynamicsSolver.configuration_epoch` and settings count
(:data:`tsid_py.settings.CHANGES`), and the step has no active overrides. The owner arms it
only when no force ramp is under way (a ramp's start and end change the epoch). Every other
step goes through the owner's hooks. Each
``period``-th step disarms the log (the owner's hooks see it: a recorder keeps a warm
start there). The log knows nothing of the owner's file.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import boolean, float64, intp, njit, types

from ._numba import compiled_function, inlined
from ._validation import _FLOAT64
from .refill import refill, refill_inline

#: The fixed columns of a row.
X_SIZE, STATUS, ITERATIONS, MICROSECONDS, FIXED_COLUMNS = range(5)

#: The fields of :attr:`StepLog.ints`: the steps written, the period of the disarming steps,
#: the first column of ``q``, ``v`` and ``x``, ``x``'s width, the number of mapped runs (then
#: per run: its first source in the program's floats, its first column and its length).
COUNT, PERIOD, Q_COLUMN, V_COLUMN, X_COLUMN, X_WIDTH, RUNS, HEADER = range(8)

_ANY1 = types.Array(float64, 1, "A", readonly=True)
_NO_FLOATS = np.zeros(1)
#: What :attr:`StepLog.program` is when nothing is mapped (no entry read from its floats).
_NO_PROGRAM = SimpleNamespace(floats=_NO_FLOATS)
_NDARRAY = np.ndarray


_ROWS, _INTS, _FLOATS = float64[:, ::1], intp[::1], float64[::1]


@njit(boolean(_ROWS, _INTS, _ANY1, _ANY1, _FLOATS, _ANY1, intp, intp, float64, float64), cache=True, _nrt=False)
def write_row(rows, ints, q, v, floats, x, status, iterations, seconds, previous_seconds):
    """Write the next row (``ints[COUNT] mod capacity``; see the module's table): the state, ``x``
    (at most ``ints[X_WIDTH]`` entries), ``rows[r, c:c + n] = floats[s:s + n]`` for each of the
    ``ints[RUNS]`` mapped runs ``(s, c, n)``, the status, iterations and time (``seconds``,
    written in µs; NaN: pending); the previous row's time when it is pending
    (``previous_seconds``, the previous step's); count the step. Returns whether the next
    step is still covered (not a multiple of ``ints[PERIOD]``)."""
    count = ints[COUNT]
    if count > 0:
        previous = rows[(count - 1) % rows.shape[0]]
        if np.isnan(previous[MICROSECONDS]):
            previous[MICROSECONDS] = 1e6 * previous_seconds
    row = rows[count % rows.shape[0]]
    start = ints[Q_COLUMN]
    for a in range(q.size):
        row[start + a] = q[a]
    start = ints[V_COLUMN]
    for a in range(v.size):
        row[start + a] = v[a]
    start, size = ints[X_COLUMN], min(x.size, ints[X_WIDTH])
    for a in range(size):
        row[start + a] = x[a]
    for run in range(HEADER, HEADER + 3 * ints[RUNS], 3):
        source, column = ints[run], ints[run + 1]
        for a in range(ints[run + 2]):
            row[column + a] = floats[source + a]
    row[X_SIZE], row[STATUS], row[ITERATIONS], row[MICROSECONDS] = size, status, iterations, 1e6 * seconds
    ints[COUNT] = count + 1
    return (count + 1) % ints[PERIOD] != 0


write_row_inline = inlined(write_row)


_write_row = compiled_function(write_row)


#: :func:`~tsid_py.refill.refill`'s arguments, as one tuple; a log's :attr:`StepLog.row_arrays`.
REFILL_ARGUMENTS, ROW_ARRAYS = types.Tuple(refill.signatures[0]), types.Tuple((_ROWS, _INTS, _FLOATS))


@njit(boolean(REFILL_ARGUMENTS, ROW_ARRAYS, _ANY1, _ANY1, intp, intp, float64), cache=True, _nrt=False)
def refill_and_write_row(refill_arguments, row_arrays, q, v, status, iterations, previous_seconds):
    """A steady step's :func:`~tsid_py.refill.refill` (``refill_arguments``) and then its row,
    :func:`write_row` of the refilled ``x`` (the second argument) into ``row_arrays`` (the
    rows, their ints and the mapped floats) with the time pending (see the module), in one
    call; returns :func:`write_row`'s answer. (Two tuples: a call with fewer arguments costs
    less to unpack.)"""
    (x_in, x, D, bias, zero_rows, tau, sources, source_index, rotations, force_index, force_target,
     forces) = refill_arguments                 # (numba inlines no call with a starred argument)
    refill_inline(x_in, x, D, bias, zero_rows, tau, sources, source_index, rotations, force_index, force_target,
                  forces)
    rows, ints, floats = row_arrays
    return write_row_inline(rows, ints, q, v, floats, x, status, iterations, np.nan, previous_seconds)


def float_vector(value) -> np.ndarray:
    """``value`` as a 1-D float64 array (a copy only when it is not one)."""
    return np.asarray(value, dtype=np.float64).reshape(-1)


class StepLog:
    """A ring of ``capacity`` rows (see the module): ``q``, ``v``, ``x`` up to ``x_width``
    entries and ``extra`` columns for mapped entries (the last ``extra`` of a row, from
    :attr:`extra_column`). ``owner``: the hooks' object the log stands in for; ``period``:
    every this many steps the log disarms itself."""

    def __init__(self, owner, capacity: int, nq: int, nv: int, x_width: int, extra: int, period: int):
        self.owner, self.capacity = owner, int(capacity)
        self.nq, self.nv, self.x_width, self.extra = int(nq), int(nv), int(x_width), int(extra)
        self.ints = np.zeros(HEADER, dtype=np.intp)
        self.ints[PERIOD] = period
        self.ints[Q_COLUMN], self.ints[V_COLUMN], self.ints[X_COLUMN] = self.q_column, self.v_column, self.x_column
        self.ints[X_WIDTH] = self.x_width
        self.rows = np.zeros((self.capacity, self.extra_column + self.extra))
        self.rows[:, STATUS] = -1.0
        self.rows[:, self.x_column:self.extra_column] = np.nan     # (and every page touched)
        #: The program whose floats the mapped entries are read from (:data:`_NO_PROGRAM`: none mapped).
        self.program = _NO_PROGRAM
        #: The statuses seen, by code.
        self.statuses: list[str] = []
        self._codes: dict[str, int] = {}
        #: The last status written and its code (a steady step's test: the same string object).
        self.last_status, self.last_code = None, -1
        #: Whether the next steps are covered, for which configuration epoch and settings count.
        self.armed, self.epoch, self.changes = False, -1, -1
        #: The rows, their ints and the program's floats: :func:`refill_and_write_row`'s tuple.
        self.row_arrays = (self.rows, self.ints, self.program.floats)

    @property
    def count(self) -> int:
        """Steps written."""
        return int(self.ints[COUNT])

    @property
    def q_column(self) -> int:
        """The first column of ``q``."""
        return FIXED_COLUMNS

    @property
    def v_column(self) -> int:
        """The first column of ``v``."""
        return FIXED_COLUMNS + self.nq

    @property
    def x_column(self) -> int:
        """The first column of ``x``."""
        return FIXED_COLUMNS + self.nq + self.nv

    @property
    def extra_column(self) -> int:
        """The first of the ``extra`` columns."""
        return FIXED_COLUMNS + self.nq + self.nv + self.x_width

    def widened(self, x_width: int, extra: int) -> None:
        """Make room for ``x`` of ``x_width`` entries and ``extra`` mapped columns (the rows
        kept: a copy; the mapping is dropped and the log disarmed)."""
        if x_width <= self.x_width and extra <= self.extra:
            return
        old, old_extra_column = self.rows, self.extra_column
        self.x_width, self.extra = max(x_width, self.x_width), max(extra, self.extra)
        self.rows = np.zeros((self.capacity, self.extra_column + self.extra))
        self.rows[:, :old_extra_column] = old[:, :old_extra_column]
        self.rows[:, old_extra_column:self.extra_column] = np.nan
        self.rows[:, self.extra_column:self.extra_column + old.shape[1] - old_extra_column] = old[:, old_extra_column:]
        self.ints[X_WIDTH] = self.x_width
        self.map(None)

    def map(self, program, sources: np.ndarray | None = None, columns: np.ndarray | None = None) -> None:
        """From now on, write ``program.floats[sources]`` into the columns ``columns`` of each
        row (None: nothing mapped); disarms the log."""
        sources = np.zeros(0, dtype=np.intp) if program is None else np.asarray(sources, dtype=np.intp)
        columns = np.zeros(0, dtype=np.intp) if program is None else np.asarray(columns, dtype=np.intp)
        if sources.shape != columns.shape or (columns.size and not (0 <= columns.min() and
                                                                     columns.max() < self.rows.shape[1])):
            raise ValueError("sources and columns must be index vectors of one size, columns within a row")
        if sources.size and not (0 <= sources.min() and (program is None or sources.max() < program.floats.size)):
            raise ValueError("sources must index the program's floats")
        # runs of consecutive sources into consecutive columns: (first source, first column, length)
        starts = np.flatnonzero(np.diff(sources, prepend=-2) != 1) if sources.size else sources
        starts = np.union1d(starts, np.flatnonzero(np.diff(columns, prepend=-2) != 1)).astype(np.intp)
        lengths = np.diff(np.append(starts, sources.size))
        ints = np.zeros(HEADER + 3 * starts.size, dtype=np.intp)
        ints[:HEADER] = self.ints[:HEADER]
        ints[RUNS] = starts.size
        ints[HEADER:] = np.column_stack([sources[starts], columns[starts], lengths]).ravel()
        self.ints, self.program, self.armed = ints, _NO_PROGRAM if program is None else program, False
        self.row_arrays = (self.rows, self.ints, self.program.floats)

    def arm(self, epoch: int, changes: int) -> None:
        """Cover the next steps of the solver at this configuration epoch and settings count
        (until the next multiple of the period)."""
        self.armed = self.count % int(self.ints[PERIOD]) != 0
        self.epoch, self.changes = epoch, changes

    def status_code(self, status: str) -> int:
        """The code of ``status`` (a new one is added to :attr:`statuses`)."""
        code = self._codes.get(status)
        if code is None:
            code = self._codes[status] = len(self.statuses)
            self.statuses.append(status)
        self.last_status, self.last_code = status, code
        return code

    def record(self, q, v, solution, seconds: float) -> None:
        """Write the step's row (see :func:`write_row`): the state as given, the solution's
        ``x``, status and iterations, the mapped entries, the time (a pending time of the
        previous row is settled before: :meth:`settle`); disarm at the period (an armed log
        stays armed otherwise; only :meth:`arm` arms it)."""
        q, v = state_vectors(q, v)
        status = solution.status
        if status is not self.last_status:
            self.status_code(status)
        if not _write_row(self.rows, self.ints, q, v, self.program.floats, solution.x, self.last_code,
                          solution.iterations, seconds, np.nan):
            self.armed = False

    def settle(self, seconds: float) -> None:
        """Fill in the last row's time when it is pending (see the module): ``seconds``, the
        time of the step that wrote it."""
        count = self.count
        if count:
            row = self.rows[(count - 1) % self.capacity]
            if np.isnan(row[MICROSECONDS]):
                row[MICROSECONDS] = 1e6 * seconds

    def record_failure(self, q, v, seconds: float) -> None:
        """Write the row of a step that raised: the state (NaN where it is not a vector of
        the robot's sizes), no ``x``, status −1, nothing mapped (the owner writes what the
        step was asked from the items themselves); disarms the log."""
        ints = self.ints[:HEADER].copy()
        ints[RUNS] = 0
        _write_row(self.rows, ints, _state(q, self.nq), _state(v, self.nv), _NO_FLOATS, _NO_FLOATS[:0], -1, 0, seconds,
                   np.nan)
        self.ints[COUNT], self.armed = ints[COUNT], False


def state_vectors(q, v) -> tuple[np.ndarray, np.ndarray]:
    """``q`` and ``v`` as float64 arrays (themselves when they are; the solver accepted them,
    so a float64 array is a vector of the robot's size)."""
    if type(q) is not _NDARRAY or type(v) is not _NDARRAY or q.dtype is not _FLOAT64 or v.dtype is not _FLOAT64:
        return float_vector(q), float_vector(v)
    return q, v


def _state(value, size: int) -> np.ndarray:
    """``value`` as a float vector of ``size`` entries, or NaNs when it is not one."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return np.full(size, np.nan)
    return array if array.shape == (size,) else np.full(size, np.nan)
