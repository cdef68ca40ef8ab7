"""The state estimator as a controller stage: the pipeline runs on the estimate.

:class:`EstimationStage` goes first in a controller's pipeline. Each step it reads the raw
sensor readings the loop passes (``controller.step(sensors=readings)``,
:class:`~tsid_py.estimation.readings.SensorReadings`), the normal force on each foot —
measured (``state.wrenches``, or the readings' own) when the robot has force sensors, else as
the last step planned it (a foot without a contact in the solver carries none) — and the
acceleration the last step commanded, advances its
:class:`~tsid_py.estimation.StateEstimator` and hands ``(q, v)`` to the stages after it.

It also tells the controller's contact-state monitor how noisy the estimate's joint
positions and velocities are (:meth:`~tsid_py.control.contact_state.ContactStateMonitor`'s
``position_noise`` and ``velocity_noise``), so that the monitor's thresholds account for it.

    controller = BalanceController(robot, dt)
    settings = EstimatorSettings.for_sensors(spec, dt)
    estimator = StateEstimator(robot, dt, settings)
    attach_estimator(controller, estimator)
    for each control period:
        solution = controller.step(sensors=read_sensors())
"""

from __future__ import annotations

import numpy as np

from ..estimation.estimator import StateEstimator
from .pipeline import Pipeline, Stage, StepState


class EstimationStage(Stage):
    """Replace the step's ``(q, v)`` by ``estimator``'s estimate from ``state.sensors``
    (see the module); ``solver``: the controller's, whose contacts and last solution give
    the planned forces."""

    def __init__(self, estimator: StateEstimator, solver):
        if not isinstance(estimator, StateEstimator):
            raise ValueError(f"estimator must be a tsid_py.estimation.StateEstimator, got {type(estimator).__name__}")
        self.estimator, self.solver = estimator, solver
        self.feet = list(estimator.feet)
        self.forces = estimator.forces                 # filled in place: no copy in the update
        self._update = estimator.update

    def step(self, state: StepState) -> None:
        """Estimate ``(q, v)`` from ``state.sensors``."""
        readings = state.sensors
        if readings is None:
            raise ValueError("the estimation stage needs sensor readings: call step(sensors=readings)")
        if state.wrenches is None:                     # the force sensors' readings, for the stages after
            state.wrenches = readings.wrenches
        wrenches = state.wrenches
        forces, previous, contacts = self.forces, state.previous, self.solver.contacts
        for i, foot in enumerate(self.feet):
            if wrenches is not None and foot in wrenches:
                forces[i] = wrenches[foot][2]
            elif previous is not None and foot in contacts:
                local = previous.local_wrenches.get(foot)
                forces[i] = local[2] if local is not None else 0.0
            else:
                forces[i] = 0.0 if previous is not None else np.inf     # at the start: as it stands
        state.q, state.v = self._update(readings, forces, previous.ddq if previous is not None else None)


def attach_estimator(controller: Pipeline, estimator: StateEstimator) -> EstimationStage:
    """Insert an :class:`EstimationStage` at the head of ``controller``'s pipeline and tell
    its contact-state monitor (``controller.contact_state``, if any) the estimate's noise;
    returns the stage. The controller is then stepped with ``step(sensors=readings)``."""
    solver = getattr(controller, "solver", None)
    if solver is None:
        raise ValueError(f"controller must have a solver, got {type(controller).__name__}")
    stage = EstimationStage(estimator, solver)
    controller.insert(stage, before=controller.stages[0])
    monitor = contact_monitor(controller)
    if monitor is not None:
        monitor.position_noise = estimator.position_noise()
        monitor.velocity_noise = estimator.velocity_noise()
    return stage


def contact_monitor(controller):
    """The contact-state monitor of a balance or walking controller (``contact_state``, or its
    balance controller's), or None."""
    monitor = getattr(controller, "contact_state", None)
    if monitor is None and getattr(controller, "balance", None) is not None:
        monitor = controller.balance.contact_state
    return monitor
