r"""How large a sideways push toward the stance foot a walk can catch, by the linear inverted
pendulum: with the stance sole alone, with the two-step capture (:mod:`.sequence`), or with a
crossover step (the swing foot crossing in front of or behind the stance foot).

**Frame.** Across the stance sole, ``y`` from its centre, positive *outward* (away from the
swing foot, the side a push toward the stance foot drives the capture point to); times from
the swing's lift-off.

**The pendulum pushed.** With the centre of pressure at ``p`` and a force ``F`` on the base
(at height ``h``; it acts as ``F h / z`` at the CoM, :mod:`tsid_py.control.capture_point`),
``ξ̇ = ω (ξ − p) + F h / (z m ω)`` = ``ω (ξ − (p − g F))`` with the **push gain**
``g = h / (z m ω²)`` (m/N): while the push lasts it is the centre of pressure moved ``g F``
against it. Over a stretch of ``τ`` s with ``p`` and ``F`` constant

.. math::

    ξ(τ) = q + (ξ(0) − q)\, e^{ωτ}, \qquad q = p − g F,

and :func:`dcm_after` chains such stretches. The capture point at the end is affine in
``F``, so the largest push a strategy catches — its final capture point at its support's
outer edge — is one division (:meth:`LateralCapture.largest`).

**The strategies**, each with the centre of pressure where it best holds the capture point
back (the outer edge of the sole it is on: ``p = w/2`` on the stance sole, ``w`` the sole's
width), the push ``duration`` s from ``start``:

* *stance sole* (one normal step: the swing foot lands on its own side, the support's outer
  edge is the stance sole's): caught when ``ξ ≤ w/2`` once the push is over (after, the
  stance sole's edge holds it);
* *two-step*: the swing foot lands ``first_time`` s after the push starts (at the latest when
  planned; the controller's is the earliest touch-down the swing foot can reach its landing
  by, :meth:`.sequence.StepSequence.earliest`), ``inner_width`` beside the stance foot (its
  ``inner_width``); the stance sole holds the centre of
  pressure through the hand-over (``hand_over`` s: optimistic, the load has to move over),
  then the landed sole's outer edge (``w/2 − inner_width``) through the stance foot's quick
  swing (``quick_swing`` s), which lands at most ``reach`` from the landed foot: caught when
  ``ξ ≤ reach − inner_width + w/2``;
* *crossover*: the swing foot crosses the stance foot and lands ``cross_reach`` beyond its
  centre, at the earliest a moved landing may (``earliest`` s after lift-off, and
  ``first_time`` s after the push starts; at the latest when planned), the stance sole's
  outer edge holding the centre of pressure meanwhile: caught when ``ξ ≤ cross_reach + w/2``
  at touch-down.

These are upper bounds of the pendulum: they leave out the upper body's angular momentum (the
controller reaches 94 % of the pendulum's bound standing: G1 200 N sideways against 212 N, Talos
460 N against 489 N), and the hand-over and the centre of pressure's moves take time the bounds
do not charge.

Units: m, s, N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..._validation import positive_scalar


def dcm_after(dcm: float, schedule, omega: float, push_start: float = 0.0, push_duration: float = 0.0,
              push_offset: float = 0.0) -> float:
    """The capture point (m) at the end of ``schedule`` — ``(duration s, centre of pressure m)``
    stretches from time 0 — from ``dcm`` at time 0, a push moving the centre of pressure by
    ``−push_offset`` (m, ``g F``) from ``push_start`` for ``push_duration`` s (see the module)."""
    xi, t = float(dcm), 0.0
    push_end = push_start + push_duration
    for duration, cop in schedule:
        end = t + positive_scalar(duration, "schedule duration", allow_zero=True)
        cuts = sorted({t, end, *(moment for moment in (push_start, push_end) if t < moment < end)})
        for a, b in zip(cuts, cuts[1:]):
            pushed = push_start <= a < push_end
            pivot = float(cop) - (push_offset if pushed else 0.0)
            xi = pivot + (xi - pivot) * math.exp(omega * (b - a))
        t = end
    return xi


@dataclass(frozen=True)
class LateralCapture:
    """A walk's single support seen across the stance sole (see the module; m, s).

    omega : the pendulum's ``ω``, 1/s. push_gain : ``g``, m/N. half_width : ``w/2``, the
    stance sole's contact half-width. inner_width : the feet's least centre distance side by
    side (the two-step's first landing). reach : the farthest the second step lands from the
    first. cross_reach : the farthest a crossed landing's centre lies beyond the stance
    sole's. swing : the planned single support. earliest : the earliest touch-down of a moved
    landing after lift-off. first_time : the least time from a push to a brought-forward
    touch-down. hand_over, quick_swing : the two-step's double support and second swing.
    duration : the push's."""

    omega: float
    push_gain: float
    half_width: float
    inner_width: float
    reach: float
    cross_reach: float
    swing: float
    earliest: float
    first_time: float
    hand_over: float
    quick_swing: float
    duration: float = 0.1

    def __post_init__(self):
        for name in ("omega", "push_gain", "half_width", "inner_width", "reach", "swing", "first_time",
                     "quick_swing", "duration"):
            positive_scalar(getattr(self, name), name)
        for name in ("cross_reach", "earliest", "hand_over"):
            positive_scalar(getattr(self, name), name, allow_zero=True)

    def largest(self, schedule, limit: float, start: float, dcm: float) -> float:
        """The largest push (N) whose capture point ends ``schedule`` (stretches from the push's
        ``start``, see :func:`dcm_after`) at most at ``limit`` (m), from ``dcm`` at the start;
        0 when none does, ``inf`` when a push cannot drive it there."""
        unpushed = dcm_after(dcm, schedule, self.omega, 0.0, self.duration, 0.0)
        per_newton = dcm_after(dcm, schedule, self.omega, 0.0, self.duration, self.push_gain) - unpushed
        if per_newton <= 0.0:
            return math.inf
        return max((limit - unpushed) / per_newton, 0.0)

    def _touch_down(self, start: float, earliest: float) -> float:
        """A brought-forward touch-down for a push at ``start``: ``first_time`` after it and
        not before ``earliest``, at the latest the planned one (or the push's start, past it)."""
        return max(min(max(start + self.first_time, earliest), self.swing), start)

    def stance_schedule(self, start: float):
        """The stance sole's outer edge through the push: ``(schedule, limit)``."""
        return [(self.duration, self.half_width)], self.half_width

    def two_step_schedule(self, start: float):
        """The two-step capture's centres of pressure from ``start``: ``(schedule, limit)``."""
        first = self._touch_down(start, 0.0)
        return ([(first + self.hand_over - start, self.half_width), (self.quick_swing, self.half_width - self.inner_width)],
                self.reach - self.inner_width + self.half_width)

    def crossover_schedule(self, start: float, cross: float | None = None):
        """The crossover's: the stance sole's edge until the crossed touch-down; the limit with
        the landing ``cross`` m beyond the stance sole's centre (None: ``cross_reach``)."""
        touch_down = self._touch_down(start, self.earliest)
        return [(touch_down - start, self.half_width)], (self.cross_reach if cross is None else cross) + self.half_width

    def bounds(self, start: float, dcm: float) -> dict[str, float]:
        """The largest push (N) at ``start`` s after lift-off, the capture point at ``dcm``
        then, each strategy catches: ``stance``, ``two_step``, ``crossover``."""
        return {name: self.largest(*schedule(start), start, dcm) for name, schedule in
                (("stance", self.stance_schedule), ("two_step", self.two_step_schedule),
                 ("crossover", self.crossover_schedule))}

    def crossing_needed(self, start: float, dcm: float, force: float) -> float:
        """How far (m) beyond the stance sole's centre a crossed landing has to be to catch a
        push of ``force`` N at ``start`` (the capture point at its touch-down less ``w/2``)."""
        schedule, _ = self.crossover_schedule(start)
        return dcm_after(dcm, schedule, self.omega, 0.0, self.duration, self.push_gain * force) - self.half_width
