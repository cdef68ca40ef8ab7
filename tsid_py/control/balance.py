"""BalanceController: a humanoid standing on its soles, recovering from pushes.

One object holds what a balance loop needs, configured in code::

    controller = BalanceController(robot, dt=1e-3)
    for each control period:
        sol = controller.step(q, v)              # never raises on an infeasible QP
        send(sol.tau_actuated)

Inside, a :class:`~tsid_py.DynamicsSolver` (built with ``diagnose=False``) with

* one :class:`~tsid_py.PlanarContact` per sole, the robot's sole less :data:`SOLE_MARGIN`
  on each side (the margin kept between the planned centre of pressure and the sole's
  edges), self-stabilising (default contact gains, :data:`tsid_py.contacts.DEFAULT_KP`);
* :class:`~tsid_py.control.dcm.CapturePointTask`: capture-point feedback whose commanded
  centre of pressure is kept inside the support polygon of those soles, with the hip
  strategy when it saturates;
* a torso :class:`~tsid_py.tasks.OrientationTask` (low weight, so that the hip strategy
  can pitch the trunk), a posture :class:`~tsid_py.tasks.JointTask` and
  :class:`~tsid_py.constraints.TorqueLimits`: after a push they bring the trunk, hence the
  centroidal angular momentum, back to rest. The posture weighs the legs' joints (those
  between the base and a sole) ``posture_leg_scale`` times less: in stance the soles, the
  CoM and the torso already set them, and a full posture weight there pulls the CoM back
  toward the reference stance (measured: over one foot, G1's CoM stood 1 cm short of its
  target, the commanded centre of pressure saturated at the sole's inner edge, and both
  robots fell under −y pushes at 0.8 × the single-sole bound);
* optionally (``momentum_weight`` > 0) a :class:`~tsid_py.tasks.MomentumTask` regulating the
  angular momentum to zero. Off by default: measured on Talos it resists the hip strategy
  (with weight 0.01, 300 N +x and 470 N +y pushes, survived without it, fell) and costs
  about 30 µs a step;

and around it a :class:`~tsid_py.control.contact_state.ContactStateMonitor` (a rocking or
unloaded sole is softened) and a :class:`~tsid_py.control.failure.FailurePolicy` (an
infeasible step is relaxed, never raised).
"""

from __future__ import annotations

import numpy as np

from .. import constraints, tasks
from .._validation import positive_scalar
from ..contacts import DEFAULT_KP, PlanarContact
from ..robot import Robot
from ..solution import Solution
from ..solver import DynamicsSolver
from .capture_point import SupportPolygon
from .contact_state import ContactStateMonitor
from .dcm import CapturePointTask
from .failure import FailurePolicy
from .wrench_regularization import DEFAULT_WEIGHTS as WRENCH_WEIGHTS
from .wrench_regularization import WrenchRegularization

#: The frame whose orientation a humanoid controller keeps upright, by robot name.
TORSO_FRAMES = {"talos": "torso_2_link", "g1": "torso_link"}

#: Margin (m) kept between the planned centre of pressure and the sole's edges, along the
#: sole's length and its width. A compliant contact (MuJoCo's, a rubber sole) rolls the sole
#: onto its edge by the penetration there over the distance to the other edge, so the margin
#: that keeps a sole flat is a distance, not a fraction of the sole: on Talos (0.20 × 0.13 m)
#: it is 95 % × 90 % of the sole; on G1's narrow sole (0.17 × 0.05 m) 94 % × 74 %, where
#: 90 % of its width left 2.5 mm and the loaded sole rolled 1.6–1.7° under lateral pushes
#: (its clean-recovery limit is 2°).
SOLE_MARGIN = (0.005, 0.0065)

#: Defaults of the posture task by robot name (others: :data:`POSTURE_DEFAULTS`), chosen on
#: the push sweep (``benchmarks/balance_sweep.py``): the posture regularises in joint
#: accelerations, which for a given CoM acceleration are larger on a smaller robot, so the same
#: weight holds G1 (CoM 0.68 m high, 33 kg) back more than Talos (0.88 m, 90 kg). Measured on
#: G1 with Talos's values: its unloaded sole, dragged by the legs' posture while the other
#: carries the robot on its edge, came down tilted 2.1–2.3° after lateral pushes at 0.75 × the
#: impulse bound; with these the soles stay within 1.5–1.7°, and single-leg stance holds.
POSTURE_DEFAULTS = {"posture_weight": 1e-2, "posture_leg_scale": 0.7}
ROBOT_POSTURE_DEFAULTS = {"g1": {"posture_weight": 5e-3, "posture_leg_scale": 0.2}}


def leg_joints(robot: Robot) -> set[str]:
    """Names of the joints between the base and any of ``robot.feet``."""
    model = robot.model
    names = set()
    for foot in robot.feet:
        support = model.supports[model.frames[robot.frame_id(foot)].parentJoint]
        names.update(model.names[joint] for joint in support if joint > (1 if robot.floating_base else 0))
    return names


class BalanceController:
    """Capture-point balance on the robot's soles (see the module).

    Parameters
    ----------
    robot : a humanoid :class:`~tsid_py.Robot` with ``sole_size``.
    dt : control period, s.
    feet : contact frames in support (default ``robot.feet``).
    sole_scale : contact rectangles are this fraction of the robot's soles (0 < s ≤ 1), or
        ``(length, width)`` fractions: the margin kept between the planned centre of
        pressure and the sole's edge, where a compliant contact starts to tip the sole
        (default: the sole less :data:`SOLE_MARGIN` on each side).
    mu : friction coefficient of the soles.
    contact_kp : stiffness of the soles' stabilisation, 1/s² (default
        :data:`tsid_py.contacts.DEFAULT_KP`; kd = 2√kp).
    dcm_gain, hip_ratio, height_kp : of the :class:`CapturePointTask`.
    torso_frame, torso_kp, torso_weight : the torso orientation task (1/s², weight).
    posture_kp, posture_weight : the posture task toward ``robot.q_ref`` (weight default: by
        robot, :data:`ROBOT_POSTURE_DEFAULTS`, else :data:`POSTURE_DEFAULTS`).
    posture_leg_scale : factor (0 … 1) on ``posture_weight`` for the joints between the base
        and a sole (see the module; default by robot like ``posture_weight``).
    momentum_kp, momentum_weight : the angular momentum task (1/s, weight); weight 0 leaves
        it out.
    wrench_regularization : per-axis weights of a
        :class:`~tsid_py.control.wrench_regularization.WrenchRegularization` (None: none).
    regularization : the solver's own regularisation weights.
    torque_limits : add the URDF's torque limits.
    failure_policy, contact_state : wrap the solver in a :class:`FailurePolicy` and watch
        contacts with a :class:`ContactStateMonitor` (both on by default).
    qp_solver : the solver's backend.
    """

    def __init__(self, robot: Robot, dt: float = 1e-3, *, feet=None, sole_scale=None, mu: float = 0.5,
                 contact_kp: float = DEFAULT_KP,
                 dcm_gain: float = 8.0, hip_ratio: float = 1.0, height_kp: float = 100.0,
                 torso_frame: str | None = None, torso_kp: float = 100.0, torso_weight: float = 0.1,
                 posture_kp: float = 30.0, posture_weight: float | None = None,
                 posture_leg_scale: float | None = None,
                 momentum_kp: float = 10.0,
                 momentum_weight: float = 0.0, torque_limits: bool = True, failure_policy: bool = True,
                 contact_state: bool = True, qp_solver: str = "reduced", regularization: dict | None = None,
                 wrench_regularization=WRENCH_WEIGHTS):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        if robot.sole_size is None:
            raise ValueError(f"robot must be a humanoid with soles (robot.sole_size), got {robot.name!r}")
        if sole_scale is None:
            sole_scale = [max(1.0 - 2.0 * margin / size, 0.5) for margin, size in zip(SOLE_MARGIN, robot.sole_size)]
        scales = np.atleast_1d(np.asarray(sole_scale, dtype=float))
        scales = np.repeat(scales, 2) if scales.shape == (1,) else scales
        if scales.shape != (2,) or not np.all((scales > 0) & (scales <= 1)):
            raise ValueError("sole_scale must be in (0, 1], or (length, width) factors each in (0, 1], "
                             f"got {sole_scale!r}")
        self.sole_scale = (float(scales[0]), float(scales[1]))
        self.mu = positive_scalar(mu, "mu")
        self.contact_kp = positive_scalar(contact_kp, "contact_kp", allow_zero=True)
        self.robot = robot
        regularization = dict(regularization or {})
        if wrench_regularization is not None:          # it stands in for the uniform force term
            regularization.setdefault("force", 0.0)
        self.solver = solver = DynamicsSolver(robot, dt=dt, qp_solver=qp_solver, diagnose=False,
                                              regularization=regularization)
        robot.update(robot.q_ref, robot.zero_velocity())
        ground = min(robot.frame_placement(robot.frame_id(f)).translation[2] for f in robot.feet)
        for foot in (robot.feet if feet is None else feet):
            solver.add_contact(self._sole(foot))
        self.com = solver.add_task(CapturePointTask(robot.com[2] - ground, gain=dcm_gain, hip_ratio=hip_ratio,
                                                    height_kp=height_kp, gravity=robot.gravity))
        frame = torso_frame or TORSO_FRAMES.get(robot.name, robot.model.names[1])
        self.torso = solver.add_task(tasks.OrientationTask(frame, kp=torso_kp, weight=torso_weight))
        defaults = {**POSTURE_DEFAULTS, **ROBOT_POSTURE_DEFAULTS.get(robot.name, {})}
        posture_weight = positive_scalar(defaults["posture_weight"] if posture_weight is None else posture_weight,
                                         "posture_weight", allow_zero=True)
        leg_scale = positive_scalar(defaults["posture_leg_scale"] if posture_leg_scale is None else posture_leg_scale,
                                    "posture_leg_scale", allow_zero=True)
        if leg_scale > 1.0:
            raise ValueError(f"posture_leg_scale must be in [0, 1], got {posture_leg_scale!r}")
        legs = leg_joints(robot)
        weights = [posture_weight * (leg_scale if name in legs else 1.0)
                   for name in robot.joint_names if robot.has_1dof_joint(name)]
        self.posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=posture_kp, weight=weights))
        self.momentum = None
        if momentum_weight > 0:
            self.momentum = solver.add_task(tasks.MomentumTask(kp=momentum_kp, weight=momentum_weight))
        self.wrench_regularization = None
        if wrench_regularization is not None:
            self.wrench_regularization = solver.add_task(WrenchRegularization(wrench_regularization))
        if torque_limits:
            solver.add_constraint(constraints.TorqueLimits())
        self.policy = FailurePolicy(solver) if failure_policy else None
        self.contact_state = ContactStateMonitor(solver) if contact_state else None
        self._watch_window = int(round(0.1 / solver.dt))
        self._watch_steps = self._watch_window
        self.update_support()

    def _sole(self, foot: str) -> PlanarContact:
        length, width = self.robot.sole_size
        return PlanarContact(foot, length=self.sole_scale[0] * length, width=self.sole_scale[1] * width, mu=self.mu,
                             kp=self.contact_kp)

    # ------------------------------------------------------------------ support
    def update_support(self, feet=None) -> SupportPolygon:
        """Recompute the support polygon from the contacts' rectangles where they were made
        (or from ``feet``, a subset of them) and hand it to the CoM task."""
        names = list(self.solver.contacts) if feet is None else list(feet)
        corners = []
        for name in names:
            contact = self.solver.contacts[name]
            half = np.array([[sx * contact.length / 2, sy * contact.width / 2, 0.0]
                             for sx in (1, -1) for sy in (1, -1)])
            anchor = contact.anchor
            corners.append((half @ anchor.rotation.T + anchor.translation)[:, :2])
        self.support = SupportPolygon(np.vstack(corners))
        self.com.set_support(self.support)
        return self.support

    def remove_contact(self, name: str, transition: float = 0.0) -> None:
        """Lift a sole: the support polygon shrinks to the others at once, the sole's force
        ramps to 0 over ``transition`` s."""
        if name not in self.solver.contacts:
            raise KeyError(f"contact {name!r} is not active; active: {list(self.solver.contacts)}")
        self.update_support([n for n in self.solver.contacts if n != name])
        self.solver.remove_contact(name, transition=transition)

    def add_contact(self, foot: str, transition: float = 0.0) -> PlanarContact:
        """Put a sole down where it is now (its force ramps up over ``transition`` s)."""
        contact = self.solver.add_contact(self._sole(foot), transition=transition)
        self.update_support()
        return contact

    # ------------------------------------------------------------------ the loop
    def step(self, q, v, wrenches: dict | None = None) -> Solution:
        """One control step at the measured state; ``wrenches`` (optional): measured contact
        wrenches by name, world-aligned at the contact frames, for the contact state."""
        policy, monitor = self.policy, self.contact_state
        solution = policy.solve(q, v) if policy is not None else self.solver.solve(q, v)
        if monitor is not None:
            # A sole rocks once the centre of pressure reaches its edge: the soles' rotation is
            # watched while the commanded CoP is saturated, for 0.1 s after, and after a
            # relaxed step.
            watch = self._watch_window if self.com.saturated or not solution.success else self._watch_steps - 1
            self._watch_steps = watch
            monitor.update(solution, wrenches, watch > 0)       # check_rotation
        return solution
