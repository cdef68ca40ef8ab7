"""Controllers as pipelines of stages sharing one step state.

A control step is a sequence of stages, each a small object with one method,
``step(state)``, run in order on one :class:`StepState`::

    (estimate) → plan → contact state → targets → solve

* an **estimate** stage may replace the measured ``state.q``, ``state.v`` — or form them from
  ``state.sensors`` (:class:`~tsid_py.control.estimation.EstimationStage`);
* **plan** stages move task targets along a plan and make or break contacts
  (:class:`~tsid_py.control.stance.Stance`, the one way a controller changes contacts);
* a **contact-state** stage looks at what the last step left (``state.previous``, and the
  robot's kinematics, which are that step's until the solve) and decides for this step's
  contacts (a rocking sole softened);
* **targets** stages hand tasks their per-step inputs (the support polygon the centre of
  pressure is kept in);
* the **solve** stage (:class:`SolveStage`) solves the QP at ``(state.q, state.v)`` with
  ``state.overrides`` and sets ``state.solution``; stages after it may look at the result.

What a stage changes for this step only — a contact softened or released, torque-limit slack,
a task weighed otherwise — goes into ``state.overrides``
(:class:`~tsid_py.overrides.StepOverrides`), which the solver's assembly applies: stages
never change a task's, contact's or constraint's settings to act for one step. Per-step
inputs reach items through their input methods (``set_target``, ``set_support``).

A :class:`Pipeline` runs its stages each :meth:`~Pipeline.step`; a user inserts their own
stage with :meth:`Pipeline.insert` (see ``docs/extending.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from .._validation import as_vector, positive_scalar
from ..overrides import StepOverrides
from ..solution import Solution


class StepState:
    """What one control step's stages share (one object, refreshed each step).

    Attributes
    ----------
    time : the controller's clock at this step, s.
    q, v : the state the solve uses (nq,), (nv,): the measured one, unless a stage (an
        estimator) replaces it.
    wrenches : measured contact wrenches by contact name (6,) world-aligned at the contact
        frames, or None.
    sensors : the step's raw sensor readings (a
        :class:`~tsid_py.estimation.readings.SensorReadings`) for an estimate stage, or None.
    overrides : this step's :class:`~tsid_py.overrides.StepOverrides` (empty at the start).
    previous : the last step's :class:`~tsid_py.Solution` (None at the first step).
    solution : this step's, set by the solve stage.
    mode : how the balance stages use the support this step
        (:class:`~tsid_py.control.support.BalanceMode`; ``None``: standing).
    relaxed : what stages relaxed this step besides the solve's own failure policy (e.g. a
        lost contact released): the solve stage reports them in the solution's ``relaxed``,
        with ``success=False``.
    """

    __slots__ = ("time", "q", "v", "wrenches", "sensors", "overrides", "previous", "solution", "mode", "relaxed")

    def __init__(self):
        self.time = 0.0
        self.q = self.v = None
        self.wrenches = None
        self.sensors = None
        self.overrides = StepOverrides()
        self.previous: Solution | None = None
        self.solution: Solution | None = None
        self.mode = None
        self.relaxed: tuple[str, ...] = ()

    def begin(self, time: float, q: np.ndarray, v: np.ndarray, wrenches: dict | None, sensors=None) -> None:
        """Start a step: the last solution becomes ``previous``, the overrides and the mode
        are cleared."""
        self.time, self.q, self.v, self.wrenches, self.sensors = time, q, v, wrenches, sensors
        self.previous, self.solution, self.mode, self.relaxed = self.solution, None, None, ()
        if self.overrides.active:
            self.overrides.clear()


def checked_wrenches(wrenches: dict | None) -> dict | None:
    """Measured contact wrenches where they enter a controller: a mapping of contact name to
    a finite (6,) wrench (a sensor's NaN is refused by name, never read as a load nor as its
    absence); None stays None."""
    if wrenches is None:
        return None
    if not hasattr(wrenches, "items"):
        raise ValueError(f"wrenches must map contact names to (6,) wrenches, got {type(wrenches).__name__}")
    return {name: as_vector(wrench, f"wrenches[{name!r}]", 6) for name, wrench in wrenches.items()}


class Stage:
    """One part of a control step (see the module): implement :meth:`step`."""

    def step(self, state: StepState) -> None:
        """Read and update ``state`` for this step."""
        raise NotImplementedError(f"{type(self).__name__} must implement step(state)")


class SolveStage(Stage):
    """Solve the step's QP at ``(state.q, state.v)`` with ``state.overrides`` and set
    ``state.solution``. ``solver``: anything with ``solve(q, v, overrides)`` — a
    :class:`~tsid_py.DynamicsSolver`, or a :class:`~tsid_py.control.FailurePolicy` around
    one (which never raises).

    ``refill`` (False by default): have the solver refill its last solution in place
    (``solve(q, v, overrides, out=last)``, which the solver needs to take; see
    :meth:`~tsid_py.DynamicsSolver.solve`): no allocation, and the solver's steady step
    (:mod:`tsid_py.solver_steady`) on steps without overrides — the control loop's way. Each
    step then returns the same object, overwritten by the next step, and ``state.previous``
    is that object too: stages read it before the solve (as the library's do); copy what you
    keep."""

    def __init__(self, solver, *, refill: bool = False):
        self.solver = solver                      # (and ``_last``: the solver's last solution, refill's next out)
        self.refill = bool(refill)

    def step(self, state: StepState) -> None:
        """``state.solution = solver.solve(q, v, overrides)``, reported as relaxed
        (``success=False``) when a stage relaxed the step (``state.relaxed``)."""
        if self.refill:
            solution = self._last = self._solve(state.q, state.v, state.overrides, out=self._last)
        else:
            solution = self._solve(state.q, state.v, state.overrides)
        if state.relaxed:
            solution = replace(solution, success=False, relaxed=state.relaxed + solution.relaxed,
                               status=f"relaxed ({', '.join(state.relaxed)}): {solution.status}")
        state.solution = solution

    @property
    def solver(self):
        """What this stage solves with (a solver or a failure policy)."""
        return self._solver

    @solver.setter
    def solver(self, solver) -> None:
        if not callable(getattr(solver, "solve", None)):
            raise ValueError(f"solver must have a solve(q, v, overrides) method, got {type(solver).__name__}")
        self._solver, self._solve, self._last = solver, solver.solve, None


class Pipeline:
    """A controller: its ``stages`` run in order each :meth:`step` (see the module).

    Parameters
    ----------
    stages : the stages, one of which sets ``state.solution`` (a :class:`SolveStage`).
    dt : control period, s: the clock :attr:`time` advances by it each step.
    solver : the :class:`~tsid_py.DynamicsSolver` whose ``dt`` is the control period, instead
        of ``dt``: the pipeline's period is then the solver's, so that assigning either
        changes both (and what counts in the solver's periods follows).
    """

    def __init__(self, stages: Iterable[Stage], dt: float | None = None, *, solver=None):
        self.stages: list[Stage] = []
        self._steps: tuple = ()
        for stage in stages:
            self.insert(stage)
        if (dt is None) == (solver is None):
            raise ValueError("give the control period dt or the solver whose dt it is, not both")
        self._period_solver = solver
        if solver is None:
            self.dt = dt
        #: The state the stages share; after a step, its solution and overrides are that step's.
        self.state = StepState()
        #: The controller's clock, s (advanced by ``dt`` after each step).
        self.time = 0.0

    @property
    def dt(self) -> float:
        """Control period, s (> 0): the solver's when the pipeline was given one (assigning it
        changes the solver's; the clock, the contact state's counts and the force ramps follow)."""
        solver = self._period_solver
        return self._dt if solver is None else solver.dt

    @dt.setter
    def dt(self, value) -> None:
        if self._period_solver is None:
            self._dt = positive_scalar(value, "dt")
        else:
            self._period_solver.dt = value

    def step(self, q=None, v=None, wrenches: dict | None = None, *, sensors=None) -> Solution:
        """One control step at the measured state ``(q, v)`` (``wrenches``: measured contact
        wrenches by contact name, world-aligned at the contact frames, optional) — or, for a
        pipeline with an estimate stage, from the raw ``sensors`` readings (``q``, ``v`` then
        None): run the stages, advance the clock, return the step's solution."""
        state = self.state
        state.begin(self.time, q, v, None if wrenches is None else checked_wrenches(wrenches), sensors)
        for step in self._steps:
            step(state)
        solution = state.solution
        if solution is None:
            raise RuntimeError("no stage set state.solution: the pipeline needs a solve stage")
        self.time += self.dt
        return solution

    def prepare(self) -> int:
        """Do now, before the control loop, what a step would otherwise do the first time it
        meets a case: build the solver's layouts for every set of its contacts a stage may
        soften (:meth:`~tsid_py.DynamicsSolver.prepare_layouts`: a layout's build takes about a
        control period, and a contact monitor first softens a sole in the middle of a push).
        They stay until the solver's items change. Returns how many layouts were built.
        :func:`tsid_py.loop.prepare_loop` calls it for the controllers it is given."""
        solver = self._period_solver
        if solver is None:
            solvers = [getattr(stage.solver, "solver", stage.solver) for stage in self.stages
                       if isinstance(stage, SolveStage)]
            solver = solvers[0] if solvers else None
        return solver.prepare_layouts() if hasattr(solver, "prepare_layouts") else 0

    @property
    def refill(self) -> bool:
        """Whether the solve stages refill one solution in place each step (the control loop's
        way: no allocation, the solver's steady step; see :class:`SolveStage`): each step then
        returns the same object, overwritten by the next — copy what you keep. False by default."""
        return any(stage.refill for stage in self.stages if isinstance(stage, SolveStage))

    @refill.setter
    def refill(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"refill must be True or False, got {value!r}")
        for stage in self.stages:
            if isinstance(stage, SolveStage):
                stage.refill = bool(value)

    def insert(self, stage: Stage, *, before: Stage | type | None = None, after: Stage | type | None = None) -> Stage:
        """Add ``stage``: at the end, or just ``before`` / ``after`` a stage (an instance, or
        the first stage of a type). Returns the stage."""
        if not callable(getattr(stage, "step", None)):
            raise ValueError(f"stage must have a step(state) method, got {type(stage).__name__}")
        if any(candidate is stage for candidate in self.stages):
            raise ValueError(f"stage {type(stage).__name__} is already in the pipeline (at {self.index(stage)}): a stage "
                             "runs once a step")
        if before is not None and after is not None:
            raise ValueError("give before or after, not both")
        if before is None and after is None:
            self.stages.append(stage)
        else:
            index = self.index(before if before is not None else after)
            self.stages.insert(index if before is not None else index + 1, stage)
        self._steps = tuple(stage.step for stage in self.stages)       # bound once: the loop's path
        return stage

    def index(self, stage: Stage | type) -> int:
        """Position of ``stage`` (an instance, or the first stage of a type); ``KeyError``
        naming the stages otherwise."""
        for position, candidate in enumerate(self.stages):
            if candidate is stage or (isinstance(stage, type) and isinstance(candidate, stage)):
                return position
        raise KeyError(f"stage {stage!r} is not in the pipeline; stages: {[type(s).__name__ for s in self.stages]}")

    def weight_in_force(self, task) -> np.ndarray:
        """The per-axis weights ``task`` had at the last step: a stage's override, else its own."""
        return self.state.overrides.task_weights.get(task, task.weight)
