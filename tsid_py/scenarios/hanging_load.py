"""A load hung on a standing humanoid's hand, known to its balance controller or not.

:func:`hanging_load_trial` stands the robot on its soles under a
:class:`~tsid_py.control.BalanceController` with a :class:`~tsid_py.sim.loads.HangingLoad` on
one hand (default: its right hand, :func:`~tsid_py.models.hands.hands`) — a mass on a damped pendulum in the plant, its own dynamics, which the controller's
model does not have — and tells the controller the wrench it exerts (``wrench``):

* ``"measured"``: the plant's force/torque sensor at the pivot, each step (plus white noise of
  ``noise`` N on the forces and ``noise × 0.02 m`` N·m on the moments), through an
  :class:`~tsid_py.control.external.ExternalWrenchStage`;
* ``"constant"``: the load's weight ``[0, 0, −m g]`` at the hand, set once;
* ``"none"``: nothing — the controller sees the load only through its feedback.

What is measured, from the simulator: whether it fell (:class:`~tsid_py.scenarios.judge.StanceJudge`);
the robot's centre of mass against the balance task's target (horizontal error, largest and at
the end) and its drift from where it stood; the margin of the centre of pressure of the
soles' measured wrenches inside the soles' hull (smallest, after the first 0.1 s), and of the
whole system's centre of mass (robot and load); how far the hand sank and the base dropped.
"""

from __future__ import annotations

import numpy as np

from ..control import BalanceController
from ..control.capture_point import SupportPolygon
from ..control.external import attach_external_wrench
from ..models.hands import hands
from ..sim.loads import HangingLoad
from ..sim.sensors import MOMENT_NOISE_ARM
from ..sim.simulation import Simulation, SimulationDiverged
from .judge import StanceJudge
from .logs import zmp_from_frames

#: How the controller is told the load's wrench (see the module).
WRENCH_SOURCES = ("measured", "constant", "none")
#: The centre-of-pressure margin is taken after this long (s): the load's first pull.
SETTLE = 0.1


def hanging_load_trial(robot, *, wrench: str = "measured", mass: float = 10.0, frame: str | None = None,
                       length: float = 0.3, duration: float = 5.0, noise: float = 0.0, seed: int = 0) -> dict:
    """One run (see the module); returns its summary (lengths in mm, times in s)."""
    if wrench not in WRENCH_SOURCES:
        raise ValueError(f"wrench must be one of {WRENCH_SOURCES}, got {wrench!r}")
    frame = hands(robot)[1] if frame is None else frame
    load = HangingLoad(frame, mass, length=length)
    sim = Simulation(robot, loads=[load])
    controller = BalanceController(robot, sim.timestep)
    rng = np.random.default_rng(seed)
    scale = np.r_[np.full(3, noise), np.full(3, noise * MOMENT_NOISE_ARM)]

    def measured() -> np.ndarray:
        return sim.load_wrenches()[frame] + scale * rng.standard_normal(6)

    if wrench == "measured":
        attach_external_wrench(controller, frame, source=measured)
    elif wrench == "constant":
        attach_external_wrench(controller, frame, [0.0, 0.0, -mass * robot.gravity, 0.0, 0.0, 0.0])
    judge = StanceJudge(sim, robot.feet)
    support = SupportPolygon(sim.sole_corners(robot.feet))
    load_body = sim.model.body(load.name).id
    frame_id = robot.frame_id(frame)
    start = None
    com_errors, cop_margins, total_margins, hand_heights, relaxed = [], [], [], [], 0
    steps = int(round(duration / sim.timestep))
    for k in range(steps):
        q, v = sim.state()
        solution = controller.step(q, v)
        if not solution.success:
            relaxed += 1
        if start is None:
            start = (robot.com[:2].copy(), robot.frame_translation(frame_id).copy(), q[2])
        com_errors.append(np.linalg.norm(robot.com[:2] - controller.com.position_ref[:2]))
        hand_heights.append(robot.frame_translation(frame_id)[2])
        try:
            sim.step(solution.tau_actuated)
        except SimulationDiverged as error:
            judge.diverged(sim.time, error)
            break
        if judge.update(sim.time, robot.feet):
            break
        if sim.time > SETTLE:
            cop = zmp_from_frames(robot, sim.contact_wrenches())
            cop_margins.append(-support.outside_xy(float(cop[0]), float(cop[1])))
            total = (robot.mass * robot.com + mass * sim.data.xipos[load_body]) / (robot.mass + mass)
            total_margins.append(-support.outside_xy(float(total[0]), float(total[1])))
    q = sim.state()[0]
    hand = robot.frame_translation(frame_id)
    millimetres = 1e3
    return {
        "robot": robot.name, "wrench": wrench, "frame": frame, "mass_kg": mass, "noise_n": noise, "seed": seed,
        "fell": judge.fell_at is not None, "fell_at": judge.fell_at, "simulated_s": round(sim.time, 3),
        "com_error_max_mm": millimetres * float(np.max(com_errors)),
        "com_error_end_mm": millimetres * float(com_errors[-1]),
        "com_drift_mm": millimetres * float(np.linalg.norm(robot.com[:2] - start[0])),
        "cop_margin_min_mm": millimetres * float(np.min(cop_margins)) if cop_margins else None,
        "total_com_margin_min_mm": millimetres * float(np.min(total_margins)) if total_margins else None,
        "hand_sink_max_mm": millimetres * float(start[1][2] - np.min(hand_heights)),
        "hand_drift_mm": millimetres * float(np.linalg.norm(hand - start[1])),
        "base_drop_mm": millimetres * float(start[2] - q[2]),
        "relaxed_steps": relaxed,
    }
