"""The control loop's steady step: :meth:`tsid_py.DynamicsSolver.solve` when nothing but the
state and the tasks' targets changed since the last step.

A step in general decides a lot before it computes: whether a force ramp is under way, the
step's overrides, which layout serves them, whether a setting or an item changed, whether
the backend's kept arguments still fit the QP, how to hand the solution back. In a control
loop these answers are the same step after step, and deciding them again costs a third of
the step (Python between the compiled calls). :class:`SteadyStep` keeps the answers of a
step that went the general way — its layout, its program's and refill's arguments, the
backend's kept step — with what they depend on: the solver's
:attr:`~tsid_py.DynamicsSolver.configuration_epoch` (items, contacts, anchors, ramps), the
count of settings assigned (:data:`tsid_py.settings.CHANGES`) and the identity of the
arrays the program packs from. The next step then runs the same compiled calls in the same
order on the same buffers (so the same numbers, bit for bit):

1. the dynamics pass at ``(q, v)`` (:meth:`~tsid_py.Robot.update`'s checks first),
2. the tasks' targets packed and the program's rows (:mod:`tsid_py.assembly_program`),
   then the rows of the items it does not compile by their own writers (a
   :class:`~tsid_py.control.dcm.CapturePointTask`'s), the diagonal costs,
3. the backend's compiled step on its kept arguments
   (:meth:`~tsid_py.backends.reduced.ReducedBackend.solve_kept`),
4. the refill of the caller's solution (:mod:`tsid_py.refill`).

Anything else — a changed epoch or setting, a target array of another kind, inputs the
pass refuses — sends the step the general way (before anything but the idempotent pass and
rows ran), and that step keeps its answers anew when it is steady again. When the backend's
compiled step does not find the optimum, the backend continues as its general path would
(its DAQP rounds), and the next step goes the general way.
"""

from __future__ import annotations

from time import perf_counter

from ._numba import compiled_function
from ._validation import finite_vector
from .solution import Solution
from .step_log import StepLog, refill_and_write_row, state_vectors

_refill_and_write_row = compiled_function(refill_and_write_row)


class SteadyStep:
    """What a steady step of ``solver`` on ``layout`` reuses (see the module): kept after a
    general step that returned ``solution`` refilled, when :meth:`of` finds it steady.
    ``stamps``: the solver's list of the phases' ``perf_counter`` ends (written here too)."""

    def __init__(self, solver, layout, solution: Solution, stamps: list):
        program, backend = layout.program, solver.backend
        self.solver, self.layout, self.qp, self.solution = solver, layout, layout.qp, solution
        self.program, self.backend, self.robot, self.stamps = program, backend, solver.robot, stamps
        self.epoch, self.floats, self.kept = solver.configuration_epoch, program.floats, backend.kept_step()
        self.run_arguments = program.arguments(layout.D, layout.A, layout.b, layout.A_soft, layout.b_soft,
                                               layout.cost_diagonal_targets, layout.C, layout.l, layout.u)
        self.refill, self.zero_rows = layout.refill_of(solution), 6 if layout.root_equalities else 0
        rest = program.python
        self.others = bool(rest.hard or rest.soft or rest.linear)     # items with their own writers
        #: False once a step went the backend's general way (the next step goes the solver's).
        self.valid = True
        #: :func:`~tsid_py.refill.refill`'s arguments as one tuple, for a recorded step (built at the first).
        self.refill_arguments = None

    @classmethod
    def of(cls, solver, layout, result, solution: Solution, stamps: list) -> SteadyStep | None:
        """The steady step to keep after a general step of ``solver`` on ``layout`` without
        overrides or force ramps, which gave ``result`` and returned ``solution``; None when
        its QP has levels or bounds on single variables, no program, a backend other than one
        with a kept compiled step, or when ``solution`` is not refilled. Items the program does
        not compile write their rows with their own writers, as in the general step."""
        program, backend = layout.program, solver.backend
        kept = getattr(backend, "kept_step", lambda: None)()
        refill = layout.refill_of(solution)
        if (kept is None or kept[0] is not layout.qp or result is not backend.kept_result or layout.levels
                or layout.bounds or program is None or refill is None or refill.arguments is None
                or not solver.robot.dynamics.checks_inputs or layout.context.torque_limit_scale != 1.0):
            return None
        return cls(solver, layout, solution, stamps)

    def current(self) -> bool:
        """Whether nothing this step reuses changed since it was kept: the items (the solver's
        configuration epoch), a setting, the program's packed buffers or watched arrays, the
        backend (or its kept step)."""
        solver = self.solver
        return (self.valid and solver.configuration_epoch == self.epoch and solver.backend is self.backend
                and self.program.floats is self.floats and self.backend.kept_step() is self.kept
                and self.program.unchanged())

    def step(self, q, v, log: StepLog | None = None) -> Solution | None:
        """The steady step at ``(q, v)``: the refilled solution, or None (nothing done) when
        this step must go the general way. ``log``: the :class:`~tsid_py.step_log.StepLog`
        that covers this step, whose row the step writes (with the refill, in one compiled
        call; the time pending, see :mod:`tsid_py.step_log`)."""
        tic = perf_counter()
        if not self.current():
            return None
        self.robot.update(q, v)                      # q and v checked (the error names them), one pass
        t_dynamics = perf_counter()
        layout, program = self.layout, self.program
        layout.context.dynamics_written = True
        program.run_steady(self.run_arguments)
        if self.others:
            program.write_others(layout.context)
        else:
            layout.fill_diagonal_costs(layout.context, None, program.diagonal)
        qp = self.qp
        qp.cost_changed()
        t_assembly = perf_counter()
        backend = self.backend
        result = backend.solve_kept(qp)
        t_qp = perf_counter()
        solution = self.solution
        if result is not backend.kept_result or not finite_vector(result.x):
            self.valid = False                       # (the backend's general path, or a failure: as a general step)
            if not (result.success and finite_vector(result.x)):
                from .diagnosis import (
                    step_failure,  # (a failed step only: imported then)
                )

                raise step_failure(self.solver, layout, qp, result)
            solution = layout.extract(result, solution)
        elif log is None:  # the compiled step's optimum, checked against every row (a program's layout:
            self.refill.run_planned(result.x, layout.D, layout.bias, self.zero_rows)     # no passive joints)
            solution.refilled(result.status, result.iterations)
        else:                                        # (the same, and the log's row in the same call)
            self.refill_and_log(result, log, q, v)
            log = None                               # (written)
        stamps = self.stamps
        if log is not None:                          # (the last step's row may wait for its time)
            log.settle(stamps[4] - stamps[0])
        stamps[0], stamps[1], stamps[2], stamps[3], stamps[4] = tic, t_dynamics, t_assembly, t_qp, perf_counter()
        if log is not None:
            log.record(q, v, solution, stamps[4] - tic)
        for task in layout.recording_tasks:
            task.record(solution)
        return solution

    def refill_and_log(self, result, log: StepLog, q, v) -> None:
        """The refill (as :meth:`~tsid_py.refill.Refill.run_planned`) and ``log``'s row of
        the state ``(q, v)`` as given, in one compiled call
        (:func:`~tsid_py.step_log.refill_and_write_row`; the last step's time from the
        phase stamps, which still hold it)."""
        arguments = self.refill_arguments
        if arguments is None or arguments[0] is not result.x:     # (the backend's buffer: built once)
            layout, solution = self.layout, self.solution
            arguments = self.refill_arguments = (result.x, solution.x, layout.D, layout.bias, self.zero_rows,
                                                 solution.tau, *self.refill.arguments)
        status, iterations, stamps = result.status, result.iterations, self.stamps
        if status is not log.last_status:
            log.status_code(status)
        try:          # (the solver accepted q and v: a float64 array is a vector of the robot's size)
            covered = _refill_and_write_row(arguments, log.row_arrays, q, v, log.last_code, iterations,
                                            stamps[4] - stamps[0])
        except TypeError:        # (not float64 arrays, refused before the call ran: a list, another dtype)
            q, v = state_vectors(q, v)
            covered = _refill_and_write_row(arguments, log.row_arrays, q, v, log.last_code, iterations,
                                            stamps[4] - stamps[0])
        if not covered:
            log.armed = False
        self.solution.refilled(status, iterations)
