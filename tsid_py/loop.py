"""Real-time loop practice in one call: :func:`prepare_loop` before a control loop starts.

A control step allocates nothing in steady state when its solution is refilled
(``sol = solver.solve(q, v, out=sol)``): no Python object, no array, no kernel buffer — the
only allocator calls left are numba's, which wraps each array argument of a compiled call in
a 48-byte record freed when the call returns, and pinocchio's argument conversion. What is
left of a loop's tail is then the process's surroundings, which this module sets:

* **one BLAS thread**: a step's matrices are about 50 × 50; a threaded BLAS wakes its threads
  for every product and loses more than it gains (≈ 1.5 × slower steps with two threads);
* **a pinned core**: the scheduler does not move the loop between cores (cold caches);
* **a frozen garbage collector**: :func:`gc.freeze` moves every object alive now (the robot,
  the model, numba's and MuJoCo's objects: hundreds of thousands) out of the collector's
  reach, so that a collection caused by other code in the loop scans only what was created
  since — a full collection over everything otherwise takes milliseconds;
* optionally a **real-time priority** (``SCHED_FIFO``, needs the privilege).

Each is undone by :meth:`LoopSettings.restore` (or leaving the ``with`` block).
"""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass, field

from numba.core import event
from threadpoolctl import threadpool_limits


@dataclass
class LoopSettings:
    """What :func:`prepare_loop` changed, to report and to undo."""

    core: int | None = None
    blas_threads: int | None = None
    gc_frozen: int = 0
    gc_disabled: bool = False
    priority: int | None = None
    layouts_prepared: int = 0
    notes: list[str] = field(default_factory=list)
    _undo: list = field(default_factory=list, repr=False)

    def on_restore(self, undo) -> None:
        """Have :meth:`restore` call ``undo()`` (after the ones registered later)."""
        self._undo.append(undo)

    def restore(self) -> None:
        """Undo every change, last first."""
        while self._undo:
            self._undo.pop()()

    def __enter__(self) -> "LoopSettings":
        return self

    def __exit__(self, *exc) -> None:
        self.restore()


def prepare_loop(core: int | None = -1, *, blas_threads: int | None = 1, freeze_gc: bool = True,
                 disable_gc: bool = False, realtime_priority: int | None = None, controllers=()) -> LoopSettings:
    """Set the process up for a control loop; call once, after building the controller and
    one warm-up step (so that what they allocate is frozen), before the loop.

    Parameters
    ----------
    core : pin the process to this CPU (Linux); ``-1`` (default) takes the last one it may
        run on, None leaves the affinity alone.
    blas_threads : limit BLAS to this many threads (None: leave it).
    freeze_gc : :func:`gc.freeze` the objects alive now (collections skip them).
    disable_gc : also turn the automatic collector off (a loop that allocates nothing needs
        no collection; a loop that does then grows — call :func:`gc.collect` between runs).
    realtime_priority : ``SCHED_FIFO`` priority 1–99 (Linux, needs ``CAP_SYS_NICE``; a
        refusal is noted in ``notes``, not raised).
    controllers : controllers (:class:`~tsid_py.control.pipeline.Pipeline`: anything with a
        ``prepare()``) to prepare first, so that what they build ahead of the loop — the
        solver's layouts for every set of contacts a step may soften — is frozen too
        (``layouts_prepared`` counts them).

    Returns the :class:`LoopSettings` applied (a context manager that restores them).
    """
    settings = LoopSettings()
    for controller in controllers:
        if not callable(getattr(controller, "prepare", None)):
            raise ValueError(f"controllers must have a prepare() method, got {type(controller).__name__}")
        settings.layouts_prepared += controller.prepare()
    if core is not None:
        if hasattr(os, "sched_setaffinity"):
            allowed = os.sched_getaffinity(0)
            chosen = max(allowed) if core == -1 else int(core)
            if chosen not in allowed:
                raise ValueError(f"core must be one of the CPUs this process may use {sorted(allowed)}, got {core}")
            os.sched_setaffinity(0, {chosen})
            settings.core = chosen
            settings.on_restore(lambda: os.sched_setaffinity(0, allowed))
        else:
            settings.notes.append("no CPU affinity on this OS: not pinned")
    if blas_threads is not None:
        if int(blas_threads) < 1:
            raise ValueError(f"blas_threads must be >= 1, got {blas_threads}")
        limiter = threadpool_limits(limits=int(blas_threads), user_api="blas")
        settings.blas_threads = int(blas_threads)
        settings.on_restore(limiter.restore_original_limits)
    if freeze_gc:
        gc.collect()
        gc.freeze()
        settings.gc_frozen = gc.get_freeze_count()
        settings.on_restore(gc.unfreeze)
    if disable_gc and gc.isenabled():
        gc.disable()
        settings.gc_disabled = True
        settings.on_restore(gc.enable)
    if realtime_priority is not None:
        _set_realtime_priority(settings, int(realtime_priority))
    return settings


def _set_realtime_priority(settings: LoopSettings, priority: int) -> None:
    if not 1 <= priority <= 99:
        raise ValueError(f"realtime_priority must be in 1..99, got {priority}")
    if not hasattr(os, "sched_setscheduler"):
        settings.notes.append("no real-time scheduling on this OS")
        return
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except PermissionError:
        settings.notes.append("SCHED_FIFO refused (needs CAP_SYS_NICE or root): normal priority")
        return
    settings.priority = priority
    settings.on_restore(lambda: os.sched_setscheduler(0, policy, param))


class Pace:
    """Start each step on a fixed period: :meth:`wait` spins until the next period begins
    (``rate`` Hz; None: returns at once). A control loop's shape — each step follows a pause,
    not the step before it — for timing a step as a loop takes it. Spinning, not sleeping: a
    sleep's wake-up adds the kernel's timer latency, which the loop harness measures apart
    (:mod:`tsid_py.scenarios.realtime`). ``late`` counts the periods a step began after (the
    one before overran, or the process was stopped), each restarting the schedule there."""

    def __init__(self, rate: float | None = None):
        if rate is not None and not rate > 0:
            raise ValueError(f"rate must be > 0 Hz or None, got {rate!r}")
        self.period = None if rate is None else 1.0 / float(rate)
        self.late, self._next = 0, None

    def wait(self) -> None:
        """Return when the next period begins (at once the first time)."""
        if self.period is None:
            return
        now = time.perf_counter()
        self._next = now if self._next is None else self._next + self.period
        if now > self._next:
            self.late += 1
            self._next = now
        while time.perf_counter() < self._next:
            pass


class CompilationCounter(event.Listener):
    """Counts numba's compilations (a kernel's first call with new argument types, in the
    loop: a code path not warmed up) between :meth:`start` and :meth:`stop`."""

    def __init__(self):
        self.count = 0

    def start(self) -> CompilationCounter:
        event.register("numba:compile", self)
        return self

    def stop(self) -> None:
        event.unregister("numba:compile", self)

    def on_start(self, event) -> None:
        self.count += 1

    def on_end(self, event) -> None:
        """(Counted at the start.)"""
