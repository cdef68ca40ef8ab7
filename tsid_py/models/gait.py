"""Gait: the timing and size of a biped's steps, a plain value a robot profile carries as its
walking defaults and a footstep planner reads (:mod:`tsid_py.control.walking.footsteps`).

:func:`gait_for_size` is the rule a profile derives a robot's gait by. The linear inverted
pendulum the walking controller plans on has one length, the **CoM height** ``z`` above the
soles, and one time, ``1/ω = √(z / g)``: sizes scale with ``z`` and times with ``1/ω`` —
dynamically similar walks (equal Froude number ``v² / (g z)``). The ratios are Talos's
measured gait for the sizes (``z`` = 0.877 m: 3 m in 13 steps in MuJoCo, :mod:`tsid_py.robots`)
and, for the swing, the time at which every humanoid tried walked 2 m (G1's URDF and
Unitree's MJCF G1, 0.17 × 0.06 m soles: their soles slid 5 cm at 2.0 / ω, from the swing
leg's reaction, a moment ``∝ 1/T²`` their narrow soles cannot hold; 9 mm or less at 2.6 / ω):

========================  =========================  ==================================
step_length               :data:`STEP_LENGTH` z      Talos: 0.25 m; at most the legs' reach
lateral_step              :data:`LATERAL_STEP` z     Talos: 0.10 m
step_height               :data:`STEP_HEIGHT` z      Talos: 0.05 m
single_support            :data:`SINGLE` / ω         Talos: 0.78 s (measured: 0.6 s)
double_support            :data:`DOUBLE` / ω         Talos: 0.15 s
start_time, end_time      :data:`REST` / ω           Talos: 1.0 s
transition                min(0.05 s, double support)
========================  =========================  ==================================

**The legs' reach** (``straight_length``, ``leg_length``: a leg's straight length and its
length standing, :mod:`tsid_py.models.legs`): a foot half a step ahead of the hip stretches the
stance leg to ``√(ℓ² + (s/2)²)``, kept below :data:`REACH` of the straight leg:
``s ≤ 2 √((REACH ℓ_s)² − ℓ²)``.

Units: m, rad, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .._validation import positive_scalar


#: The gait's sizes per metre of CoM height, and its times per ``1/ω`` (see the module).
STEP_LENGTH, LATERAL_STEP, STEP_HEIGHT = 0.285, 0.114, 0.057
SINGLE, DOUBLE, REST = 2.6, 0.5, 3.3
#: A step stretches the stance leg to at most this fraction of its straight length.
REACH = 0.98


@dataclass(frozen=True)
class Gait:
    """The timing and size of the steps.

    Parameters
    ----------
    step_length : largest forward (or backward) advance of the centre pose per step, m
        (a foot moves up to twice that from one foothold to the next).
    lateral_step : largest sideways advance per step, m.
    max_turn : largest yaw change per step, rad.
    step_width : lateral distance between the feet's centres, m (None: as the robot stands
        at the start of the walk).
    single_support : duration of a swing, s.
    double_support : time both feet are on the ground between two swings, s.
    start_time, end_time : the double support before the first swing (the CoM sets off)
        and after the last touch-down (it comes to rest over the middle of the feet), s.
    step_height : swing foot's clearance at mid-swing, m.
    transition : the force ramp when a sole lands or is unloaded before lift-off, s (at most
        ``double_support``).
    com_rise : how far the CoM rises above its walking height in each single support, m (a
        bump, zero at lift-off and touch-down: :class:`~tsid_py.control.walking.height.RiseProfile`);
        0 for a walk at a constant height.
    free_swing_tilt : whether the swing sole's tilt (its rotation about the horizontal axes)
        is left free in the air: the swing task weighs it
        :data:`~tsid_py.control.walking.controller.FREE_TILT_SHARE` of its other axes.
    """

    step_length: float = 0.2
    lateral_step: float = 0.1
    max_turn: float = math.radians(15.0)
    step_width: float | None = None
    single_support: float = 0.7
    double_support: float = 0.2
    start_time: float = 1.0
    end_time: float = 1.0
    step_height: float = 0.05
    transition: float = 0.05
    com_rise: float = 0.0
    free_swing_tilt: bool = False

    def __post_init__(self):
        for name in ("step_length", "lateral_step", "max_turn", "single_support", "double_support", "start_time",
                     "end_time", "transition"):
            positive_scalar(getattr(self, name), name)
        positive_scalar(self.step_height, "step_height", allow_zero=True)
        positive_scalar(self.com_rise, "com_rise", allow_zero=True)
        if not isinstance(self.free_swing_tilt, bool):
            raise ValueError(f"free_swing_tilt must be a bool, got {self.free_swing_tilt!r}")
        if self.step_width is not None:
            positive_scalar(self.step_width, "step_width")
        if self.transition > min(self.double_support, self.start_time):
            raise ValueError(f"transition must be at most double_support and start_time, got {self.transition}")

    @property
    def step_period(self) -> float:
        """Time from one lift-off to the next, s."""
        return self.single_support + self.double_support

    def with_(self, **changes) -> Gait:
        """A copy with some parameters changed (validated)."""
        return replace(self, **changes)




def gait_for_size(com_height: float, gravity: float = 9.81, *, straight_length: float | None = None,
                  leg_length: float | None = None) -> Gait:
    """The gait of a biped whose CoM stands ``com_height`` m above its soles, its step length
    within the reach of legs ``straight_length`` m long straight and ``leg_length`` m long
    standing (the module's rule; no reach limit when they are not given)."""
    z = positive_scalar(com_height, "com_height")
    inverse_omega = math.sqrt(z / positive_scalar(gravity, "gravity"))
    step_length = STEP_LENGTH * z
    if straight_length is not None and leg_length is not None:
        reach = (REACH * positive_scalar(straight_length, "straight_length")) ** 2 - leg_length**2
        if reach > 0:
            step_length = min(step_length, 2.0 * math.sqrt(reach))
    double = DOUBLE * inverse_omega
    return Gait(step_length=step_length, lateral_step=LATERAL_STEP * z, step_height=STEP_HEIGHT * z,
                single_support=SINGLE * inverse_omega, double_support=double, start_time=REST * inverse_omega,
                end_time=REST * inverse_omega, transition=min(0.05, double))
