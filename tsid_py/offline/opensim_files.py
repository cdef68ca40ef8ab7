"""OpenSim's data files: motions and storages (``.mot``/``.sto``), markers (``.trc``) and
external loads (``.xml`` + the force file it names); results written in OpenSim's layout.

A storage is a header (``key=value`` lines, notably ``inDegrees=yes|no``) closed by
``endheader``, a line of column names (the first one ``time``) and one row of numbers per
frame, separated by tabs or spaces. Every reader names the file, the line and the column
of what it could not read. Units: SI (rad, m, N, N·m) after reading — angles of rotational
coordinates are converted from degrees when the header says so, marker positions from the
``.trc``'s units.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._files import atomic_write, read_text

#: Unit factors to metres of a ``.trc`` file's ``Units`` field.
LENGTH_UNITS = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}


@dataclass
class Storage:
    """A ``.mot``/``.sto`` table: ``names`` of the columns after ``time``, ``time`` (T,) in s,
    ``values`` (T, m) as in the file, ``in_degrees`` from the header, the source ``path``."""

    names: list[str]
    time: np.ndarray
    values: np.ndarray
    in_degrees: bool = False
    path: str = ""
    header: dict[str, str] = field(default_factory=dict)

    def column(self, name: str) -> np.ndarray:
        """One column (T,); ``KeyError`` naming the file and its columns if absent."""
        try:
            return self.values[:, self.names.index(name)]
        except ValueError:
            raise KeyError(f"{Path(self.path).name}: no column {name!r} (columns: {', '.join(self.names)})") from None

    def coordinates(self, names: list[str], rotational) -> np.ndarray:
        """The columns of coordinates ``names`` (T, n), rotational ones in rad: a model
        coordinate absent from the file is an error naming both."""
        missing = [name for name in names if name not in self.names]
        if missing:
            raise KeyError(f"{Path(self.path).name}: the model's coordinates {missing} are not columns of the "
                           f"motion (columns: {', '.join(self.names)})")
        values = np.column_stack([self.column(name) for name in names])
        if self.in_degrees:
            values[:, np.asarray(rotational, dtype=bool)] = np.deg2rad(values[:, np.asarray(rotational, dtype=bool)])
        return values


def _cells(line: str) -> list[str]:
    return line.split("\t") if "\t" in line else line.split()


def _numbers(cells: list[str], names: list[str], where: str) -> list[float]:
    values = []
    for cell, name in zip(cells, names):
        text = cell.strip()
        try:
            values.append(float(text) if text else float("nan"))
        except ValueError:
            raise ValueError(f"{where}, column {name!r}: expected a number, got {text!r}") from None
    return values


def read_storage(path: str | os.PathLike) -> Storage:
    """Read a ``.mot`` or ``.sto`` file (see the module docstring)."""
    lines = read_text(path, "motion file")
    name = Path(path).name
    end = next((i for i, line in enumerate(lines) if line.strip().lower() == "endheader"), None)
    if end is None:
        raise ValueError(f"{name}: no 'endheader' line: not an OpenSim storage (.mot/.sto)")
    header = {}
    for line in lines[:end]:
        if "=" in line:
            key, _, value = line.partition("=")
            header[key.strip()] = value.strip()
    body = [(number, line) for number, line in enumerate(lines[end + 1:], start=end + 2) if line.strip()]
    if not body:
        raise ValueError(f"{name}: no column names after 'endheader'")
    columns = [cell.strip() for cell in _cells(body[0][1]) if cell.strip()]
    if not columns or columns[0].lower() != "time":
        raise ValueError(f"{name}, line {body[0][0]}: the first column must be 'time', got {columns[:1]}")
    rows = []
    for number, line in body[1:]:
        cells = _cells(line.strip("\r\n"))
        cells = [c for c in cells if c.strip()] if "\t" not in line else cells
        while len(cells) > len(columns) and not cells[-1].strip():    # OpenSim 3 ends lines with a tab
            cells.pop()
        if len(cells) != len(columns):
            raise ValueError(f"{name}, line {number}: expected {len(columns)} values ({columns[0]} … {columns[-1]}), "
                             f"got {len(cells)}")
        rows.append(_numbers(cells, columns, f"{name}, line {number}"))
    if not rows:
        raise ValueError(f"{name}: no data rows")
    data = np.array(rows)
    if np.any(np.diff(data[:, 0]) <= 0):
        bad = int(np.flatnonzero(np.diff(data[:, 0]) <= 0)[0]) + 1
        raise ValueError(f"{name}: column 'time' must increase, but row {bad} ({data[bad, 0]}) follows "
                         f"{data[bad - 1, 0]}")
    degrees = header.get("inDegrees", "no").lower() in ("yes", "true")
    return Storage(columns[1:], data[:, 0], data[:, 1:], degrees, os.fspath(path), header)


def write_storage(path: str | os.PathLike, names: list[str], time, values, *, title: str = "tsid_py",
                  in_degrees: bool = False) -> None:
    """Write a storage in OpenSim's layout (tab-separated, ``endheader``), atomically."""
    values = np.asarray(values, dtype=float)
    time = np.asarray(time, dtype=float)
    with atomic_write(path) as handle:
        handle.write(f"{title}\nversion=1\nnRows={len(time)}\nnColumns={len(names) + 1}\n"
                     f"inDegrees={'yes' if in_degrees else 'no'}\nendheader\n")
        handle.write("\t".join(["time", *names]) + "\n")
        for t, row in zip(time, values):
            handle.write("\t".join(f"{x:.8f}" for x in (t, *row)) + "\n")


@dataclass
class Markers:
    """A ``.trc`` file: marker ``names``, ``time`` (T,) in s, ``positions`` (T, m, 3) in m
    (NaN where a marker was not seen), ``rate`` in Hz."""

    names: list[str]
    time: np.ndarray
    positions: np.ndarray
    rate: float


def read_trc(path: str | os.PathLike) -> Markers:
    """Read a ``.trc`` marker file (tab-separated; positions converted to m)."""
    lines = read_text(path, "marker file")
    name = Path(path).name
    if len(lines) < 6:
        raise ValueError(f"{name}: a .trc file has 5 header lines and data, got {len(lines)} lines")
    keys, values = _cells(lines[1]), _cells(lines[2])
    fields = {k.strip(): v.strip() for k, v in zip(keys, values)}
    units = fields.get("Units", "m").lower()
    if units not in LENGTH_UNITS:
        raise ValueError(f"{name}, line 3: Units must be one of {sorted(LENGTH_UNITS)}, got {units!r}")
    labels = [cell.strip() for cell in lines[3].split("\t")]
    if labels[:2] != ["Frame#", "Time"]:
        raise ValueError(f"{name}, line 4: expected 'Frame#', 'Time' then marker names, got {labels[:2]}")
    markers = [label for label in labels[2:] if label]
    columns = ["Frame#", "Time"] + [f"{m}.{axis}" for m in markers for axis in "XYZ"]
    rows = []
    for number, line in enumerate(lines[5:], start=6):
        if not line.strip():
            continue
        cells = line.split("\t")[:len(columns)]
        cells += [""] * (len(columns) - len(cells))
        rows.append(_numbers(cells, columns, f"{name}, line {number}"))
    data = np.array(rows)
    positions = data[:, 2:].reshape(len(data), len(markers), 3) * LENGTH_UNITS[units]
    return Markers(markers, data[:, 1], positions, float(fields.get("DataRate", "nan")))


@dataclass(frozen=True)
class ExternalForce:
    """One ``<ExternalForce>`` of an external-loads file: the body it acts on and the column
    prefixes of its force, point and torque (``<prefix>x``, ``y``, ``z``), all in ground."""

    name: str
    body: str
    force: str
    point: str
    torque: str


@dataclass
class ExternalLoads:
    """An external-loads ``.xml``: its ``forces`` and the ``data`` storage they read."""

    forces: list[ExternalForce]
    data: Storage
    path: str = ""

    def wrenches(self, time: np.ndarray):
        """Per force: ``(body, wrenches (T, 6), points (T, 3))`` at ``time`` (linear
        interpolation of the data), ``[f; m]`` world-aligned with ``m`` the torque columns
        (about the point). ``ValueError`` naming both files if ``time`` leaves the data's
        span."""
        data = self.data
        start, stop = data.time[0], data.time[-1]
        tolerance = 1e-6 * max(1.0, abs(stop))
        if time[0] < start - tolerance or time[-1] > stop + tolerance:
            raise ValueError(f"{Path(self.path).name}: the force data ({Path(data.path).name}) span "
                             f"{start:g}–{stop:g} s but the motion spans {time[0]:g}–{time[-1]:g} s")
        result = []
        for force in self.forces:
            def columns(prefix):
                return np.column_stack([np.interp(time, data.time, data.column(prefix + axis)) for axis in "xyz"])

            result.append((force.body, np.hstack([columns(force.force), columns(force.torque)]),
                           columns(force.point)))
        return result


def read_external_loads(path: str | os.PathLike, datafile: str | os.PathLike | None = None) -> ExternalLoads:
    """Read an external-loads ``.xml`` and the force file it names (``<datafile>``, relative
    to the ``.xml``'s folder, or ``datafile``). Forces must be expressed in ground."""
    path = Path(path)
    lines = read_text(path, "external loads file")
    try:
        root = ET.fromstring("\n".join(lines))
    except ET.ParseError as error:
        raise ValueError(f"{path.name}: not an XML file ({error})") from None
    loads = root.find("ExternalLoads") if root.tag != "ExternalLoads" else root
    if loads is None:
        raise ValueError(f"{path.name}: no <ExternalLoads> element")
    forces = []
    for element in loads.iterfind("objects/ExternalForce"):
        if (element.findtext("isDisabled") or "false").strip().lower() == "true":
            continue
        name = element.get("name")
        for frame in ("force_expressed_in_body", "point_expressed_in_body"):
            if (element.findtext(frame) or "ground").strip() != "ground":
                raise ValueError(f"{path.name}, ExternalForce {name!r}: <{frame}> must be ground, got "
                                 f"{element.findtext(frame).strip()!r}")
        fields = {tag: (element.findtext(tag) or "").strip()
                  for tag in ("applied_to_body", "force_identifier", "point_identifier", "torque_identifier")}
        for tag, value in fields.items():
            if not value:
                raise ValueError(f"{path.name}, ExternalForce {name!r}: <{tag}> is missing")
        forces.append(ExternalForce(name, fields["applied_to_body"], fields["force_identifier"],
                                    fields["point_identifier"], fields["torque_identifier"]))
    if not forces:
        raise ValueError(f"{path.name}: no enabled <ExternalForce>")
    source = datafile or (loads.findtext("datafile") or "").strip()
    if not source:
        raise ValueError(f"{path.name}: no <datafile> names the force file")
    source = Path(source) if Path(source).is_absolute() or datafile else path.parent / source
    data = read_storage(source)
    for force in forces:
        for prefix in (force.force, force.point, force.torque):
            for axis in "xyz":
                if prefix + axis not in data.names:
                    raise KeyError(f"{Path(source).name}: no column {prefix + axis!r} for ExternalForce "
                                   f"{force.name!r} of {path.name}")
    return ExternalLoads(forces, data, os.fspath(path))
