"""WalkPlan: footsteps, timing, contact schedule, CoM and swing-foot references of one walk.

The timeline of a walk of ``n`` footsteps with the :class:`~.footsteps.Gait`'s durations:

====================  ==================  ==============================================
phase                  duration            ZMP (the LIPM plan, :mod:`.lipm`)
====================  ==================  ==============================================
start (both feet)      ``start_time``      from near the CoM to the first stance foot
step i: single         ``single_support``  fixed at the stance foot's support point
step i: double         ``double_support``  linearly to the foot that just landed
(last step: double)    ``end_time``        linearly to the middle of the two feet
rest                   (open-ended)        stays there; the CoM converges to it
====================  ==================  ==============================================

Contact schedule: the swing foot's force ramps to zero over the last ``transition`` s of
the double support before its lift-off (:meth:`tsid_py.DynamicsSolver.remove_contact` with
a transition), it swings along a :class:`~.swing.SwingTrajectory`, and at touch-down it is
added back with a ramp of ``transition`` s. The ZMP reaches the stance foot exactly when the
other foot lifts, so the planned load of a lifting foot is zero.

The footsteps carry their full pose (height and surface normal, :mod:`.footholds` places
them on a :class:`~tsid_py.control.terrain.Terrain`); the swings land aligned with it and, given the
terrain, clear the ground between footholds (:func:`~.footholds.swing_apex`). The CoM plan
is horizontal (the LIPM above); its height follows the ground under the walker and rises
in single support by the gait's ``com_rise`` (:mod:`.height`).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..._validation import as_vector, positive_scalar
from .footsteps import MAX_FOOTSTEPS, Footstep, Gait
from .lipm import DCMTrajectory, ZMPSegment
from ..capture_point import sole_outline
from ..terrain import Terrain
from .angles import mean_yaw, wrap_angle
from .footholds import clear_swing
from .height import HeightProfile, RiseProfile
from .swing import SwingTrajectory

#: Contact events of a plan, in time order: ``(time, kind, foot, step)``.
UNLOAD, LIFT, LAND = "unload", "lift", "land"

def check_reach(start: dict[str, Footstep], footsteps, gait: Gait, sole_size=None) -> None:
    """``ValueError`` naming the first footstep the legs cannot reach: not finite, farther
    from the stance foot's foothold (horizontally) than twice the gait's largest step —
    ``2 √((step_length + lateral_step)² + (width + lateral_step)²)``, ``width`` the gait's
    step width or the start stance's — or turned more than twice ``max_turn`` from it, or
    higher or lower than that reach; or where the legs would cross: on the other side of the
    stance foot (in its frame) than the foot stood at the start, or with the soles
    (``sole_size`` (length, width) m, when given) overlapping."""
    where = dict(start)
    names = list(start)
    width = gait.step_width or float(np.linalg.norm(where[names[0]].xy - where[names[1]].xy))
    reach = 2.0 * float(np.hypot(gait.step_length + gait.lateral_step, width + gait.lateral_step))
    sides = {name: _side(where[name], where[other]) for name, other in (names, names[::-1])}
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
        on_it = sole_size is not None and _soles_overlap(step, stance, sole_size)
        if on_it or sides[step.foot] and _side(step, stance) != sides[step.foot]:
            raise ValueError(f"footstep {index} ({step.foot!r}) would cross the legs: it lands "
                             f"{'on' if on_it else 'beyond'} the stance foot {stance.foot!r} (x={stance.x:.3g}, "
                             f"y={stance.y:.3g} m), got x={step.x:.3g}, y={step.y:.3g} m; it stood to its "
                             f"{'left' if sides[step.foot] > 0 else 'right'}")
        where[step.foot] = step


def _side(step: Footstep, other: Footstep) -> int:
    """+1 when ``step`` is to the left of ``other`` in ``other``'s frame, −1 to its right, 0
    on its line (a tandem stance: no side to keep)."""
    lateral = other.across(step.x, step.y)
    return 0 if abs(lateral) < 1e-6 else int(np.sign(lateral))


def _soles_overlap(first: Footstep, second: Footstep, size) -> bool:
    """Whether two level ``size = (length, width)`` sole rectangles at ``first`` and
    ``second`` overlap: no axis of either separates their corners (separating axes). Centres
    farther apart than a rectangle's diagonal cannot (the test most pairs of a plan meet)."""
    if (first.x - second.x) ** 2 + (first.y - second.y) ** 2 > size[0] ** 2 + size[1] ** 2:
        return False
    corners = [sole_outline(step.x, step.y, step.yaw, size) for step in (first, second)]
    for step in (first, second):
        for axis in ((np.cos(step.yaw), np.sin(step.yaw)), (-np.sin(step.yaw), np.cos(step.yaw))):
            one, two = corners[0] @ axis, corners[1] @ axis
            if one.max() <= two.min() or two.max() <= one.min():
                return False
    return True


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
    terrain, sole_size : the ground (:class:`~tsid_py.control.terrain.Terrain`) and the soles'
        ``(length, width)`` m: each swing clears the ground between its footholds
        (:func:`~.footholds.clear_swing`: its apex the gait's ``step_height`` above the
        highest ground, its horizontal motion held back near a riser). Without, the apex is
        ``step_height`` above the higher foothold.

    Times are seconds from the plan's start; after :attr:`duration` the robot stands.
    """

    def __init__(self, start_feet, footsteps, com, omega: float, gait: Gait | None = None, com_velocity=None, *,
                 terrain: Terrain | None = None, sole_size=None):
        if terrain is not None and sole_size is None:
            raise ValueError("sole_size must be given with a terrain (the swept footprint the swings clear)")
        self.terrain, self.sole_size = terrain, sole_size
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
        check_reach(feet, self.footsteps, gait, sole_size)
        self.start_feet = dict(feet)
        self.com_start = as_vector(com, "com", 3).copy()
        self.omega = positive_scalar(omega, "omega")
        self.phases: list[Phase] = []
        self.events: list[tuple[float, str, str, int]] = []
        self._timeline(feet)
        self.duration = self.phases[-1].end
        self._phase_starts = [phase.start for phase in self.phases]
        self.swings: list[SwingTrajectory] = self._swings(0)
        #: The CoM plan (:class:`~.lipm.DCMTrajectory`), from :attr:`com_origin` s of the
        #: plan's time on (0, unless re-planned during the walk: :meth:`replan`).
        self.com_trajectory = DCMTrajectory(self.omega, self._segments(), self.com_start[:2], com_velocity)
        self.com_origin = 0.0
        ground = self._ground_knots()
        #: The ground height under the walker (:mod:`.height`); the CoM is ``com_height`` above it.
        self.ground = HeightProfile(*ground)
        self.com_height = float(self.com_start[2] - ground[1][0])
        #: The CoM's rise in each single support (:class:`~.height.RiseProfile`, the gait's ``com_rise``).
        self.rise = self._rise()

    def _timeline(self, feet: dict[str, Footstep]) -> None:
        """Phases and contact events, step by step."""
        gait, names = self.gait, list(feet)
        self.phases.append(Phase("start", 0.0, gait.start_time, tuple(names)))
        t = gait.start_time
        for index, step in enumerate(self.footsteps):
            swing = step.foot
            stance = next(name for name in names if name != swing)
            lift, land = t, t + gait.single_support
            self.events += [(lift - gait.transition, UNLOAD, swing, index), (lift, LIFT, swing, index),
                            (land, LAND, swing, index)]
            self.phases.append(Phase("single", lift, land, (stance,), swing, index))
            last = index == len(self.footsteps) - 1
            double = gait.end_time if last else gait.double_support
            self.phases.append(Phase("end" if last else "double", land, land + double, tuple(names), step=index))
            t = land + double

    def _where_before(self, index: int) -> dict[str, Footstep]:
        """Each foot's foothold before footstep ``index`` lands."""
        where = dict(self.start_feet)
        for step in self.footsteps[:index]:
            where[step.foot] = step
        return where

    def _swings(self, first: int) -> list[SwingTrajectory]:
        """The swings of footsteps ``first`` on (each from its foot's previous foothold)."""
        gait, where, swings = self.gait, self._where_before(first), []
        phases = [phase for phase in self.phases if phase.kind == "single"]
        for index in range(first, len(self.footsteps)):
            step = self.footsteps[index]
            phase = phases[index]
            if self.terrain is None:
                swings.append(SwingTrajectory(where[step.foot].placement, step.placement, phase.start, phase.end,
                                              gait.step_height))
            else:
                swings.append(clear_swing(self.terrain, where[step.foot], step, phase.start, phase.end,
                                          self.sole_size, gait.step_height))
            where[step.foot] = step
        return swings

    def _segments(self) -> list[ZMPSegment]:
        """The ZMP plan of the phases (:mod:`.lipm`): to the first stance foot, then fixed on
        each stance foot in single support, to the landed foot in double support, to the
        middle of the feet at the end."""
        names = list(self.start_feet)
        where = {name: step.support_point for name, step in self.start_feet.items()}
        first = self.footsteps[0].foot
        stance = next(name for name in names if name != first)
        segments = [ZMPSegment(self.gait.start_time, 0.5 * (where[names[0]] + where[names[1]]), where[stance])]
        for phase in self.phases[1:]:
            step = self.footsteps[phase.step]
            stance = next(name for name in names if name != step.foot)
            if phase.kind == "single":
                segments.append(ZMPSegment(phase.end - phase.start, where[stance], where[stance]))
                continue
            where[step.foot] = step.support_point
            target = 0.5 * (where[names[0]] + where[names[1]]) if phase.kind == "end" else where[step.foot]
            segments.append(ZMPSegment(phase.end - phase.start, where[stance], target))
        return segments

    def _ground_knots(self) -> tuple[list[float], list[float]]:
        """The ground-height knots of :mod:`.height`: the start, each double support's
        middle, the end."""
        where = dict(self.start_feet)
        times, heights = [0.0], [float(np.mean([step.z for step in where.values()]))]
        for phase in self.phases[1:]:
            if phase.kind == "single":
                continue
            step = self.footsteps[phase.step]
            where[step.foot] = step
            heights.append(min(foot.z for foot in where.values()))
            times.append(0.5 * (phase.start + phase.end) if phase.kind != "end" else phase.end)
        return times, heights

    def replan(self, t: float, index: int, footsteps, com, com_velocity, touch_down: float | None = None,
               next_timing=None) -> None:
        """From time ``t`` s of the plan on, land footsteps ``index``, ``index + 1``, … at
        ``footsteps`` instead (same feet; ``index`` is the swing under way or a later one,
        whose swings are rebuilt — the one under way is for its follower to re-aim,
        :meth:`~.swing.SwingTrajectory.retarget`), and plan the CoM anew from the
        horizontal CoM position ``com`` (2,) m and velocity ``com_velocity`` (2,) m/s at
        ``t``: the ZMP plan of the rest of the walk over the new footholds, its DCM by the
        backward recursion, the CoM continuous from ``com`` (:class:`~.lipm.DCMTrajectory`
        without a solved start). ``touch_down`` (s; None: as planned): the swing under way
        lands then instead, after ``t`` (earlier or later than planned), and every later
        phase and contact event comes that much earlier or later. ``next_timing``, a list of ``(double, single)`` s
        (None: as planned): the double support before each of footsteps ``index + 1``,
        ``index + 2``, … and its swing last that long instead (:meth:`_retime`; a quick step
        after a landing brought forward, then a settling double support, :mod:`.sequence`).
        The ground-height profile is rebuilt over all footholds. ``ValueError`` (the plan
        unchanged) when a footstep is out of reach (:func:`check_reach`), the touch-down is not
        one the swing under way can take, or the timing is not one the next step can take."""
        footsteps = list(footsteps)
        if len(footsteps) != len(self.footsteps) - index or any(
                new.foot != old.foot for new, old in zip(footsteps, self.footsteps[index:])):
            raise ValueError(f"footsteps must replace footsteps {index}… foot for foot, got "
                             f"{[step.foot for step in footsteps]}")
        check_reach(self.start_feet, self.footsteps[:index] + footsteps, self.gait, self.sole_size)   # before any change
        under_way = self.phase_at(t)
        timings = [] if next_timing is None else [tuple(positive_scalar(value, "next_timing") for value in pair)
                                                  for pair in next_timing]
        if (index + len(timings) >= len(self.footsteps) or any(len(pair) != 2 for pair in timings)
                or any(double < self.gait.transition for double, _ in timings)):
            raise ValueError(f"next_timing must re-time next steps (footsteps {index + 1}… of {len(self.footsteps)}) "
                             f"as (double, single) pairs, each double support at least the gait's transition "
                             f"{self.gait.transition} s, got {next_timing!r}")
        if touch_down is not None:
            if not (under_way.kind == "single" and under_way.step == index and t < touch_down):
                raise ValueError(f"touch_down must end the swing of footstep {index} under way at {t:.3f} s, "
                                 f"after it, got {touch_down!r}")
            self._shift_from(under_way.end, touch_down - under_way.end)
            under_way = self.phase_at(t)
        for step, (double, single) in enumerate(timings, start=index + 1):
            self._retime(step, double, single)
        self.footsteps[index:] = footsteps
        keep = index + 1 if under_way.kind == "single" and under_way.step == index else index
        self.swings[keep:] = self._swings(keep)
        self._replan_com(t, com, com_velocity)

    def delay_lift_off(self, t: float, step: int, delay: float, com, com_velocity) -> None:
        """At time ``t`` s of the plan, before footstep ``step``'s lift-off (in the swing before
        it or the double support after that), lift that foot ``delay`` s later: the double support lasts
        that much longer, its unloading starts the gait's ``transition`` before the new
        lift-off, and every later phase and contact event comes ``delay`` s later; the CoM is
        planned anew from the horizontal CoM position ``com`` (2,) m and velocity
        ``com_velocity`` (2,) m/s at ``t``, as :meth:`replan` does (:mod:`.liftoff` chooses
        the delay). ``ValueError`` (the plan unchanged) when footstep
        ``step`` is not the next to lift at ``t``."""
        delay = positive_scalar(delay, "delay")
        if not 0 <= step < len(self.footsteps):
            raise ValueError(f"step must index a footstep (0…{len(self.footsteps) - 1}), got {step!r}")
        position = next(k for k, phase in enumerate(self.phases) if phase.kind == "single" and phase.step == step)
        before, swing = self.phases[position - 1], self.phases[position]
        previous = self.phases[position - 2].start if position >= 2 else 0.0     # the swing before it lifts
        if not previous - 1e-9 <= t < swing.start:
            raise ValueError(f"delay_lift_off: footstep {step} lifts at {swing.start:.3f} s; at {t:.3f} s it is not "
                             "the next to lift")
        self._retime(step, swing.start - before.start + delay, swing.end - swing.start)
        self.swings[step:] = self._swings(step)
        self._replan_com(t, com, com_velocity)

    def advance_lift_off(self, t: float, step: int, com, com_velocity) -> None:
        """At time ``t`` s of the plan, in the double support before footstep ``step``'s
        lift-off and before its unloading has begun, unload that foot now and lift it the
        gait's ``transition`` later: the double support ends then, the swing lasts as long,
        and every later phase and contact event comes that much earlier; the CoM is planned
        anew from ``com`` (2,) m and ``com_velocity`` (2,) m/s at ``t``, as :meth:`replan`
        does (:func:`.liftoff.advance_lift_off` decides when). ``ValueError`` (the plan
        unchanged) at any other time."""
        if not 1 <= step < len(self.footsteps):
            raise ValueError(f"step must index a footstep after the first (1…{len(self.footsteps) - 1}), got {step!r}")
        before, swing = self.phase_at(t), self.swings[step]
        if before.kind != "double" or before.step != step - 1 or swing.lift_off - self.gait.transition <= t + 1e-9:
            raise ValueError(f"advance_lift_off: at {t:.3f} s footstep {step} is not in the double support before "
                             "its lift-off, or its unloading has begun")
        self._retime(step, t + self.gait.transition - before.start, swing.duration)
        self.swings[step:] = self._swings(step)
        self._replan_com(t, com, com_velocity)

    def _replan_com(self, t: float, com, com_velocity) -> None:
        """The CoM planned anew from ``com`` (2,) m and ``com_velocity`` (2,) m/s at ``t`` s
        over the phases and footholds as they are now (see :meth:`replan`), and the ground
        and rise profiles rebuilt."""
        segments, start = self._segments(), 0.0
        for position, segment in enumerate(segments):
            if t < start + segment.duration - 1e-9:
                break
            start += segment.duration
        else:
            position, start = len(segments) - 1, t - segments[-1].duration
        current = segments[position]
        elapsed = min(max(t - start, 0.0), current.duration - 1e-6)
        rate = (current.end - current.start) / current.duration
        remaining = [ZMPSegment(current.duration - elapsed, current.start + rate * elapsed, current.end),
                     *segments[position + 1:]]
        self.com_trajectory = DCMTrajectory(self.omega, remaining, as_vector(com, "com", 2),
                                            as_vector(com_velocity, "com_velocity", 2), solve_start=False)
        self.com_origin = float(t)
        self.ground = HeightProfile(*self._ground_knots())
        self.rise = self._rise()

    def _rise(self) -> RiseProfile:
        """The rise profile of the single supports."""
        return RiseProfile([(phase.start, phase.end) for phase in self.phases if phase.kind == "single"],
                           self.gait.com_rise)

    def _retime(self, step: int, double: float, single: float) -> None:
        """The double support before footstep ``step``'s lift-off lasts ``double`` s and its
        swing ``single`` s; every later phase and contact event moves by the change, its
        unloading starts the gait's ``transition`` before the new lift-off."""
        position = next(k for k, phase in enumerate(self.phases) if phase.kind == "single" and phase.step == step)
        before, swing = self.phases[position - 1], self.phases[position]
        lift = before.start + double
        land = lift + single
        shift = land - swing.end
        moved = [Phase(before.kind, before.start, lift, before.stance, before.swing, before.step),
                 Phase(swing.kind, lift, land, swing.stance, swing.swing, swing.step)]
        later = [Phase(phase.kind, phase.start + shift, phase.end + shift, phase.stance, phase.swing, phase.step)
                 for phase in self.phases[position + 1:]]
        self.phases = self.phases[:position - 1] + moved + later
        times = {UNLOAD: lift - self.gait.transition, LIFT: lift, LAND: land}
        self.events = [(times[kind] if index == step else time + shift if index > step else time, kind, foot, index)
                       for time, kind, foot, index in self.events]
        self.duration = self.phases[-1].end
        self._phase_starts = [phase.start for phase in self.phases]

    def _shift_from(self, landing: float, shift: float) -> None:
        """Move the touch-down at ``landing`` s and every phase and event after it by
        ``shift`` s (negative: earlier)."""
        self.phases = [Phase(phase.kind, phase.start + (shift if phase.start >= landing - 1e-12 else 0.0),
                             phase.end + (shift if phase.end >= landing - 1e-12 else 0.0), phase.stance, phase.swing,
                             phase.step) for phase in self.phases]
        self.events = [(time + (shift if time >= landing - 1e-12 else 0.0), kind, foot, step)
                       for time, kind, foot, step in self.events]
        self.duration = self.phases[-1].end
        self._phase_starts = [phase.start for phase in self.phases]

    # ------------------------------------------------------------------ queries
    def phase_at(self, t: float) -> Phase:
        """The phase at ``t`` s (the last one after the end)."""
        index = bisect.bisect_right(self._phase_starts, t) - 1
        return self.phases[min(max(index, 0), len(self.phases) - 1)]

    def com(self, t):
        """CoM position, velocity, acceleration (3,) at ``t`` s (arrays (n, 3) for an array
        of times): the LIPM plan horizontally, :attr:`com_height` above the ground
        (:mod:`.height`), plus its single supports' rise, vertically."""
        sample = self.com_trajectory.sample(np.asarray(t, dtype=float) - self.com_origin)
        vertical = np.array([np.add(self.ground.state(float(time)), self.rise.state(float(time)))
                             for time in np.atleast_1d(t)])
        vertical[:, 0] += self.com_height
        if np.ndim(t) == 0:
            vertical = vertical[0]
        return (np.concatenate([sample.com, vertical[..., :1]], axis=-1),
                np.concatenate([sample.com_velocity, vertical[..., 1:2]], axis=-1),
                np.concatenate([sample.com_acceleration, vertical[..., 2:]], axis=-1))

    def com_state(self, t: float) -> tuple[float, ...]:
        """``(cx, cy, cz, vx, vy, vz, ax, ay, az)`` at ``t`` s as plain floats: :meth:`com`
        without numpy's per-call cost (a control loop's path)."""
        cx, cy, vx, vy, ax, ay = self.com_trajectory.state(t - self.com_origin)
        z, vz, az = self.ground.state(t)
        if self.gait.com_rise:
            rise, rate, acceleration = self.rise.state(t)
            z, vz, az = z + rise, vz + rate, az + acceleration
        return cx, cy, z + self.com_height, vx, vy, vz, ax, ay, az

    def dcm(self, t) -> np.ndarray:
        """The planned capture point (x, y) at ``t`` s (or (n, 2) at an array of times)."""
        return self.com_trajectory.sample(np.asarray(t, dtype=float) - self.com_origin).dcm

    def zmp(self, t) -> np.ndarray:
        """The planned ZMP (x, y) at ``t`` s (or (n, 2) at an array of times)."""
        return self.com_trajectory.sample(np.asarray(t, dtype=float) - self.com_origin).zmp

    def footholds_at(self, t: float) -> dict[str, Footstep]:
        """Where each foot is planned to stand (or to land, while it swings) at ``t`` s."""
        where = dict(self.start_feet)
        for phase in self.phases:
            if phase.kind == "single" and phase.start <= t:
                step = self.footsteps[phase.step]
                where[step.foot] = step
        return where

    def sway_at_lift_off(self, index: int) -> float:
        """Where the plan has the CoM when swing ``index`` lifts off: the fraction of the way
        from the feet's middle to the stance sole's centre, across the stance sole (0: midway,
        1: over the sole's centre; G1's straight walk 0.205, Talos 0.175)."""
        lift_off = self.swings[index].lift_off
        feet = self.footholds_at(lift_off - 1e-9)
        lifting = feet[self.footsteps[index].foot]
        stance = next(step for name, step in feet.items() if name != lifting.foot)
        middle = stance.across(0.5 * (stance.x + lifting.x), 0.5 * (stance.y + lifting.y))   # m, from its centre
        if abs(middle) < 1e-9:
            raise ValueError(f"swing {index} lifts off from feet in line along the stance sole: no side to sway to")
        com = self.com_state(lift_off)
        return 1.0 - stance.across(com[0], com[1]) / middle

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
