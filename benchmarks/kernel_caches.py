"""The same walk from numba caches compiled in different ways: are the runs identical to the bit?

    python benchmarks/kernel_caches.py [--robot g1] [--duration 2.5] [--keep DIR]

A G1 walk (1 m asked, ``--duration`` s simulated, the ``--realistic`` preset with seed 0: the
state estimator on) is run in a new process for each cache (``NUMBA_CACHE_DIR``, all in a
temporary directory), and each run's log (every float array :func:`tsid_py.scenarios.walk.run_walk`
records per control step: torques, forces, CoM, feet) is compared with the first's:

1. ``fresh``: an empty cache, every kernel compiled by that one process;
2. ``loaded``: the same cache, every kernel loaded from it;
3. ``shifted``: an empty cache, compiled by a process that compiled one unrelated kernel first
   (numba numbers the functions a process compiles: every kernel's name moves by one);
4. ``mixed``: ``fresh``'s cache with every other kernel's files (sorted by name) from
   ``shifted``'s — what a cache written by two processes at once, or kept across source
   changes, can hold.

Before every kernel-to-kernel call was inlined (:mod:`tsid_py._numba`) the ``mixed`` run
differed (main 66a31f9: normal forces up to 12.5 N apart within 2.5 s); it must now be
identical. Compiling twice takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

WALK = """
import sys, warnings
warnings.filterwarnings("ignore")
if sys.argv[4] == "shift":
    from numba import njit
    njit(lambda x: x + 1.0)(1.0)
import numpy as np
from tsid_py.robots import load
from tsid_py.scenarios.conditions import Conditions
from tsid_py.scenarios.walk import run_walk
summary, log, _ = run_walk(load(sys.argv[2]), distance=1.0, duration=float(sys.argv[3]),
                           conditions=Conditions.realistic(0))
np.savez(sys.argv[1], **{k: v for k, v in log.items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"})
"""


def run(cache: Path, out: Path, robot: str, duration: float, shift: bool = False) -> dict[str, np.ndarray]:
    """One walk in a new process on the numba cache ``cache``; its log's float arrays."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", WALK, str(out), robot, str(duration), "shift" if shift else "-"],
                   check=True, env=environment, cwd=ROOT)
    with np.load(out) as log:
        return {key: log[key] for key in log.files}


def mix(first: Path, second: Path, into: Path) -> int:
    """``first``'s cache with every other kernel's files (index and objects) from ``second``'s,
    into ``into``; the number of kernels taken from ``second``."""
    shutil.copytree(first, into)
    indexes = sorted(second.rglob("*.nbi"))[1::2]
    for index in indexes:
        for path in index.parent.glob(index.name[:-len(".nbi")] + ".*"):
            shutil.copy2(path, into / path.relative_to(second))
    return len(indexes)


def difference(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, float]:
    """The largest absolute difference of each array the two logs share (inf: other shapes)."""
    return {key: float(np.nanmax(np.abs(a[key] - b[key]), initial=0.0)) if a[key].shape == b[key].shape
            else float("inf") for key in sorted(set(a) & set(b))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--robot", default="g1")
    parser.add_argument("--duration", type=float, default=2.5)
    parser.add_argument("--keep", help="a directory for the caches and logs (default: a temporary one, removed)")
    args = parser.parse_args()
    if args.duration <= 0:
        parser.error(f"--duration must be positive, got {args.duration}")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kernel-caches-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        logs = {"fresh": run(work / "fresh", work / "fresh.npz", args.robot, args.duration)}
        logs["loaded"] = run(work / "fresh", work / "loaded.npz", args.robot, args.duration)
        logs["shifted"] = run(work / "shifted", work / "shifted.npz", args.robot, args.duration, shift=True)
        taken = mix(work / "fresh", work / "shifted", work / "mixed")
        logs["mixed"] = run(work / "mixed", work / "mixed.npz", args.robot, args.duration)
        for name in ("loaded", "shifted", "mixed"):
            apart = {key: value for key, value in difference(logs["fresh"], logs[name]).items() if value != 0.0}
            detail = f" ({taken} kernels from 'shifted')" if name == "mixed" else ""
            print(f"{name}{detail}: " + ("identical to 'fresh'" if not apart else
                                         "differs: " + ", ".join(f"{k} {v:.3g}" for k, v in apart.items())))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
