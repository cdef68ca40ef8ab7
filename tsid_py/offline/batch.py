"""Many recordings at once: the over-time inverse dynamics of each, in parallel on Dask.

A recording is its positions, sampling period and contact frames (:class:`Recording`). The
robot travels to the workers as a :class:`RobotSource` — a name of :mod:`tsid_py.robots` or
a URDF path — and is built once per worker thread, not pickled. Each recording runs
:func:`~tsid_py.offline.over_time.multiple_contact_inverse_dynamics_over_time` with BLAS
limited to one thread, in the workers as in a serial run, so the results are identical.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from .. import robots
from ..robot import Robot
from .over_time import (
    InverseDynamicsOverTimeResult,
    multiple_contact_inverse_dynamics_over_time,
)


@dataclass(frozen=True)
class Recording:
    """One recorded motion: ``positions`` (T, nq) every ``dt`` s, in contact through ``contacts``;
    ``options``: keyword arguments of this recording only (e.g. its ``contact_schedule``,
    ``known_wrenches``, ``velocities``), over the batch's common ones."""

    positions: np.ndarray
    dt: float
    contacts: tuple[str, ...]
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RobotSource:
    """How a worker builds the robot: ``name`` (see :func:`tsid_py.robots.load`), a
    floating-base ``urdf`` path with its ``package_dirs``, ``feet`` and ``sole_size``, or an
    OpenSim model ``osim`` with its foot bodies ``feet``."""

    name: str | None = None
    urdf: str | None = None
    package_dirs: tuple[str, ...] = ()
    feet: tuple[str, ...] = ()
    sole_size: tuple[float, float] | None = None
    osim: str | None = None

    @classmethod
    def of(cls, robot) -> RobotSource:
        """From a robot name, a URDF path, a :class:`Robot` or a :class:`RobotSource`."""
        if isinstance(robot, RobotSource):
            return robot
        if isinstance(robot, Robot):
            if robot.opensim is not None:
                return cls(osim=robot.opensim.path, feet=tuple(foot.removesuffix("_sole") for foot in robot.feet))
            if _is_builtin(robot):
                return cls(name=robot.name)
            if robot.urdf_path is None:
                raise ValueError("robot must come from tsid_py.robots.load or Robot.from_urdf (the workers "
                                 "rebuild it from its name or URDF path)")
            return cls(urdf=robot.urdf_path, package_dirs=tuple(robot.package_dirs), feet=tuple(robot.feet),
                       sole_size=robot.sole_size)
        if isinstance(robot, (str, os.PathLike)):
            text = os.fspath(robot)
            if text in robots.SPECS:
                return cls(name=text)
            if os.path.isfile(text):
                return cls(urdf=text)
            raise ValueError(f"robot must be one of {sorted(robots.SPECS)} or a URDF file, got {text!r}")
        raise ValueError(f"robot must be a name, a URDF path or a tsid_py.Robot, got {type(robot).__name__}")

    def build(self) -> Robot:
        """The robot, built once per thread for each source (a :class:`Robot` holds its
        pinocchio data, so threads of one worker must not share it)."""
        cache = _THREAD_ROBOTS.__dict__.setdefault("robots", {})
        if self not in cache:
            if self.osim is not None:
                cache[self] = Robot.from_osim(self.osim, feet=list(self.feet))
            else:
                cache[self] = robots.load(self.name) if self.name is not None else Robot.from_urdf(
                    self.urdf, floating_base=True, package_dirs=list(self.package_dirs), feet=list(self.feet),
                    sole_size=self.sole_size)
        return cache[self]


def _is_builtin(robot: Robot) -> bool:
    """Whether ``robot`` is a built-in robot as :func:`tsid_py.robots.load` makes it — its
    name *and* its URDF file, feet and soles — not merely a robot that shares its name."""
    spec = robots.SPECS.get(robot.name)
    if spec is None or robot.urdf_path is None:
        return False
    try:
        builtin_urdf = robots.data_root() / spec.urdf
    except (ModuleNotFoundError, FileNotFoundError):
        return False
    return (os.path.realpath(robot.urdf_path) == os.path.realpath(builtin_urdf)
            and tuple(robot.sole_size or ()) == tuple(spec.sole_size or ())
            and (tuple(robot.feet) == tuple(spec.feet) or spec.foot_radius > 0))


#: Per-thread cache of the robots built by :meth:`RobotSource.build`.
_THREAD_ROBOTS = threading.local()


@dataclass
class BatchResult:
    """``results[i]`` for recording i (None if it failed); ``errors[i]`` says why it failed."""

    results: list[InverseDynamicsOverTimeResult | None]
    errors: dict[int, str] = field(default_factory=dict)

    @property
    def succeeded(self) -> list[int]:
        return [i for i, result in enumerate(self.results) if result is not None]


def _as_recording(item, index: int) -> Recording:
    """``item`` as a :class:`Recording`; ``ValueError`` naming the entry if it is not one at
    all. Missing or None fields pass through: that recording then fails alone, in its run."""
    if isinstance(item, Recording):
        return item
    options = {}
    if isinstance(item, dict):
        options = dict(item.get("options") or {})
        item = (item.get("positions"), item.get("dt"), item.get("contacts"))
    try:
        positions, dt, contacts = item
    except (TypeError, ValueError) as exc:
        raise ValueError(f"recordings[{index}] must be a Recording, a (positions, dt, contacts) tuple or a "
                         f"dict with those keys, got {type(item).__name__}") from exc
    contacts = () if contacts is None else (contacts,) if isinstance(contacts, str) else contacts
    return Recording(positions, dt, tuple(contacts) if isinstance(contacts, (Sequence, np.ndarray)) else contacts,
                     options)


def run_one(source: RobotSource, recording: Recording, options: dict) -> InverseDynamicsOverTimeResult:
    """One recording, as a worker runs it (BLAS on one thread)."""
    with threadpool_limits(1):
        if not isinstance(recording.contacts, tuple):
            raise ValueError(f"contacts must be frame names, got {type(recording.contacts).__name__}")
        return multiple_contact_inverse_dynamics_over_time(source.build(), recording.positions, recording.dt,
                                                           list(recording.contacts),
                                                           **{**options, **recording.options})


def inverse_dynamics_over_time_batch(robot, recordings: Sequence, *, client=None, workers: int = 2,
                                     progress: bool = True, options: dict | None = None) -> BatchResult:
    """The over-time inverse dynamics of many recordings, in parallel.

    ``robot``: a :mod:`tsid_py.robots` name, a URDF path, a :class:`~tsid_py.Robot` (rebuilt
    in the workers from its name or URDF) or a :class:`RobotSource`. ``recordings``: a list of
    :class:`Recording`, ``(positions, dt, contacts)`` tuples or dicts with those keys.
    ``options``: keyword arguments for
    :func:`~tsid_py.multiple_contact_inverse_dynamics_over_time`, the same for every recording
    (e.g. ``{"friction": 0.8, "smoothing_weight": 0.5}``).

    ``client``: a ``dask.distributed.Client`` (or a scheduler address, e.g.
    ``"tcp://10.0.0.1:8786"``) to run on; by default a local cluster of ``workers``
    single-threaded processes is started and shut down when done. ``workers=0`` without a
    client runs serially in this process (no Dask). ``progress`` shows a bar (tqdm).

    A recording that fails (bad data, an unknown contact) does not stop the others: its
    entry in ``results`` is None and ``errors`` holds ``"ExceptionType: message"`` under its
    index.
    """
    source = RobotSource.of(robot)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict of keyword arguments, got {type(options).__name__}")
    options = dict(options or {})
    items = [_as_recording(item, i) for i, item in enumerate(recordings)]
    from tqdm.auto import tqdm

    bar = tqdm(total=len(items), desc="recordings", unit="recording", disable=not progress)
    try:
        if client is None and workers == 0:
            return _serial(source, items, options, bar)
        return _on_dask(source, items, options, bar, client, workers)
    finally:
        bar.close()


def _serial(source, items, options, bar) -> BatchResult:
    batch = BatchResult([None] * len(items))
    for i, recording in enumerate(items):
        try:
            batch.results[i] = run_one(source, recording, options)
        except Exception as error:     # noqa: BLE001 — reported by index, the others go on
            batch.errors[i] = f"{type(error).__name__}: {error}"
        bar.update(1)
    return batch


#: Environment of the worker processes a local cluster starts: one BLAS thread each, and
#: *not* Dask's default ``MALLOC_TRIM_THRESHOLD_=65536`` — setting it also freezes glibc's
#: mmap threshold, so every large temporary array of the interior-point method is mapped and
#: unmapped afresh (measured: a 4000-frame recording 2.1 s instead of 1.2 s in a worker).
#: Start workers of your own cluster without that variable for the same speed.
WORKER_ENVIRONMENT = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}


def local_cluster(workers: int):
    """A ``dask.distributed.LocalCluster`` of ``workers`` single-threaded processes with
    :data:`WORKER_ENVIRONMENT`, no dashboard. Close it (or use it as a context manager)."""
    import dask
    from dask.distributed import LocalCluster

    with dask.config.set({"distributed.nanny.pre-spawn-environ": dict(WORKER_ENVIRONMENT)}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)


def _on_dask(source, items, options, bar, client, workers: int) -> BatchResult:
    from dask.distributed import Client, as_completed

    if workers < 1 and client is None:
        raise ValueError(f"workers must be >= 1 for a local cluster (0: serial), got {workers}")
    owned = []
    if client is None:
        cluster = local_cluster(workers)
        client = Client(cluster)
        owned = [client, cluster]
    elif isinstance(client, str):
        client = Client(client)
        owned = [client]
    try:
        futures = {client.submit(run_one, source, recording, options, pure=False): i
                   for i, recording in enumerate(items)}
        batch = BatchResult([None] * len(items))
        for future in as_completed(futures):
            index = futures[future]
            if future.status == "error":
                error = future.exception()
                batch.errors[index] = f"{type(error).__name__}: {error}"
            else:
                batch.results[index] = future.result()
            bar.update(1)
        return batch
    finally:
        for resource in owned:
            resource.close()
