"""Recordings from files and results to files, for the command line.

Positions are read from ``.npz`` (the array named ``positions``, or the file's only array)
or ``.csv`` (one frame a row, comma-separated, an optional header line): each row is a
pinocchio configuration ``q`` (free flyer: ``x y z qx qy qz qw`` then the joints in the
model's order). Results are written to ``.npz``, atomically. OpenSim's files are read and
written by :mod:`.opensim_files`.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from .over_time import InverseDynamicsOverTimeResult
from .._files import atomic_write, check_output_path, read_text


def load_positions(path: str | os.PathLike) -> np.ndarray:
    """The (T, nq) positions stored in ``path`` (``.npz`` or ``.csv``); ``ValueError`` naming
    the file and the problem otherwise. Values are checked against a robot later."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"positions file {str(path)!r} does not exist" if not path.exists()
                         else f"positions file {str(path)!r} is not a file")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        array = _read_npz(path)
    elif suffix == ".csv":
        array = _read_csv(path)
    else:
        raise ValueError(f"positions file must be .npz or .csv, got {path.name!r}")
    if array.ndim != 2:
        raise ValueError(f"{path.name}: positions must be a 2-D array (frames x nq), got shape {array.shape}")
    return np.asarray(array, dtype=float)


def _read_npz(path: Path) -> np.ndarray:
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            if "positions" in names:
                return archive["positions"]
            if len(names) == 1:
                return archive[names[0]]
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
        raise ValueError(f"{path.name}: not a readable .npz archive ({type(error).__name__}: {error})") from None
    raise ValueError(f"{path.name}: expected an array named 'positions' (or a single array), found {names}")


def _read_csv(path: Path) -> np.ndarray:
    """A table of numbers, one frame a line, comma-separated, with an optional first line
    of column names; decoded by :func:`~tsid_py._files.read_text` (byte-order
    mark, Latin-1, CRLF). Errors name the file, the line and the column."""
    lines = read_text(path, "positions file")
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ValueError(f"{path.name}: no data")
    try:
        [float(cell) for cell in numbered[0][1].split(",")]
    except ValueError:
        numbered = numbered[1:]                   # a header line of column names
    rows, width = [], None
    for number, line in numbered:
        cells = line.split(",")
        if width is None:
            width = len(cells)
        if len(cells) != width:
            raise ValueError(f"{path.name}, line {number}: expected {width} values, got {len(cells)}")
        row = []
        for column, cell in enumerate(cells, start=1):
            try:
                row.append(float(cell))
            except ValueError:
                raise ValueError(f"{path.name}, line {number}, column {column}: not a table of numbers "
                                 f"(expected a number, got {cell.strip()!r})") from None
        rows.append(row)
    if not rows:
        raise ValueError(f"{path.name}: a header line but no data")
    return np.array(rows)


def save_result(path: str | os.PathLike, result: InverseDynamicsOverTimeResult, *, contacts, dt: float,
                robot: str) -> None:
    """Write ``result`` to ``path`` (.npz, any case; the name is kept as given), atomically:
    ``tau`` (T−2, nv), ``wrenches`` (T−2, k, 6) world-aligned, ``local_wrenches``,
    ``positions``, ``velocities``, ``accelerations``, ``relaxed_frames``, ``frame_indices``
    (rows of the input each frame is), ``residuals`` (the root's residual wrench),
    ``contacts``, ``dt``, ``robot`` and ``objective``."""
    path = check_output_path(path, (".npz",))
    frame_indices = result.frame_indices if result.frame_indices is not None else np.arange(1, len(result.tau) + 1)
    arrays = dict(tau=result.tau, wrenches=result.wrenches, local_wrenches=result.local_wrenches,
                  positions=result.positions, velocities=result.velocities, accelerations=result.accelerations,
                  relaxed_frames=result.relaxed_frames, frame_indices=frame_indices,
                  contacts=np.array(list(contacts), dtype=str), dt=dt, robot=robot, objective=result.objective)
    if result.residuals is not None:
        arrays["residuals"] = result.residuals
    with atomic_write(path, "wb") as handle:        # a file object: numpy adds no second suffix
        np.savez(handle, **arrays)
