"""Time the infeasibility diagnosis on the infeasible problems of tests/test_diagnosis.py.

    PYTHONPATH=. python benchmarks/diagnosis_time.py [--repeat 30] [--backend reduced]

Per case (median and worst over the repetitions, milliseconds):

* ``raise``: ``solve()`` from the call to the exception (backend failure + one exact
  feasibility test deciding InfeasibleError vs SolverError; no conflict search);
* ``decide``: that feasibility decision alone (:func:`tsid_py.diagnosis.diagnose`);
* ``search``: the deletion filter, run when ``error.conflicts`` is first read;
* ``tests``: how many feasibility tests the search ran (one per group).

The budget is 50 ms for ``search`` on Talos. Times are wall-clock on whatever else the
machine runs: run it on a quiet machine for numbers worth quoting.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from time import perf_counter

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tsid_py as tp  # noqa: E402
from tsid_py.diagnosis import ConflictSearch, diagnose  # noqa: E402
from tests import test_diagnosis as table  # noqa: E402
from tests.conftest import load_robot, standing_solver  # noqa: E402


def huge_velocity(qp_solver):
    """The issue's v = 1e150 case (velocity limits, both feet in contact)."""
    robot = load_robot("talos")
    solver = standing_solver(robot, qp_solver=qp_solver)
    solver.add_constraint(tp.constraints.VelocityLimits())
    return table.Case(solver, robot.q_ref, np.full(robot.nv, 1e150), set(), lambda: None)


def measure(build, backend: str, repeat: int) -> dict[str, float]:
    raise_ms, decide_ms, search_ms, tests = [], [], [], 0
    for _ in range(repeat):
        case = build(backend)
        start = perf_counter()
        try:
            case.solver.solve(case.q, case.v)
        except tp.InfeasibleError as caught:
            error = caught
        else:
            raise RuntimeError(f"{build.__name__} did not raise InfeasibleError")
        raise_ms.append(1e3 * (perf_counter() - start))
        qp, labels = case.solver.last_qp, case.solver.layout.labels
        start = perf_counter()
        diagnose(backend, labels, qp, error.status)
        decide_ms.append(1e3 * (perf_counter() - start))
        search = ConflictSearch(error.search.rows)
        start = perf_counter()
        _, complete = search.run(None)
        search_ms.append(1e3 * (perf_counter() - start))
        assert complete
        tests = search.tests
    return {"raise": raise_ms, "decide": decide_ms, "search": search_ms, "tests": tests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--backend", default="reduced")
    args = parser.parse_args()
    talos_cases = [build for build in table.CASES if build(args.backend).solver.robot.name == "talos"]
    print(f"{'case':40s} {'raise ms':>16s} {'decide ms':>16s} {'search ms':>16s} {'tests':>6s}")
    worst = 0.0
    for build in talos_cases + [huge_velocity]:
        result = measure(build, args.backend, args.repeat)
        cells = [f"{statistics.median(result[key]):7.2f} ({max(result[key]):6.2f})"
                 for key in ("raise", "decide", "search")]
        worst = max(worst, statistics.median(result["search"]))
        print(f"{build.__name__:40s} {cells[0]:>16s} {cells[1]:>16s} {cells[2]:>16s} {result['tests']:6d}")
    print(f"median (worst) over {args.repeat} runs; slowest median search: {worst:.2f} ms (budget 50 ms)")


if __name__ == "__main__":
    main()
