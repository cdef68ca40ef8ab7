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

from .._validation import positive_scalar
from ..estimation.estimator import StateEstimator
from ..models.profile import profile_of
from .pipeline import Pipeline, Stage, StepState, checked_wrenches

#: The settling time (s) of a point foot put down by its planned force (see
#: :func:`attach_estimator`): Go2 under ``--realistic`` puts its feet down 0.8–2.1 mm above
#: the ground; they reach it in 6–9 ms.
POINT_FOOT_SETTLE = 0.02


class EstimationStage(Stage):
    """Replace the step's ``(q, v)`` by ``estimator``'s estimate from ``state.sensors``
    (see the module); ``solver``: the controller's, whose contacts and last solution give
    the planned forces. ``settle_time`` (s): a foot whose force is the planned one counts
    only once its contact has been in the solver this long (see :func:`attach_estimator`)."""

    def __init__(self, estimator: StateEstimator, solver, settle_time: float = 0.0):
        if not isinstance(estimator, StateEstimator):
            raise ValueError(f"estimator must be a tsid_py.estimation.StateEstimator, got {type(estimator).__name__}")
        self.estimator, self.solver = estimator, solver
        self.feet = list(estimator.feet)
        self._numbered_feet = tuple(enumerate(self.feet))
        self._dt = estimator.dt
        self.forces = estimator.forces                 # filled in place: no copy in the update
        self._update = estimator.update
        self.settle_steps = int(round(positive_scalar(settle_time, "settle_time", allow_zero=True) / estimator.dt))
        #: Control steps each foot's contact has been in the solver (settled ones: at least
        #: ``settle_steps``; every foot counts as settled at the start).
        self.held = [self.settle_steps] * len(self.feet)

    def step(self, state: StepState) -> None:
        """Estimate ``(q, v)`` from ``state.sensors``."""
        readings = state.sensors
        if readings is None:
            raise ValueError("the estimation stage needs sensor readings: call step(sensors=readings)")
        if self.solver.dt != self._dt:
            raise ValueError(f"the controller's dt is {self.solver.dt!r} s but its estimator's is "
                             f"{self._dt!r} s (its filters' gains come from it): attach a StateEstimator "
                             "made for the new dt")
        if state.wrenches is None and readings.wrenches is not None:     # the force sensors', for the stages after
            state.wrenches = checked_wrenches(readings.wrenches)
        wrenches = state.wrenches
        forces, previous, contacts, held, settle = self.forces, state.previous, self.solver.contacts, self.held, \
            self.settle_steps
        for i, foot in self._numbered_feet:
            if wrenches is not None and foot in wrenches:
                forces[i] = wrenches[foot][2]
            elif previous is not None and foot in contacts:
                local = previous.local_wrenches.get(foot)
                held[i] += 1
                forces[i] = local[2] if local is not None and held[i] > settle else 0.0
            elif previous is None:                      # at the start: as it stands, settled
                forces[i] = np.inf
            else:
                held[i] = 0
                forces[i] = 0.0
        state.q, state.v = self._update(readings, forces, previous.ddq if previous is not None else None)


def attach_estimator(controller: Pipeline, estimator: StateEstimator) -> EstimationStage:
    """Insert an :class:`EstimationStage` at the head of ``controller``'s pipeline and tell
    its contact-state monitor (``controller.contact_state``, if any) the estimate's noise;
    returns the stage. The controller is then stepped with ``step(sensors=readings)``.

    On point feet the stage's ``settle_time`` is :data:`POINT_FOOT_SETTLE`: a foot put down
    without a force sensor to feel the ground is put down as far above it as the estimate is
    off (a millimetre or two) and reaches it under its planned force within ~10 ms; anchored
    at once, the filter reads that descent as the base rising (Go2, ``--realistic``, 3 m:
    4.4 and 2.8 mm of vertical drift, seeds 0 and 1, against 2.1 and 1.3 mm). On soles it is
    the walking gait's force ramp (:func:`landing_ramp`): a sole settles as its load comes on."""
    solver = getattr(controller, "solver", None)
    if solver is None:
        raise ValueError(f"controller must have a solver, got {type(controller).__name__}")
    point_feet = profile_of(estimator.robot).point_feet
    stage = EstimationStage(estimator, solver, settle_time=POINT_FOOT_SETTLE if point_feet else landing_ramp(controller))
    if any(isinstance(other, EstimationStage) for other in controller.stages):
        raise ValueError("controller already has an estimation stage: one estimator feeds a controller")
    if estimator.dt != solver.dt:
        raise ValueError(f"estimator.dt must be the controller's dt ({solver.dt!r} s), got {estimator.dt!r} s")
    mine, theirs = solver.robot, estimator.robot
    if (mine.nq, mine.nv, list(mine.model.names)) != (theirs.nq, theirs.nv, list(theirs.model.names)):
        raise ValueError(f"estimator must be made for the controller's robot {mine.name!r} (its joints), got one for "
                         f"{theirs.name!r}")
    controller.insert(stage, before=controller.stages[0])
    monitor = contact_monitor(controller)
    if monitor is not None:
        monitor.position_noise = estimator.position_noise()
        monitor.velocity_noise = estimator.velocity_noise()
    return stage


def landing_ramp(controller) -> float:
    """The time (s) a landing sole's planned force takes to ramp up: the walking gait's
    ``transition`` (:class:`~tsid_py.models.gait.Gait`), 0 for a controller without a gait.

    A sole landing on the clock settles while its force ramps up: G1 walking up a 10° slope
    (``--realistic``, seed 0), the sole slid 2–3 mm down the slope and sank 2 mm over the
    50 ms ramp after the force had passed the detector's 10 % of the weight. Anchored at
    once, the filter took that settling for the base's motion: half of the 3.7 cm drift
    over the 3 m (12.5 mm along the slope summed over the landings' first 60 ms); anchored
    at the ramp's end, 2.0 cm."""
    gait = getattr(controller, "gait", None)
    return float(getattr(gait, "transition", 0.0)) if gait is not None else 0.0


def contact_monitor(controller):
    """The contact-state monitor of a balance or walking controller (``contact_state``, or its
    balance controller's), or None."""
    monitor = getattr(controller, "contact_state", None)
    if monitor is None and getattr(controller, "balance", None) is not None:
        monitor = controller.balance.contact_state
    return monitor
