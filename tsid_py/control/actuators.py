"""The controller's model of its drives: what is sent to them besides the QP's torques.

The QP's torques ``τ = S (M q̈ + h − Σ Jᵢᵀ fᵢ)`` move the rigid bodies (with the armature in
``M`` when the robot's model knows it, :func:`tsid_py.models.actuators.set_armature`). A real
drive also loses torque to its own friction; :class:`DriveCommand` holds what a
:class:`DriveStage` sends, per actuated joint:

* **torque drives** — ``tau = τ + f_c tanh(v̄ / v_s) + b v̄``: the QP's torque plus the
  drives' dry (``f_c``, N·m) and viscous (``b``, N·m·s/rad) friction at the velocity the step
  commands, ``v̄ = v + dt q̈`` (``tanh`` with ``v_s`` rad/s smooths the sign, so that a joint
  at rest is not kicked by its velocity noise). ``friction_scale`` (0…1) compensates a part
  only: a feed-forward that overestimates the friction pushes the joint the wrong way. With
  ``estimate`` the stage learns ``b`` and ``f`` online from the equation of motion's residual
  (:mod:`tsid_py.control.drive_estimation`), starting from the values it was told, and feeds
  its estimates forward instead.
* **position / impedance drives** — ``(q_des, v_des, tau_ff, kp, kd)`` for a drive that
  applies ``τ(t) = tau_ff + kp (q_des − q(t)) + kd (v_des − v(t))`` on its own, faster loop
  (period ``δ``) and holds the five values for one control period ``h = n δ``. Along the
  motion the step plans, ``q(t) = q + v t + ½ q̈ t²`` and ``v(t) = v + q̈ t``, the drive's
  samples at ``t_j = j δ`` (``j = 0 … n−1``) average to ``tau_ff`` exactly when::

      q_des = q + v t̄ + ½ q̈ t̄₂,     v_des = v + q̈ t̄,     tau_ff = tau (above)

  with ``t̄ = mean t_j = δ (n − 1)/2`` and ``t̄₂ = mean t_j² = δ² (n − 1)(2n − 1)/6`` — so
  the drive delivers the QP's torque on average and its gains act only on the departure
  from the plan, at its own rate. With ``n = 1`` (the drive samples once a control period)
  ``q_des = q``, ``v_des = v`` and the drive applies exactly ``tau``. The gains are the
  drive's: ``kp = I ω²``, ``kd = 2 ζ I ω`` for a bandwidth ``ω`` (rad/s) and damping ratio
  ``ζ`` on each joint's own inertia ``I`` — its diagonal of the mass matrix at the reference
  posture (with the armature).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
from numba import boolean, float64, njit, void

from .._numba import FASTMATH, VECTOR

from ..models.actuators import DriveParameters, drive_parameters
from .drive_estimation import DriveFrictionEstimate
from .pipeline import Stage, StepState


@njit(void(VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, VECTOR, float64, float64, float64, float64, boolean, VECTOR,
           VECTOR, VECTOR, VECTOR), cache=True, fastmath=FASTMATH)
def drive_command(tau, q, v, ddq, friction, damping, smoothing, dt, mean_time, mean_square_time, impedance, out_tau,
                  out_tau_ff, out_q, out_v):
    """:meth:`DriveStage.step`'s arithmetic in one call (see the module): ``out_tau = tau +
    friction tanh(v̄ / smoothing) + damping v̄`` with ``v̄ = v + dt ddq``, and with
    ``impedance`` the held targets ``q_des = q + mean_time v + ½ mean_square_time ddq``,
    ``v_des = v + mean_time ddq`` and ``tau_ff = out_tau``."""
    for i in range(tau.size):
        planned = v[i] + dt * ddq[i]
        value = tau[i] + friction[i] * np.tanh(planned / smoothing) + damping[i] * planned
        out_tau[i] = value
        if impedance:
            out_tau_ff[i] = value
            out_q[i] = q[i] + mean_time * v[i] + 0.5 * mean_square_time * ddq[i]
            out_v[i] = v[i] + mean_time * ddq[i]


class DriveCommand:
    """What a :class:`DriveStage` sends this step, per actuated joint (arrays refreshed in
    place): ``tau`` (N·m, torque drives), and ``q_des`` (rad), ``v_des`` (rad/s), ``tau_ff``
    (N·m), ``kp`` (N·m/rad), ``kd`` (N·m·s/rad) for impedance drives."""

    __slots__ = ("tau", "q_des", "v_des", "tau_ff", "kp", "kd")

    def __init__(self, joints: int):
        self.tau, self.q_des, self.v_des, self.tau_ff = (np.zeros(joints) for _ in range(4))
        self.kp, self.kd = np.zeros(joints), np.zeros(joints)

    def impedance_torque(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The torque an impedance drive applies at joint positions ``q`` and velocities
        ``v`` (na,): ``tau_ff + kp (q_des − q) + kd (v_des − v)``."""
        return self.tau_ff + self.kp * (self.q_des - q) + self.kd * (self.v_des - v)


def drive_gains(robot, bandwidth: float, damping_ratio: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(kp, kd)`` (na,) of drives of ``bandwidth`` Hz and ``damping_ratio`` on each
    joint's own inertia (see the module): ``I_i = 1 / (M⁻¹)_ii`` at the reference posture,
    the inertia the joint moves when every other joint (and the base) is free — the smallest
    it can meet, so the gains stay stable for a drive that samples its own loop. A joint that
    moves no mass (``M_ii = 0``: links without mass or inertia, as some robot files' fingers)
    has no inertia and gets no gains; ``M`` is inverted on the joints that move some."""
    if not (math.isfinite(bandwidth) and bandwidth > 0 and math.isfinite(damping_ratio) and damping_ratio > 0):
        raise ValueError(f"bandwidth and damping_ratio must be positive, got {bandwidth!r}, {damping_ratio!r}")
    data = robot.model.createData()
    mass = pin.crba(robot.model, data, robot.q_ref)
    mass = np.triu(mass) + np.triu(mass, 1).T
    moving = np.diag(mass) > 0.0
    inverse = np.zeros_like(mass)
    inverse[np.ix_(moving, moving)] = np.linalg.inv(mass[np.ix_(moving, moving)])
    own = np.diag(inverse)[robot.nv - robot.na:]
    inertia = np.divide(1.0, own, out=np.zeros_like(own), where=own > 0.0)
    omega = 2.0 * math.pi * bandwidth
    return inertia * omega ** 2, 2.0 * damping_ratio * inertia * omega


class DriveStage(Stage):
    """Form the step's :class:`DriveCommand` after the solve (see the module).

    Parameters
    ----------
    robot : the controlled robot.
    dt : the control period h, s.
    drives : the drives' parameters (default: :func:`~tsid_py.models.actuators.drive_parameters`).
    friction_scale : fraction of the drives' friction fed forward (0 … 1).
    smoothing : ``v_s``, rad/s.
    impedance : ``None`` (torque drives), or ``(kp, kd)`` (na,) each, the impedance drives' gains.
    drive_steps : ``n``, the drive's samples per control period (impedance drives).
    estimate : learn the damping and friction the feed-forward misses from the equation of
        motion's residual on the joints no contact loads
        (:class:`~tsid_py.control.drive_estimation.DriveFrictionEstimate`, its prior what
        ``drives`` and ``friction_scale`` say; True: its defaults, or one configured) and
        feed the estimates forward instead.
    encoder_noise : σ of the joint positions the estimate reads, rad (its measurement noise's
        floor; 0: exact positions).
    """

    def __init__(self, robot, dt: float, *, drives: DriveParameters | None = None, friction_scale: float = 1.0,
                 smoothing: float = 0.05, impedance=None, drive_steps: int = 1,
                 estimate: bool | DriveFrictionEstimate = False, encoder_noise: float = 0.0):
        drives = drive_parameters(robot) if drives is None else drives
        if not isinstance(drives, DriveParameters) or drives.armature.size != robot.na:
            raise ValueError(f"drives must be a DriveParameters of {robot.na} joints, got {drives!r}")
        if not 0.0 <= friction_scale <= 1.0:
            raise ValueError(f"friction_scale must be in [0, 1], got {friction_scale!r}")
        if not (smoothing > 0 and dt > 0) or int(drive_steps) != drive_steps or drive_steps < 1:
            raise ValueError(f"dt and smoothing must be > 0 and drive_steps a whole number >= 1, got {dt!r}, "
                             f"{smoothing!r}, {drive_steps!r}")
        self.dt, self.first = float(dt), robot.nv - robot.na
        self.friction, self.damping = friction_scale * drives.friction, friction_scale * drives.damping
        self.smoothing = float(smoothing)
        self.robot = robot
        if estimate is not False and robot.nq - (7 if robot.floating_base else 0) != robot.na:
            raise ValueError(f"robot {robot.name!r}: the drive estimate needs one coordinate per joint")
        if estimate is True:
            estimate = DriveFrictionEstimate(robot, dt, DriveParameters(np.zeros(robot.na), self.damping, self.friction),
                                             smoothing=self.smoothing, encoder_noise=encoder_noise)
        elif estimate is not False and not isinstance(estimate, DriveFrictionEstimate):
            raise ValueError(f"estimate must be a bool or a DriveFrictionEstimate, got {type(estimate).__name__}")
        #: The online estimate of the drives' damping and friction (None: the told values).
        self.estimate = estimate or None
        if self.estimate is not None:                   # fed forward from the estimate's arrays
            self.damping, self.friction = self.estimate.damping, self.estimate.friction
            self._feedforward = np.zeros(robot.na)
        self.command = DriveCommand(robot.na)
        self.impedance = impedance is not None
        if self.impedance and robot.nq - (7 if robot.floating_base else 0) != robot.na:
            raise ValueError(f"robot {robot.name!r}: impedance commands need one coordinate per joint")
        if self.impedance:
            kp, kd = (np.broadcast_to(np.asarray(gain, dtype=float), (robot.na,)) for gain in impedance)
            if not (np.all(np.isfinite(kp)) and np.all(kp >= 0) and np.all(np.isfinite(kd)) and np.all(kd >= 0)):
                raise ValueError("impedance gains must be non-negative numbers")
            self.command.kp[:], self.command.kd[:] = kp, kd
        delta = self.dt / drive_steps
        self.mean_time = delta * (drive_steps - 1) / 2.0
        self.mean_square_time = delta ** 2 * (drive_steps - 1) * (2 * drive_steps - 1) / 6.0

    def step(self, state: StepState) -> None:
        """Form :attr:`command` from the step's solution and state."""
        command, first, solution, n = self.command, self.first, state.solution, self.friction.size
        drive_command(solution.tau_actuated, state.q[state.q.size - n:], state.v[first:], solution.ddq[first:],
                      self.friction, self.damping, self.smoothing, self.dt, self.mean_time, self.mean_square_time,
                      self.impedance, command.tau, command.tau_ff, command.q_des, command.v_des)
        if self.estimate is not None:
            np.subtract(command.tau, solution.tau_actuated, out=self._feedforward)
            positions = state.q[state.q.size - n:] if state.sensors is None else state.sensors.joint_positions
            self.estimate.update(positions, state.v, solution.ddq, solution.tau_actuated, self._feedforward,
                                 solution.local_wrenches, self.robot.mass_matrix)
