"""Re-solve the steps of a flight recording (:mod:`tsid_py.scenarios.recorder`), as they were
or with changed settings, and compare.

    recording = Recording.load("walk.tsidrec")
    replayed = replay(recording)                            # every step kept, as recorded
    replayed.max_difference()                               # 0.0: bit for bit
    changed = replay(recording, change=lambda solver: setattr(solver.tasks[0], "kp", 50.0))

A replayed step starts from the recording's keyframe before it (the solver's items as they
were), restores the step's task targets, contact force ramps and the reduced backend's warm
start (active set and basic columns), and solves the recorded ``(q, v)`` with the recorded
overrides. ``change(solver)`` is applied to the solver of each keyframe before its steps are
re-solved (a setting, a weight, another backend): the difference with the recording is then
what that change does, step by step, on the same states.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field

import numpy as np

from .. import robots
from ..overrides import StepOverrides
from ..settings import setting_names
from ..scenarios.recorder import FORMAT, restore_item_state, solver_from_keyframe


@dataclass
class Recording:
    """A loaded recording: per-step arrays (``q``, ``v``, ``x`` padded with NaN, ``x_size``,
    ``step_us``, ``status``…), ``step`` (the step numbers), the keyframes' bytes and the header."""

    arrays: dict
    keyframes: list
    header: dict

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Recording":
        """Read a recording written by :meth:`FlightRecorder.save`; ``ValueError`` naming the
        file when it is not one."""
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise ValueError(f"recording file {path!r} does not exist")
        if not zipfile.is_zipfile(path):
            raise ValueError(f"{path!r} is not a tsid_py recording (not an .npz archive, or one cut short)")
        try:
            with np.load(path, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path!r} is not a readable tsid_py recording (a corrupt .npz archive: "
                             f"{type(exc).__name__}: {exc})") from None
        if "header" not in arrays:
            raise ValueError(f"{path!r} is not a tsid_py recording (no header)")
        header = json.loads(arrays.pop("header").tobytes().decode())
        if header.get("format") != FORMAT:
            raise ValueError(f"{path!r} has recording format {header.get('format')}, this version reads {FORMAT}")
        keyframes = [arrays.pop(f"keyframe_{k}").tobytes() for k in range(len(header["keyframes"]))]
        items: dict = {}
        for name in [name for name in arrays if name.startswith("item_")]:
            _, step, index = name.split("_")
            items.setdefault(step, {})[int(index)] = arrays.pop(name).tobytes()
        recording = cls(arrays, keyframes, header)
        recording.items = items
        return recording

    #: Per step (as a string): the whole state of the tasks the recorder keeps each step, by index.
    items: dict = None

    @property
    def steps(self) -> np.ndarray:
        return self.arrays["step"]

    def __len__(self) -> int:
        return int(self.steps.size)

    def x(self, index: int) -> np.ndarray | None:
        """The recorded ``x`` of the ``index``-th kept step (None if that step raised)."""
        size = int(self.arrays["x_size"][index])
        return self.arrays["x"][index, :size] if size else None

    def status(self, index: int) -> str | None:
        code = int(self.arrays["status"][index])
        return None if code < 0 else self.header["statuses"][code]


@dataclass
class Replayed:
    """Re-solved steps: ``x[i]`` for the ``(first + i)``-th kept step (None where it raised,
    in the recording or now), ``tau[i]``, the solvers' statuses, and ``errors``."""

    recording: Recording
    x: list = field(default_factory=list)
    tau: list = field(default_factory=list)
    statuses: list = field(default_factory=list)
    errors: dict = field(default_factory=dict)
    first: int = 0

    def differences(self) -> np.ndarray:
        """Per step, ``max |x_replayed − x_recorded|`` (NaN where either is missing or the sizes
        differ)."""
        out = np.full(len(self.x), np.nan)
        for i, x in enumerate(self.x):
            recorded = self.recording.x(self.first + i)
            if x is not None and recorded is not None and x.size == recorded.size:
                out[i] = float(np.max(np.abs(x - recorded))) if x.size else 0.0
        return out

    def max_difference(self) -> float:
        """The largest difference over the steps both solved (NaN if none)."""
        differences = self.differences()
        return float(np.nanmax(differences)) if np.any(np.isfinite(differences)) else float("nan")

    def identical_steps(self) -> int:
        """How many steps gave the recorded ``x`` bit for bit."""
        return int(np.sum(self.differences() == 0.0))


def load_robot(recording: Recording):
    """The recording's robot (a built-in robot by its name)."""
    name = recording.header["robot"]
    try:
        return robots.load(name)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"the recording's robot {name!r} is not a built-in robot; pass robot=") from exc


def replay(recording: Recording, *, robot=None, change=None, indices=None) -> Replayed:
    """Re-solve the kept steps ``indices`` (default: all; a range) of ``recording`` in order;
    ``change(solver)`` alters each keyframe's solver first. The steps from the checkpoint
    before the first index (where a warm start was kept) are solved too, not reported.
    Returns :class:`Replayed`."""
    robot = load_robot(recording) if robot is None else robot
    arrays, keyframes, sparse = recording.arrays, recording.header["keyframes"], recording.header["sparse"]
    indices = range(len(recording)) if indices is None else indices
    if not isinstance(indices, range) or indices.step != 1:
        raise ValueError(f"indices must be a range of consecutive steps, got {indices!r}")
    first = indices.start
    while first > 0 and "warm" not in sparse.get(str(int(arrays["step"][first])), {}):
        first -= 1
    if "warm" not in sparse.get(str(int(arrays["step"][first])), {}):
        first = indices.start        # no warm start kept before: these steps start cold (to the solver's tolerance)
    result, solver, current = Replayed(recording), None, None
    for i in range(first, indices.stop):
        keyframe = int(arrays["keyframe_of"][i])
        if keyframe != current:
            solver = solver_from_keyframe(recording.keyframes[keyframe], robot)
            if change is not None:
                change(solver)
            settings = [_settings(task) for task in solver.tasks]
            current = keyframe
        _restore_inputs(solver, recording, i, keyframes[keyframe]["targets"], settings)
        step = str(int(arrays["step"][i]))
        overrides = _overrides(sparse.get(step, {}).get("overrides"), solver)
        try:
            solution = solver.solve(arrays["q"][i], arrays["v"][i], overrides)
        except Exception as exc:               # noqa: BLE001 (a replay reports, never stops)
            if i < indices.start:
                continue
            result.x.append(None)
            result.tau.append(None)
            result.statuses.append(None)
            result.errors[i] = f"{type(exc).__name__}: {exc}"
            continue
        if i < indices.start:
            continue
        result.x.append(solution.x.copy())
        result.tau.append(solution.tau.copy())
        result.statuses.append(solution.status)
    result.first = indices.start
    return result


def _settings(item) -> dict:
    """``item``'s settings (:class:`~tsid_py.settings.Setting`) by name, their values."""
    return {name: getattr(item, name) for name in setting_names(type(item))}


def _restore_item(item, data: bytes, solver, settings: dict) -> None:
    """The item's recorded state, then its ``settings`` as the replay has them (the state
    restores the recorded values and what was derived from them; a setting the replay's
    ``change`` assigned is assigned again, its derived state with it)."""
    restore_item_state(item, data, solver)
    for name, value in settings.items():
        if not _same(getattr(item, name), value):
            setattr(item, name, value)


def _same(a, b) -> bool:
    try:
        return bool(np.array_equal(a, b))
    except (TypeError, ValueError):
        return a == b


def _restore_inputs(solver, recording: Recording, i: int, target_shapes, settings) -> None:
    """Put the recorded step's targets, ramps and warm start back into ``solver`` (``settings``
    per task: :func:`_restore_item`)."""
    arrays = recording.arrays
    row, start = arrays["targets"][i], 0
    for task, shapes in zip(solver.tasks, target_shapes):
        values = []
        for shape in shapes:
            size = int(np.prod(shape))
            values.append(row[start:start + size].reshape(shape))
            start += size
        task.restore_targets(values)
    for index, data in (recording.items or {}).get(str(int(arrays["step"][i])), {}).items():
        _restore_item(solver.tasks[index], data, solver, settings[index])
    ramps = recording.header["sparse"].get(str(int(arrays["step"][i])), {}).get("ramps", {})
    solver.restore_transition_state(ramps)
    warm = recording.header["sparse"].get(str(int(arrays["step"][i])), {}).get("warm")
    if warm is not None and hasattr(solver.backend, "restore_warm_start"):
        shape = warm["shape"]
        solver.backend.restore_warm_start(warm["rows"], warm["at_upper"], warm["basis"], shape if shape[0] else None)


def _overrides(record: dict | None, solver) -> StepOverrides | None:
    """The step's overrides from their record (tasks by index in ``solver.tasks``)."""
    if not record:
        return None
    overrides = StepOverrides()
    for name, (soft_weight, normal_force) in record["contacts"].items():
        if soft_weight is not None:
            overrides.soften(name, soft_weight)
        if normal_force is not None:
            overrides.bound_normal_force(name, *normal_force)
    if record["torque_limit_scale"] != 1.0:
        overrides.scale_torque_limits(record["torque_limit_scale"])
    for index, weight in record["task_weights"].items():
        if index == "?":
            raise ValueError("the recording weighs a task that is not one of the solver's tasks")
        task = solver.regularization_tasks[int(index[1:])] if index.startswith("r") else solver.tasks[int(index)]
        overrides.weigh(task, np.array(weight))
    return overrides
