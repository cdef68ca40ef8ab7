r"""Two-step capture during a walk: when no single landing of the swing under way can catch
the capture point, land it early and step at once with the other foot.

**When.** Step adjustment (:mod:`.adjustment`) moves the landing of the swing under way. A
capture point pushed past the stance sole's *outer* edge — toward the stance foot — is out
of that landing's reach: the swing foot is on the other side and would have to cross the
legs. Then the next step, by the foot now in stance, has to catch it, and the plan's timing
(a whole double support, then a whole swing) lets the capture point run away meanwhile
(G1 pushed 100 N sideways at a lift-off: 16 cm outside the new stance sole when the other foot
lifts, the landing 0.48 m away at the legs' reach and still short). This stage is tried only
when the one-step adjustment's best landing still misses (its reach clamps part of the move
off), and kept only when it is predicted to miss by less.

**The sequence.** With ``ω = √(g / z)`` and the centre of pressure ``p`` held where it best
slows the capture point — the point of the standing sole nearest it — the capture point
runs as ``ξ(t + τ) = p + (ξ(t) − p) e^{ωτ}``. For each touch-down ``T₁`` weighed (``count``
from the earliest the swing foot can reach its landing — :meth:`StepSequence.earliest`, step
adjustment's acceleration bound on the re-planned quintic, and at least ``min_time`` s from
now — to the planned one):

1. the swing foot lands at ``T₁`` where the predicted ``ξ(T₁)`` is, within its reach from the
   stance sole (:meth:`.adjustment.StepAdjustment.landing`: on its own side, at least
   ``inner_width`` apart — the narrowest stance the legs clear): the hand-over's pivot as near
   the capture point as the legs allow;
2. a double support of ``double`` s (the gait's force ramp: long enough to hand the load over)
   and a quick swing of ``single`` s of the other foot, during which the capture point runs
   from the landed sole's nearest point: ``ξ₂ = p₁ + (ξ(T₁) − p₁) e^{ω (double + single)}``;
3. that foot lands ``overshoot`` past ``ξ₂`` (away from ``p₁``), within its reach from the
   landed foot (:meth:`StepSequence.second_landing`).

The touch-down kept is the one whose second landing leaves ``ξ₂`` least far outside its sole
(in whole cm), of those the one whose second step is shortest (the capture point has run
least: in practice the earliest). The walk is re-planned over the two landings (the later
footsteps moved with the second, so that the walk goes on parallel to its plan) with the first
touch-down brought forward and the next step re-timed (:meth:`~.plan.WalkPlan.replan`'s
``next_timing``).

**Re-aimed.** A push is still on when its capture point leaves the support: the choice made
then sees only part of it. Until ``min_time`` before the first touch-down the sequence is
chosen again from the measured capture point at each check (the touch-down never later than
the one chosen), and through the quick swing its landing is re-aimed (step 3 from the
measured capture point and the time left) while the foot can still get there.

**Timing** (:meth:`StepSequence.for_robot`): the quick swing lasts one time constant ``1 / ω``
of the pendulum (0.26 s on G1), longer when the legs' joint velocity or torque limits
(:func:`tsid_py.models.swing_time.quickest_swing`: Talos's hip velocity limits, 0.30 s) or
step adjustment's acceleration bound across the step (G1 0.23 s) need it. Measured on G1
(100 N toward the stance foot at a lift-off, MuJoCo): quick swings of 0.21–0.22 s (48–52 m/s²
peak) tipped or slid the narrow stance sole they swing from — their reaction, the leg's
lateral angular momentum about the CoM, is more than a 3.7 cm sole takes through its centre
of pressure — 0.235–0.264 s stood, 0.30 s fell short (the pendulum's bound 97 N). The rule
sits in that window by measurement; a model of what the sole bears is not built.

**The step that resumes the walk** carries the inner foot (the first landing) across toward
the second one, 0.3–0.4 m on G1 after a wide capture. A foot accelerated at ``a`` drives the
CoM the way it moves by ``κ a / (m z)`` (the leg's angular momentum about the CoM,
:func:`tsid_py.models.swing_time.swing_reaction`): toward the stance foot, that is outward,
past the stance sole's outer edge unless its centre of pressure takes it, ``κ a / (m g)``
of shift. The resumption's swing (:meth:`StepSequence.resumption`) lasts the plan's, or longer
until that shift at the quintic's peak acceleration is a quarter of the sole's width (step
adjustment's ``margin``; the rest of the sole is the capture point's): G1 0.88 s across 0.3 m
instead of the plan's 0.6 s, Talos (3.2 times G1's sole width for 1.25 times its ``κ / (m g)``)
as planned up to 0.35 m. Measured on G1 (+y 100 N at the touch-down, MuJoCo): planned for
0.6 s and brought down after 0.3 s by step adjustment, the swing drove the capture point 6 cm
past the stance sole's outer edge, a second two-step capture followed, then a fall; planned for
0.88 s, step adjustment still brings it down early (0.38 s), but the capture point stays
between the feet, 6–8 cm inside the stance sole's centre, and the walk goes on: the plan's
budget is not what the flown swing meets (docs/walking.md, "The step that resumes the walk").

Units: m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..._validation import positive_scalar
from ...models.swing_time import QUINTIC_ACCELERATION
from ..capture_point import SupportPolygon, sole_outline
from .adjustment import StepAdjustment
from .footsteps import Footstep, Gait


def crosses(stance: Footstep, lifted: Footstep, missed) -> bool:
    """Whether the part ``missed`` (2,) m of a landing's move that its reach clamped off points
    across the ``stance`` sole, away from the side the swing foot lifted from (``lifted``):
    the swing foot would have to cross the legs, the stance foot is the one to catch the
    capture point."""
    across = np.array([-math.sin(stance.yaw), math.cos(stance.yaw)])
    side = float(across @ (lifted.xy - stance.xy))
    return side * float(across @ np.asarray(missed, dtype=float)) < 0.0


@dataclass(frozen=True)
class Sequence:
    """A chosen two-step capture: the swing under way lands at ``first`` at ``touch_down``
    (s, plan time), the other foot at ``second``; ``timing`` the ``(double support, swing)``
    s of the steps after the first (the quick step: :meth:`~.plan.WalkPlan.replan`'s
    ``next_timing``); ``miss`` (m) how
    far the predicted capture point then lies outside the second sole (0 inside)."""

    touch_down: float
    first: Footstep
    second: Footstep
    timing: tuple[tuple[float, float], ...]
    miss: float


@dataclass
class StepSequence:
    """Two-step capture (see the module): ``double`` the hand-over's double support (s),
    ``single`` the quick swing of the other foot (s), ``overshoot`` (m) how far past the
    predicted capture point the second sole's centre lands, ``min_time`` (s) the least time
    to the first touch-down, ``count`` the touch-downs weighed, ``sole_size`` the contact
    rectangle ``(length, width)`` m, ``inner_width`` (m; None: step adjustment's
    ``min_width``) the least centre distance of the first landing beside the stance foot,
    ``reaction`` (s², ``κ / (m g)``; 0: none) the centre-of-pressure shift a swing foot's
    lateral acceleration asks of the stance sole, per m/s² (:meth:`resumption`)."""

    double: float
    single: float
    sole_size: tuple[float, float]
    overshoot: float = 0.01
    min_time: float = 0.1
    count: int = 5
    inner_width: float | None = None
    reaction: float = 0.0

    def __post_init__(self):
        self.double = positive_scalar(self.double, "double")
        self.single = positive_scalar(self.single, "single")
        self.sole_size = tuple(positive_scalar(value, "sole_size") for value in self.sole_size)
        if len(self.sole_size) != 2:
            raise ValueError(f"sole_size must be (length, width), got {self.sole_size!r}")
        self.overshoot = positive_scalar(self.overshoot, "overshoot", allow_zero=True)
        self.min_time = positive_scalar(self.min_time, "min_time")
        if int(self.count) != self.count or self.count < 1:
            raise ValueError(f"count must be a positive integer, got {self.count!r}")
        if self.inner_width is not None:
            self.inner_width = positive_scalar(self.inner_width, "inner_width")
        self.reaction = positive_scalar(self.reaction, "reaction", allow_zero=True)

    def resumption(self, travel: float, planned: float) -> float:
        """The swing (s) of the step that resumes the walk after a two-step capture, the inner
        foot carried ``travel`` m across toward the landed one: the plan's ``planned`` swing,
        or longer, until its reaction asks of the stance sole at most a quarter of the sole's
        width of centre-of-pressure shift (``reaction · (10/√3) travel / T² ≤ width / 4``,
        ``reaction = κ / (m g)``, :func:`tsid_py.models.swing_time.swing_reaction`)."""
        planned, quarter = positive_scalar(planned, "planned"), 0.25 * self.sole_size[-1]
        travel = float(travel)
        if not math.isfinite(travel):
            raise ValueError(f"travel must be finite, got {travel!r}")
        return max(planned, math.sqrt(QUINTIC_ACCELERATION * self.reaction * max(travel, 0.0) / quarter))

    @staticmethod
    def reaim_swing(omega: float, gait: Gait) -> float:
        """The quickest swing step adjustment re-plans a landing for (s): ``0.8 / ω``, at most
        the gait's single support (:meth:`.adjustment.StepAdjustment.for_robot`'s
        ``quick_swing``)."""
        return min(gait.single_support, 0.8 / positive_scalar(omega, "omega"))

    @classmethod
    def for_robot(cls, omega: float, gait: Gait, sole_size, *, quickest: float = 0.0,
                  narrowest: float | None = None, **options) -> StepSequence:
        """The hand-over the gait's force ramp (``transition``); the quick swing one time
        constant ``1 / ω`` of the pendulum, or ``quickest`` (s, the least duration the legs'
        joint limits, :func:`tsid_py.models.swing_time.quickest_swing`, and step adjustment's
        acceleration bound allow across the step) when longer, at most the gait's single
        support (G1 0.26 s, Talos 0.30 s); the first
        touch-down at least 0.1 s from now and as early as the swing foot can get there
        (:meth:`choose`'s ``feasible``); the first landing ``narrowest`` (m) beside the
        stance foot; the second sole's centre three quarters of the sole's width past the
        capture point predicted at its touch-down: the capture point caught a quarter of a
        sole (step adjustment's ``margin``) inside the second sole's inner edge, between the
        feet, where the double support's centre of pressure holds it with both soles."""
        omega = positive_scalar(omega, "omega")
        sole_size = tuple(positive_scalar(value, "sole_size") for value in sole_size)
        defaults = {"double": gait.transition, "single": min(gait.single_support, max(1.0 / omega, quickest)),
                    "sole_size": sole_size, "inner_width": narrowest, "overshoot": 0.75 * sole_size[-1]}
        return cls(**{**defaults, **options})

    def touch_downs(self, t: float, planned: float, earliest: float | None = None) -> list[float]:
        """The first touch-downs (s) weighed at ``t``: ``count`` from ``min_time`` s from now
        (or ``earliest``, when later) to the ``planned`` one."""
        first = min(max(t + self.min_time, t if earliest is None else earliest), planned)
        return np.linspace(first, planned, self.count).tolist() if first < planned else [planned]

    def earliest(self, adjustment: StepAdjustment, dcm, omega: float, t: float, planned: float, stance: Footstep,
                 lifted: Footstep, first: Footstep, feasible, iterations: int = 8) -> float:
        """The earliest first touch-down (s) in ``[t + min_time, planned]`` whose landing
        (where :meth:`choose` puts it) ``feasible(landing (2,), duration s)`` says the swing
        foot can reach by then, by bisection (to ``(planned − t) / 2^iterations``); ``planned``
        when none earlier is."""
        near, stance_sole = self._near(adjustment), self._sole(stance)

        def reachable(touch_down: float) -> bool:
            landed, _ = self._first_landing(near, stance_sole, dcm, omega, t, touch_down, stance, lifted, first)
            return bool(feasible(landed.xy, touch_down - t))

        low, high = t + self.min_time, planned
        if low >= high:
            return planned
        if reachable(low):
            return low
        for _ in range(iterations):
            middle = 0.5 * (low + high)
            low, high = (low, middle) if reachable(middle) else (middle, high)
        return high

    def _near(self, adjustment: StepAdjustment) -> StepAdjustment:
        """``adjustment`` with the first landing's narrowest stance, ``inner_width``."""
        return adjustment if self.inner_width is None else replace(adjustment, min_width=self.inner_width)

    def _first_landing(self, near: StepAdjustment, stance_sole: SupportPolygon, dcm, omega: float, t: float,
                       touch_down: float, stance: Footstep, lifted: Footstep, first: Footstep):
        """The first landing at ``touch_down`` (reach from ``near``; ``stance_sole`` the
        stance foot's) and the capture point predicted then."""
        at_landing = self.run(dcm, stance_sole, omega, touch_down - t)
        x, y = near.landing(first, at_landing - first.xy, stance, lifted)
        return first.moved_to(x, y), at_landing

    def _sole(self, step: Footstep) -> SupportPolygon:
        return SupportPolygon(sole_outline(step.x, step.y, step.yaw, self.sole_size))

    def run(self, dcm, pivot: SupportPolygon, omega: float, time: float) -> np.ndarray:
        """The capture point (2,) ``time`` s after ``dcm``, the centre of pressure at the
        point of ``pivot`` (a sole) nearest it."""
        dcm = np.asarray(dcm, dtype=float)
        p = pivot.clamp(dcm)
        return p + (dcm - p) * math.exp(omega * max(time, 0.0))

    def second_landing(self, adjustment: StepAdjustment, dcm, omega: float, time_left: float, landed: Footstep,
                       lifted: Footstep, planned: Footstep) -> tuple[Footstep, np.ndarray]:
        """The second step's landing (``planned`` moved) and the capture point (2,) predicted at
        its touch-down ``time_left`` s from ``dcm``, the centre of pressure on the ``landed``
        sole's point nearest it: ``overshoot`` past that capture point, away from the pivot,
        within reach from ``landed`` on the side the foot lifted from (``lifted``)."""
        landed_sole = self._sole(landed)
        pivot = landed_sole.clamp(np.asarray(dcm, dtype=float))
        caught = self.run(dcm, landed_sole, omega, time_left)
        away = caught - pivot
        norm = float(np.hypot(away[0], away[1]))
        aim = caught + (self.overshoot * away / norm if norm > 1e-9 else 0.0)
        x, y = adjustment.landing(planned, aim - planned.xy, landed, lifted)
        return planned.moved_to(x, y), caught

    def choose(self, adjustment: StepAdjustment, dcm, omega: float, t: float, planned_touch_down: float,
               stance: Footstep, lifted: Footstep, first: Footstep, second: Footstep, feasible=None) -> Sequence:
        """The best sequence at plan time ``t`` from the measured capture point ``dcm``: the
        swing foot (lifted from ``lifted``, planned to land at ``first`` at
        ``planned_touch_down``) beside ``stance``, then the stance foot (planned to land at
        ``second``); reach from ``adjustment``; ``feasible(landing (2,), duration s)`` (None:
        any) whether the swing foot can still get to a first landing in that time
        (:meth:`earliest`)."""
        best = None
        earliest = None if feasible is None else self.earliest(adjustment, dcm, omega, t, planned_touch_down, stance,
                                                               lifted, first, feasible)
        timing = ((self.double, self.single),)
        near, stance_sole = self._near(adjustment), self._sole(stance)
        for touch_down in self.touch_downs(t, planned_touch_down, earliest):
            landed, at_landing = self._first_landing(near, stance_sole, dcm, omega, t, touch_down, stance, lifted,
                                                     first)
            stepped, caught = self.second_landing(adjustment, at_landing, omega, self.double + self.single, landed,
                                                  stance, second)
            miss = max(self._sole(stepped).outside_xy(float(caught[0]), float(caught[1])), 0.0)
            key = (round(100.0 * miss), float(np.hypot(*(stepped.xy - landed.xy))))
            if best is None or key < best[0]:
                best = (key, Sequence(touch_down, landed, stepped, timing, miss))
        return best[1]
