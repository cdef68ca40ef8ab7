"""Two-step capture during a walk (:mod:`tsid_py.control.walking.sequence`): the re-timed
plan against its definition, the chosen landings against the pendulum's closed form (no
simulator here: tests/test_walk.py pushes G1 toward its stance foot in MuJoCo)."""

import math

import numpy as np
import pytest

from tsid_py.control.capture_point import SupportPolygon, sole_outline
from tsid_py.control.walking import Footstep, WalkPlan, plan_footsteps
from tsid_py.control.walking.adjustment import StepAdjustment
from tsid_py.control.walking.plan import LAND, LIFT, UNLOAD
from tsid_py.control.walking.sequence import StepSequence
from tsid_py.models.gait import Gait

GAIT = Gait(step_length=0.2, single_support=0.6, double_support=0.15, step_width=0.18, transition=0.05)


def _plan() -> WalkPlan:
    left, right = Footstep("left", 0.0, 0.09, 0.0), Footstep("right", 0.0, -0.09, 0.0)
    footsteps = plan_footsteps(left, right, [1.0, 0.0, 0.0], GAIT)
    return WalkPlan({"left": left, "right": right}, footsteps, [0.0, 0.0, 0.68], 3.8, GAIT)


def test_a_landing_brought_forward_and_a_quick_next_step_re_time_the_rest_of_the_walk():
    """``replan`` with ``touch_down`` and ``next_timing``: the swing under way lands early, the
    double support after it and the next swing last as asked, the next foot is unloaded the
    gait's transition before its new lift-off, and every later phase and event moves by the
    total change; a timing the next step cannot take is refused with the plan unchanged."""
    plan = _plan()
    single = next(phase for phase in plan.phases if phase.kind == "single" and phase.step == 2)
    t, index, early, double, quick = single.start + 0.1, single.step, 0.2, 0.05, 0.21
    before_phases, before_events = list(plan.phases), list(plan.events)
    with pytest.raises(ValueError, match="next_timing"):           # shorter than the force ramp
        plan.replan(t, index, plan.footsteps[index:], [0.0, 0.0], [0.0, 0.0], next_timing=[(0.01, quick)])
    assert plan.phases == before_phases and plan.events == before_events
    position, velocity, _ = plan.com(t)
    touch_down = single.end - early
    plan.replan(t, index, plan.footsteps[index:], position[:2], velocity[:2], touch_down,
                next_timing=[(double, quick)])
    position_of = {(phase.kind, phase.step): phase for phase in plan.phases}
    after, next_swing = position_of[("double", index)], position_of[("single", index + 1)]
    assert after.start == pytest.approx(touch_down) and after.end == pytest.approx(touch_down + double)
    assert next_swing.end - next_swing.start == pytest.approx(quick)
    old_next_end = next(p.end for p in before_phases if p.kind == "single" and p.step == index + 1)
    change = next_swing.end - old_next_end
    for old, new in zip(before_phases, plan.phases):
        if old.start >= old_next_end - 1e-9:
            assert (new.start, new.end) == pytest.approx((old.start + change, old.end + change))
    times = {(kind, step): time for time, kind, _, step in plan.events}
    assert times[(UNLOAD, index + 1)] == pytest.approx(next_swing.start - GAIT.transition)
    assert times[(LIFT, index + 1)] == pytest.approx(next_swing.start)
    assert times[(LAND, index + 1)] == pytest.approx(next_swing.end)
    assert times[(LIFT, index + 2)] == pytest.approx(
        next(time for time, kind, _, step in before_events if (kind, step) == (LIFT, index + 2)) + change)
    assert [time for time, *_ in plan.events] == sorted(time for time, *_ in plan.events)
    swing = plan.swings[index + 1]
    assert (swing.lift_off, swing.touch_down) == pytest.approx((next_swing.start, next_swing.end))
    assert plan.duration == pytest.approx(before_phases[-1].end + change)


def test_the_sequence_lands_beside_the_stance_foot_then_steps_out_where_the_pendulum_says():
    """A capture point past the stance sole's outer edge: the first landing is the narrowest
    stance beside the stance foot (its reach), at the earliest touch-down weighed; the second
    sole's centre is ``overshoot`` past ``ξ₂ = p₁ + (ξ(T₁) − p₁) e^{ω (double + single)}``,
    ``ξ(T₁) = p₀ + (ξ − p₀) e^{ω (T₁ − t)}``, ``p₀`` and ``p₁`` the points of the stance and
    first soles nearest the capture point; it catches it there (miss 0)."""
    omega, sole = 3.8, (0.16, 0.037)
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=sole)
    sequence = StepSequence(double=0.05, single=0.21, sole_size=sole, min_time=0.21)
    stance, lifted = Footstep("right", 0.8, -0.09, 0.0), Footstep("left", 0.6, 0.09, 0.0)
    first, second = Footstep("left", 1.0, 0.09, 0.0), Footstep("right", 1.2, -0.09, 0.0)
    dcm, t, planned = np.array([0.82, -0.115]), 4.0, 4.6
    choice = sequence.choose(adjustment, dcm, omega, t, planned, stance, lifted, first, second)
    assert choice.touch_down == pytest.approx(t + 0.21)
    assert choice.first.y == pytest.approx(stance.y + adjustment.min_width)

    def nearest(step, point):
        return SupportPolygon(sole_outline(step.x, step.y, step.yaw, sole)).clamp(point)

    p0 = nearest(stance, dcm)
    at_landing = p0 + (dcm - p0) * math.exp(omega * 0.21)
    assert choice.first.x == pytest.approx(at_landing[0])
    p1 = nearest(choice.first, at_landing)
    caught = p1 + (at_landing - p1) * math.exp(omega * (0.05 + 0.21))
    out = (caught - p1) / np.linalg.norm(caught - p1)
    np.testing.assert_allclose(choice.second.xy, caught + sequence.overshoot * out, atol=1e-9)
    assert choice.second.y < stance.y and choice.miss == 0.0
    assert choice.timing == ((0.05, 0.21),)


def _feasible_from(adjustment, position, velocity, acceleration):
    """Step adjustment's reach test of a swing foot in that state (the stage's ``feasible``)."""
    return lambda landing, duration: adjustment.feasible(position, velocity, acceleration, landing, duration)


def test_the_earliest_first_touch_down_is_the_first_the_swing_foot_can_reach_by_a_dense_scan():
    """:meth:`StepSequence.earliest`: the first landing reachable within step adjustment's
    acceleration bound from the swing foot's state, at the earliest touch-down — against a
    scan over touch-downs 1 ms apart (the landing recomputed at each); ``choose`` weighs
    touch-downs from there, and lands the first foot ``inner_width`` beside the stance foot."""
    omega, sole = 3.8, (0.16, 0.037)
    adjustment = StepAdjustment(forward=0.34, backward=0.24, min_width=0.135, max_width=0.48, sole_size=sole,
                                max_acceleration=44.0)
    sequence = StepSequence(double=0.05, single=0.26, sole_size=sole, inner_width=0.075)
    stance, lifted = Footstep("right", 0.8, -0.09, 0.0), Footstep("left", 0.6, 0.09, 0.0)
    first, second = Footstep("left", 1.0, 0.09, 0.0), Footstep("right", 1.2, -0.09, 0.0)
    dcm, t, planned = np.array([0.82, -0.115]), 4.0, 4.55
    feasible = _feasible_from(adjustment, [0.61, 0.09], [0.3, 0.0], [5.0, 0.0])
    earliest = sequence.earliest(adjustment, dcm, omega, t, planned, stance, lifted, first, feasible, iterations=12)
    scan = [moment for moment in np.arange(t + sequence.min_time, planned, 1e-3)
            if feasible(sequence._first_landing(sequence._near(adjustment), sequence._sole(stance), dcm, omega, t,
                                                moment, stance, lifted, first)[0].xy, moment - t)]
    assert t + sequence.min_time < earliest < planned
    assert earliest == pytest.approx(scan[0], abs=1.5e-3)
    choice = sequence.choose(adjustment, dcm, omega, t, planned, stance, lifted, first, second, feasible)
    assert choice.touch_down == pytest.approx(earliest, abs=(planned - t) / 2**8)     # its default bisection
    assert feasible(choice.first.xy, choice.touch_down - t)
    assert choice.first.y == pytest.approx(stance.y + 0.075)
    assert sequence.touch_downs(t, planned, earliest)[0] == pytest.approx(earliest)


def test_for_robot_times_the_quick_step_by_the_pendulum_and_the_legs():
    """The quick swing is ``1 / ω`` unless the legs need longer (at most the gait's single
    support); the second sole lands three quarters of a sole width past the predicted
    capture point (caught a quarter sole inside its inner edge)."""
    omega, sole = 3.8, (0.16, 0.037)
    sequence = StepSequence.for_robot(omega, GAIT, sole, narrowest=0.075)
    assert sequence.single == pytest.approx(1.0 / omega) and sequence.inner_width == 0.075
    assert sequence.overshoot == pytest.approx(0.75 * 0.037)
    assert StepSequence.for_robot(omega, GAIT, sole, quickest=0.4).single == pytest.approx(0.4)
    assert StepSequence.for_robot(omega, GAIT, sole, quickest=0.9).single == pytest.approx(GAIT.single_support)
    with pytest.raises(ValueError, match="inner_width"):
        StepSequence(double=0.05, single=0.2, sole_size=sole, inner_width=-0.1)


def test_the_resumption_swing_lasts_until_its_reaction_fits_a_quarter_of_the_sole():
    """The step after a two-step capture carries the inner foot across: its swing's reaction
    (``κ / (m g)`` of centre-of-pressure shift per m/s² of the foot) at the sampled quintic's
    peak acceleration is a quarter of the sole's width at the returned duration, when that is
    longer than the plan's; the plan's swing otherwise (and with no reaction)."""
    from tsid_py.control.walking.swing import quintic

    sole, reaction, travel = (0.16, 0.037), 0.0041, 0.35
    sequence = StepSequence.for_robot(3.8, GAIT, sole, reaction=reaction)
    duration = sequence.resumption(travel, GAIT.single_support)
    _, _, acceleration = quintic(0.0, 0.0, 0.0, travel, duration, np.linspace(0.0, duration, 20001))
    assert duration > GAIT.single_support
    assert reaction * np.max(np.abs(acceleration)) == pytest.approx(0.25 * sole[1], rel=1e-6)
    assert sequence.resumption(0.05, GAIT.single_support) == GAIT.single_support       # a short carry: as planned
    assert sequence.resumption(-0.2, GAIT.single_support) == GAIT.single_support       # not toward the landed foot
    assert StepSequence.for_robot(3.8, GAIT, sole).resumption(travel, 0.6) == 0.6      # no reaction given
    with pytest.raises(ValueError, match="reaction"):
        StepSequence.for_robot(3.8, GAIT, sole, reaction=-1.0)
    with pytest.raises(ValueError, match="travel"):
        sequence.resumption(float("nan"), GAIT.single_support)
    with pytest.raises(ValueError, match="planned"):
        sequence.resumption(travel, -0.6)
