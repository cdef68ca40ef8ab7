"""A layout's assembly in one compiled call: the rows of the items whose kinds the library
compiles, from their parameters packed in one array.

:meth:`tsid_py.assembly.Layout.assemble` writes each item's rows with one call of the item's
own compiled writer (:mod:`tsid_py.row_writers`, :mod:`tsid_py.frames`, :mod:`tsid_py.contacts`,
:mod:`tsid_py.tasks.joint`): about ten calls for a humanoid's balance problem, each unboxing a
dozen or twenty arrays, which is most of an assembly's time. A :class:`StepProgram` makes the
same calls, with the same arithmetic, from one compiled function (:func:`run_program`): when
the layout is built it packs each such item's parameters (gains, targets, anchors, weights,
limits) into one float array and its indices into one int array, with a record per item
naming its writer and where its rows go. Each step it packs again the tasks' targets (public
arrays a user may edit in place), the contacts and torque tasks whose references were
replaced, every item after a setting was assigned (:data:`tsid_py.settings.CHANGES`), and
runs. The tasks' ``error`` and ``error_rate`` are views of the packed array.

The kinds: the equation of motion's rows, point and planar contacts (hard or soft), the CoM
task and the frame, position and orientation tasks (hard or soft), the posture task (soft:
the targets of its diagonal cost), the torque task (soft) and torque limits (hard). The
layout writes every other item in Python after the program ran; a step with overrides, a
robot on pinocchio's pass and a layout with levels, external wrenches, closures or passive
joints go the layout's general way.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import float64, intp, njit, types, void

from ._numba import ORDERED_MATH, compiled_function
from ._validation import _FLOAT64, as_vector
from .constraints.limits import TorqueLimits
from .contacts import PlanarContact, PointContact, contact_rows_inline
from .frames import frame_pd_rows_inline
from .rigid_body import outputs
from .row_writers import (affine_bound_rows_inline, affine_target_rows_inline, desired_acceleration,
                          dynamics_rows_inline, pd_rows_inline)
from .settings import CHANGES, settings_assigned
from .tasks.com import CoMTask
from .tasks.effort import TorqueTask
from .tasks.frame import FrameTask, OrientationTask, PositionTask
from .tasks.joint import JointTask, joint_error

#: Record kinds, one per writer.
DYNAMICS, CONTACT, COM, FRAME, POSTURE, TORQUE_ROWS, TORQUE_LIMITS = range(7)

#: Fields of a record: kind, float offset, int offset, rows' buffer (0: ``A, b``; 1: the soft
#: rows ``A_soft, b_soft``; 2: ``C, l, u``), first row, row count, then two per kind.
KIND, FLOATS, INTS, TARGET, ROW, ROWS, EXTRA, EXTRA2, RECORD = range(9)

_PD_KINDS = (CoMTask, FrameTask, PositionTask, OrientationTask)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _rows_of(target, A, b, A_soft, b_soft, first, count, columns):
    """The ``count`` rows from ``first`` of ``A, b`` (target 0) or the soft rows (1), their
    first ``columns`` columns."""
    if target == 0:
        return A[first:first + count, :columns], b[first:first + count]
    return A_soft[first:first + count, :columns], b_soft[first:first + count]


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _contact(record, ints, floats, J, dJ, rotations, translations, v, D, A, b, A_soft, b_soft, root, nv):
    """A contact's columns of ``D`` and of the root rows, and its no-slip rows (scaled by its
    soft √weight when it has one): :func:`~tsid_py.contacts.contact_rows`."""
    f, i, size, column = record[FLOATS], record[INTS], record[EXTRA], record[EXTRA2]
    frame, first_row, selects, count = ints[i], ints[i + 1], ints[i + 2] != 0, ints[i + 3]
    kp, kd, scale = floats[f], floats[f + 1], floats[f + 2]
    generator = floats[f + 15:f + 15 + 6 * size].reshape((6, size))
    scratch = f + 15 + 6 * size
    jacobian = floats[scratch:scratch + 6 * nv].reshape((6, nv))
    matrix, vector = _rows_of(record[TARGET], A, b, A_soft, b_soft, record[ROW], record[ROWS], nv)
    contact_rows_inline(J, dJ, ints[i + 4:i + 4 + count], translations[frame], rotations[frame], v, kp, kd,
                        floats[f + 3:f + 6], floats[f + 6:f + 15].reshape((3, 3)), first_row, generator, selects,
                        jacobian, floats[scratch + 6 * nv:scratch + 6 * nv + 6], D[:, column:column + size],
                        A[:root, column:column + size], matrix, vector)
    if scale != 1.0:
        for r in range(matrix.shape[0]):
            for c in range(nv):
                matrix[r, c] *= scale
            vector[r] *= scale


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _pd_task(record, ints, floats, J, dJ, rotations, translations, com, com_velocity, com_drift, com_jacobian, v,
             A, b, A_soft, b_soft, nv):
    """A CoM or frame task's rows: :func:`~tsid_py.row_writers.pd_rows` from the CoM terms, or
    :func:`~tsid_py.frames.frame_pd_rows` from the frame's sources."""
    f, i, dim, size = record[FLOATS], record[INTS], record[EXTRA], record[ROWS]
    translation_ref, rotation_ref = floats[f:f + 3], floats[f + 3:f + 12].reshape((3, 3))
    velocity_ref, acceleration_ref = floats[f + 12:f + 12 + dim], floats[f + 12 + dim:f + 12 + 2 * dim]
    kp, kd = floats[f + 12 + 2 * dim:f + 12 + 3 * dim], floats[f + 12 + 3 * dim:f + 12 + 4 * dim]
    error, error_rate = floats[f + 12 + 4 * dim:f + 12 + 5 * dim], floats[f + 12 + 5 * dim:f + 12 + 6 * dim]
    scale = floats[f + 12 + 6 * dim:f + 12 + 6 * dim + size]
    kept = ints[i:i + size]
    matrix, vector = _rows_of(record[TARGET], A, b, A_soft, b_soft, record[ROW], size, nv)
    if record[KIND] == COM:
        for a in range(3):
            error[a] = translation_ref[a] - com[a]
        pd_rows_inline(com_jacobian, v, com_drift, error, 0, kept, scale, acceleration_ref, velocity_ref, kp, kd,
                       matrix, vector, error_rate)
        return
    frame, local, first_row, count = ints[i + size], ints[i + size + 1] != 0, ints[i + size + 2], ints[i + size + 3]
    scratch = f + 12 + 6 * dim + size
    frame_pd_rows_inline(J, dJ, ints[i + size + 4:i + size + 4 + count], translations[frame], rotations[frame], v,
                         translation_ref, rotation_ref, local, first_row, kept, scale, acceleration_ref, velocity_ref,
                         kp, kd, floats[scratch:scratch + 6 * nv].reshape((6, nv)),
                         floats[scratch + 6 * nv:scratch + 6 * nv + 6], error, error_rate, matrix, vector)


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def _posture(record, ints, floats, q, v, e):
    """The posture task's PD law into the diagonal cost's targets ``e``, as
    :func:`~tsid_py.tasks.joint.joint_targets` forms it."""
    f, i, dim, size = record[FLOATS], record[INTS], record[EXTRA], record[ROWS]
    position_ref, velocity_ref = floats[f:f + dim], floats[f + dim:f + 2 * dim]
    acceleration_ref, kp = floats[f + 2 * dim:f + 3 * dim], floats[f + 3 * dim:f + 4 * dim]
    kd, error, error_rate = floats[f + 4 * dim:f + 5 * dim], floats[f + 5 * dim:f + 6 * dim], \
        floats[f + 6 * dim:f + 7 * dim]
    weight = floats[f + 7 * dim:f + 7 * dim + size]
    q_index, v_index, continuous = ints[i:i + dim], ints[i + dim:i + 2 * dim], ints[i + 2 * dim:i + 3 * dim]
    kept, columns = ints[i + 3 * dim:i + 3 * dim + size], ints[i + 3 * dim + size:i + 3 * dim + 2 * size]
    for a in range(dim):
        k = q_index[a]
        error[a] = joint_error(position_ref[a], q[k], q[min(k + 1, q.size - 1)], continuous[a] != 0)
        error_rate[a] = velocity_ref[a] - v[v_index[a]]
    for j in range(size):
        e[columns[j]] += weight[j] * desired_acceleration(acceleration_ref, kp, error, kd, error_rate, kept[j])


_RECORDS, _INTS, _FLOATS, _ROWS2 = intp[:, ::1], intp[::1], float64[::1], float64[:, ::1]


@njit(void(_RECORDS, _INTS, _FLOATS, _FLOATS, intp, intp, float64[::1], float64[::1], _ROWS2, _ROWS2, _FLOATS,
           _ROWS2, _FLOATS, _FLOATS, _ROWS2, _FLOATS, _FLOATS), cache=True, fastmath=ORDERED_MATH, _nrt=False)
def run_program(records, ints, floats, robot, nv, frames, q, v, D, A, b, A_soft, b_soft, e, C, l, u):
    """Every record's writer, in order, from the robot's pass outputs ``robot``
    (:func:`tsid_py.rigid_body.outputs`, ``nv`` velocities and ``frames`` frames) and state
    ``(q, v)``, into the layout's buffers: ``D``, the equalities ``A, b``, the soft rows
    ``A_soft, b_soft``, the diagonal cost's targets ``e`` (zeroed first) and the inequality
    rows ``C, l, u``."""
    M, h, J, dJ, com, com_velocity, com_drift, com_jacobian, _, _, _, rotations, translations = outputs(
        robot, nv, frames)
    root = 0
    for k in range(e.size):
        e[k] = 0.0
    torque_rows = records[0, EXTRA2]          # τ_a = D[r:] x + h[r:]: the rows below a floating root
    for r in range(records.shape[0]):
        record = records[r]
        kind = record[KIND]
        if kind == DYNAMICS:
            root = record[EXTRA]
            dynamics_rows_inline(M, h, D[:, :nv], A[:root, :nv], b[:root])
        elif kind == CONTACT:
            _contact(record, ints, floats, J, dJ, rotations, translations, v, D, A, b, A_soft, b_soft, root, nv)
        elif kind == COM or kind == FRAME:
            _pd_task(record, ints, floats, J, dJ, rotations, translations, com, com_velocity, com_drift, com_jacobian,
                     v, A, b, A_soft, b_soft, nv)
        elif kind == POSTURE:
            _posture(record, ints, floats, q, v, e)
        elif kind == TORQUE_ROWS:
            f, i, size = record[FLOATS], record[INTS], record[ROWS]
            matrix, vector = _rows_of(record[TARGET], A, b, A_soft, b_soft, record[ROW], size, D.shape[1])
            affine_target_rows_inline(D[torque_rows:], h[torque_rows:], ints[i:i + size], floats[f:f + size],
                                      floats[f + size:f + 2 * size], matrix, vector)
        elif kind == TORQUE_LIMITS:
            f, i, size, first = record[FLOATS], record[INTS], record[ROWS], record[ROW]
            affine_bound_rows_inline(D[torque_rows:], h[torque_rows:], ints[i:i + size], floats[f:f + size],
                                     floats[f + size:f + 2 * size], C[first:first + size], l[first:first + size],
                                     u[first:first + size])


_ANY1, _ANY2 = types.Array(float64, 1, "A", readonly=True), types.Array(float64, 2, "A", readonly=True)


@njit(void(_FLOATS, intp, _ANY1, _ANY2, _ANY1, _ANY1), cache=True, _nrt=False)
def pack_targets(floats, offset, position, rotation, velocity, acceleration):
    """``floats[offset:]`` = the position (3 for a frame's translation or the CoM, else dim),
    the rotation's 9 entries (none for a task without one), the velocity and the
    acceleration references, one after the other."""
    k = offset
    for a in range(position.size):
        floats[k] = position[a]
        k += 1
    for r in range(rotation.shape[0]):
        for c in range(rotation.shape[1]):
            floats[k] = rotation[r, c]
            k += 1
    for a in range(velocity.size):
        floats[k] = velocity[a]
        floats[k + velocity.size] = acceleration[a]
        k += 1


_run, _pack = compiled_function(run_program), compiled_function(pack_targets)
#: The kinds whose targets are packed at every step (one compiled copy of a few numbers each):
#: tasks' references are public arrays a user may edit in place.
_TARGETS_READ_EACH_STEP = (COM, FRAME, POSTURE)
_NO_ROTATION, _UNUSED_ROTATION = np.zeros((0, 0)), np.zeros((3, 3))


def _packable(task, given: tuple, position_size: int) -> tuple:
    """A CoM or posture task's ``(position_ref, velocity_ref, acceleration_ref)`` as the
    compiled copy reads them: ``given`` itself when each is a float64 vector of its size (the
    common case: :func:`~tsid_py._validation.as_vector`'s fast path without its finiteness
    test, which ``set_target`` made); else :func:`~tsid_py._validation.as_vector`'s float
    copies (a list or an integer array assigned: made again each step) or its ``ValueError``
    naming the attribute."""
    p, v, a = given
    dim = task.dim
    if (type(p) is np.ndarray and type(v) is np.ndarray and type(a) is np.ndarray and p.dtype is _FLOAT64
            and v.dtype is _FLOAT64 and a.dtype is _FLOAT64 and p.ndim == v.ndim == a.ndim == 1
            and p.size == position_size and v.size == dim and a.size == dim):
        return given
    return tuple(as_vector(value, f"{task.name}.{name}", size) for name, value, size in
                 zip(("position_ref", "velocity_ref", "acceleration_ref"), given, (position_size, dim, dim)))


def _first_row(view: np.ndarray, parent: np.ndarray) -> int:
    """The row of ``parent`` where the view ``view`` (of whole rows' leading columns) starts."""
    if view.shape[0] == 0:
        return 0
    return (view.__array_interface__["data"][0] - parent.__array_interface__["data"][0]) // parent.strides[0]


class _Item:
    """One packed item: its record and offsets, the array whose identity tells that its
    targets were replaced (``watch``: its name, and the array last packed), and a task's error
    buffers as the program pointed them (another layout's program, with the same task, points
    them at its own floats when it runs)."""

    def __init__(self, item, kind: int, watch: str | None):
        self.item, self.kind, self.watch, self.seen = item, kind, watch, None
        self.changes = 0                        # the item's settings_assigned when packed
        self.record = np.zeros(RECORD, dtype=np.intp)
        self.record[KIND] = kind
        self.buffers = None                     # a task's error buffers, as the program pointed them
        self.given = self.packable = None       # a task's reference arrays, and as they are packed


class StepProgram:
    """The compiled part of one layout's assembly (see the module); :meth:`of` builds it when
    the layout has anything for it, :meth:`run` is the step."""

    def __init__(self, layout, items: list[_Item]):
        robot = layout.robot
        self.layout, self.items, self.robot = layout, items, robot
        self.watched = [entry for entry in items if entry.watch is not None]
        #: The watched entries whose targets are packed at every step, and the others.
        self.packed_each_step = [entry for entry in self.watched if entry.kind in _TARGETS_READ_EACH_STEP]
        self.packed_on_change = [entry for entry in self.watched if entry.kind not in _TARGETS_READ_EACH_STEP]
        self.records = np.array([entry.record for entry in items], dtype=np.intp).reshape(len(items), RECORD)
        self.changes = -1
        self._pack_all()

    @classmethod
    def of(cls, layout) -> "StepProgram | None":
        """The program of ``layout``'s compiled items (with the equation of motion's rows first),
        or None for a robot on pinocchio's pass, a layout with levels, external wrenches,
        closures or passive joints."""
        from .dynamics_pass import CompiledPass

        if (not isinstance(layout.robot.dynamics, CompiledPass) or layout.levels or layout.external_wrenches
                or layout.closures or layout.passive.size):
            return None                        # (the program's bias is the pass's h; no closure rows)
        items = [_Item(None, DYNAMICS, None)]
        items[0].record[EXTRA] = layout.root_rows.shape[0]
        items[0].record[EXTRA2] = 6 if layout.floating else 0
        for contact, _, _, matrix, _, soft_scale in layout.contact_views:
            if type(contact) not in (PointContact, PlanarContact) or contact.name in layout.softened:
                return None                        # the tasks read D's force columns: all or none
            items.append(cls._contact(layout, contact, matrix, soft_scale))
        rest = SimpleNamespace(hard=[], soft=[], linear=[])
        for views, target, others in ((layout.hard_task_views, 0, rest.hard), (layout.soft_task_views, 1, rest.soft)):
            for task, matrix, vector in views:
                entry = None
                if type(task) in _PD_KINDS:
                    entry = cls._pd_task(layout, task, matrix, target)
                elif type(task) is TorqueTask and target == 1:
                    entry = cls._torque_task(layout, task, matrix)
                if entry is None:
                    others.append((task, matrix, vector))
                else:
                    items.append(entry)
        postures = [task for task in layout.diagonal_tasks if type(task) is JointTask]
        items += [cls._posture(layout, task) for task in postures]
        for constraint, matrix, lower, upper in layout.linear_views:
            if type(constraint) is TorqueLimits:
                entry = _Item(constraint, TORQUE_LIMITS, None)
                entry.record[TARGET], entry.record[ROW], entry.record[ROWS] = 2, _first_row(matrix, layout.C), \
                    constraint.effort.size
                items.append(entry)
            else:
                rest.linear.append((constraint, matrix, lower, upper))
        program = cls(layout, items)
        #: The items the layout writes itself (their own writers), after the program ran.
        program.python = rest
        return program

    # ------------------------------------------------------------------ the items' records
    @staticmethod
    def _contact(layout, contact, matrix, soft_scale) -> _Item:
        entry = _Item(contact, CONTACT, "anchor")
        record = entry.record
        record[TARGET] = 0 if soft_scale is None else 1
        record[ROW] = _first_row(matrix, layout.A if soft_scale is None else layout.A_soft)
        record[ROWS], record[EXTRA], record[EXTRA2] = matrix.shape[0], contact.size, layout.columns[contact.name].start
        return entry

    @staticmethod
    def _pd_task(layout, task, matrix, target) -> _Item:
        entry = _Item(task, COM if type(task) is CoMTask else FRAME, "acceleration_ref")
        record = entry.record
        record[TARGET], record[ROW] = target, _first_row(matrix, layout.A if target == 0 else layout.A_soft)
        record[ROWS], record[EXTRA] = task.size, task.dim
        return entry

    @staticmethod
    def _torque_task(layout, task, matrix) -> _Item:
        entry = _Item(task, TORQUE_ROWS, "torque_ref")
        entry.record[TARGET], entry.record[ROW], entry.record[ROWS] = 1, _first_row(matrix, layout.A_soft), task.size
        return entry

    @staticmethod
    def _posture(layout, task) -> _Item:
        entry = _Item(task, POSTURE, "acceleration_ref")
        entry.record[ROWS], entry.record[EXTRA] = task.size, task.dim
        return entry

    # ------------------------------------------------------------------ packing
    def _parameters(self, entry: _Item) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The item's float and int parameters, in the order its writer reads them (the
        item's own ``packed_parameters``)."""
        item, kind, nv = entry.item, entry.kind, self.robot.nv
        if kind == DYNAMICS:
            return [], []
        if kind == CONTACT:
            return item.packed_parameters(self._soft_scale(item), nv)
        if kind == TORQUE_LIMITS:
            return item.packed_parameters()
        return item.packed_parameters(entry.record[TARGET] == 1 or kind == POSTURE, nv)

    def _soft_scale(self, contact) -> float:
        """The √weight a soft contact's rows are scaled by in this layout (1: hard)."""
        views = [view for view in self.layout.contact_views if view[0] is contact]
        return 1.0 if views[0][5] is None else float(views[0][5])

    def _pack_all(self) -> None:
        """Pack every item's parameters (at the build, and after a setting changed), point
        the tasks' errors at their packed buffers and note the targets packed."""
        floats, ints = [], []
        f = i = 0
        for entry in self.items:
            float_parts, int_parts = self._parameters(entry)
            entry.record[FLOATS], entry.record[INTS] = f, i
            floats += [np.asarray(part, dtype=float).ravel() for part in float_parts]
            ints += [np.asarray(part, dtype=np.intp).ravel() for part in int_parts]
            f += sum(part.size for part in floats[len(floats) - len(float_parts):])
            i += sum(part.size for part in ints[len(ints) - len(int_parts):])
        self.floats = np.concatenate([*floats, np.zeros(1)])
        self.ints = np.concatenate([*ints, np.zeros(1, dtype=np.intp)])
        self.records = np.array([entry.record for entry in self.items], dtype=np.intp).reshape(len(self.items), RECORD)
        for entry in self.items:
            if entry.kind in (COM, FRAME, POSTURE):
                self._point_errors(entry)
            if entry.watch is not None:
                entry.seen = getattr(entry.item, entry.watch)
            if entry.item is not None:
                entry.changes = settings_assigned(entry.item)
        postures = {entry.item for entry in self.items if entry.kind == POSTURE}
        #: Per diagonal task of the layout: the ``(columns, w)`` of the postures the program
        #: writes the targets of, None for the others.
        self.diagonal = [self._diagonal_cost(task) if task in postures else None for task in self.layout.diagonal_tasks]
        self.changes = CHANGES[0]

    def _diagonal_cost(self, task):
        """A posture task's ``(columns, w)`` (its own :meth:`~tsid_py.tasks.JointTask.diagonal`,
        its targets added into a scratch vector)."""
        return task.diagonal(self.layout.context, np.zeros(self.layout.n))

    def _point_errors(self, entry: _Item) -> None:
        """The task's ``error`` and ``error_rate`` (and the buffers its own writer fills) are
        views of the packed floats."""
        task, f, dim = entry.item, entry.record[FLOATS], entry.item.dim
        start = f + (12 + 4 * dim if entry.kind in (COM, FRAME) else 5 * dim)
        error, rate = self.floats[start:start + dim], self.floats[start + dim:start + 2 * dim]
        task.error_buffers = entry.buffers = (error, rate)
        task.error, task.error_rate = error, rate

    def _pack_targets(self, entry: _Item) -> None:
        """Pack a task's targets anew (or a contact's anchor, a torque task's reference)."""
        item, f = entry.item, entry.record[FLOATS]
        if entry.kind == FRAME:                   # copies the task made from a checked target
            translation, rotation, velocity, acceleration = item.target_arrays()
            _pack(self.floats, f, translation, rotation, velocity, acceleration)
            return
        if entry.kind in (COM, POSTURE):
            given, known = (item.position_ref, item.velocity_ref, item.acceleration_ref), entry.given
            if (known is None or entry.packable is not known or given[0] is not known[0]
                    or given[1] is not known[1] or given[2] is not known[2]):
                entry.given, entry.packable = given, _packable(item, given, 3 if entry.kind == COM else item.dim)
            position, velocity, acceleration = entry.packable
            _pack(self.floats, f, position, _UNUSED_ROTATION if entry.kind == COM else _NO_ROTATION, velocity,
                  acceleration)
            return
        self._pack_all()                          # a contact anchored anew, a torque target: rare

    def target_columns(self, task) -> np.ndarray | None:
        """Where :meth:`run` packs ``task``'s targets each step: the indices into ``floats``
        of :meth:`~tsid_py.tasks.Task.target_arrays`'s entries, one after the other (a
        matrix's row by row), as :func:`pack_targets` lays them out; None for a task whose
        targets the program does not pack each step. Valid until ``floats`` is replaced."""
        for entry in self.watched:
            if entry.item is task and entry.kind in _TARGETS_READ_EACH_STEP:
                arrays = task.target_arrays()
                if len(arrays) != (4 if entry.kind == FRAME else 3):
                    return None                      # (a position that is not an array)
                f, position = entry.record[FLOATS], arrays[0].size
                rotation = 0 if entry.kind == POSTURE else 9     # the CoM's 9 zeros: not a target
                rates = sum(array.size for array in arrays[-2:])
                kept = [np.arange(f, f + position),
                        np.arange(f + position, f + position + rotation) if entry.kind == FRAME else np.zeros(0, int),
                        np.arange(f + position + rotation, f + position + rotation + rates)]
                return np.concatenate(kept).astype(np.intp)
        return None

    def _settings_changed(self) -> bool:
        """Whether a setting of one of the items changed (some setting somewhere did)."""
        self.changes = CHANGES[0]
        return any(settings_assigned(entry.item) != entry.changes for entry in self.items if entry.item is not None)

    # ------------------------------------------------------------------ the step
    def write(self, context) -> None:
        """The layout's rows for a step without overrides: the compiled items in one call
        (:meth:`run`), then the other items' own writers and the diagonal costs."""
        layout = self.layout
        context.dynamics_written = True
        self.run(layout.D, layout.A, layout.b, layout.A_soft, layout.b_soft, layout.cost_diagonal_targets, layout.C,
                 layout.l, layout.u)
        self.write_others(context)

    def write_others(self, context) -> None:
        """After the compiled rows: the other items' own writers (hard tasks, soft tasks), the
        diagonal costs, the other constraints' rows — in :meth:`write`'s order."""
        layout, rest = self.layout, self.python
        for task, matrix, vector in rest.hard:
            task.write_rows(context, matrix, vector, weighted=False)
        for task, matrix, vector in rest.soft:
            task.write_rows(context, matrix, vector, weighted=True)
        layout.fill_diagonal_costs(context, None, self.diagonal)
        for constraint, matrix, lower, upper in rest.linear:
            constraint.write_rows(context, matrix, lower, upper)

    # ------------------------------------------------------------------ a steady step
    def unchanged(self) -> bool:
        """Whether :meth:`run` would pack nothing but the tasks' targets now: no setting
        assigned since the last run, no watched array replaced, the tasks' error buffers
        still this program's (a steady step's test, :mod:`tsid_py.solver_steady`)."""
        if CHANGES[0] != self.changes:
            return False
        for entry in self.packed_on_change:
            if getattr(entry.item, entry.watch) is not entry.seen:
                return False
        for entry in self.packed_each_step:
            if entry.buffers is not None and entry.item.error_buffers is not entry.buffers:
                return False
        return True

    def run_steady(self, arguments: tuple) -> None:
        """:meth:`run` when :meth:`unchanged`: the targets packed, then the compiled rows on
        ``arguments`` (:meth:`arguments`' tuple, made while ``floats`` is the same array)."""
        for entry in self.packed_each_step:
            self._pack_targets(entry)
        _run(*arguments)

    def arguments(self, D, A, b, A_soft, b_soft, e, C, l, u) -> tuple:
        """:func:`run_program`'s arguments for these buffers (the robot's and the packed ones)."""
        robot, dynamics = self.robot, self.robot.dynamics
        return (self.records, self.ints, self.floats, dynamics.buffer, robot.nv, dynamics.frame_parents.size, robot.q,
                robot.v, D, A, b, A_soft, b_soft, e, C, l, u)

    def run(self, D, A, b, A_soft, b_soft, e, C, l, u) -> None:
        """The compiled items' rows at the robot's last update (see the module)."""
        if CHANGES[0] != self.changes and self._settings_changed():
            self._pack_all()
        else:
            for entry in self.watched:
                item = entry.item
                if entry.kind in _TARGETS_READ_EACH_STEP:
                    self._pack_targets(entry)       # a target edited in place is seen
                elif getattr(item, entry.watch) is not entry.seen:
                    entry.seen = getattr(item, entry.watch)
                    self._pack_targets(entry)
                if entry.buffers is not None and item.error_buffers is not entry.buffers:
                    self._point_errors(entry)      # another layout's program ran with the task
        _run(*self.arguments(D, A, b, A_soft, b_soft, e, C, l, u))

