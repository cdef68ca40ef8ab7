"""The double support re-timed from the measured capture point (:mod:`tsid_py.control.walking.liftoff`):
the holdable set and the least delay against the pendulum integrated by RK4 with the centre of
pressure searched on a grid, and against the closed form across the walk; the re-timed plan
against its definition (no simulator here: tests/test_walk.py runs the rule in MuJoCo)."""

import math

import numpy as np
import pytest

from tsid_py.control.capture_point import SupportPolygon, sole_outline
from tsid_py.control.walking import Footstep, WalkPlan, plan_footsteps
from tsid_py.control.walking.liftoff import LiftOffTiming, advance_lift_off, lift_now
from tsid_py.control.walking.plan import LIFT, UNLOAD
from tsid_py.models.gait import Gait

OMEGA, SOLE = 4.6, (0.15, 0.05)
GAIT = Gait(step_length=0.13, single_support=0.56, double_support=0.11, step_width=0.16, transition=0.05)
TIMING = LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0)
LIFTING, STANCE, LANDING = Footstep("right", 0.0, -0.08, 0.0), Footstep("left", 0.0, 0.08, 0.0), \
    Footstep("right", 0.13, -0.08, 0.0)


def _run(xi, zmp, duration: float, steps: int = 20) -> np.ndarray:
    """ξ̇ = ω (ξ − p) integrated by RK4 with ``zmp`` held (the pendulum's own dynamics);
    ``zmp`` (n, 2): n runs at once."""
    xi, h = np.broadcast_to(np.asarray(xi, dtype=float), np.shape(zmp)).copy(), duration / steps
    for _ in range(steps):
        k1 = OMEGA * (xi - zmp)
        k2 = OMEGA * (xi + 0.5 * h * k1 - zmp)
        k3 = OMEGA * (xi + 0.5 * h * k2 - zmp)
        k4 = OMEGA * (xi + h * k3 - zmp)
        xi = xi + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return xi


def _grid(step: Footstep, count: int = 9, inset: float = 0.0) -> np.ndarray:
    """Centres of pressure on a ``count × count`` grid over ``step``'s sole, ``inset`` m inside
    its edges."""
    half = np.array(SOLE) / 2 - inset
    local = np.array([[a, b] for a in np.linspace(-half[0], half[0], count) for b in np.linspace(-half[1], half[1], count)])
    c, s = math.cos(step.yaw), math.sin(step.yaw)
    return local @ np.array([[c, s], [-s, c]]) + step.xy


def _reaches(xi, holds: list[tuple[np.ndarray, float]], target: SupportPolygon) -> bool:
    """Whether some constant centre of pressure in each phase (``(grid, duration)``, in
    order) brings ``xi`` into ``target`` (every combination of the grids, RK4 through each
    phase)."""
    points = np.asarray(xi, dtype=float)[None, :]
    for grid, duration in holds:
        points = _run(np.repeat(points, len(grid), axis=0), np.tile(grid, (len(points), 1)), duration)
    return bool(np.any(np.all(points @ target.normals.T <= target.offsets + 1e-12, axis=1)))


def test_the_holdable_set_is_where_the_stance_sole_lands_the_capture_point_in_the_support():
    """``H``: from points well inside it a centre of pressure in the stance sole, held over the
    swing (RK4), brings the capture point into the soles' hull less the margin by touch-down;
    from points well outside none does."""
    holdable = TIMING.holdable(STANCE, LANDING, OMEGA, 0.3)
    target = SupportPolygon(np.vstack([sole_outline(*STANCE.xy, 0.0, SOLE), sole_outline(*LANDING.xy, 0.0, SOLE)]))
    target = target.shrunk(TIMING.margin)
    grid = _grid(STANCE)
    rng = np.random.default_rng(0)
    checked = {True: 0, False: 0}
    low, high = holdable.vertices.min(axis=0) - 0.03, holdable.vertices.max(axis=0) + 0.03
    for point in rng.uniform(low, high, size=(200, 2)):
        depth = holdable.outside_xy(*point)
        if abs(depth) < 4e-3:                             # the grid of centres of pressure is coarse
            continue
        inside = depth < 0
        assert _reaches(point, [(grid, 0.3)], target) == inside, point
        checked[inside] += 1
    assert min(checked.values()) > 20


def test_the_least_delay_across_the_walk_is_the_closed_form():
    """The capture point on the lifting foot's line, the feet side by side: the least delay
    holds the centre of pressure at that sole's outer edge ``p_o`` until the capture point
    reaches ``H``'s edge ``h``: ``s₂ + d = ln((h − p_o) / (ξ₀ − p_o)) / ω`` (checked to one
    ``period``; ``p_o`` the margin inside the edge, where the rule holds it); across the stance
    sole's outer edge, or beyond the lifting sole's, no delay helps (None); on the stance sole,
    none is needed (0)."""
    landing = Footstep("right", 0.0, -0.08, 0.0)                      # side by side: the lateral line alone
    single, double_left = 0.3, 0.02
    edge = TIMING.holdable(STANCE, landing, OMEGA, single).vertices[:, 1].min()
    outer = LIFTING.y - SOLE[1] / 2 + TIMING.margin
    for start in (-0.09, -0.07, -0.03, 0.0):
        delay = TIMING.delay([0.0, start], OMEGA, LIFTING, STANCE, landing, swing_left=0.0, double_left=double_left,
                             single=single, longest=2.0)
        exact = math.log((edge - outer) / (start - outer)) / OMEGA - double_left
        assert delay == pytest.approx(max(exact, 0.0), abs=TIMING.period), start
        assert delay > 0
    assert TIMING.delay([0.0, 0.09], OMEGA, LIFTING, STANCE, landing, swing_left=0.0, double_left=double_left,
                        single=single, longest=2.0) == 0.0
    for beyond in ([0.0, outer - 0.005], [0.0, STANCE.y + SOLE[1] / 2 + 0.01]):
        assert TIMING.delay(beyond, OMEGA, LIFTING, STANCE, landing, swing_left=0.0, double_left=double_left,
                            single=single, longest=2.0) is None
    assert TIMING.delay([0.0, -0.07], OMEGA, LIFTING, STANCE, landing, swing_left=0.0, double_left=double_left,
                        single=single, longest=0.05) is None               # not within ``longest``


def test_the_delay_from_the_swing_before_is_what_the_pendulum_reaches_through_both_phases():
    """During the swing before the lift-off (the lifting foot alone, then both soles), the
    delay found is one from which a centre of pressure held in each phase (grids, RK4) brings
    the capture point into ``H``, and one ``period`` less is not."""
    swing_left, double_left, single = 0.1, 0.06, 0.3
    holdable = TIMING.holdable(STANCE, LANDING, OMEGA, single)
    inset = TIMING.margin
    both = SupportPolygon(np.vstack([_grid(LIFTING, 2, inset), _grid(STANCE, 2, inset)]))
    wide = np.vstack([_grid(LIFTING, 5, inset), _grid(STANCE, 5, inset), both.vertices])
    for start in ([0.02, -0.085], [0.04, -0.07]):
        delay = TIMING.delay(start, OMEGA, LIFTING, STANCE, LANDING, swing_left=swing_left, double_left=double_left,
                             single=single, longest=2.0)
        assert delay is not None and delay > 0
        for extra, expected in ((delay + 0.02, True), (delay - TIMING.period - 0.02, False)):
            holds = [(_grid(LIFTING, 5, inset), swing_left), (wide, double_left + extra)]
            assert _reaches(start, holds, holdable.shrunk(1e-4) if expected else holdable) == expected, (start, extra)


def test_a_plan_is_not_re_timed_on_its_own_capture_point():
    """At every unloading of a planned walk the plan's own capture point needs no delay."""
    left, right = Footstep("left", 0.0, 0.08, 0.0), Footstep("right", 0.0, -0.08, 0.0)
    plan = WalkPlan({"left": left, "right": right}, plan_footsteps(left, right, [1.0, 0.0, 0.0], GAIT),
                    [0.0, 0.0, 0.46], OMEGA, GAIT)
    where = {"left": left, "right": right}
    for time, kind, foot, index in plan.events:
        if kind == LIFT:
            where[foot] = None
        if kind != UNLOAD or index == 0:
            if kind == "land":
                where[foot] = plan.footsteps[index]
            continue
        other = next(name for name in where if name != foot)
        swing = plan.swings[index]
        assert TIMING.delay(plan.dcm(time), OMEGA, where[foot], where[other], plan.footsteps[index], swing_left=0.0,
                            double_left=0.0, single=swing.duration + GAIT.transition, longest=1.0) == 0.0, index


def test_delay_lift_off_moves_the_lift_off_and_the_rest_of_the_walk_and_keeps_the_com_continuous():
    """The double support before the lift-off lasts ``delay`` s longer, the unloading comes the
    gait's transition before the new lift-off, every later event ``delay`` s later, the swing
    lasts as long, and the re-planned CoM starts at the measured state; a footstep that is
    not the next to lift is refused with the plan unchanged."""
    left, right = Footstep("left", 0.0, 0.08, 0.0), Footstep("right", 0.0, -0.08, 0.0)
    plan = WalkPlan({"left": left, "right": right}, plan_footsteps(left, right, [1.0, 0.0, 0.0], GAIT),
                    [0.0, 0.0, 0.46], OMEGA, GAIT)
    double = next(phase for phase in plan.phases if phase.kind == "double" and phase.step == 2)
    t, index, delay = double.start + 0.02, 3, 0.3
    events, phases = list(plan.events), list(plan.phases)
    with pytest.raises(ValueError, match="next to lift"):
        plan.delay_lift_off(t, index + 1, delay, [0.0, 0.0], [0.0, 0.0])
    assert plan.events == events and plan.phases == phases
    position, velocity, _ = plan.com(t)
    plan.delay_lift_off(t, index, delay, position[:2] + 0.01, velocity[:2])
    times = {(kind, step): time for time, kind, _, step in plan.events}
    before = {(kind, step): time for time, kind, _, step in events}
    assert times[(LIFT, index)] == pytest.approx(before[(LIFT, index)] + delay)
    assert times[(UNLOAD, index)] == pytest.approx(times[(LIFT, index)] - GAIT.transition)
    for key, time in before.items():
        if key[1] > index:
            assert times[key] == pytest.approx(time + delay)
        elif key[1] < index:
            assert times[key] == pytest.approx(time)
    swing = plan.swings[index]
    assert swing.duration == pytest.approx(GAIT.single_support)
    assert swing.lift_off == pytest.approx(times[(LIFT, index)])
    assert plan.com(t)[0][:2] == pytest.approx(position[:2] + 0.01)
    assert plan.duration == pytest.approx(phases[-1].end + delay)


@pytest.mark.parametrize("yaw", [0.0, 0.4])
def test_lift_now_is_the_capture_point_past_the_staying_soles_usable_outer_edge(yaw):
    """:func:`~.liftoff.lift_now` against the staying sole's outline: true exactly when the
    capture point is farther out than the outer edge's line (the side away from the lifting
    foot) less the margin, at any place along the sole and with the feet yawed; a capture
    point past the *lifting* sole, or between the feet, is not."""
    c, s = math.cos(yaw), math.sin(yaw)
    out = np.array([-s, c])                                       # across the staying (left) sole, outward
    staying = Footstep("left", 0.1, 0.05, yaw)
    lifting = Footstep("right", *(staying.xy - 0.16 * out), yaw)
    corners = sole_outline(staying.x, staying.y, staying.yaw, SOLE)
    edge = max(float(corner @ out) for corner in corners)         # the outer edge's line, from the outline
    margin = 0.25 * SOLE[1]
    along = np.array([c, s])
    for offset in np.linspace(-0.1, 0.1, 9):                       # along the sole, and past its ends
        for beyond in (-0.004, 0.004):
            point = staying.xy + (edge - margin + beyond - float(staying.xy @ out)) * out + offset * along
            assert lift_now(point, lifting.xy, staying.xy, yaw, SOLE, margin) == (beyond > 0)
    assert not lift_now(lifting.xy - 0.1 * out, lifting.xy, staying.xy, yaw, SOLE, margin)       # past the lifting sole
    assert not lift_now(0.5 * (lifting.xy + staying.xy), lifting.xy, staying.xy, yaw, SOLE, margin)


def test_advance_lift_off_unloads_now_and_brings_the_walk_forward():
    """Brought forward at ``t`` in the double support: the unloading at ``t``, the lift-off the
    transition later, the swing as long, every later event earlier by the same amount, the
    earlier ones unchanged, the CoM re-planned from the measured state; refused (the plan
    unchanged) in a swing, once the unloading has begun, or for a footstep not the next to
    lift; :func:`lift_now` asks it with the capture point pushed past the staying sole, not
    on its centre.
    And the point of it, by the pendulum (RK4): pushed past the staying sole's edge, the
    capture point at the planned lift-off is farther out by ``e^{ω Δ}`` of its distance from
    that edge than at the advanced one, ``Δ`` the time gained."""
    left, right = Footstep("left", 0.0, 0.08, 0.0), Footstep("right", 0.0, -0.08, 0.0)
    plan = WalkPlan({"left": left, "right": right}, plan_footsteps(left, right, [1.0, 0.0, 0.0], GAIT),
                    [0.0, 0.0, 0.46], OMEGA, GAIT)
    double = next(phase for phase in plan.phases if phase.kind == "double" and phase.step == 2)
    index, t = 3, double.start + 0.01
    staying, lifting = plan.footsteps[2], plan.footsteps[1]
    assert staying.foot != plan.footsteps[index].foot == lifting.foot
    margin = 0.25 * SOLE[1]
    side = math.copysign(1.0, staying.y - lifting.y)
    pushed = staying.xy + np.array([0.0, side * (0.5 * SOLE[1] + 0.01)])
    events, phases = list(plan.events), list(plan.phases)
    position, velocity, _ = plan.com(t)
    assert not lift_now(staying.xy, lifting.xy, staying.xy, staying.yaw, SOLE, margin)
    assert lift_now(pushed, lifting.xy, staying.xy, staying.yaw, SOLE, margin)
    swing = next(phase for phase in plan.phases if phase.kind == "single" and phase.step == 2)
    assert not advance_lift_off(plan, 0.5 * (swing.start + swing.end), index, position[:2], velocity[:2])
    late = next(time for time, kind, _, step in events if kind == UNLOAD and step == index) + 0.001
    assert not advance_lift_off(plan, late, index, position[:2], velocity[:2])
    assert not advance_lift_off(plan, t, index + 1, position[:2], velocity[:2])
    with pytest.raises(ValueError, match="unloading has begun"):
        plan.advance_lift_off(late, index, position[:2], velocity[:2])
    with pytest.raises(ValueError, match="step must index a footstep after the first"):
        plan.advance_lift_off(t, 0, position[:2], velocity[:2])
    assert plan.events == events and plan.phases == phases
    assert advance_lift_off(plan, t, index, position[:2] + 0.01, velocity[:2])
    times = {(kind, step): time for time, kind, _, step in plan.events}
    before = {(kind, step): time for time, kind, _, step in events}
    gained = before[(LIFT, index)] - times[(LIFT, index)]
    assert times[(UNLOAD, index)] == pytest.approx(t)
    assert times[(LIFT, index)] == pytest.approx(t + GAIT.transition)
    for key, time in before.items():
        assert times[key] == pytest.approx(time - gained if key[1] > index else time if key[1] < index else times[key])
    assert plan.swings[index].duration == pytest.approx(GAIT.single_support)
    assert plan.swings[index].lift_off == pytest.approx(times[(LIFT, index)])
    assert plan.com(t)[0][:2] == pytest.approx(position[:2] + 0.01)
    assert plan.duration == pytest.approx(phases[-1].end - gained)
    edge = staying.xy + np.array([0.0, side * 0.5 * SOLE[1]])
    at_lift = [_run(pushed, edge[None, :], (lift - t))[0] for lift in (times[(LIFT, index)], before[(LIFT, index)])]
    assert np.linalg.norm(at_lift[1] - edge) == pytest.approx(np.linalg.norm(at_lift[0] - edge) * math.exp(OMEGA * gained))


def test_no_lift_off_is_delayed_in_a_stance_wider_than_the_legs_carry_the_com_across():
    """The closed form's case above, which needs a delay, is refused (None) once the soles
    stand farther apart across the stance sole than ``carry_width``, and not at that width
    (measured across the stance sole's heading: the same with the feet turned together)."""
    landing = Footstep("right", 0.0, -0.08, 0.0)
    kwargs = dict(swing_left=0.0, double_left=0.02, single=0.3, longest=2.0)
    for yaw in (0.0, 0.7):
        c, s = math.cos(yaw), math.sin(yaw)
        lifting, stance, land = (Footstep(step.foot, c * step.x - s * step.y, s * step.x + c * step.y, yaw)
                                 for step in (LIFTING, STANCE, landing))
        dcm = np.array([-s * -0.07, c * -0.07])
        assert TIMING.delay(dcm, OMEGA, lifting, stance, land, **kwargs) > 0
        at_width = LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0, carry_width=0.16 + 1e-9)
        assert at_width.delay(dcm, OMEGA, lifting, stance, land, **kwargs) > 0
        narrower = LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0, carry_width=0.159)
        assert narrower.delay(dcm, OMEGA, lifting, stance, land, **kwargs) is None
    with pytest.raises(ValueError, match="carry_width"):
        LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0, carry_width=-0.1)


def test_an_anchor_is_turned_into_a_footstep_once_while_it_holds():
    """The checks' footstep of a contact's anchor is :func:`footstep_of`'s, kept while the
    anchor is (the same object), and made anew when the contact is anchored again."""
    import pinocchio as pin

    import tsid_py as tp
    from tsid_py.control.walking.angles import yaw_rotation
    from tsid_py.control.walking.stages import PlanStage
    from tsid_py.control.walking.standing import footstep_of

    class Stage:
        _anchored_footstep = PlanStage._anchored_footstep

        def __init__(self):
            self._anchored_steps = {}

    stage, contact = Stage(), tp.PlanarContact("left_sole", length=0.16, width=0.037)
    contact.anchor_at(pin.SE3(yaw_rotation(0.3), np.array([0.4, 0.1, 0.02])))
    first = stage._anchored_footstep(contact)
    assert first == footstep_of("left_sole", contact.anchor)
    assert stage._anchored_footstep(contact) is first
    contact.anchor_at(pin.SE3(yaw_rotation(-0.2), np.array([0.5, 0.12, 0.0])))      # anchored again
    again = stage._anchored_footstep(contact)
    assert again == footstep_of("left_sole", contact.anchor) and again != first
    assert again.yaw == pytest.approx(-0.2) and again.x == pytest.approx(0.5)


def test_a_legs_range_is_its_chain_and_it_leaves_it_where_its_velocity_carries_a_joint_out():
    """:class:`LegRange` of G1's left sole: the six 1-dof joints from the pelvis to that frame
    (pinocchio's ``supports`` less the free flyer), their indices in q and v and the model's
    limits. It leaves its range exactly when one joint, run on at its velocity for the
    horizon, is past a limit by more than ``RANGE_TOLERANCE`` (either side; horizon 0: the
    configuration itself; resting at its stop does not count); the other leg's joints do not
    count."""
    import pinocchio as pin

    import tsid_py as tp
    from tsid_py.control.walking.liftoff import RANGE_TOLERANCE, LegRange

    robot = tp.robots.load("g1")
    model = robot.model
    leg = LegRange.of(model, "left_sole")
    supports = model.supports[model.frames[model.getFrameId("left_sole")].parentJoint]
    chain = [joint for joint in supports if joint > 0 and model.joints[joint].nq == 1]      # not the free flyer
    assert len(chain) == 6 and all(model.names[joint].startswith("left_") for joint in chain)
    assert np.array_equal(leg.q_index, [robot.joint_q_index(model.names[joint]) for joint in chain])
    assert np.array_equal(leg.v_index, [robot.joint_v_index(model.names[joint]) for joint in chain])
    assert np.array_equal(leg.lower, model.lowerPositionLimit[leg.q_index])
    assert np.array_equal(leg.upper, model.upperPositionLimit[leg.q_index])

    q, v = pin.neutral(model), np.zeros(model.nv)
    assert not leg.leaves(q, v, 0.025)
    roll = robot.joint_q_index("left_ankle_roll_joint")
    roll_v = robot.joint_v_index("left_ankle_roll_joint")
    lower, upper = model.lowerPositionLimit[roll], model.upperPositionLimit[roll]
    q[roll], v[roll_v] = lower + 0.02, -1.0                   # 20 ms from its stop, 30 ms from past it
    assert not leg.leaves(q, v, 0.029) and leg.leaves(q, v, 0.031)
    v[roll_v] = 1.0                                          # moving away
    assert not leg.leaves(q, v, 0.4)
    v[roll_v] = 0.0                                          # resting at its stop, or just past it
    for at, out in ((lower, False), (lower - RANGE_TOLERANCE + 1e-6, False), (lower - RANGE_TOLERANCE - 1e-6, True)):
        q[roll] = at
        assert leg.leaves(q, v, 0.0) is out
    q[roll], v[roll_v] = upper - 0.01, 0.5
    assert leg.leaves(q, v, 0.041) and not leg.leaves(q, v, 0.039)
    other = pin.neutral(model)
    right = robot.joint_q_index("right_ankle_roll_joint")
    other[right] = model.lowerPositionLimit[right] - 0.1     # the right leg out: not the left's
    assert not leg.leaves(other, np.zeros(model.nv), 0.0)
    with pytest.raises(KeyError, match="no_such_foot"):
        LegRange.of(model, "no_such_foot")
    with pytest.raises(ValueError, match="q_index, v_index, lower and upper"):
        LegRange(np.array([7]), np.array([6, 7]), np.zeros(1), np.ones(1))


def test_the_range_horizon_is_half_the_gaits_transition_and_validated():
    """``for_walk`` brings a lift-off forward when its leg leaves its range within half the
    gait's ``transition``; a negative horizon is refused, naming it; None turns it off."""
    assert LiftOffTiming.for_walk(SOLE, GAIT).range_horizon == pytest.approx(0.5 * GAIT.transition)
    assert LiftOffTiming.for_walk(SOLE, GAIT, range_horizon=None).range_horizon is None
    assert LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0, range_horizon=0.0).range_horizon == 0.0
    with pytest.raises(ValueError, match="range_horizon"):
        LiftOffTiming(SOLE, margin=0.0125, max_delay=1.0, range_horizon=-0.01)
