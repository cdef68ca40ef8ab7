"""The CoM trajectory of a walk: the linear inverted pendulum driven by a planned ZMP, in
closed form, by the backward recursion of the divergent component of motion (DCM).

**Model.** The centre of mass ``c`` (horizontal, m) at constant height ``z`` above flat
ground, the ground's reaction through the zero-moment point / centre of pressure ``p``:

    c̈ = ω² (c − p),    ω = √(g / z)  (1/s).

With ``ξ = c + ċ / ω`` (the DCM, or instantaneous capture point) it splits into a stable
and an unstable first-order system:

    ċ = ω (ξ − c)   (c follows ξ),        ξ̇ = ω (ξ − p)   (ξ runs away from p).

**Plan.** The ZMP is planned piecewise linear: segment ``k`` lasts ``T_k`` s and moves
``p`` from ``a_k`` to ``b_k`` (constant under the stance foot in single support, from one
foot to the next in double support), ``ṗ_k = (b_k − a_k) / T_k``. On a segment, with
``τ`` the time since its start,

    ξ(τ) = p(τ) + ṗ_k / ω + D_k e^{ω (τ − T_k)},         D_k = ξ(T_k) − b_k − ṗ_k / ω,
    c(τ) = p(τ) + (D_k / 2) e^{ω (τ − T_k)} + B_k e^{−ω τ},

and ``ċ``, ``c̈`` by differentiation (``c̈ = ω² (c − p)`` holds exactly). The DCM is
integrated **backward** from the end, where the robot stands still over the last ZMP
(``ξ = b_last``): ``ξ(0)`` of a segment is ``ξ(T)`` of the one before. That recursion picks
the one bounded solution; the CoM then follows **forward** from its initial position,
``B_k`` making ``c`` continuous (so ``ċ`` is continuous too, and ``c̈`` wherever ``p`` is).

**Start.** A robot at rest has ``ξ(0) = c(0)``, which the backward recursion does not give
for an arbitrary plan. The first segment's start ``a_0`` is therefore solved for (``ξ(0)``
is affine in it): the ZMP starts slightly on the far side of the CoM and swings over to the
first stance foot, as it must to set the CoM moving. After the last segment the ZMP stays at
``b_last`` and the CoM converges to it (``c − b_last ∝ e^{−ω τ}``).

Units: m, s, 1/s. Horizontal (x, y) only: the height is constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import bisect
import math

import numpy as np

from ..._validation import as_vector, positive_scalar


@dataclass(frozen=True)
class ZMPSegment:
    """The ZMP moving linearly from ``start`` to ``end`` (x, y, m) over ``duration`` s."""

    duration: float
    start: np.ndarray
    end: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "duration", positive_scalar(self.duration, "duration"))
        object.__setattr__(self, "start", as_vector(self.start, "start", 2).copy())
        object.__setattr__(self, "end", as_vector(self.end, "end", 2).copy())


@dataclass(frozen=True)
class LIPMSample:
    """The plan at one time (or (n, 2) arrays at n times): CoM position (m), velocity (m/s),
    acceleration (m/s²), ZMP (m) and DCM (m), horizontal."""

    com: np.ndarray
    com_velocity: np.ndarray
    com_acceleration: np.ndarray
    zmp: np.ndarray
    dcm: np.ndarray


class DCMTrajectory:
    """CoM, ZMP and DCM of a piecewise-linear ZMP plan, in closed form (see the module).

    Parameters
    ----------
    omega : the pendulum's natural frequency ``√(g / z)``, 1/s.
    segments : the ZMP plan, in time order (the first starts at ``t = 0``).
    com : initial horizontal CoM position (2,), m.
    com_velocity : initial horizontal CoM velocity (2,), m/s (default 0).
    solve_start : replace the first segment's start by the ZMP that makes ``ξ(0)`` equal
        ``com + com_velocity / ω`` (default); otherwise the plan is taken as given and the
        DCM starts wherever the backward recursion puts it.
    """

    def __init__(self, omega: float, segments, com, com_velocity=None, *, solve_start: bool = True):
        self.omega = positive_scalar(omega, "omega")
        segments = list(segments)
        if not segments or not all(isinstance(s, ZMPSegment) for s in segments):
            raise ValueError("segments must be a non-empty list of ZMPSegment")
        com = as_vector(com, "com", 2)
        velocity = np.zeros(2) if com_velocity is None else as_vector(com_velocity, "com_velocity", 2)
        durations = np.array([s.duration for s in segments])
        starts = np.array([s.start for s in segments])
        ends = np.array([s.end for s in segments])
        xi_end = self._backward(durations, starts, ends)
        if solve_start:
            starts[0] = self._solved_start(durations[0], ends[0], xi_end[0], com + velocity / self.omega)
        self.durations = durations
        #: Start time of each segment, s; the plan ends at :attr:`duration`.
        self.times = np.concatenate([[0.0], np.cumsum(durations)[:-1]])
        self.duration = float(durations.sum())
        self.starts, self.ends = starts, ends
        self.rates = (ends - starts) / durations[:, None]
        #: ``D_k = ξ(T_k) − b_k − ṗ_k / ω``: the DCM's unstable part at each segment's end.
        self.decay = xi_end - ends - self.rates / self.omega
        self.stable = self._forward(com)
        # the same numbers as plain floats, for :meth:`state` (a control loop's path)
        self._rows = [tuple(float(value) for value in row) for row in
                      np.column_stack([self.times, self.durations, self.starts, self.rates, self.decay,
                                       self.stable[:-1]])]
        self._rest = tuple(float(value) for value in np.r_[self.ends[-1], self.stable[-1]])
        self._start_times = self.times.tolist()

    @property
    def segments(self) -> list[ZMPSegment]:
        """The ZMP plan as executed (with the solved start)."""
        return [ZMPSegment(T, a, b) for T, a, b in zip(self.durations, self.starts, self.ends)]

    def _backward(self, durations, starts, ends) -> np.ndarray:
        """ξ at the end of each segment: the last is its ZMP; ξ(0)_k = ξ(T)_{k−1}."""
        omega = self.omega
        xi_end = np.empty_like(ends)
        xi = ends[-1].copy()
        for k in range(len(durations) - 1, -1, -1):
            xi_end[k] = xi
            rate = (ends[k] - starts[k]) / durations[k]
            xi = starts[k] + rate / omega + (xi - ends[k] - rate / omega) * np.exp(-omega * durations[k])
        return xi_end

    def _solved_start(self, duration, end, xi_end, xi_start) -> np.ndarray:
        """``a`` such that the segment (a → end) starts at DCM ``xi_start``: ξ(0) = k a + r."""
        x = self.omega * duration
        decay = np.exp(-x)
        gain = 1.0 - (1.0 - decay) / x
        rest = end / x + (xi_end - end - end / x) * decay
        return (xi_start - rest) / gain

    def _forward(self, com) -> np.ndarray:
        """``B_k`` of each segment (and of the rest after it) from CoM continuity."""
        omega = self.omega
        stable = np.empty((len(self.durations) + 1, 2))
        c = com.copy()
        for k, duration in enumerate(self.durations):
            stable[k] = c - self.starts[k] - 0.5 * self.decay[k] * np.exp(-omega * duration)
            c = self.ends[k] + 0.5 * self.decay[k] + stable[k] * np.exp(-omega * duration)
        stable[-1] = c - self.ends[-1]
        return stable

    def sample(self, t) -> LIPMSample:
        """The plan at time ``t`` (s, scalar or 1-D array; before 0: the start, after the end:
        the rest over the last ZMP). Scalars give (2,) arrays, arrays (n, 2)."""
        times = np.atleast_1d(np.asarray(t, dtype=float))
        times = np.maximum(times, 0.0)
        index = np.searchsorted(self.times, times, side="right") - 1
        tau = times - self.times[index]
        inside = tau <= self.durations[index]
        omega = self.omega
        # during a segment
        rate = np.where(inside[:, None], self.rates[index], 0.0)
        start = np.where(inside[:, None], self.starts[index], self.ends[-1])
        zmp = start + rate * np.where(inside, tau, 0.0)[:, None]
        tail_tau = times - self.duration
        growth = np.where(inside, np.exp(omega * (tau - self.durations[index])), 0.0)[:, None]
        unstable = np.where(inside[:, None], self.decay[index], 0.0) * growth
        stable = np.where(inside[:, None], self.stable[index], self.stable[-1])
        shrink = np.exp(-omega * np.where(inside, tau, tail_tau))[:, None]
        com = zmp + 0.5 * unstable + stable * shrink
        velocity = rate + omega * (0.5 * unstable - stable * shrink)
        acceleration = omega**2 * (com - zmp)
        dcm = zmp + rate / omega + unstable
        if np.ndim(t) == 0:
            return LIPMSample(com[0], velocity[0], acceleration[0], zmp[0], dcm[0])
        return LIPMSample(com, velocity, acceleration, zmp, dcm)

    def state(self, t: float) -> tuple[float, float, float, float, float, float]:
        """``(cx, cy, vx, vy, ax, ay)`` at time ``t`` s as plain floats: :meth:`sample`'s CoM
        position, velocity and acceleration, without numpy's per-call cost."""
        omega = self.omega
        t = max(float(t), 0.0)
        index = bisect.bisect_right(self._start_times, t) - 1
        start, duration, ax, ay, rx, ry, dx, dy, bx, by = self._rows[index]
        tau = t - start
        if tau <= duration:
            px, py = ax + rx * tau, ay + ry * tau
            growth, shrink = 0.5 * math.exp(omega * (tau - duration)), math.exp(-omega * tau)
            ux, uy, sx, sy = dx * growth, dy * growth, bx * shrink, by * shrink
        else:                                              # the rest after the plan
            px, py, bx, by = self._rest
            shrink = math.exp(-omega * (t - self.duration))
            rx = ry = ux = uy = 0.0
            sx, sy = bx * shrink, by * shrink
        cx, cy = px + ux + sx, py + uy + sy
        square = omega * omega
        return (cx, cy, rx + omega * (ux - sx), ry + omega * (uy - sy), square * (cx - px), square * (cy - py))
