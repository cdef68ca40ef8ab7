"""The CoM height of a walk over uneven ground: the ground under the walker, smoothed in time.

On flat ground a walk keeps its CoM at the start height. Up a slope or a flight of steps the
CoM must rise with the feet, or the legs stretch straight (and down, fold up). The plan's
**ground height** ``g(t)`` passes through knots

* ``(0, ḡ_0)``: the mean height of the two feet at the start;
* for each step, at the middle of the double support after it, the height of the lower of
  the two feet (up a flight of steps with a foot on each tread these rise evenly, a tread a
  step). The lower foot, not the mean: with the CoM held above the mean, the trailing leg,
  on the lower tread, stretched straight at the end of each double support (measured on
  Talos stepping up 5 cm: its knee at its limit, the CoM task out of reach, the capture
  point 2.5 cm behind its plan at lift-off and 5.7 cm at worst, the centre of pressure on
  the sole's edge in 900 control steps of a 3 m walk; over the lower foot: 1.9 cm, never on
  the edge);
* at the end of the plan, the mean height of the two feet where they stand;

joined by a cubic spline with zero slope at both ends (C², so the CoM's vertical
acceleration is continuous), constant before the first and after the last knot. The CoM
height is ``z(t) = g(t) + z_0``, ``z_0`` the start's CoM height above ``ḡ_0``. On a constant
slope the knots are nearly evenly spaced on a line and the CoM rises at nearly constant
speed; on level ground every knot is ``ḡ_0`` and ``z`` is the start height.

A walk may also **rise** in each single support (:class:`RiseProfile`, the gait's
``com_rise``): a robot whose stance leg reaches the CoM over its sole only when it
straightens (see :func:`tsid_py.models.reach.com_rise`) lifts its CoM by
``h(r) = 64 H r³ (1 − r)³``, ``r`` the fraction of the swing done: ``H`` at mid-swing, zero
with zero velocity and acceleration at lift-off and touch-down.

Units: m, s.
"""

from __future__ import annotations

import bisect

import numpy as np

from .swing import bump


class HeightProfile:
    """``z(t)``, ``ż``, ``z̈`` of a cubic spline through the knots ``(times, heights)``
    (increasing times), zero slope at both ends, constant outside them."""

    def __init__(self, times, heights):
        times, heights = np.asarray(times, dtype=float), np.asarray(heights, dtype=float)
        if times.ndim != 1 or times.shape != heights.shape or times.size < 1:
            raise ValueError(f"times and heights must be 1-D of one length ≥ 1, got {times.shape} and {heights.shape}")
        if np.any(np.diff(times) <= 0):
            raise ValueError("times must increase")
        self.times, self.heights = times, heights
        self.constant = bool(np.ptp(heights) < 1e-12) or times.size == 1
        self._first, self._last = float(heights[0]), float(heights[-1])
        if self.constant:
            self._breaks, self._pieces = [], []
            return
        from scipy.interpolate import CubicSpline

        spline = CubicSpline(times, heights, bc_type="clamped")
        self._breaks = times.tolist()
        # per piece (t_k, c3, c2, c1, c0): z = c0 + c1 τ + c2 τ² + c3 τ³, τ = t − t_k
        self._pieces = [tuple(float(value) for value in (times[k], *spline.c[:, k])) for k in range(times.size - 1)]

    def state(self, t: float) -> tuple[float, float, float]:
        """``(z, ż, z̈)`` at ``t`` s, plain floats."""
        if self.constant or t <= self._breaks[0]:
            return self._first, 0.0, 0.0
        if t >= self._breaks[-1]:
            return self._last, 0.0, 0.0
        start, c3, c2, c1, c0 = self._pieces[bisect.bisect_right(self._breaks, t) - 1]
        tau = t - start
        return (c0 + tau * (c1 + tau * (c2 + tau * c3)), c1 + tau * (2.0 * c2 + 3.0 * tau * c3),
                2.0 * c2 + 6.0 * tau * c3)

    def sample(self, t) -> np.ndarray:
        """Heights at the times ``t`` (an array), m."""
        return np.array([self.state(float(time))[0] for time in np.atleast_1d(t)])


class RiseProfile:
    """The CoM's rise ``(h, ḣ, ḧ)`` at ``t``: ``bump(rise, T, t − start)`` within each of the
    ``intervals`` ``[(start, end), …]`` s (increasing, disjoint; the single supports), 0
    outside them (see the module)."""

    def __init__(self, intervals, rise: float):
        self.intervals = [(float(start), float(end)) for start, end in intervals]
        self.rise = float(rise)
        self._starts = [start for start, _ in self.intervals]

    def state(self, t: float) -> tuple[float, float, float]:
        """``(h, ḣ, ḧ)`` at ``t`` s (m, m/s, m/s²), plain floats."""
        index = bisect.bisect_right(self._starts, t) - 1
        if self.rise == 0.0 or index < 0 or t >= self.intervals[index][1]:
            return 0.0, 0.0, 0.0
        start, end = self.intervals[index]
        return bump(self.rise, end - start, t - start)
