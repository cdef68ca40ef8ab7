"""WalkPlan: footsteps, timing, contact schedule, CoM and swing-foot references of one walk.

The timeline of a walk of ``n`` footsteps with the :class:`~.footsteps.Gait`'s durations:

====================  ==================  ==============================================
phase                  duration            ZMP (the LIPM plan, :mod:`.lipm`)
====================  ==================  ==============================================
start (both feet)      ``start_time``      from near the CoM to the first stance foot
step i: single         ``single_support``  fixed at the stance foot's centre
step i: double         ``double_support``  linearly to the foot that just landed
(last step: double)    ``end_time``        linearly to the middle of the two feet
rest                   (open-ended)        stays there; the CoM converges to it
====================  ==================  ==============================================

Contact schedule: the swing foot's force ramps to zero over the last ``transition`` s of
the double support before its lift-off (:meth:`tsid_py.DynamicsSolver.remove_contact` with
a transition), it swings along a :class:`~.swing.SwingTrajectory`, and at touch-down it is
added back with a ramp of ``transition`` s. The ZMP reaches the stance foot exactly when the
other foot lifts, so the planned load of a lifting foot is zero.

Everything is horizontal except the CoM height, held at its start value.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..._validation import as_vector, positive_scalar
from .footsteps import MAX_FOOTSTEPS, Footstep, Gait
from .lipm import DCMTrajectory, ZMPSegment
from .angles import level_placement, mean_yaw, wrap_angle
from .swing import SwingTrajectory

#: Contact events of a plan, in time order: ``(time, kind, foot, step)``.
UNLOAD, LIFT, LAND = "unload", "lift", "land"

def check_reach(start: dict[str, Footstep], footsteps, gait: Gait) -> None:
    """``ValueError`` naming the first footstep the legs cannot reach: not finite, farther
    from the stance foot's foothold (horizontally) than twice the gait's largest step —
    ``2 √((step_length + lateral_step)² + (width + lateral_step)²)``, ``width`` the gait's
    step width or the start stance's — or turned more than twice ``max_turn`` from it, or
    higher or lower than that reach."""
    where = dict(start)
    names = list(start)
    width = gait.step_width or float(np.linalg.norm(where[names[0]].xy - where[names[1]].xy))
    reach = 2.0 * float(np.hypot(gait.step_length + gait.lateral_step, width + gait.lateral_step))
    for index, step in enumerate(footsteps):
        values = (step.x, step.y, step.z, step.yaw)
        if not all(np.isfinite(value) for value in values):
            raise ValueError(f"footstep {index} ({step.foot!r}) must be finite, got x={step.x}, y={step.y}, "
                             f"z={step.z}, yaw={step.yaw}")
        stance = where[next(name for name in names if name != step.foot)]
        distance = float(np.linalg.norm(step.xy - stance.xy))
        turn = abs(wrap_angle(step.yaw - stance.yaw))
        if distance > reach or abs(step.z - stance.z) > reach or turn > 2.0 * gait.max_turn:
            raise ValueError(f"footstep {index} ({step.foot!r}) is out of reach of the stance foot {stance.foot!r}: "
                             f"{distance:.3g} m away (reach {reach:.3g} m), {step.z - stance.z:+.3g} m up, turned "
                             f"{np.degrees(turn):.3g}° (at most {np.degrees(2 * gait.max_turn):.3g}°)")
        where[step.foot] = step


@dataclass(frozen=True)
class Phase:
    """``[start, end)`` s of the plan with ``stance`` feet on the ground and ``swing`` (or
    None) in the air; ``step`` indexes :attr:`WalkPlan.footsteps` (None outside steps)."""

    kind: str
    start: float
    end: float
    stance: tuple[str, ...]
    swing: str | None = None
    step: int | None = None


class WalkPlan:
    """The references of a walk from feet ``start_feet`` and CoM ``com`` through
    ``footsteps``.

    Parameters
    ----------
    start_feet : where the two feet stand at the start, ``{name: Footstep}`` (or a list).
    footsteps : where each swing lands, in order (:func:`~.footsteps.plan_footsteps`).
    com : CoM position at the start (3,), m; its height is kept.
    omega : the LIPM frequency ``√(g / z)``, 1/s.
    gait : durations, step height and force ramps.
    com_velocity : horizontal CoM velocity at the start (2,), m/s (default 0).

    Times are seconds from the plan's start; after :attr:`duration` the robot stands.
    """

    def __init__(self, start_feet, footsteps, com, omega: float, gait: Gait | None = None, com_velocity=None):
        self.gait = gait = gait or Gait()
        feet = {step.foot: step for step in (start_feet.values() if isinstance(start_feet, dict) else start_feet)}
        if len(feet) != 2:
            raise ValueError(f"start_feet must name two feet, got {list(feet)}")
        self.footsteps: list[Footstep] = list(footsteps)
        if not self.footsteps:
            raise ValueError("footsteps must hold at least one step")
        if len(self.footsteps) > MAX_FOOTSTEPS:
            raise ValueError(f"footsteps must be at most {MAX_FOOTSTEPS} in one plan (split a long walk into "
                             f"several), got {len(self.footsteps)}")
        for step in self.footsteps:
            if not isinstance(step, Footstep):
                raise ValueError(f"footsteps must be Footstep values, got {type(step).__name__}")
            if step.foot not in feet:
                raise KeyError(f"footstep of foot {step.foot!r}: not one of the start feet {list(feet)}")
        check_reach(feet, self.footsteps, gait)
        self.start_feet = dict(feet)
        self.com_start = as_vector(com, "com", 3).copy()
        self.omega = positive_scalar(omega, "omega")
        self.phases: list[Phase] = []
        self.swings: list[SwingTrajectory] = []
        self.events: list[tuple[float, str, str, int]] = []
        segments = self._timeline(feet)
        self.duration = self.phases[-1].end
        self.com_trajectory = DCMTrajectory(self.omega, segments, self.com_start[:2], com_velocity)
        self._phase_starts = [phase.start for phase in self.phases]

    def _timeline(self, feet: dict[str, Footstep]) -> list[ZMPSegment]:
        """Phases, swings, contact events and the ZMP segments, step by step."""
        gait, names = self.gait, list(feet)
        where = dict(feet)                          # each foot's current foothold
        first = self.footsteps[0].foot
        stance = next(name for name in names if name != first)
        segments = [ZMPSegment(gait.start_time, 0.5 * (where[names[0]].xy + where[names[1]].xy), where[stance].xy)]
        self.phases.append(Phase("start", 0.0, gait.start_time, tuple(names)))
        t = gait.start_time
        for index, step in enumerate(self.footsteps):
            swing = step.foot
            stance = next(name for name in names if name != swing)
            lift, land = t, t + gait.single_support
            self.events += [(lift - gait.transition, UNLOAD, swing, index), (lift, LIFT, swing, index),
                            (land, LAND, swing, index)]
            self.swings.append(SwingTrajectory(level_placement(where[swing].position, where[swing].yaw),
                                               level_placement(step.position, step.yaw), lift, land,
                                               gait.step_height))
            self.phases.append(Phase("single", lift, land, (stance,), swing, index))
            segments.append(ZMPSegment(gait.single_support, where[stance].xy, where[stance].xy))
            where[swing] = step
            last = index == len(self.footsteps) - 1
            double = gait.end_time if last else gait.double_support
            target = 0.5 * (where[names[0]].xy + where[names[1]].xy) if last else step.xy
            segments.append(ZMPSegment(double, where[stance].xy, target))
            self.phases.append(Phase("end" if last else "double", land, land + double, tuple(names), step=index))
            t = land + double
        return segments

    # ------------------------------------------------------------------ queries
    def phase_at(self, t: float) -> Phase:
        """The phase at ``t`` s (the last one after the end)."""
        index = bisect.bisect_right(self._phase_starts, t) - 1
        return self.phases[min(max(index, 0), len(self.phases) - 1)]

    def com(self, t):
        """CoM position, velocity, acceleration (3,) at ``t`` s (arrays (n, 3) for an array
        of times): the LIPM plan horizontally, the start height vertically."""
        sample = self.com_trajectory.sample(t)
        height = np.broadcast_to(self.com_start[2], sample.com.shape[:-1] + (1,))
        zeros = np.zeros_like(height)
        return (np.concatenate([sample.com, height], axis=-1),
                np.concatenate([sample.com_velocity, zeros], axis=-1),
                np.concatenate([sample.com_acceleration, zeros], axis=-1))

    def zmp(self, t) -> np.ndarray:
        """The planned ZMP (x, y) at ``t`` s (or (n, 2) at an array of times)."""
        return self.com_trajectory.sample(t).zmp

    def footholds_at(self, t: float) -> dict[str, Footstep]:
        """Where each foot is planned to stand (or to land, while it swings) at ``t`` s."""
        where = dict(self.start_feet)
        for phase in self.phases:
            if phase.kind == "single" and phase.start <= t:
                step = self.footsteps[phase.step]
                where[step.foot] = step
        return where

    def heading(self, t: float) -> float:
        """The walker's heading (rad) at ``t``: the mean yaw of the two feet, the swing foot's
        interpolated along its swing."""
        phase = self.phase_at(t)
        yaws = []
        for name, step in self.footholds_at(t).items():
            if name == phase.swing and phase.start <= t < phase.end:
                yaws.append(self.swings[phase.step].sample(t).yaw)
            else:
                yaws.append(step.yaw)
        return mean_yaw(*yaws)

    @property
    def walking_time(self) -> float:
        """From the first lift-off to the last touch-down, s."""
        swings = [phase for phase in self.phases if phase.kind == "single"]
        return swings[-1].end - swings[0].start
