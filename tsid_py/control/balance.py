"""BalanceController: a humanoid standing on its soles, recovering from pushes.

One object holds what a balance loop needs, configured in code::

    controller = BalanceController(robot, dt=1e-3)
    for each control period:
        sol = controller.step(q, v)              # never raises on an infeasible QP
        send(sol.tau_actuated)

Inside, a :class:`~tsid_py.DynamicsSolver` (built with ``diagnose=False``) with

* one :class:`~tsid_py.PlanarContact` per sole (``sole_scale`` × the robot's sole: the
  margin kept between the centre of pressure and the sole's edges), self-stabilising
  (default contact gains, :data:`tsid_py.contacts.DEFAULT_KP`);
* :class:`~tsid_py.control.dcm.CapturePointTask`: capture-point feedback whose commanded
  centre of pressure is kept inside the support polygon of those soles, with the hip
  strategy when it saturates;
* a torso :class:`~tsid_py.tasks.OrientationTask` (low weight, so that the hip strategy
  can pitch the trunk), a posture :class:`~tsid_py.tasks.JointTask` and
  :class:`~tsid_py.constraints.TorqueLimits`: after a push they bring the trunk, hence the
  centroidal angular momentum, back to rest;
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


class BalanceController:
    """Capture-point balance on the robot's soles (see the module).

    Parameters
    ----------
    robot : a humanoid :class:`~tsid_py.Robot` with ``sole_size``.
    dt : control period, s.
    feet : contact frames in support (default ``robot.feet``).
    sole_scale : contact rectangles are this fraction of the robot's soles (0 < s ≤ 1), or
        ``(length, width)`` fractions: the margin kept between the planned centre of
        pressure and the sole's edge, where a compliant contact starts to tip the sole.
    mu : friction coefficient of the soles.
    contact_kp : stiffness of the soles' stabilisation, 1/s² (default
        :data:`tsid_py.contacts.DEFAULT_KP`; kd = 2√kp).
    dcm_gain, hip_ratio, height_kp : of the :class:`CapturePointTask`.
    torso_frame, torso_kp, torso_weight : the torso orientation task (1/s², weight).
    posture_kp, posture_weight : the posture task toward ``robot.q_ref``.
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

    def __init__(self, robot: Robot, dt: float = 1e-3, *, feet=None, sole_scale=(0.95, 0.9), mu: float = 0.5,
                 contact_kp: float = DEFAULT_KP,
                 dcm_gain: float = 8.0, hip_ratio: float = 1.0, height_kp: float = 100.0,
                 torso_frame: str | None = None, torso_kp: float = 100.0, torso_weight: float = 0.1,
                 posture_kp: float = 30.0, posture_weight: float = 1e-2, momentum_kp: float = 10.0,
                 momentum_weight: float = 0.0, torque_limits: bool = True, failure_policy: bool = True,
                 contact_state: bool = True, qp_solver: str = "reduced", regularization: dict | None = None,
                 wrench_regularization=WRENCH_WEIGHTS):
        if not isinstance(robot, Robot):
            raise ValueError(f"robot must be a tsid_py.Robot, got {type(robot).__name__}")
        if robot.sole_size is None:
            raise ValueError(f"robot must be a humanoid with soles (robot.sole_size), got {robot.name!r}")
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
        self.posture = solver.add_task(tasks.JointTask(robot.q_ref, kp=posture_kp, weight=posture_weight))
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
        solution = self.policy.solve(q, v) if self.policy is not None else self.solver.solve(q, v)
        if self.contact_state is not None:
            # A sole rocks once the centre of pressure reaches its edge: the soles' rotation is
            # watched while the commanded CoP is saturated, for 0.1 s after, and after a
            # relaxed step.
            if self.com.saturated or not solution.success:
                self._watch_steps = self._watch_window
            else:
                self._watch_steps -= 1
            self.contact_state.update(solution, wrenches, check_rotation=self._watch_steps > 0)
        return solution
