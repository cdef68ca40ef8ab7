r"""Step adjustment during a walk: the landing footstep moved when the capture point runs off
its plan (a push, a slip, a foot that landed elsewhere).

**Prediction.** In single support the capture point obeys ``ξ̇ = ω (ξ − p)``
(:mod:`tsid_py.control.capture_point`), and the plan holds the centre of pressure at the
stance foot's planned ZMP ``p_s`` until the swing foot lands at ``T``. From the measured
``ξ(t)``, with ``p = p_s`` meanwhile, the capture point at touch-down is

.. math::

    ξ_T = p_s + (ξ(t) − p_s)\, e^{ω (T − t)},

and its error from the plan's ``ξ_ref(T)`` is ``e = ξ_T − ξ_ref(T)``. (The capture-point task
moves the centre of pressure to fight ``e``, but a sole only offers so much: past it, the
error at touch-down grows by ``e^{ω (T − t)}``.)

**The capture point leaving its support.** The plan puts ``ξ_ref(T)`` where the landing
footstep and the stance foot can catch it; ``ξ_T`` is off by ``e``. The stance sole can take
some of it: a centre of pressure held at ``p_s + δ`` instead lands the capture point
``g δ`` closer, ``g = e^{ω (T − t)} − 1``, so an error with ``δ = e / g`` inside the stance
sole (its contact rectangle about ``p_s``, in its axes) is the capture-point task's to fix.
Past it — the capture point, seen from touch-down, has left the support the stance sole
gives — and past ``threshold`` (the smallest move worth making), the landing footstep —
and every later one, so the walk goes on parallel to its plan — moves by the part of ``e``
the sole would not take at ``keep`` of its size: ``e − g clamp(e / g)``, the clamp to the
rectangle scaled by ``keep`` (the sole keeps a share of the correction, and the next check
does not move the foot back and forth on measurement noise). A plan translated by ``e`` from
touch-down on would be the plan of a capture point at ``ξ_T``; the moved landing stays
within the legs' reach measured in the stance sole's frame: along it in ``[−backward,
forward]``, across it, on the swing foot's side, in ``[min_width, max_width]`` (the feet never
cross). The footsteps are put back on the terrain (:func:`~.footholds.place_footstep`), the
swing re-aimed (:meth:`~.swing.SwingTrajectory.retarget`) and the CoM re-planned from the
measured state (:meth:`~.plan.WalkPlan.replan`). It is checked every ``period`` s until
``until`` of the swing has passed (later the foot cannot get there smoothly), and only in
single support: the capture point of a double support is caught at the next swing's start.

Units: m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validation import positive_scalar
from .footsteps import Footstep


@dataclass
class StepAdjustment:
    """Capture-point step adjustment during a walk (see the module); lengths in m, times in
    s, ``until`` a fraction of the swing."""

    forward: float
    backward: float
    min_width: float
    max_width: float
    sole_size: tuple[float, float] = (0.2, 0.1)
    keep: float = 0.5
    threshold: float = 0.01
    until: float = 0.6
    period: float = 0.005

    def __post_init__(self):
        self.sole_size = tuple(positive_scalar(value, "sole_size") for value in self.sole_size)
        if len(self.sole_size) != 2:
            raise ValueError(f"sole_size must be (length, width), got {self.sole_size!r}")
        if not 0.0 <= positive_scalar(self.keep, "keep", allow_zero=True) <= 1.0:
            raise ValueError(f"keep must be in [0, 1], got {self.keep!r}")
        for name in ("forward", "backward", "min_width", "max_width", "threshold", "period"):
            setattr(self, name, positive_scalar(getattr(self, name), name))
        if self.max_width <= self.min_width:
            raise ValueError(f"max_width must exceed min_width, got {self.max_width!r} ≤ {self.min_width!r}")
        if not 0.0 <= positive_scalar(self.until, "until", allow_zero=True) <= 1.0:
            raise ValueError(f"until must be in [0, 1], got {self.until!r}")

    @classmethod
    def for_robot(cls, com_height: float, step_width: float, sole_size, **options) -> StepAdjustment:
        """Reach scaled to a humanoid of CoM height ``z`` (as
        :meth:`~.recovery.StepRecovery.for_robot`: forward 0.5 z, backward 0.35 z, feet at
        most 0.7 z apart), the narrowest stance three quarters of the walk's ``step_width``,
        ``sole_size`` the stance sole's contact rectangle."""
        defaults = {"forward": 0.5 * com_height, "backward": 0.35 * com_height, "min_width": 0.75 * step_width,
                    "max_width": max(0.7 * com_height, 1.5 * step_width), "sole_size": tuple(sole_size)}
        return cls(**{**defaults, **options})

    def needed(self, error, stance_yaw: float, omega: float, time_left: float) -> bool:
        """Whether the error ``e`` (2,) m at touch-down, ``time_left`` s ahead, is past the
        threshold and past what the stance sole (heading ``stance_yaw``) can take (see the
        module)."""
        if math.hypot(float(error[0]), float(error[1])) <= self.threshold:
            return False
        along, across = self._in_sole(error, stance_yaw, omega, time_left)
        return abs(along) > 0.5 * self.sole_size[0] or abs(across) > 0.5 * self.sole_size[1]

    def offset(self, error, stance_yaw: float, omega: float, time_left: float) -> np.ndarray:
        """How far (2,) m to move the landing: the part of ``e`` the sole does not take at
        ``keep`` of its size, ``e − g clamp(e / g)`` (see the module)."""
        along, across = self._in_sole(error, stance_yaw, omega, time_left)
        half_length, half_width = 0.5 * self.keep * self.sole_size[0], 0.5 * self.keep * self.sole_size[1]
        gain = math.expm1(omega * max(time_left, 0.0))
        along = gain * (along - min(max(along, -half_length), half_length))
        across = gain * (across - min(max(across, -half_width), half_width))
        c, s = math.cos(stance_yaw), math.sin(stance_yaw)
        return np.array([c * along - s * across, s * along + c * across])

    @staticmethod
    def _in_sole(error, stance_yaw: float, omega: float, time_left: float) -> tuple[float, float]:
        """``δ = e / g`` in the stance sole's axes (along, across), m."""
        gain = max(math.expm1(omega * max(time_left, 0.0)), 1e-9)
        c, s = math.cos(stance_yaw), math.sin(stance_yaw)
        ex, ey = float(error[0]) / gain, float(error[1]) / gain
        return c * ex + s * ey, -s * ex + c * ey

    def error(self, dcm, stance_zmp, planned_dcm, omega: float, time_left: float) -> np.ndarray:
        """``e = ξ_T − ξ_ref(T)`` (2,) m of the module, from the measured capture point
        ``dcm``, the stance's planned ZMP and the plan's capture point at touch-down, ``time_left``
        s before it."""
        pivot = np.asarray(stance_zmp, dtype=float)
        predicted = pivot + (np.asarray(dcm, dtype=float) - pivot) * math.exp(omega * max(time_left, 0.0))
        return predicted - np.asarray(planned_dcm, dtype=float)

    def landing(self, planned: Footstep, offset, stance: Footstep, lifted: Footstep) -> tuple[float, float]:
        """Where ``planned`` lands once moved by ``offset`` (2,) m, clamped to the reach from
        ``stance`` (see the module) on the side of ``stance`` the swing foot ``lifted`` from:
        its ``(x, y)``."""
        c, s = math.cos(stance.yaw), math.sin(stance.yaw)
        to_frame = np.array([[c, s], [-s, c]])
        side = 1.0 if (to_frame @ (lifted.xy - stance.xy))[1] >= 0 else -1.0
        along, across = to_frame @ (planned.xy + np.asarray(offset, dtype=float) - stance.xy)
        along = min(max(along, -self.backward), self.forward)
        across = side * min(max(side * across, self.min_width), self.max_width)
        x, y = stance.xy + to_frame.T @ np.array([along, across])
        return float(x), float(y)
