"""Human gait: OpenSim models, joint angles and force plates in the over-time inverse dynamics.

:func:`human_inverse_dynamics` takes a robot read from an OpenSim model
(:meth:`tsid_py.Robot.from_osim`) and a motion (a ``.mot`` of joint angles) and returns the
coordinates' generalized forces in OpenSim's layout, through the one over-time machinery
(:func:`~tsid_py.offline.over_time.multiple_contact_inverse_dynamics_over_time`):

- **with force plates** (an external-loads ``.xml``), the plates' wrenches are known terms of
  the equation of motion; no contact wrench is unknown, so the torques follow and the
  wrench the pelvis still needs is the residual (OpenSim's ``pelvis_*`` forces);
- **without**, the feet are contacts whose phases are detected from the motion
  (:func:`detect_contacts`) and whose wrenches the solve estimates, with friction and
  centre-of-pressure bounds on each sole.

The angles are low-pass filtered (:func:`~tsid_py.offline.motion.lowpass`, 6 Hz by
default, as OpenSim users expect) and differentiated through a spline. With force plates,
``reduce_residuals`` first fits the model's mass distribution to the trial's residuals
(:mod:`~tsid_py.offline.residual_reduction`) and reports the torques of the adjusted model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..robot import Robot
from .c3d import C3DTrial
from .frames import KnownWrench
from .motion import coordinate_states, lowpass, uniform_step
from .opensim_files import ExternalLoads, Storage, read_external_loads, read_storage
from .over_time import (
    DEFAULT_FRICTION,
    InverseDynamicsOverTimeResult,
    multiple_contact_inverse_dynamics_over_time,
)
from .plates import c3d_external_loads
from .residual_reduction import ResidualReduction, ResidualReductionOptions
from .residual_reduction import reduce_residuals as fit_mass_distribution

#: Default low-pass cutoff of the joint angles, Hz (OpenSim's examples and most gait labs).
DEFAULT_LOWPASS = 6.0


@dataclass(frozen=True)
class ContactThresholds:
    """When a foot is in contact, from the motion alone: one of its sole's ends (heel or
    toe, the rear and front edge centres of its sole rectangle) is within ``height`` m of
    the ground *and* moves at less than ``speed`` m/s relative to the ground.

    The ground's level is the ``ground_percentile``-th percentile of the sole ends' heights
    over the recording (robust to a toe dipping below it at push-off), and its velocity the
    median velocity of the sole ends within ``height`` of it, less its vertical part: zero
    overground, the belt's on a treadmill (the Gait2354 trial is on one, at 1.14 m/s).
    Chosen on that trial, where every pair ``height`` 0.02–0.04 m × ``speed`` 0.5–1.0 m/s
    finds the force plates' own phases (vertical force above 20 N) within one frame, and
    this one exactly."""

    height: float = 0.03
    speed: float = 0.6
    ground_percentile: float = 10.0


#: The thresholds used unless others are given.
DEFAULT_THRESHOLDS = ContactThresholds()


@dataclass
class HumanInverseDynamicsResult:
    """Per solved frame (N): ``time`` (s); ``coordinate_forces`` (N, n) in the order of
    ``names`` (OpenSim's columns ``<coordinate>_moment`` or ``_force``, see :meth:`columns`),
    the pelvis entries being the residuals; ``residuals`` (N, 6) the root's residual wrench,
    world-aligned at the pelvis origin; ``contacts`` the estimated contact frames (none with
    force plates) with their ``wrenches`` (N, k, 6) world-aligned at each frame's origin and
    ``contact_schedule`` (N, k); ``over_time`` the full result; ``residual_reduction`` the
    mass adjustment made first (its report and adjusted robot), if asked for;
    ``plate_bodies`` the body each force plate of a C3D file was put on (None: left out)
    and ``lab_to_ground`` the rotation its lab axes were turned by."""

    time: np.ndarray
    names: list[str]
    rotational: np.ndarray
    coordinate_forces: np.ndarray
    residuals: np.ndarray
    contacts: list[str]
    wrenches: np.ndarray
    contact_schedule: np.ndarray
    over_time: InverseDynamicsOverTimeResult
    residual_reduction: ResidualReduction | None = None
    plate_bodies: list | None = None
    lab_to_ground: np.ndarray | None = None

    def columns(self) -> list[str]:
        """OpenSim's column names: ``<coordinate>_moment`` (rotational) or ``_force``."""
        return [f"{name}_{'moment' if rotational else 'force'}" for name, rotational in zip(self.names,
                                                                                             self.rotational)]


def _opensim(robot: Robot):
    if robot.opensim is None:
        raise ValueError(f"robot {robot.name!r} was not read from an OpenSim model (use tsid_py.Robot.from_osim)")
    return robot.opensim


def motion_coordinates(robot: Robot, motion: Storage | str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """``(time, c)`` of a motion file for the robot's coordinates (rad, m); a model coordinate
    missing from the file is an error naming the file and the coordinate."""
    coordinates = _opensim(robot).coordinates
    motion = motion if isinstance(motion, Storage) else read_storage(motion)
    values = motion.coordinates(coordinates.names, coordinates.rotational)
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        row, column = bad[0]
        raise ValueError(f"{os.path.basename(motion.path)}: column {coordinates.names[column]!r} has no number at "
                         f"time {motion.time[row]:g} s")
    return motion.time, values


def plate_wrenches(loads: ExternalLoads | str | os.PathLike, time) -> list[KnownWrench]:
    """The external loads at ``time`` as known wrenches on their bodies' frames; the loads of
    one body (a foot on two plates in turn) are added, about the first one's points."""
    loads = loads if isinstance(loads, ExternalLoads) else read_external_loads(loads)
    merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for body, wrenches, points in loads.wrenches(np.asarray(time)):
        if body in merged:
            total, common = merged[body]
            moment = wrenches[:, 3:] + np.cross(points - common, wrenches[:, :3])     # about the common points
            wrenches = total + np.hstack([wrenches[:, :3], moment])
            points = common
        merged[body] = (wrenches, points)
    return [KnownWrench(body, wrenches, points) for body, (wrenches, points) in merged.items()]


def _is_c3d(loads) -> bool:
    return isinstance(loads, C3DTrial) or (isinstance(loads, (str, os.PathLike))
                                           and str(loads).lower().endswith(".c3d"))


def _up(robot: Robot) -> np.ndarray:
    gravity = robot.model.gravity.linear
    return -gravity / np.linalg.norm(gravity)


def detect_contacts(robot: Robot, positions, dt: float, feet, thresholds: ContactThresholds = DEFAULT_THRESHOLDS
                    ) -> np.ndarray:
    """Contact phases (T, k) booleans of the sole frames ``feet`` along ``positions`` (T, nq)
    sampled every ``dt`` s (see :class:`ContactThresholds`)."""
    length = robot.sole_size[0] if robot.sole_size else 0.0
    up = _up(robot)
    ends = np.zeros((len(positions), len(feet), 2, 3))
    for t, q in enumerate(positions):
        for j, foot in enumerate(feet):
            placement = robot.placement_at(q, robot.frame_id(foot))
            for e, x in enumerate((-length / 2, length / 2)):
                ends[t, j, e] = placement.act(np.array([x, 0.0, 0.0]))
    heights = ends @ up
    heights -= np.percentile(heights, thresholds.ground_percentile)
    velocities = np.gradient(ends, dt, axis=0)
    low = heights < thresholds.height
    ground = np.median(velocities[low], axis=0) if low.any() else np.zeros(3)
    ground -= (ground @ up) * up
    touching = low & (np.linalg.norm(velocities - ground, axis=-1) < thresholds.speed)
    return touching.any(axis=2)


def human_inverse_dynamics(robot: Robot, motion, *, external_loads=None, lowpass_hz: float | None = DEFAULT_LOWPASS,
                           contacts=None, thresholds: ContactThresholds = DEFAULT_THRESHOLDS,
                           friction: float | None = DEFAULT_FRICTION, smoothing_weight: float = 1.0,
                           dt: float | None = None, reduce_residuals: bool | ResidualReductionOptions = False,
                           plate_bodies=None) -> HumanInverseDynamicsResult:
    """The inverse dynamics of a recorded human motion (see the module docstring).

    ``motion``: a ``.mot``/``.sto`` path or :class:`~tsid_py.offline.opensim_files.Storage`
    of the model's coordinates (its time column gives the sampling; ``dt`` only overrides a
    file without one). ``external_loads``: an external-loads ``.xml`` path or
    :class:`~tsid_py.offline.opensim_files.ExternalLoads`, or a ``.c3d`` path or
    :class:`~tsid_py.offline.c3d.C3DTrial` whose force plates are turned into the model's
    ground and put on the feet (:mod:`~tsid_py.offline.plates`; ``plate_bodies``, one body or
    None per plate, overrides the feet found); without, ``contacts`` (default:
    ``robot.feet``, the soles) carry estimated wrenches during their detected phases.
    ``lowpass_hz``: cutoff of the angles' low-pass filter (None: unfiltered).
    ``reduce_residuals`` (with plates only): True or
    :class:`~tsid_py.offline.residual_reduction.ResidualReductionOptions` to fit the mass
    distribution to the residuals first; the result is then the adjusted model's, with the
    fit's report in ``residual_reduction``."""
    if reduce_residuals is not False and reduce_residuals is not None and external_loads is None:
        raise ValueError("reduce_residuals needs the force plates (external_loads): without them the estimated "
                         "contacts absorb the residual")
    time, values = motion_coordinates(robot, motion)
    step = uniform_step(time, getattr(motion, "path", str(motion))) if dt is None else float(dt)
    if lowpass_hz is not None:
        values = lowpass(values, step, lowpass_hz)
    positions, velocities, accelerations = coordinate_states(_opensim(robot).coordinates, time, values)
    bodies = rotation = None
    if plate_bodies is not None and not _is_c3d(external_loads):
        raise ValueError("plate_bodies applies to the force plates of a C3D file (external_loads=….c3d)")
    if _is_c3d(external_loads):
        external_loads, bodies, rotation = c3d_external_loads(external_loads, robot, positions, time, plate_bodies)
    if external_loads is not None:
        known, contacts, schedule = plate_wrenches(external_loads, time), [], None
    else:
        known = None
        contacts = list(robot.feet if contacts is None else contacts)
        schedule = detect_contacts(robot, positions, step, contacts, thresholds)

    def solve(model: Robot) -> HumanInverseDynamicsResult:
        result = multiple_contact_inverse_dynamics_over_time(
            model, positions, step, contacts, known_wrenches=known, contact_schedule=schedule,
            velocities=velocities, accelerations=accelerations, friction=friction, smoothing_weight=smoothing_weight)
        coordinates = _opensim(model).coordinates
        return HumanInverseDynamicsResult(
            time[result.frame_indices], coordinates.names, coordinates.rotational, result.coordinate_forces,
            result.residuals, contacts, result.wrenches,
            np.ones((len(time), 0), bool) if schedule is None else schedule[result.frame_indices], result,
            plate_bodies=bodies, lab_to_ground=rotation)

    result = solve(robot)
    if reduce_residuals is False or reduce_residuals is None:
        return result
    options = reduce_residuals if isinstance(reduce_residuals, ResidualReductionOptions) else None
    reduction = fit_mass_distribution(robot, result, options)
    adjusted = solve(reduction.robot)
    adjusted.residual_reduction = reduction
    return adjusted
