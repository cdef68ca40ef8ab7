"""Time to the first solution of the README's example on a fresh install: empty caches.

    python benchmarks/first_run.py                  # this environment, numba's cache emptied
    python benchmarks/first_run.py --new-venv       # a new virtual environment, pip install of this
                                                    # checkout (minutes), then the same

The example runs in a new process and prints the seconds spent importing tsid_py, building the
problem and solving the first step; a second run shows what a user pays from then on. In this
environment, ``NUMBA_CACHE_DIR`` points at an empty folder: every kernel is compiled again (an
install without the kernels compiled at build). With ``--new-venv``, nothing is set: the new
environment has what ``pip install`` gave it — the kernels compiled at build (``setup.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = r'''
import time, json
t0 = time.perf_counter()
import numpy as np
import tsid_py as tp
t1 = time.perf_counter()
robot = tp.robots.load("talos")
solver = tp.DynamicsSolver(robot, dt=1e-3)
for foot in robot.feet:
    solver.add_contact(tp.PlanarContact(foot, length=0.20, width=0.13, mu=0.8))
com = solver.add_task(tp.tasks.CoMTask(kp=100.0, weight=1.0))
solver.add_task(tp.tasks.OrientationTask("torso_2_link", np.eye(3), kp=100.0))
solver.add_task(tp.tasks.JointTask(robot.q_ref, kp=10.0, weight=1e-2))
solver.add_constraint(tp.constraints.TorqueLimits())
t2 = time.perf_counter()
q, v = robot.q_ref, robot.zero_velocity()
sol = solver.solve(q, v)
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "first_solve_s": t3 - t2, "total_s": t3 - t0}))
'''


def run_example(python: str, cache: str, installed: bool) -> dict:
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache)
    if installed:                      # the new venv's own copy and caches, as a user has them
        environment.pop("PYTHONPATH", None)
        environment.pop("NUMBA_CACHE_DIR")
    done = subprocess.run([python, "-c", EXAMPLE], env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the example failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-venv", action="store_true", help="install this checkout into a new venv first")
    args = parser.parse_args(argv)
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        if args.new_venv:
            subprocess.run([sys.executable, "-m", "venv", f"{folder}/venv"], check=True)
            python = f"{folder}/venv/bin/python"
            tic = time.perf_counter()
            subprocess.run([python, "-m", "pip", "install", "-q", str(Path(__file__).resolve().parent.parent),
                            "example-robot-data"], check=True)         # the README's robot
            install_s = time.perf_counter() - tic
        cache = f"{folder}/numba-cache"
        cold = run_example(python, cache, args.new_venv)
        warm = run_example(python, cache, args.new_venv)
    report = {"first_run": cold, "second_run": warm}
    if args.new_venv:
        report["pip_install_s"] = install_s
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
