"""Terrain-aware walking in MuJoCo: the ground the harness builds from a
:class:`~tsid_py.control.terrain.Terrain` is the one the planner reads (ray casts against
``Terrain.height``), a short walk onto a slope lands its soles on the slope's surface (the
physics engine's sole poses against the closed-form plane), and ``--terrain`` is one option
of the walk and trot demos (a simulation test: declared in test_architecture)."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

import tsid_py as tp
from tsid_py.cli import main as cli_main
from tsid_py.control.terrain import Terrain
from tsid_py.scenarios.terrains import parse_terrain, walk_terrain
from tsid_py.scenarios.walk import run_walk
from tsid_py.sim import Simulation


@pytest.fixture(scope="module")
def g1():
    return tp.robots.load("g1")


@pytest.mark.parametrize("terrain", [Terrain.slope(-10.0, start=0.5), Terrain.steps(0.05, 0.4, start=0.5),
                                     Terrain.steps(-0.05, 0.4, start=0.5)], ids=["slope-down", "steps-up", "pit"])
def test_the_simulated_ground_is_the_described_terrain(terrain, g1, rng):
    sim = Simulation(g1, terrain=terrain)
    errors = []
    for x, y in zip(rng.uniform(0.6, 5.0, 200), rng.uniform(-1.5, 1.5, 200)):
        geom = np.zeros(1, dtype=np.int32)
        distance = mujoco.mj_ray(sim.model, sim.data, np.array([x, y, 2.0]), np.array([0.0, 0.0, -1.0]), None, 1, -1,
                                 geom)
        if min(abs(x - edge) for edge in 0.5 + np.cumsum([0.0, 0.4, 0.4, 0.8, 0.4, 0.4])) < 1e-3:
            continue                                   # on a riser: either level is right
        errors.append(2.0 - distance - terrain.height(x, y))
    assert np.abs(errors).max() < 1e-6


def test_a_walk_up_a_slope_lands_its_soles_on_the_slope():
    """Talos walks 1.2 m from flat ground onto a 10° ramp 0.3 m ahead of its toes: it does not
    fall, its footsteps on the ramp are planned on the ramp's plane (``tan 10° (x − start)``),
    and every sole in contact stays within 3° of the normal of the surface it was put down on,
    as MuJoCo has the soles (a level sole on the ramp would be 10° off)."""
    start, angle = 0.3, math.radians(10.0)
    terrain = Terrain.slope(10.0, start=start)
    summary, log, info = run_walk(tp.robots.load("talos"), distance=1.2, terrain=terrain)
    assert not summary["fell"], summary.get("fall_reason")
    assert summary["distance_m"] > 1.0
    heights = info["footstep_heights"]
    on_ramp = [(x, z) for (_, x, _, _), z in zip(info["footsteps"], heights) if x > start + 0.15]
    assert on_ramp, "no footstep planned on the ramp"
    for x, z in on_ramp:
        assert z == pytest.approx(math.tan(angle) * (x - start), abs=1e-6)        # planned on the plane
    assert summary["max_sole_tilt_deg"] < 3.0                # judged against the surface's normal
    np.testing.assert_allclose(terrain.normal(start + 0.5, 0.0), [-math.sin(angle), 0.0, math.cos(angle)],
                               atol=1e-12)


def test_the_walk_terrains_are_sized_to_the_robot_and_seeded(g1):
    gait = g1.profile.gait
    steps = walk_terrain(parse_terrain("steps:0.05"), g1, seed=3)
    first = min(feature.centre[0] - feature.half_size[0] for feature in steps.features)
    toes = 0.5 * g1.profile.sole_size[0]
    assert toes + 0.1 <= first < toes + 0.1 + 2 * gait.step_length
    treads = sorted(2 * feature.half_size[0] for feature in steps.features)
    assert treads[0] == pytest.approx(2 * gait.step_length)
    assert walk_terrain(parse_terrain("rough:0.02"), g1, seed=3).height(2.0, 0.1) == \
        walk_terrain(parse_terrain("rough:0.02"), g1, seed=3).height(2.0, 0.1)
    assert walk_terrain(None, g1) is None and parse_terrain("flat") is None


@pytest.mark.parametrize("argv, words", [
    (["demo", "walk", "--terrain", "slope:90"], ["--terrain", "DEG"]),
    (["demo", "walk", "--terrain", "steps:0"], ["--terrain", "HEIGHT"]),
    (["demo", "balance", "--terrain", "slope:5"], ["--terrain", "walk and trot"]),
])
def test_bad_terrain_options_are_one_line_usage_errors(argv, words, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and all(word in err for word in words)
