"""The QP of one control step: its layout (sizes, buffers, row labels), assembly and extraction.

Variables ``x = [q̈ (nv); f_1; …; f_k; λ_1; …; λ_c]`` with each contact's variables in its
own frame's axes and each closure's forces after them (:mod:`tsid_py.closures`). With
``D = [M, −J_1ᵀG_1, …, −J_kᵀG_k, −J_c1ᵀ, …]`` (LOCAL contact Jacobians and force generators,
the closures' Jacobians) the equation of motion reads ``D x + h = Sᵀτ``:

* floating base: ``D[:6] x = −h[:6]`` (equalities), and ``τ_a = D[6:] x + h[6:]``;
* fixed base: ``τ = D x + h``;
* a passive joint ``j`` (no motor): ``D[j] x = −h[j]`` (an equality, ``τ_j = 0``).

A closure's rows ``J_c q̈ = −J̇_c v − Kd J_c v − Kp c`` are equalities. A layout without
closures and passive joints (the usual problem) has neither and assembles as before.

So τ is linear in x, ``τ_a = T x + t``, and torque tasks and limits are rows in x. Known
external wrenches (:mod:`tsid_py.external_wrenches`) are data: ``h`` above is then the
effective bias ``h − Σ_k J_kᵀ w_k``, formed at each assembly. The
order of a step's assembly is fixed here: the equation of motion's rows (``D`` and the root
equalities) and the contacts' columns first, then the tasks and constraints, which may read
``T`` and ``t`` (:meth:`~tsid_py.rows.StepContext.torque_map` refuses before).

A :class:`Layout` is built from the robot, the control period, the contacts, tasks,
constraints and regularisation tasks, the root mode and the hard contacts a step softens
(:mod:`tsid_py.overrides`); it never calls back into a solver. :meth:`Layout.assemble`
writes one step's :class:`~tsid_py.qp.QP` into buffers it reuses, applying that step's
overrides, and :meth:`Layout.extract` turns a backend's answer into a
:class:`~tsid_py.Solution`.

Items at a priority level ``1, 2, …`` (and soft constraints) go to the level blocks of
:mod:`tsid_py.levels`, written after the rest; a layout without any (the default problem)
has none and assembles exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .closures import Closure
from .constraints.base import AccelerationBounds, Constraint, LinearConstraint
from .assembly_program import StepProgram
from .contacts import Contact
from .external_wrenches import ExternalWrench
from .levels import RELAXED, LevelBlock, describe as _describe, levelled_blocks, motion_row_count, row_views
from .overrides import StepOverrides
from .qp import QP, LeastSquaresCost
from .refill import Refill, torques
from .robot import Robot
from .row_writers import direct
from .rows import StepContext
from .solution import Solution
from .tasks.base import DiagonalTask, Task


class Layout:
    """Sizes, column slices, constant blocks, preallocated buffers and row labels of the QP
    for one set of contacts, tasks and constraints; rebuilt when that set changes.

    Parameters
    ----------
    robot : the robot whose state each :meth:`assemble` reads (update it first).
    dt : control period, s (read by velocity and position limits).
    contacts, tasks, constraints : the items, already bound to ``robot``.
    regularization : soft tasks added to the cost (the solver's small regularisation).
    root_equalities : on a floating base, hold the 6 root rows of the equation of motion
        as equalities (``tau[:6] == 0``); False leaves them free (the "crane" wrench).
    softened : names of hard contacts whose no-slip rows are costs in this layout (the steps
        that soften them pass the weights in their :class:`~tsid_py.overrides.StepOverrides`).
    external_wrenches : known wrenches (:class:`~tsid_py.external_wrenches.ExternalWrench`,
        bound to ``robot``) moved into the bias at each assembly.
    closures : the mechanism's closures, bound to ``robot`` (their forces are variables).
    passive : the velocity indices of the joints held at ``τ = 0``.

    :meth:`assemble` writes into the same buffers every step, so the returned :class:`QP`
    is valid until the next call.
    """

    def __init__(self, robot: Robot, dt: float, contacts: Sequence[Contact] = (), tasks: Sequence[Task] = (),
                 constraints: Sequence[Constraint] = (), regularization: Sequence[Task] = (),
                 root_equalities: bool = True, softened: frozenset = frozenset(),
                 external_wrenches: Sequence[ExternalWrench] = (), closures: Sequence[Closure] = (),
                 passive: Sequence[int] = ()):
        self.robot = robot
        self.softened = frozenset(softened)
        nv = robot.nv
        self.floating = robot.floating_base
        self.root_equalities = robot.floating_base and bool(root_equalities)
        self.contacts = list(contacts)
        columns, start = {}, nv
        for contact in self.contacts:
            columns[contact.name] = slice(start, start + contact.size)
            start += contact.size
        self.closures = list(closures)
        #: The closures' force columns in x, by closure name (after the contacts').
        self.closure_columns = {}
        for closure in self.closures:
            self.closure_columns[closure.name] = slice(start, start + closure.size)
            start += closure.size
        #: The passive joints' velocity indices (their τ is held at 0).
        self.passive = np.array(sorted(set(int(i) for i in passive)), dtype=np.intp)
        self.n = n = start
        self.nv = nv
        self.columns = columns
        #: Per contact: its name, columns, local-wrench map and (a view of) its frame's rotation.
        self.wrench_sources = [(contact.name, columns[contact.name], contact.local_wrench,
                                robot.frame_rotation(contact.frame_id)) for contact in self.contacts]
        self.context = StepContext(robot=robot, dt=dt, n=n, nv=nv, contact_columns=columns,
                                   contacts={contact.name: contact for contact in self.contacts},
                                   zero_nv=np.zeros(nv))
        self.D = np.zeros((nv, n))
        self.D_ddq = self.D[:, :nv]
        self.D_forces = [self.D[:, columns[contact.name]] for contact in self.contacts]
        self.external_wrenches = list(external_wrenches)
        #: ``h − Σ_k J_kᵀ w_k`` (nv,): pinocchio's bias itself (a view, refreshed by each update)
        #: without known wrenches, else the layout's buffer, formed by each :meth:`assemble`.
        self.bias = bias = np.zeros(nv) if self.external_wrenches else robot.bias
        if self.floating:
            self.context.torque_matrix, self.context.torque_offset = self.D[6:], bias[6:]
        else:
            self.context.torque_matrix, self.context.torque_offset = self.D, bias
        tasks = list(tasks)
        self.recording_tasks = [t for t in tasks if type(t).record is not Task.record]
        self.hard_tasks = [t for t in tasks if t.priority == "hard"]
        self.soft_tasks = [t for t in tasks + list(regularization) if t.priority == "soft"]
        self.diagonal_tasks = [t for t in self.soft_tasks if isinstance(t, DiagonalTask)]
        self.row_tasks = [t for t in self.soft_tasks if not isinstance(t, DiagonalTask)]
        constraints = list(constraints)
        self.bounds = [c for c in constraints if isinstance(c, AccelerationBounds) and c.priority == "hard"]
        self.linear = [c for c in constraints if isinstance(c, LinearConstraint) and c.priority == "hard"]
        self.kinematic = [c for c in self.contacts if c.kinematic]
        #: The priority levels' blocks (:mod:`tsid_py.levels`), in the order they are solved;
        #: empty for the default problem (hard rows and a cost).
        self.levels: list[LevelBlock] = levelled_blocks(self.context, tasks, self.kinematic, constraints,
                                                        self.softened)
        self.level_tasks = [task for block in self.levels for task in block.tasks]
        #: The softened hard contacts that make the first level (with levels; else they are soft).
        self.relaxed = frozenset(c.name for block in self.levels if block.priority == RELAXED
                                 for c in block.contact_rows)
        self.normal_columns = np.array([columns[c.name].start + c.normal_index for c in self.contacts], dtype=int)
        self.unilateral_columns = [(contact, int(column)) for contact, column in zip(self.contacts, self.normal_columns)
                                   if contact.unilateral]
        self.use_box = bool(self.contacts or self.bounds)
        self._build_equality_rows()
        self._build_soft_rows()
        self._build_inequality_rows()
        self._build_contact_views()
        self._refill: Refill | None = None      # how the last solution returned is refilled
        #: The compiled items' rows in one call (:mod:`tsid_py.assembly_program`), or None.
        self.program = StepProgram.of(self)

    @property
    def labels(self) -> dict[str, list[str]]:
        """What each row belongs to, for reports and the diagnosis: ``"equalities"`` (rows of
        ``A``), ``"inequalities"`` (rows of ``C``) and ``"box"`` (the box rows, in the order
        of :meth:`QP.bounded_variables`)."""
        box = [" / ".join(self.box_labels.get(int(i), ["variable bounds"])) for i in self.stacked[3]]
        return {"equalities": list(self.eq_labels), "inequalities": list(self.in_labels), "box": box}

    @property
    def levelled(self) -> bool:
        """Whether the QP has priority levels between its hard rows and its cost."""
        return bool(self.levels)

    def non_finite_sources(self) -> list[str]:
        """The items whose rows of the last :meth:`assemble` hold NaN or inf (bounds may be
        infinite, never NaN), for the error that names them; empty when all are finite."""
        sources = []
        if not (np.all(np.isfinite(self.robot.mass_matrix)) and np.all(np.isfinite(self.robot.bias))):
            sources.append("equation of motion (the robot's dynamics at this state)")
        blocks = [(self.A, self.b, self.eq_labels), (self.A_soft, self.b_soft, self.soft_labels),
                  (self.C, None, self.in_labels)]
        blocks += [arrays for block in self.levels for arrays in block.arrays()]
        for matrix, vector, labels in blocks:
            bad = ~np.all(np.isfinite(matrix), axis=1)
            if vector is not None:
                bad |= ~np.isfinite(vector)
            sources += [labels[row] for row in np.flatnonzero(bad)]
        bounds = np.isnan(self.l) | np.isnan(self.u)
        sources += [self.in_labels[row] for row in np.flatnonzero(bounds)]
        for block in self.levels:
            sources += [block.inequality_labels[row] for row in np.flatnonzero(np.isnan(block.l) | np.isnan(block.u))]
        if self.lb is not None:
            sources += [" / ".join(self.box_labels.get(int(i), ["variable bounds"]))
                        for i in np.flatnonzero(np.isnan(self.lb) | np.isnan(self.ub))]
        if not (np.all(np.isfinite(self.cost_diagonal)) and np.all(np.isfinite(self.cost_diagonal_targets))):
            sources += [f"task {task.name}" for task in self.diagonal_tasks]
        return list(dict.fromkeys(sources))

    # ------------------------------------------------------------------ buffers and labels
    def _build_equality_rows(self) -> None:
        """Row slices of ``A x = b``: root rows, hard no-slip rows, hard task rows."""
        slices, labels, row = [], [], 0
        if self.root_equalities:
            row = 6
            labels += ["equation of motion (floating base)"] * 6
        passive_rows = slice(row, row + self.passive.size)
        names = {self.robot.joint_v_index(name): name for name in self.robot.scalar_joint_names}
        labels += [f"equation of motion (passive joint {names.get(int(i), i)})" for i in self.passive]
        row += self.passive.size
        for contact in self.kinematic:
            if self._is_hard(contact):
                size = motion_row_count(contact)
                slices.append((contact, slice(row, row + size)))
                labels += [_describe(contact)] * size
                row += size
        closure_rows = []
        for closure in self.closures:
            closure_rows.append(slice(row, row + closure.size))
            labels += [f"closure {closure.name}"] * closure.size
            row += closure.size
        for task in self.hard_tasks:
            slices.append((task, slice(row, row + task.size)))
            labels += [_describe(task)] * task.size
            row += task.size
        self.eq_labels = labels
        self.A = np.zeros((row, self.n))
        self.b = np.zeros(row)
        # A[:r] = D[:r] and b[:r] = −h[:r] for the r = 6 root rows held as equalities (r = 0 else),
        # written with D: its q̈ columns with M, its force columns by the contacts.
        root = 6 if self.root_equalities else 0
        self.root_rows, self.root_rhs = self.A[:root, : self.nv], self.b[:root]
        self.root_force_blocks = [self.A[:root, self.columns[contact.name]] for contact in self.contacts]
        # The closures' columns of D and their rows; their columns of the root rows are copied
        # from D; the passive joints' rows are D's rows, gathered (A[p] = D[j], b[p] = −h[j]).
        self.closure_views = [(closure, self.D[:, self.closure_columns[closure.name]], self.A[rows, : self.nv],
                               self.b[rows]) for closure, rows in zip(self.closures, closure_rows)]
        forces = slice(self.nv + sum(c.size for c in self.contacts), self.n)
        self.root_closure_blocks = (self.A[:root, forces], self.D[:root, forces])
        self.passive_rows, self.passive_rhs = self.A[passive_rows], self.b[passive_rows]
        views = [(owner, *row_views(self.A, self.b, rows, owner, self.nv)) for owner, rows in slices]
        self.hard_contact_views = [view for view in views if isinstance(view[0], Contact)]
        self.hard_task_views = [view for view in views if not isinstance(view[0], Contact)]

    def _build_soft_rows(self) -> None:
        """Row slices of the stacked soft costs ``||√W (A x − b)||²``."""
        slices, row = [], 0
        for owner in self.row_tasks + [c for c in self.kinematic if self._is_soft(c)]:
            size = owner.size if isinstance(owner, Task) else motion_row_count(owner)
            slices.append((owner, slice(row, row + size)))
            row += size
        self.A_soft = np.zeros((row, self.n))
        self.b_soft = np.zeros(row)
        self.soft_labels = [label for owner, rows in slices
                            for label in [_describe(owner)] * (rows.stop - rows.start)]
        views = [(owner, *row_views(self.A_soft, self.b_soft, rows, owner, self.nv)) for owner, rows in slices]
        self.soft_contact_views = [view for view in views if isinstance(view[0], Contact)]
        self.soft_task_views = [view for view in views if not isinstance(view[0], Contact)]
        self.cost_diagonal = np.zeros(self.n)
        self.cost_diagonal_targets = np.zeros(self.n)
        self._diagonal_weights = None         # the weight arrays d was built from
        self._diagonal_entries = [None] * len(self.diagonal_tasks)     # this step's (columns, weights)
        self.cost = LeastSquaresCost(self.A_soft, self.b_soft, self.cost_diagonal, self.cost_diagonal_targets)

    def _build_inequality_rows(self) -> None:
        """Constant friction rows first, then the linear constraints' rows (sized once at the
        current state); the box on q̈ and the normal forces; labels for the diagnosis."""
        context = self.context
        friction, labels = [], []
        for contact in self.contacts:
            block = np.zeros((contact.friction_matrix.shape[0], self.n))
            block[:, self.columns[contact.name]] = contact.friction_matrix
            friction.append(block)
            labels += [f"contact {contact.name}: {label}" for label in contact.row_labels]
        friction_rows = sum(len(block) for block in friction)
        slices, row = [], friction_rows
        for constraint in self.linear:
            size = constraint.row_count(context)
            slices.append((constraint, slice(row, row + size)))
            labels += [constraint.name] * size
            row += size
        self.in_labels = labels
        self.lb = np.full(self.n, -np.inf) if self.use_box else None
        self.ub = np.full(self.n, np.inf) if self.use_box else None
        self.box_labels = {}
        for constraint in self.bounds:
            for i in constraint.acceleration_bounds(context)[0]:
                self.box_labels.setdefault(int(i), []).append(constraint.name)
        for contact, column in self.unilateral_columns:
            self.box_labels[column] = [f"contact {contact.name}: normal force bounds"]
        # The rows and, after them, the box as unit rows: the stacked form backends use.
        box_columns = np.array(sorted(self.box_labels), dtype=int)
        self.C_stacked = np.zeros((row + box_columns.size, self.n))
        self.C_stacked[np.arange(row, row + box_columns.size), box_columns] = 1.0
        self.l_stacked = np.full(row + box_columns.size, -np.inf)
        self.u_stacked = np.zeros(row + box_columns.size)
        self.stacked = (self.C_stacked, self.l_stacked, self.u_stacked, box_columns)
        self.C, self.l, self.u = self.C_stacked[:row], self.l_stacked[:row], self.u_stacked[:row]
        self.linear_views = [(constraint, self.C[rows], self.l[rows], self.u[rows]) for constraint, rows in slices]
        #: The QP over these buffers, handed out by every :meth:`assemble`.
        self.qp = QP(None, None, self.A, self.b, self.C, self.l, self.u, self.lb, self.ub, cost=self.cost,
                     stacked=self.stacked if self.use_box else None, levels=[block.level for block in self.levels])
        if friction:
            self.C[:friction_rows] = np.vstack(friction)

    def _is_hard(self, contact: Contact) -> bool:
        """Whether the contact's no-slip rows are equalities in this layout."""
        return contact.priority == "hard" and contact.name not in self.softened

    def _is_soft(self, contact: Contact) -> bool:
        """Whether the contact's no-slip rows are in the soft cost in this layout (a soft
        contact, or a hard one that a step softens)."""
        return contact.priority == "soft" or (contact.priority == "hard" and contact.name in self.softened
                                              and contact.name not in self.relaxed)

    def _build_contact_views(self) -> None:
        """Per contact: its columns of D and of the root rows in A, its no-slip rows (in A if
        hard, in the soft rows if soft, none if it has no kinematics) and the √weight of soft
        rows (None if hard, and for a hard contact softened here: its step's override scales
        them); ``soft_contact_rows``: the rows of a cost (soft, or at a level) by contact name,
        with that √weight."""
        rows = {contact: (matrix, vector, None) for contact, matrix, vector in self.hard_contact_views}
        rows.update({contact: (matrix, vector, None if contact.name in self.softened else np.sqrt(contact.weight))
                     for contact, matrix, vector in self.soft_contact_views})
        for block in self.levels:
            rows.update(block.contact_rows)
        self.soft_contact_rows = {contact.name: rows[contact] for contact in rows
                                  if rows[contact][2] is not None or contact.name in self.softened}
        no_rows = (np.zeros((0, self.nv)), np.zeros(0), None)
        self.contact_views = [(contact, block, root_block, *rows.get(contact, no_rows))
                              for contact, block, root_block in zip(self.contacts, self.D_forces,
                                                                    self.root_force_blocks)]

    # ------------------------------------------------------------------ assembly
    def assemble(self, normal_force_limits: Mapping[str, tuple[float, float]] | None = None,
                 overrides: StepOverrides | None = None) -> QP:
        """The QP at the robot's current state (update the robot first).

        ``normal_force_limits`` overrides ``(f_min, f_max)`` of the contacts it names (a
        ramping contact, a step's override); the others use their own. ``overrides``: the
        step's softened contacts' weights (their names must be this layout's ``softened``),
        torque-limit factor and task weights (:mod:`tsid_py.overrides`)."""
        context = self.context
        if overrides is not None:
            context.torque_limit_scale = overrides.torque_limit_scale
        elif context.torque_limit_scale != 1.0:
            context.torque_limit_scale = 1.0
        task_weights = None if overrides is None else overrides.task_weights
        if self.program is not None and overrides is None:
            self.program.write(context)
        else:
            self._write_rows(context, overrides, task_weights)
        lb, ub = self.lb, self.ub
        if self.bounds:
            lb.fill(-np.inf)
            ub.fill(np.inf)
            for constraint in self.bounds:
                index, lo, hi = constraint.acceleration_bounds(context)
                lb[index] = np.maximum(lb[index], lo)
                ub[index] = np.minimum(ub[index], hi)
        if normal_force_limits:
            for contact, column in self.unilateral_columns:
                lb[column], ub[column] = normal_force_limits.get(contact.name, contact.normal_force_bounds)
        else:
            for contact, column in self.unilateral_columns:
                lb[column], ub[column] = contact.normal_force_bounds
        for block in self.levels:
            block.write(context, task_weights)
        self.qp.cost_changed()
        return self.qp

    def _write_rows(self, context: StepContext, overrides: StepOverrides | None, task_weights) -> None:
        """Each item's rows by its own writer (the program's order too): the equation of motion
        (bias ``h − Σ J_kᵀ w_k``), contacts and closures (then ``τ_a = T x + t`` is written),
        hard tasks, soft costs (rows ``√W A``, ``√W b``; single variables' as ``d``, ``e``),
        linear constraints (friction rows constant; relaxed rows for a relaxed constraint)."""
        robot = self.robot
        # D = [M, −J_1ᵀG_1, …] and the root rows of the equation of motion; the contacts' rows.
        context.dynamics_written = False
        if self.external_wrenches:             # h − Σ J_kᵀ w_k
            np.copyto(self.bias, robot.bias)
            for wrench in self.external_wrenches:
                wrench.add_generalized_force(self.bias, -1.0)
        direct.dynamics_rows(robot.mass_matrix, self.bias, self.D_ddq, self.root_rows, self.root_rhs)
        for contact, block, root_block, matrix, vector, soft_scale in self.contact_views:
            contact.write_rows(robot, block, root_block, matrix, vector)
            if soft_scale is not None:
                matrix *= soft_scale
                vector *= soft_scale
        if overrides is not None and overrides.contacts:
            self._weigh_soft_contacts(overrides)
        if self.closure_views or self.passive.size:
            self._write_closures()
        context.dynamics_written = True         # T and t hold this step's equation of motion
        for task, matrix, vector in self.hard_task_views:
            task.write_rows(context, matrix, vector, weighted=False)
        if task_weights:
            self._check_task_weights(task_weights)
            for task, matrix, vector in self.soft_task_views:
                task.write_cost_rows(context, matrix, vector, task_weights.get(task))
        else:
            for task, matrix, vector in self.soft_task_views:
                task.write_rows(context, matrix, vector, weighted=True)
        self.fill_diagonal_costs(context, task_weights)
        relaxed = None if overrides is None else overrides.relaxed_constraints
        for constraint, matrix, lower, upper in self.linear_views:
            if relaxed and constraint in relaxed:      # relaxed for this step
                constraint.relax_rows(context, matrix, lower, upper)
            else:
                constraint.write_rows(context, matrix, lower, upper)

    def _write_closures(self) -> None:
        """The closures' columns of ``D`` and their rows, their columns of the root rows, and
        the passive joints' rows ``D[j] x = −h[j]`` (after every column of ``D`` is written)."""
        robot = self.robot
        for closure, block, matrix, vector in self.closure_views:
            closure.write_rows(robot, block, matrix, vector)
        np.copyto(*self.root_closure_blocks)
        if self.passive.size:
            np.take(self.D, self.passive, axis=0, out=self.passive_rows)
            np.take(self.bias, self.passive, out=self.passive_rhs)
            np.negative(self.passive_rhs, out=self.passive_rhs)

    def _weigh_soft_contacts(self, overrides: StepOverrides) -> None:
        """Scale the soft no-slip rows of the contacts a step's overrides soften by
        √weight (relative to the √weight they were written with)."""
        for name, entry in overrides.contacts.items():
            if entry.soft_weight is None:
                continue
            rows = self.soft_contact_rows.get(name)
            if rows is None:
                raise ValueError(f"contact {name!r} is softened by the step's overrides but not in this layout's "
                                 f"soft rows (softened: {sorted(self.softened)})")
            matrix, vector, written = rows
            scale = np.sqrt(entry.soft_weight) / (1.0 if written is None else written)
            matrix *= scale
            vector *= scale

    def _check_task_weights(self, task_weights: Mapping) -> None:
        """Every task whose weight a step overrides is one of this layout's soft tasks or tasks
        at a level."""
        weighted = set(self.soft_tasks) | set(self.level_tasks)
        for task in task_weights:
            if task not in weighted:
                raise ValueError(f"task {getattr(task, 'name', task)!r} has a weight override but is not a soft "
                                 "task of this solver (nor one at a level 1, 2, …)")

    def fill_diagonal_costs(self, context: StepContext, task_weights: Mapping | None = None,
                             compiled: list | None = None) -> None:
        """``d`` and ``e`` of the cost from the tasks on single variables: each adds ``w ∘ t``
        of its cost ``Σ wᵢ (x_cᵢ − tᵢ)²`` into ``e`` and hands over ``(columns, w)`` (``w``
        from the step's weight override when it has one). ``d`` is rebuilt only when a task
        hands over other weight arrays (assigning weights makes new ones). ``compiled``: per
        task, the ``(columns, w)`` of a task whose targets the program added into ``e`` (which
        it zeroed first), or None."""
        e = self.cost_diagonal_targets
        if compiled is None:
            e.fill(0.0)
        tasks, entries, previous = self.diagonal_tasks, self._diagonal_entries, self._diagonal_weights
        changed = previous is None
        for index in range(len(tasks)):       # by index into kept lists: no list built a step
            task = tasks[index]
            entry = entries[index] = (compiled[index] if compiled is not None and compiled[index] is not None
                                      else task.diagonal(context, e, task_weights.get(task)) if task_weights
                                      else task.diagonal(context, e))
            changed = changed or entry[1] is not previous[index]
        if changed:
            d = self.cost_diagonal
            d.fill(0.0)
            for columns, weight in entries:
                d[columns] += weight
            self._diagonal_weights = [weight for _, weight in entries]

    # ------------------------------------------------------------------ extraction
    def refill_of(self, solution: Solution) -> Refill | None:
        """How :meth:`extract` refills ``solution`` (the last one it returned), or None."""
        refill = self._refill
        return refill if refill is not None and refill.solution is solution else None

    def extract(self, result, out: Solution | None = None) -> Solution:
        """The solution from the QP's ``x`` (the solution's own array: ``ddq``, ``tau_actuated``
        and planar contacts' local wrenches are views of it and of ``tau``).

        ``out``: the last solution this layout returned, refilled in place (no allocation)
        and returned; any other solution, or None, gets a new one."""
        if out is not None and self._refill is not None and out is self._refill.solution:
            self._refill.run(result.x, self.D, self.bias, 6 if self.root_equalities else 0)
            if self.passive.size:
                out.tau[self.passive] = 0.0
            out.refilled(result.status, result.iterations)
            return out
        x = result.x
        if out is not None:                   # a refill asked for: x is the backend's buffer
            x = x.copy()
        tau = np.empty(self.nv)
        torques(x, self.D, self.bias, 6 if self.root_equalities else 0, tau)
        if self.passive.size:
            tau[self.passive] = 0.0           # held by equalities: exactly 0, as the root's
        local, rotations = {}, {}
        for name, columns, wrench, rotation in self.wrench_sources:
            local[name], rotations[name] = wrench(x[columns]), rotation.copy()
        solution = Solution(x[: self.nv], tau, tau[6:] if self.floating else tau, local, rotations, True,
                            result.status, x, result.iterations,
                            closure_forces={name: x[columns] for name, columns in self.closure_columns.items()})
        refillable = all(contact.generator_selects for contact in self.contacts)   # else G f: no copy
        self._refill = Refill(solution, self.wrench_sources, getattr(self.robot.dynamics, "buffer", None)) \
            if refillable else None
        return solution
