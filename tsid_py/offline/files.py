"""Recordings from files and results to files, for the command line.

Positions are read from ``.npz`` (the array named ``positions``, or the file's only array)
or ``.csv`` (one frame a row, comma-separated, an optional header line): each row is a
pinocchio configuration ``q`` (free flyer: ``x y z qx qy qz qw`` then the joints in the
model's order). Results are written to ``.npz``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .over_time import InverseDynamicsOverTimeResult


def load_positions(path: str | os.PathLike) -> np.ndarray:
    """The (T, nq) positions stored in ``path`` (``.npz`` or ``.csv``); ``ValueError`` naming
    the file and the problem otherwise. Values are checked against a robot later."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"positions file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            if "positions" in names:
                array = archive["positions"]
            elif len(names) == 1:
                array = archive[names[0]]
            else:
                raise ValueError(f"{path.name}: expected an array named 'positions' (or a single array), "
                                 f"found {names}")
    elif suffix == ".csv":
        array = _read_csv(path)
    else:
        raise ValueError(f"positions file must be .npz or .csv, got {path.name!r}")
    if array.ndim != 2:
        raise ValueError(f"{path.name}: positions must be a 2-D array (frames x nq), got shape {array.shape}")
    return np.asarray(array, dtype=float)


def _read_csv(path: Path) -> np.ndarray:
    with open(path) as handle:
        first = handle.readline()
    try:
        [float(cell) for cell in first.split(",")]
        header = 0
    except ValueError:
        header = 1                                # a header line of column names
    try:
        return np.loadtxt(path, delimiter=",", skiprows=header, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{path.name}: not a table of numbers ({exc})") from exc


def save_result(path: str | os.PathLike, result: InverseDynamicsOverTimeResult, *, contacts, dt: float,
                robot: str) -> None:
    """Write ``result`` to ``path`` (.npz): ``tau`` (T−2, nv), ``wrenches`` (T−2, k, 6)
    world-aligned, ``local_wrenches``, ``positions``, ``velocities``, ``accelerations``,
    ``relaxed_frames``, ``frame_indices`` (rows of the input each frame is), ``contacts``,
    ``dt``, ``robot`` and ``objective``."""
    path = Path(path)
    if path.suffix.lower() != ".npz":
        raise ValueError(f"out must be an .npz file, got {path.name!r}")
    np.savez(path, tau=result.tau, wrenches=result.wrenches, local_wrenches=result.local_wrenches,
             positions=result.positions, velocities=result.velocities, accelerations=result.accelerations,
             relaxed_frames=result.relaxed_frames, frame_indices=np.arange(1, len(result.tau) + 1),
             contacts=np.array(list(contacts)), dt=dt, robot=robot, objective=result.objective)
