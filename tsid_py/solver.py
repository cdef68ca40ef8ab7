"""DynamicsSolver: assembles and solves one QP per control step.

Variables ``x = [q̈ (nv); f_1; …; f_k]`` with each contact's force in its own frame's axes.
With ``D = [M, −J_1ᵀ, …, −J_kᵀ]`` (LOCAL contact Jacobians, force rows only for point
contacts) the equation of motion reads ``D x + h = S ᵀτ``:

* floating base: ``D[:6] x = −h[:6]`` (equalities), and ``τ_a = D[6:] x + h[6:]``;
* fixed base: ``τ = D x + h``.

So τ is linear in x, ``τ_a = T x + t``, and torque tasks and limits are rows in x.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from time import perf_counter

import numpy as np

from . import _kernels
from ._validation import as_vector, positive_scalar
from .constraints.base import AccelerationBounds, Constraint, LinearConstraint
from .contacts import Contact
from .errors import SolverError
from .qp import QP, LeastSquaresCost, make_backend
from .robot import Robot
from .solution import Solution
from .tasks.base import Task
from .tasks.effort import TorqueTask
from .tasks.regularization import AccelerationTask, ForceRegularization

#: Default regularisation weights: q̈ in (rad/s²)², contact forces in N², torques in (N·m)².
#: Small enough not to bias the tasks, large enough to make the QP strictly convex; they keep
#: a 90 kg humanoid standing with only a CoM task and a posture task.
DEFAULT_REGULARIZATION = {"acceleration": 1e-5, "force": 1e-8, "torque": 1e-7}


@dataclass
class _Transition:
    """A linear ramp of a contact's largest normal force."""

    start: float
    end: float
    duration: float
    elapsed: float = 0.0
    removing: bool = False

    def bound(self) -> float:
        ratio = min(self.elapsed / self.duration, 1.0) if self.duration > 0 else 1.0
        return self.start + (self.end - self.start) * ratio

    @property
    def done(self) -> bool:
        return self.elapsed >= self.duration - 1e-12


@dataclass
class StepContext:
    """What tasks and constraints read while the QP is assembled."""

    robot: Robot
    dt: float
    n: int
    nv: int
    torque_matrix: np.ndarray = None      # T: τ_a = T x + t
    torque_offset: np.ndarray = None      # t
    contact_columns: dict = field(default_factory=dict)
    contacts: dict = field(default_factory=dict)
    zero_nv: np.ndarray = None


class DynamicsSolver:
    """Task-space inverse dynamics: one QP over ``[q̈; f]`` per call to :meth:`solve`.

    Parameters
    ----------
    robot : the :class:`~tsid_py.Robot` to control.
    dt : control period, s (used by velocity/position limits and contact transitions).
    qp_solver : ``"reduced"`` (default: null-space elimination, constraint screening and a
        hot-started DAQP; see :mod:`tsid_py.reduced`), ``"proxsuite"`` (the full QP) or any
        qpsolvers backend name.
    regularization : weights overriding :data:`DEFAULT_REGULARIZATION` (0 turns one off).
    actuated_root : on a floating base, leave the 6 root rows of the equation of motion free
        and report the wrench an imaginary "crane" would apply in ``tau[:6]`` (plain inverse
        dynamics); by default those rows are equalities and ``tau[:6] == 0``.
    diagnose : when a solve fails, search which hard constraints conflict and raise
        :class:`~tsid_py.InfeasibleError` naming them (an elastic re-solve: about 150 ms on Talos);
        ``False`` raises a plain :class:`~tsid_py.SolverError` at once (a control loop's
        choice, see :class:`tsid_py.control.FailurePolicy`).
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, qp_solver: str = "reduced",
                 regularization: dict | None = None, actuated_root: bool = False, diagnose: bool = True):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        self.robot = robot
        self.dt = positive_scalar(dt, "dt")
        self.actuated_root = bool(actuated_root) and robot.floating_base
        self.diagnose = bool(diagnose)
        self.backend = make_backend(qp_solver)
        weights = dict(DEFAULT_REGULARIZATION)
        for key, value in (regularization or {}).items():
            if key not in weights:
                raise KeyError(f"regularization key {key!r} is unknown; expected {list(weights)}")
            weights[key] = positive_scalar(value, f"regularization[{key!r}]", allow_zero=True)
        candidates = [
            AccelerationTask(weight=weights["acceleration"], name="acceleration regularisation"),
            ForceRegularization(weights["force"], name="force regularisation"),
            TorqueTask(weight=weights["torque"], name="torque regularisation"),
        ]
        self.regularization_tasks: list[Task] = []
        for task, weight in zip(candidates, weights.values()):
            if weight > 0:
                task.bind(robot)
                self.regularization_tasks.append(task)
        self.contacts: dict[str, Contact] = {}
        self.tasks: list[Task] = []
        self.constraints: list[Constraint] = []
        self._transitions: dict[str, _Transition] = {}
        self._last_solution: Solution | None = None
        self._layout = None
        self.last_qp: QP | None = None
        self._stamps: tuple[float, ...] | None = None     # perf_counter at the phases' ends

    # ------------------------------------------------------------------------ configuration
    def add_contact(self, contact: Contact, transition: float = 0.0) -> Contact:
        """Activate ``contact``. With ``transition`` > 0 (s) its largest normal force ramps
        from 0 to the robot's weight over that time (then ``f_max`` applies), so the
        wrenches change smoothly."""
        if not isinstance(contact, Contact):
            raise ValueError(f"contact must be a PointContact or PlanarContact, got {type(contact).__name__}")
        if not self.robot.floating_base:
            raise ValueError("contacts need a floating-base robot (load it with floating_base=True)")
        if contact.name in self.contacts and contact.name not in self._transitions:
            raise ValueError(f"contact {contact.name!r} is already active")
        transition = positive_scalar(transition, "transition", allow_zero=True)
        contact.bind(self.robot)
        self.robot.update(self.robot.q, self.robot.v)
        contact.anchor_at(self.robot.frame_placement(contact.frame_id))
        self.contacts[contact.name] = contact
        self._transitions.pop(contact.name, None)
        if transition > 0:
            self._transitions[contact.name] = _Transition(0.0, min(self.robot.weight, contact.f_max), transition)
        self._layout = None
        return contact

    def remove_contact(self, name: str, transition: float = 0.0) -> None:
        """Deactivate a contact, at once or ramping its normal force to 0 over ``transition`` s
        (from the force it carried at the last solve)."""
        if name not in self.contacts:
            raise KeyError(f"contact {name!r} is not active; active: {list(self.contacts)}")
        transition = positive_scalar(transition, "transition", allow_zero=True)
        if transition == 0:
            del self.contacts[name]
            self._transitions.pop(name, None)
            self._layout = None
            return
        contact = self.contacts[name]
        last = self._last_solution
        carried = last is not None and name in last.local_wrenches
        start = float(last.local_wrenches[name][contact.normal_index]) if carried else contact.f_max
        self._transitions[name] = _Transition(max(start, contact.f_min), 0.0, transition, removing=True)

    def add_task(self, task: Task) -> Task:
        if not isinstance(task, Task):
            raise ValueError(f"task must be a tsid_py.tasks.Task, got {type(task).__name__}")
        task.bind(self.robot)
        self.tasks.append(task)
        self._layout = None
        return task

    def remove_task(self, task: Task | str) -> None:
        match = [t for t in self.tasks if t is task or t.name == task]
        if not match:
            raise KeyError(f"task {task!r} is not in the solver; tasks: {[t.name for t in self.tasks]}")
        self.tasks.remove(match[0])
        self._layout = None

    def add_constraint(self, constraint: Constraint) -> Constraint:
        if not isinstance(constraint, Constraint):
            raise ValueError(f"constraint must be a tsid_py.constraints.Constraint, got {type(constraint).__name__}")
        constraint.bind(self.robot)
        self.constraints.append(constraint)
        self._layout = None
        return constraint

    def remove_constraint(self, constraint: Constraint | str) -> None:
        match = [c for c in self.constraints if c is constraint or c.name == constraint]
        if not match:
            raise KeyError(f"constraint {constraint!r} is not in the solver")
        self.constraints.remove(match[0])
        self._layout = None

    # ------------------------------------------------------------------------ layout
    def _build_layout(self) -> "_Layout":
        return _Layout(self)

    # ------------------------------------------------------------------------ solving
    def solve(self, q, v) -> Solution:
        """One control step at state ``(q, v)``; raises :class:`~tsid_py.SolverError`
        (or :class:`~tsid_py.InfeasibleError`) when the QP has no solution."""
        q = self.robot.check_configuration(q, "q")
        v = as_vector(v, "v", self.robot.nv)
        if self._transitions:
            self._retire_finished_transitions()
            for transition in self._transitions.values():
                transition.elapsed += self.dt       # bounds hold at the end of this control period
        if self._layout is None:
            self._layout = self._build_layout()
        tic = perf_counter()
        self.robot.update_unchecked(q, v)
        t_dynamics = perf_counter()
        qp = self._layout.assemble(self)
        self.last_qp = qp
        t_assembly = perf_counter()
        result = self.backend.solve(qp)
        t_qp = perf_counter()
        if not result.success:
            if not self.diagnose:
                raise SolverError(f"QP backend {self.backend.name!r} failed ({result.status})", result.status)
            from .diagnosis import diagnose

            error = diagnose(self, qp, result.status)
            error.qp = qp.copy()   # the failed problem, for offline inspection
            raise error
        solution = self._layout.extract(self, result)
        self._stamps = (tic, t_dynamics, t_assembly, t_qp, perf_counter())
        self._last_solution = solution          # a removal's ramp starts from its forces
        for task in self._layout.recording_tasks:
            task.record(solution)
        return solution

    @property
    def timings(self) -> dict[str, float]:
        """Seconds spent in each phase of the last solve: dynamics, assembly, qp, extraction."""
        if self._stamps is None:
            return {}
        start, dynamics, assembly, qp, end = self._stamps
        return {"dynamics": dynamics - start, "assembly": assembly - dynamics, "qp": qp - assembly,
                "extraction": end - qp}

    def _retire_finished_transitions(self) -> None:
        for name, transition in list(self._transitions.items()):
            if transition.done:
                del self._transitions[name]
                if transition.removing:
                    del self.contacts[name]
                    self._layout = None

    def normal_force_bounds(self, contact: Contact) -> tuple[float, float]:
        """``(f_min, f_max)`` now, accounting for a running transition."""
        transition = self._transitions.get(contact.name)
        if transition is None:
            return contact.f_min, contact.f_max
        upper = transition.bound()
        return min(contact.f_min, upper), upper


class _Layout:
    """Sizes, column slices, constant blocks and preallocated buffers of the QP for one set
    of contacts, tasks and constraints; rebuilt when that set changes.

    :meth:`assemble` writes into the same buffers every step, so the returned :class:`QP`
    is valid until the next call.
    """

    def __init__(self, solver: DynamicsSolver):
        robot = solver.robot
        nv = robot.nv
        self.floating = robot.floating_base
        self.root_equalities = robot.floating_base and not solver.actuated_root
        self.contacts = list(solver.contacts.values())
        columns, start = {}, nv
        for contact in self.contacts:
            columns[contact.name] = slice(start, start + contact.size)
            start += contact.size
        self.n = n = start
        self.nv = nv
        self.columns = columns
        #: Per contact: its name, columns, local-wrench map and (a view of) its frame's rotation.
        self.wrench_sources = [(contact.name, columns[contact.name], contact.local_wrench,
                                robot.frame_rotation(contact.frame_id)) for contact in self.contacts]
        self.context = StepContext(robot=robot, dt=solver.dt, n=n, nv=nv,
                                   contact_columns=columns, contacts=dict(solver.contacts),
                                   zero_nv=np.zeros(nv))
        self.D = np.zeros((nv, n))
        self.D_ddq = self.D[:, :nv]
        self.D_forces = [self.D[:, columns[contact.name]] for contact in self.contacts]
        bias = robot.bias                   # a view of pinocchio's buffer: refreshed by each update
        if self.floating:
            self.context.torque_matrix, self.context.torque_offset = self.D[6:], bias[6:]
        else:
            self.context.torque_matrix, self.context.torque_offset = self.D, bias
        tasks = solver.tasks
        self.recording_tasks = [t for t in tasks if type(t).record is not Task.record]
        self.hard_tasks = [t for t in tasks if t.priority == "hard"]
        self.soft_tasks = [t for t in tasks + solver.regularization_tasks if t.priority == "soft"]
        self.diagonal_tasks = [t for t in self.soft_tasks if hasattr(t, "diagonal")]
        self.row_tasks = [t for t in self.soft_tasks if not hasattr(t, "diagonal")]
        self.bounds = [c for c in solver.constraints if isinstance(c, AccelerationBounds)]
        self.linear = [c for c in solver.constraints if isinstance(c, LinearConstraint)]
        self.kinematic = [c for c in self.contacts if c.kinematic]
        self.normal_columns = np.array([columns[c.name].start + c.normal_index for c in self.contacts], dtype=int)
        self.unilateral_columns = [(contact, int(column)) for contact, column in zip(self.contacts, self.normal_columns)
                                   if contact.unilateral]
        self.use_box = bool(self.contacts or self.bounds)
        self._build_equality_rows()
        self._build_soft_rows()
        self._build_inequality_rows()
        self._build_contact_views()

    # ------------------------------------------------------------------ buffers and labels
    def _build_equality_rows(self) -> None:
        """Row slices of ``A x = b``: root rows, hard no-slip rows, hard task rows."""
        slices, labels, row = [], [], 0
        if self.root_equalities:
            row = 6
            labels += ["equation of motion (floating base)"] * 6
        for contact in self.kinematic:
            if contact.priority == "hard":
                size = contact.motion_rows.stop - contact.motion_rows.start
                slices.append((contact, slice(row, row + size)))
                labels += [f"contact {contact.name}: no-slip acceleration"] * size
                row += size
        for task in self.hard_tasks:
            slices.append((task, slice(row, row + task.size)))
            labels += [f"task {task.name}"] * task.size
            row += task.size
        self.eq_labels = labels
        self.A = np.zeros((row, self.n))
        self.b = np.zeros(row)
        # A[:r] = D[:r] and b[:r] = −h[:r] for the r = 6 root rows held as equalities (r = 0 else),
        # written with D: its q̈ columns with M, its force columns by the contacts.
        root = 6 if self.root_equalities else 0
        self.root_rows, self.root_rhs = self.A[:root, : self.nv], self.b[:root]
        self.root_force_blocks = [self.A[:root, self.columns[contact.name]] for contact in self.contacts]
        views = [(owner, *self._row_views(self.A, self.b, rows, owner)) for owner, rows in slices]
        self.hard_contact_views = [view for view in views if isinstance(view[0], Contact)]
        self.hard_task_views = [view for view in views if not isinstance(view[0], Contact)]

    def _build_soft_rows(self) -> None:
        """Row slices of the stacked soft costs ``||√W (A x − b)||²``."""
        slices, row = [], 0
        for owner in self.row_tasks + [c for c in self.kinematic if c.priority == "soft"]:
            size = owner.size if isinstance(owner, Task) else owner.motion_rows.stop - owner.motion_rows.start
            slices.append((owner, slice(row, row + size)))
            row += size
        self.A_soft = np.zeros((row, self.n))
        self.b_soft = np.zeros(row)
        views = [(owner, *self._row_views(self.A_soft, self.b_soft, rows, owner)) for owner, rows in slices]
        self.soft_contact_views = [view for view in views if isinstance(view[0], Contact)]
        self.soft_task_views = [view for view in views if not isinstance(view[0], Contact)]
        self.cost_diagonal = np.zeros(self.n)
        self.cost_diagonal_targets = np.zeros(self.n)
        self._diagonal_weights = None         # the weight arrays d was built from
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
            labels += [f"contact {contact.name}: {label}" for label in contact.describe_rows()]
        friction_rows = sum(len(block) for block in friction)
        slices, row = [], friction_rows
        for constraint in self.linear:
            size = len(constraint.rows(context)[1])
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
                     stacked=self.stacked if self.use_box else None)
        if friction:
            self.C[:friction_rows] = np.vstack(friction)

    def _build_contact_views(self) -> None:
        """Per contact: its columns of D and of the root rows in A, its no-slip rows (in A if
        hard, in the soft rows if soft, none if it has no kinematics) and the √weight of soft
        rows (None if hard)."""
        rows = {contact: (matrix, vector, None) for contact, matrix, vector in self.hard_contact_views}
        rows.update({contact: (matrix, vector, np.sqrt(contact.weight))
                     for contact, matrix, vector in self.soft_contact_views})
        no_rows = (np.zeros((0, self.nv)), np.zeros(0), None)
        self.contact_views = [(contact, block, root_block, *rows.get(contact, no_rows))
                              for contact, block, root_block in zip(self.contacts, self.D_forces,
                                                                    self.root_force_blocks)]

    def _row_views(self, matrix: np.ndarray, vector: np.ndarray, rows: slice, owner) -> tuple[np.ndarray, np.ndarray]:
        """Views of the rows ``rows`` of a buffer and of ``vector``; the matrix view spans the
        q̈ columns only for an owner acting on q̈ (contacts, most tasks), all columns else."""
        on_ddq = isinstance(owner, Contact) or owner.acts_on == "ddq"
        return (matrix[rows, : self.nv] if on_ddq else matrix[rows]), vector[rows]

    # ------------------------------------------------------------------ assembly
    def assemble(self, solver: DynamicsSolver) -> QP:
        robot, context = solver.robot, self.context
        # D = [M, −J_1ᵀ, …] and the root rows of the equation of motion; the contacts' rows.
        _kernels.direct.dynamics_rows(robot.mass_matrix, robot.bias, self.D_ddq, self.root_rows, self.root_rhs)
        for contact, block, root_block, matrix, vector, soft_scale in self.contact_views:
            contact.write_rows(robot, block, root_block, matrix, vector)
            if soft_scale is not None:
                matrix *= soft_scale
                vector *= soft_scale
        for task, matrix, vector in self.hard_task_views:
            task.write_rows(context, matrix, vector, weighted=False)

        # Soft costs in factored form: rows √W A, √W b; costs on single variables as d, e.
        for task, matrix, vector in self.soft_task_views:
            task.write_rows(context, matrix, vector, weighted=True)
        self._fill_diagonal_costs(context)

        # Inequalities: friction rows (constant) and linear constraints; box on q̈ and f_z.
        for constraint, matrix, lower, upper in self.linear_views:
            constraint.write_rows(context, matrix, lower, upper)
        lb, ub = self.lb, self.ub
        if self.bounds:
            lb.fill(-np.inf)
            ub.fill(np.inf)
            for constraint in self.bounds:
                index, lo, hi = constraint.acceleration_bounds(context)
                lb[index] = np.maximum(lb[index], lo)
                ub[index] = np.minimum(ub[index], hi)
        for contact, column in self.unilateral_columns:
            lb[column], ub[column] = solver.normal_force_bounds(contact)
        self.qp.cost_changed()
        return self.qp

    def _fill_diagonal_costs(self, context: StepContext) -> None:
        """``d`` and ``e`` of the cost from the tasks on single variables: each adds ``w ∘ t``
        of its cost ``Σ wᵢ (x_cᵢ − tᵢ)²`` into ``e`` and hands over ``(columns, w)``. ``d`` is
        rebuilt only when a task hands over other weight arrays (assigning weights makes new
        ones)."""
        e = self.cost_diagonal_targets
        e.fill(0.0)
        entries = [task.diagonal(context, e) for task in self.diagonal_tasks]
        previous = self._diagonal_weights
        if previous is None or any(map(operator.is_not, map(operator.itemgetter(1), entries), previous)):
            d = self.cost_diagonal
            d.fill(0.0)
            for columns, weight in entries:
                d[columns] += weight
            self._diagonal_weights = [weight for _, weight in entries]

    # ------------------------------------------------------------------ extraction
    def extract(self, solver: DynamicsSolver, result) -> Solution:
        """The solution from the QP's ``x`` (the solution's own array: ``ddq``, ``tau_actuated``
        and planar contacts' local wrenches are views of it and of ``tau``)."""
        x = result.x
        tau = np.empty(self.nv)
        _kernels.direct.affine_map(self.D, x, solver.robot.bias, 6 if self.root_equalities else 0, tau)
        local = {name: wrench(x[columns]) for name, columns, wrench, _ in self.wrench_sources}
        rotations = {name: rotation.copy() for name, _, _, rotation in self.wrench_sources}
        return Solution(x[: self.nv], tau, tau[6:] if self.floating else tau, local, rotations, True, result.status, x,
                        result.iterations)
