"""Gait: the timing and size of a biped's steps, a plain value a robot profile carries as its
walking defaults and a footstep planner reads (:mod:`tsid_py.control.walking.footsteps`).

Units: m, rad, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .._validation import positive_scalar


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

    def __post_init__(self):
        for name in ("step_length", "lateral_step", "max_turn", "single_support", "double_support", "start_time",
                     "end_time", "transition"):
            positive_scalar(getattr(self, name), name)
        positive_scalar(self.step_height, "step_height", allow_zero=True)
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


