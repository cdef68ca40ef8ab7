"""Step adjustment aimed at the plan's nominal DCM offset, and the swing's feasibility bound
that replaces the fixed adjustment window (:mod:`tsid_py.control.walking.adjustment`),
checked against the pendulum integrated by RK4, a brute-force search over the stance sole's
centres of pressure, the plan's own backward recursion after the re-plan, and the swing's
quintic sampled densely (no simulator here: tests/test_walk.py pushes G1 in MuJoCo)."""

import math

import numpy as np
import pytest

from tsid_py.control.walking import Footstep, WalkPlan, plan_footsteps
from tsid_py.control.walking.adjustment import StepAdjustment
from tsid_py.control.walking.swing import quintic
from tsid_py.models.gait import Gait
from tsid_py.models.swing_time import QUINTIC_ACCELERATION

GAIT = Gait(step_length=0.2, single_support=0.6, double_support=0.15, step_width=0.18, transition=0.05)
OMEGA = 3.8
SOLE = (0.16, 0.04)


def _plan() -> WalkPlan:
    left, right = Footstep("left", 0.0, 0.09, 0.0), Footstep("right", 0.0, -0.09, 0.0)
    footsteps = plan_footsteps(left, right, [1.0, 0.0, 0.0], GAIT)
    return WalkPlan({"left": left, "right": right}, footsteps, [0.0, 0.0, 0.68], OMEGA, GAIT)


def _rk4(dcm, cop, omega: float, duration: float, steps: int = 400) -> np.ndarray:
    """``ξ̇ = ω (ξ − p)`` with ``p`` fixed, integrated by RK4."""
    xi, h = np.array(dcm, dtype=float), duration / steps
    def rate(x):
        return omega * (x - cop)

    for _ in range(steps):
        k1 = rate(xi)
        k2 = rate(xi + 0.5 * h * k1)
        k3 = rate(xi + 0.5 * h * k2)
        k4 = rate(xi + h * k3)
        xi = xi + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return xi


@pytest.mark.parametrize("push", [(0.0, -0.08), (0.0, 0.03), (0.06, -0.03)])
def test_the_landing_aimed_at_the_nominal_offset_puts_the_capture_point_there(push):
    """Mid-swing, the measured capture point off the plan's by ``push``: the landing moved by
    :meth:`~StepAdjustment.shift` toward the plan's capture point at touch-down (scaled by
    :meth:`~StepAdjustment.nominal_gain`), with a centre of pressure inside the stance sole,
    puts the capture point at touch-down (the pendulum integrated by RK4) exactly where the
    walk re-planned over the moved footsteps has its own (its backward recursion): the walk
    goes on at its nominal DCM offset; no centre of pressure in the sole (searched on a grid)
    needs a smaller move."""
    plan = _plan()
    single = next(phase for phase in plan.phases if phase.kind == "single" and phase.step == 3)
    t, index = single.start + 0.3, single.step
    swing = plan.swings[index]
    stance_zmp = plan.zmp(t)
    nominal = plan.dcm(swing.touch_down)
    dcm = plan.dcm(t) + np.array(push)
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=SOLE,
                                threshold=1e-3, double_support=GAIT.double_support)
    gain_of_landing = adjustment.nominal_gain(OMEGA)
    assert gain_of_landing == pytest.approx((1 - math.exp(-OMEGA * 0.15)) / (OMEGA * 0.15))
    time_left = swing.touch_down - t
    predicted = np.array(adjustment.predict(dcm, stance_zmp, OMEGA, time_left))
    reachable = adjustment.reachable(predicted, 0.0, OMEGA, time_left)
    move = np.array(adjustment.shift(reachable, [nominal], gain_of_landing))
    gain = math.expm1(OMEGA * time_left)
    cop_offset = (predicted - (nominal + gain_of_landing * move)) / gain     # the δ that serves it
    assert np.all(np.abs(cop_offset) <= 0.5 * np.array(SOLE) + 1e-9)
    landed = _rk4(dcm, stance_zmp + cop_offset, OMEGA, time_left)
    moved = [step.moved_to(step.x + move[0], step.y + move[1]) for step in plan.footsteps[index:]]
    position, velocity, _ = plan.com(t)
    plan.replan(t, index, moved, position[:2], velocity[:2])
    np.testing.assert_allclose(plan.dcm(swing.touch_down), landed, atol=1e-7)
    grid = [np.array([a, b]) * 0.5 * np.array(SOLE) for a in np.linspace(-1, 1, 41) for b in np.linspace(-1, 1, 41)]
    least = min(np.linalg.norm(predicted - gain * delta - nominal) for delta in grid) / gain_of_landing
    assert np.linalg.norm(move) == pytest.approx(least, abs=2e-4)
    assert np.linalg.norm(move) > 0.01                                # the push did need a move


def test_the_nominal_aim_does_not_move_a_landing_the_stance_sole_can_still_serve():
    """A capture point the stance sole's centre of pressure can bring to the nominal offset by
    touch-down moves nothing."""
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=SOLE)
    stance_zmp, time_left = np.array([0.4, -0.09]), 0.3
    nominal = np.array(adjustment.predict([0.41, -0.085], stance_zmp, OMEGA, time_left))
    dcm = np.array([0.41, -0.085]) + np.array([0.002, 0.002])      # inside g × sole of it
    reachable = adjustment.reachable(adjustment.predict(dcm, stance_zmp, OMEGA, time_left), 0.0, OMEGA, time_left)
    assert adjustment.shift(reachable, [nominal]) is None


def test_the_swing_feasibility_bound_against_the_quintic_sampled_densely():
    """:meth:`~StepAdjustment.feasible` compares the re-planned swing's peak horizontal
    acceleration (the quintic of :func:`~tsid_py.control.walking.swing.quintic` from the foot's
    state to the new landing) with ``max_acceleration``: true just above the densely sampled
    peak, false just below; a remaining time under ``min_time`` is never feasible; the rest-to-
    rest peak is ``QUINTIC_ACCELERATION D / T²`` and ``for_robot`` bounds a swing by the quick step's
    across the legs' reach."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        position, velocity, acceleration = rng.normal(0, 0.1, 2), rng.normal(0, 0.5, 2), rng.normal(0, 5.0, 2)
        end, duration = position + rng.normal(0, 0.1, 2), rng.uniform(0.12, 0.4)
        times = np.linspace(0.0, duration, 4001)
        _, _, accelerations = quintic(position, velocity, acceleration, end[None, :] * np.ones((4001, 1)), duration,
                                      times[:, None] * np.ones((1, 2)))
        peak = float(np.max(np.linalg.norm(accelerations, axis=1)))
        loose = StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4, max_acceleration=1.03 * peak)
        tight = StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4, max_acceleration=0.97 * peak)
        assert loose.feasible(position, velocity, acceleration, end, duration)
        assert not tight.feasible(position, velocity, acceleration, end, duration)
        assert not loose.feasible(position, velocity, acceleration, end, 0.5 * loose.min_time)
    times = np.linspace(0.0, 0.3, 30001)
    _, _, rest = quintic(0.0, 0.0, 0.0, 0.25, 0.3, times)
    assert float(np.max(np.abs(rest))) == pytest.approx(QUINTIC_ACCELERATION * 0.25 / 0.3**2, rel=1e-6)
    adjustment = StepAdjustment.for_robot(0.68, 0.18, SOLE, GAIT, quick_swing=0.21)
    span = adjustment.max_width - adjustment.min_width
    assert adjustment.max_acceleration == pytest.approx(QUINTIC_ACCELERATION * span / 0.21**2)
    assert adjustment.until == 1.0
    assert StepAdjustment.for_robot(0.68, 0.18, SOLE, GAIT).max_acceleration is None
    with pytest.raises(ValueError, match="max_acceleration"):
        StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4, max_acceleration=-1.0)
    with pytest.raises(ValueError, match="quick_swing"):
        StepAdjustment.for_robot(0.68, 0.18, SOLE, GAIT, quick_swing=0.0)


@pytest.mark.parametrize("push", [(0.0, -0.08), (0.04, -0.02), (-0.05, 0.0)])
def test_the_touch_down_in_closed_form_against_a_search_over_the_pendulum(push):
    """:meth:`~StepAdjustment.timed`: the touch-down that least costs ``|d|² + β (τ − τ_p)²``
    — ``d`` the landing's move that puts the capture point at touch-down (the pendulum
    integrated by RK4, the centre of pressure on the stance's planned ZMP) at the plan's
    nominal offset, ``τ = e^{ω (T − t)}`` — found by a dense search over ``T`` in
    ``[first, planned]``; and a capture point on its plan keeps the planned touch-down."""
    plan = _plan()
    single = next(phase for phase in plan.phases if phase.kind == "single" and phase.step == 3)
    t, swing = single.start + 0.25, plan.swings[single.step]
    stance_zmp, nominal = plan.zmp(t), plan.dcm(swing.touch_down)
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=SOLE,
                                double_support=GAIT.double_support, speed=0.33)
    first = t + adjustment.min_time
    assert adjustment.timed(plan.dcm(t), stance_zmp, nominal, OMEGA, t, swing.touch_down, first) == pytest.approx(
        swing.touch_down, abs=1e-9)
    dcm = plan.dcm(t) + np.array(push)
    chosen = adjustment.timed(dcm, stance_zmp, nominal, OMEGA, t, swing.touch_down, first)
    assert first - 1e-9 <= chosen <= swing.touch_down + 1e-9
    gain, planned_tau = adjustment.nominal_gain(OMEGA), math.exp(OMEGA * (swing.touch_down - t))
    beta = (adjustment.speed / (OMEGA * planned_tau)) ** 2

    def cost(touch_down):
        move = (_rk4(dcm, stance_zmp, OMEGA, touch_down - t, steps=100) - nominal) / gain
        return float(move @ move) + beta * (math.exp(OMEGA * (touch_down - t)) - planned_tau) ** 2

    times = np.linspace(first, swing.touch_down, 801)
    best = times[int(np.argmin([cost(time) for time in times]))]
    assert chosen == pytest.approx(best, abs=2 * (times[1] - times[0]))
    assert cost(chosen) <= min(cost(time) for time in times) + 1e-9
    candidates = adjustment.touch_downs(t, swing.lift_off, swing.touch_down, GAIT.single_support,
                                        timing=(dcm, stance_zmp, nominal, OMEGA))
    earliest = max(t + adjustment.min_time, swing.lift_off + adjustment.earliest * GAIT.single_support)
    assert candidates[0] == swing.touch_down and candidates[1] == pytest.approx(
        adjustment.timed(dcm, stance_zmp, nominal, OMEGA, t, swing.touch_down, earliest))
    assert min(candidates) == pytest.approx(earliest)


def _across(stance: Footstep, xy) -> float:
    """The lateral distance of ``xy`` from ``stance`` in its sole's frame, by rotation."""
    c, s = math.cos(stance.yaw), math.sin(stance.yaw)
    return float(np.array([-s, c]) @ (np.asarray(xy, dtype=float) - stance.xy))


@pytest.mark.parametrize("yaw", [0.0, 0.4])
def test_the_nominal_aim_lands_no_wider_than_nominal_width_unless_the_capture_needs_it(yaw):
    """A nominal move landing wider across the stance sole than ``nominal_width`` lands at that
    width, along the same line across (the move's part along the sole kept); wider still when
    the least move lands wider (up to ``max_width``); as before when it lands within, the least
    move then not computed."""
    stance = Footstep("right", 0.0, 0.0, yaw)
    lifted = Footstep("left", -0.2 * math.cos(yaw) - 0.18 * math.sin(yaw), -0.2 * math.sin(yaw) + 0.18 * math.cos(yaw),
                      yaw)
    planned = Footstep("left", 0.2 * math.cos(yaw) - 0.18 * math.sin(yaw), 0.2 * math.sin(yaw) + 0.18 * math.cos(yaw),
                       yaw)
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=SOLE,
                                nominal_width=0.40)
    left = np.array([-math.sin(yaw), math.cos(yaw)])
    forward = np.array([math.cos(yaw), math.sin(yaw)])

    def never():
        raise AssertionError("the least move is not needed within nominal_width")

    within = adjustment.aimed_landing(planned, 0.1 * left + 0.05 * forward, stance, lifted, never)
    assert within == pytest.approx(adjustment.landing(planned, 0.1 * left + 0.05 * forward, stance, lifted))
    nominal = 0.3 * left + 0.05 * forward                        # lands 0.48 across: past 0.40
    for least, width in ((None, 0.40), (0.1 * left, 0.40), (0.26 * left, 0.44), (0.5 * left, 0.48)):
        x, y = adjustment.aimed_landing(planned, nominal, stance, lifted, lambda least=least: least)
        assert _across(stance, (x, y)) == pytest.approx(width, abs=1e-12)
        assert forward @ (np.array([x, y]) - stance.xy) == pytest.approx(0.25, abs=1e-12)
    assert StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48).aimed_landing(
        planned, nominal, stance, lifted, never) == pytest.approx(adjustment.landing(planned, nominal, stance, lifted))
    for bad in (-0.1, 0.1, float("nan")):
        with pytest.raises(ValueError, match="nominal_width"):
            StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, nominal_width=bad)


@pytest.mark.parametrize("yaw", [0.0, 0.7, -2.5])
def test_a_footsteps_across_is_the_lateral_coordinate_in_its_frame(yaw):
    """``Footstep.across``: the y coordinate of a point in the footstep's frame (its heading
    the x axis), against the rotation matrix."""
    step = Footstep("left", 0.3, -0.2, yaw)
    for point in ([0.5, 0.1], [-1.0, 2.0], [0.3, -0.2]):
        assert step.across(*point) == pytest.approx(_across(step, point), abs=1e-15)


def test_the_walks_sway_at_a_lift_off_against_the_pendulum_integrated():
    """``WalkPlan.sway_at_lift_off``: the CoM at a lift-off, from the touch-down before it by
    integrating ``c̈ = ω² (c − p)`` through the double support with the plan's ZMP (RK4), as a
    fraction of the way from the feet's middle to the stance sole's centre; the same for
    either foot in a straight walk's middle (a steady gait), and between 0 and 1."""
    plan = _plan()
    fractions = []
    for index in (3, 4):
        swing = plan.swings[index]
        start = plan.swings[index - 1].touch_down
        position, velocity, _ = plan.com(start)
        state, steps = np.r_[position[:2], velocity[:2]], 2000
        h = (swing.lift_off - start) / steps

        def rate(time, x):
            return np.r_[x[2:], OMEGA**2 * (x[:2] - plan.zmp(time))]

        time = start
        for _ in range(steps):
            k1 = rate(time, state)
            k2 = rate(time + 0.5 * h, state + 0.5 * h * k1)
            k3 = rate(time + 0.5 * h, state + 0.5 * h * k2)
            k4 = rate(time + h, state + h * k3)
            state, time = state + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), time + h
        feet = plan.footholds_at(swing.lift_off - 1e-6)
        stance = next(step for name, step in feet.items() if name != plan.footsteps[index].foot)
        middle = 0.5 * (feet["left"].xy + feet["right"].xy)
        fraction = _across(stance, state[:2]) - _across(stance, middle)
        fraction /= -_across(stance, middle)
        assert plan.sway_at_lift_off(index) == pytest.approx(fraction, abs=1e-6)
        fractions.append(fraction)
    assert fractions[0] == pytest.approx(fractions[1], abs=5e-3)
    assert 0.0 < fractions[0] < 1.0
    left, right = Footstep("left", 0.0, 0.0, 0.0), Footstep("right", -0.3, 0.0, 0.0)      # in line: no side
    in_line = WalkPlan({"left": left, "right": right}, [Footstep("right", 0.3, 0.0, 0.0)], [0.0, 0.0, 0.68], OMEGA,
                       GAIT)
    with pytest.raises(ValueError, match="in line"):
        in_line.sway_at_lift_off(0)


def test_the_later_touch_downs_run_from_the_planned_one_to_latest_after_it_once():
    """:meth:`~StepAdjustment.later_touch_downs`: ``count`` evenly from the planned touch-down
    (or ``min_time`` from now, when later) to ``latest`` after it; none once the swing was
    re-timed (brought forward or delayed) or without ``latest``; ``for_robot`` allows a quick
    swing's time."""
    adjustment = StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4, latest=0.2, min_time=0.1)
    lift_off, duration = 1.0, 0.6
    planned = lift_off + duration
    np.testing.assert_allclose(adjustment.later_touch_downs(1.3, lift_off, planned, duration),
                               np.linspace(planned, planned + 0.2, 5))
    np.testing.assert_allclose(adjustment.later_touch_downs(1.55, lift_off, planned, duration, count=3),
                               [1.65, 1.725, 1.8])
    assert adjustment.latest_touch_down(lift_off, planned, duration) == pytest.approx(planned + 0.2)
    for retimed in (planned - 0.1, planned + 0.05):
        assert adjustment.later_touch_downs(1.3, lift_off, retimed, duration) == []
        assert adjustment.latest_touch_down(lift_off, retimed, duration) == retimed
    assert adjustment.later_touch_downs(1.75, lift_off, planned, duration) == []       # min_time past the latest
    never = StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4)
    assert never.later_touch_downs(1.3, lift_off, planned, duration) == []
    assert StepAdjustment.for_robot(0.68, 0.18, SOLE, GAIT, quick_swing=0.21).latest == 0.21
    assert StepAdjustment.for_robot(0.68, 0.18, SOLE, GAIT).latest == 0.0
    with pytest.raises(ValueError, match="latest"):
        StepAdjustment(forward=0.3, backward=0.2, min_width=0.1, max_width=0.4, latest=-0.1)
