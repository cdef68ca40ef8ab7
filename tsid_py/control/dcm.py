"""CapturePointTask: the CoM task of a balance controller, driven by capture-point feedback.

Horizontally the task does not ask for a PD on the CoM position: it chooses where the
centre of pressure should be, keeps that point inside the support polygon, and asks for the
CoM acceleration the linear inverted pendulum (:mod:`tsid_py.control.capture_point`) gets
from it. With ``ξ = c + ċ/ω`` the capture point and ``ξ_ref = c_ref + ċ_ref/ω`` its
reference, the law that makes the capture point error decay at ``gain`` (1/s),
``ξ̇ − ξ̇_ref = −gain (ξ − ξ_ref)``, puts the centre of pressure at

    p* = ξ − (ξ̇_ref + gain (ξ − ξ_ref)) / ω ... with the sign convention ξ̇ = ω (ξ − p):
    p* = ξ + (gain (ξ − ξ_ref) − ξ̇_ref) / ω,    ξ̇_ref = ċ_ref + c̈_ref / ω.

``p = clamp(p*)`` is the nearest point of the support polygon (so the commanded CoP never
leaves the soles) and the CoM is asked ``c̈ = ω² (c − p)``. Unsaturated, the law is a PD on
the CoM with ``kp = ω gain`` and ``kd = ω + gain``; saturated, it is the best the soles can
do, and the **hip strategy** asks for part of the rest, ``hip_ratio · ω² (p − p*)``, which
the centre of pressure cannot give: the QP finds it in the centroidal angular momentum
(rotating the trunk), against the torso and momentum tasks. Vertically the task is the
usual PD (``height_kp``, 1/s²) toward the reference height.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector, positive_scalar
from ..tasks import CoMTask
from .capture_point import SupportPolygon, lipm_frequency


class CapturePointTask(CoMTask):
    """CoM task with capture-point feedback and a centre of pressure kept in ``support``.

    Parameters
    ----------
    com_height : height of the CoM above the soles (m), for ``ω = √(g / z)``.
    gain : decay rate of the capture point error, 1/s.
    hip_ratio : share (0 … 1) of the CoM acceleration the saturated centre of pressure
        cannot give that is still asked for (the hip strategy).
    height_kp : stiffness of the vertical CoM PD, 1/s² (kd = 2√kp).
    gravity : m/s².

    ``cop`` is the commanded centre of pressure (x, y) of the last step, ``dcm`` the capture
    point, ``saturated`` whether ``p*`` was outside the support polygon.
    """

    def __init__(self, com_height: float, *, gain: float = 8.0, hip_ratio: float = 0.5, height_kp: float = 100.0,
                 weight=1.0, gravity: float = 9.81, name: str | None = None):
        super().__init__(kp=[0.0, 0.0, positive_scalar(height_kp, "height_kp", allow_zero=True)], weight=weight,
                         name=name or "CapturePointTask")
        self.omega = lipm_frequency(com_height, gravity)
        self.gain = positive_scalar(gain, "gain", allow_zero=True)
        self.hip_ratio = float(hip_ratio)
        if not 0.0 <= self.hip_ratio <= 1.0:
            raise ValueError(f"hip_ratio must be in [0, 1], got {hip_ratio!r}")
        self.support: SupportPolygon | None = None
        self.cop, self.dcm, self.saturated = np.zeros(2), np.zeros(2), False
        self._target_acceleration = np.zeros(3)

    def set_support(self, support: SupportPolygon) -> None:
        """The polygon the commanded centre of pressure is kept in (world x, y, m)."""
        if not isinstance(support, SupportPolygon):
            raise ValueError(f"support must be a SupportPolygon, got {type(support).__name__}")
        self.support = support

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """CoM reference position (m), velocity (m/s) and acceleration (m/s²), world axes."""
        super().set_target(target, velocity, None)
        self._target_acceleration = np.zeros(3) if acceleration is None else as_vector(acceleration, "acceleration", 3)
        self.acceleration_ref = self._target_acceleration.copy()

    def kinematics(self, robot):
        """Write this step's horizontal ``c̈`` into the feed-forward, then the CoM rows."""
        omega, gain = self.omega, self.gain
        com, velocity, ref, velocity_ref, acc_ref = (robot.com, robot.com_velocity, self.position_ref,
                                                      self.velocity_ref, self._target_acceleration)
        xi = com[:2] + velocity[:2] / omega
        self.dcm = xi
        xi_error = xi - ref[:2] - velocity_ref[:2] / omega
        desired = xi + (gain * xi_error - velocity_ref[:2] - acc_ref[:2] / omega) / omega
        cop = desired
        if self.support is not None:
            cop = self.support.clamp(desired)
        self.saturated = cop is not desired
        self.cop = cop
        acceleration = omega * omega * (com[:2] - cop)
        if self.saturated:
            acceleration += self.hip_ratio * omega * omega * (cop - desired)
        self.acceleration_ref[:2] = acceleration
        return super().kinematics(robot)
