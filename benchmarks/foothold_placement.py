"""CPU time of one footstep placement (`place_footstep`) on rough:0.02, slope:10, steps:0.05
and flat ground, median ms per call over 12 planned footsteps repeated. Run it with
PYTHONPATH at each tree to compare (interleave the runs: the machine's load varies)."""

import json
import statistics
import time

from tsid_py.control.terrain import Terrain
from tsid_py.control.walking.footholds import place_footstep
from tsid_py.control.walking.footsteps import Footstep

SOLE = (0.2, 0.05)
results = {}
for terrain in (Terrain.rough(0.02, seed=0), Terrain.slope(10), Terrain.steps(0.05, 0.3), Terrain.flat()):
    steps = [Footstep("left", 0.5 + 0.31 * i, 0.1 * (-1) ** i, 0.05 * i, 0.0) for i in range(12)]
    times = []
    for _ in range(7):
        for step in steps:
            tic = time.perf_counter()
            place_footstep(step, terrain, SOLE)
            times.append((time.perf_counter() - tic) * 1e3)
    results[terrain.name or "flat"] = round(statistics.median(times), 3)
print(json.dumps(results))
