"""A real-time loop harness: the controller in its own process, stepping at a fixed rate
against the simulator, with deadline misses and the latency distribution counted.

    report = run_realtime(duration=60.0, rate=1000.0)      # or: python benchmarks/realtime_loop.py

The shape of a robot's control loop. The **simulator process** (this one) is the robot: at
each tick ``t_k = t_0 + k / rate`` it publishes the state ``(q, v)`` in shared memory and
signals the controller through a pipe, waits for the torques until the tick's deadline
``t_k + 1 / rate``, and steps MuJoCo for one period with them — or, when they are late, with
the previous ones (a *deadline miss*, what a robot's motor drivers do); a tick that finds the
controller still busy with an earlier state, or that begins after its own deadline, is a miss
too. The simulated time runs with the wall clock: one period of physics per tick, always. The **controller
process** (:class:`~tsid_py.control.BalanceController`, set up by
:func:`tsid_py.loop.prepare_loop`: pinned, one BLAS thread, its objects frozen out of the
collector) waits for the state, steps, writes ``tau_actuated`` and signals back. Pushes on the
base every ``push_every`` s keep the controller busy.

Each tick records: the *latency* (state published → torques received), the controller's own
*compute* time (measured in its process) and whether the deadline was missed. A compute
longer than half a period is kept in ``slow_computes`` with what can explain it: the solver's
phases (:attr:`~tsid_py.DynamicsSolver.timings`, µs), whether the solve went the solver's
general way (not its steady step, :mod:`tsid_py.solver_steady`), the time outside the solver
(the controller's stages), the garbage collections, layouts built and numba compilations
during it (``gc.callbacks``, :attr:`~tsid_py.DynamicsSolver.layouts_built`, numba's compile
events) and the thread's involuntary context switches and page faults during it
(``getrusage``). The controller is prepared before the loop
(:meth:`~tsid_py.control.pipeline.Pipeline.prepare`: its layouts for every set of soles a
step may soften built), unless ``prepare=False``. A slow compute also has its thread's CPU time
(``cpu_us``) and voluntary context switches (a wait). What none of these shows — the other
hardware thread slowing this one — is not seen. A miss is
attributed to

* ``controller``: its compute alone exceeded the period and the OS left its thread alone
  meanwhile (our code);
* ``controller_preempted``: its compute exceeded the period, but the OS switched its thread out
  during it (an involuntary context switch, ``getrusage(RUSAGE_THREAD).ru_nivcsw``, counted
  around each compute: the time includes another process's);
* ``controller_off_cpu``: its compute exceeded the period without a context switch, but its
  thread ran for at most a period of it (its CPU time, :func:`time.thread_time`, which a
  virtual machine's kernel keeps without the time the hypervisor took the core away: *steal*):
  the rest of the time the thread was not running — not our code;
* ``controller_slow_core``: its compute exceeded the period on the CPU throughout, and its
  dynamics pass — pinocchio's ``computeAllTerms`` and the frames, the same work every step,
  no allocation, no branch on the data — ran over :data:`SLOW_CORE_RATIO` × its median: the
  core itself was slow (interrupts served on it, the hypervisor), every phase inflated alike,
  not a path of ours; the slow compute's phases are in ``slow_computes``;
* ``transport``: compute fitted, but the wake-ups and the pipe took the rest (the OS);
* ``simulator``: the simulator itself started the tick late (its previous step overran).

A late tick makes the next ones start late too, so misses come in runs; the report counts
the runs by the cause of their first miss as well (``miss_episodes_by_first_cause``), and
how many steps of the controller took longer than a period at all.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import resource
import time
from multiprocessing import shared_memory

import numpy as np
from .. import robots
from ..loop import CompilationCounter, prepare_loop

#: Header slots of the shared block: tick number published, tick number answered, stop flag.
_TICK, _ANSWERED, _STOP = 0, 1, 2
#: The calling thread's resource usage where the OS has it per thread (Linux), else the process's.
_THREAD = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
#: The most slow computes kept (see the module).
_SLOW_KEPT = 100
#: A dynamics pass this many times its median marks a compute on a slow core (see the module).
SLOW_CORE_RATIO = 3.0


class _Link:
    """How the two processes signal each other: ``"pipe"`` (blocking reads: the waiting
    process sleeps, and the OS wakes it) or ``"spin"`` (each polls the shared block's header:
    no wake-up to wait for, a core kept busy — a real-time loop's way on a reserved core).
    The data (state, torques) is in the shared block either way."""

    def __init__(self, mode: str, shared: np.ndarray, wake=None, answer=None):
        self.mode, self.shared, self.wake, self.answer = mode, shared, wake, answer

    # controller side
    def next_state(self, last: int, timeout: float = 5.0) -> int | None:
        """The tick of the next published state, or None to stop."""
        if self.mode == "pipe":
            if not self.wake.poll(timeout) or self.wake.recv_bytes() == b"stop":
                return None
            return int(self.shared[_TICK])
        shared, give_up = self.shared, time.perf_counter() + timeout
        while True:
            if shared[_STOP]:
                return None
            tick = shared[_TICK]
            if tick != last:
                return int(tick)
            if time.perf_counter() > give_up:
                return None

    def answered(self, tick: int) -> None:
        self.shared[_ANSWERED] = tick
        if self.mode == "pipe":
            self.answer.send_bytes(b"t")

    # simulator side
    def publish(self, tick: int) -> None:
        self.shared[_TICK] = tick
        if self.mode == "pipe":
            self.wake.send_bytes(b"s")

    def wait_answer(self, tick: int, until: float) -> bool:
        """Whether the answer to ``tick`` arrived before ``until`` (perf_counter)."""
        if self.mode == "pipe":
            if self.answer.poll(max(until - time.perf_counter(), 0.0)):
                self.answer.recv_bytes()
                return True
            return False
        shared = self.shared
        while shared[_ANSWERED] != tick:
            if time.perf_counter() >= until:
                return False
        return True

    def late_answer(self, tick: int) -> bool:
        """Whether the answer to an earlier, late ``tick`` has arrived since (consumed)."""
        if self.mode == "pipe":
            if self.answer.poll(0):
                self.answer.recv_bytes()
                return True
            return False
        return self.shared[_ANSWERED] == tick

    def stop(self) -> None:
        self.shared[_STOP] = 1.0
        if self.mode == "pipe":
            self.wake.send_bytes(b"stop")


def _layout(nq: int, nv: int, na: int) -> dict[str, slice]:
    sizes = {"header": 3, "q": nq, "v": nv, "tau": na}
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    out["total"] = slice(0, start)
    return out


def _controller(name: str, robot_name: str, core: int | None, mode: str, wake, answer, results,
                period: float, prepare: bool = True, realtime_priority: int | None = None, refill: bool = True) -> None:
    """The controller process: wait for a state, step, publish the torques; at the end send
    the compute times back."""
    from ..control import BalanceController

    robot = robots.load(robot_name)
    block = shared_memory.SharedMemory(name=name)
    layout = _layout(robot.nq, robot.nv, robot.na)
    shared = np.ndarray((layout["total"].stop,), dtype=np.float64, buffer=block.buf)
    q, v, tau = shared[layout["q"]], shared[layout["v"]], shared[layout["tau"]]
    controller = BalanceController(robot)
    controller.refill = refill
    for _ in range(200):                                          # build layouts, compile, warm caches
        controller.step(robot.q_ref, robot.zero_velocity())
    settings = prepare_loop(core=core, controllers=[controller] if prepare else (), realtime_priority=realtime_priority)
    computes, preempted, off_cpu, ticks, link, tick = [], [], [], [], _Link(mode, shared, wake, answer), -1
    dynamics_passes = []
    slow, solver, collections, compilations = [], controller.solver, [0], CompilationCounter()
    def count_collections(phase, info):
        collections[0] += phase == "start"

    gc.callbacks.append(count_collections)
    built_before_loop = solver.layouts_built
    compilations.start()
    answer.send_bytes(b"ready")
    try:
        while True:
            tick = link.next_state(tick)
            if tick is None:
                break
            before, collected, layouts, compiled = (resource.getrusage(_THREAD), collections[0], solver.layouts_built,
                                                    compilations.count)
            cpu, tic = time.thread_time(), time.perf_counter()
            solution = controller.step(q.copy(), v.copy())
            tau[:] = solution.tau_actuated
            compute, cpu = time.perf_counter() - tic, time.thread_time() - cpu
            after = resource.getrusage(_THREAD)
            computes.append(compute)
            preempted.append(after.ru_nivcsw != before.ru_nivcsw)
            off_cpu.append(max(compute - cpu, 0.0))
            dynamics_passes.append(solver.timings["dynamics"])
            if compute > 0.5 * period and len(slow) < _SLOW_KEPT:
                slow.append({"tick": tick, "compute_us": 1e6 * compute, "cpu_us": 1e6 * cpu, "preempted": preempted[-1],
                             "voluntary_switches": after.ru_nvcsw - before.ru_nvcsw,
                             "general_step": not solver.last_step_steady,
                             "page_faults": (after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt),
                             "collections": collections[0] - collected,
                             "layouts_built": solver.layouts_built - layouts,
                             "compilations": compilations.count - compiled,
                             "phases_us": {name: 1e6 * value for name, value in solver.timings.items()},
                             "outside_solver_us": 1e6 * (compute - solver.last_step_seconds)})
            ticks.append(tick)
            link.answered(tick)
    finally:
        gc.callbacks.remove(count_collections)
        compilations.stop()
        settings.restore()
        results.send({"compute_s": computes, "preempted": preempted, "off_cpu_s": off_cpu, "ticks": ticks, "slow": slow,
                      "dynamics_s": dynamics_passes,
                      "gc_frozen": settings.gc_frozen, "layouts_prepared": settings.layouts_prepared,
                      "layouts_built_in_loop": solver.layouts_built - built_before_loop,
                      "notes": settings.notes})
        del q, v, tau, shared
        block.close()


def run_realtime(robot_name: str = robots.DEFAULT_HUMANOID, duration: float = 60.0, rate: float = 1000.0, *,
                 push_every: float = 5.0, push_force: float | None = None, controller_core: int | None = -1,
                 wait: str = "pipe", prepare: bool = True, realtime_priority: int | None = None,
                 refill: bool = True) -> dict:
    """Run the harness (see the module) for ``duration`` s of wall-clock time at ``rate`` Hz;
    ``wait``: how the processes signal each other (:class:`_Link`: ``"pipe"`` or ``"spin"``);
    ``prepare``: have :func:`~tsid_py.loop.prepare_loop` prepare the controller
    (:meth:`~tsid_py.control.pipeline.Pipeline.prepare`: its layouts built before the loop).
    ``refill``: the controller refills one solution in place each step
    (:class:`~tsid_py.control.pipeline.SolveStage`'s ``refill``: the solver's steady step).
    ``realtime_priority``: run both processes ``SCHED_FIFO`` at this priority (1–99; Linux,
    root or ``CAP_SYS_NICE``, else noted in the report's ``notes``), each pinned to its core —
    a robot's loop practice; the rest of the machine then gets what the kernel's real-time
    throttling leaves (5 % by default).
    Returns the report: ticks, deadline misses by cause, latency and compute percentiles (µs),
    the simulator's own step time, whether the robot fell."""
    if wait not in ("pipe", "spin"):
        raise ValueError(f"wait must be 'pipe' or 'spin', got {wait!r}")
    from ..sim.simulation import Simulation
    from .push_recovery import default_push

    if duration <= 0 or rate <= 0:
        raise ValueError(f"duration and rate must be > 0, got {duration} and {rate}")
    if realtime_priority is not None and not 1 <= realtime_priority <= 99:
        raise ValueError(f"realtime_priority must be in 1..99 (SCHED_FIFO), got {realtime_priority}")
    robot = robots.load(robot_name)
    sim = Simulation(robot, timestep=1.0 / rate)
    layout = _layout(robot.nq, robot.nv, robot.na)
    block = shared_memory.SharedMemory(create=True, size=8 * layout["total"].stop)
    shared = np.ndarray((layout["total"].stop,), dtype=np.float64, buffer=block.buf)
    shared[:] = 0.0
    shared[_TICK] = shared[_ANSWERED] = -1.0
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    core = allowed[-1] if controller_core == -1 and allowed else controller_core
    context = mp.get_context("spawn")
    wake_receiver, wake_sender = context.Pipe(duplex=False)
    answer_receiver, answer_sender = context.Pipe(duplex=False)
    results_receiver, results_sender = context.Pipe(duplex=False)
    process = context.Process(target=_controller, args=(block.name, robot_name, core, wait, wake_receiver,
                                                         answer_sender, results_sender, 1.0 / rate, prepare,
                                                         realtime_priority, refill),
                              daemon=True)
    link = _Link(wait, shared, wake_sender, answer_receiver)
    process.start()
    if hasattr(os, "sched_setaffinity") and len(allowed) > 1 and core is not None:
        os.sched_setaffinity(0, set(allowed) - {core})          # the simulator on the other core(s)
    simulator_settings = (prepare_loop(core=None, blas_threads=None, freeze_gc=False,
                                       realtime_priority=realtime_priority) if realtime_priority is not None else None)
    push = default_push(robot) if push_force is None else push_force
    period, ticks = 1.0 / rate, int(round(duration * rate))
    latency, late_start, missed, sim_step = (np.full(ticks, np.nan), np.zeros(ticks), np.zeros(ticks, dtype=bool),
                                             np.zeros(ticks))
    tau = np.zeros(robot.na)
    q_start = sim.state()[0][2]
    busy, served = False, -1                                 # the controller still works on tick ``served``
    try:
        if not answer_receiver.poll(120.0):                   # the controller loads, compiles and warms up
            raise RuntimeError("the controller process did not start within 120 s")
        answer_receiver.recv_bytes()
        origin = time.perf_counter() + 0.01
        for k in range(ticks):
            tick_time = origin + k * period
            while (now := time.perf_counter()) < tick_time:
                if wait == "pipe" and tick_time - now > 3e-4:
                    time.sleep(tick_time - now - 2e-4)
            late_start[k] = now - tick_time
            deadline = tick_time + period
            if busy and link.late_answer(served):              # a late answer came in since
                tau = shared[layout["tau"]].copy()
                busy = False
            if busy or now >= deadline:                        # no state can be served this tick
                missed[k] = True
            else:
                q, v = sim.state()
                shared[layout["q"]], shared[layout["v"]] = q, v
                published, served = time.perf_counter(), k
                link.publish(k)
                if link.wait_answer(k, deadline):
                    latency[k] = time.perf_counter() - published
                    tau = shared[layout["tau"]].copy()
                else:
                    missed[k], busy = True, True               # the motors keep the previous torques
            if k and (k * period) % push_every < period / 2:
                sim.push([0.0, push if (k // int(push_every * rate)) % 2 else -push, 0.0], 0.1)
            tic = time.perf_counter()
            sim.step(tau)                                      # one period of physics, whatever happened
            sim_step[k] = time.perf_counter() - tic
        link.stop()
        controller = results_receiver.recv() if results_receiver.poll(30.0) else {"compute_s": []}
    finally:
        if simulator_settings is not None:
            simulator_settings.restore()
        process.join(10.0)
        if process.is_alive():
            process.terminate()
        del shared
        block.close()
        block.unlink()
    served_ticks = np.array(controller.get("ticks", []), dtype=int)

    def per_tick(key: str, unserved):
        """The controller's list ``key`` (one entry per state it served) by tick."""
        values = np.full(ticks, unserved)
        values[served_ticks] = controller.get(key, [])
        return values

    compute, preempted = per_tick("compute_s", np.nan), per_tick("preempted", False)
    off_cpu, dynamics = per_tick("off_cpu_s", 0.0), per_tick("dynamics_s", np.nan)
    report = _report(robot_name, rate, ticks, latency, compute, preempted, missed, late_start, sim_step, period,
                     fell=bool(sim.state()[0][2] < 0.5 * q_start), controller=controller, core=core, off_cpu=off_cpu,
                     dynamics=dynamics)
    report["wait"], report["prepared"], report["realtime_priority"] = wait, prepare, realtime_priority
    report["refill"] = refill
    if simulator_settings is not None:
        report["simulator_notes"] = simulator_settings.notes
    return report


def _report(robot_name, rate, ticks, latency, compute, preempted, missed, late_start, sim_step, period, *, fell,
            controller, core, off_cpu=None, dynamics=None) -> dict:
    """Percentiles and the misses by cause (see the module); ``off_cpu``: per tick, the
    compute's wall time its thread was not running (wall − thread CPU time; None: zeros);
    ``dynamics``: per tick, the solver's dynamics pass, s (None: not known)."""
    off_cpu = np.zeros(ticks) if off_cpu is None else off_cpu
    slow_core = np.zeros(ticks, dtype=bool)
    if dynamics is not None and np.isfinite(dynamics).any():
        slow_core = np.nan_to_num(dynamics) > SLOW_CORE_RATIO * np.nanmedian(dynamics)
    def percentiles(values):
        values = values[np.isfinite(values)] * 1e6
        return {"median": float(np.median(values)), "p99": float(np.percentile(values, 99)),
                "p99_9": float(np.percentile(values, 99.9)), "max": float(values.max())} if values.size else {}

    def cause(k):
        if late_start[k] > 0.5 * period:                  # the tick itself began too late to serve a state
            return "simulator"
        served = np.flatnonzero(np.isfinite(compute[:k + 1]))
        last = served[-1] if served.size else -1
        if last >= 0 and compute[last] > period and last >= k - int(compute[last] / period) - 1:
            # the state being worked on took more than a period: ours, unless the OS took the core meanwhile
            if preempted[last]:
                return "controller_preempted"
            if compute[last] - off_cpu[last] <= period:
                return "controller_off_cpu"
            return "controller_slow_core" if slow_core[last] else "controller"
        return "transport"

    causes = dict.fromkeys(("controller", "controller_preempted", "controller_off_cpu", "controller_slow_core",
                            "transport", "simulator"), 0)
    episodes = dict(causes)
    miss_ticks = np.flatnonzero(missed)
    for k in miss_ticks:
        causes[cause(k)] += 1
        if k == 0 or not missed[k - 1]:          # the first miss of a run: what started it
            episodes[cause(k)] += 1
    return {"robot": robot_name, "rate_hz": rate, "ticks": ticks, "deadline_misses": int(missed.sum()),
            "misses_by_cause": causes, "miss_episodes_by_first_cause": episodes,
            "controller_over_period": int(np.sum(compute[np.isfinite(compute)] > period)),
            "controller_over_period_preempted": int(np.sum((np.nan_to_num(compute) > period) & preempted)),
            "controller_preempted_steps": int(preempted.sum()),
            "miss_ticks": miss_ticks[:50].tolist(),
            "latency_us": percentiles(latency), "compute_us": percentiles(compute),
            "simulator_step_us": percentiles(sim_step), "late_start_us": percentiles(late_start),
            "fell": fell, "controller_core": core, "gc_frozen_objects": controller.get("gc_frozen"),
            "layouts_prepared": controller.get("layouts_prepared"),
            "layouts_built_in_loop": controller.get("layouts_built_in_loop"),
            "slow_computes": controller.get("slow", []), "notes": controller.get("notes", [])}
