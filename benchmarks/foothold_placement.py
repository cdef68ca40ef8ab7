"""CPU cost of :func:`~tsid_py.control.walking.footholds.place_footstep` per call.

Times a dozen requests on each terrain, with the default search and with the step
adjustment's (a quarter of the sole's length, as inside a control step), and counts what a
call computes, the load-independent measure: the resting fits with their bearing polygons
(:meth:`Terrain.rest_on`, which :meth:`Terrain.rest` calls) and the resting planes whose gap
and tilt alone rule candidates out (:meth:`Terrain.rest_gaps`, one per candidate).
Usage: ``python benchmarks/foothold_placement.py [--repeats N]``; prints one JSON line."""
from __future__ import annotations

import argparse
import json
import statistics
import time

from tsid_py.control.terrain import Terrain
from tsid_py.control.walking.footholds import place_footstep
from tsid_py.control.walking.footsteps import Footstep

SOLE = (0.2, 0.08)
TERRAINS = {"rough:0.02": lambda: Terrain.rough(0.02, seed=0), "slope:10": lambda: Terrain.slope(10),
            "steps:0.05": lambda: Terrain.steps(0.05, 0.3), "flat": Terrain.flat}


def _measure(terrain: Terrain, search: float | None, repeats: int) -> dict:
    steps = [Footstep("left", 0.5 + 0.31 * i, 0.1 * (-1) ** i, 0.05 * i, 0.0) for i in range(12)]
    fits, planes, rest, gaps = [0], [0], Terrain.rest_on, Terrain.rest_gaps

    def counted(self, *args, **kwargs):
        fits[0] += 1
        return rest(self, *args, **kwargs)

    def counted_gaps(self, dx, dy, heights):
        planes[0] += len(heights)
        return gaps(self, dx, dy, heights)

    Terrain.rest_on, Terrain.rest_gaps = counted, counted_gaps
    try:
        for step in steps:
            place_footstep(step, terrain, SOLE, search=search)
    finally:
        Terrain.rest_on, Terrain.rest_gaps = rest, gaps
    times = []
    for _ in range(repeats):
        tic = time.perf_counter()
        for step in steps:
            place_footstep(step, terrain, SOLE, search=search)
        times.append((time.perf_counter() - tic) / len(steps) * 1e3)
    return {"ms_per_call": round(statistics.median(times), 3), "fits_per_call": round(fits[0] / len(steps), 2),
            "planes_per_call": round(planes[0] / len(steps), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    out = {name: {"default": _measure(make(), None, args.repeats),
                  "in_step": _measure(make(), 0.25 * SOLE[0], args.repeats)} for name, make in TERRAINS.items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
