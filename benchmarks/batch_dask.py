"""Eight recordings on a local Dask cluster with two workers, against a serial run.

    python benchmarks/batch_dask.py [--recordings 8] [--frames 4000] [--workers 2] [--repeat 3] [--json FILE]

Each recording is the balance controller swaying Talos's CoM with its own amplitude
(:func:`tsid_py.control.reference.balance_rollout`, 1 kHz), inverted with the documented call
(contact bounds, default smoothing). The serial run calls
:func:`tsid_py.offline.batch.inverse_dynamics_over_time_batch` with ``workers=0`` (in this
process); the parallel run gives it a client of a ``LocalCluster`` of single-threaded worker
processes (:func:`~tsid_py.offline.batch.local_cluster`, as the batch function starts by
default), started and warmed up like this process (robot loaded, kernels compiled, one
full-size recording run) before the clock starts —
the start-up is reported apart. Each round runs serial then parallel back to back, with the
machine's load average and its parallel capacity (a pure-Python spin on the workers at once
against the same spins in turn: 2.0 on two idle cores) measured just before; the results
must be identical. Target (issue 18):
≥ 1.7× faster with two workers. It needs two idle cores: other load on the machine shows
up directly in the ratio.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import tsid_py as tp
from tsid_py.scenarios.reports import write_json
from tsid_py.offline.batch import Recording, RobotSource, inverse_dynamics_over_time_batch, local_cluster, run_one
from tsid_py.control.reference import balance_rollout


def _spin(count: int) -> int:
    """Pure-Python arithmetic: CPU only, no memory traffic."""
    total = 0
    for i in range(count):
        total += i * i
    return total


def parallel_capacity(client, workers: int, count: int = 3_000_000) -> float:
    """How many cores the machine gives right now: the time of ``workers`` spins in this
    process one after the other over the time of one spin per worker at once (``workers``
    on an idle machine, less when other processes hold the cores)."""
    start = time.perf_counter()
    for _ in range(workers):
        _spin(count)
    serial = time.perf_counter() - start
    start = time.perf_counter()
    client.gather([client.submit(_spin, count, pure=False) for _ in range(workers)])
    return serial / (time.perf_counter() - start)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=8)
    parser.add_argument("--frames", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5, help="rounds of serial then parallel")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    from dask.distributed import Client

    robot = tp.robots.load("talos")
    recordings = [Recording(balance_rollout(robot, args.frames - 1, dt=1e-3, sway=sway)[0], 1e-3, tuple(robot.feet))
                  for sway in np.linspace(0.02, 0.05, args.recordings)]
    run_one(RobotSource.of(robot), recordings[0], {})            # warm this process up too
    start = time.perf_counter()
    with local_cluster(args.workers) as cluster, Client(cluster) as client:
        # Every worker warmed up as this process was: robot built, kernels compiled, and the
        # memory of a full-size recording allocated once (a 20-frame warm-up leaves the
        # first full round about 20 % slower in the workers than in this process).
        client.run(run_one, RobotSource.of(robot), recordings[0], {})
        startup_s = time.perf_counter() - start
        rounds = []
        for _ in range(args.repeat):                             # serial and parallel back to back
            load = os.getloadavg()[0]
            capacity = parallel_capacity(client, args.workers)
            start = time.perf_counter()
            serial = inverse_dynamics_over_time_batch(robot, recordings, workers=0, progress=False)
            serial_s = time.perf_counter() - start
            start = time.perf_counter()
            parallel = inverse_dynamics_over_time_batch(robot, recordings, client=client, progress=False)
            parallel_s = time.perf_counter() - start
            identical = all(np.array_equal(a.tau, b.tau) and np.array_equal(a.wrenches, b.wrenches)
                            for a, b in zip(serial.results, parallel.results))
            rounds.append({"serial_s": serial_s, "parallel_s": parallel_s, "speedup": serial_s / parallel_s,
                           "identical": identical, "load_average_before": load, "capacity_before": capacity,
                           "errors": {**serial.errors, **parallel.errors}})
            print(f"{args.recordings} recordings x {args.frames} frames: serial {serial_s:.2f} s, {args.workers} "
                  f"workers {parallel_s:.2f} s -> {serial_s / parallel_s:.2f}x; identical results: {identical} "
                  f"(before: 1-min load average {load:.1f} on {os.cpu_count()} cores, pure-Python capacity "
                  f"{capacity:.2f}x)")
    report = {"recordings": args.recordings, "frames": args.frames, "workers": args.workers,
              "cluster_startup_s": startup_s, "rounds": rounds,
              "median_speedup": float(np.median([r["speedup"] for r in rounds]))}
    print(f"median speedup {report['median_speedup']:.2f}x (cluster start-up {startup_s:.1f} s, not counted)")
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
