"""A demo's per-step log: the zero-moment point of measured contact wrenches, and one
control step's entries (time, torques, CoM, normal forces, ZMP)."""

from __future__ import annotations

import numpy as np

from ..robot import Robot


def support_polygon_zmp(wrenches: dict[str, np.ndarray]) -> np.ndarray:
    """Zero-moment point on the ground plane (z = 0) of a set of world-aligned contact
    wrenches given at their frames' origins — pass wrenches about the world origin, or
    use :func:`zmp_from_frames`."""
    force = sum(w[:3] for w in wrenches.values())
    moment = sum(w[3:] for w in wrenches.values())
    if force[2] <= 1e-6:
        return np.full(2, np.nan)
    return np.array([-moment[1], moment[0]]) / force[2]


def zmp_from_frames(robot: Robot, wrenches: dict[str, np.ndarray]) -> np.ndarray:
    """ZMP (x, y) on z = 0 from wrenches at the foot frames (moved to the world origin)."""
    about_origin = {}
    for name, wrench in wrenches.items():
        origin = robot.data.oMf[robot.frame_id(name)].translation
        about_origin[name] = np.r_[wrench[:3], wrench[3:] + np.cross(origin, wrench[:3])]
    return support_polygon_zmp(about_origin)


def record_step(log: dict, t: float, robot: Robot, controller, solution, measured: dict, **extra) -> None:
    """Append one control step of a humanoid demo to ``log`` (key -> list of arrays): time
    (s), torques (N·m), CoM and ``controller.com``'s reference (m), the ``measured`` (wrenches
    at the foot frames) and planned normal forces per foot (N), the measured ZMP (m), and
    the ``extra`` entries."""
    entry = {"time": t, "tau": solution.tau_actuated, "com": robot.com.copy(),
             "com_ref": controller.com.position_ref.copy(),
             "normal_forces": [measured[f][2] for f in robot.feet],
             "planned_normal_forces": [solution.wrenches[f][2] if f in solution.wrenches else 0.0 for f in robot.feet],
             "zmp": zmp_from_frames(robot, measured), **extra}
    for key, value in entry.items():
        log.setdefault(key, []).append(np.array(value, dtype=float))
