"""The terrain description and the walking geometry on it: heights and resting soles against
closed forms and a linear-programming solver, footholds, swings that clear the ground and land
aligned, the CoM height profile, re-planning, step adjustment and touch-down logic (no
simulator here: tests/test_terrain_walks.py runs them in MuJoCo)."""

import math

import numpy as np
import pinocchio as pin
import pytest
from scipy.optimize import linprog

from tsid_py.control.walking import Footstep, WalkPlan, plan_footsteps
from tsid_py._geometry import separation
from tsid_py.control.capture_point import SupportPolygon, rectangle_corners
from tsid_py.control.walking.adjustment import StepAdjustment
from tsid_py.control.walking.angles import yaw_of_sole
from tsid_py.control.walking.footholds import (OBSTACLE_CLEARANCE, clear_swing, place_footstep, place_footsteps,
                                               swing_clearance)
from tsid_py.control.walking.height import HeightProfile
from tsid_py.control.walking.swing import SwingTrajectory
from tsid_py.control.walking.touchdown import Touchdown
from tsid_py.models.gait import Gait
from tsid_py.control.terrain import Block, Terrain, surface_placement, tilt_rotation

SOLE = (0.2, 0.13)


def test_heights_of_the_demo_terrains_are_their_closed_forms():
    x = np.linspace(-1.0, 5.0, 601)
    up, down = Terrain.slope(10, start=0.5, length=4.0), Terrain.slope(-10, start=0.5, length=4.0)
    expected = np.clip(x - 0.5, 0.0, 4.0) * math.tan(math.radians(10))
    np.testing.assert_allclose(up.height(x, 0.3 + 0 * x), expected, atol=1e-12)
    np.testing.assert_allclose(down.height(x, -0.7 + 0 * x), -expected, atol=1e-12)
    steps = Terrain.steps(0.05, tread=0.4, start=0.5)          # up 3, a landing of 0.8, down 3
    edges = 0.5 + np.cumsum([0.0, 0.4, 0.4, 0.8, 0.4, 0.4])
    levels = [0.05, 0.1, 0.15, 0.1, 0.05]
    for left, right, level in zip(edges[:-1], edges[1:], levels):
        assert steps.height(0.5 * (left + right), 1.0) == pytest.approx(level)
    assert steps.height(0.3, 0.0) == 0.0 and steps.height(edges[-1] + 0.1, 0.0) == 0.0
    pit = Terrain.steps(-0.05, tread=0.4, start=0.5)
    assert pit.height(0.3, 0.0) == 0.0 and pit.height(1.7, 0.0) == pytest.approx(-0.15)
    rough = Terrain.rough(0.02, seed=3, start=0.5)                 # within ± 0.02 m of its mean 0.02 m
    heights = rough.height(np.linspace(0.5, 5.0, 2000), np.linspace(-1.5, 1.5, 2000))
    assert np.min(heights) >= 0.0 and np.max(heights) <= 0.04 + 1e-12 and np.ptp(heights) > 0.02
    assert rough.height(0.2, 0.0) == 0.0                            # flat before the start
    scalars = [rough.height(float(x), float(y)) for x, y in zip(np.linspace(0.5, 5.0, 50), np.linspace(-1, 1, 50))]
    np.testing.assert_array_equal(scalars, rough.height(np.linspace(0.5, 5.0, 50), np.linspace(-1, 1, 50)))


@pytest.mark.parametrize("terrain", [Terrain.rough(0.02, seed=1), Terrain.rough(0.05, seed=2, cell=0.07),
                                     Terrain.slope(10), Terrain.slope(-10), Terrain.stairs(0.05),
                                     Terrain.steps(0.05, tread=0.3)], ids=lambda terrain: terrain.name)
def test_heights_over_arrays_are_the_scalar_heights_to_the_last_bit(terrain):
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1.0, 10.0, 3000), rng.uniform(-2.5, 2.5, 3000)
    x[:60], y[:60] = 0.5 + 0.1 * np.arange(60), -2.0 + 0.07 * np.arange(60)    # on grid lines and edges
    scalars = [terrain.height(float(a), float(b)) for a, b in zip(x, y)]
    np.testing.assert_array_equal(terrain.height(x, y), scalars)


@pytest.mark.parametrize("seed", range(4))
def test_a_sole_rests_on_the_lowest_plane_above_the_ground_a_linear_programme_finds(seed):
    """The resting plane is the optimum of ``min h0 s.t. plane ≥ ground at every sample``
    (scipy's HiGHS solves it independently); it lies on or above every sample, and the
    placement's z axis is its normal, its yaw the one asked."""
    terrain = Terrain.rough(0.03, seed=seed, start=0.0)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        x, y, yaw = rng.uniform(0.5, 4.0), rng.uniform(-1.5, 1.5), rng.uniform(-math.pi, math.pi)
        rest = terrain.rest(x, y, yaw, SOLE)
        dx, dy = terrain.footprint_offsets(yaw, SOLE[0] / 2, SOLE[1] / 2)
        ground = terrain.height(x + dx, y + dy)
        lp = linprog([1, 0, 0], A_ub=-np.column_stack([np.ones_like(dx), dx, dy]), b_ub=-ground,
                     bounds=[(None, None)] * 3, method="highs")
        assert rest.placement.translation[2] == pytest.approx(lp.x[0], abs=1e-9)
        normal = rest.normal
        gx, gy = -normal[0] / normal[2], -normal[1] / normal[2]
        plane = rest.placement.translation[2] + gx * dx + gy * dy
        assert np.min(plane - ground) >= -1e-9 and rest.gap == pytest.approx(np.max(plane - ground))
        assert yaw_of_sole(rest.placement.rotation) == pytest.approx(yaw, abs=1e-9)


def test_a_sole_on_a_ramp_lies_on_it_and_one_across_a_riser_does_not():
    ramp = Terrain.slope(10, start=0.0)
    rest = ramp.rest(1.0, 0.2, 0.3, SOLE)
    angle = math.radians(10)
    np.testing.assert_allclose(rest.normal, [-math.sin(angle), 0.0, math.cos(angle)], atol=1e-12)
    assert rest.gap == pytest.approx(0.0, abs=1e-12) and rest.tilt == pytest.approx(angle)
    assert rest.placement.translation[2] == pytest.approx(1.0 * math.tan(angle))
    edge = Terrain.steps(0.05, tread=0.5, start=1.0).rest(1.0, 0.0, 0.0, SOLE)
    assert edge.gap == pytest.approx(0.05, abs=1e-3)                   # half the sole over the riser


def test_surface_placements_tilt_the_vertical_onto_the_normal_and_keep_the_yaw():
    rng = np.random.default_rng(0)
    for _ in range(50):
        normal = np.array([*rng.uniform(-0.5, 0.5, 2), 1.0])
        normal /= np.linalg.norm(normal)
        yaw = rng.uniform(-math.pi, math.pi)
        placement = surface_placement([0.1, 0.2, 0.3], yaw, normal)
        np.testing.assert_allclose(placement.rotation[:, 2], normal, atol=1e-12)
        np.testing.assert_allclose(tilt_rotation(normal) @ [0, 0, 1], normal, atol=1e-12)
        assert yaw_of_sole(placement.rotation) == pytest.approx(yaw, abs=1e-9)
        assert Footstep("f", 0.1, 0.2, yaw, 0.3, tuple(normal)).placement.isApprox(placement)


@pytest.mark.parametrize("normal, message", [((0, 0, -1), "point up"), ((1, 0, 0.2), "point up"),
                                             ((0, 0, 0), "point up"), ((0, float("nan"), 1), "finite")])
def test_a_footstep_refuses_a_normal_that_is_not_a_ground(normal, message):
    with pytest.raises(ValueError, match=message):
        Footstep("f", 0.0, 0.0, 0.0, 0.0, normal)


def test_bad_terrains_are_named():
    with pytest.raises(ValueError, match="degrees"):
        Terrain.slope(0)
    with pytest.raises(ValueError, match="height"):
        Terrain.steps(0.5, tread=0.4)
    with pytest.raises(ValueError, match="amplitude"):
        Terrain.rough(-0.01)
    with pytest.raises(ValueError, match="features"):
        Terrain(["not a block"])
    with pytest.raises(ValueError, match="floor"):
        Terrain.rough(0.02).__class__(Terrain.rough(0.02).features, floor=-1.0)
    with pytest.raises(ValueError, match="60°"):
        Block([0, 0, 0], [1, 1, 1], pin.exp3(np.array([1.2, 0.0, 0.0])))


def test_footsteps_are_put_off_the_edges_of_steps_with_their_height():
    gait = Gait(step_length=0.25)
    terrain = Terrain.steps(0.05, tread=0.5, start=0.55)
    left, right = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
    planned = plan_footsteps(left, right, [2.5, 0.0, 0.0], gait)
    placed = place_footsteps(planned, terrain, SOLE)
    for before, after in zip(planned, placed):
        rest = terrain.rest(after.x, after.y, after.yaw, SOLE, margin=0.02)
        assert rest.gap <= 0.004 and after.z == pytest.approx(rest.placement.translation[2])
        assert abs(after.x - before.x) <= 0.5 * SOLE[0] + 0.04 + 1e-9 and after.y == before.y
    assert max(step.z for step in placed) == pytest.approx(0.15)
    assert any(abs(after.x - before.x) > 0 for before, after in zip(planned, placed))   # some were moved
    assert place_footstep(left, Terrain(), SOLE) == left                   # flat: as planned


def test_a_swing_is_twice_differentiable_and_lands_aligned_with_its_surface():
    start = Footstep("f", 0.0, 0.1, 0.0, 0.0).placement
    end = Footstep("f", 0.5, 0.05, 0.4, 0.08, (-0.17, 0.05, 0.98)).placement
    swing = SwingTrajectory(start, end, 1.0, 1.6, 0.05, delays=(0.1, 0.2))
    assert swing.sample(1.0).placement.isApprox(start) and swing.sample(1.6).placement.isApprox(end)
    h = 1e-5
    for t in np.linspace(1.01, 1.59, 30):
        before, here, after = (swing.sample(t + d) for d in (-h, 0.0, h))
        linear = (after.placement.translation - before.placement.translation) / (2 * h)
        np.testing.assert_allclose(here.velocity[:3], linear, atol=1e-5)
        angular = here.placement.rotation @ pin.log3(before.placement.rotation.T @ after.placement.rotation) / (2 * h)
        np.testing.assert_allclose(here.velocity[3:], angular, atol=1e-5)
        np.testing.assert_allclose(here.acceleration[:3], (after.velocity[:3] - before.velocity[:3]) / (2 * h),
                                   atol=2e-3)
    # the horizontal motion waits for the first tenth and is over for the last fifth
    np.testing.assert_allclose(swing.sample(1.05).placement.translation[:2], [0.0, 0.1], atol=1e-12)
    np.testing.assert_allclose(swing.sample(1.5).placement.translation[:2], [0.5, 0.05], atol=1e-12)
    assert swing.apex == pytest.approx(0.08 + 0.05)


def test_a_retargeted_swing_stays_continuous():
    start, end = Footstep("f", 0.0, 0.1, 0.0).placement, Footstep("f", 0.4, 0.1, 0.0).placement
    swing = SwingTrajectory(start, end, 0.0, 0.6, 0.05)
    before = swing.sample(0.2)
    swing.retarget(Footstep("f", 0.55, 0.2, 0.2, 0.03, (0.0, -0.1, 1.0)).placement, 0.2)
    after = swing.sample(0.2)
    assert after.placement.isApprox(before.placement, 1e-9)
    np.testing.assert_allclose(after.velocity, before.velocity, atol=1e-9)
    np.testing.assert_allclose(after.acceleration[:3], before.acceleration[:3], atol=1e-9)
    assert swing.sample(0.6).placement.isApprox(Footstep("f", 0.55, 0.2, 0.2, 0.03, (0.0, -0.1, 1.0)).placement)


def test_a_swing_up_a_step_near_its_riser_waits_to_clear_it():
    """The start foothold 3 cm from a 5 cm riser: going straight at it, the sole's reference
    enters the step; the cleared swing holds back its horizontal motion and stays above the
    ground everywhere (within 2 mm) and 2 cm above the step."""
    terrain = Terrain.steps(0.05, tread=0.5, start=0.13 + 0.02)
    start, end = Footstep("f", 0.0, 0.0, 0.0), Footstep("f", 0.45, 0.0, 0.0, 0.05)
    straight = SwingTrajectory(start.placement, end.placement, 0.0, 0.6, 0.05, apex=0.1, delays=(0.0, 0.0))
    assert swing_clearance(terrain, straight, SOLE, 0.02) < -0.005
    cleared = clear_swing(terrain, start, end, 0.0, 0.6, SOLE, 0.05)
    assert cleared.delays[0] > 0 and swing_clearance(terrain, cleared, SOLE, 0.02) >= -0.002


def lowest_sole_margin(terrain, swing, size, samples=200) -> float:
    """The least height (m) of the swing's sole rectangle (a 9 × 7 grid of its points, its
    pose from the swing) above the terrain's height under each point, over ``samples``
    instants of the swing strictly inside it."""
    length, width = size
    grid = np.array([[u, v, 0.0] for u in np.linspace(-length / 2, length / 2, 9)
                     for v in np.linspace(-width / 2, width / 2, 7)])
    lowest = np.inf
    for t in np.linspace(swing.lift_off, swing.touch_down, samples + 2)[1:-1]:
        placement = swing.sample(t).placement
        points = grid @ placement.rotation.T + placement.translation
        lowest = min(lowest, float(np.min(points[:, 2] - terrain.height(points[:, 0], points[:, 1]))))
    return lowest


def test_a_swing_down_from_the_tread_it_leaves_rises_only_its_obstacle_clearance_and_stays_above_the_ground():
    """The trailing foot leaving the upper tread of a 5 cm step down (its foothold 4 cm before
    the edge, the landing 0.12 m past it): the swing rises 0.4 of the clearance above its start
    instead of the full clearance, and its sole, sampled on a grid of points against the
    terrain's heights, stays above the ground all along (within the 2 mm the clearance check
    allows). Up the same step and on flat ground, the apex is as before: the clearance above
    the highest ground."""
    clearance = 0.05
    terrain = Terrain.steps(-0.05, tread=0.5, start=0.0)
    start, end = Footstep("f", -0.14, 0.0, 0.0, 0.0), Footstep("f", 0.22, 0.0, 0.0, -0.05)
    down = clear_swing(terrain, start, end, 0.0, 0.6, SOLE, clearance)
    assert down.apex == pytest.approx(OBSTACLE_CLEARANCE * clearance)
    assert lowest_sole_margin(terrain, down, SOLE) >= -0.002
    up = clear_swing(terrain, Footstep("f", 0.22, 0.0, 0.0, -0.05), Footstep("f", -0.14, 0.0, 0.0, 0.0), 0.0, 0.6,
                     SOLE, clearance)
    assert up.apex == pytest.approx(clearance)
    level = clear_swing(terrain, Footstep("f", -0.5, 0.0, 0.0), Footstep("f", -0.14, 0.0, 0.0), 0.0, 0.6, SOLE,
                        clearance)
    assert level.apex == pytest.approx(clearance)
    # down from a 5 cm platform over an 8 cm bar: the bar is the highest ground, cleared by the clearance
    ridge = Terrain([Block([-0.5, 0.0, 0.025], [0.5, 1.0, 0.025]), Block([0.1, 0.0, 0.04], [0.03, 1.0, 0.04])])
    over = clear_swing(ridge, Footstep("f", -0.14, 0.0, 0.0, 0.05), Footstep("f", 0.3, 0.0, 0.0, 0.0), 0.0, 0.6,
                       SOLE, clearance)
    assert over.apex == pytest.approx(0.08 + clearance)


def test_the_com_height_profile_is_a_smooth_spline_through_its_knots():
    times, heights = [0.0, 0.5, 1.2, 2.0, 2.6], [0.0, 0.02, 0.06, 0.07, 0.07]
    profile = HeightProfile(times, heights)
    for t, z in zip(times, heights):
        assert profile.state(t)[0] == pytest.approx(z, abs=1e-12)
    assert profile.state(0.0)[1] == pytest.approx(0.0, abs=1e-12) and profile.state(2.6)[1] == 0.0
    h = 1e-6
    for t in np.linspace(0.05, 2.55, 40):
        z0, v0, a0 = profile.state(t)
        assert v0 == pytest.approx((profile.state(t + h)[0] - profile.state(t - h)[0]) / (2 * h), abs=1e-6)
        assert a0 == pytest.approx((profile.state(t + h)[1] - profile.state(t - h)[1]) / (2 * h), abs=1e-4)
    assert HeightProfile([0.0, 1.0], [0.3, 0.3]).state(0.5) == (0.3, 0.0, 0.0)


def _stairs_plan():
    gait = Gait(step_length=0.25, single_support=0.6, double_support=0.15)
    terrain = Terrain.steps(0.05, tread=0.5, start=0.4)
    left, right = Footstep("left", 0.0, 0.085, 0.0), Footstep("right", 0.0, -0.085, 0.0)
    steps = place_footsteps(plan_footsteps(left, right, [1.5, 0.0, 0.0], gait), terrain, SOLE)
    return WalkPlan([left, right], steps, [0.0, 0.0, 0.88], 3.3, gait, terrain=terrain, sole_size=SOLE), terrain


def test_a_plan_over_steps_lands_each_swing_on_its_footstep_and_raises_the_com_over_the_lower_foot():
    plan, terrain = _stairs_plan()
    for step, swing in zip(plan.footsteps, plan.swings):
        assert swing.sample(swing.touch_down).placement.isApprox(step.placement)
        assert swing_clearance(terrain, swing, SOLE, 0.02) >= -0.002
    for phase in plan.phases:
        if phase.kind == "double":
            where = plan.footholds_at(phase.start + 1e-6)
            middle = 0.5 * (phase.start + phase.end)
            assert plan.com(middle)[0][2] == pytest.approx(0.88 + min(s.z for s in where.values()), abs=1e-9)
    assert plan.com(plan.duration)[0][2] == pytest.approx(0.88 + plan.footsteps[-1].z)


def test_replanning_with_the_plan_s_own_footsteps_and_state_changes_nothing():
    """The backward recursion of the DCM depends on the ZMP plan ahead only, and the CoM
    from its state: re-planned from the plan's own CoM state over the same footsteps, the
    CoM and capture point references are the same ones."""
    plan, _ = _stairs_plan()
    t = plan.phases[3].start + 0.2                          # in a single support
    index = plan.phases[3].step
    times = np.linspace(t, plan.duration + 0.5, 50)
    com, dcm = plan.com(times)[0], plan.dcm(times)
    position, velocity, _ = plan.com(t)
    plan.replan(t, index, plan.footsteps[index:], position[:2], velocity[:2])
    np.testing.assert_allclose(plan.com(times)[0], com, atol=1e-9)
    np.testing.assert_allclose(plan.dcm(times), dcm, atol=1e-9)


@pytest.mark.parametrize("shift", [-0.15, 0.12])
def test_a_re_timed_touch_down_moves_the_rest_of_the_walk_with_it(shift):
    """Re-planned to land the swing under way 0.15 s early (or 0.12 s late): every later phase
    and event comes that much earlier (later), the next swing is rebuilt on its new times, the
    re-timed swing lands on its footstep then, continuously from where it was; a touch-down
    not after the re-plan's time is refused with the plan unchanged."""
    plan, _ = _stairs_plan()
    single = plan.phases[3]
    t, index = single.start + 0.2, single.step
    before_phases, before_events = list(plan.phases), list(plan.events)
    with pytest.raises(ValueError, match="touch_down"):
        plan.replan(t, index, plan.footsteps[index:], [0.0, 0.0], [0.0, 0.0], touch_down=t)
    assert plan.phases == before_phases and plan.events == before_events
    swing = plan.swings[index]
    sample = swing.sample(t)
    position, velocity, _ = plan.com(t)
    plan.replan(t, index, plan.footsteps[index:], position[:2], velocity[:2], touch_down=single.end + shift)
    swing.retarget(plan.footsteps[index].placement, t, single.end + shift)
    for old, new in zip(before_phases, plan.phases):
        assert new.start == pytest.approx(old.start + (shift if old.start >= single.end else 0.0))
        assert new.end == pytest.approx(old.end + (shift if old.end >= single.end else 0.0))
    for old, new in zip(before_events, plan.events):
        assert new[0] == pytest.approx(old[0] + (shift if old[0] >= single.end else 0.0)) and new[1:] == old[1:]
    assert plan.duration == pytest.approx(before_phases[-1].end + shift)
    assert plan.swings[index + 1].lift_off == pytest.approx(plan.phases[5].start)
    assert swing.touch_down == pytest.approx(single.end + shift)
    assert swing.sample(swing.touch_down).placement.isApprox(plan.footsteps[index].placement)
    again = swing.sample(t)
    assert again.placement.isApprox(sample.placement, 1e-9)
    np.testing.assert_allclose(again.velocity, sample.velocity, atol=1e-9)


def test_a_swing_delayed_while_coming_down_rises_again_and_lands_at_rest():
    """A level swing (apex 5 cm at mid-swing) delayed by 0.15 s 0.05 s before its touch-down,
    its landing moved 0.1 m sideways: continuous at the re-plan (position, velocity,
    acceleration), it rises to 0.4 of its height above the landing halfway to the new
    touch-down, never goes below the landing's height, and lands there at rest."""
    start, end = Footstep("f", 0.0, 0.1, 0.0).placement, Footstep("f", 0.4, 0.1, 0.0).placement
    swing = SwingTrajectory(start, end, 0.0, 0.6, 0.05)
    t, later = 0.55, 0.75
    before = swing.sample(t)
    assert before.velocity[2] < 0.0 and before.placement.translation[2] < 0.02
    landing = Footstep("f", 0.4, 0.2, 0.0).placement
    swing.retarget(landing, t, later)
    after = swing.sample(t)
    assert after.placement.isApprox(before.placement, 1e-9)
    np.testing.assert_allclose(after.velocity, before.velocity, atol=1e-9)
    np.testing.assert_allclose(after.acceleration[:3], before.acceleration[:3], atol=1e-9)
    heights = [swing.sample(time).placement.translation[2] for time in np.linspace(t, later, 401)]
    assert min(heights) >= -1e-9
    assert swing.sample(t + 0.5 * (later - t)).placement.translation[2] == pytest.approx(0.4 * 0.05)
    assert max(heights) == pytest.approx(0.4 * 0.05)
    final = swing.sample(later)
    assert final.placement.isApprox(landing, 1e-9)
    np.testing.assert_allclose(final.velocity, 0.0, atol=1e-9)


def test_replanning_refuses_a_footstep_out_of_reach_and_keeps_the_plan():
    plan, _ = _stairs_plan()
    before = list(plan.footsteps)
    far = [Footstep(s.foot, s.x + 3.0, s.y, s.yaw, s.z) for s in plan.footsteps[2:]]
    with pytest.raises(ValueError, match="out of reach"):
        plan.replan(2.0, 2, far, [0.0, 0.0], [0.0, 0.0])
    assert plan.footsteps == before


def test_step_adjustment_moves_the_landing_by_the_least_that_lets_the_sole_catch_the_capture_point():
    """``ξ_T`` is the pendulum's closed form, the reachable capture points a rectangle ``g``
    times the sole about it; a support it meets needs no move; otherwise the landing moves by
    the least translation of the shrunk hull that meets it (checked against a search over
    directions), within reach and on the swing foot's side."""
    adjustment = StepAdjustment(forward=0.45, backward=0.3, min_width=0.15, max_width=0.6, sole_size=(0.2, 0.1),
                                margin=0.02)
    omega, time_left = 3.3, 0.4
    predicted = adjustment.predict([0.12, -0.05], [0.1, -0.1], omega, time_left)
    np.testing.assert_allclose(predicted, np.array([0.1, -0.1]) + np.array([0.02, 0.05]) * math.exp(omega * time_left),
                               atol=1e-12)
    gain = math.expm1(omega * time_left)
    corners = np.array(adjustment.reachable([1.0, 2.0], math.pi / 2, omega, time_left))   # turned: length along y
    np.testing.assert_allclose(np.ptp(corners, axis=0), [0.1 * gain, 0.2 * gain], atol=1e-12)
    np.testing.assert_allclose(corners.mean(axis=0), [1.0, 2.0], atol=1e-12)
    stance = rectangle_corners(Footstep("r", 0.0, -0.1, 0.0).placement, 0.2, 0.1)
    landing = rectangle_corners(Footstep("l", 0.25, 0.1, 0.0).placement, 0.2, 0.1)
    target = adjustment.target(SupportPolygon(np.vstack([stance, landing])))
    assert adjustment.shift(adjustment.reachable([0.2, 0.05], 0.0, omega, 0.05), target) is None   # it meets
    far = np.array(adjustment.reachable([0.9, 0.6], 0.0, omega, 0.05))
    move = adjustment.shift(far, target)

    def gap(d):                          # distance between the reachable rectangle and the moved hull
        difference = SupportPolygon((far[:, None, :] - (target + d)[None, :, :]).reshape(-1, 2))
        return max(difference.outside_xy(0.0, 0.0), 0.0)

    assert gap(move) < 1e-9 and gap(0.98 * move) > 0.0
    shorter = 0.99 * float(np.linalg.norm(move))
    for angle in np.linspace(0.0, 2 * math.pi, 720, endpoint=False):             # no shorter move meets it
        assert gap(shorter * np.array([math.cos(angle), math.sin(angle)])) > 0.0
    lifted = Footstep("l", -0.2, 0.1, 0.0)
    x, y = adjustment.landing(Footstep("l", 0.2, 0.1, 0.0), [1.0, -1.0], Footstep("r", 0.0, -0.1, 0.0), lifted)
    assert (x, y) == pytest.approx((0.45, 0.05))                     # forward reach, min width on the left


@pytest.mark.parametrize("seed", range(3))
def test_the_separation_of_two_polygons_is_the_minkowski_difference_s_point_nearest_the_origin(seed):
    """``separation(a, b)`` is None when the polygons meet and otherwise the point of
    ``b − a`` (their Minkowski difference, Qhull's hull) nearest the origin."""
    rng = np.random.default_rng(seed)
    met = apart = 0
    for _ in range(60):
        a = SupportPolygon(rng.normal(0.0, 0.1, (6, 2))).vertices
        b = SupportPolygon(rng.normal(0.0, 0.1, (5, 2)) + rng.normal(0.0, 0.25, 2)).vertices
        difference = SupportPolygon((b[:, None, :] - a[None, :, :]).reshape(-1, 2))
        move = separation(a, b)
        if difference.outside_xy(0.0, 0.0) <= 0.0:
            assert move is None
            met += 1
        else:
            np.testing.assert_allclose(move, difference.clamp_xy(0.0, 0.0), atol=1e-12)
            apart += 1
    assert met > 5 and apart > 5


@pytest.mark.parametrize("seed", range(3))
def test_a_support_polygon_is_qhull_s_convex_hull_counter_clockwise(seed):
    """``SupportPolygon``'s own hull (a monotone chain) against scipy's Qhull on random point
    sets, a third of them on a 0.1 grid (duplicates, collinear points): the same vertices,
    counter-clockwise (every turn to the left), every point inside every edge's half-plane,
    unit normals; a set with no area refused by name."""
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(seed)
    for trial in range(300):
        points = rng.normal(0.0, 0.2, (int(rng.integers(3, 12)), 2))
        if trial % 3 == 0:
            points = np.round(points, 1)
        try:
            expected = points[ConvexHull(points).vertices]
        except Exception:                                    # Qhull: no area
            with pytest.raises(ValueError, match="points must span an area"):
                SupportPolygon(points)
            continue
        polygon = SupportPolygon(points)
        assert sorted(map(tuple, polygon.vertices)) == sorted(map(tuple, expected))
        edges = np.roll(polygon.vertices, -1, axis=0) - polygon.vertices
        turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        assert np.all(turns > 0.0)
        np.testing.assert_allclose(np.linalg.norm(polygon.normals, axis=1), 1.0, atol=1e-12)
        assert np.all(points @ polygon.normals.T <= polygon.offsets + 1e-12)
    with pytest.raises(ValueError, match="points must span an area"):
        SupportPolygon([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [1.0, 1.0]])


def test_touchdown_counts_force_along_the_normal_and_lowers_a_late_foot_at_most_its_reach():
    touchdown = Touchdown(force=20.0, speed=0.2, reach=0.03)
    normal = np.array([-math.sin(0.2), 0.0, math.cos(0.2)])
    assert touchdown.touched(np.r_[20.0 * normal, 0, 0, 0], normal)
    assert not touchdown.touched(np.array([0.0, 0.0, 19.0, 0, 0, 0]), normal)
    placement = Footstep("f", 0.1, 0.0, 0.0, 0.05, tuple(normal)).placement
    target, velocity, done = touchdown.lowered(placement, normal, 0.1)
    np.testing.assert_allclose(target.translation, placement.translation - 0.02 * normal, atol=1e-12)
    np.testing.assert_allclose(velocity[:3], -0.2 * normal) and not done
    assert touchdown.lowered(placement, normal, 0.2)[2]


def test_a_flat_terrain_plans_the_walk_planned_without_one():
    """The flat floor given as a Terrain and no terrain at all (flat at the feet) plan the same
    footsteps and swings for a robot standing on the floor."""
    import tsid_py as tp
    from tsid_py.control.walking import WalkingController

    plans = []
    for terrain in (None, Terrain.flat()):
        controller = WalkingController(tp.robots.load("talos"), 1e-3, terrain=terrain)
        plans.append(controller.walk_distance(0.6))
    steps = [[(s.foot, s.x, s.y, s.yaw, s.z, s.normal) for s in plan.footsteps] for plan in plans]
    assert np.allclose([row[1:5] for row in steps[0]], [row[1:5] for row in steps[1]], atol=1e-9)
    for a, b in zip(*(plan.swings for plan in plans)):
        assert a.apex == pytest.approx(b.apex, abs=1e-9) and a.delays == b.delays
        for t in np.linspace(a.lift_off, a.touch_down, 7):
            assert np.allclose(a.sample(t).placement.homogeneous, b.sample(t).placement.homogeneous, atol=1e-9)
