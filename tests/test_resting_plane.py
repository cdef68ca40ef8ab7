"""The resting plane's dual simplex (tsid_py.control.resting_plane) against HiGHS on the same
linear programme, on random, gridded, peaked and coplanar samples; its refusals; and the
batched gaps and tilts a footstep search reads against Terrain.rest_on's, bit for bit."""

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from tsid_py.control.resting_plane import lowest_plane, lowest_planes
from tsid_py.control.terrain import Terrain


def highs_plane(dx, dy, heights):
    """``min h0 s.t. h0 + g_x dx_i + g_y dy_i ≥ h_i``, solved by scipy's HiGHS."""
    lp = linprog([1, 0, 0], A_ub=-np.column_stack([np.ones_like(dx), dx, dy]), b_ub=-heights,
                 bounds=[(None, None)] * 3, method="highs")
    assert lp.status == 0
    return lp.x


def grid(half_length=0.12, half_width=0.06, yaw=0.4):
    return Terrain.flat().footprint_offsets(yaw, half_length, half_width)


def check_optimal(dx, dy, heights):
    plane = np.empty(3)
    assert lowest_plane(dx, dy, heights, plane)
    above = plane[0] + plane[1] * dx + plane[2] * dy - heights
    assert np.min(above) >= -1e-12                                   # on or above every sample
    assert plane[0] == pytest.approx(highs_plane(dx, dy, heights)[0], abs=1e-9)    # the lowest at the centre
    return plane


@pytest.mark.parametrize("seed", range(6))
def test_the_plane_is_the_programme_s_optimum_on_random_ground(seed):
    rng = np.random.default_rng(seed)
    dx, dy = grid(yaw=rng.uniform(-math.pi, math.pi))
    for scale in (1e-4, 0.01, 0.05):
        check_optimal(dx, dy, scale * rng.standard_normal(dx.size))
    scattered = rng.uniform(-0.1, 0.1, (2, 60))                       # not a grid; the centre inside
    scattered[:, :4] = [[-0.1, 0.1, 0.1, -0.1], [-0.1, -0.1, 0.1, 0.1]]
    check_optimal(scattered[0], scattered[1], 0.02 * rng.standard_normal(60))


def test_a_peak_under_the_centre_and_a_ridge_through_it_hold_the_sole_at_their_height():
    dx, dy = grid(yaw=0.0)
    peak = 0.01 * (np.hypot(dx, dy) < 1e-9) - 0.001 * np.hypot(dx, dy)
    assert check_optimal(dx, dy, peak)[0] == pytest.approx(0.01, abs=1e-15)
    ridge = 0.02 - 0.05 * np.abs(dy)                                  # a crest along the sole
    plane = check_optimal(dx, dy, ridge)
    assert plane[0] == pytest.approx(0.02, abs=1e-15)


def test_samples_on_one_plane_give_that_plane():
    dx, dy = grid()
    plane = check_optimal(dx, dy, 0.3 + 0.1 * dx - 0.2 * dy)
    np.testing.assert_allclose(plane, [0.3, 0.1, -0.2], atol=1e-12)


def test_samples_that_do_not_surround_the_centre_or_lie_on_a_line_are_refused():
    plane = np.empty(3)
    dx, dy = grid()
    assert not lowest_plane(dx + 0.5, dy, np.zeros_like(dx), plane)   # the centre outside
    line = np.linspace(-0.1, 0.1, 9)
    assert not lowest_plane(line, 0.5 * line, line**2, plane)
    assert not lowest_plane(dx[:2], dy[:2], np.zeros(2), plane)


@pytest.mark.parametrize("terrain", [Terrain.rough(0.02, seed=3), Terrain.steps(0.05, 0.3), Terrain.slope(10),
                                     Terrain.flat()], ids=["rough", "steps", "slope", "flat"])
def test_batched_gaps_and_tilts_are_rest_on_s_to_the_last_bit(terrain):
    rng = np.random.default_rng(1)
    dx, dy = terrain.footprint_offsets(0.3, 0.12, 0.06)
    xs, ys = rng.uniform(0.5, 3.0, 40), rng.uniform(-0.3, 0.3, 40)
    heights = terrain.height(xs[:, None] + dx, ys[:, None] + dy)
    gaps, tilts = terrain.rest_gaps(dx, dy, heights)
    rests = [terrain.rest_on(x, y, 0.3, dx, dy, row, (0.24, 0.12)) for x, y, row in zip(xs, ys, heights)]
    assert gaps.tolist() == [rest.gap for rest in rests]
    assert tilts.tolist() == [rest.tilt for rest in rests]
    planes = np.empty((len(xs), 3))
    if not terrain.is_flat:
        assert lowest_planes(dx, dy, heights, planes).all()


@pytest.mark.parametrize("terrain", [Terrain.rough(0.03, seed=0), Terrain.slope(10)], ids=["rough", "crease"])
def test_of_several_lowest_planes_the_least_tilted_facet_is_taken(terrain):
    """Where the centre is over an edge or a vertex of the samples' upper hull, several of
    its facets (Qhull's, scipy) are lowest at the centre: the plane found is the one of them
    of the smallest gradient. A symmetric grid puts the centre on the line between opposite
    samples, so such ties are common (a fifth of the footprints here)."""
    from tsid_py.control.terrain import _upper_planes

    rng = np.random.default_rng(4)
    ties = 0
    for yaw in (0.0, 0.3, -1.1):
        dx, dy = terrain.footprint_offsets(yaw, 0.12, 0.06)
        xs, ys = rng.uniform(0.8, 2.5, 60), rng.uniform(-0.3, 0.3, 60)
        heights = terrain.height(xs[:, None] + dx, ys[:, None] + dy)
        for ground in heights[np.ptp(heights, axis=1) > 1e-12]:
            facets = _upper_planes(dx, dy, ground)
            lowest = facets[facets[:, 0] <= facets[:, 0].min() + 1e-11]
            ties += np.ptp(lowest[:, 1:], axis=0).max() > 1e-9
            plane = check_optimal(dx, dy, ground)
            assert math.hypot(plane[1], plane[2]) == pytest.approx(np.hypot(lowest[:, 1], lowest[:, 2]).min(), abs=1e-9)
    assert ties >= 5
