r"""When the next foot may lift: the double support re-timed from the measured capture point
and the lifting leg's range.

A walk's plan lifts each foot on its clock. Pushed toward the foot about to lift, the capture
point can sit over that foot when its time comes (iCub pushed sideways at mid-swing, G1's
former failure, docs/walking.md): the foot lifts, the remaining stance sole cannot bring the
capture point back, and the swing has to land far out on a stance sole at its edge. On by
default (:class:`~.controller.WalkingController`'s ``lift_off_timing``), never in a stance
wider than the legs can carry the CoM across (:meth:`LiftOffTiming.delay`; docs/walking.md,
"Double support re-timed").

**Holdable at lift-off.** After the lift-off the stance sole ``S`` (its contact rectangle)
carries the robot for the swing's ``T`` s, and the capture point runs as
``ξ̇ = ω (ξ − p)``, ``p`` the centre of pressure in ``S``. Its solution is
``ξ_T = e^{ωT} ξ₀ − (e^{ωT} − 1) p̄``, ``p̄`` a weighted mean of ``p`` over the swing, so
``p̄`` is in ``S`` (convex) and every such ``p̄`` is reached by a constant ``p``. The swing,
landing as planned, catches the capture point when ``ξ_T`` is in ``K``, the hull of the
stance and landing soles shrunk by ``margin`` (step adjustment's trigger,
:mod:`.adjustment`); with ``reach``, of the stance sole and the landing sole anywhere in
step adjustment's reach (it moves the landing there). So the capture points from which the
foot may lift are exactly

.. math::

    H = (1 − ε)\, S \oplus ε\, K, \qquad ε = e^{−ωT}

(a Minkowski sum of convex polygons: the hull of the sums of their corners). The plan's own
capture point is in ``H`` at every lift-off (the plan holds its ZMP in ``S`` and lands its
capture point in ``K``; checked in the tests), so only a walk off its plan is re-timed
(on unpushed 3 m walks, with ``K`` the planned landing's: iCub one lift-off delayed 5 ms,
its tracking error 2 mm past ``H``; Romeo none).

**Delay.** Before the lift-off the capture point runs through phases of known supports: the
rest of the swing under way on the lifting foot's sole ``L`` alone (``s₁`` s; none in the
double support), the double support on the hull ``P`` of both soles until the unloading
(``s₂`` s), then ``H``. The same argument, phase by phase backward, gives the capture points
now from which *some* centre of pressure reaches ``H`` at the lift-off:

.. math::

    R(d) = (1 − δ₁)\, L \oplus δ₁ \big((1 − δ₂)\, P \oplus δ₂\, H\big), \qquad
    δ₁ = e^{−ω s₁}, \quad δ₂ = e^{−ω (s₂ + d)},

``d`` s the delay. A point is in a Minkowski combination of convex polygons when it is
under the combination of their support functions ``h(u) = max_v u·v`` along every edge
normal ``u`` of any of them: a test of a few dozen dot products
(:meth:`LiftOffTiming.delay`). The lift-off waits for the least ``d`` (a multiple of
``period``, at most ``max_delay`` in all for one lift-off) with the measured capture point
in ``R(d)`` — none when it is in ``R(0)``; when no ``d`` puts it there (the capture point
beyond the lifting sole, or across the stance sole's outer edge: step adjustment and the
two-step capture's cases) the foot lifts on the plan's clock. The walk is then re-timed
(:meth:`~.plan.WalkPlan.delay_lift_off`: the double support longer, every later phase
later, the CoM re-planned from the measured state) and checked again every ``period`` s
until the unloading. ``R(d)`` is what the best centre of pressure reaches: the delay is a
lower bound, which the checks that follow lengthen when the controller's centre of
pressure falls short of it. So that it asks no more than the controller gives, the centre
of pressure it counts on before the lift-off (in ``L`` and ``P``) is held ``margin`` inside
the soles: counted to their edges, it held G1 (3.7 cm soles) 0.59 s in a double support
with the capture point over the lifting sole's outer part, the capture point ran out, and a
walk that main survives fell.

**Advance** (on by default with the two-step capture, :class:`LiftOffRetiming`): the other
way round, a capture point pushed in the double support past the *staying* sole's outer edge
(across it, away from the foot about to lift) is outside everything the double support holds:
no centre of pressure in the two soles' hull brings it back, and waiting for the lift-off on
the plan's clock only lets it run, ``ξ − p ∝ e^{ωt}``. Only a step catches it, and only with
the two-step capture (the lifting foot would have to cross): that foot lands beside the
staying one, which steps out. Its second landing must reach ``ξ₂ = p₁ + (ξ − p₁) e^{ω (s₁ +
h + s₂)}`` (``p₁`` the first landing's nearest point, :mod:`.sequence`), so every ``Δ`` s the
lift-off waits multiplies the distance to reach by ``e^{ωΔ}``: 1.77 for G1's 0.15 s double
support. :func:`lift_now` asks it — past the staying sole's contact rectangle less ``margin``
(what the controller's centre of pressure holds, as above) — and the foot is unloaded at once
and lifts the gait's ``transition`` later. Measured on G1 pushed 100 N toward the foot that
had just landed (docs/walking.md, "Pushes around the touch-down"): on the clock, the two-step's
second landing was clamped at the legs' reach with the capture point on or past its centre.

**A leg at its range** (:class:`LegRange`, ``range_horizon``): in a double support the CoM
runs toward the staying sole on the plan's clock while the lifting sole is held flat, so the
lifting leg stretches and leans; in a wide or staggered stance (a landing step adjustment
moved out and forward) one of its joints can reach the end of its range before the
unloading. Then the foot's contact and the joint's position limit (braking it at its
``acceleration_limit``, :class:`~tsid_py.constraints.JointLimits`; the plant's stop) pin the
base's acceleration, the QP's forces follow it, and the contact forces jump in one control
period. Traced on G1 pushed 100 N toward −y at 0.9 of a step period: its left ankle roll
passed its stop (−0.26 rad) 20 ms before the unloading; the QP dropped that sole's force
from 87 N to 0 in one period (the unloading ramp then started from 0) and asked the staying
sole for half its normal force sideways and backward, which rocked it on its contact
points, and it slid 5 cm. So a lift-off also comes forward (as above, the CoM re-planned from
the measured state) when a joint of the lifting leg, run on at its velocity for
``range_horizon`` s, passes its range by more than :data:`RANGE_TOLERANCE`: the unloading
ramps the sole's force down while the leg still follows. Half the gait's ``transition`` by
default (:meth:`LiftOffTiming.for_walk`); not in a two-step capture's steps, as above.
Unpushed, no lift-off comes forward (G1's legs keep 0.16 rad of range at every unloading of a
3 m walk).

Units: m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import boolean, float64, intp, njit

from ..._numba import VECTOR
from ..._validation import positive_scalar
from ...models.legs import leg_joints
from ..capture_point import SupportPolygon, sole_outline
from .angles import yaw_of
from .footsteps import Footstep, Gait
from .plan import UNLOAD, WalkPlan


@dataclass(frozen=True)
class LiftOffTiming:
    """The lift-off re-timing rule (see the module): ``sole_size`` the soles' contact
    rectangle ``(length, width)`` m, ``margin`` (m) how far inside the hull of the stance and
    landing soles the capture point at touch-down is to be, ``max_delay`` (s) the most one
    lift-off is delayed in all, ``period`` (s) the least delay (the next check), ``reach``
    step adjustment's box (None: the landing as planned), ``carry_width`` (m; None: any) the
    widest stance a lift-off is delayed in (see :meth:`delay`), ``range_horizon`` (s; None:
    never) how far ahead a joint of the lifting leg leaving its range brings the lift-off
    forward (see the module, "A leg at its range")."""

    sole_size: tuple[float, float]
    margin: float
    max_delay: float
    period: float = 0.005
    reach: tuple[float, float, float, float] | None = None
    carry_width: float | None = None
    range_horizon: float | None = None

    def __post_init__(self):
        size = tuple(positive_scalar(value, "sole_size") for value in self.sole_size)
        if len(size) != 2:
            raise ValueError(f"sole_size must be (length, width), got {self.sole_size!r}")
        object.__setattr__(self, "sole_size", size)
        object.__setattr__(self, "margin", positive_scalar(self.margin, "margin", allow_zero=True))
        object.__setattr__(self, "max_delay", positive_scalar(self.max_delay, "max_delay", allow_zero=True))
        object.__setattr__(self, "period", positive_scalar(self.period, "period"))
        if self.reach is not None:
            reach = tuple(positive_scalar(value, "reach") for value in self.reach)
            if len(reach) != 4 or reach[3] <= reach[2]:
                raise ValueError(f"reach must be (forward, backward, min_width, max_width) m with max_width > "
                                 f"min_width, got {self.reach!r}")
            object.__setattr__(self, "reach", reach)
        if self.carry_width is not None:
            object.__setattr__(self, "carry_width", positive_scalar(self.carry_width, "carry_width"))
        if self.range_horizon is not None:
            object.__setattr__(self, "range_horizon",
                               positive_scalar(self.range_horizon, "range_horizon", allow_zero=True))

    @classmethod
    def for_walk(cls, sole_size, gait: Gait, reach=None, carry_width: float | None = None,
                 **options) -> LiftOffTiming:
        """The rule for soles of contact rectangle ``sole_size`` and the walk's ``gait``: the
        margin step adjustment's (a quarter of the sole's width), one lift-off delayed by at
        most one step period of the gait (double and single support), one brought forward
        when its leg leaves its range within half the gait's ``transition``; ``reach`` step
        adjustment's box (None: the landing as planned); ``carry_width`` the legs'
        (:func:`tsid_py.models.reach.carry_width`; None: any stance)."""
        defaults = {"sole_size": tuple(sole_size), "margin": 0.25 * float(sole_size[1]),
                    "max_delay": gait.step_period, "reach": reach, "carry_width": carry_width,
                    "range_horizon": 0.5 * gait.transition}
        return cls(**{**defaults, **options})

    def _sole(self, step: Footstep) -> np.ndarray:
        return _outline(step, self.sole_size)

    def holdable(self, stance: Footstep, landing: Footstep, omega: float, single: float) -> SupportPolygon:
        """``H`` (see the module): the capture points from which the ``stance`` sole, over a
        swing of ``single`` s landing at ``landing``, brings the capture point into the two
        soles' hull less ``margin`` by touch-down."""
        fraction = math.exp(-positive_scalar(omega, "omega") * positive_scalar(single, "single"))
        stance_sole = self._sole(stance)
        target = self._target(stance, landing).vertices
        sums = ((1.0 - fraction) * stance_sole)[:, None, :] + (fraction * target)[None, :, :]
        return SupportPolygon(sums.reshape(-1, 2))

    def _target(self, stance: Footstep, landing: Footstep) -> SupportPolygon:
        return _target(stance, landing, self.sole_size, self.margin, self.reach)

    def plan_delay(self, plan: WalkPlan, index: int, t: float, dcm, lifting: Footstep, standing: Footstep | None,
                   longest: float) -> float | None:
        """:meth:`delay` of ``plan``'s footstep ``index``, the next to lift, at plan time ``t``:
        its foot standing at ``lifting``, the other at ``standing`` (None while it swings:
        then its planned landing, the swing's rest on the lifting sole alone), the swing after
        the lift-off as planned, its unloading the gait's ``transition`` before it (counted in
        the single support: the lifting sole gives its load up then)."""
        swing, transition = plan.swings[index], plan.gait.transition
        swing_left = 0.0
        if standing is None:
            standing, swing_left = plan.footsteps[index - 1], max(plan.swings[index - 1].touch_down - t, 0.0)
        return self.delay(dcm, plan.omega, lifting, standing, plan.footsteps[index], swing_left=swing_left,
                          double_left=swing.lift_off - transition - t - swing_left, single=swing.duration + transition,
                          longest=longest)

    def delay(self, dcm, omega: float, lifting: Footstep, stance: Footstep, landing: Footstep, *, swing_left: float,
              double_left: float, single: float, longest: float) -> float | None:
        """How long (s) the lift-off of the foot standing at ``lifting`` is to wait, the capture
        point ``dcm`` (x, y) measured now: 0 when it can be holdable at the planned lift-off,
        else the least multiple of ``period`` up to ``longest`` after which it can, None when
        it cannot (see the module). The phases ahead: ``swing_left`` s of the swing under way
        on the ``lifting`` sole alone (0 in the double support), then ``double_left`` s on
        both it and ``stance``, then the ``stance`` sole alone for ``single`` s while the foot
        swings to ``landing``. Reachable backward in time, a Minkowski combination of the
        soles (``δ = e^{−ω·duration}`` of each phase): ``(1 − δ₁) L ⊕ δ₁ ((1 − δ₂) P ⊕ δ₂ H)``,
        ``L`` the lifting sole, ``P`` the two soles' hull; ``dcm`` is in it when it is under
        its support function along every edge normal of ``L``, ``P``, ``S`` and ``K``.

        None, too, when the soles stand wider apart across the ``stance`` sole than
        ``carry_width``: the legs cannot carry the CoM onto the stance sole there with the
        lifting sole flat, so holding the double support asks what they cannot give (G1 pushed
        100 N toward its swing foot at a lift-off, its landing moved 0.25 m out: held in a
        0.43 m stance both ankle rolls reached their stops and a sole tipped; on the plan's
        clock it walked on, docs/walking.md)."""
        if self.carry_width is not None and abs(stance.across(lifting.x, lifting.y)) > self.carry_width:
            return None
        rows = _supports(self.sole_size, self.margin, self.reach, lifting, stance, landing)
        first = math.exp(-omega * max(swing_left, 0.0))
        last = math.exp(-omega * single)

        def weights(second):                             # of L, P, S, K in R(d): δ₂ = second
            return ((1.0 - first), first * (1.0 - second), first * second * (1.0 - last), first * second * last)

        x, y = float(dcm[0]), float(dcm[1])
        if float((rows @ np.array([x, y, *weights(math.exp(-omega * max(double_left, 0.0)))])).max()) <= 1e-12:
            return 0.0                                   # no delay: the loop's usual case, one product
        delays = self.period * np.arange(1, int(max(longest, 0.0) / self.period + 1e-9) + 1)
        second = np.exp(-omega * (max(double_left, 0.0) + delays))
        columns = np.vstack(np.broadcast_arrays(x, y, *weights(second)))
        inside = np.all(rows @ columns <= 1e-12, axis=0)
        return float(delays[np.argmax(inside)]) if inside.any() else None


def _outline(step: Footstep, size) -> np.ndarray:
    """The corners (4, 2) of ``step``'s sole rectangle ``size``."""
    return sole_outline(step.x, step.y, step.yaw, size)


def _target(stance: Footstep, landing: Footstep, size, margin: float, reach) -> SupportPolygon:
    """``K``: the hull of the ``stance`` and ``landing`` soles (rectangles ``size``) less
    ``margin``; with ``reach`` (step adjustment's box, in the stance sole's frame on the
    landing's side: along ``[−backward, forward]``, across ``[min_width, max_width]``), of the
    stance sole and the landing sole anywhere in that box (step adjustment moves the landing
    there)."""
    if reach is None:
        return SupportPolygon(np.vstack([_outline(stance, size), _outline(landing, size)])).shrunk(margin)
    forward, backward, narrowest, widest = reach
    c, s = math.cos(stance.yaw), math.sin(stance.yaw)
    side = 1.0 if -s * (landing.x - stance.x) + c * (landing.y - stance.y) >= 0.0 else -1.0
    soles = [_outline(stance, size)]
    for along in (-backward, forward):
        for across in (narrowest, widest):
            x = stance.x + c * along - s * side * across
            y = stance.y + s * along + c * side * across
            soles.append(sole_outline(x, y, landing.yaw, size))
    return SupportPolygon(np.vstack(soles)).shrunk(margin)


@lru_cache(maxsize=8)
def _supports(sole_size, margin: float, reach, lifting: Footstep, stance: Footstep, landing: Footstep) -> np.ndarray:
    """``[u, −h_L(u), −h_P(u), −h_S(u), −h_K(u)]`` (k, 6) for the edge normals ``u`` of the
    soles ``L``, ``P``, ``S`` and ``K`` of :meth:`LiftOffTiming.delay` (``h`` a polygon's
    support function): a point ``ξ`` is in ``Σ w_i X_i`` when every row times
    ``(ξ, w)`` is ≤ 0. They change only when a footstep does (a re-plan): the checks every
    ``period`` s reuse them."""
    stance_sole = _outline(stance, sole_size)
    lifting = SupportPolygon(_outline(lifting, sole_size)).shrunk(margin)    # held a margin inside, as asked of
    both = SupportPolygon(np.vstack([lifting.vertices, SupportPolygon(stance_sole).shrunk(margin).vertices]))
    target = _target(stance, landing, sole_size, margin, reach)
    normals = np.vstack([both.normals, target.normals, SupportPolygon(stance_sole).normals, lifting.normals])
    reach = [(corners @ normals.T).max(axis=0) for corners in (lifting.vertices, both.vertices, stance_sole,
                                                               target.vertices)]
    return np.column_stack([normals, *(-value for value in reach)])


def lift_now(dcm, lifting, staying, staying_yaw: float, sole_size, margin: float) -> bool:
    """Whether the capture point ``dcm`` (x, y) m lies past the outer edge of the sole standing
    at ``staying`` (x, y) m, heading ``staying_yaw`` rad — across that sole (its contact
    rectangle ``sole_size``, less ``margin``), on the side away from the foot at ``lifting``
    (x, y) m — so that the double support can no longer bring it back and that foot is to
    lift at once (see the module, "Advance"). Plain floats (on the loop's path in every
    double support)."""
    c, s = math.cos(staying_yaw), math.sin(staying_yaw)
    sx, sy = float(staying[0]), float(staying[1])
    side = 1.0 if -s * (float(lifting[0]) - sx) + c * (float(lifting[1]) - sy) >= 0.0 else -1.0
    across = -s * (float(dcm[0]) - sx) + c * (float(dcm[1]) - sy)
    return -side * across > 0.5 * float(sole_size[1]) - margin


#: How far past its range (rad) a leg's joint is to run for the leg to leave it
#: (:meth:`LegRange.leaves`): a joint resting at its stop does not count, nor the noise of a
#: velocity estimate there (Simple Humanoid walks on straight knees, each at its stop with
#: 1e-3 rad/s of velocity: counted, every lift-off of its walk came forward and it walked 8 of
#: its 13 cm).
RANGE_TOLERANCE = 0.01


@dataclass(frozen=True, eq=False)
class LegRange:
    """The 1-dof joints of the leg ending at a foot frame (the chain of
    :func:`~tsid_py.models.legs.leg_joints`): their indices in ``q`` and ``v`` and their
    position ranges (rad, or m for a prismatic joint)."""

    q_index: np.ndarray
    v_index: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def __post_init__(self):
        for name in ("q_index", "v_index"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.intp))
        for name in ("lower", "upper"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=float))
        if not self.q_index.shape == self.v_index.shape == self.lower.shape == self.upper.shape:
            raise ValueError(f"q_index, v_index, lower and upper must have one entry a joint, got shapes "
                             f"{self.q_index.shape}, {self.v_index.shape}, {self.lower.shape}, {self.upper.shape}")
        object.__setattr__(self, "_outside", (self.lower - RANGE_TOLERANCE, self.upper + RANGE_TOLERANCE))

    @classmethod
    def of(cls, model, foot: str) -> LegRange:
        """The leg of ``model`` (pinocchio) ending at frame ``foot`` (``KeyError`` if none)."""
        joints = leg_joints(model, foot)
        q_index = np.array([model.joints[joint].idx_q for joint in joints], dtype=np.intp)
        v_index = np.array([model.joints[joint].idx_v for joint in joints], dtype=np.intp)
        return cls(q_index, v_index, model.lowerPositionLimit[q_index], model.upperPositionLimit[q_index])

    def leaves(self, q: np.ndarray, v: np.ndarray, horizon: float) -> bool:
        """Whether a joint of the leg is past its range by more than :data:`RANGE_TOLERANCE`
        at ``q + horizon·v`` (``q`` and ``v`` the whole model's configuration and velocity,
        float64 arrays; ``horizon`` s). One compiled call: 0.4 µs on G1's leg, 7 µs in numpy."""
        below, above = self._outside
        return past_range(q, v, self.q_index, self.v_index, below, above, float(horizon))


@njit(boolean(VECTOR, VECTOR, intp[:], intp[:], VECTOR, VECTOR, float64), cache=True, _nrt=False)
def past_range(q, v, q_index, v_index, below, above, horizon):
    """Whether ``q[q_index[k]] + horizon·v[v_index[k]]`` is under ``below[k]`` or over
    ``above[k]`` for some ``k`` (:meth:`LegRange.leaves`)."""
    for k in range(q_index.size):
        ahead = q[q_index[k]] + horizon * v[v_index[k]]
        if ahead < below[k] or ahead > above[k]:
            return True
    return False


def advance_lift_off(plan: WalkPlan, t: float, index: int, com, com_velocity) -> bool:
    """In the double support before footstep ``index``'s lift-off (plan time ``t``; asked
    when :func:`lift_now` says so or its leg leaves its range, :class:`LegRange`), unload its
    foot now and lift it the gait's ``transition`` later
    (:meth:`~.plan.WalkPlan.advance_lift_off`: the double support shortened to end then, the
    swing and every later phase that much earlier, the CoM re-planned from ``com``,
    ``com_velocity`` (2,), the footsteps unchanged). Whether it did (not once the unloading
    has begun, nor outside that double support)."""
    try:
        plan.advance_lift_off(t, index, com, com_velocity)
    except ValueError:
        return False
    return True


class LiftOffRetiming:
    """The plan stage's lift-off re-timing (:class:`~.stages.PlanStage` mixes it in): the delay
    of :class:`LiftOffTiming` (``liftoff``, None when off) and the advance of
    :func:`advance_lift_off`. It reads the stage's ``plan``, ``solver``, ``com``,
    ``adjustment``, ``sequence``, ``swinging``, ``_footholds``, ``_event``, ``_sequenced``,
    calls its ``_anchored_footstep`` and keeps ``delayed_lift_offs``, ``_delayed``,
    ``_next_lift_check`` and ``_leg_ranges`` (a :class:`LegRange` by foot, made on first use)."""

    def _lift_off_delayed(self, t: float, index: int) -> bool:
        """Whether footstep ``index``'s lift-off, the next, waits at plan time ``t``
        (:meth:`~.liftoff.LiftOffTiming.plan_delay`, within what is left of ``max_delay``);
        then the walk is re-timed (:meth:`~.plan.WalkPlan.delay_lift_off`). A two-step
        capture keeps its timing: its quick step, and the step after it, which resumes the walk
        from the wide stance at once (held there, G1's CoM sank: docs/walking.md)."""
        plan, robot, foot = self.plan, self.solver.robot, self.plan.footsteps[index].foot
        lifting = self.solver.contacts.get(foot)
        other = self.solver.contacts.get(next(name for name in self._footholds if name != foot))
        if (lifting is None or self.swinging == foot or (other is None) != (self.swinging is not None)
                or self._sequenced is not None and index <= self._sequenced + 2):
            return False
        so_far = self._delayed[1] if self._delayed[0] == index else 0.0
        delay = self.liftoff.plan_delay(plan, index, t, self.com.dcm_xy, self._anchored_footstep(lifting),
                                        None if other is None else self._anchored_footstep(other),
                                        self.liftoff.max_delay - so_far)
        if not delay:
            return False
        try:
            plan.delay_lift_off(t, index, delay, robot.com[:2], robot.com_velocity[:2])
        except ValueError:
            return False
        self.delayed_lift_offs += self._delayed[0] != index
        self._delayed = (index, so_far + delay)
        return True

    def _upcoming_unload(self):
        """``(time, foot, index)`` of the plan's next unloading, or None."""
        return next(((time, foot, index) for time, kind, foot, index in self.plan.events[self._event:]
                     if kind == UNLOAD), None)

    def _advance_lift_off(self, t: float) -> bool:
        """The next lift-off brought forward to now (:func:`advance_lift_off`), in the double
        support before it, when its leg leaves its range (:meth:`_leg_leaves_range`; with
        ``liftoff``) or the capture point has gone past the staying sole (:func:`lift_now`;
        with the two-step capture); not in a two-step capture's steps (their timing is the
        sequence's: its resumption's swing is timed by that leg's reaction)."""
        upcoming, contacts = self._upcoming_unload(), self.solver.contacts
        if upcoming is None or upcoming[0] <= t or self._sequenced is not None and upcoming[2] <= self._sequenced + 2:
            return False
        _, foot, index = upcoming
        other = next(name for name in self._footholds if name != foot)
        if foot not in contacts or other not in contacts:
            return False
        if not (self._leg_leaves_range(foot) or self._past_staying_sole(contacts[foot], contacts[other])):
            return False
        robot = self.solver.robot
        return advance_lift_off(self.plan, t, index, robot.com[:2], robot.com_velocity[:2])

    def _leg_leaves_range(self, foot: str) -> bool:
        """Whether a joint of ``foot``'s leg leaves its range within the rule's
        ``range_horizon`` (:meth:`LegRange.leaves`, at the controller's state)."""
        horizon = None if self.liftoff is None else self.liftoff.range_horizon
        if horizon is None:
            return False
        robot = self.solver.robot
        leg = self._leg_ranges.get(foot)
        if leg is None:
            leg = self._leg_ranges[foot] = LegRange.of(robot.model, foot)
        return leg.leaves(robot.q, robot.v, horizon)

    def _past_staying_sole(self, lifting, staying) -> bool:
        """:func:`lift_now` for the ``lifting`` and ``staying`` contacts, with the two-step
        capture."""
        if self.sequence is None:
            return False
        adjustment = self.adjustment
        # its heading: the sole's x axis seen from above (every step: yaw_of_sole's untilting costs 8 µs)
        return lift_now(self.com.dcm_xy, lifting.anchor_translation, staying.anchor_translation,
                        yaw_of(staying.anchor_rotation), adjustment.sole_size, adjustment.margin)

    def _check_lift_off(self, t: float) -> None:
        """Every ``period`` s until the next unloading: :meth:`_lift_off_delayed` for the
        footstep it lifts."""
        self._next_lift_check = t + self.liftoff.period
        if (upcoming := self._upcoming_unload()) is not None:
            self._lift_off_delayed(t, upcoming[2])

