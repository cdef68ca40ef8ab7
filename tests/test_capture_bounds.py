"""The walk's lateral capture bounds (tsid_py.control.walking.capture_bounds) against an RK4
integration of the pushed pendulum's CoM, and the legs' crossing reach
(tsid_py.models.crossing) against forward kinematics, the joint ranges and coal's collision
test."""

import math

import numpy as np
import pinocchio as pin
import pytest

import tsid_py as tp
from tsid_py.control.walking.capture_bounds import LateralCapture, dcm_after

OMEGA, GAIN = 3.8, 2.1e-3           # a G1-like pendulum: ω (1/s), push gain (m/N)


def capture(**changes) -> LateralCapture:
    values = dict(omega=OMEGA, push_gain=GAIN, half_width=0.0185, inner_width=0.135, reach=0.48, cross_reach=0.06,
                  swing=0.6, earliest=0.36, first_time=0.21, hand_over=0.05, quick_swing=0.21)
    return LateralCapture(**{**values, **changes})


def rk4_dcm(dcm, schedule, force, push_duration=0.1, dt=1e-4) -> float:
    """The capture point at the end of ``schedule`` by RK4 of c̈ = ω² (c − p) + ω² g F (the
    CoM, not the capture point's closed form), from c = 0, ċ = ω dcm."""
    c, v, t = 0.0, OMEGA * dcm, 0.0
    for duration, cop in schedule:
        steps = max(int(round(duration / dt)), 1)
        h = duration / steps
        for _ in range(steps):
            def acceleration(time, position):
                pushed = time < push_duration - 1e-12
                return OMEGA**2 * (position - cop) + (OMEGA**2 * GAIN * force if pushed else 0.0)
            # the push switches off at a step boundary (dt divides 0.1 s)
            k1 = (v, acceleration(t, c))
            k2 = (v + 0.5 * h * k1[1], acceleration(t, c + 0.5 * h * k1[0]))
            k3 = (v + 0.5 * h * k2[1], acceleration(t, c + 0.5 * h * k2[0]))
            k4 = (v + h * k3[1], acceleration(t, c + h * k3[0]))
            c += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            v += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            t += h
    return c + v / OMEGA


@pytest.mark.parametrize("strategy", ["stance", "two_step", "crossover"])
@pytest.mark.parametrize("start, dcm", [(0.0, -0.0134), (0.3, -0.0417)])
def test_largest_push_ends_on_the_support_edge_by_rk4(strategy, start, dcm):
    model = capture()
    schedule, limit = getattr(model, f"{strategy}_schedule")(start)
    force = model.bounds(start, dcm)[strategy]
    assert 0.0 < force < 1e3
    assert rk4_dcm(dcm, schedule, force) == pytest.approx(limit, abs=1e-6)
    assert rk4_dcm(dcm, schedule, 1.02 * force) > limit + 1e-4        # a little more is not caught
    assert rk4_dcm(dcm, schedule, 0.98 * force) < limit - 1e-4


def test_stance_bound_standing_is_the_cop_at_edge_closed_form():
    """With the capture point on the sole's centre the stance bound is capture_point's
    CoP-at-edge bound, d e^{ωT} / (g (e^{ωT} − 1))."""
    model = capture(half_width=0.05)
    expected = 0.05 / GAIN * math.exp(OMEGA * 0.1) / math.expm1(OMEGA * 0.1)
    assert model.bounds(0.0, 0.0)["stance"] == pytest.approx(expected, rel=1e-12)


def test_dcm_after_splits_a_push_across_stretches():
    """A push straddling two stretches with the same centre of pressure ends where one stretch
    does, and the crossing needed for a push is the capture point at the crossed touch-down."""
    one = dcm_after(0.01, [(0.5, 0.02)], OMEGA, 0.05, 0.1, 0.2)
    two = dcm_after(0.01, [(0.08, 0.02), (0.42, 0.02)], OMEGA, 0.05, 0.1, 0.2)
    assert two == pytest.approx(one, abs=1e-12)
    model = capture()
    schedule, _ = model.crossover_schedule(0.0)
    assert model.crossing_needed(0.0, -0.01, 100.0) == pytest.approx(rk4_dcm(-0.01, schedule, 100.0) - 0.0185, abs=1e-6)


def test_strategies_order_and_timing():
    """Faster two-step swings and a narrower first landing catch more; a push later in the
    swing (the capture point farther inside) more for every strategy."""
    model = capture()
    base = model.bounds(0.0, -0.0134)
    assert capture(first_time=0.15, quick_swing=0.15).bounds(0.0, -0.0134)["two_step"] > base["two_step"]
    assert capture(inner_width=0.09).bounds(0.0, -0.0134)["two_step"] > base["two_step"]
    later = model.bounds(0.3, -0.0417)
    assert all(later[key] > base[key] for key in base)


def test_invalid_values_are_named():
    with pytest.raises(ValueError, match="half_width"):
        capture(half_width=-0.01)
    with pytest.raises(ValueError, match="cross_reach"):
        capture(cross_reach=-0.1)


@pytest.fixture(scope="module")
def g1_crossing():
    from tsid_py.collision_geometry import collision_model
    from tsid_py.models.crossing import crossing_reach

    robot = tp.robots.load("g1")
    geometry = collision_model(robot)
    return robot, geometry, crossing_reach(robot.model, robot.q_ref, geometry, robot.feet[1], robot.feet[0], 0.2,
                                           resolution=0.01)


def test_crossing_reach_by_forward_kinematics_ranges_and_collision(g1_crossing):
    import coal

    from tsid_py.models.crossing import leg_pieces

    robot, geometry, (best, past) = g1_crossing
    model = robot.model
    assert best.feasible and not past.feasible and past.cross - best.cross <= 0.01 + 1e-9
    assert 0.0 < best.cross < 0.2
    q = best.fit.configuration
    data = model.createData()
    pin.framesForwardKinematics(model, data, robot.q_ref)
    stance0, swing0 = (data.oMf[model.getFrameId(foot)].copy() for foot in (robot.feet[1], robot.feet[0]))
    pin.framesForwardKinematics(model, data, q)
    stance, swing = (data.oMf[model.getFrameId(foot)] for foot in (robot.feet[1], robot.feet[0]))
    outward = np.sign(stance0.translation[1] - swing0.translation[1])      # the robot faces +x at q_ref
    assert np.allclose(stance.translation, stance0.translation, atol=1e-3)
    assert swing.translation[0] - stance.translation[0] == pytest.approx(0.2, abs=1e-3)
    assert outward * (swing.translation[1] - stance.translation[1]) == pytest.approx(best.cross, abs=1e-3)
    assert np.allclose(swing.rotation, stance.rotation, atol=1e-3)              # both flat, same heading
    joints = q[7:]
    assert np.all(joints >= model.lowerPositionLimit[7:] - 1e-9) and np.all(joints <= model.upperPositionLimit[7:] + 1e-9)
    geometry_data = pin.GeometryData(geometry)
    pin.updateGeometryPlacements(model, data, geometry, geometry_data, q)
    for a in leg_pieces(model, robot.q_ref, geometry, robot.feet[1]):
        for b in leg_pieces(model, robot.q_ref, geometry, robot.feet[0]):
            result = coal.CollisionResult()
            coal.collide(geometry.geometryObjects[a].geometry, geometry_data.oMg[a], geometry.geometryObjects[b].geometry,
                         geometry_data.oMg[b], coal.CollisionRequest(), result)
            assert not result.isCollision()
    assert past.fit.at_limits                                              # a joint range stopped it
