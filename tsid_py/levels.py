"""Priority levels in the QP's layout: which rows sit at which level, their buffers, and how
a step writes them (how the levels are solved is :mod:`tsid_py.hierarchy`'s).

Every task, contact and constraint has a ``priority``:

* ``"hard"`` — level 0: a task's or contact's rows are equalities, a constraint's rows must
  hold (the QP's ``A x = b`` and ``l ≤ C x ≤ u``);
* ``1, 2, …`` — a level between the hard rows and the cost: a task's rows (scaled by
  √weight) and a contact's no-slip rows (by √``contact.weight``) are the level's cost rows
  ``R x − s``, a constraint's rows ``l ≤ C x ≤ u`` are the level's inequality rows, relaxed by
  a slack weighted by ``constraint.weight``;
* ``"soft"`` — the last level: the weighted cost of today's two-level problem (tasks, soft
  contacts, regularisation), plus the soft constraints' rows with their slack.

A step's overrides may soften hard contacts (:mod:`tsid_py.overrides`, the failure policy's
first rung). Without levels their no-slip rows join the soft cost; with levels they form level
0, solved before level 1 (:data:`RELAXED`): a softened contact then slips only as much as the
hard rows force, never to serve a task.

A :class:`LevelBlock` holds one level's buffers and writes them each step; its
:class:`~tsid_py.qp.Level` is what the QP hands over. A layout without any levelled item
(the default problem) has no block, and its assembly does nothing more than before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .constraints.base import AccelerationBounds, Constraint, LinearConstraint
from .contacts import Contact
from .qp import Level
from .rows import StepContext
from .tasks.base import Task


#: The priority of the level that holds a step's softened hard contacts when the problem has
#: levels: before level 1.
RELAXED = 0


def level_order(priority) -> float:
    """The order in which priorities are solved: ``"hard"`` 0, a level its number, ``"soft"``
    last (inf)."""
    if priority == "hard":
        return 0.0
    if priority == "soft":
        return np.inf
    return float(priority)


def describe(owner) -> str:
    """How reports name an item's rows: ``task NAME`` or ``contact NAME: no-slip acceleration``
    (a constraint by its name)."""
    if isinstance(owner, Contact):
        return f"contact {owner.name}: no-slip acceleration"
    if isinstance(owner, Constraint):
        return owner.name
    return f"task {owner.name}"


def row_views(matrix: np.ndarray, vector: np.ndarray, rows: slice, owner, nv: int) -> tuple[np.ndarray, np.ndarray]:
    """Views of the rows ``rows`` of a buffer and of ``vector``; the matrix view spans the q̈
    columns only for an owner acting on q̈ (contacts, most tasks), all columns else."""
    on_ddq = isinstance(owner, Contact) or owner.acts_on == "ddq"
    return (matrix[rows, :nv] if on_ddq else matrix[rows]), vector[rows]


def motion_row_count(contact: Contact) -> int:
    """The number of no-slip rows of a contact."""
    return contact.motion_rows.stop - contact.motion_rows.start


class LevelBlock:
    """The buffers of one level (``priority``: an int ≥ 1, or ``"soft"`` for the soft
    constraints' rows, whose cost is the QP's own) for the items at that level.

    ``tasks`` and ``contacts`` give the cost rows, ``constraints`` the inequality rows (their
    shape asked once, from ``context``, as the layout does for the hard rows). :meth:`write`
    fills the tasks' and constraints' rows each step; the contacts' rows are written by the
    layout with the rest of each contact (:attr:`contact_rows`), scaled by √weight.
    """

    def __init__(self, priority, context: StepContext, tasks: Sequence[Task] = (), contacts: Sequence[Contact] = (),
                 constraints: Sequence[Constraint] = (), softened: frozenset = frozenset()):
        n, nv = context.n, context.nv
        self.priority = priority
        self.tasks = list(tasks)
        owners = [*self.tasks, *contacts]
        sizes = [owner.size if isinstance(owner, Task) else motion_row_count(owner) for owner in owners]
        self.R, self.s = np.zeros((sum(sizes), n)), np.zeros(sum(sizes))
        views, cost_labels, row = [], [], 0
        for owner, size in zip(owners, sizes):
            views.append((owner, *row_views(self.R, self.s, slice(row, row + size), owner, nv)))
            cost_labels += [describe(owner)] * size
            row += size
        self.task_views = views[: len(self.tasks)]
        #: Per contact at this level: views of its no-slip rows and the √weight that scales them
        #: (None for a contact ``softened`` by the step's overrides, which scale them).
        self.contact_rows = {contact: (matrix, vector, None if contact.name in softened else np.sqrt(contact.weight))
                             for contact, matrix, vector in views[len(self.tasks):]}
        self._build_inequalities(context, constraints, n)
        self.level = Level(priority, self.R, self.s, self.C, self.l, self.u, self.slack_weight, cost_labels,
                           self.inequality_labels)

    def _build_inequalities(self, context: StepContext, constraints: Sequence[Constraint], n: int) -> None:
        """Rows of the linear constraints (sized at the current state), then unit rows for the
        bounds on single accelerations (their indices asked once), with their slack weights."""
        linear = [c for c in constraints if isinstance(c, LinearConstraint)]
        bounds = [c for c in constraints if isinstance(c, AccelerationBounds)]
        counts = [constraint.row_count(context) for constraint in linear]
        indices = [np.asarray(constraint.acceleration_bounds(context)[0], dtype=int) for constraint in bounds]
        total = sum(counts) + sum(index.size for index in indices)
        self.C, self.l, self.u = np.zeros((total, n)), np.full(total, -np.inf), np.full(total, np.inf)
        self.slack_weight = np.zeros(total)
        self.linear_views, self.bound_rows, self.inequality_labels, row = [], [], [], 0
        for constraint, count in zip(linear, counts):
            rows = slice(row, row + count)
            self.linear_views.append((constraint, self.C[rows], self.l[rows], self.u[rows]))
            self.slack_weight[rows] = constraint.weight
            self.inequality_labels += [constraint.name] * count
            row += count
        for constraint, index in zip(bounds, indices):
            rows = slice(row, row + index.size)
            self.C[np.arange(rows.start, rows.stop), index] = 1.0
            self.bound_rows.append((constraint, rows))
            self.slack_weight[rows] = constraint.weight
            self.inequality_labels += [constraint.name] * index.size
            row += index.size

    def write(self, context: StepContext, task_weights: Mapping | None = None) -> None:
        """This step's rows: the tasks' (√weight-scaled, with a step's weight overrides) and
        the constraints' (their bounds at the current state)."""
        if task_weights:
            for task, matrix, vector in self.task_views:
                task.write_cost_rows(context, matrix, vector, task_weights.get(task))
        else:
            for task, matrix, vector in self.task_views:
                task.write_rows(context, matrix, vector, weighted=True)
        for constraint, matrix, lower, upper in self.linear_views:
            constraint.write_rows(context, matrix, lower, upper)
        for constraint, rows in self.bound_rows:
            _, lower, upper = constraint.acceleration_bounds(context)
            self.l[rows], self.u[rows] = lower, upper

    def arrays(self) -> list[tuple[np.ndarray, np.ndarray | None, list[str]]]:
        """``(matrix, vector, labels)`` of the cost rows and the inequality rows, for the
        layout's search for non-finite data."""
        return [(self.R, self.s, self.level.cost_labels), (self.C, None, self.inequality_labels)]


def levelled_blocks(context: StepContext, tasks: Sequence[Task], contacts: Sequence[Contact],
                    constraints: Sequence[Constraint], softened: frozenset = frozenset()) -> list[LevelBlock]:
    """One block per level ``1, 2, …`` that some item has, in order, then one for the soft
    constraints if there are any; empty when every item is hard or soft (the default
    problem). With levels, the hard ``contacts`` a step ``softened`` (names) make level
    :data:`RELAXED`, first."""
    levels = sorted({item.priority for item in [*tasks, *contacts, *constraints] if isinstance(item.priority, int)})
    blocks = [LevelBlock(level, context, [t for t in tasks if t.priority == level],
                         [c for c in contacts if c.priority == level],
                         [c for c in constraints if c.priority == level]) for level in levels]
    soft_constraints = [c for c in constraints if c.priority == "soft"]
    if soft_constraints:
        blocks.append(LevelBlock("soft", context, constraints=soft_constraints))
    relaxed = [c for c in contacts if c.priority == "hard" and c.name in softened]
    if blocks and relaxed:
        blocks.insert(0, LevelBlock(RELAXED, context, contacts=relaxed, softened=softened))
    return blocks
