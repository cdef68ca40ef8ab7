"""place_footstep's pruned search against a brute-force evaluation of its rule.

The rule (footholds module): the first of the ordered candidates (``_offsets``) that is
good (gap, tilt, room) is taken; otherwise the best ``cop_room − shift_cost·shift − 2·[tilted]``.
The reference below fits every candidate twice, as the rule is written, with no pruning."""
import math

import numpy as np
import pytest

from tsid_py.control.terrain import Terrain
from tsid_py.control.walking.footholds import _offsets, cop_room, place_footstep, sole_tilts
from tsid_py.control.walking.footsteps import Footstep

SOLE = (0.2, 0.08)


def _brute_force(step, terrain, search, margin=0.02, max_gap=0.01, min_room=0.8, max_tilt=math.radians(20.0),
                 tilt_limits=None):
    shift_cost = 1.0 / SOLE[0]
    c, s = math.cos(step.yaw), math.sin(step.yaw)
    scored = []
    for along, across in _offsets(search, 0.01):
        x, y = step.x + c * along - s * across, step.y + s * along + c * across
        rest = terrain.rest(x, y, step.yaw, SOLE, margin)
        own = terrain.rest(x, y, step.yaw, SOLE)
        flat = rest.tilt <= max_tilt and (tilt_limits is None or all(
            abs(t) <= lim for t, lim in zip(sole_tilts(own.normal, step.yaw), tilt_limits)))
        room = cop_room(own.bearing, SOLE)
        if rest.gap <= max_gap and room >= min_room and flat:
            return x, y
        scored.append((room - shift_cost * math.hypot(along, across) - (0.0 if flat else 2.0), x, y))
    best = max(range(len(scored)), key=lambda i: (scored[i][0], -i))     # first of the best
    return scored[best][1], scored[best][2]


TERRAINS = [Terrain.rough(0.02, seed=3), Terrain.rough(0.04, seed=7), Terrain.slope(10), Terrain.slope(-25),
            Terrain.steps(0.05, 0.3)]


@pytest.mark.parametrize("terrain", TERRAINS, ids=lambda t: t.name)
def test_placement_matches_brute_force_of_the_rule(terrain):
    rng = np.random.default_rng(11)
    for _ in range(12):
        step = Footstep("left", rng.uniform(0.2, 1.5), rng.uniform(-0.3, 0.3), rng.uniform(-0.6, 0.6), 0.0)
        search = float(rng.choice([0.05, 0.08]))
        placed = place_footstep(step, terrain, SOLE, search=search, max_tilt=math.radians(20.0))
        x, y = _brute_force(step, terrain, search)
        assert (placed.x, placed.y) == (x, y)
        rest = terrain.rest(x, y, step.yaw, SOLE)
        assert placed.z == float(rest.placement.translation[2])


def test_flat_ground_keeps_the_request():
    step = Footstep("right", 0.3, -0.1, 0.2, 0.0)
    placed = place_footstep(step, Terrain.flat(), SOLE)
    assert (placed.x, placed.y, placed.z) == (0.3, -0.1, 0.0)
