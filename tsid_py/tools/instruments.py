"""Watch the solvers a program creates: ``tsid-py demo NAME --record FILE --rerun TARGET``.

:func:`watching` attaches, for the duration of a ``with`` block, a flight recorder
(:class:`~tsid_py.scenarios.recorder.FlightRecorder`, saved to ``record`` at the end) and a
Rerun view (:class:`~tsid_py.tools.viewer.RerunView`) to the first solver with contacts or
tasks that is created inside it, through :attr:`tsid_py.DynamicsSolver.creation_hooks`: the
demos need no change to be recorded or seen.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..scenarios.recorder import FlightRecorder
from ..solver import DynamicsSolver
from .viewer import Instruments, RerunView


@contextmanager
def watching(record: str | None = None, rerun: str | None = None, *, capacity: int = 120_000, every: int = 10):
    """Record and/or view the first solver created in the block that takes a step (see the
    module); yields a dict that holds the ``recorder`` and ``view`` once attached."""
    attached: dict = {}
    created: list[DynamicsSolver] = []

    def hook(solver: DynamicsSolver) -> None:
        created.append(solver)

    class _Starter:
        """Attaches the watchers at the first step of the first solver that steps, then
        hands that step over to them."""

        def before_step(self, solver, q, v, overrides):
            for other in created:
                if other is not solver and other.recorder is self:
                    other.recorder = None
            solver.recorder = None                   # the recorder takes the free slot, then shares it
            recorder = FlightRecorder(solver, capacity=capacity) if record else None
            solver.recorder = None
            view = RerunView(solver, rerun, every=every, attach=False) if rerun else None
            # a recorder alone takes the slot itself: its step log then covers the steady steps
            instruments = recorder if view is None and recorder is not None else Instruments(recorder, view)
            attached.update(recorder=recorder, view=view, solver=solver, instruments=instruments)
            solver.recorder = attached["instruments"]
            solver.recorder.before_step(solver, q, v, overrides)

        def after_step(self, solver, solution, error):
            if attached.get("solver") is solver:     # the first step, begun before the hand-over
                attached["instruments"].after_step(solver, solution, error)

    starter = _Starter()

    def watch(solver: DynamicsSolver) -> None:
        hook(solver)
        if not attached:
            solver.recorder = starter

    DynamicsSolver.creation_hooks.append(watch)
    try:
        yield attached
    finally:
        DynamicsSolver.creation_hooks.remove(watch)
        for solver in created:
            if solver.recorder is starter:
                solver.recorder = None
        if attached.get("recorder") is not None:
            attached["recorder"].detach()
            attached["solver"].recorder = None
            attached["recorder"].save(record)
        if attached.get("view") is not None:
            attached["view"].close()
