"""A walk's landings on uneven ground: the polygon a landed sole bears on, seen from where it
landed rather than from its foothold, and step adjustment's capture point carried through the
double support that follows a touch-down (against the pendulum integrated numerically and
the least move found by search). No simulator here."""

import math

import numpy as np
import pytest

from tsid_py._geometry import polygon_area, polygon_centroid, separation
from tsid_py.control.capture_point import SupportPolygon, rectangle_corners
from tsid_py.control.terrain import CONTACT_TOLERANCE, Terrain
from tsid_py.control.walking import Footstep
from tsid_py.control.walking.adjustment import StepAdjustment
from tsid_py.control.walking.footholds import landed_footstep, place_footstep
from tsid_py.models.gait import Gait

SOLE = (0.17, 0.05)


@pytest.mark.parametrize("seed", range(3))
def test_a_landed_sole_bears_on_the_same_ground_points_seen_from_where_it_landed(seed):
    """A foothold on bumps bears on a polygon of ground points; landed a few mm off, the sole
    bears on the same points of the world: the landed polygon's vertices, put in the world by
    the landed pose, are the planned ones' (and on the ground), and the polygon has moved in
    the sole's frame by the landing error."""
    terrain = Terrain.rough(0.02, seed=seed, start=0.0)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(20):
        x, y = rng.uniform(0.5, 3.0), rng.uniform(-0.5, 0.5)
        planned = place_footstep(Footstep("left", x, y, rng.uniform(-0.3, 0.3)), terrain, SOLE, search=0.0)
        if planned.bearing is None:
            continue
        error = rng.uniform(-0.006, 0.006, 2)
        landed = landed_footstep(planned, planned.x + error[0], planned.y + error[1])
        world = np.array([landed.placement.act(np.array([u, v, 0.0])) for u, v in landed.bearing])
        ground = terrain.height(world[:, 0], world[:, 1])
        np.testing.assert_allclose(world[:, 2], ground, atol=CONTACT_TOLERANCE + 1e-9)
        back = np.array([planned.placement.actInv(point)[:2] for point in world])     # in the planned sole
        polygon = np.array(planned.bearing)
        assert polygon_area(back) == pytest.approx(polygon_area(polygon), abs=1e-12)   # the same region
        edges = np.roll(polygon, -1, axis=0) - polygon
        normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
        assert np.all(back @ normals.T <= np.einsum("ij,ij->i", normals, polygon) + 1e-12)
        shift = polygon_centroid(landed.bearing) - polygon_centroid(planned.bearing)
        assert np.linalg.norm(shift) == pytest.approx(np.linalg.norm(error), rel=0.05)   # a tilt stretches it
        assert (landed.x, landed.y, landed.normal) == (planned.x + error[0], planned.y + error[1], planned.normal)
        checked += 1
    assert checked >= 5
    level = Footstep("right", 1.0, -0.1, 0.2, 0.03)
    assert landed_footstep(level, 1.003, -0.104) == Footstep("right", 1.003, -0.104, 0.2, 0.03)


def _pendulum(xi, stance, landing, omega, duration, steps=2000):
    """``ξ̇ = ω (ξ − p)`` (each row of ``xi``) with ``p`` going from ``stance`` to ``landing`` in a straight line over
    ``duration`` s, by fourth-order Runge-Kutta."""
    xi, stance, landing = (np.asarray(value, dtype=float) for value in (xi, stance, landing))
    h = duration / steps

    def rate(s, value):
        return omega * (value - (stance + (landing - stance) * s / duration))

    for i in range(steps):
        s = i * h
        k1 = rate(s, xi)
        k2 = rate(s + h / 2, xi + h / 2 * k1)
        k3 = rate(s + h / 2, xi + h / 2 * k2)
        k4 = rate(s + h, xi + h * k3)
        xi = xi + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return xi


def test_the_capture_point_through_the_double_support_is_the_pendulum_s():
    """Each capture point at touch-down carried through the double support is the pendulum
    integrated under the centre of pressure's transfer; none (``double_support`` 0) leaves it."""
    omega = 4.0
    adjustment = StepAdjustment(forward=0.3, backward=0.2, min_width=0.13, max_width=0.45, sole_size=SOLE,
                                double_support=0.15)
    points = [(0.1, -0.07), (0.12, 0.02), (-0.05, 0.3)]
    stance, landing = (0.0, 0.11), (0.27, -0.09)
    carried, scale = adjustment.through_double_support(points, stance, landing, omega)
    np.testing.assert_allclose(carried, _pendulum(points, stance, landing, omega, 0.15), atol=1e-9)
    moved, _ = adjustment.through_double_support(points, stance, np.add(landing, (0.0, -0.01)), omega)
    np.testing.assert_allclose(np.subtract(moved, carried), [(0.0, (scale - 1.0) * 0.01)] * 3, atol=1e-12)
    none = StepAdjustment(forward=0.3, backward=0.2, min_width=0.13, max_width=0.45, sole_size=SOLE)
    assert none.through_double_support(points, stance, landing, omega) == (points, 1.0)
    with pytest.raises(ValueError, match="double_support"):
        StepAdjustment(forward=0.3, backward=0.2, min_width=0.13, max_width=0.45, double_support=-0.1)


def test_step_adjustment_catches_a_capture_point_the_double_support_carries_past_the_landing_sole():
    """G1's last stances on rough ground (seed 0): the capture point predicted at touch-down
    2 cm inside the landing sole, in the hull of the two soles — nothing to do at touch-down —
    but carried by the double support past the sole's outer edge. With the gait's double
    support the landing moves outward by the least that lets the moved support hold it: after
    the move (the landing's ZMP moving with it) they meet, and 95 % of it does not."""
    gait = Gait(step_length=0.2, step_width=0.18, single_support=0.6, double_support=0.15)
    adjustment = StepAdjustment.for_robot(0.6, 0.18, SOLE, gait)
    assert adjustment.double_support == 0.15
    omega, time_left = math.sqrt(9.81 / 0.6), 0.05
    stance = Footstep("left", 2.62, 0.11, 0.0)
    landing = Footstep("right", 2.89, -0.09, 0.0)
    hull = SupportPolygon(np.vstack([rectangle_corners(stance.placement, *SOLE),
                                     rectangle_corners(landing.placement, *SOLE)]))
    target = adjustment.target(hull)
    stance_zmp = (2.62, 0.115)
    predicted = adjustment.predict((2.75, -0.045), stance_zmp, omega, time_left)
    assert -0.09 < predicted[1] < -0.06                                 # inside the landing sole's half
    reachable = adjustment.reachable(predicted, 0.0, omega, time_left)
    assert adjustment.shift(reachable, target) is None                  # at touch-down: in the hull

    def carried(move):
        points, scale = adjustment.through_double_support(reachable, stance_zmp, landing.xy + move, omega)
        return points, scale

    points, scale = carried(np.zeros(2))
    assert scale > 1.0 and max(y for _, y in points) < -0.1            # past the landing sole's outer edge
    move = adjustment.shift(points, target, scale)
    assert move is not None and move[1] < -0.005                        # outward, the swing foot's way
    moved_points, _ = carried(move)
    assert separation(target + move, moved_points) is None or np.linalg.norm(
        separation(target + move, moved_points)) < 1e-9
    short_points, _ = carried(0.95 * move)
    assert separation(target + 0.95 * move, short_points) is not None
