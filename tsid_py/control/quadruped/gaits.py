"""Gait patterns and the contact schedule they make: which feet are on the ground when.

A gait is data (:class:`GaitPattern`): a **duty factor** ``β`` (the fraction of the cycle a
foot is on the ground) and a **phase offset** ``o_i`` per foot role (``FL, FR, HL, HR``). With
the gait's clock ``φ(t) = (t − t₀) / T mod 1`` (``T`` the period), foot ``i``'s own phase is
``φ_i = (φ − o_i) mod 1``; it stands while ``φ_i < β`` (touch-down at ``φ_i = 0``, lift-off at
``φ_i = β``) and swings for the rest of the cycle, ``(1 − β) T`` s.

=========  ==================  =====  =====================================================
gait       offsets FL FR HL HR  duty   feet together
=========  ==================  =====  =====================================================
stand      0    0    0    0     1      all four, always
walk       0.25 0.75 0    0.5   0.75   three, then four: hind-left, front-left, hind-right,
                                       front-right (the lateral-sequence crawl)
trot       0    0.5  0.5  0     0.5    the diagonal pairs FL+HR, FR+HL in turn
pace       0    0.5  0    0.5   0.5    the lateral pairs FL+HL, FR+HR in turn
bound      0    0    0.5  0.5   0.5    the front pair, then the hind pair
=========  ==================  =====  =====================================================

Every gait swings a foot for the same time ``T_sw`` (the robot's, :mod:`.geometry`), so the
period is ``T = T_sw / (1 − β)``: a walk's cycle is twice a trot's.

A pace stands on one side's pair at a time: with the feet under the hips, the weight acting
a half-width ``d`` beside that support line asks a sideways force ``m g d / h`` to hold the
roll (``h`` the CoM height) — about half the weight for Go2, beyond friction. A gait's
``width`` narrows its footholds toward the CoM: a pace keeps :data:`PACE_WIDTH` of the
lateral offset (then about a sixth of the weight).

:class:`GaitSchedule` turns a pattern and a start time into contact states and events; the
centroidal plan samples it over its horizon (:meth:`GaitSchedule.contact_table`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validation import positive_scalar
from .geometry import ROLES


@dataclass(frozen=True)
class GaitPattern:
    """A gait: ``name``, ``offsets`` (phase offset per role ``FL, FR, HL, HR``, each in
    [0, 1)), ``duty`` (the stance fraction, in (0, 1]) and ``width`` (the share of the neutral
    footholds' lateral offset from the CoM the gait keeps, in (0, 1]); see the module."""

    name: str
    offsets: tuple[float, float, float, float]
    duty: float
    width: float = 1.0

    def __post_init__(self):
        offsets = tuple(float(o) for o in self.offsets)
        if len(offsets) != 4 or not all(0.0 <= o < 1.0 for o in offsets):
            raise ValueError(f"offsets must be four phases in [0, 1) (FL, FR, HL, HR), got {self.offsets!r}")
        if not 0.0 < float(self.duty) <= 1.0:
            raise ValueError(f"duty must be in (0, 1], got {self.duty!r}")
        if not 0.0 < float(self.width) <= 1.0:
            raise ValueError(f"width must be in (0, 1], got {self.width!r}")
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "duty", float(self.duty))

    @property
    def standing(self) -> bool:
        """Whether no foot ever swings (duty 1)."""
        return self.duty >= 1.0

    def period(self, swing_time: float) -> float:
        """The cycle's duration for swings of ``swing_time`` s (inf when standing)."""
        positive_scalar(swing_time, "swing_time")
        return math.inf if self.standing else swing_time / (1.0 - self.duty)


#: A pace's feet land this share of their neutral lateral offset from the CoM (see the module).
PACE_WIDTH = 0.35

STAND = GaitPattern("stand", (0.0, 0.0, 0.0, 0.0), 1.0)
WALK = GaitPattern("walk", (0.25, 0.75, 0.0, 0.5), 0.75)
TROT = GaitPattern("trot", (0.0, 0.5, 0.5, 0.0), 0.5)
PACE = GaitPattern("pace", (0.0, 0.5, 0.0, 0.5), 0.5, width=PACE_WIDTH)
BOUND = GaitPattern("bound", (0.0, 0.0, 0.5, 0.5), 0.5)

#: The gaits by name.
GAITS = {gait.name: gait for gait in (STAND, WALK, TROT, PACE, BOUND)}


def gait_named(gait) -> GaitPattern:
    """A :class:`GaitPattern` itself, or the one of :data:`GAITS` by name."""
    if isinstance(gait, GaitPattern):
        return gait
    if gait not in GAITS:
        raise ValueError(f"gait must be a GaitPattern or one of {sorted(GAITS)}, got {gait!r}")
    return GAITS[gait]


class GaitSchedule:
    """The contact schedule of ``pattern`` for the feet ``roles`` (one role per foot, in the
    feet's order), with swings of ``swing_time`` s, started at ``start`` s."""

    def __init__(self, pattern: GaitPattern, roles, swing_time: float, start: float = 0.0):
        self.pattern = gait_named(pattern)
        missing = set(ROLES) - set(roles)
        if len(roles) != 4 or missing:
            raise ValueError(f"roles must name each of {ROLES} once, got {list(roles)}")
        self.swing_time = positive_scalar(swing_time, "swing_time")
        self.period = self.pattern.period(self.swing_time)
        self.start = float(start)
        self.offsets = np.array([self.pattern.offsets[ROLES.index(role)] for role in roles])
        self._offsets = self.offsets.tolist()

    def phases(self, t: float) -> np.ndarray:
        """Each foot's own phase ``φ_i`` in [0, 1) at time ``t`` (zeros when standing)."""
        if self.pattern.standing:
            return np.zeros(4)
        phase = (t - self.start) / self.period
        return np.mod(phase - self.offsets, 1.0)

    def phase_list(self, t: float) -> list[float]:
        """:meth:`phases` as a list of floats (the control loop's path: no arrays)."""
        if self.pattern.standing:
            return [0.0] * 4
        phase = (t - self.start) / self.period
        return [(phase - offset) % 1.0 for offset in self._offsets]

    def in_stance(self, t: float) -> np.ndarray:
        """Whether each foot is scheduled on the ground at ``t`` (bool (4,))."""
        return self.phases(t) < self.pattern.duty

    def contact_table(self, t0: float, step: float, count: int) -> np.ndarray:
        """(count, 4) booleans: each foot scheduled on the ground at the middle of each of
        ``count`` intervals of ``step`` s from ``t0``."""
        middles = t0 + step * (np.arange(count) + 0.5)
        if self.pattern.standing:
            return np.ones((count, 4), dtype=bool)
        phases = np.mod((middles[:, None] - self.start) / self.period - self.offsets[None, :], 1.0)
        return phases < self.pattern.duty

    def next_touchdown(self, foot: int, t: float) -> float:
        """The first scheduled touch-down of ``foot`` (index) after ``t`` (inf when standing)."""
        if self.pattern.standing:
            return math.inf
        phase = self.phases(t)[foot]
        return t + (1.0 - phase) * self.period

    def last_liftoff(self, foot: int, t: float) -> float:
        """The last scheduled lift-off of ``foot`` at or before ``t`` (−inf when standing)."""
        if self.pattern.standing:
            return -math.inf
        phase = self.phases(t)[foot]
        since = (phase - self.pattern.duty) % 1.0
        return t - since * self.period

    @property
    def stance_time(self) -> float:
        """How long a foot stands per cycle, s (inf when standing)."""
        return math.inf if self.pattern.standing else self.pattern.duty * self.period
