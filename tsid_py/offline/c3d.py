"""C3D motion-capture files: markers and force plates, read with ezc3d, into the structures
of the OpenSim readers — :class:`~.opensim_files.Markers` (as from a ``.trc``) and
:class:`~.opensim_files.ExternalLoads` (as from an external-loads ``.xml`` and its ``.mot``).

**What is read.** ezc3d parses the file (header, parameters, data; analog channels come
back in their ``ANALOG:UNITS`` with the offsets and scales applied). Markers: the
``POINT:USED`` labelled points in ``POINT:UNITS`` (converted to m), NaN where a marker was
not seen, sampled at ``POINT:RATE`` from frame ``first_frame`` (time ``first_frame / rate``).
Force plates: ``FORCE_PLATFORM:USED`` plates, each with its ``TYPE``, analog ``CHANNEL``\\ s,
``CORNERS`` and ``ORIGIN`` (in ``POINT:UNITS``) and, for type 4, its ``CAL_MATRIX``; the
analog channels at ``ANALOG:RATE``, forces in N and moments or centres of pressure in the
channels' units (``N``; ``Nmm``/``Nm``; ``mm``/``m``).

**Plate axes.** With the corners ``c1 … c4`` in the lab (C3D numbers them so that the plate's
axes are) ``x ∥ c1 − c2``, ``y ∥ c1 − c4``, ``z = x × y`` (into the plate for the usual
layouts), ``R = [x y z]`` takes plate axes to the lab's. The surface centre is
``S = (c1 + c2 + c3 + c4) / 4``. The channels give, in plate axes, the wrench the plate
exerts on the subject (the ground reaction: up in the lab when someone stands on it).

**Types.** Let ``F`` (N) and ``M_S`` (N·m, about S) be that wrench in plate axes:

- type 1 — channels ``Fx Fy Fz Px Py Tz``: the centre of pressure ``P = (Px, Py, 0)`` from S
  and the free moment: ``M_S = P × F + (0, 0, Tz)``;
- type 2 — ``Fx Fy Fz Mx My Mz``, the moments about the sensors' origin O; ``ORIGIN = (a, b, c)``
  is the vector from S to O in plate axes, taken with ``c ≥ 0`` (O below the surface; a file
  giving ``c < 0`` states the opposite vector, negated, as ezc3d does):
  ``M_S = M_O + ORIGIN × F``;
- type 4 — as type 2 after ``[F; M_O] = CAL_MATRIX · channels`` (6 × 6; the channels in
  their own units, e.g. V, the result in N and N·(``POINT:UNITS``), as ezc3d reads it);
- type 3 (Kistler) — ``fx12 fx34 fy14 fy23 fz1 fz2 fz3 fz4`` with ``ORIGIN = (a, b, az0)`` the
  sensors' offsets and the top's height above them (magnitudes): ``F = (fx12 + fx34,
  fy14 + fy23, Σ fz)``, ``M_O = (b (fz1 + fz2 − fz3 − fz4), a (fz2 + fz3 − fz1 − fz4),
  b (fx34 − fx12) + a (fy14 − fy23))``, ``M_S = M_O + (0, 0, |az0|) × F`` (a Kistler
  centre-of-pressure correction, ``FPCOPPOLY``, is refused).

In the lab: ``F_lab = R F``, ``M_lab = R M_S`` about S. The centre of pressure is the point of
the surface where the moment is normal to it, ``P = (−M_S,y / F_z, M_S,x / F_z, 0)`` (NaN where
``F_z = 0``), and the free moment ``T = M_S,z − (P × F)_z``. Other types (5, 6, 7, 11, 12,
21) are refused by name. ``FORCE_PLATFORM:ZERO`` (a baseline to subtract) is not applied, as
OpenSim's reader does not.
"""

from __future__ import annotations

import dataclasses
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .opensim_files import LENGTH_UNITS, ExternalForce, ExternalLoads, Markers, Storage

#: Force-plate types read (the C3D standard's; see the module docstring).
SUPPORTED_PLATE_TYPES = (1, 2, 3, 4)

#: Analog channels per plate type.
PLATE_CHANNELS = {1: 6, 2: 6, 3: 8, 4: 6}

#: Factors to N·m of a moment channel's unit (spaces, dots and stars ignored, any case).
MOMENT_UNITS = {"nm": 1.0, "nmm": 1e-3}

#: Factors to N of a force channel's unit.
FORCE_UNITS = {"n": 1.0}


@dataclass
class ForcePlate:
    """One force plate of a C3D file, in the lab's axes (or a rotated frame, see
    :meth:`C3DTrial.rotated`): ``number`` (1-based, as in the file), ``type``, ``corners``
    (4, 3) m, ``centre`` S (3,) m, ``rotation`` (3, 3) plate axes → lab axes, ``origin``
    (3,) the file's ORIGIN normalised (m, plate axes); per analog sample at ``time`` (T,):
    ``force`` (T, 3) N on the subject and ``moment`` (T, 3) N·m about S."""

    number: int
    type: int
    corners: np.ndarray
    centre: np.ndarray
    rotation: np.ndarray
    origin: np.ndarray
    time: np.ndarray
    force: np.ndarray
    moment: np.ndarray

    @property
    def normal(self) -> np.ndarray:
        """(3,) the surface's normal pointing out of the plate (towards the subject)."""
        return -self.rotation[:, 2]

    @property
    def centre_of_pressure(self) -> np.ndarray:
        """(T, 3) m on the surface; NaN where the normal force is 0."""
        n = self.normal
        normal_force = self.force @ n
        with np.errstate(divide="ignore", invalid="ignore"):
            shift = np.cross(n, self.moment) / normal_force[:, None]
        return np.where(normal_force[:, None] != 0, self.centre + shift, np.nan)

    @property
    def free_moment(self) -> np.ndarray:
        """(T, 3) N·m: the moment about the centre of pressure, along the normal."""
        lever = self.centre_of_pressure - self.centre
        moment = self.moment - np.cross(np.nan_to_num(lever), self.force)
        return np.where(np.isnan(lever), np.nan, (moment @ self.normal)[:, None] * self.normal)


@dataclass
class C3DTrial:
    """A C3D file's ``markers`` and force ``plates`` (lab axes unless :meth:`rotated`), its
    ``path`` and ``point_rate``/``analog_rate`` (Hz)."""

    path: str
    markers: Markers
    plates: list[ForcePlate]
    point_rate: float
    analog_rate: float

    def rotated(self, rotation) -> C3DTrial:
        """The trial in other axes: every position and vector ``x`` becomes ``rotation @ x``
        (e.g. a z-up lab into OpenSim's y-up ground)."""
        rotation = np.asarray(rotation, dtype=float)
        if rotation.shape != (3, 3) or not np.allclose(rotation @ rotation.T, np.eye(3), atol=1e-9) \
                or np.linalg.det(rotation) < 0:
            raise ValueError(f"rotation must be a 3 × 3 rotation matrix, got {rotation.tolist()}")
        markers = dataclasses.replace(self.markers, positions=self.markers.positions @ rotation.T)
        plates = [dataclasses.replace(plate, corners=plate.corners @ rotation.T, centre=rotation @ plate.centre,
                                      rotation=rotation @ plate.rotation, force=plate.force @ rotation.T,
                                      moment=plate.moment @ rotation.T) for plate in self.plates]
        return dataclasses.replace(self, markers=markers, plates=plates)

    def external_loads(self, bodies: Sequence[str | None]) -> ExternalLoads:
        """The plates as external loads on ``bodies`` (one per plate; None leaves a plate out):
        force, the plate's centre S as the point and the moment about it, per analog sample —
        linear in the wrench, so interpolating between samples is exact for the wrench."""
        name = Path(self.path).name
        if not self.plates:
            raise ValueError(f"{name}: the file has no force plates (FORCE_PLATFORM:USED is 0 or missing)")
        if len(bodies) != len(self.plates):
            raise ValueError(f"{name}: {len(self.plates)} force plates but {len(bodies)} bodies given for them")
        names, columns, forces = [], [], []
        for plate, body in zip(self.plates, bodies):
            if body is None:
                continue
            prefix = f"plate{plate.number}_"
            names += [f"{prefix}force_v{a}" for a in "xyz"] + [f"{prefix}point_p{a}" for a in "xyz"] \
                + [f"{prefix}torque_{a}" for a in "xyz"]
            columns += [plate.force, np.broadcast_to(plate.centre, plate.force.shape), plate.moment]
            forces.append(ExternalForce(f"plate{plate.number}", body, f"{prefix}force_v", f"{prefix}point_p",
                                        f"{prefix}torque_"))
        if not forces:
            raise ValueError(f"{name}: no plate is applied to a body")
        data = Storage(names, self.plates[0].time, np.hstack(columns), path=self.path)
        return ExternalLoads(forces, data, self.path)


# ------------------------------------------------------------------------------ reading
def _parameter(parameters, group: str, name: str, where: str, required: bool = True):
    try:
        return parameters[group][name]["value"]
    except KeyError:
        if required:
            raise ValueError(f"{where}: parameter {group}:{name} is missing") from None
        return None


def _unit_factor(unit, table: dict, what: str, where: str) -> float:
    key = str(unit).replace(" ", "").replace(".", "").replace("*", "").replace("·", "").lower()
    if key not in table:
        raise ValueError(f"{where}: {what} has unit {unit!r}; expected one of {sorted(table)}")
    return table[key]


def read_c3d(path: str | os.PathLike) -> C3DTrial:
    """Read a ``.c3d`` file (see the module docstring); ``ValueError`` naming the file and
    what is wrong for an unreadable file, a missing parameter, an unsupported plate type or
    unit, or a plate channel that is not in the file."""
    import ezc3d

    path = os.fspath(path)
    name = Path(path).name
    if not os.path.isfile(path):
        raise ValueError(f"C3D file {path!r} does not exist")
    try:
        content = ezc3d.c3d(path)
    except (OSError, RuntimeError, ValueError, IndexError) as error:     # ezc3d's OSError, mostly
        raise ValueError(f"{name}: not a readable C3D file ({error})") from None
    parameters, header = content["parameters"], content["header"]
    frames, held = announced_frames(path), int(header["points"]["last_frame"]) - int(header["points"]["first_frame"]) + 1
    if frames is not None and held < frames:                  # ezc3d stops quietly at the end of the file
        raise ValueError(f"{name}: truncated: its header announces {frames} frames but it holds {held}")
    point_units = _parameter(parameters, "POINT", "UNITS", name, required=False)
    unit = (point_units[0] if point_units else "mm").strip().lower()
    if unit not in LENGTH_UNITS:
        raise ValueError(f"{name}: POINT:UNITS must be one of {sorted(LENGTH_UNITS)}, got {unit!r}")
    length = LENGTH_UNITS[unit]
    point_rate = float(header["points"]["frame_rate"])
    markers = _markers(content, parameters, header, length, point_rate, name)
    plates = _plates(content, parameters, header, length, point_rate, name)
    analog_rate = float(header["analogs"]["frame_rate"]) if plates or header["analogs"]["size"] else float("nan")
    return C3DTrial(path, markers, plates, point_rate, analog_rate)


def announced_frames(path: str) -> int | None:
    """The number of frames the file's own header announces (words 4 and 5 of its first
    512-byte block: first and last frame, in the byte order of the processor type stored
    in the parameter section's fourth byte: 86 is big-endian MIPS), or None when it holds
    more than 65535 frames (the last frame is then elsewhere)."""
    with open(path, "rb") as handle:
        block = handle.read(512)
        handle.seek(max(block[0] - 1, 0) * 512 + 3)
        processor = handle.read(1)
    first, last = struct.unpack((">" if processor == b"\x56" else "<") + "HH", block[6:10])
    return None if last == 0xFFFF else last - first + 1


def _markers(content, parameters, header, length: float, rate: float, name: str) -> Markers:
    points = np.asarray(content["data"]["points"], dtype=float)             # (4, m, T)
    count = points.shape[1]
    labels = list(_parameter(parameters, "POINT", "LABELS", name, required=count > 0) or [])
    if len(labels) < count:
        raise ValueError(f"{name}: POINT:LABELS names {len(labels)} points but the file holds {count}")
    first = int(header["points"]["first_frame"])
    time = (first + np.arange(points.shape[2])) / rate if rate > 0 else np.zeros(points.shape[2])
    positions = np.transpose(points[:3], (2, 1, 0)) * length                 # (T, m, 3)
    return Markers([str(label).strip() for label in labels[:count]], time, positions, rate)


def _plates(content, parameters, header, length: float, point_rate: float, name: str) -> list[ForcePlate]:
    if "FORCE_PLATFORM" not in parameters:
        return []
    used = _parameter(parameters, "FORCE_PLATFORM", "USED", name, required=False)
    count = int(np.ravel(used)[0]) if used is not None and np.size(used) else 0
    if count == 0:
        return []
    types = np.ravel(_parameter(parameters, "FORCE_PLATFORM", "TYPE", name)).astype(int)
    channels = np.asarray(_parameter(parameters, "FORCE_PLATFORM", "CHANNEL", name), dtype=int)
    corners = np.asarray(_parameter(parameters, "FORCE_PLATFORM", "CORNERS", name), dtype=float)
    origins = np.asarray(_parameter(parameters, "FORCE_PLATFORM", "ORIGIN", name), dtype=float)
    analogs = np.asarray(content["data"]["analogs"], dtype=float)[0]          # (channels, T)
    labels = list(_parameter(parameters, "ANALOG", "LABELS", name, required=False) or [])
    analog_units = list(_parameter(parameters, "ANALOG", "UNITS", name, required=False) or [])
    rate = float(header["analogs"]["frame_rate"])
    time = int(header["points"]["first_frame"]) / point_rate + np.arange(analogs.shape[1]) / rate
    if len(types) < count or channels.ndim != 2 or channels.shape[1] < count or corners.ndim != 3 \
            or corners.shape[2] < count or origins.ndim != 2 or origins.shape[1] < count:
        raise ValueError(f"{name}: FORCE_PLATFORM:USED is {count} but TYPE, CHANNEL, CORNERS or ORIGIN describe "
                         f"fewer plates (TYPE {types.tolist()}, CHANNEL {channels.shape}, CORNERS {corners.shape}, "
                         f"ORIGIN {origins.shape})")
    if "FPCOPPOLY" in parameters["FORCE_PLATFORM"] and np.any(
            np.asarray(parameters["FORCE_PLATFORM"]["FPCOPPOLY"]["value"], dtype=float)):
        raise ValueError(f"{name}: FORCE_PLATFORM:FPCOPPOLY (a Kistler centre-of-pressure correction) is not "
                         "supported")
    plates = []
    for index in range(count):
        where = f"{name}, force plate {index + 1}"
        kind = int(types[index])
        if kind not in SUPPORTED_PLATE_TYPES:
            raise ValueError(f"{where}: type {kind} is not supported (supported: {list(SUPPORTED_PLATE_TYPES)})")
        numbers = channels[:PLATE_CHANNELS[kind], index]
        if channels.shape[0] < PLATE_CHANNELS[kind] or np.any(numbers < 1) or np.any(numbers > analogs.shape[0]):
            raise ValueError(f"{where}: a type-{kind} plate needs {PLATE_CHANNELS[kind]} analog channels; "
                             f"FORCE_PLATFORM:CHANNEL gives {channels[:, index].tolist()} and the file has "
                             f"{analogs.shape[0]} channels")
        if kind == 4:                              # calibrated: N and N·(POINT:UNITS)
            values = analogs[numbers - 1].T @ _calibration(parameters, index, where).T
            values[:, 3:] *= length
        else:
            values = np.column_stack([_scaled_channel(analogs, labels, analog_units, number, role, where)
                                      for number, role in zip(numbers, _roles(kind))])
        force, moment = plate_wrench(kind, values, origins[:, index] * length)
        plate_corners = corners[:, :, index].T * length                    # (4, 3)
        rotation = plate_rotation(plate_corners, where)
        plates.append(ForcePlate(index + 1, kind, plate_corners, plate_corners.mean(axis=0), rotation,
                                 normalised_origin(kind, origins[:, index] * length), time,
                                 force @ rotation.T, moment @ rotation.T))
    return plates


def _roles(kind: int) -> list[str]:
    if kind == 1:
        return ["force"] * 3 + ["length"] * 2 + ["moment"]
    if kind == 3:
        return ["force"] * 8
    return ["force"] * 3 + ["moment"] * 3               # type 2 (type 4 is calibrated instead)


def _scaled_channel(analogs, labels, units, number: int, role: str, where: str) -> np.ndarray:
    label = labels[number - 1] if number - 1 < len(labels) else f"#{number}"
    unit = units[number - 1] if number - 1 < len(units) else ""
    what = f"analog channel {number} ({str(label).strip()!r})"
    table = {"force": FORCE_UNITS, "moment": MOMENT_UNITS, "length": LENGTH_UNITS}[role]
    return analogs[number - 1] * _unit_factor(unit, table, f"{what}, a {role} channel,", where)


def _calibration(parameters, index: int, where: str) -> np.ndarray:
    matrix = _parameter(parameters, "FORCE_PLATFORM", "CAL_MATRIX", where)
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 3 or matrix.shape[:2] != (6, 6) or matrix.shape[2] <= index:
        raise ValueError(f"{where}: a type-4 plate needs a 6 × 6 FORCE_PLATFORM:CAL_MATRIX, got shape {matrix.shape}")
    return matrix[:, :, index]


def normalised_origin(kind: int, origin: np.ndarray) -> np.ndarray:
    """The ORIGIN of a type 2 or 4 plate as the vector from the surface centre to the sensors'
    origin with a non-negative z; for type 1 none; for type 3 the magnitudes (a, b, |az0|)."""
    if kind == 1:
        return np.zeros(3)
    if kind == 3:
        return np.abs(origin)
    return -origin if origin[2] < 0 else np.array(origin, dtype=float)


def plate_wrench(kind: int, channels: np.ndarray, origin: np.ndarray):
    """``(F, M_S)`` (T, 3) each, in plate axes, N and N·m about the surface centre, from a
    plate's channels (T, n) in SI units — for type 4, ``[F; M_O]`` after calibration — and
    its ORIGIN (m) (module docstring)."""
    origin = normalised_origin(kind, origin)
    if kind == 1:
        force = channels[:, :3]
        cop = np.column_stack([channels[:, 3:5], np.zeros(len(channels))])
        moment = np.cross(cop, force)
        moment[:, 2] += channels[:, 5]
        return force, moment
    if kind == 3:
        fx12, fx34, fy14, fy23, fz1, fz2, fz3, fz4 = channels.T
        a, b, height = origin
        force = np.column_stack([fx12 + fx34, fy14 + fy23, fz1 + fz2 + fz3 + fz4])
        moment = np.column_stack([b * (fz1 + fz2 - fz3 - fz4), a * (fz2 + fz3 - fz1 - fz4),
                                  b * (fx34 - fx12) + a * (fy14 - fy23)])
        return force, moment + np.cross(np.array([0.0, 0.0, height]), force)
    force = channels[:, :3]
    return force, channels[:, 3:6] + np.cross(origin, force)


def plate_rotation(corners: np.ndarray, where: str = "force plate") -> np.ndarray:
    """(3, 3) plate axes → lab axes from the corners (4, 3): ``x ∥ c1 − c2``, ``y ∥ c1 − c4``
    made orthogonal to x, ``z = x × y``."""
    x, y = corners[0] - corners[1], corners[0] - corners[3]
    z = np.cross(x, y)
    if np.linalg.norm(x) == 0 or np.linalg.norm(z) < 1e-12 * max(1.0, np.linalg.norm(x) * np.linalg.norm(y)):
        raise ValueError(f"{where}: FORCE_PLATFORM:CORNERS {corners.tolist()} do not span a rectangle")
    y = np.cross(z, x)
    return np.column_stack([v / np.linalg.norm(v) for v in (x, y, z)])
