"""Soles on bumps: the polygon a sole bears on (Terrain.rest) against the ground it rests on,
the room it leaves the centre of pressure and the contact region made of it against
brute-force sampling, footholds on rough ground, and the walk's centre of pressure planned
at each footstep's support point (no simulator here)."""

import math

import numpy as np
import pytest

from tsid_py._geometry import polygon_area, polygon_centroid
from tsid_py.control.terrain import CONTACT_TOLERANCE, Terrain
from tsid_py.control.walking import Footstep, WalkPlan, plan_footsteps
from tsid_py.control.walking.footholds import contact_region, cop_room, landed_footstep, place_footstep, place_footsteps
from tsid_py.models.gait import Gait

SOLE = (0.2, 0.13)


def _in_order(polygon):
    """A polygon's vertices sorted by x then y (to compare two listings of one polygon)."""
    return polygon[np.lexsort(polygon.T[::-1])]


def _inside(points, polygon, margin=0.0):
    """Whether each of ``points`` (n, 2) is ``margin`` inside the counter-clockwise convex
    ``polygon`` (k, 2)."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
    offsets = np.einsum("ij,ij->i", normals, polygon)
    return np.all(points @ normals.T <= offsets - margin + 1e-12, axis=1)


@pytest.mark.parametrize("seed", range(3))
def test_a_sole_on_bumps_bears_on_the_hull_of_the_ground_it_touches(seed):
    """The bearing polygon's vertices, put in the world by the resting placement, are on the
    ground (within the contact tolerance); the support is its share of the footprint; a
    plane bears everywhere (None)."""
    terrain = Terrain.rough(0.02, seed=seed, start=0.0)
    rng = np.random.default_rng(seed)
    for _ in range(15):
        x, y, yaw = rng.uniform(0.5, 4.0), rng.uniform(-1.5, 1.5), rng.uniform(-math.pi, math.pi)
        rest = terrain.rest(x, y, yaw, SOLE)
        if rest.bearing is None:
            assert rest.gap <= CONTACT_TOLERANCE
            continue
        vertices = np.column_stack([rest.bearing, np.zeros(len(rest.bearing))])
        world = vertices @ rest.placement.rotation.T + rest.placement.translation
        ground = terrain.height(world[:, 0], world[:, 1])
        assert np.all(np.abs(world[:, 2] - ground) <= CONTACT_TOLERANCE + 1e-9)
        reach = np.hypot(*SOLE) / 2 / math.cos(rest.tilt)                   # the footprint, on the tilted plane
        assert np.all(np.linalg.norm(rest.bearing, axis=1) <= reach + 1e-9)
        assert rest.support == pytest.approx(polygon_area(rest.bearing) / (SOLE[0] * SOLE[1]))
    assert Terrain.slope(10, start=0.0).rest(1.0, 0.0, 0.3, SOLE).bearing is None


def test_the_cop_room_is_the_largest_centred_sole_inside_the_bearing_polygon():
    """1 for the whole sole, 0.5 for its heel half (closed form), and for random polygons the
    largest scale of the sole rectangle about the centroid that stays inside (bisection on
    point-in-polygon tests)."""
    half = np.array(SOLE) / 2
    rectangle = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * half
    assert cop_room(None, SOLE) == 1.0 and cop_room(rectangle, SOLE) == pytest.approx(1.0)
    heel = rectangle * [0.5, 1.0] - [half[0] / 2, 0.0]
    assert cop_room(heel, SOLE) == pytest.approx(0.5)
    assert cop_room([[0, 0], [0.1, 0], [0.2, 0]], SOLE) == 0.0                      # a line: no room
    rng = np.random.default_rng(1)
    for _ in range(20):
        angles = np.sort(rng.uniform(0, 2 * math.pi, 6))
        polygon = np.column_stack([0.09 * np.cos(angles), 0.06 * np.sin(angles)]) + rng.normal(0, 0.01, 2)
        centre = polygon_centroid(polygon)
        low, high = 0.0, 1.0
        for _ in range(40):
            middle = 0.5 * (low + high)
            fits = _inside(centre + middle * rectangle, polygon).all()
            low, high = (middle, high) if fits else (low, middle)
        assert cop_room(polygon, SOLE) == pytest.approx(low, abs=1e-6)


def test_the_contact_region_is_the_bearing_polygon_less_the_margins_inside_the_contact_rectangle():
    """Sampled on a grid, a point is in the region if and only if it is in the contact
    rectangle and each bearing edge's margin inside the polygon."""
    contact = (0.19, 0.117)
    margins = (np.array(SOLE) - contact) / 2
    half = np.array(SOLE) / 2
    assert contact_region(None, contact, SOLE) is None
    whole = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * half
    np.testing.assert_allclose(np.sort(np.abs(contact_region(whole, contact, SOLE)), axis=0),
                               np.tile(np.array(contact) / 2, (4, 1)), atol=1e-12)
    triangle = np.array([[-0.1, 0.065], [-0.1, -0.065], [0.06, 0.0]])
    region = contact_region(triangle, contact, SOLE)
    edges = np.roll(triangle, -1, axis=0) - triangle
    normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
    offsets = np.einsum("ij,ij->i", normals, triangle) - np.abs(normals) @ margins
    grid = np.stack(np.meshgrid(np.linspace(-0.1, 0.1, 81), np.linspace(-0.07, 0.07, 57)), -1).reshape(-1, 2)
    expected = (np.all(np.abs(grid) <= np.array(contact) / 2, axis=1) & np.all(grid @ normals.T <= offsets, axis=1))
    found = _inside(grid, region)
    assert np.mean(found != expected) < 0.01 and found[expected].mean() > 0.97
    assert contact_region([[0, 0], [0.001, 0], [0, 0.001]], contact, SOLE) is None    # nothing left


def test_footholds_on_rough_ground_move_only_for_room_and_carry_their_bearing():
    """Each placed footstep rests on the ground (its height and normal those of its resting
    pose), carries its bearing polygon, and was moved from its plan only to a good foothold
    (flat, room ≥ 0.8) or to give its centre of pressure more room than the move costs (one
    over the sole's length per m)."""
    terrain = Terrain.rough(0.02, seed=4, start=0.3)
    gait = Gait(step_length=0.25)
    left, right = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
    planned = plan_footsteps(left, right, [2.0, 0.0, 0.0], gait)
    placed = place_footsteps(planned, terrain, SOLE)
    moved = 0
    for before, after in zip(planned, placed):
        rest = terrain.rest(after.x, after.y, after.yaw, SOLE)
        assert after.z == pytest.approx(rest.placement.translation[2])
        np.testing.assert_allclose(after.placement.rotation, rest.placement.rotation, atol=1e-9)
        shift = math.hypot(after.x - before.x, after.y - before.y)
        if shift > 0:
            moved += 1
            here = cop_room(terrain.rest(before.x, before.y, before.yaw, SOLE).bearing, SOLE)
            room = cop_room(after.bearing, SOLE)
            good = terrain.rest(after.x, after.y, after.yaw, SOLE, margin=0.02).gap <= 0.01 and room >= 0.8
            assert good or room - shift / SOLE[0] >= here - 1e-9
        if after.bearing is not None:
            assert after.support_point == pytest.approx(
                after.placement.act(np.r_[polygon_centroid(after.bearing), 0.0])[:2])
    assert moved > 0
    assert place_footstep(left, Terrain(), SOLE).bearing is None


def test_a_walk_plans_its_centre_of_pressure_at_each_footstep_s_support_point():
    bearing = ((-0.1, 0.06), (-0.1, -0.06), (0.02, -0.06), (0.02, 0.06))            # the heel bears
    gait = Gait(step_length=0.2)
    left, right = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
    steps = [Footstep("left", 0.2, 0.085, 0.0, bearing=bearing), Footstep("right", 0.2, -0.085, 0.0)]
    plan = WalkPlan({"left": left, "right": right}, steps, [0.0, 0.0, 0.8], 3.5, gait)
    assert steps[0].support_point == pytest.approx([0.2 - 0.04, 0.085])
    single = [phase for phase in plan.phases if phase.kind == "single"]
    middle = 0.5 * (single[1].start + single[1].end)                           # the right foot swings
    np.testing.assert_allclose(plan.zmp(middle), steps[0].support_point, atol=1e-12)
    with pytest.raises(ValueError, match="bearing"):
        Footstep("left", 0.0, 0.0, 0.0, bearing=((0, 0), (1, 1)))


@pytest.mark.parametrize("seed", range(2))
def test_the_planes_a_sole_can_lie_on_are_on_or_above_the_ground_and_touch_it_at_three_points(seed):
    """Each of ``resting_normals``' planes, through a footprint sample it touches, is on or
    above every sample and touches at least three; the lowest at the centre (``rest``) is
    among them; a ramp has one, its own."""
    terrain = Terrain.rough(0.02, seed=seed, start=0.0)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        x, y, yaw = rng.uniform(0.5, 4.0), rng.uniform(-1.5, 1.5), rng.uniform(-math.pi, math.pi)
        normals = terrain.resting_normals(x, y, yaw, SOLE)
        dx, dy = terrain.footprint_offsets(yaw, SOLE[0] / 2, SOLE[1] / 2)
        heights = terrain.height(x + dx, y + dy)
        for n in normals:
            gx, gy = -n[0] / n[2], -n[1] / n[2]
            h0 = np.max(heights - gx * dx - gy * dy)                      # lowest such plane
            above = h0 + gx * dx + gy * dy - heights
            assert np.min(above) >= -1e-12 and np.sum(above < 1e-9) >= 3
        assert np.max(normals @ terrain.rest(x, y, yaw, SOLE).normal) == pytest.approx(1.0, abs=1e-9)
    ramp = Terrain.slope(10, start=0.0).resting_normals(1.0, 0.0, 0.3, SOLE)
    np.testing.assert_allclose(ramp, [[-math.sin(math.radians(10)), 0.0, math.cos(math.radians(10))]], atol=1e-12)


def test_a_sole_landing_on_bumps_bears_on_its_polygon_and_is_held_on_the_ground_s_plane():
    """The walk's touch-down on a footstep of rough ground makes a contact bearing on its
    polygon as seen from where the sole landed (landed_footstep: 3 mm ahead, 4 mm to the
    right) less the sole's margins (contact_region), anchored where the sole is with the
    footstep's normal, and the capture point's support is built on that polygon."""
    import tsid_py as tp
    from tsid_py.control.walking import WalkingController
    from tsid_py.control.walking.plan import LAND, LIFT, UNLOAD

    robot = tp.robots.load("talos")
    terrain = Terrain.rough(0.02, seed=0, start=0.2)
    controller = WalkingController(robot, 1e-3, terrain=terrain)
    plan = controller.walk_distance(1.0)
    stage = controller.plan_stage
    index = next(i for i, step in enumerate(plan.footsteps) if step.bearing is not None and not step.level)
    for time, kind, foot, step in plan.events:
        if step > index:
            break
        if kind == LAND and step == index:          # the sole lands 5 mm off its foothold
            footstep, q = plan.footsteps[index], robot.q_ref.copy()
            robot.update(q, robot.zero_velocity())
            q[:2] += footstep.xy + [0.003, -0.004] - robot.frame_placement(robot.frame_id(foot)).translation[:2]
            robot.update(q, robot.zero_velocity())
        stage._apply(time, kind, foot, step)
        if kind == LAND and step == index:
            contact = controller.solver.contacts[foot]
            sole = (contact.length, contact.width)
            landed = landed_footstep(footstep, *robot.frame_placement(robot.frame_id(foot)).translation[:2])
            expected = contact_region(landed.bearing, sole, robot.sole_size)
            np.testing.assert_allclose(_in_order(contact.bearing), _in_order(expected), atol=1e-12)
            planned = contact_region(footstep.bearing, sole, robot.sole_size)
            assert not np.allclose(polygon_centroid(planned), polygon_centroid(expected), atol=1e-3)
            np.testing.assert_allclose(contact.anchor.rotation[:, 2], footstep.normal, atol=1e-12)
            placement = robot.frame_placement(robot.frame_id(foot))
            np.testing.assert_allclose(contact.anchor.translation, placement.translation, atol=1e-12)
            corners = controller.stance.footprint(foot)
            world = np.column_stack([contact.bearing, np.zeros(len(expected))]) @ contact.anchor.rotation.T
            np.testing.assert_allclose(corners, (world + contact.anchor.translation)[:, :2], atol=1e-12)
    assert {UNLOAD, LIFT, LAND} <= {kind for _, kind, _, _ in plan.events}
