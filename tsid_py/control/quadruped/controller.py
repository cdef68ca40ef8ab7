"""QuadrupedController: gaits on any quadruped, a convex MPC of the centroidal dynamics tracked
by the whole-body QP.

Configured in code::

    controller = QuadrupedController(robot, dt=1e-3)
    controller.walk(forward=0.5, yaw_rate=0.2, gait="trot")
    for each control period:
        sol = controller.step(q, v, wrenches)     # never raises on an infeasible QP
        send(sol.tau_actuated)
    controller.stop()                            # it slows down, the feet in the air land; it stands

It is a :class:`~tsid_py.control.pipeline.Pipeline`::

    body (estimate) → gait (plan: lift, swing, land) → centroidal (MPC, targets) → solve

(:class:`~.body.BodyStage`, :class:`~.stepping.GaitStage`, :class:`~.centroidal.CentroidalStage`,
:class:`~tsid_py.control.pipeline.SolveStage` through a
:class:`~tsid_py.control.failure.FailurePolicy`). The whole-body QP holds

* a :class:`~tsid_py.PointContact` per foot on the ground, made and broken through the
  :class:`~tsid_py.control.stance.Stance`, on the foot's rolling contact frame
  (:mod:`.rolling`: the sphere's lowest point, the ground frame's axes, so its friction
  pyramid is on the ground's normal), damped, without position term;
* a :class:`~tsid_py.tasks.CoMTask` and an :class:`~tsid_py.tasks.OrientationTask` of the base
  following the MPC's prediction with its accelerations as feed-forward, and
  :class:`~.forces.ForceTargets` tracking its forces;
* a :class:`~tsid_py.tasks.PositionTask` per swinging foot, a posture
  :class:`~tsid_py.tasks.JointTask` toward the profile's posture (low weight) and
  :class:`~tsid_py.constraints.TorqueLimits`.

Every default comes from the robot (:class:`~.geometry.QuadrupedGeometry`: its mass,
inertia, CoM height, legs): the swing time ``√(h/g)``, the MPC interval of a fifth of a swing
and horizon of ``horizon`` intervals, the feet's largest forces from the torque limits, the
command's accelerations (:data:`COMMAND_ACCELERATION` ``g``, and that over the half-length
of the stance for the yaw rate), the swing feet's stiffness ``(6 / T_sw)²``, the
force-tracking weight in units of the robot's mass. A quadruped that is not built in walks
with no tuning.
"""

from __future__ import annotations

import numpy as np

from ... import constraints, tasks
from ..._validation import positive_scalar
from ...contacts import DEFAULT_KP, PointContact
from ...models.profile import RobotProfile, profile_of
from ...robot import Robot
from ...settings import Setting, positive
from ...solver import DynamicsSolver
from ..failure import FailurePolicy
from ..pipeline import Pipeline, SolveStage
from ..stance import Stance
from ..terrain import Terrain
from .body import Body, BodyStage, CommandFilter, VelocityCommand
from .centroidal import CentroidalStage
from .forces import ForceTargets
from .gaits import GaitPattern, gait_named
from .geometry import QuadrupedGeometry
from .ground import Ground
from .mpc import CentroidalMPC, MPCWeights
from .rolling import RollingFeet
from .stepping import GaitStage

#: The command's acceleration limit, in g.
COMMAND_ACCELERATION = 0.2
#: The damping of a foot contact's velocity, 1/s (its position term is off: the feet roll,
#: :mod:`.rolling`): the library's default contact damping.
CONTACT_KD = 2.0 * np.sqrt(DEFAULT_KP)
#: The MPC's intervals in one swing.
MPC_INTERVALS_PER_SWING = 5


def swing_stiffness(swing_time: float) -> float:
    """The swing feet's default stiffness, 1/s²: ``ω² = (6 / T_sw)²`` (a critically damped
    error decays as ``(1 + ω t) e^{−ω t}``: to 1.7 % of its start in one swing)."""
    return (6.0 / swing_time) ** 2


class QuadrupedController(Pipeline):
    """Gaits on a quadruped's four point feet (see the module).

    Parameters
    ----------
    robot : a floating-base :class:`~tsid_py.Robot` whose profile has four feet.
    dt : control period, s.
    terrain : a :class:`~tsid_py.control.terrain.Terrain` map of the ground (None: blind, the
        ground is the plane of the last footholds).
    mu : friction coefficient of the ground (default: the profile's balance ``mu``).
    contact_mu : of the whole-body QP's point contacts (default ``mu``).
    swing_time, step_height : s, m (defaults: the geometry's ``√(h/g)`` and ``0.2 ×`` the hip
        height).
    horizon : the MPC's intervals (each a fifth of a swing).
    mpc_weights : the MPC's :class:`~.mpc.MPCWeights`.
    com_kp, orientation_kp : the CoM and base orientation tasks' stiffness, 1/s².
    force_weight : the force tracking's weight in units of the robot: the task's weight is
        ``force_weight / m²`` (1/N²), so a force error of ``m a`` costs ``force_weight``
        times a CoM acceleration error of ``a`` (the CoM task's weight is 1).
    swing_kp, swing_weight : the swing feet's position tasks (1/s², default ``(6 / T_sw)²``;
        weight).
    posture_kp, posture_weight : the posture task (1/s², weight).
    torque_limits, failure_policy : add the torque limits; wrap the solver in a failure policy.
    qp_solver : the whole-body QP's backend.
    profile : the robot's :class:`~tsid_py.models.profile.RobotProfile` (default: its own).
    force_noise : σ of the measured foot forces' noise, N: a swinging foot lands on a normal
        force above 1 % of the weight and 5σ (:meth:`~.stepping.GaitStage.set_force_noise`).
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, *, terrain: Terrain | None = None, mu: float | None = None,
                 contact_mu: float | None = None, swing_time: float | None = None, step_height: float | None = None,
                 horizon: int = 10, mpc_weights: MPCWeights | None = None, com_kp: float = 100.0,
                 orientation_kp: float = 100.0, force_weight: float = 1.0, swing_kp: float | None = None,
                 swing_weight: float = 10.0, posture_kp: float = 30.0, posture_weight: float = 1e-3,
                 torque_limits: bool = True, failure_policy: bool = True, qp_solver: str = "reduced",
                 profile: RobotProfile | None = None, force_noise: float = 0.0):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        profile = profile_of(robot) if profile is None else profile
        if not isinstance(profile, RobotProfile):
            raise ValueError(f"profile must be a tsid_py.models.profile.RobotProfile, got {type(profile).__name__}")
        self.robot, self.profile = robot, profile
        self.geometry = geometry = QuadrupedGeometry.of(robot, profile)
        # The settings' first values (later assignments go through the settings below).
        self._mu = positive(profile.balance.mu if mu is None else mu, "mu")
        self._contact_mu = positive(self._mu if contact_mu is None else contact_mu, "contact_mu")
        self._swing_time = positive(geometry.swing_time if swing_time is None else swing_time, "swing_time")
        self._step_height = positive(geometry.step_height if step_height is None else step_height, "step_height")
        self._swing_kp_derived = swing_kp is None
        swing_kp = swing_stiffness(self.swing_time) if swing_kp is None else swing_kp
        self.solver = solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver, diagnose=False)
        robot.update(profile.posture, robot.zero_velocity())
        self._contacts: dict[str, PointContact] = {}
        self.stance = Stance(solver, self._contact)
        for foot in geometry.feet:
            self.stance.make(foot)
        mass, gravity = geometry.mass, geometry.gravity
        self.com = solver.add_task(tasks.CoMTask(kp=positive_scalar(com_kp, "com_kp"), weight=1.0))
        self.orientation = solver.add_task(tasks.OrientationTask(
            geometry.base_frame, kp=positive_scalar(orientation_kp, "orientation_kp"), weight=1.0))
        self.forces = solver.add_task(ForceTargets(positive_scalar(force_weight, "force_weight") / mass**2))
        leg_joints = set(profile.leg_joints)
        names = [name for name in robot.joint_names if robot.has_1dof_joint(name)]
        weight = positive_scalar(posture_weight, "posture_weight", allow_zero=True)
        self.posture = solver.add_task(tasks.JointTask(profile.posture, kp=positive_scalar(posture_kp, "posture_kp"),
                                                       weight=[weight if n in leg_joints else 10 * weight
                                                               for n in names]))
        if torque_limits:
            solver.add_constraint(constraints.TorqueLimits())
        self.policy = FailurePolicy(solver) if failure_policy else None
        self.ground = Ground(terrain)
        self.body = Body()
        self.command_filter = CommandFilter(COMMAND_ACCELERATION * gravity,
                                            COMMAND_ACCELERATION * gravity / max(self._half_length(), 1e-3))
        self.mpc = CentroidalMPC(mass, geometry.inertia, gravity, horizon, self.swing_time / MPC_INTERVALS_PER_SWING,
                                 geometry.com_height, mu=self.mu,
                                 f_max=[leg.max_force for leg in geometry.legs], weights=mpc_weights)
        self.rolling = RollingFeet(robot, geometry.feet, profile.foot_radius, self.ground)
        self.body_stage = BodyStage(robot, self.body, self.rolling)
        self.gait_stage = GaitStage(self.stance, geometry, self.body, self.command_filter, self.ground,
                                    swing_kp=positive_scalar(swing_kp, "swing_kp"),
                                    swing_weight=positive_scalar(swing_weight, "swing_weight"),
                                    swing_time=self.swing_time, step_height=self.step_height,
                                    rolling=self.rolling)
        self.gait_stage.set_force_noise(force_noise)
        self.centroidal_stage = CentroidalStage(self.mpc, self.gait_stage, self.body, self.command_filter,
                                                self.ground, self.com, self.orientation, self.forces)
        self.solve_stage = SolveStage(self.policy if self.policy is not None else solver)
        super().__init__([self.body_stage, self.gait_stage, self.centroidal_stage, self.solve_stage], solver=solver)
        robot.update(profile.posture, robot.zero_velocity())
        self.command_filter.heading = float(np.arctan2(*robot.frame_rotation(robot.frame_id(geometry.base_frame))[
            [1, 0], 0]))

    # ------------------------------------------------------------------ settings
    #: Friction coefficient of the ground, in the MPC's force plan (assignable: its friction
    #: rows are built anew at the next plan).
    mu = Setting(positive, after="_ground_friction_changed")
    #: Friction coefficient of the whole-body QP's foot contacts (assignable: every foot's
    #: contact, on the ground or not, takes it at the next step).
    contact_mu = Setting(positive, after="_contact_friction_changed")
    #: Duration of a foot's swing, s (assignable while standing — a gait under way keeps the
    #: schedule it was planned with, so assigning then raises ``ValueError``: :meth:`stop`
    #: first). The MPC's interval is a fifth of it; the swing tasks' stiffness, when not given,
    #: ``(6 / T_sw)²``.
    swing_time = Setting(positive, after="_swing_time_changed")
    #: Height of a swing's apex above its lift-off and touch-down, m (assignable: the next
    #: swings take it).
    step_height = Setting(positive, after="_step_height_changed")

    def _ground_friction_changed(self) -> None:
        self.mpc.mu = self.mu

    def _contact_friction_changed(self) -> None:
        for contact in self._contacts.values():
            contact.mu = self.contact_mu

    def _swing_time_changed(self) -> None:
        if not self.standing:
            raise ValueError(f"swing_time can change only while standing: the {self.gait.name} gait under way was "
                             f"planned with swings of {self.gait_stage.swing_time:.3g} s (call stop() first)")
        self.gait_stage.swing_time = self.swing_time
        self.mpc.step = self.swing_time / MPC_INTERVALS_PER_SWING
        if self._swing_kp_derived:
            for foot in self.gait_stage.feet:
                foot.task.kp = swing_stiffness(self.swing_time)

    def _step_height_changed(self) -> None:
        self.gait_stage.step_height = self.step_height

    def _contact(self, foot: str) -> PointContact:
        """The foot's contact, made once and added again at each touch-down (a removed item
        may be added again: its settings stay, its anchor is where it touches)."""
        if foot not in self._contacts:
            self._contacts[foot] = PointContact(foot, mu=self.contact_mu, kp=0.0, kd=CONTACT_KD)
        return self._contacts[foot]

    def _half_length(self) -> float:
        xs = [leg.neutral[0] for leg in self.geometry.legs]
        return 0.5 * (max(xs) - min(xs))

    # ------------------------------------------------------------------ commands
    @property
    def command(self) -> VelocityCommand:
        """The velocity the user asked for (the plan follows it at bounded accelerations)."""
        return self.command_filter.target

    @command.setter
    def command(self, command: VelocityCommand) -> None:
        self.check_command(command, self.gait_stage.pattern)
        self.command_filter.target = command

    def check_command(self, command: VelocityCommand, gait: GaitPattern) -> None:
        """``ValueError`` when ``command`` is not a :class:`~.body.VelocityCommand` or asks a
        foot on the ground to travel farther under its hip during ``gait``'s stance than the
        legs reach (:attr:`~.geometry.QuadrupedGeometry.stance_sweep`): a foot at ``r`` from
        the CoM moves at ``v + ω × r`` relative to the body for ``duty · T_sw / (1 − duty)``
        s. (Standing, the command slows down to rest: nothing to check.)"""
        if not isinstance(command, VelocityCommand):
            raise ValueError(f"command must be a VelocityCommand, got {type(command).__name__}")
        if gait.standing or not command.moving:
            return
        stance = gait.duty * gait.period(self.swing_time)
        sweep = self.geometry.stance_sweep
        for leg in self.geometry.legs:
            x, y = leg.neutral[0], gait.width * leg.neutral[1]
            speed = float(np.hypot(command.forward - command.yaw_rate * y, command.lateral + command.yaw_rate * x))
            if speed * stance > sweep:
                raise ValueError(
                    f"command {command} is out of reach of the legs with the {gait.name} gait: foot {leg.foot!r} "
                    f"would travel {speed * stance:.3g} m under its hip during a {stance:.3g} s stance, its leg reaches "
                    f"{sweep:.3g} m (2 √(L² − h²), L = {self.geometry.leg_length:.3g} m, hip height "
                    f"{self.geometry.hip_height:.3g} m): at most {sweep / stance:.3g} m/s")

    def walk(self, forward: float = 0.0, lateral: float = 0.0, yaw_rate: float = 0.0, gait="trot") -> None:
        """Move at ``forward``, ``lateral`` m/s (heading frame) and ``yaw_rate`` rad/s with
        ``gait`` (a :class:`~.gaits.GaitPattern` or one of ``walk``, ``trot``, ``pace``,
        ``bound``; ``stand`` stops). ``ValueError`` (nothing changed) for a command out of
        the legs' reach with that gait (:meth:`check_command`)."""
        command, pattern = VelocityCommand(forward, lateral, yaw_rate), gait_named(gait)
        self.check_command(command, pattern)
        self.command_filter.target = command
        self.gait_stage.request(pattern)

    def stop(self) -> None:
        """Command zero velocity and stand: the gait goes on while the body slows down (the
        command decelerates at its limit), then the feet in the air land and none lifts."""
        self.walk(gait="stand")

    @property
    def gait(self) -> GaitPattern:
        """The gait asked for."""
        return self.gait_stage.pattern

    @property
    def standing(self) -> bool:
        """Whether no gait is under way (every foot on the ground, none scheduled to lift)."""
        return self.gait_stage.schedule is None

    @property
    def plan(self):
        """The MPC's last :class:`~.mpc.MPCPlan`."""
        return self.centroidal_stage.plan

    @property
    def mpc_rate(self) -> float:
        """How often the MPC is solved, Hz."""
        return 1.0 / self.mpc.step

    @property
    def feet(self):
        """The gait's feet (:class:`~.stepping.Foot`: swing, foothold, touch-downs)."""
        return self.gait_stage.feet
