"""Force plates of a C3D file meeting a model: the lab's axes turned into the model's
ground, and which foot stands on which plate.

**Axes.** A C3D lab usually has z up; OpenSim's ground has y up (gravity along −y). The lab's
up is the plates' surface normal (:attr:`~.c3d.ForcePlate.normal`), the model's is −gravity.
When they differ and both are perpendicular to x, the lab is turned about x by the angle
between them (z up → y up: −90° about x, the rotation OpenSim users apply to their markers);
otherwise the rotation must be given (:meth:`~.c3d.C3DTrial.rotated`).

**Feet.** A plate is loaded where its normal force exceeds :data:`LOADED_FORCE`; over the
motion's frames where it is loaded, it belongs to the foot (the body of a sole frame in
``robot.feet``) whose sole centre is nearest its centre of pressure, horizontally, in most
frames. A plate never loaded during the motion is left out; one whose centre of pressure is
never within :data:`MAX_COP_DISTANCE` of a foot, or that two feet share, is an error
naming the plate (the rotation, the time base or the plate assignment is then wrong).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..robot import Robot
from .c3d import C3DTrial, read_c3d
from .opensim_files import ExternalLoads

#: A plate carries a foot where its normal force exceeds this, N (the Gait2354 benchmark's
#: contact threshold).
LOADED_FORCE = 20.0

#: The largest mean horizontal distance between a plate's centre of pressure and the centre
#: of the sole of the foot on it, m (a sole is about 0.25 m long).
MAX_COP_DISTANCE = 0.25

#: A plate belongs to one foot if that foot is the nearest in at least this share of the
#: plate's loaded frames.
MAJORITY = 0.8


def _up(robot: Robot) -> np.ndarray:
    gravity = robot.model.gravity.linear
    return -gravity / np.linalg.norm(gravity)


def lab_to_ground(trial: C3DTrial, robot: Robot) -> np.ndarray:
    """(3, 3) the rotation taking the trial's lab axes to the model's ground (module
    docstring); ``ValueError`` naming the file when it cannot be found."""
    name = Path(trial.path).name
    if not trial.plates:
        raise ValueError(f"{name}: the file has no force plates (FORCE_PLATFORM:USED is 0 or missing)")
    normals = np.array([plate.normal for plate in trial.plates])
    if np.any(normals @ normals[0] < 0.99):
        raise ValueError(f"{name}: the force plates do not face the same way (normals {normals.round(3).tolist()})")
    lab, ground = normals[0], _up(robot)
    if lab @ ground > 1 - 1e-9:
        return np.eye(3)
    if abs(lab[0]) > 1e-9 or abs(ground[0]) > 1e-9:
        raise ValueError(f"{name}: the lab's up {lab.round(3).tolist()} and the model's {ground.round(3).tolist()} "
                         "are not both perpendicular to x; give the rotation: read_c3d(path).rotated(R)")
    angle = np.arctan2(lab[1] * ground[2] - lab[2] * ground[1], lab @ ground)      # about x, from lab to ground
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _foot_bodies(robot: Robot) -> list[str]:
    model = robot.model
    return [model.frames[model.frames[robot.frame_id(foot)].parentFrame].name for foot in robot.feet]


def assign_plates(trial: C3DTrial, robot: Robot, positions, time) -> list[str | None]:
    """The body on each plate of ``trial`` (in the model's ground axes) along the motion
    ``positions`` (T, nq) at ``time`` (T,), or None for a plate never loaded (module
    docstring)."""
    name = Path(trial.path).name
    if not robot.feet:
        raise ValueError(f"{name}: robot {robot.name!r} has no feet to put on the force plates; give plate_bodies")
    up = _up(robot)
    horizontal = np.eye(3) - np.outer(up, up)
    soles = np.array([[robot.placement_at(q, robot.frame_id(foot)).translation for foot in robot.feet]
                      for q in positions])                                    # (T, feet, 3)
    bodies, assigned = _foot_bodies(robot), []
    for plate in trial.plates:
        normal = np.interp(time, plate.time, plate.force @ plate.normal)
        loaded = normal > LOADED_FORCE
        if not loaded.any():
            assigned.append(None)
            continue
        cop = np.column_stack([np.interp(time, plate.time, np.nan_to_num(column))
                               for column in plate.centre_of_pressure.T])[loaded]
        distance = np.linalg.norm((soles[loaded] - cop[:, None, :]) @ horizontal, axis=2)   # (loaded, feet)
        nearest = np.bincount(np.argmin(distance, axis=1), minlength=len(bodies)) / loaded.sum()
        foot = int(np.argmax(nearest))
        mean = distance[:, foot].mean()
        where = f"{name}, force plate {plate.number}"
        if mean > MAX_COP_DISTANCE:
            raise ValueError(f"{where}: its centre of pressure is {mean:.2f} m on average from the nearest foot "
                             f"({bodies[foot]}): the plates do not line up with the motion (check the lab-to-ground "
                             "rotation and the time base, or give plate_bodies)")
        if nearest[foot] < MAJORITY:
            raise ValueError(f"{where}: both feet stand on it ({', '.join(f'{b} {100 * s:.0f} %' for b, s in zip(bodies, nearest))} "
                             "of its loaded frames); give plate_bodies or split the trial")
        assigned.append(bodies[foot])
    if all(body is None for body in assigned):
        raise ValueError(f"{name}: no force plate is loaded (normal force > {LOADED_FORCE:g} N) during the motion "
                         f"({time[0]:g}–{time[-1]:g} s)")
    return assigned


def c3d_external_loads(source, robot: Robot, positions, time, plate_bodies: Sequence[str | None] | None = None
                       ) -> tuple[ExternalLoads, list[str | None], np.ndarray]:
    """The force plates of a C3D file (path or :class:`~.c3d.C3DTrial` in lab axes) as
    external loads in the model's ground: ``(loads, bodies, rotation)`` with the body of each
    plate (``plate_bodies`` or :func:`assign_plates`) and the lab-to-ground rotation used."""
    trial = source if isinstance(source, C3DTrial) else read_c3d(source)
    rotation = lab_to_ground(trial, robot)
    trial = trial.rotated(rotation)
    if plate_bodies is None:
        bodies = assign_plates(trial, robot, positions, time)
    else:
        bodies = list(plate_bodies)
        for body in bodies:
            if body is not None:
                robot.frame_id(body)
    return trial.external_loads(bodies), bodies, rotation
