"""Memory over a long run of the reference balance problem (Talos, two feet, CoM sinusoid).

    python benchmarks/memory.py [--steps 100000] [--every 10000] [--robot talos]

Prints the resident set size (from /proc/self/statm) and the bytes held by Python objects
(tracemalloc, started after a warm-up so that only growth is traced) every ``--every``
steps, then the growth between the first and the last report. Flat memory means the hot
path keeps no per-step state: buffers are reused and nothing accumulates.
"""

from __future__ import annotations

import argparse
import tracemalloc

from threadpoolctl import threadpool_limits

from tsid_py.bench import ReferenceProblem, resident_megabytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=10_000)
    parser.add_argument("--robot", default="talos")
    args = parser.parse_args()
    problem = ReferenceProblem(args.robot)
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(1000):           # warm-up: buffers, caches, the QP model
            problem.step()
        tracemalloc.start()
        reports = []
        for k in range(1, args.steps + 1):
            problem.step()
            if k % args.every == 0:
                traced, _ = tracemalloc.get_traced_memory()
                reports.append((k, resident_megabytes(), traced / 2**10))
                print(f"step {k:7d}  RSS {reports[-1][1]:8.2f} MB  traced {reports[-1][2]:8.1f} KiB", flush=True)
    (_, rss0, traced0), (_, rss1, traced1) = reports[0], reports[-1]
    print(f"growth from step {reports[0][0]} to {reports[-1][0]}: RSS {rss1 - rss0:+.2f} MB, "
          f"traced {traced1 - traced0:+.1f} KiB")


if __name__ == "__main__":
    main()
