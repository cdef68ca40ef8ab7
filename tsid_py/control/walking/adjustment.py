r"""Step adjustment during a walk: the landing footstep moved when the capture point runs off
its plan (a push, a slip, a foot that landed elsewhere).

**Prediction.** In single support the capture point obeys ``ξ̇ = ω (ξ − p)``
(:mod:`tsid_py.control.capture_point`), and the plan holds the centre of pressure at the
stance foot's planned ZMP ``p_s`` until the swing foot lands at ``T``. From the measured
``ξ(t)``, with ``p = p_s`` meanwhile, the capture point at touch-down is

.. math::

    ξ_T = p_s + (ξ(t) − p_s)\, e^{ω (T − t)};

a centre of pressure held at ``p_s + δ`` instead lands it at ``ξ_T − g δ``,
``g = e^{ω (T − t)} − 1``: with ``δ`` anywhere in the stance sole's contact rectangle (about
``p_s``, in its axes) the capture points the stance sole can reach at touch-down are a
rectangle ``g`` times the sole's about ``ξ_T``.

**Through the double support.** After touch-down the centre of pressure does not jump onto
the landed sole: the plan moves it there over the double support (``double_support`` s,
``D``), from ``p_s`` to the landing's planned ZMP ``p_l`` (its
:attr:`~.footsteps.Footstep.support_point`) in a straight line, and meanwhile the capture
point goes on diverging from it. With ``p(s) = p_s + (p_l − p_s) s / D``,
``ξ̇ = ω (ξ − p)`` carries ``ξ_T`` to

.. math::

    ξ_D = a\, ξ_T − (a − 1)\, p_s − k\, (p_l − p_s), \qquad
    a = e^{ω D}, \quad k = \frac{a − 1 − ω D}{ω D},

the capture point when the landed sole starts to stand alone (``D = 0``: ``ξ_T``); it is
this one, for each reachable ``ξ_T``, that the support is asked to hold
(:meth:`StepAdjustment.through_double_support`). A capture point at touch-down that is in
the hull near the landing sole's outer edge is not caught by the double support: it
crosses the edge while the centre of pressure is still on its way. Measured on G1 on rough
ground (seed 0, its last stances): the capture point at touch-down 2 cm inside the landing
sole, inside the hull, no adjustment; 0.1 s later it was 1.2 cm outside the sole, which
then rolled onto its edge, and the walk fell. A landing moved by ``d`` moves ``p_l`` by
``d`` too, so ``ξ_D`` by ``−k d``: the least move that brings the support to ``ξ_D`` is
the hulls' separation over ``1 + k`` (:meth:`StepAdjustment.shift`'s ``scale``). The walk
asks it of a landing on part of its sole (a foothold with a bearing polygon, where that edge
is near); on a whole sole it keeps the touch-down check. Asked there too, it moved G1's
landings up a 10° slope 22–55 times a walk (0–7 without), each 1–2 cm outward on a
prediction made 0.45 s ahead by the point-mass pendulum, and its soles slipped 21 mm
(4.6 mm without).

**The capture point leaving the support.** At touch-down the robot stands on the stance sole
and the landed one: while a capture point the stance sole can reach lies in their convex
hull — ``margin`` inside it — the double support can still bring it back (the capture-point
task moves the centre of pressure anywhere in the hull), and nothing moves. When none does,
the swing is *engaged*: until it lands, its landing — and every later footstep, so that the
walk goes on parallel to its plan — is aimed so that the capture point at touch-down has the
plan's own offset from it, the **nominal DCM offset** (Khadiv et al., "Walking control based
on step timing adaptation", 2016/2020). The plan's capture point at touch-down ``ξ_n`` (its
backward recursion, :mod:`.lipm`) depends only on the footholds ahead, and moves by
``m d`` when the landing and every later footstep move by ``d``, with

.. math::

    m = \frac{1 − e^{−ω D}}{ω D}

(the double support's centre of pressure starts on the stance sole, which stays:
:meth:`StepAdjustment.nominal_gain`). The least ``d`` that puts a capture point the stance
sole can reach at ``ξ_n + m d`` is the distance from ``ξ_n`` to the reachable rectangle over
``m`` (:meth:`StepAdjustment.shift` with a one-point target); after the re-plan the walk is
on its plan again, relative to the moved footholds, and does not sway wider step after step
as a landing moved by the least into the hull left it (the capture point on the hull's edge
at each touch-down: G1 pushed 100 N toward its swing foot at 62.5 % of the swing fell with
it, and walks on with the nominal aim, docs/walking.md). It is aimed again every ``period``
s (a prediction made during a push changes as the push goes on), a move of at least
``RETARGET_DISTANCE`` re-planning. The trigger stays the hull: a walk that stays in its
support is never moved (0 adjustments on flat walks). A capture point leaving the hull on
the stance foot's side cannot be caught by the swing foot (it would cross): the landing
stays within the legs' reach measured in the stance sole's frame — along it in
``[−backward, forward]``, across it, on the swing foot's side, in ``[min_width,
max_width]`` (the feet never cross) — and the next swing, of the other foot, catches it
(:mod:`.sequence`). The model leaves out what the upper body lends (the hip strategy's
angular momentum moves the centroidal pivot past the sole), so it over-predicts during and
just after a push — measured on Talos after a 230 N lateral push, a 7.6 cm error at
lift-off extrapolated to a 38 cm wider step (moving the landing by the whole error), and the
error was gone by touch-down: the reachable rectangle (the centre of pressure anywhere in
the stance sole) takes up what the sole can, and the aim follows the measured capture point
back as the prediction shrinks.

**How wide the nominal aim lands.** The nominal offset lies inside the landed sole, so a
landing aimed at it goes farther out than the capture needs; toward the swing foot's side
the stance can end wider than the legs walk on from. Traced on G1 pushed −y 100 N in the
double support before its right foot lifts: the landing went to the reach, a 0.476 m stance,
both ankle rolls reached their stops in turn and the stance sole slid when the other foot
lifted; landed at 0.38 m it walked on. The nominal aim's landing is held to ``nominal_width``
across the stance sole (:meth:`StepAdjustment.aimed_landing`), or to where the least move
that catches the capture point (the hull's ``margin``, not the offset) lands when that is
wider; the part held back counts as missed in the landing's cost, as the reach's clamp does.
The walking controller derives ``nominal_width`` from the model: the widest stance at which the
legs hold both soles flat with the CoM where the walk has it when a foot lifts off (G1 0.434 m
of its 0.479 m reach; :meth:`.controller.WalkingController._lift_off_width`).

**Landing earlier.** The capture point diverges for as long as the swing lasts: a landing
brought forward needs less of a move (on Talos after a 230 N lateral push, 33 cm instead of
1.1 m at lift-off). The touch-downs weighed are the planned one and earlier ones down to
``earliest`` of the swing as planned (and ``min_time`` s from now); each is scored by what its landing
misses (the part of the least move its reach clamps off, first) and then by the move's
length plus ``speed`` times how early it lands (landing ``dt`` early costs as much as moving
the landing by ``speed dt``; the gait's pace by default). The best one moves the landing and
brings the touch-down forward — the rest of the walk comes that much earlier
(:meth:`~.plan.WalkPlan.replan` with ``touch_down``, :meth:`~.swing.SwingTrajectory.retarget`).

**How late.** The landing of the swing under way can be moved while the foot can still get
there: the swing is re-planned by quintics from its reference state (position, velocity,
acceleration) to the new landing (:meth:`~.swing.SwingTrajectory.retarget`), and a landing
or touch-down is weighed only when that quintic's peak horizontal acceleration stays within
``max_acceleration`` (:meth:`StepAdjustment.feasible`) and at least ``min_time`` s are left.
The bound is a quick swing of ``T_q = 0.8 / ω`` s (:meth:`.sequence.StepSequence.reaim_swing`;
the two-step capture's own quick step now lasts ``1 / ω``) across the legs' lateral reach,
``(10 / √3) (max_width − min_width) / T_q²`` (44 m/s² on G1). Without one (``max_acceleration`` None), the landing is
moved only until ``until`` of the swing (the former fixed window, 60 %).

**Landing later.** A push toward the swing foot near the end of its swing moves the capture
point past the landing sole when the foot has too little time left to get there — it is
already coming down. When no landing by the planned touch-down is feasible, the touch-downs
up to ``latest`` s later are weighed too (:meth:`StepAdjustment.later_touch_downs`), for a
landing moved *outward* only (across the stance sole on the swing foot's side: a capture
point running toward the stance foot is the next swing's, :mod:`.sequence`, and waiting lets
it run farther): the pendulum diverges meanwhile, and the landing aimed at the later
touch-down is the farther one, which the foot now has the time to reach. With a
``quick_swing``, ``latest`` is that swing's time: the acceleration bound above lets a foot at
rest cross the legs' whole lateral reach in it. A swing is delayed once (not when it was
re-timed already, nor again); it is then re-aimed as any other until its new touch-down
less ``min_time``. Traced on G1 pushed 100 N toward its swing foot 0.15 s before the
touch-down: at 80 ms into the push the touch-down went 0.12 s later and the landing 0.24 m
farther out, and the walk went on (it fell without: docs/walking.md, "Landing later").

The footsteps are put back on the terrain (:func:`~.footholds.place_footstep`), the swing
re-aimed (:meth:`~.swing.SwingTrajectory.retarget`) and the CoM re-planned from the measured
state (:meth:`~.plan.WalkPlan.replan`). It is checked every ``period`` s of a single support
(the capture point of a double support is caught at the next swing's start).

Units: m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._geometry import separation
from ..._validation import positive_scalar
from ...models.swing_time import QUINTIC_ACCELERATION
from ..capture_point import SupportPolygon
from .footsteps import Footstep, within_reach
from .swing import quintic_coefficients


@dataclass
class StepAdjustment:
    """Capture-point step adjustment during a walk (see the module); lengths in m, times in
    s, ``until`` and ``earliest`` fractions of the swing; ``sole_size`` the stance sole's
    contact rectangle ``(length, width)``, ``margin`` how far inside the support at touch-down
    the capture point is to be, ``speed`` (m/s)
    what landing early costs (a landing ``dt`` s early costs as much as one moved by
    ``speed dt``), ``min_time`` the least time left to a touch-down brought forward,
    ``double_support`` the double support after a touch-down (s; 0: the support is to hold
    the capture point at touch-down itself), ``max_acceleration`` (m/s²; None: the fixed
    window ``until``) the most a re-aimed swing may ask of the foot horizontally,
    ``nominal_width`` (m; None: ``max_width``) the widest stance across the stance sole the
    nominal aim lands in (:meth:`aimed_landing`), ``latest`` (s; 0: never) how much later than
    planned a swing may land to reach a landing moved outward (:meth:`later_touch_downs`)."""

    forward: float
    backward: float
    min_width: float
    max_width: float
    sole_size: tuple[float, float] = (0.2, 0.1)
    margin: float = 0.02
    threshold: float = 0.01
    until: float = 0.6
    period: float = 0.005
    speed: float = 0.4
    earliest: float = 0.6
    min_time: float = 0.1
    double_support: float = 0.0
    max_acceleration: float | None = None
    nominal_width: float | None = None
    latest: float = 0.0

    def __post_init__(self):
        self.sole_size = tuple(positive_scalar(value, "sole_size") for value in self.sole_size)
        if len(self.sole_size) != 2:
            raise ValueError(f"sole_size must be (length, width), got {self.sole_size!r}")
        self.margin = positive_scalar(self.margin, "margin", allow_zero=True)
        for name in ("forward", "backward", "min_width", "max_width", "threshold", "period"):
            setattr(self, name, positive_scalar(getattr(self, name), name))
        self.speed = positive_scalar(self.speed, "speed")
        self.min_time = positive_scalar(self.min_time, "min_time")
        self.double_support = positive_scalar(self.double_support, "double_support", allow_zero=True)
        if self.max_acceleration is not None:
            self.max_acceleration = positive_scalar(self.max_acceleration, "max_acceleration")
        if self.nominal_width is not None:
            self.nominal_width = positive_scalar(self.nominal_width, "nominal_width")
        self.latest = positive_scalar(self.latest, "latest", allow_zero=True)
        if not 0.0 <= positive_scalar(self.earliest, "earliest", allow_zero=True) <= 1.0:
            raise ValueError(f"earliest must be in [0, 1], got {self.earliest!r}")
        if self.max_width <= self.min_width:
            raise ValueError(f"max_width must exceed min_width, got {self.max_width!r} ≤ {self.min_width!r}")
        if self.nominal_width is not None and self.nominal_width <= self.min_width:
            raise ValueError(f"nominal_width must exceed min_width, got {self.nominal_width!r} ≤ {self.min_width!r}")
        if not 0.0 <= positive_scalar(self.until, "until", allow_zero=True) <= 1.0:
            raise ValueError(f"until must be in [0, 1], got {self.until!r}")

    @classmethod
    def for_robot(cls, com_height: float, step_width: float, sole_size, gait=None, quick_swing: float | None = None,
                  **options) -> StepAdjustment:
        """Reach scaled to a humanoid of CoM height ``z`` (as
        :meth:`~.recovery.StepRecovery.for_robot`: forward 0.5 z, backward 0.35 z, feet at
        most 0.7 z apart), the narrowest stance three quarters of the walk's ``step_width``,
        ``sole_size`` the stance sole's contact rectangle, the margin a quarter of its
        width; with the walk's ``gait`` (:class:`~.footsteps.Gait`), landing early costing
        the gait's pace (step length over single support), and its double support; with
        ``quick_swing`` (s, the two-step capture's quick step), the landing re-aimed until
        touch-down while the swing's peak acceleration stays within that of a rest-to-rest
        quintic across the legs' lateral reach in ``quick_swing``, ``(10 / √3) (max_width −
        min_width) / quick_swing²``, and a swing landing up to ``quick_swing`` later to reach
        a landing moved outward."""
        defaults = {"forward": 0.5 * com_height, "backward": 0.35 * com_height, "min_width": 0.75 * step_width,
                    "max_width": max(0.7 * com_height, 1.5 * step_width), "sole_size": tuple(sole_size),
                    "margin": 0.25 * float(sole_size[1])}
        if gait is not None:                              # landing early costs the gait's pace
            defaults.update(speed=gait.step_length / gait.single_support, double_support=gait.double_support)
        if quick_swing is not None:                       # re-aimed until touch-down, as fast as the quick step
            span = defaults["max_width"] - defaults["min_width"]
            quick = positive_scalar(quick_swing, "quick_swing")
            defaults.update(until=1.0, max_acceleration=QUINTIC_ACCELERATION * span / quick**2, latest=quick)
        return cls(**{**defaults, **options})

    def feasible(self, position, velocity, acceleration, end, duration: float) -> bool:
        """Whether a swing foot at horizontal ``position``, ``velocity``, ``acceleration``
        ((2,) m, m/s, m/s² each) can reach ``end`` (2,) at rest in ``duration`` s
        (:func:`~.swing.quintic`, as :meth:`~.swing.SwingTrajectory.retarget` re-plans it)
        with its horizontal acceleration at most ``max_acceleration`` (always, without one);
        and ``duration`` at least ``min_time``. The acceleration of the quintic is a cubic
        in time: its largest norm is taken over 17 instants (exact at both ends)."""
        if duration < self.min_time - 1e-9:
            return False
        if self.max_acceleration is None:
            return True
        peak = 0.0
        terms = [(float(a0), *quintic_coefficients(float(x0), float(v0), float(a0), float(x1), duration))
                 for x0, v0, a0, x1 in zip(position, velocity, acceleration, end)]
        for k in range(17):
            tau = duration * k / 16.0
            square = sum((a0 + tau * (6.0 * c3 + tau * (12.0 * c4 + tau * 20.0 * c5)))**2 for a0, c3, c4, c5 in terms)
            peak = max(peak, square)
        return math.sqrt(peak) <= self.max_acceleration

    def predict(self, dcm, stance_zmp, omega: float, time_left: float) -> tuple[float, float]:
        """``ξ_T = p_s + (ξ − p_s) e^{ω (T − t)}`` (x, y) m: the capture point at touch-down,
        ``time_left`` s ahead, from the measured one ``dcm`` with the centre of pressure held at
        the stance's planned ZMP ``stance_zmp`` (see the module). Plain floats (the loop's
        path)."""
        growth = math.exp(omega * max(time_left, 0.0))
        px, py = float(stance_zmp[0]), float(stance_zmp[1])
        return px + (float(dcm[0]) - px) * growth, py + (float(dcm[1]) - py) * growth

    def reachable(self, predicted, stance_yaw: float, omega: float, time_left: float) -> list[tuple[float, float]]:
        """The corners (counter-clockwise) of the capture points at touch-down the stance sole
        (heading ``stance_yaw``) can reach: ``ξ_T − g δ`` for ``δ`` in its contact rectangle."""
        gain = math.expm1(omega * max(time_left, 0.0))
        c, s = math.cos(stance_yaw), math.sin(stance_yaw)
        half_length, half_width = 0.5 * gain * self.sole_size[0], 0.5 * gain * self.sole_size[1]
        x, y = float(predicted[0]), float(predicted[1])
        return [(x - c * a * half_length + s * b * half_width, y - s * a * half_length - c * b * half_width)
                for a, b in ((1, 1), (-1, 1), (-1, -1), (1, -1))]

    def through_double_support(self, points, stance_zmp, landing_zmp, omega: float) -> tuple[list, float]:
        """``(carried, scale)``: each of ``points`` (capture points at touch-down, (x, y) m)
        carried through the double support to ``ξ_D`` (see the module), the centre of
        pressure going from ``stance_zmp`` to ``landing_zmp`` in a straight line; and
        ``1 + k``, what :meth:`shift` divides a move by. Plain floats."""
        if self.double_support <= 0.0:
            return [(float(x), float(y)) for x, y in points], 1.0
        rate = omega * self.double_support
        a = math.exp(rate)
        k = (a - 1.0 - rate) / rate
        sx, sy = float(stance_zmp[0]), float(stance_zmp[1])
        lx, ly = float(landing_zmp[0]), float(landing_zmp[1])
        cx, cy = (a - 1.0) * sx + k * (lx - sx), (a - 1.0) * sy + k * (ly - sy)
        return [(a * float(x) - cx, a * float(y) - cy) for x, y in points], 1.0 + k

    def nominal_gain(self, omega: float) -> float:
        """``m = (1 − e^{−ω D}) / (ω D)`` (1 without a double support): how far the plan's
        capture point at touch-down moves per metre the landing (and every later footstep)
        moves — its backward recursion through the double support, whose centre of pressure
        starts on the stance sole, which stays (see the module)."""
        if self.double_support <= 0.0:
            return 1.0
        rate = omega * self.double_support
        return -math.expm1(-rate) / rate

    def target(self, support: SupportPolygon) -> np.ndarray:
        """Where the capture point is to be at touch-down: the vertices (k, 2) of ``support``
        (the hull of the stance and landing soles) shrunk by ``margin``."""
        return support.shrunk(self.margin).vertices

    def shift(self, reachable, target, scale: float = 1.0) -> np.ndarray | None:
        """How far (2,) m to move the landing so that a capture point the stance sole can
        reach (the polygon ``reachable``) lies in ``target`` (:meth:`target`): the least
        ``d`` with ``target + scale d`` meeting ``reachable`` (their nearest points,
        :func:`tsid_py._geometry.separation`; ``scale`` > 1 when the capture points move
        against the landing, :meth:`through_double_support`, < 1 for a one-point ``target``
        that moves by ``scale d``, :meth:`nominal_gain`); None when they meet already or
        the move is below ``threshold``."""
        move = separation(target, reachable) if len(target) > 1 else _to_polygon(target[0], reachable)
        if move is None or math.hypot(move[0], move[1]) <= self.threshold * scale:
            return None
        return np.array(move) / scale

    def touch_downs(self, t: float, lift_off: float, touch_down: float, duration: float,
                    count: int = 5, timing=None) -> list[float]:
        """The touch-down times (s) to weigh at ``t`` for a swing of ``duration`` s (as
        planned: a landing already brought forward does not lower the bound) from
        ``lift_off``, due at ``touch_down``: that one first, then (given ``timing``, the
        ``(dcm, stance_zmp, nominal, omega)`` of :meth:`timed`) the closed form's, then
        ``count − 1`` earlier ones down to the earliest, ``earliest`` of the swing and
        ``min_time`` s from now."""
        first = max(t + self.min_time, lift_off + self.earliest * duration)
        if first >= touch_down:
            return [touch_down]
        timed = [] if timing is None else [self.timed(*timing, t, touch_down, first)]
        return [touch_down, *timed, *np.linspace(touch_down, first, count)[1:].tolist()]

    def later_touch_downs(self, t: float, lift_off: float, touch_down: float, duration: float,
                          count: int = 5) -> list[float]:
        """The touch-down times (s) later than planned to weigh at ``t`` when none by the
        planned one is feasible (see the module), for a swing of ``duration`` s from
        ``lift_off`` due at ``touch_down``: ``count`` from the planned one (or ``min_time``
        s from now) to ``latest`` s after it; none when the swing was re-timed already."""
        last = self.latest_touch_down(lift_off, touch_down, duration)
        first = max(touch_down, t + self.min_time)
        return np.linspace(first, last, count).tolist() if last > first + 1e-9 else []

    def latest_touch_down(self, lift_off: float, touch_down: float, duration: float) -> float:
        """The latest touch-down (s) of a swing of ``duration`` s from ``lift_off``, due at
        ``touch_down``, that step adjustment may choose: ``latest`` s after it while it is as
        planned, ``touch_down`` once re-timed (see the module)."""
        return touch_down + self.latest if abs(touch_down - lift_off - duration) <= 1e-9 else touch_down

    def timed(self, dcm, stance_zmp, nominal, omega: float, t: float, touch_down: float, first: float) -> float:
        r"""The touch-down (s, in ``[first, touch_down]``) that lands the swing at the
        nominal DCM offset with the least of ``|d|² + β (τ − τ_p)²``, in closed form in
        ``τ = e^{ω (T − t)}`` (the centre of pressure held at ``stance_zmp``): the landing
        moves by ``d(τ) = a + b τ``, ``a = (p_s − ξ_n) / m``, ``b = (ξ − p_s) / m`` (the
        capture point ``ξ = dcm`` at ``t`` runs to ``p_s + (ξ − p_s) τ``, which the plan's
        ``ξ_n = nominal`` reaches as it moves by ``m d``, :meth:`nominal_gain`), and
        ``β = (speed / (ω τ_p))²`` prices landing early at the gait's pace (``ΔT ≈
        (τ_p − τ) / (ω τ_p)`` near the planned ``τ_p``). The cost is convex in ``τ``:

        .. math::

            τ^* = \operatorname{clip}\Big(\frac{β τ_p − a \cdot b}{|b|² + β},\;
            τ_{first},\; τ_p\Big).

        Plain floats."""
        gain = self.nominal_gain(omega)
        px, py = float(stance_zmp[0]), float(stance_zmp[1])
        ax, ay = (px - float(nominal[0])) / gain, (py - float(nominal[1])) / gain
        bx, by = (float(dcm[0]) - px) / gain, (float(dcm[1]) - py) / gain
        planned = math.exp(omega * max(touch_down - t, 0.0))
        earliest = math.exp(omega * max(first - t, 0.0))
        beta = (self.speed / (omega * planned)) ** 2
        tau = (beta * planned - (ax * bx + ay * by)) / (bx * bx + by * by + beta)
        return t + math.log(min(max(tau, earliest), planned)) / omega

    def cost(self, move, planned: float, touch_down: float, missed=None) -> tuple[float, float]:
        """What a landing moved by ``move`` (2,) m at ``touch_down`` instead of ``planned`` (s)
        costs, compared in order: the part ``missed`` (2,) m of the move its reach clamped off
        (in cm: a landing that catches the capture point first), then the move's length plus
        ``speed`` times the time it lands early or late, m."""
        short = 0.0 if missed is None else round(100.0 * float(np.hypot(missed[0], missed[1])))
        return short, float(np.hypot(move[0], move[1])) + self.speed * abs(planned - touch_down)

    def landing(self, planned: Footstep, offset, stance: Footstep, lifted: Footstep,
                max_width: float | None = None) -> tuple[float, float]:
        """Where ``planned`` lands once moved by ``offset`` (2,) m, clamped to the reach from
        ``stance`` (see the module; at most ``max_width`` across when given) on the side of
        ``stance`` the swing foot ``lifted`` from: its ``(x, y)``."""
        x, y = within_reach(stance, lifted, planned.xy + np.asarray(offset, dtype=float), self.forward,
                            self.backward, self.min_width, self.max_width if max_width is None else max_width)
        return float(x), float(y)

    def aimed_landing(self, planned: Footstep, nominal, stance: Footstep, lifted: Footstep,
                      least) -> tuple[float, float]:
        """Where ``planned`` lands aimed by the ``nominal`` move (2,) m (:meth:`landing`), no
        wider across the ``stance`` sole than ``nominal_width`` — or, when the capture needs
        more, than the ``least`` move lands (a callable returning that move (2,) m, or None when
        none is needed; called only when the nominal landing is wider): see the module."""
        x, y = self.landing(planned, nominal, stance, lifted)
        if self.nominal_width is None or abs(stance.across(x, y)) <= self.nominal_width:
            return x, y
        move = least()
        widest = self.nominal_width
        if move is not None:
            widest = max(widest, abs(stance.across(*self.landing(planned, move, stance, lifted))))
        return self.landing(planned, nominal, stance, lifted, min(widest, self.max_width))


def _to_polygon(point, polygon) -> tuple[float, float] | None:
    """The least translation ``(dx, dy)`` that brings ``point`` (x, y) into the convex
    ``polygon`` (vertices (k, 2), counter-clockwise): to its nearest point; None inside.
    Plain floats."""
    px, py = float(point[0]), float(point[1])
    corners = [(float(x), float(y)) for x, y in polygon]
    best, move, inside = math.inf, (0.0, 0.0), True
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        ex, ey = bx - ax, by - ay
        if ex * (py - ay) - ey * (px - ax) < 0.0:                 # right of a counter-clockwise edge
            inside = False
        ratio = min(max(((px - ax) * ex + (py - ay) * ey) / max(ex * ex + ey * ey, 1e-300), 0.0), 1.0)
        dx, dy = ax + ratio * ex - px, ay + ratio * ey - py
        if dx * dx + dy * dy < best:
            best, move = dx * dx + dy * dy, (dx, dy)
    return None if inside else move
