"""Which solver for the stacked over-time problem: ours against general sparse QP solvers.

    python benchmarks/over_time_solvers.py [--frames 1000 4000] [--solvers clarabel piqp osqp proxqp]
        [--repeat 3] [--json FILE]

The problem is the one the documented call solves (Talos, the balance controller swaying its
CoM, friction + soles + default smoothing): after each frame's root rows are eliminated,
``min ½ zᵀPz + qᵀz + ρ Σ s + ½ γ ‖s‖²  s.t.  E z − s ≤ h, s ≥ 0`` with a block-tridiagonal
``P`` (:class:`tsid_py.offline.ipm.BlockTridiagonalQP`). The same matrices go to
:func:`tsid_py.offline.ipm.solve` (the library's interior-point method on the banded
factorisation) and, as scipy sparse matrices, to each sparse solver qpsolvers has (at the
accurate tolerances of :data:`tsid_py.backends.qpsolvers_backend.ACCURATE_OPTIONS`). Only the
solve is timed; building the per-frame data is common to all. Printed per solver and T: the
median time, the objective's relative difference to ours and the largest row violation.
Clarabel and PIQP are not dependencies of tsid_py: ``pip install clarabel piqp`` first.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tsid_py as tp
from tsid_py.backends.qpsolvers_backend import ACCURATE_OPTIONS
from tsid_py.scenarios.reports import write_json
from tsid_py.offline import ipm
from tsid_py.offline.frames import finite_differences, frame_data
from tsid_py.offline.over_time import DEFAULT_FRICTION, RELAXATION_PENALTY
from tsid_py.offline.stacked import Weights, contact_bound_rows, reduce_root_rows, reduced_problem
from tsid_py.control.reference import balance_rollout


def stacked_problem(robot: tp.Robot, count: int) -> ipm.BlockTridiagonalQP:
    """The scaled block-tridiagonal problem of a ``count``-frame controller recording."""
    positions = balance_rollout(robot, count + 1, dt=1e-3, sway=0.04)[0]
    velocities, accelerations = finite_differences(robot, positions, 1e-3)
    data = frame_data(robot, robot.feet, positions[1:-1], velocities, accelerations)
    bounds = contact_bound_rows(len(robot.feet), DEFAULT_FRICTION, [robot.sole_size] * len(robot.feet))
    reduction = reduce_root_rows(data)
    force_scale = float(np.abs(data.root_rhs).max())
    rows = np.matmul(bounds, reduction.basis)
    limits = -(reduction.particular / force_scale) @ bounds.T
    pairs = np.ones(data.frame_count - 1)
    return reduced_problem(data, reduction, Weights(1.0, 1.0, 1e-8), pairs, force_scale, rows, limits,
                           RELAXATION_PENALTY, 1.0)


def timed(function, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def main(argv=None) -> dict:
    import qpsolvers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--solvers", nargs="+", default=["clarabel", "piqp", "osqp"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    robot = tp.robots.load("talos")
    report = {}
    for count in args.frames:
        problem = stacked_problem(robot, count)
        P, q, G, h, lb = problem.sparse()
        seconds, ours = timed(lambda: ipm.solve(problem), args.repeat)
        x_ours = np.concatenate([ours.z.ravel(), ours.slack.ravel()])
        best = 0.5 * x_ours @ (P @ x_ours) + q @ x_ours
        rows = {"ipm (tsid_py)": {"median_s": seconds, "objective_rel": 0.0,
                                  "violation": float(np.max(G @ x_ours - h, initial=0.0))}}
        for name in args.solvers:
            if name not in qpsolvers.available_solvers:
                rows[name] = {"skipped": "not installed"}
                continue
            seconds, x = timed(lambda: qpsolvers.solve_qp(P, q, G, h, lb=lb, solver=name,
                                                          **ACCURATE_OPTIONS.get(name, {})), args.repeat)
            if x is None:
                rows[name] = {"median_s": seconds, "failed": True}
                continue
            value = 0.5 * x @ (P @ x) + q @ x
            rows[name] = {"median_s": seconds, "objective_rel": float((value - best) / abs(best)),
                          "violation": float(max(np.max(G @ x - h, initial=0.0), np.max(lb - x, initial=0.0)))}
        report[str(count)] = rows
        print(f"T = {count} ({P.shape[0]} variables, {G.shape[0]} rows, {P.nnz} Hessian non-zeros):")
        for name, row in rows.items():
            if "median_s" not in row or row.get("failed"):
                print(f"  {name:14s} {row.get('skipped', 'failed')}")
                continue
            print(f"  {name:14s} {row['median_s']:8.3f} s   objective {row['objective_rel']:+.1e} relative to "
                  f"ours   largest row violation {row['violation']:.1e}")
    write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
