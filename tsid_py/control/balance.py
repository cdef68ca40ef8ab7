"""BalanceController: a humanoid standing on its soles, recovering from pushes.

One object holds what a balance loop needs, configured in code::

    controller = BalanceController(robot, dt=1e-3)
    for each control period:
        sol = controller.step(q, v)              # never raises on an infeasible QP
        send(sol.tau_actuated)

Inside, a :class:`~tsid_py.DynamicsSolver` (built with ``diagnose=False``) with

* one :class:`~tsid_py.PlanarContact` per sole, the profile's sole less its
  :attr:`~tsid_py.models.profile.BalanceDefaults.sole_margin` (:data:`SOLE_MARGIN`) on each
  side (the margin kept between the planned centre of pressure and the sole's edges),
  self-stabilising (default contact gains, :data:`tsid_py.contacts.DEFAULT_KP`) — or, on a
  robot with point feet (at least three), one :class:`~tsid_py.PointContact` per foot: the
  support polygon is then the hull of the feet;
* :class:`~tsid_py.control.dcm.CapturePointTask`: capture-point feedback whose commanded
  centre of pressure is kept inside the support polygon of those soles, with the hip
  strategy when it saturates;
* a torso :class:`~tsid_py.tasks.OrientationTask` (low weight, so that the hip strategy
  can pitch the trunk), a posture :class:`~tsid_py.tasks.JointTask` and
  :class:`~tsid_py.constraints.TorqueLimits`: after a push they bring the trunk, hence the
  centroidal angular momentum, back to rest; and (the profile's
  :attr:`~tsid_py.models.profile.BalanceDefaults.joint_limits`, on by default)
  :class:`~tsid_py.constraints.JointLimits`: the simulator, and the robot, stop a joint at the
  end of its range, so the QP must not plan past it. The posture weighs the legs' joints (those
  between the base and a sole) ``posture_leg_scale`` times less: in stance the soles, the
  CoM and the torso already set them, and a full posture weight there pulls the CoM back
  toward the reference stance;
* optionally (``momentum_weight`` > 0) a :class:`~tsid_py.tasks.MomentumTask` regulating the
  angular momentum to zero. Off by default: it resists the hip strategy (the measurements
  behind both choices: the Controllers page, *Balance*);

and around it a :class:`~tsid_py.control.contact_state.ContactStateMonitor` (a rocking or
unloaded sole is softened) and a :class:`~tsid_py.control.failure.FailurePolicy` (an
infeasible step is relaxed, never raised).

The controller is a :class:`~tsid_py.control.pipeline.Pipeline` of three stages: the contact
state (:class:`~tsid_py.control.contact_state.ContactStateStage`), the capture point's
support (:class:`~tsid_py.control.support.CapturePointStage`, from the
:class:`~tsid_py.control.stance.Stance` of its soles) and the solve
(:class:`~tsid_py.control.pipeline.SolveStage`, through the failure policy). Its robot
facts — soles, torso frame, posture weights — come from the robot's profile
(:func:`tsid_py.models.profile.profile_of`).
"""

from __future__ import annotations

import numpy as np

from .. import constraints, tasks
from .._validation import positive_scalar
from ..contacts import DEFAULT_KP, PlanarContact, PointContact
from ..models.profile import SOLE_MARGIN, RobotProfile, profile_of  # noqa: F401 (SOLE_MARGIN re-exported)
from ..robot import Robot
from ..settings import Setting, flag, non_negative, positive
from ..solver import DynamicsSolver
from .capture_point import SupportPolygon
from .contact_state import ContactStateMonitor, ContactStateStage
from .dcm import CapturePointTask
from .failure import FailurePolicy
from .pipeline import Pipeline, SolveStage
from .stance import Stance
from .support import STANDING, CapturePointStage
from .wrench_regularization import DEFAULT_WEIGHTS as WRENCH_WEIGHTS
from .wrench_regularization import WrenchRegularization



class BalanceController(Pipeline):
    """Capture-point balance on the robot's soles (see the module).

    Parameters
    ----------
    robot : a legged :class:`~tsid_py.Robot`: its profile's feet are soles, or at least three
        point feet.
    dt : control period, s.
    feet : contact frames in support (default: the profile's feet).
    sole_scale : contact rectangles are this fraction of the robot's soles (0 < s ≤ 1), or
        ``(length, width)`` fractions: the margin kept between the planned centre of
        pressure and the sole's edge, where a compliant contact starts to tip the sole
        (default: the sole less the profile's ``sole_margin`` on each side).
    mu : friction coefficient of the soles (default: the profile's
        :class:`~tsid_py.models.profile.BalanceDefaults`).
    contact_kp : stiffness of the soles' stabilisation, 1/s² (default
        :data:`tsid_py.contacts.DEFAULT_KP`; kd = 2√kp).
    coupled_torsion : the soles' torsion also kept in their rectangle's contact wrench cone
        (:class:`~tsid_py.PlanarContact`'s ``coupled_torsion``; off by default: measured in
        docs/walking.md, "The torsion a sole's edge holds").
    dcm_gain, hip_ratio, height_kp : of the :class:`CapturePointTask`.
    torso_frame, torso_kp, torso_weight : the torso orientation task (1/s², weight; frame
        default: the profile's torso).
    posture_kp, posture_weight : the posture task toward ``robot.q_ref`` (weight default:
        the profile's :class:`~tsid_py.models.profile.BalanceDefaults`).
    posture_leg_scale : factor (0 … 1) on ``posture_weight`` for the joints between the base
        and a sole (see the module; default: the profile's).
    momentum_kp, momentum_weight : the angular momentum task (1/s, weight); weight 0 leaves
        it out.
    wrench_regularization : per-axis weights of a
        :class:`~tsid_py.control.wrench_regularization.WrenchRegularization` (None: none).
    regularization : the solver's own regularisation weights.
    torque_limits : add the URDF's torque limits.
    joint_limits : keep the joints inside their ranges (default: the profile's
        :class:`~tsid_py.models.profile.BalanceDefaults`).
    failure_policy, contact_state : wrap the solver in a :class:`FailurePolicy` and watch
        contacts with a :class:`ContactStateMonitor` (both on by default).
    qp_solver : the solver's backend.
    profile : the robot's :class:`~tsid_py.models.profile.RobotProfile` (default:
        :func:`~tsid_py.models.profile.profile_of` the robot).
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, *, feet=None, sole_scale=None, mu: float | None = None,
                 contact_kp: float = DEFAULT_KP, coupled_torsion: bool = False,
                 dcm_gain: float = 8.0, hip_ratio: float = 1.0, height_kp: float = 100.0,
                 torso_frame: str | None = None, torso_kp: float = 100.0, torso_weight: float = 0.1,
                 posture_kp: float = 30.0, posture_weight: float | None = None,
                 posture_leg_scale: float | None = None,
                 momentum_kp: float = 10.0,
                 momentum_weight: float = 0.0, torque_limits: bool = True, joint_limits: bool | None = None,
                 failure_policy: bool = True,
                 contact_state: bool = True, qp_solver: str = "reduced", regularization: dict | None = None,
                 wrench_regularization=WRENCH_WEIGHTS, profile: RobotProfile | None = None):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        profile = profile_of(robot) if profile is None else profile
        if not isinstance(profile, RobotProfile):
            raise ValueError(f"profile must be a tsid_py.models.profile.RobotProfile, got {type(profile).__name__}")
        if profile.sole_size is None and len(profile.feet) < 3:
            raise ValueError(f"robot must stand on soles or on at least three point feet, got {robot.name!r} with "
                             f"{len(profile.feet)} point feet {list(profile.feet)}")
        self.profile = profile
        if sole_scale is None:
            sole_scale = profile.balance.sole_scale(profile.sole_size) if profile.sole_size is not None else 1.0
        defaults = profile.balance
        self.sole_scale = sole_scale
        self.mu = defaults.mu if mu is None else mu
        self.coupled_torsion = coupled_torsion
        self.contact_kp = contact_kp
        self.robot = robot
        regularization = dict(regularization or {})
        if wrench_regularization is not None:          # it stands in for the uniform force term
            regularization.setdefault("force", 0.0)
        self.solver = solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver, diagnose=False,
                                              regularization=regularization)
        robot.update(profile.posture, robot.zero_velocity())
        ground = min(robot.frame_placement(robot.frame_id(f)).translation[2] for f in profile.feet)
        self.stance = Stance(solver, self._sole)
        for foot in (profile.feet if feet is None else feet):
            self.stance.make(foot)
        self.com = solver.add_task(CapturePointTask(robot.com[2] - ground, gain=dcm_gain, hip_ratio=hip_ratio,
                                                    height_kp=height_kp, gravity=robot.gravity))
        frame = torso_frame or profile.torso_frame
        self.torso = solver.add_task(tasks.OrientationTask(frame, kp=torso_kp, weight=torso_weight))
        posture_weight = positive_scalar(defaults.posture_weight if posture_weight is None else posture_weight,
                                         "posture_weight", allow_zero=True)
        leg_scale = positive_scalar(defaults.posture_leg_scale if posture_leg_scale is None else posture_leg_scale,
                                    "posture_leg_scale", allow_zero=True)
        if leg_scale > 1.0:
            raise ValueError(f"posture_leg_scale must be in [0, 1], got {posture_leg_scale!r}")
        weights = [posture_weight * (leg_scale if name in profile.leg_joints else 1.0)
                   for name in robot.scalar_joint_names]
        self.posture = solver.add_task(tasks.JointTask(profile.posture, kp=posture_kp, weight=weights))
        self.momentum = None
        if momentum_weight > 0:
            self.momentum = solver.add_task(tasks.MomentumTask(kp=momentum_kp, weight=momentum_weight))
        self.wrench_regularization = None
        if wrench_regularization is not None:
            self.wrench_regularization = solver.add_task(WrenchRegularization(wrench_regularization))
        if torque_limits:
            solver.add_constraint(constraints.TorqueLimits())
        if defaults.joint_limits if joint_limits is None else joint_limits:
            solver.add_constraint(constraints.JointLimits())
        self.policy = FailurePolicy(solver) if failure_policy else None
        self.contact_state = ContactStateMonitor(solver) if contact_state else None
        #: The stages, by role: the contact state (None without a monitor), the capture
        #: point's support and the solve. A walking controller composes the same ones.
        self.contact_stage = (None if self.contact_state is None
                              else ContactStateStage(self.contact_state, watch_rotation=_saturation_of(self.com)))
        self.support_stage = CapturePointStage(self.com, self.stance)
        self.solve_stage = SolveStage(self.policy if self.policy is not None else solver)
        stages = [self.contact_stage, self.support_stage, self.solve_stage]
        super().__init__([stage for stage in stages if stage is not None], solver=solver)
        self.support_stage.apply(STANDING)

    # The contacts' model, validated settings: an assignment applies to the feet's contacts made
    # now (at the next step) and to those made later.
    sole_scale = Setting("_checked_sole_scale", after="_contact_model_changed")
    """(length, width) fractions (each in (0, 1]) of the profile's soles the contact rectangles
    cover (a number: both)."""

    mu = Setting(positive, after="_contact_model_changed")
    """Friction coefficient of the feet's contacts (> 0)."""

    coupled_torsion = Setting(flag, after="_contact_model_changed")
    """Whether the soles' torsion is kept in their rectangle's contact wrench cone."""

    contact_kp = Setting(non_negative, after="_contact_model_changed")
    """Stiffness of the feet's contacts' stabilisation, 1/s² (≥ 0; kd = 2√kp)."""

    @staticmethod
    def _checked_sole_scale(value, name: str) -> tuple[float, float]:
        scales = np.atleast_1d(np.asarray(value, dtype=float))
        scales = np.repeat(scales, 2) if scales.shape == (1,) else scales
        if scales.shape != (2,) or not np.all((scales > 0) & (scales <= 1)):
            raise ValueError(f"{name} must be in (0, 1], or (length, width) factors each in (0, 1], got {value!r}")
        return float(scales[0]), float(scales[1])

    def _contact_model_changed(self) -> None:
        """The feet's contacts made now take the new model (a contact made later is made so)."""
        solver = getattr(self, "solver", None)
        if solver is None:                              # during construction
            return
        for foot in self.profile.feet:
            contact = solver.contacts.get(foot)
            if contact is None:
                continue
            model = self._sole(foot)
            contact.mu = model.mu
            contact.set_gains(model.kp)
            if isinstance(contact, PlanarContact):
                contact.length, contact.width = model.length, model.width
                contact.coupled_torsion = model.coupled_torsion

    def _sole(self, foot: str) -> PlanarContact | PointContact:
        if self.profile.sole_size is None:
            return PointContact(foot, mu=self.mu, kp=self.contact_kp)
        length, width = self.profile.sole_size
        return PlanarContact(foot, length=self.sole_scale[0] * length, width=self.sole_scale[1] * width, mu=self.mu,
                             kp=self.contact_kp, coupled_torsion=self.coupled_torsion)

    # ------------------------------------------------------------------ support
    @property
    def support(self) -> SupportPolygon:
        """The support polygon of the soles that carry the robot (the stance's)."""
        return self.stance.support()

    def remove_contact(self, name: str, transition: float = 0.0) -> None:
        """Lift a sole: the support polygon shrinks to the others at once, the sole's force
        ramps to 0 over ``transition`` s."""
        self.stance.release(name, transition)

    def add_contact(self, foot: str, transition: float = 0.0) -> PlanarContact:
        """Put a sole down where it is now (its force ramps up over ``transition`` s)."""
        return self.stance.make(foot, transition)


def _saturation_of(task: CapturePointTask):
    """``() -> bool``: whether ``task``'s commanded centre of pressure was saturated at the
    last step. A sole rocks once the centre of pressure reaches its edge: the contact stage
    watches the soles' rotation then (and for 0.1 s after, and after a relaxed step)."""

    def saturated() -> bool:
        return task.saturated

    return saturated
