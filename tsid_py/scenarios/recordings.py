"""Recorded motions with their true contact wrenches, to test offline inverse dynamics on.

:func:`record` runs the humanoid balance controller against MuJoCo and keeps what a motion
capture system would see (base and joint positions) together with what the physics engine
knows (contact wrenches, applied torques). :func:`sway_and_squat` is a motion the library
does not plan for: an asymmetric sideways sway with a squat.
(:func:`tsid_py.control.reference.balance_rollout` is a fast kinematic stand-in without
MuJoCo: the controller's own q̈ integrated.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import robots
from ..offline.batch import Recording
from ..control.reference import humanoid_balance
from ..sim.contact import MUJOCO_OPTIONS, ContactOptions
from ..sim.simulation import Simulation
from .video import Watchers


@dataclass
class SimulatedRecording:
    """``recording.positions[t]`` is the state before physics step t; ``wrenches[t]`` (k, 6),
    world-aligned at the foot frames, are the contact wrenches MuJoCo applied during that
    step and ``torques[t]`` (na,) the joint torques — so frame t of the inverse dynamics
    (positions t−1, t, t+1) should recover ``wrenches[t]``."""

    recording: Recording
    wrenches: np.ndarray
    torques: np.ndarray
    weight: float


def record(robot_name: str, duration: float, targets: Callable, *, settle: float = 0.2,
           timestep: float = 1e-3, viewer: bool = False, video: str | None = None) -> SimulatedRecording:
    """Simulate the balance controller for ``settle + duration`` s, calling
    ``targets(controller, centre, t)`` each step to move its CoM target (``centre`` is the
    initial CoM), and record the last ``duration`` s. ``robot_name``: a built-in robot's name,
    a robot file's path or a :class:`~tsid_py.Robot`. The first ``settle`` s are dropped:
    the simulation starts with the soles just touching the floor, and the contact settling
    is an impact, not the motion. ``viewer`` shows the simulation in MuJoCo's viewer;
    ``video`` writes an MP4 of it off-screen.

    The floor contact is MuJoCo's own (``ContactOptions(**MUJOCO_OPTIONS)``), not the
    harness's default: how two soles share the vertical load is not determined by the
    motion alone (a pair of equal and opposite internal forces changes it). With the
    friction rows 100 times stiffer than the normal rows (``impratio`` 100) the recovered split of Talos' 80-frame sway is off by 73 N
    RMS per foot (8 % of the weight; the total still right), in equal and opposite pairs: an
    internal force the stance holds, which positions cannot show; under MuJoCo's soft friction
    rows it is within the 5 % the inverse dynamics is tested to."""
    robot = robots.load(robot_name) if isinstance(robot_name, (str, os.PathLike)) else robot_name
    sim = Simulation(robot, timestep=timestep, visual=viewer or bool(video),
                     contact=ContactOptions(**MUJOCO_OPTIONS))
    controller = humanoid_balance(robot, sim.timestep)
    robot.update(robot.q_ref, robot.zero_velocity())
    centre = robot.com.copy()
    positions, wrenches, torques = [], [], []
    start = int(round(settle / timestep))
    watchers = Watchers(sim, viewer=viewer, video=video)
    for k in range(start + int(round(duration / timestep)) + 1):
        q, v = sim.state()
        watchers.before_step()
        targets(controller, centre, k * timestep)
        tau = controller.step(q, v).tau_actuated
        sim.step(tau)
        if k >= start:
            measured = sim.contact_wrenches()
            positions.append(q)
            wrenches.append([measured[foot] for foot in robot.feet])
            torques.append(tau.copy())
        watchers.after_step()
    watchers.close()
    return SimulatedRecording(Recording(np.array(positions), timestep, tuple(robot.feet)), np.array(wrenches),
                              np.array(torques), robot.weight)


def sway_and_squat(robot_name: str = robots.DEFAULT_HUMANOID, duration: float = 2.5, **kwargs) -> SimulatedRecording:
    """An asymmetric sway with a squat: the CoM sways 8 cm towards the left foot — over it,
    unloading the right foot — and 4 cm towards the right (0.6 Hz) while squatting 3 cm and
    back (0.4 Hz), and drifts 1 cm forward. Velocity and acceleration feed-forward are given;
    the motion ramps in over 0.5 s."""
    omega_y, omega_z = 2 * np.pi * 0.6, 2 * np.pi * 0.4

    def targets(controller, centre, t):
        ramp = min(t / 0.5, 1.0)          # start from rest
        y = ramp * (0.02 + 0.06 * np.sin(omega_y * t))
        z = -ramp * 0.015 * (1 - np.cos(omega_z * t))
        x = 0.01 * ramp * t / duration
        velocity = ramp * np.array([0.01 / duration, 0.06 * omega_y * np.cos(omega_y * t),
                                    -0.015 * omega_z * np.sin(omega_z * t)])
        acceleration = ramp * np.array([0.0, -0.06 * omega_y**2 * np.sin(omega_y * t),
                                        -0.015 * omega_z**2 * np.cos(omega_z * t)])
        controller.com.set_target(centre + [x, y, z], velocity=velocity, acceleration=acceleration)

    return record(robot_name, duration, targets, **kwargs)


def force_errors(simulated: SimulatedRecording, result) -> dict[str, float]:
    """RMS errors of the recovered vertical contact forces against the simulator's, in % of
    the robot's weight: per foot (all feet and frames pooled) and of their total."""
    truth = simulated.wrenches[1:len(result.wrenches) + 1, :, 2]
    error = result.wrenches[..., 2] - truth
    scale = 100.0 / simulated.weight
    return {"per_foot_pct_weight": float(scale * np.sqrt(np.mean(error**2))),
            "total_pct_weight": float(scale * np.sqrt(np.mean(error.sum(axis=1) ** 2)))}
