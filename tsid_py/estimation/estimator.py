"""StateEstimator: a floating-base robot's ``(q, v)`` from encoders, an IMU and its feet.

Each period, from a :class:`~tsid_py.estimation.readings.SensorReadings` and the normal force
on each foot (measured, or as the controller planned it):

1. **joints** — :class:`~tsid_py.estimation.joints.JointFilter`: positions and velocities
   from the encoders, predicted with the acceleration the controller commanded;
2. **leg kinematics** — each foot's position in the base at the encoders' angles
   (pinocchio's forward kinematics with the base at the origin);
3. **contacts** — :class:`~tsid_py.estimation.contacts.ContactDetector` (force, with
   hysteresis), confirmed by the base filter's gate (kinematics);
4. **the base** — :class:`~tsid_py.estimation.base.BaseFilter`: orientation, position,
   velocity and the IMU's biases from the IMU and the standing feet's positions;

and assembles pinocchio's ``q = (p, quaternion, joints)`` and ``v = (Rᵀ v_world, ω_m − b̂_g,
joint velocities)``. The world frame is the one the estimator was :meth:`~StateEstimator.reset`
in (the robot's start, as the controller's targets are); position and yaw are relative to it
and drift only by what the feet slip and the gyroscope's bias turns.

:class:`EstimatorSettings` holds every noise figure, with :meth:`EstimatorSettings.for_sensors`
deriving them from the sensors' datasheet (:class:`~tsid_py.estimation.readings.SensorSpec`)
and the model (a foot's kinematic noise is the encoders' noise through the leg's Jacobian).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np
import pinocchio as pin
from numba import njit, void

from .._numba import ORDERED_MATH, compiled_function
from ..models.profile import profile_of
from ..robot import Robot
from .base import FEET, BaseFilter, base_step_inline, work_shape
from .contacts import ContactDetector
from .joints import JointFilter, joint_filter_step_inline
from .kalman import INDICES, VECTOR, quaternion_of
from .kinematics import LegKinematics, feet_positions_inline
from .packing import Buffers, float_field, float_matrix, float_tensor, integer_field
from .readings import SensorReadings, SensorSpec

#: χ² quantile of 3 degrees of freedom at 0.999: the filters' gate on a foot's residual.
GATE_3DOF = 16.27


@dataclass(frozen=True)
class EstimatorSettings:
    """Noise figures and thresholds of a :class:`StateEstimator` (SI units; see each filter's
    module for the maths). Defaults suit exact sensors; :meth:`for_sensors` sets the sensor
    terms from a datasheet.

    Parameters
    ----------
    encoder_noise : σ_n, rad (a floor keeps the joint filter's gains below the marginal ones).
    joint_acceleration_noise : σ_w, rad/s²: joints' acceleration about the commanded one.
    gyro_noise : the gyroscope's white-noise density, rad/s/√Hz; gyro_bias : σ of its bias at
        start, rad/s; gyro_bias_walk : its random walk, rad/s/√s.
    accel_noise : the accelerometer's noise per sample, m/s²: its white noise (density / √dt)
        and what the filter's model leaves out — a sampled IMU's mean over the period, the
        feet's and the floor's compliance; accel_bias : σ of its bias at start, m/s²;
        accel_bias_walk : its random walk, m/s²/√s.
    foot_drift : m/√s a standing foot may creep.
    kinematic_position : floor of a foot's kinematic noise, m (the encoders' part is added
        from the model; the floor stands for the sole's compliance and rolling).
    contact_on, contact_off : the contact detector's thresholds, fractions of the robot's weight.
    gate : χ² quantile refusing a foot's residual; rejection_time : s of refusals after which
        a foot is put down anew.
    initial_tilt, initial_yaw, initial_position, initial_velocity : standard deviations at
        :meth:`StateEstimator.reset` (rad, rad, m, m/s).
    """

    encoder_noise: float = 1e-5
    joint_acceleration_noise: float = 10.0
    gyro_noise: float = 1e-5
    gyro_bias: float = 1e-5
    gyro_bias_walk: float = 1e-6
    accel_noise: float = 0.03
    accel_bias: float = 1e-3
    accel_bias_walk: float = 1e-3
    foot_drift: float = 3e-3
    kinematic_position: float = 1e-3
    contact_on: float = 0.1
    contact_off: float = 0.05
    gate: float = GATE_3DOF
    rejection_time: float = 0.02
    initial_tilt: float = 1e-3
    initial_yaw: float = 1e-4
    initial_position: float = 1e-3
    initial_velocity: float = 1e-3

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{field.name} must be a positive number, got {value!r}")
        if self.contact_off >= self.contact_on:
            raise ValueError(f"contact_off must be below contact_on, got {self.contact_off} >= {self.contact_on}")

    @classmethod
    def for_sensors(cls, sensors: SensorSpec, dt: float, **overrides) -> EstimatorSettings:
        """Settings for sensors of the datasheet ``sensors`` read every ``dt`` s: the
        defaults (with ``overrides``) and the sensors' noise figures — where those exceed the
        floors; the accelerometer's white noise per sample is added to ``accel_noise``."""
        if not isinstance(sensors, SensorSpec):
            raise ValueError(f"sensors must be a SensorSpec, got {type(sensors).__name__}")
        base = cls(**overrides)
        return replace(base, encoder_noise=max(base.encoder_noise, sensors.encoder_sigma),
                       gyro_noise=max(base.gyro_noise, sensors.gyro_noise),
                       gyro_bias=max(base.gyro_bias, sensors.gyro_bias),
                       accel_noise=math.hypot(base.accel_noise, sensors.accel_noise / math.sqrt(dt)),
                       accel_bias=max(base.accel_bias, sensors.accel_bias))


@njit(cache=True, fastmath=ORDERED_MATH, inline="always")
def assemble_state(q, v, R, position, velocity, gyro, bias, joint_positions, joint_velocities):
    """pinocchio's ``q = (p, quaternion xyzw, joints)`` and ``v = (Rᵀ v_world, ω − b, joint
    velocities)`` in place."""
    q[0], q[1], q[2] = position[0], position[1], position[2]
    quaternion_of(R, q[3:7])
    for i in range(3):
        v[i] = R[0, i] * velocity[0] + R[1, i] * velocity[1] + R[2, i] * velocity[2]
        v[3 + i] = gyro[i] - bias[i]
    n = joint_positions.size
    q[7:7 + n] = joint_positions
    v[6:6 + n] = joint_velocities


#: The kernel's float fields in their buffer (see :class:`StateEstimator`'s ``__init__``):
#: the scalars ``(α, β, on, off, dt, compute_feet)``, the forces, the commanded acceleration,
#: ``q``, ``v``, the feet in the base, the joints' filter, the legs' chains, the stance
#: flags and the base filter; then the integer fields, the chains' indices.
(_SCALARS, _FORCES, _ACCELERATION, _Q, _V, _FEET, _JOINT_Q, _JOINT_V, _ROTATIONS, _TRANSLATIONS, _AXES, _PRISMATIC,
 _FOOT_TRANSLATIONS, _FRAME_ROTATIONS, _FRAME_TRANSLATIONS, _SCRATCH, _STANCE, _R, _X, _P, _ACTIVE, _REJECTIONS,
 _PARAMS, _WORK, _FLOAT_FIELDS) = range(25)
_PARENTS, _INDICES, _FOOT_JOINTS = range(3)


@njit(void(VECTOR, VECTOR, INDICES), cache=True, fastmath=ORDERED_MATH)
def estimator_step(readings, floats, integers):
    """One period of :class:`StateEstimator` in one call on its buffers (``floats`` and
    ``integers``, :class:`~tsid_py.estimation.packing.Buffers`) and the ``readings``' values
    (encoders, gyroscope, accelerometer): the joints' filter
    (:func:`~tsid_py.estimation.joints.joint_filter_step`), the feet's positions in the base
    (:func:`~tsid_py.estimation.kinematics.feet_positions`, unless ``compute_feet`` is 0: the
    feet's field holds them), the contact detector's hysteresis on the forces, the base filter
    (:func:`~tsid_py.estimation.base.base_step`) and ``(q, v)`` (:func:`assemble_state`)."""
    scalars = float_field(floats, integers, _SCALARS)
    alpha, beta, on, off, dt = scalars[0], scalars[1], scalars[2], scalars[3], scalars[4]
    forces, stance = float_field(floats, integers, _FORCES), float_field(floats, integers, _STANCE)
    k = forces.size
    joint_q, joint_v = float_field(floats, integers, _JOINT_Q), float_field(floats, integers, _JOINT_V)
    na = joint_q.size
    encoders, gyro, accel = readings[:na], readings[na:na + 3], readings[na + 3:na + 6]
    feet = float_matrix(floats, integers, _FEET, 3)
    joint_filter_step_inline(joint_q, joint_v, encoders, float_field(floats, integers, _ACCELERATION)[6:], alpha,
                             beta, dt)
    if scalars[5] > 0.0:
        parents = integer_field(integers, _FLOAT_FIELDS, _PARENTS)
        feet_positions_inline(encoders, parents, integer_field(integers, _FLOAT_FIELDS, _INDICES),
                              float_tensor(floats, integers, _ROTATIONS, 3, 3),
                              float_matrix(floats, integers, _TRANSLATIONS, 3),
                              float_matrix(floats, integers, _AXES, 3),
                              float_field(floats, integers, _PRISMATIC),
                              integer_field(integers, _FLOAT_FIELDS, _FOOT_JOINTS),
                              float_matrix(floats, integers, _FOOT_TRANSLATIONS, 3),
                              float_tensor(floats, integers, _FRAME_ROTATIONS, 3, 3),
                              float_matrix(floats, integers, _FRAME_TRANSLATIONS, 3), feet,
                              float_matrix(floats, integers, _SCRATCH, 3))
    for i in range(k):
        if stance[i] > 0.0:
            if forces[i] < off:
                stance[i] = 0.0
        elif forces[i] > on:
            stance[i] = 1.0
    n = FEET + 3 * k
    R, X = float_matrix(floats, integers, _R, 3), float_matrix(floats, integers, _X, 3)
    base_step_inline(R, X, float_matrix(floats, integers, _P, n), float_field(floats, integers, _ACTIVE),
                     float_field(floats, integers, _REJECTIONS), gyro, accel, feet, stance,
                     float_field(floats, integers, _PARAMS), dt,
                     float_matrix(floats, integers, _WORK, work_shape(n)[1]))
    assemble_state(float_field(floats, integers, _Q), float_field(floats, integers, _V), R, X[0], X[1], gyro, X[2],
                   joint_q, joint_v)


_step = compiled_function(estimator_step)


class StateEstimator:
    """A floating-base robot's state from its sensors (see the module).

    Parameters
    ----------
    robot : a floating-base :class:`~tsid_py.Robot` whose joints have one coordinate each.
    dt : the period, s.
    settings : the noise figures (default :class:`EstimatorSettings`).
    feet : the foot frames (default: the profile's): their origins are the contact points the
        filter holds fixed while they stand.
    """

    def __init__(self, robot: Robot, dt: float, settings: EstimatorSettings | None = None, *, feet=None):
        if not isinstance(robot, Robot) or not robot.floating_base:
            raise ValueError(f"robot must be a floating-base tsid_py.Robot, got {robot!r}")
        if robot.nq - 7 != robot.na:
            raise ValueError(f"robot {robot.name!r}: the estimator reads one encoder per joint coordinate; its "
                             f"joints have {robot.nq - 7} coordinates for {robot.na} velocities (continuous or "
                             "ball joints)")
        if not (np.isfinite(dt) and dt > 0):
            raise ValueError(f"dt must be a positive number of seconds, got {dt!r}")
        self.robot, self.dt = robot, float(dt)
        self.settings = settings = EstimatorSettings() if settings is None else settings
        if not isinstance(settings, EstimatorSettings):
            raise ValueError(f"settings must be an EstimatorSettings, got {type(settings).__name__}")
        self.feet = list(profile_of(robot).feet if feet is None else feet)
        if not self.feet:
            raise ValueError(f"robot {robot.name!r} has no feet: the estimator needs standing feet")
        self._frames = [robot.frame_id(foot) for foot in self.feet]
        model = robot.model
        self.kinematics = LegKinematics(robot, self._frames)
        #: The feet's positions by pinocchio's forward kinematics (on the legs only), not the kernel's.
        self._pinocchio_legs = not self.kinematics.supported
        if self._pinocchio_legs:
            self._legs, self._leg_model, self._leg_frames = self._leg_kinematics_model()
            self._data = self._leg_model.createData()
            self._q_kinematics = pin.neutral(self._leg_model)
        self.kinematic_noise = self._kinematic_noise(settings)
        rejections = max(1, int(round(settings.rejection_time / self.dt)))
        self.joints = JointFilter(robot.na, self.dt, position_noise=settings.encoder_noise,
                                  acceleration_noise=settings.joint_acceleration_noise)
        self.base = BaseFilter(len(self.feet), gyro_noise=settings.gyro_noise / math.sqrt(self.dt),
                               accel_noise=settings.accel_noise, gyro_bias_walk=settings.gyro_bias_walk,
                               accel_bias_walk=settings.accel_bias_walk, foot_drift=settings.foot_drift,
                               kinematic_noise=self.kinematic_noise, gravity=model.gravity.linear, gate=settings.gate,
                               max_rejections=rejections,
                               initial=(settings.initial_tilt, settings.initial_yaw, settings.initial_position,
                                        settings.initial_velocity, settings.gyro_bias, settings.accel_bias))
        self.contacts = ContactDetector(len(self.feet), on=settings.contact_on * robot.weight,
                                        off=settings.contact_off * robot.weight)
        self._positions = np.zeros((len(self.feet), 3))
        self.q, self.v = robot.q_ref.copy(), robot.zero_velocity()
        self._acceleration = np.zeros(robot.nv)
        #: The forces' buffer: a caller that fills it in place saves a copy each update.
        self._forces = np.zeros(len(self.feet))
        self._scalars = np.array([self.joints.alpha, self.joints.beta, self.contacts.on, self.contacts.off, self.dt,
                                  float(self.kinematics.supported)])
        self._floats, self._integers = self._buffers()
        self._readings = self._values = None
        self.reset(robot.q_ref)

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """Move the arrays the kernel reads and writes into two buffers (:mod:`.packing`), in
        :func:`estimator_step`'s order of fields: the parts' arrays become views of them."""
        buffers = Buffers()
        buffers.add(self, "_scalars", "_forces", "_acceleration", "q", "v", "_positions")
        buffers.add(self.joints, "position", "velocity")
        buffers.add(self.kinematics, "rotations", "translations", "axes", "prismatic", "foot_translations",
                    "frame_rotations", "frame_translations", "scratch", "parents", "indices", "foot_joints")
        buffers.add(self.contacts, "stance")
        buffers.add(self.base, "rotation", "state", "covariance", "active", "rejections", "params", "work")
        return buffers.build()

    def _kinematic_noise(self, settings: EstimatorSettings) -> float:
        """A foot's position noise in the base (m) from the encoders' ``σ_n``:
        ``σ² = σ_n² trace(J Jᵀ) / 3`` over the leg's joint columns of the foot's Jacobian at
        the reference posture (the largest over the feet), on the floor."""
        robot = self.robot
        data = robot.model.createData()
        pin.computeJointJacobians(robot.model, data, robot.q_ref)
        pin.updateFramePlacements(robot.model, data)
        spread = max(float(np.sum(pin.getFrameJacobian(robot.model, data, frame, pin.LOCAL)[:3, 6:] ** 2)) / 3.0
                     for frame in self._frames)
        return math.sqrt(settings.kinematic_position ** 2 + settings.encoder_noise ** 2 * spread)

    def reset(self, q, v=None) -> None:
        """Start from the configuration ``q`` (its base pose defines the world frame the
        estimates are in) and velocity ``v`` (default 0); no foot stands yet."""
        robot = self.robot
        q = robot.check_configuration(q, "q")
        v = robot.zero_velocity() if v is None else np.asarray(v, dtype=float)
        rotation = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        self.joints.reset(q[7:], v[6:])
        self.base.reset(rotation, q[:3], rotation @ v[:3])
        self.contacts.reset()
        self.q[:], self.v[:] = q, v

    @property
    def stance(self) -> np.ndarray:
        """1.0 where a foot stands (per :attr:`feet`), from the last update."""
        return self.contacts.stance

    def update(self, readings: SensorReadings, forces: np.ndarray, acceleration: np.ndarray | None = None):
        """One period: ``readings``, each foot's normal force ``forces`` (k,), N (measured or
        planned; finite, ``inf`` for "as it stands") and the acceleration the controller
        commanded at its last step (``acceleration`` (nv,), None: zero). Returns ``(q, v)``, the
        estimator's own arrays (refreshed by the next update: copy to keep)."""
        if readings is not self._readings:
            self._bind(readings)
        if forces is not self._forces:
            np.copyto(self._forces, forces)
        if acceleration is None:
            self._acceleration.fill(0.0)
        else:
            np.copyto(self._acceleration, acceleration)
        if self._pinocchio_legs:
            self._leg_kinematics(readings.joint_positions)
        _step(self._values, self._floats, self._integers)
        return self.q, self.v

    def _bind(self, readings) -> None:
        """Check ``readings`` and read them from now on (its values' buffer is the kernel's
        argument; a new object is checked once)."""
        if not isinstance(readings, SensorReadings):
            raise ValueError(f"readings must be a SensorReadings, got {type(readings).__name__}")
        if readings.joint_positions.shape != (self.robot.na,):
            raise ValueError(f"readings must hold {self.robot.na} joint positions (robot {self.robot.name!r}), got "
                             f"{readings.joint_positions.shape[0]}")
        self._readings, self._values = readings, readings.values

    def _leg_kinematics_model(self):
        """The model of the joints from the base to the feet only (the others locked at the
        reference posture: they do not move a foot in the base), the encoders' indices of its
        joints, and the feet's frames in it: forward kinematics then visits the legs alone."""
        robot, model = self.robot, self.robot.model
        legs = sorted({joint for frame in self._frames for joint in model.supports[model.frames[frame].parentJoint]
                       if joint > 1})
        locked = [joint for joint in range(2, model.njoints) if joint not in legs]
        reduced = pin.buildReducedModel(model, locked, robot.q_ref) if locked else model
        encoders = np.array([model.idx_qs[joint] + k - 7 for joint in legs for k in range(model.nqs[joint])],
                            dtype=np.intp)             # every position of a joint (a composite's several)
        frames = [reduced.getFrameId(model.frames[frame].name) for frame in self._frames]
        return encoders, reduced, frames

    def _leg_kinematics(self, encoders: np.ndarray) -> None:
        """Each foot's position in the base at the encoders' angles."""
        model, data, q = self._leg_model, self._data, self._q_kinematics
        q[7:] = encoders[self._legs]
        pin.forwardKinematics(model, data, q)
        for i, frame in enumerate(self._leg_frames):
            self._positions[i] = pin.updateFramePlacement(model, data, frame).translation

    @property
    def forces(self) -> np.ndarray:
        """A buffer (k,) for the feet's normal forces: fill it and pass it to :meth:`update`
        to save a copy."""
        return self._forces

    def velocity_noise(self) -> float:
        """σ of the joint velocities' estimate of a joint at rest, rad/s
        (:func:`~tsid_py.estimation.joints.filtered_noise`)."""
        return self.joints.noise()[1]

    def position_noise(self) -> float:
        """σ of the joint positions' estimate of a joint at rest, rad."""
        return self.joints.noise()[0]

