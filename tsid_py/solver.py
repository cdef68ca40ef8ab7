"""DynamicsSolver: assembles and solves one QP per control step.

Variables ``x = [q̈ (nv); f_1; …; f_k]`` with each contact's force in its own frame's axes.
With ``D = [M, −J_1ᵀ, …, −J_kᵀ]`` (LOCAL contact Jacobians, force rows only for point
contacts) the equation of motion reads ``D x + h = S ᵀτ``:

* floating base: ``D[:6] x = −h[:6]`` (equalities), and ``τ_a = D[6:] x + h[6:]``;
* fixed base: ``τ = D x + h``.

So τ is linear in x, ``τ_a = T x + t``, and torque tasks and limits are rows in x.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter

import numpy as np

from ._validation import as_vector, positive_scalar
from .constraints.base import AccelerationBounds, Constraint, LinearConstraint
from .contacts import Contact
from .qp import QP, make_backend
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
    qp_solver : ``"proxsuite"`` (default) or any qpsolvers backend name.
    regularization : weights overriding :data:`DEFAULT_REGULARIZATION` (0 turns one off).
    actuated_root : on a floating base, leave the 6 root rows of the equation of motion free
        and report the wrench an imaginary "crane" would apply in ``tau[:6]`` (plain inverse
        dynamics); by default those rows are equalities and ``tau[:6] == 0``.
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, qp_solver: str = "proxsuite",
                 regularization: dict | None = None, actuated_root: bool = False):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        self.robot = robot
        self.dt = positive_scalar(dt, "dt")
        self.actuated_root = bool(actuated_root) and robot.floating_base
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
        self._last_forces: dict[str, np.ndarray] = {}
        self._layout = None
        self.last_qp: QP | None = None
        #: Seconds spent in each phase of the last solve (dynamics, assembly, qp, extraction).
        self.timings: dict[str, float] = {}

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
            self._last_forces.pop(name, None)
            self._layout = None
            return
        contact = self.contacts[name]
        last = self._last_forces.get(name)
        start = float(last[contact.normal_index]) if last is not None else contact.f_max
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
            from .diagnosis import diagnose

            error = diagnose(self, qp, result.status)
            error.qp = qp          # the failed problem, for offline inspection
            raise error
        solution = self._layout.extract(self, result)
        self.timings = {"dynamics": t_dynamics - tic, "assembly": t_assembly - t_dynamics,
                        "qp": t_qp - t_assembly, "extraction": perf_counter() - t_qp}
        self._advance_transitions(solution)
        for task in self.tasks:
            task.record(solution)
        return solution

    def _retire_finished_transitions(self) -> None:
        for name, transition in list(self._transitions.items()):
            if transition.done:
                del self._transitions[name]
                if transition.removing:
                    del self.contacts[name]
                    self._last_forces.pop(name, None)
                    self._layout = None

    def _advance_transitions(self, solution: Solution) -> None:
        for name, contact in self.contacts.items():
            self._last_forces[name] = solution.local_wrenches[name][: contact.size]

    def normal_force_bounds(self, contact: Contact) -> tuple[float, float]:
        """``(f_min, f_max)`` now, accounting for a running transition."""
        transition = self._transitions.get(contact.name)
        if transition is None:
            return contact.f_min, contact.f_max
        upper = transition.bound()
        return min(contact.f_min, upper), upper


class _Layout:
    """Sizes, column slices and constant blocks of the QP for one set of contacts, tasks
    and constraints; rebuilt when that set changes."""

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
        self.n = start
        self.nv = nv
        self.columns = columns
        self.context = StepContext(robot=robot, dt=solver.dt, n=self.n, nv=nv,
                                   contact_columns=columns, contacts=dict(solver.contacts),
                                   zero_nv=np.zeros(nv))
        self.D = np.zeros((nv, self.n))
        tasks = solver.tasks
        self.hard_tasks = [t for t in tasks if t.priority == "hard"]
        self.soft_tasks = [t for t in tasks + solver.regularization_tasks if t.priority == "soft"]
        self.diagonal_tasks = [t for t in self.soft_tasks if hasattr(t, "diagonal")]
        self.row_tasks = [t for t in self.soft_tasks if not hasattr(t, "diagonal")]
        self.bounds = [c for c in solver.constraints if isinstance(c, AccelerationBounds)]
        self.linear = [c for c in solver.constraints if isinstance(c, LinearConstraint)]
        # Friction rows: constant per contact, placed in that contact's columns.
        blocks = []
        self.friction_labels: list[str] = []
        for contact in self.contacts:
            block = np.zeros((contact.friction_matrix.shape[0], self.n))
            block[:, columns[contact.name]] = contact.friction_matrix
            blocks.append(block)
            self.friction_labels += [f"contact {contact.name}: {label}" for label in contact.describe_rows()]
        self.friction = np.vstack(blocks) if blocks else np.zeros((0, self.n))
        self.normal_columns = np.array([columns[c.name].start + c.normal_index for c in self.contacts], dtype=int)
        self.use_box = bool(self.contacts or self.bounds)

    # ------------------------------------------------------------------ assembly
    def assemble(self, solver: DynamicsSolver) -> QP:
        robot, context = solver.robot, self.context
        nv, n = self.nv, self.n
        M, h = robot.mass_matrix, robot.bias
        D = self.D
        D[:, :nv] = M
        eq_rows, eq_rhs, self.eq_labels = [], [], []
        soft_contact_rows = []
        for contact in self.contacts:
            jacobian, rows, rhs = contact.motion_constraint(robot)
            D[:, self.columns[contact.name]] = -jacobian[: contact.size].T
            if not contact.kinematic:
                continue
            block = np.zeros((rows.shape[0], n))
            block[:, :nv] = rows
            if contact.priority == "hard":
                eq_rows.append(block)
                eq_rhs.append(rhs)
                self.eq_labels += [f"contact {contact.name}: no-slip acceleration"] * rows.shape[0]
            else:
                soft_contact_rows.append((np.sqrt(contact.weight) * block, np.sqrt(contact.weight) * rhs))
        if self.root_equalities:
            eq_rows.insert(0, D[:6])
            eq_rhs.insert(0, -h[:6])
            self.eq_labels = ["equation of motion (floating base)"] * 6 + self.eq_labels
        if self.floating:
            context.torque_matrix, context.torque_offset = D[6:], h[6:]
        else:
            context.torque_matrix, context.torque_offset = D, h
        for task in self.hard_tasks:
            matrix, vector = task.compute(context)
            eq_rows.append(self._widen(matrix, task))
            eq_rhs.append(vector)
            self.eq_labels += [f"task {task.name}"] * len(vector)

        # Soft costs: H = Σ (√W A)ᵀ (√W A), g = −Σ (√W A)ᵀ (√W b); diagonal terms directly.
        stacked = []
        for task in self.row_tasks:
            matrix, vector = task.weighted_rows(context)
            stacked.append((self._widen(matrix, task), vector))
        stacked += [(matrix, vector) for matrix, vector in soft_contact_rows]
        if stacked:
            A_soft = np.vstack([m for m, _ in stacked])
            b_soft = np.concatenate([b for _, b in stacked])
            H = A_soft.T @ A_soft
            g = -(A_soft.T @ b_soft)
        else:
            H, g = np.zeros((n, n)), np.zeros(n)
        for task in self.diagonal_tasks:
            columns, weights, targets = task.diagonal(context)
            H[columns, columns] += weights
            g[columns] -= weights * targets
        H *= 2.0
        g *= 2.0

        # Inequalities: friction rows (constant) and linear constraints; box on q̈ and f_z.
        in_rows, lower, upper = [self.friction], [np.full(len(self.friction), -np.inf)], [np.zeros(len(self.friction))]
        self.in_labels = list(self.friction_labels)
        for constraint in self.linear:
            matrix, lo, hi = constraint.rows(context)
            in_rows.append(self._widen(matrix, constraint))
            lower.append(lo)
            upper.append(hi)
            self.in_labels += [constraint.name] * len(lo)
        lb = ub = None
        self.box_labels = {}
        if self.use_box:
            lb, ub = np.full(n, -np.inf), np.full(n, np.inf)
            for constraint in self.bounds:
                index, lo, hi = constraint.acceleration_bounds(context)
                lb[index] = np.maximum(lb[index], lo)
                ub[index] = np.minimum(ub[index], hi)
                for i in index:
                    self.box_labels.setdefault(int(i), []).append(constraint.name)
            for contact, column in zip(self.contacts, self.normal_columns):
                if not contact.unilateral:
                    continue
                lb[column], ub[column] = solver.normal_force_bounds(contact)
                self.box_labels[int(column)] = [f"contact {contact.name}: normal force bounds"]
        A = np.vstack(eq_rows) if eq_rows else np.zeros((0, n))
        b = np.concatenate(eq_rhs) if eq_rhs else np.zeros(0)
        C = np.vstack(in_rows)
        return QP(H, g, A, b, C, np.concatenate(lower), np.concatenate(upper), lb, ub)

    def _widen(self, matrix: np.ndarray, owner) -> np.ndarray:
        """Pad a q̈-only matrix (nv columns) to the full width n."""
        if matrix.shape[1] == self.n:
            return matrix
        if getattr(owner, "acts_on", "ddq") != "ddq" or matrix.shape[1] != self.nv:
            raise ValueError(f"{owner!r} returned {matrix.shape[1]} columns; expected {self.nv} or {self.n}")
        wide = np.zeros((matrix.shape[0], self.n))
        wide[:, : self.nv] = matrix
        return wide

    # ------------------------------------------------------------------ extraction
    def extract(self, solver: DynamicsSolver, result) -> Solution:
        robot = solver.robot
        x = result.x
        ddq = x[: self.nv].copy()
        tau = self.D @ x + robot.bias
        if self.root_equalities:
            tau[:6] = 0.0
        tau_actuated = tau[6:].copy() if self.floating else tau.copy()
        wrenches, local = {}, {}
        for contact in self.contacts:
            force = x[self.columns[contact.name]]
            rotation = robot.frame_placement(contact.frame_id).rotation
            wrenches[contact.name] = contact.world_wrench(force, rotation)
            local[contact.name] = contact.local_wrench(force)
        return Solution(ddq, tau, tau_actuated, wrenches, local, True, result.status, x, result.iterations)
