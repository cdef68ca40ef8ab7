"""place_footstep, whose candidates' heights come from one batched height call, against the
reference loop (each candidate's Terrain.rest on its own, as the placement was first written):
the same footstep to the last bit, on rough, slope, steps and flat terrains; and the placed
footstep keeps the documented rule (gap, room, tilt) when it is a good one."""

import math

import numpy as np
import pytest

from tsid_py.control.terrain import Terrain
from tsid_py.control.walking.footholds import _offsets, cop_room, place_footstep
from tsid_py.control.walking.footsteps import Footstep

SOLE = (0.2, 0.05)


def reference_place(step, terrain, sole_size, margin=0.02, resolution=0.01, max_gap=0.01, min_room=0.8,
                    max_tilt=math.radians(20.0)):
    """The placement rule candidate by candidate, each fit by Terrain.rest (slow reference)."""
    if terrain.is_flat:
        return Footstep(step.foot, step.x, step.y, step.yaw, terrain.floor)
    length = sole_size[0]
    search = 0.5 * length + margin + 2 * resolution
    if terrain.cell is not None:
        search = min(search, 0.5 * terrain.cell)
    c, s = math.cos(step.yaw), math.sin(step.yaw)
    best, best_score = None, -math.inf
    for along, across in _offsets(search, resolution):
        x, y = step.x + c * along - s * across, step.y + s * along + c * across
        rest = terrain.rest(x, y, step.yaw, sole_size, margin)
        own = terrain.rest(x, y, step.yaw, sole_size)
        flat = rest.tilt <= max_tilt
        room = cop_room(own.bearing, sole_size)
        if rest.gap <= max_gap and room >= min_room and flat:
            return (x, y), True
        score = room - math.hypot(along, across) / length - (0.0 if flat else 2.0)
        if score > best_score:
            best, best_score = (x, y), score
    return best, False


TERRAINS = [Terrain.rough(0.02, seed=3), Terrain.slope(10), Terrain.slope(-10), Terrain.steps(0.05, 0.3),
            Terrain.steps(-0.05, 0.3)]


@pytest.mark.parametrize("terrain", TERRAINS, ids=lambda t: t.name)
def test_placement_is_the_reference_to_the_last_bit(terrain):
    rng = np.random.default_rng(7)
    goods = 0
    for _ in range(25):
        step = Footstep("left", rng.uniform(0.6, 3.5), rng.uniform(-0.3, 0.3), rng.uniform(-0.4, 0.4), 0.0)
        placed = place_footstep(step, terrain, SOLE)
        (x, y), good = reference_place(step, terrain, SOLE)
        assert (placed.x, placed.y) == (x, y)
        rest = terrain.rest(x, y, step.yaw, SOLE)
        assert placed.z == float(rest.placement.translation[2])
        if good:                                  # the rule's properties at a good foothold
            goods += 1
            enlarged = terrain.rest(x, y, step.yaw, SOLE, 0.02)
            assert enlarged.gap <= 0.01 and enlarged.tilt <= math.radians(20.0)
            assert cop_room(rest.bearing, SOLE) >= 0.8
    assert goods > 0 or terrain.cell is not None


def test_flat_terrain_places_on_the_floor():
    step = Footstep("right", 1.0, -0.1, 0.3, 0.0)
    placed = place_footstep(step, Terrain.flat(), SOLE)
    assert (placed.x, placed.y, placed.z) == (1.0, -0.1, 0.0)
