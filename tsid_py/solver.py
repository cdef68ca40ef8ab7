"""DynamicsSolver: owns the tasks, contacts and constraints of a control problem and solves
one QP over ``x = [q̈; f]`` per call to :meth:`DynamicsSolver.solve`.

The QP itself — sizes, buffers, the order in which rows are written, extraction of the
solution — is :class:`tsid_py.assembly.Layout`'s; the solver keeps one, rebuilt when its set
of items (or a setting that shapes the QP) changes, and hands each step's QP to its backend
(:mod:`tsid_py.backends`), or, when some item has a priority level ``1, 2, …``, to its
:class:`~tsid_py.hierarchy.Hierarchy`, which solves the levels one at a time with that
backend.
"""

from __future__ import annotations

import threading
from time import perf_counter

import pinocchio as pin

from ._validation import finite_vector, positive_scalar
from .assembly import Layout
from .backends import Backend, make_backend
from .backends.base import FEASIBILITY_TOLERANCE, constraint_violation
from .closures import Closure, closure_of, joint_names
from .constraints.base import Constraint
from .contacts import Contact
from .external_wrenches import ExternalWrench
from .hierarchy import Hierarchy
from .overrides import StepOverrides
from .qp import QP
from .ramps import ForceRamp, normal_force_limits
from .robot import Robot
from .settings import CHANGES, Setting, positive
from .solution import Solution
from .solver_layouts import _NOTHING_SOFTENED, SolverLayouts
from .solver_ramps import ContactRamps
from .solver_steady import SteadyStep
from .step_log import StepLog
from .tasks.base import Task
from .tasks.regularization import (DEFAULT_REGULARIZATION, regularization_tasks,  # noqa: F401 (re-exported)
                                  regularization_weights)

class DynamicsSolver(ContactRamps, SolverLayouts):
    """Task-space inverse dynamics: one QP over ``[q̈; f]`` per call to :meth:`solve`.

    Parameters
    ----------
    robot : the :class:`~tsid_py.Robot` to control.
    dt : control period, s (used by velocity/position limits and contact transitions).
    qp_solver : ``"reduced"`` (default: null-space elimination, the previous step's active
        set and a hot-started DAQP; see :mod:`tsid_py.backends.reduced`), ``"proxsuite"``
        (the full QP), any qpsolvers backend name, or a :class:`~tsid_py.backends.Backend`
        instance.
    regularization : ``{"acceleration", "force", "torque"}`` weights overriding
        :data:`DEFAULT_REGULARIZATION` (0 turns one off).
    actuated_root : on a floating base, leave the 6 root rows of the equation of motion free
        and report the wrench an imaginary "crane" would apply in ``tau[:6]`` (plain inverse
        dynamics); by default those rows are equalities and ``tau[:6] == 0``.
    diagnose : when a solve fails, check at once whether the hard constraints are feasible and
        raise :class:`~tsid_py.InfeasibleError` (whose conflicts are searched when first read) or
        :class:`~tsid_py.SolverError` (its cost: the Troubleshooting page); ``False`` raises a
        plain :class:`~tsid_py.SolverError` without the check (:class:`tsid_py.control.FailurePolicy`).
    closures : hold the model file's closed chains and couplings (:attr:`~tsid_py.Robot.closures`:
        mimic joints, MJCF equalities) as constraints of the equation of motion, their forces as
        variables (:mod:`tsid_py.closures`), and its passive joints at ``τ = 0``
        (:attr:`passive_joints`); ``False`` treats the model as the tree of the file's joints,
        every joint actuated (offline inverse dynamics: what each joint would need).

    A solver is used by one thread at a time (concurrent calls raise ``RuntimeError``); it
    pickles and deep-copies, with its robot and items, into an independent solver.
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, qp_solver: str | Backend = "reduced",
                 regularization: dict | None = None, actuated_root: bool = False, diagnose: bool = True,
                 closures: bool = True):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        self.robot = robot
        self._dt = positive(dt, "dt")
        self.actuated_root = bool(actuated_root) and robot.floating_base
        self.diagnose = bool(diagnose)
        self.backend = make_backend(qp_solver)
        self.contacts: dict[str, Contact] = {}
        #: The mechanism's closures by name (:meth:`add_closure`), held as equalities.
        self.closures: dict[str, Closure] = {}
        self.tasks: list[Task] = []
        self.constraints: list[Constraint] = []
        #: Known wrenches in the equation of motion (:meth:`add_external_wrench`).
        self.external_wrenches: list[ExternalWrench] = []
        self._transitions: dict[str, ForceRamp] = {}
        self._retired: set[str] = set()    # removed by their ramp; a step's overrides may name them
        self._unanchored: list[Contact] = []           # contacts added since the last solve
        self._last_solution: Solution | None = None
        self._layouts: dict[frozenset, Layout] = {}    # by the hard contacts a step softens
        self._layouts_key, self._kept_layouts = None, {}   # their items' structure; other items'
        #: How many layouts were built so far (one per new set of items, and per new set of
        #: hard contacts a step's overrides soften): a count for tests and diagnostics.
        self.layouts_built = 0
        #: Incremented whenever a contact is added, removed, re-anchored or resized: what depends on
        #: the contacts' footprints (a support polygon) is stale when it changes.
        self.contact_epoch = 0
        #: The layout of the last solve (its labels describe :attr:`last_qp`).
        self.last_layout: Layout | None = None
        self._busy = threading.Lock()
        self.last_qp: QP | None = None
        self._stamps = [0.0] * 5                         # perf_counter at the phases' ends
        self._steady: SteadyStep | None = None           # what the next steady step reuses
        self._last_steady = False                        # whether the last solve was a steady step
        #: Incremented whenever the QP's configuration changes otherwise than by targets and
        #: settings: an item added or removed, a layout invalidated, a contact anchored, a
        #: force ramp started or finished (what a flight recorder keeps a new copy of the
        #: items for).
        self.configuration_epoch = 0
        #: Called around each solve when set (:class:`tsid_py.scenarios.recorder.FlightRecorder`):
        #: ``recorder.before_step(solver, q, v, overrides)`` and
        #: ``recorder.after_step(solver, solution, error)`` (solution None when the step raised),
        #: except on the steps ``step_log`` (a :class:`~tsid_py.step_log.StepLog`) covers.
        self.recorder = self.step_log = None
        #: Solves the steps whose QP has priority levels (:mod:`tsid_py.hierarchy`).
        self.hierarchy = Hierarchy()
        self.regularization = regularization or {}
        self.passive_joints = robot.passive_joints if closures else ()
        if closures:
            for description in robot.closures:
                self.add_closure(closure_of(description))
        for hook in DynamicsSolver.creation_hooks:
            hook(self)

    @property
    def _reuses_results(self) -> bool:
        """Whether the backend refills its own result on request (``solve(qp, True)``)."""
        return getattr(self.backend, "reuses_results", False)

    #: Called with each new solver (``hook(solver)``), for tools that watch every solver a
    #: program creates (``tsid-py demo --record/--rerun``: :mod:`tsid_py.tools.instruments`).
    creation_hooks: list = []

    # ------------------------------------------------------------------------ settings
    dt = Setting(positive, after="invalidate")
    """Control period, s (> 0)."""

    regularization = Setting(regularization_weights, after="_regularization_changed")
    """The regularisation weights in force (assign a dict overriding some of them)."""

    def _check_passive(self, value, name: str) -> tuple[str, ...]:
        return joint_names(self.robot, value, name)

    passive_joints = Setting("_check_passive", after="invalidate")
    """The joints without a motor, by name: their rows of the equation of motion are
    equalities, ``τ_j = 0`` (default: the robot's :attr:`~tsid_py.Robot.passive_joints`)."""

    def _regularization_changed(self) -> None:
        """The regularisation tasks of the weights in force (one per non-zero weight)."""
        self.regularization_tasks: list[Task] = regularization_tasks(self._regularization, self.robot)
        self.invalidate()

    def invalidate(self) -> None:
        """Rebuild the QP's layout before the next solve (items call this when a setting
        that shapes the QP changes)."""
        self._layouts.clear()
        self._kept_layouts.clear()
        self._layouts_key = None
        self.configuration_epoch += 1

    def footprint_changed(self) -> None:
        """A contact's footprint changed (a sole's ``length`` or ``width`` assigned):
        :attr:`contact_epoch` tells what depends on it (a support polygon)."""
        self._contacts_moved()

    # ------------------------------------------------------------------------ configuration
    def add_contact(self, contact: Contact, transition: float = 0.0) -> Contact:
        """Activate ``contact``, anchored where its frame is at the state of the next solve
        (the state the controller first sees it in contact; until then, at the robot's
        current state, for code that reads ``contact.anchor`` before). With ``transition``
        > 0 (s) its largest normal force ramps from 0 to the robot's weight over that time
        (then ``f_max`` applies), so the wrenches change smoothly."""
        if not isinstance(contact, Contact):
            raise ValueError(f"contact must be a PointContact or PlanarContact, got {type(contact).__name__}")
        if not self.robot.floating_base:
            raise ValueError("contacts need a floating-base robot (load it with floating_base=True)")
        if contact.name in self.contacts and contact.name not in self._transitions:
            raise ValueError(f"contact {contact.name!r} is already active")
        transition = positive_scalar(transition, "transition", allow_zero=True)
        replaced = self.contacts.get(contact.name)
        if replaced is not contact:
            contact.join(self, self.robot)
        if replaced is not None and replaced is not contact:
            replaced.detach()
        contact.anchor_at(self.robot.placement_at(self.robot.q, contact.frame_id))
        self._unanchored.append(contact)
        self.contacts[contact.name] = contact
        self._retired.discard(contact.name)
        self._transitions.pop(contact.name, None)
        if transition > 0:
            self._transitions[contact.name] = ForceRamp(0.0, min(self.robot.weight, contact.f_max), transition)
            self.configuration_epoch += 1
        self._items_changed()
        self._contacts_moved()
        return contact

    def reanchor_contact(self, name: str, placement: pin.SE3 | None = None) -> None:
        """Anchor an active contact anew: where its frame is at the robot's last update (or
        at ``placement``, world): its ``kp`` term pulls the frame there from now on, and
        :attr:`contact_epoch` tells what depends on its footprint that it moved."""
        contact = self.contacts.get(name)
        if contact is None:
            raise KeyError(f"contact {name!r} is not active; active: {list(self.contacts)}")
        if placement is None:
            robot = self.robot
            placement = (robot.frame_placement(contact.frame_id) if robot.updated
                         else robot.placement_at(robot.q, contact.frame_id))
        elif not isinstance(placement, pin.SE3):
            raise ValueError(f"placement must be a pinocchio.SE3, got {type(placement).__name__}")
        contact.anchor_at(placement)
        if contact in self._unanchored:             # anchored now: not again at the next solve
            self._unanchored.remove(contact)
        self._contacts_moved()

    def remove_contact(self, name: str, transition: float = 0.0) -> None:
        """Deactivate a contact, at once or ramping its normal force to 0 over ``transition`` s
        (from the force it carried at the last solve)."""
        if name not in self.contacts:
            raise KeyError(f"contact {name!r} is not active; active: {list(self.contacts)}")
        transition = positive_scalar(transition, "transition", allow_zero=True)
        if transition == 0:
            self.contacts.pop(name).detach()
            self._transitions.pop(name, None)
            self._items_changed()
            self._contacts_moved()
            return
        contact = self.contacts[name]
        last = self._last_solution
        carried = last is not None and name in last.local_wrenches
        start = float(last.local_wrenches[name][contact.normal_index]) if carried else contact.f_max
        self._transitions[name] = ForceRamp(max(start, contact.f_min), 0.0, transition, removing=True)
        self.configuration_epoch += 1

    def add_task(self, task: Task) -> Task:
        """Add ``task`` (bound to this solver's robot; its default target, if it has none, is
        computed at the robot's ``q_ref`` without changing the robot's state)."""
        if not isinstance(task, Task):
            raise ValueError(f"task must be a tsid_py.tasks.Task, got {type(task).__name__}")
        task.join(self, self.robot)
        self.tasks.append(task)
        self._items_changed()
        return task

    def remove_task(self, task: Task | str) -> None:
        """Remove a task, given itself or its name (``KeyError`` if it is not here)."""
        self._remove_item(self.tasks, task, "task")

    def add_constraint(self, constraint: Constraint) -> Constraint:
        """Add an inequality constraint (bound to this solver's robot)."""
        if not isinstance(constraint, Constraint):
            raise ValueError(f"constraint must be a tsid_py.constraints.Constraint, got {type(constraint).__name__}")
        constraint.join(self, self.robot)
        self.constraints.append(constraint)
        self._items_changed()
        return constraint

    def add_closure(self, closure: Closure) -> Closure:
        """Add a closure of the mechanism (:mod:`tsid_py.closures`; bound to this solver's
        robot): its force becomes a variable and its rows equalities. The model file's are
        added by the constructor."""
        if not isinstance(closure, Closure):
            raise ValueError(f"closure must be a tsid_py.closures.Closure, got {type(closure).__name__}")
        if closure.name in self.closures:
            raise ValueError(f"a closure named {closure.name!r} is already in the solver; "
                             f"closures: {list(self.closures)}")
        closure.join(self, self.robot)
        self.closures[closure.name] = closure
        self._items_changed()
        return closure

    def remove_closure(self, name: str) -> None:
        """Remove a closure by name (``KeyError`` if it is not here)."""
        if name not in self.closures:
            raise KeyError(f"closure {name!r} is not in the solver; closures: {list(self.closures)}")
        self.closures.pop(name).detach()
        self._items_changed()

    def remove_constraint(self, constraint: Constraint | str) -> None:
        """Remove a constraint, given itself or its name (``KeyError`` if it is not here)."""
        self._remove_item(self.constraints, constraint, "constraint")

    def add_external_wrench(self, wrench: ExternalWrench) -> ExternalWrench:
        """Add a known wrench to the equation of motion (``M q̈ + h = Sᵀτ + Σ J_cᵀ f_c + Σ J_kᵀ w_k``;
        :mod:`tsid_py.external_wrenches`); its value is read at each solve (``wrench.set_wrench``)."""
        if not isinstance(wrench, ExternalWrench):
            raise ValueError(f"wrench must be a tsid_py.ExternalWrench, got {type(wrench).__name__}")
        if any(item.name == wrench.name for item in self.external_wrenches if item is not wrench):
            raise ValueError(f"an external wrench named {wrench.name!r} is already in the solver; give each a "
                             "distinct name (ExternalWrench(..., name=...))")
        wrench.join(self, self.robot)
        self.external_wrenches.append(wrench)
        self._items_changed()
        return wrench

    def remove_external_wrench(self, wrench: ExternalWrench | str) -> None:
        """Remove a known wrench, given itself or its name (``KeyError`` if it is not here)."""
        self._remove_item(self.external_wrenches, wrench, "external wrench")

    def _remove_item(self, items: list, item, kind: str) -> None:
        """Remove ``item`` (itself or its name) from ``items``, detached from this solver;
        ``KeyError`` naming the ``kind`` and the names held if it is not there."""
        match = [held for held in items if held is item or held.name == item]
        if not match:
            raise KeyError(f"{kind} {item!r} is not in the solver; held: {[held.name for held in items]}")
        items.remove(match[0])
        match[0].detach()
        self._items_changed()

    # ------------------------------------------------------------------------ the QP
    def normal_force_limits(self, overrides: StepOverrides | None = None) -> dict[str, tuple[float, float]]:
        """``(f_min, f_max)`` of the contacts whose normal force is ramping now, or whose
        bounds ``overrides`` change this step (within the ramp: its bound caps ``f_max``)."""
        return normal_force_limits(self._transitions, self.contacts, overrides)

    def _softened(self, overrides: StepOverrides) -> frozenset:
        """The hard contacts ``overrides`` soften (names), checking that every contact it
        names is active."""
        contacts = self.contacts
        softened = []
        for name, entry in overrides.contacts.items():
            contact = contacts.get(name)
            if contact is None:
                raise KeyError(f"the step's overrides name contact {name!r}, which is not active; "
                               f"active: {list(contacts)}")
            if entry.soft_weight is not None and contact.priority == "hard" and contact.kinematic:
                softened.append(name)
        return frozenset(softened)

    # ------------------------------------------------------------------------ solving
    def solve(self, q, v, overrides: StepOverrides | None = None, out: Solution | None = None) -> Solution:
        """One control step at state ``(q, v)``; raises :class:`~tsid_py.SolverError`
        (or :class:`~tsid_py.InfeasibleError`, whose ``conflicts`` are found when first
        read) when the QP has no solution.

        ``overrides`` (:class:`~tsid_py.overrides.StepOverrides`): what this step's QP
        changes from the configured one — contacts softened or their normal force bounded,
        torque limits scaled, soft tasks weighed otherwise — without changing any item.

        ``out``: a :class:`~tsid_py.Solution` this solver returned before, refilled in place
        and returned when this step's QP has its shape (the same contacts), else a new one
        is returned. ``sol = solver.solve(q, v, out=sol)`` is the control loop's
        allocation-free step (see :doc:`performance`); the refilled solution's arrays are
        overwritten, so copy what you keep."""
        if not self._busy.acquire(False):          # not blocking
            raise RuntimeError("this DynamicsSolver is being used by another thread; use one solver per thread")
        recorder = self.recorder
        plain = overrides is None or type(overrides) is StepOverrides and not overrides.active   # (no override)
        log = self.step_log if recorder is not None else None
        if log is not None and not (log.armed and log.epoch == self.configuration_epoch and log.changes == CHANGES[0]
                                    and plain):
            log = None                               # (not a step the log covers: the hooks see it)
        try:
            if recorder is not None and log is None:
                recorder.before_step(self, q, v, overrides)
            solution = self._solve(q, v, overrides, out, plain, log)
        except BaseException as error:
            if recorder is not None:
                if log is not None:                  # a covered step: its hooks see it now
                    recorder.before_step(self, q, v, overrides)
                recorder.after_step(self, None, error)
            raise
        finally:
            self._busy.release()
        if log is not None:
            if not self._last_steady:                # (a steady step wrote its row)
                log.record(q, v, solution, self.last_step_seconds)
        elif recorder is not None:
            recorder.after_step(self, solution, None)
        return solution

    def _solve(self, q, v, overrides, out, plain: bool, log: StepLog | None) -> Solution:
        """:meth:`solve`'s step, holding the solver (``plain``: no override this step; ``log``:
        the step log that covers it, whose row a steady step writes): the steady step when it
        serves (:mod:`tsid_py.solver_steady`), else the general one."""
        steady = self._steady
        if steady is not None and out is steady.solution and plain:
            solution = steady.step(q, v, log)
            if solution is not None:
                self._last_solution, self._last_steady = solution, True   # (a removal's ramp starts from its forces)
                return solution
        if log is not None:                          # (the last step's row may wait for its time)
            log.settle(self.last_step_seconds)
        self._steady, self._last_steady = None, False
        solution, overrides, layout, result = self._general_step(q, v, overrides, out)
        if out is not None and overrides is None and not self._transitions and not self._unanchored:
            self._steady = SteadyStep.of(self, layout, result, solution, self._stamps)
        return solution

    def _general_step(self, q, v, overrides, out) -> tuple:
        """A step the general way: its solution, overrides (None when inactive), layout and
        the backend's result."""
        tic = perf_counter()
        self.robot.update(q, v)                      # q and v checked (the error names them), one pass
        t_dynamics = perf_counter()
        if self._transitions:
            self._retire_finished_transitions()
            for transition in self._transitions.values():
                transition.elapsed += self._dt       # bounds hold at the end of this control period
        if overrides is not None and (type(overrides) is not StepOverrides or overrides.active):
            if not isinstance(overrides, StepOverrides):
                raise ValueError(f"overrides must be a tsid_py.overrides.StepOverrides, "
                                 f"got {type(overrides).__name__}")
            overrides = overrides.without_contacts(self._retired)
            layout = self.layout_for(self._softened(overrides))
            limits = self.normal_force_limits(overrides)
        else:
            overrides = None
            layout = self._layouts.get(_NOTHING_SOFTENED) or self.layout
            limits = self.normal_force_limits() if self._transitions else None
        self.last_layout = layout
        if self._unanchored:
            self._anchor_new_contacts()
        qp = layout.assemble(limits, overrides)
        self.last_qp = qp
        t_assembly = perf_counter()
        if layout.levels:
            result = self.hierarchy.solve(qp, layout.nv, self.backend, overrides and overrides.levels_from)
        else:
            result = self.backend.solve(qp, True) if out is not None and self._reuses_results else self.backend.solve(qp)
        t_qp = perf_counter()
        if not (result.success and (finite_vector(result.x) if self.backend.checks_constraints
                                    else constraint_violation(qp, result.x) <= FEASIBILITY_TOLERANCE)):
            from .diagnosis import step_failure      # (a failed step only: imported then)

            raise step_failure(self, layout, qp, result)
        solution = layout.extract(result, out)
        if layout.levels:
            solution.levels = result.levels
        stamps = self._stamps
        stamps[0], stamps[1], stamps[2], stamps[3], stamps[4] = tic, t_dynamics, t_assembly, t_qp, perf_counter()
        self._last_solution = solution          # a removal's ramp starts from its forces
        for task in layout.recording_tasks:
            task.record(solution)
        return solution, overrides, layout, result

    def _contacts_moved(self) -> None:
        """A contact was added, removed, anchored anew or resized."""
        self.contact_epoch += 1
        self.configuration_epoch += 1

    def _anchor_new_contacts(self) -> None:
        """Anchor the contacts added since the last solve where their frames are now."""
        for contact in self._unanchored:
            if self.contacts.get(contact.name) is contact:
                contact.anchor_at(self.robot.frame_placement(contact.frame_id))
        self._unanchored.clear()
        self._contacts_moved()

    @property
    def last_step_steady(self) -> bool:
        """Whether the last solve ran the steady step (:mod:`tsid_py.solver_steady`)."""
        return self._last_steady

    @property
    def last_step_seconds(self) -> float:
        """Seconds the last solve took from its first phase to the end of its extraction (the
        sum of :attr:`timings`; NaN before the first solve)."""
        start, end = self._stamps[0], self._stamps[4]
        return end - start if start else float("nan")

    @property
    def timings(self) -> dict[str, float]:
        """Seconds spent in each phase of the last solve: dynamics, assembly, qp, extraction."""
        if not self._stamps[0]:
            return {}
        start, dynamics, assembly, qp, end = self._stamps
        return {"dynamics": dynamics - start, "assembly": assembly - dynamics, "qp": qp - assembly,
                "extraction": end - qp}

    # ------------------------------------------------------------------------ copies
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_busy"] = None
        state["_layouts"], state["_kept_layouts"] = {}, {}     # views of the robot's buffers: rebuilt
        state["_layouts_key"] = None
        state["last_layout"] = None
        state["last_qp"] = state["_steady"] = None
        state["recorder"] = state["step_log"] = None     # a recorder watches one solver
        return state

    def __setstate__(self, state: dict) -> None:
        """Restore a pickled or copied solver: its items are bound to its own robot again
        (they hold views of the robot's buffers, which a copy does not share)."""
        self.__dict__.update(state)
        self._busy, self.step_log, self._steady = threading.Lock(), None, None
        for item in [*self.contacts.values(), *self.tasks, *self.regularization_tasks, *self.constraints,
                     *self.external_wrenches, *self.closures.values()]:
            item.bind(self.robot)
