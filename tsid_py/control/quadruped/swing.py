"""A point foot's swing: over the foothold first, then straight down onto it.

The biped's :class:`~tsid_py.control.walking.swing.SwingTrajectory` moves the foot
horizontally and vertically over the same time, so near the end the foot is a few
millimetres above the ground while still moving along it: a foot that meets the ground a
little early (a lower body, a higher ground, a tracking error) skids. At a trot's speeds that
is most of the feet's slip (Go2 at 1.5 m/s: 6–8 mm per stance, all in the first 20 ms).

:class:`FootSwing` uses the same pieces with two clocks over a swing of ``T`` s from lift-off:

* **horizontal** (x, y): the quintic from rest to rest (:func:`~tsid_py.control.walking.swing.
  quintic_coefficients`; minimum jerk) over the first ``(1 − s) T``, ``s`` =
  :data:`SETTLE_SHARE`: above the foothold, at rest, before the end;
* **vertical**: the quintic from the lift-off height to the foothold's over the whole swing,
  plus the clearance bump ``h(r) = 64 H r³ (1 − r)³`` (``r = τ / T``,
  :func:`~tsid_py.control.walking.swing.bump`): the last ``s T`` is a vertical descent from
  ``h(1 − s)`` (``0.26 H`` for ``s = 0.2``) to the ground, at zero velocity on touching it.

:meth:`FootSwing.retarget` re-plans the horizontal quintic from the current reference state
(position, velocity, acceleration: the reference stays twice differentiable) to a new
foothold, while there is horizontal time left, and the vertical one to its height.

Units: m, s.
"""

from __future__ import annotations

import numpy as np
from numba import float64, njit, void

from ..._numba import MATRIX, VECTOR, direct_calls
from ..._validation import as_vector, positive_scalar
from ..walking.swing import bump, quintic_coefficients

#: The last share of a swing that is a vertical descent onto the foothold.
SETTLE_SHARE = 0.2


@njit(void(MATRIX, VECTOR, VECTOR, float64, float64, float64, float64, MATRIX), cache=True)
def swing_point(terms, starts, ends, height, lift_off, duration, t, out):
    """``out`` (3, 3): position, velocity, acceleration (rows) at ``t`` of the coordinates'
    quintics ``terms[i] = (x0, v0, a0/2, c3, c4, c5)`` from ``starts[i]`` to ``ends[i]`` (held
    after), plus the bump ``h(r) = 64 H r³ (1 − r)³`` on z (:func:`~tsid_py.control.walking.
    swing.bump`, ``r = (t − lift_off) / duration``)."""
    for i in range(3):
        tau = min(max(t - starts[i], 0.0), ends[i] - starts[i])
        x0, v0, half_a0, c3, c4, c5 = terms[i, 0], terms[i, 1], terms[i, 2], terms[i, 3], terms[i, 4], terms[i, 5]
        out[0, i] = x0 + tau * (v0 + tau * (half_a0 + tau * (c3 + tau * (c4 + tau * c5))))
        out[1, i] = v0 + tau * (2 * half_a0 + tau * (3 * c3 + tau * (4 * c4 + tau * 5 * c5)))
        out[2, i] = 2 * half_a0 + tau * (6 * c3 + tau * (12 * c4 + tau * 20 * c5))
    r = min(max((t - lift_off) / duration, 0.0), 1.0)
    u = 1.0 - r
    out[0, 2] += 64.0 * height * r**3 * u**3
    out[1, 2] += 64.0 * height * 3.0 * r**2 * u**2 * (u - r) / duration
    out[2, 2] += 64.0 * height * 6.0 * r * u * (u * u - 3.0 * r * u + r * r) / duration**2


_direct = direct_calls(swing_point)


class _Quintic:
    """``x(τ) = x0 + v0 τ + a0 τ²/2 + c3 τ³ + c4 τ⁴ + c5 τ⁵`` per coordinate from ``t0`` to
    ``t1`` (rest at the end), held at the end after ``t1`` (plain floats: it runs every step)."""

    def __init__(self, t0: float, t1: float, start, velocity, acceleration, end):
        self.t0, self.t1 = t0, t1
        self.terms = []
        for x0, v0, a0, x1 in zip(start, velocity, acceleration, end):
            c3, c4, c5 = quintic_coefficients(float(x0), float(v0), float(a0), float(x1), t1 - t0)
            self.terms.append((float(x0), float(v0), 0.5 * float(a0), float(c3), float(c4), float(c5)))

    def state(self, t: float) -> tuple[list, list, list]:
        tau = min(max(t - self.t0, 0.0), self.t1 - self.t0)
        position, velocity, acceleration = [], [], []
        for x0, v0, half_a0, c3, c4, c5 in self.terms:
            position.append(x0 + tau * (v0 + tau * (half_a0 + tau * (c3 + tau * (c4 + tau * c5)))))
            velocity.append(v0 + tau * (2 * half_a0 + tau * (3 * c3 + tau * (4 * c4 + tau * 5 * c5))))
            acceleration.append(2 * half_a0 + tau * (6 * c3 + tau * (12 * c4 + tau * 20 * c5)))
        return position, velocity, acceleration


class FootSwing:
    """A point foot's path from ``start`` to ``end`` (3,) between ``lift_off`` and
    ``touch_down`` (s), ``height`` m above the straight line at mid-swing (see the module)."""

    def __init__(self, start, end, lift_off: float, touch_down: float, height: float):
        self.lift_off, self.touch_down = float(lift_off), float(touch_down)
        positive_scalar(self.touch_down - self.lift_off, "touch_down - lift_off")
        self.height = positive_scalar(height, "height", allow_zero=True)
        start, end = as_vector(start, "start", 3), as_vector(end, "end", 3)
        self.horizontal_end = self.lift_off + (1.0 - SETTLE_SHARE) * self.duration
        self.end = end.copy()
        self._xy = _Quintic(self.lift_off, self.horizontal_end, start[:2], (0.0, 0.0), (0.0, 0.0), end[:2])
        self._z = _Quintic(self.lift_off, self.touch_down, start[2:], (0.0,), (0.0,), end[2:])
        self._pack()

    @property
    def duration(self) -> float:
        """``T``, s."""
        return self.touch_down - self.lift_off

    def retarget(self, end, t: float) -> None:
        """Land at ``end`` (3,) instead, from the reference state at ``t`` (see the module);
        nothing once the horizontal motion is over."""
        if t >= self.horizontal_end:
            return
        end = as_vector(end, "end", 3)
        t = max(t, self.lift_off)
        self.end = end.copy()
        self._xy = _Quintic(t, self.horizontal_end, *self._xy.state(t), end[:2])
        self._z = _Quintic(t, self.touch_down, *self._z.state(t), end[2:])
        self._pack()

    def _pack(self) -> None:
        """The quintics' coefficients and clocks as arrays, for :func:`swing_point`."""
        self._terms = np.array(self._xy.terms + self._z.terms)
        self._starts = np.array([self._xy.t0, self._xy.t0, self._z.t0])
        self._ends = np.array([self._xy.t1, self._xy.t1, self._z.t1])

    def point(self, t: float, out: np.ndarray | None = None) -> np.ndarray:
        """(3, 3): the position, velocity and acceleration (rows, world axes) at ``t`` (into
        ``out`` when given), in one compiled call."""
        out = np.empty((3, 3)) if out is None else out
        _direct.swing_point(self._terms, self._starts, self._ends, self.height, self.lift_off, self.duration,
                            float(t), out)
        return out

    def readable_point(self, t: float) -> np.ndarray:
        """:meth:`point` from the quintics and :func:`~tsid_py.control.walking.swing.bump` in
        Python (its definition, for the tests)."""
        (x, y), (vx, vy), (ax, ay) = self._xy.state(t)
        (z,), (vz,), (az,) = self._z.state(t)
        h, dh, ddh = bump(self.height, self.duration, t - self.lift_off)
        return np.array([[x, y, z + h], [vx, vy, vz + dh], [ax, ay, az + ddh]])
