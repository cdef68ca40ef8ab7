"""Known external wrenches in a controller: a stage that hands the solver each step's value.

A load carried in a hand, a tool pressing on a surface, a cable pulling the trunk: when the
wrench is known — measured by a wrist force sensor or a load cell, or known in advance (a
payload's weight) — the solver puts it in the equation of motion
(:class:`~tsid_py.external_wrenches.ExternalWrench`) and the torques and contact forces
account for it; a controller that does not know it sees it only as a disturbance its feedback
has to fight. :func:`attach_external_wrench` adds the item to a controller's solver and an
:class:`ExternalWrenchStage` before its solve stage::

    stage = attach_external_wrench(controller, "arm_right_7_link")
    # world-aligned, at the frame's origin
    controller.step(q, v, wrenches={"arm_right_7_link": measured})

The stage reads, in order: ``source()`` when given (a callable returning the wrench, (6,)),
else the step's measured ``state.wrenches[key]`` (``key`` default: the item's name) when the
step has it; otherwise the wrench keeps its last value (a constant load).
"""

from __future__ import annotations

from collections.abc import Callable

from ..external_wrenches import ExternalWrench
from .pipeline import Pipeline, SolveStage, Stage, StepState


class ExternalWrenchStage(Stage):
    """Set ``wrench``'s value each step (see the module).

    Parameters
    ----------
    wrench : the :class:`~tsid_py.external_wrenches.ExternalWrench` (added to the controller's
        solver).
    key : the name of its reading in the step's measured wrenches (default: the item's name).
    source : a callable returning the wrench (6,) in the item's axes, called each step
        instead of reading ``state.wrenches`` (e.g. a sensor driver's last reading).
    """

    def __init__(self, wrench: ExternalWrench, *, key: str | None = None, source: Callable | None = None):
        if not isinstance(wrench, ExternalWrench):
            raise ValueError(f"wrench must be a tsid_py.ExternalWrench, got {type(wrench).__name__}")
        if source is not None and not callable(source):
            raise ValueError(f"source must be a callable returning a wrench (6,), got {type(source).__name__}")
        self.wrench = wrench
        self.key = wrench.name if key is None else key
        self.source = source

    def step(self, state: StepState) -> None:
        """The step's value: ``source()``, else ``state.wrenches[key]``, else the last one."""
        if self.source is not None:
            self.wrench.set_wrench(self.source())
        elif state.wrenches is not None and self.key in state.wrenches:
            self.wrench.set_wrench(state.wrenches[self.key])


def attach_external_wrench(controller: Pipeline, frame: str, wrench=None, *, local: bool = False,
                           name: str | None = None, key: str | None = None,
                           source: Callable | None = None) -> ExternalWrenchStage:
    """Add a known wrench on ``frame`` to ``controller``'s solver (starting at ``wrench``, (6,),
    default zero; ``local``: in the frame's axes) and an :class:`ExternalWrenchStage` just
    before its solve stage; returns the stage (its ``wrench`` is the solver's item)."""
    solver = getattr(controller, "solver", None)
    if solver is None or not isinstance(controller, Pipeline):
        raise ValueError(f"controller must be a pipeline with a solver, got {type(controller).__name__}")
    item = solver.add_external_wrench(ExternalWrench(frame, wrench, local=local, name=name))
    stage = ExternalWrenchStage(item, key=key, source=source)
    controller.insert(stage, before=SolveStage)
    return stage
