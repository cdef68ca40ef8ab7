"""Contact state: hold a contact hard only while its sole is flat, still and loaded.

A hard planar contact tells the QP that its sole does not move. When the sole has started
to rock on an edge (a strong push; the simulator's and the world's contacts are compliant)
or has lost its load, that is false, and its no-slip rows soon contradict the friction and
centre-of-pressure rows: the QP becomes infeasible. :class:`ContactStateMonitor` watches
each contact after every step and

* **softens** it (its no-slip rows become a cost of weight ``soft_weight``) when the sole
  rocks — its angular velocity exceeds ``max_angular_velocity`` (rad/s) or it has tilted more
  than ``rocking_tilt`` (rad) from the surface it stands on — or when its normal force falls
  below ``min_normal_force`` (N) — the measured force when the loop passes one, else the
  planned;
* **hardens** it again once the sole has been still (angular velocity below half the
  threshold), flat on its surface (tilt below ``max_tilt``, rad) and loaded for
  ``settle_time`` s — or once it **rests** on another surface (a bump's face, whatever its
  angle): still and loaded with its centre of pressure inside the sole, its measured z axis
  and origin steady over a window (:attr:`ContactStateMonitor.rest_steps`, derived from the
  control period and the joints' noise, :meth:`ContactStateMonitor._rests`); it is then
  anchored where it rests, and that face is its surface from then on;
* counts it **lost** while its frame is more than ``lost_distance`` (m) from where it was made
  or, for a sole, tilted more than ``lost_tilt`` (rad) from its surface (a robot lying on
  its side, a foot in the air): a lost contact is released (no force) and softened for the
  step, and the step is reported as relaxed (checked every :data:`LOST_CHECK_PERIOD` s).

**The surface** a contact stands on is the plane of its anchor when the contact was made
(:meth:`ContactStateMonitor.surface_normal`: the anchor's z axis; a contact is made where
its sole lies on the ground), so tilts are measured from it, not from the vertical: on a
slope, a sole flat on the slope is flat, and a softened one hardens again.

**Measurement noise**: on a robot whose state is estimated, the sole's rotation and angular
velocity carry the noise of the joint positions and velocities along the leg. With
``position_noise`` σ_q (rad) and ``velocity_noise`` σ_v (rad/s) per joint and ``n`` joints
from the base to the sole, the sole's tilt and angular velocity carry about ``σ_q √n`` and
``σ_v √n`` per axis, and each threshold above is raised by ``noise_sigmas`` times that: a
sole is called rocking, or flat, only when the evidence exceeds what noise explains; and a
*planned* normal force below the threshold counts only once it has lasted ``unload_time`` s
(on noisy velocities the QP may plan a sole's force to zero for a step). (With
velocities by finite differences of 1 mrad encoders, σ_v ≈ 1.4 rad/s: the velocity
threshold is then out of reach and rocking is told by the tilt alone; the
:class:`~tsid_py.control.estimation.EstimationStage` sets both from its filter.)

A contact is re-anchored where its sole is when it is softened and when it is hardened
(:meth:`~tsid_py.DynamicsSolver.reanchor_contact`: its footprint, and the support polygon
built on it, move with it). A point contact (a point foot: a sphere that rolls) is watched for its load only.
Softening is a per-step override
(:meth:`ContactStateMonitor.soften`, :class:`ContactStateStage`): the contacts keep their
settings. Contacts in a force ramp (being added or removed with a transition) are left alone.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector, positive_scalar
from ..contacts import PlanarContact
from ..overrides import StepOverrides
from ..settings import Setting, non_negative, positive
from ..solver import DynamicsSolver
from .pipeline import Stage, StepState


#: How often (s) the contacts are checked for being lost (a fall is not a millisecond's matter).
LOST_CHECK_PERIOD = 0.01
_VERTICAL = np.array([0.0, 0.0, 1.0])
#: The :class:`~tsid_py.Solution`'s ``relaxed`` entry of a step with a lost contact.
LOST = "contacts lost"


class ContactStateMonitor:
    """Soften and re-harden ``solver``'s contacts from the sole motion and load.

    Parameters
    ----------
    solver : the solver whose contacts are watched.
    max_angular_velocity : rad/s above which a sole counts as rocking.
    min_normal_force : N below which a contact counts as unloaded (default 2 % of the
        robot's weight).
    max_tilt : rad, largest tilt of a sole from its surface to harden it again.
    rocking_tilt : rad, a hard sole tilted more than this from its surface is rocking
        (> ``max_tilt``).
    settle_time : s a softened sole must stay still, flat and loaded before it is hardened.
    soft_weight : weight of a softened contact's no-slip rows, (s²/m)².
    lost_tilt : rad, a sole tilted more than this from its surface is lost.
    lost_distance : m, a contact frame farther than this from where it was made is lost.
    position_noise, velocity_noise : σ of the joint positions (rad) and velocities (rad/s)
        the controller reads (0: exact).
    noise_sigmas : how many standard deviations of noise the thresholds are raised by.
    unload_time : s a planned force must stay low to count, on a noisy state.

    Each setting is a validated property: a change takes effect at the next :meth:`update`.
    """

    def __init__(self, solver: DynamicsSolver, *, max_angular_velocity: float = 1.5,
                 min_normal_force: float | None = None, max_tilt: float = np.radians(2.0),
                 rocking_tilt: float = np.radians(5.0), settle_time: float = 0.05, soft_weight: float = 1e2,
                 lost_tilt: float = np.radians(45.0), lost_distance: float = 0.1, position_noise: float = 0.0,
                 velocity_noise: float = 0.0, noise_sigmas: float = 4.0, unload_time: float = 0.01):
        if not isinstance(solver, DynamicsSolver):
            raise ValueError(f"solver must be a tsid_py.DynamicsSolver, got {type(solver).__name__}")
        self.solver = solver
        self.max_angular_velocity = max_angular_velocity
        self.min_normal_force = 0.02 * solver.robot.weight if min_normal_force is None else min_normal_force
        self.noise_sigmas = noise_sigmas
        self.unload_time = unload_time
        self.position_noise = position_noise
        self.velocity_noise = velocity_noise
        self.max_tilt = max_tilt
        self.rocking_tilt = rocking_tilt
        self.settle_time = settle_time
        self.soft_weight = soft_weight
        self.lost_tilt = lost_tilt
        self.lost_distance = lost_distance
        #: Contacts this monitor softened: name -> steps they have been settled so far.
        self.softened: dict[str, int] = {}
        #: Contacts lost at the last check (see the module), by name.
        self.lost: set[str] = set()
        self._next_lost_check = 0.0
        self._surfaces: dict[str, tuple[object, np.ndarray]] = {}
        self._surface_epoch = -1
        self._leg_joints: dict[int, int] = {}
        self._unloaded: dict[str, int] = {}
        self._poses: dict[str, list] = {}      # softened sole -> [z axis, origin, steps] at its rest's start
        self._reaches: dict[int, float] = {}
        #: How many times a contact was softened, hardened flat on its surface, and hardened at
        #: rest on another surface than its own (:meth:`_rests`).
        self.softenings = self.hardenings = self.rest_hardenings = 0

    # Validated settings: each may be changed between steps (the next update uses it).
    max_angular_velocity = Setting(positive)
    """rad/s above which a sole counts as rocking (> 0)."""

    min_normal_force = Setting(non_negative)
    """N below which a contact counts as unloaded (≥ 0)."""

    max_tilt = Setting(positive, after="_tilt_changed")
    """rad, largest tilt from its surface at which a sole is hardened again (> 0)."""

    rocking_tilt = Setting(positive, after="_tilt_changed")
    """rad, a hard sole tilted more than this from its surface is rocking (> ``max_tilt``)."""

    position_noise = Setting(non_negative)
    """σ of the joint positions the controller reads, rad (≥ 0; see the module)."""

    velocity_noise = Setting(non_negative)
    """σ of the joint velocities the controller reads, rad/s (≥ 0; see the module)."""

    noise_sigmas = Setting(non_negative)
    """Standard deviations of noise the thresholds are raised by (≥ 0)."""

    unload_time = Setting(non_negative)
    """s a *planned* normal force must stay below ``min_normal_force`` to soften a contact
    when the state is noisy (``velocity_noise`` > 0; ≥ 0): on noisy velocities the QP may
    plan a sole's force to zero for a step, which is no sign that it lifted."""

    @property
    def unload_steps(self) -> int:
        """``unload_time`` in control periods of the solver's ``dt`` now (at least one)."""
        return max(1, int(round(self._unload_time / self.solver.dt)))

    settle_time = Setting(non_negative)
    """s a softened sole stays still, flat and loaded before it is hardened (≥ 0; counted
    in whole control periods of the solver's ``dt`` at the time, at least one)."""

    soft_weight = Setting(positive)
    """Weight of a softened contact's no-slip rows, (s²/m)² (> 0)."""

    lost_tilt = Setting(positive, after="_lost_tilt_changed")
    """rad, a sole tilted more than this from its surface is lost (> 0)."""

    lost_distance = Setting(positive)
    """m, a contact frame farther than this from where it was made is lost (> 0)."""

    @property
    def settle_steps(self) -> int:
        """``settle_time`` in control periods of the solver's ``dt`` now (at least one)."""
        return max(1, int(round(self._settle_time / self.solver.dt)))

    def _tilt_changed(self) -> None:
        rocking = getattr(self, "_rocking_tilt", None)
        if rocking is not None and rocking <= self._max_tilt:
            raise ValueError(f"rocking_tilt must exceed max_tilt ({self._max_tilt!r} rad), got {rocking!r}")

    def _lost_tilt_changed(self) -> None:
        self._cos_lost = float(np.cos(self._lost_tilt))

    def surface_normal(self, name: str) -> np.ndarray:
        """The unit normal (3,) of the surface contact ``name`` stands on: its anchor's z
        axis when the contact was made (the vertical before its first anchoring)."""
        contact = self.solver.contacts.get(name)
        if contact is None:
            raise KeyError(f"contact {name!r} is not active; active: {list(self.solver.contacts)}")
        entry = self._surfaces.get(name)
        if entry is not None and entry[0] is contact:
            return entry[1]
        if contact.anchor is None:
            return _VERTICAL
        normal = np.array(contact.anchor.rotation[:, 2], dtype=float)
        self._surfaces[name] = (contact, normal)
        return normal

    def _record_surfaces(self) -> None:
        """Note the surface of each contact made since the last call (before a re-anchoring
        by this monitor moves its anchor)."""
        epoch = self.solver.contact_epoch
        if epoch == self._surface_epoch:
            return
        self._surface_epoch = epoch
        for name in list(self._surfaces):
            if name not in self.solver.contacts:
                del self._surfaces[name]
        for name in self.solver.contacts:
            self.surface_normal(name)

    def _noise_spread(self, frame_id: int) -> float:
        """``√n``: the root of the number of joints between the base and the frame."""
        joints = self._leg_joints.get(frame_id)
        if joints is None:
            robot = self.solver.robot
            columns = robot.frame_sources(frame_id).columns
            joints = self._leg_joints[frame_id] = int(np.sum(columns >= (6 if robot.floating_base else 0)))
        return float(np.sqrt(joints))

    def _reach(self, frame_id: int) -> float:
        """m, the frame's distance from the base (the root joint) at the reference posture:
        the lever that turns the leg's joint noise into the frame's position noise."""
        reach = self._reaches.get(frame_id)
        if reach is None:
            robot = self.solver.robot
            frame = robot.placement_at(robot.q_ref, frame_id).translation
            root = robot.q_ref[:3] if robot.floating_base else np.zeros(3)
            reach = self._reaches[frame_id] = float(np.linalg.norm(frame - root))
        return reach

    def _tilt(self, name: str, contact) -> float:
        """rad, the angle between the sole's z axis and its surface's normal."""
        z = self.solver.robot.frame_rotation(contact.frame_id)[:, 2]
        return float(np.arccos(min(1.0, max(-1.0, float(z @ self.surface_normal(name))))))

    def check_lost(self, time: float) -> set[str]:
        """The contacts lost now (see the module), checked at most every
        :data:`LOST_CHECK_PERIOD` s of ``time`` (s); between checks, the last check's."""
        if time < self._next_lost_check:
            return self.lost
        self._next_lost_check = time + LOST_CHECK_PERIOD
        robot, lost = self.solver.robot, set()
        for name, contact in self.solver.contacts.items():
            anchor = contact.anchor
            if anchor is None:
                continue
            position = robot.frame_translation(contact.frame_id)
            drift = float(np.linalg.norm(position - anchor.translation))
            tilted = (isinstance(contact, PlanarContact)
                      and robot.frame_rotation(contact.frame_id)[:, 2] @ self.surface_normal(name) < self._cos_lost)
            if drift > self._lost_distance or tilted:
                lost.add(name)
        self.lost = lost
        return lost

    def update(self, solution, wrenches: dict | None = None, check_rotation: bool = True) -> bool:
        """Look at each contact after the step that produced ``solution`` (the robot's
        kinematics are that step's); ``wrenches`` (name -> (6,) world-aligned, optional)
        are measured ones. ``check_rotation=False`` skips the soles' angular velocities
        (hard contacts only: a loop that knows no sole can have started to rock, e.g. while
        its commanded centre of pressure is well inside the soles, saves their cost).
        Returns whether a contact changed state (softened or hardened, and re-anchored);
        :meth:`soften` passes the softened ones to the next solve."""
        softened = self.softened
        if wrenches is not None:
            wrenches = {name: as_vector(wrench, f"wrenches[{name!r}]", 6) for name, wrench in wrenches.items()}
        if not check_rotation and not softened and wrenches is None and solution is not None:
            # The loop's usual step: nothing softened, no rotation to look at, so only a planned
            # normal force below the threshold can change a state (a contact without a wrench in
            # the solution counts as loaded). All of them above it: nothing to do.
            minimum = self.min_normal_force
            for wrench in solution.local_wrenches.values():
                if not wrench[2] >= minimum:
                    break
            else:
                if self._unloaded:
                    self._unloaded.clear()
                return False
        solver, robot = self.solver, self.solver.robot
        contacts = solver.contacts
        for name in [name for name in softened if name not in contacts]:         # removed meanwhile
            del softened[name]
        self._record_surfaces()
        changed = False
        ramping = solver.normal_force_limits() if contacts else {}
        z = self._noise_sigmas
        for name, contact in contacts.items():
            settled = softened.get(name)
            spread = self._noise_spread(contact.frame_id) if (self._velocity_noise or self._position_noise) else 0.0
            limit = self._max_angular_velocity + z * self._velocity_noise * spread
            speed = 0.0
            point = contact.size == 3                       # a point foot: no sole to rock or tilt
            if (check_rotation or settled is not None) and not point:
                omega = robot.frame_velocity(contact.frame_id)
                speed = float(omega[3]) ** 2 + float(omega[4]) ** 2 + float(omega[5]) ** 2
            force = self._normal_force(name, solution, wrenches)
            planar = isinstance(contact, PlanarContact)
            if settled is None:
                if contact.priority != "hard" or name in ramping:
                    continue
                rocking = speed > limit * limit or (
                    check_rotation and planar
                    and self._tilt(name, contact) > self._rocking_tilt + z * self._position_noise * spread)
                unloaded = force < self.min_normal_force
                if unloaded and self._velocity_noise and (wrenches is None or name not in wrenches):
                    # a planned force is the QP's answer to a noisy state: it counts when it lasts
                    count = self._unloaded[name] = self._unloaded.get(name, 0) + 1
                    unloaded = count >= self.unload_steps
                elif self._unloaded:
                    self._unloaded.pop(name, None)
                if rocking or unloaded:
                    self._unloaded.pop(name, None)
                    self.surface_normal(name)              # noted before the anchor moves
                    softened[name] = 0
                    self.softenings += 1
                    solver.reanchor_contact(name)
                    changed = True
                continue
            still = 4.0 * speed < limit * limit and force >= self.min_normal_force
            flat = not planar or self._tilt(name, contact) < self._max_tilt + z * self._position_noise * spread
            if still and flat:
                self._poses.pop(name, None)        # a rest off its surface starts anew
                softened[name] = settled + 1
                if settled + 1 >= self.settle_steps:
                    self._harden(name)
                    self.hardenings += 1
                    changed = True
            elif still and planar and self._rests(name, contact, spread, solution, wrenches):
                # at rest on another surface than its own: that is its surface now
                self._harden(name)
                self._surfaces[name] = (contact, np.array(robot.frame_rotation(contact.frame_id)[:, 2], dtype=float))
                self.rest_hardenings += 1
                changed = True
            else:
                softened[name] = 0
                if not still:
                    self._poses.pop(name, None)    # a rest starts anew
        return changed

    def _harden(self, name: str) -> None:
        """Harden softened contact ``name`` again, anchored where its sole is now."""
        del self.softened[name]
        self._poses.pop(name, None)
        self.solver.reanchor_contact(name)

    @property
    def rest_steps(self) -> int:
        """The rest window in control periods (see :meth:`_rests`): ``settle_time``, or longer
        when the noise needs it, ``⌈z σ_q √(2n) / (ω_max/2 · dt)⌉`` for the longest leg."""
        spread = max(self._leg_joints.values(), default=0)
        noise = self._noise_sigmas * self._position_noise * np.sqrt(2.0 * spread)
        return max(self.settle_steps, int(np.ceil(noise / (0.5 * self._max_angular_velocity * self.solver.dt))))

    def _rests(self, name: str, contact, spread: float, solution, wrenches) -> bool:
        """Whether softened sole ``name`` rests, whatever the angle of what it rests on: loaded
        with its centre of pressure inside its sole (the measured wrench, else the planned),
        and for the last :attr:`rest_steps` control periods (``T`` s) its z axis within
        ``ω_max/2 · T + z σ_q √(2n)`` rad and its origin within
        ``ω_max/2 · T · r + z σ_q √(2n) · L`` m of where they were at the window's start —
        still at half the rocking rate (``ω_max = max_angular_velocity``; ``r`` the sole's
        half diagonal, ``L`` the frame's distance from the base), beyond what the noise of two
        readings explains (``σ_q`` ``position_noise``, ``n`` the leg's joints, ``z``
        ``noise_sigmas``). A reading outside starts the window anew from it. The window lasts
        until the noise allowance is no more than the motion's: the noisier the joints, the
        longer a sole must rest."""
        robot = self.solver.robot
        rotation = robot.frame_rotation(contact.frame_id)
        axis = np.array(rotation[:, 2], dtype=float)
        position = np.array(robot.frame_translation(contact.frame_id), dtype=float)
        if not self._cop_inside(name, contact, rotation, solution, wrenches):
            self._poses.pop(name, None)
            return False
        steps = self.rest_steps
        start = self._poses.get(name)
        if start is not None:
            still_turn = 0.5 * self._max_angular_velocity * steps * self.solver.dt
            noise = self._noise_sigmas * self._position_noise * np.sqrt(2.0) * spread
            turned = float(np.arccos(min(1.0, max(-1.0, float(start[0] @ axis)))))
            moved = float(np.linalg.norm(position - start[1]))
            half_diagonal = 0.5 * float(np.hypot(contact.length, contact.width))
            if turned < still_turn + noise and moved < still_turn * half_diagonal + noise * self._reach(contact.frame_id):
                start[2] += 1
                return start[2] >= steps
        self._poses[name] = [axis, position, 0]
        return False

    @staticmethod
    def _cop_inside(name: str, contact, rotation: np.ndarray, solution, wrenches) -> bool:
        """Whether the centre of pressure of ``contact`` lies inside its sole's rectangle: of
        the measured wrench (world-aligned at the sole frame, force then torque) if any, else
        of the planned one (the sole frame's)."""
        if wrenches is not None and name in wrenches:
            wrench = wrenches[name]
            force, torque = rotation.T @ wrench[:3], rotation.T @ wrench[3:]
        else:
            local = solution.local_wrenches.get(name) if solution is not None else None
            if local is None:
                return True
            force, torque = local[:3], local[3:]
        if not force[2] > 0.0:
            return False
        return (abs(float(torque[1])) <= 0.5 * contact.length * float(force[2])
                and abs(float(torque[0])) <= 0.5 * contact.width * float(force[2]))

    def soften(self, overrides: StepOverrides) -> None:
        """Write this monitor's softened contacts into a step's ``overrides`` (their no-slip
        rows a cost of :attr:`soft_weight`), and its lost ones (released: no force, and
        softened)."""
        contacts = self.solver.contacts
        for name in self.softened:
            if name in contacts:
                overrides.soften(name, self._soft_weight)
        for name in self.lost:
            if name in contacts:
                overrides.soften(name, self._soft_weight)
                overrides.release(name)

    @staticmethod
    def _normal_force(name: str, solution, wrenches) -> float:
        if wrenches is not None and name in wrenches:
            return float(wrenches[name][2])
        local = solution.local_wrenches.get(name) if solution is not None else None
        return float(local[2]) if local is not None else np.inf


class ContactStateStage(Stage):
    """The contact-state monitor as a control stage: at the start of each step it watches
    the contacts as the last step left them (:meth:`ContactStateMonitor.update` with
    ``state.previous`` and ``state.wrenches``) and softens this step's contacts
    (:meth:`ContactStateMonitor.soften` into ``state.overrides``).

    ``watch_rotation`` (optional, ``() -> bool``): whether a sole may have started to rock
    (e.g. while the commanded centre of pressure is saturated on the support's edge, or the
    last step was relaxed); the soles' angular velocities are checked then and for
    ``window`` s after, else skipped (they cost a frame velocity each)."""

    def __init__(self, monitor: ContactStateMonitor, watch_rotation=None, window: float = 0.1):
        if not isinstance(monitor, ContactStateMonitor):
            raise ValueError(f"monitor must be a ContactStateMonitor, got {type(monitor).__name__}")
        self.monitor = monitor
        self.watch_rotation = watch_rotation
        self._update, self._soften = monitor.update, monitor.soften        # bound once: the loop's path
        self.window = positive_scalar(window, "window")
        self._watch_steps = self._window_steps()

    def step(self, state: StepState) -> None:
        """Watch the contacts after the last step, then soften this step's."""
        previous, monitor = state.previous, self.monitor
        if previous is not None:
            watch_rotation = self.watch_rotation
            if watch_rotation is None:
                watch = 1
            else:
                watch = (self._window_steps() if (not previous.success or watch_rotation())
                         else self._watch_steps - 1)
                self._watch_steps = watch
            self._update(previous, state.wrenches, watch > 0)
        if monitor.check_lost(state.time):
            state.relaxed += (LOST,)
        if monitor.softened or monitor.lost:
            self._soften(state.overrides)

    def _window_steps(self) -> int:
        """The watch window in control periods of the solver's ``dt`` now."""
        return max(1, int(round(self.window / self.monitor.solver.dt)))
