"""Where a control step's time goes: steady reference steps for a sampling profiler.

    perf record -e cpu-clock:u -F 4000 -D 15000 -o step.data \
        python benchmarks/step_profile.py --robot talos --steps 200000
    perf report -i step.data -s dso,sym

Runs the reference problem's step (:class:`tsid_py.bench.ReferenceProblem`) ``--steps``
times at one state, after a warm-up, and writes ``/tmp/perf-PID.map`` first: the addresses
of numba's compiled functions (each kernel and its Python wrapper), which ``perf`` reads to
name the samples in compiled code — otherwise ``[JIT] 0x…``. Samples that stay unnamed
in the ``[JIT]`` region are numba's own runtime functions (its reference counts' atomic
increments and decrements). ``-D`` skips the start-up (imports, warm-up).
"""

from __future__ import annotations

import argparse
import gc
import os

from numba.core.registry import CPUDispatcher

from tsid_py.bench import ReferenceProblem


def write_perf_map(path: str) -> int:
    """Write the perf map of every compiled overload of the process's numba dispatchers
    (``START SIZE NAME``, hexadecimal; a function's size runs to the next one's start);
    returns the number of entries."""
    entries = set()
    for dispatcher in (obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)):
        name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__name__}"
        for result in dispatcher.overloads.values():
            for symbol, label in ((result.fndesc.llvm_func_name, name),
                                  (result.fndesc.llvm_cpython_wrapper_name, name + "#wrapper")):
                address = result.library.get_pointer_to_function(symbol)
                if address:
                    entries.add((address, label))
    ordered = sorted(entries)
    with open(path, "w") as file:
        for k, (address, label) in enumerate(ordered):
            size = ordered[k + 1][0] - address if k + 1 < len(ordered) else 4096
            file.write(f"{address:x} {min(size, 1 << 20):x} {label}\n")
    return len(ordered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos")
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args()
    problem = ReferenceProblem(args.robot)
    for _ in range(args.warmup):
        problem.step()
    solver = problem.solver
    q, v, solution = solver.robot.q.copy(), solver.robot.v.copy(), problem.solution
    count = write_perf_map(f"/tmp/perf-{os.getpid()}.map")
    print(f"{count} compiled functions mapped; {args.steps} steps of {args.robot}")
    for _ in range(args.steps):
        solution = solver.solve(q, v, out=solution)


if __name__ == "__main__":
    main()
