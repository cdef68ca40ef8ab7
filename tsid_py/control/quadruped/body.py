"""The body's state and the velocity command, shared by a quadruped controller's stages.

:class:`BodyStage` (the pipeline's estimate stage) reads the measured ``(q, v)`` into a
:class:`Body`: the base's orientation as roll, pitch and a continuous yaw, its angular
velocity in world axes, the CoM and its velocity (pinocchio on the stage's own data, at
this step's state). :class:`VelocityCommand` is what the user asks for — forward and lateral
speed in the heading frame and a yaw rate — and :class:`CommandFilter` the command the
plan follows: it moves toward the user's at bounded accelerations and integrates the
commanded heading.

Units: m, s, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validation import positive_scalar
from ..pipeline import Stage, StepState

#: The commanded heading is kept within this angle (rad) of the measured one: after a push
#: turns the body, the plan turns it back this far at most, not by the whole error.
HEADING_WINDOW = 0.3


@dataclass(frozen=True)
class VelocityCommand:
    """``forward``, ``lateral`` (m/s, heading frame: x ahead, y to the left) and ``yaw_rate``
    (rad/s, counter-clockwise)."""

    forward: float = 0.0
    lateral: float = 0.0
    yaw_rate: float = 0.0

    def __post_init__(self):
        for name in ("forward", "lateral", "yaw_rate"):
            given = getattr(self, name)
            try:
                value = float(given)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number, got {given!r}") from None
            if not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
            object.__setattr__(self, name, value)

    @property
    def moving(self) -> bool:
        return bool(self.forward or self.lateral or self.yaw_rate)


class CommandFilter:
    """The command the plan follows: ``current`` moves toward ``target`` at most
    ``acceleration`` m/s² (forward and lateral) and ``yaw_acceleration`` rad/s²; ``heading``
    integrates the commanded yaw rate, kept within :data:`HEADING_WINDOW` of the measured
    yaw."""

    def __init__(self, acceleration: float, yaw_acceleration: float, heading: float = 0.0):
        self.acceleration = positive_scalar(acceleration, "acceleration")
        self.yaw_acceleration = positive_scalar(yaw_acceleration, "yaw_acceleration")
        self.target = self.current = VelocityCommand()
        self.heading = float(heading)

    def advance(self, dt: float, measured_yaw: float) -> VelocityCommand:
        """Move ``current`` toward ``target`` over ``dt`` s and integrate the heading."""
        current, target = self.current, self.target
        if current != target:
            step, turn = self.acceleration * dt, self.yaw_acceleration * dt
            self.current = current = VelocityCommand(
                current.forward + min(max(target.forward - current.forward, -step), step),
                current.lateral + min(max(target.lateral - current.lateral, -step), step),
                current.yaw_rate + min(max(target.yaw_rate - current.yaw_rate, -turn), turn))
        heading = self.heading + current.yaw_rate * dt
        self.heading = min(max(heading, measured_yaw - HEADING_WINDOW), measured_yaw + HEADING_WINDOW)
        return current

    def world_velocity(self, yaw: float) -> np.ndarray:
        """The commanded horizontal velocity (2,) in world axes for heading ``yaw``."""
        c, s = math.cos(yaw), math.sin(yaw)
        command = self.current
        return np.array([c * command.forward - s * command.lateral, s * command.forward + c * command.lateral])


class Body:
    """The measured body at one step (see the module); refreshed in place."""

    __slots__ = ("roll", "pitch", "yaw", "angular_velocity", "com", "com_velocity", "position")

    def __init__(self):
        self.roll = self.pitch = self.yaw = 0.0
        self.angular_velocity = np.zeros(3)
        self.com, self.com_velocity, self.position = np.zeros(3), np.zeros(3), np.zeros(3)

    def state(self) -> np.ndarray:
        """The centroidal state ``[Θ, p, ω, ṗ]`` (12,) of :mod:`.mpc`."""
        return np.concatenate([[self.roll, self.pitch, self.yaw], self.com, self.angular_velocity,
                               self.com_velocity])


class BodyStage(Stage):
    """Estimate: :class:`Body` from the measured ``state.q``, ``state.v`` of a floating-base
    ``robot``. The orientation and angular velocity are this step's; the CoM and its velocity
    are those of the robot's last update (the last solve's: one control period old), which
    costs no kinematics pass of its own. ``rolling``: the feet's
    :class:`~.rolling.RollingFeet`, moved to their contact points each step."""

    def __init__(self, robot, body: Body, rolling=None):
        self.robot, self.body, self.rolling = robot, body, rolling
        self._yaw = None

    def step(self, state: StepState) -> None:
        q, v, body, robot = state.q, state.v, self.body, self.robot
        body.com[:] = robot.com
        body.com_velocity[:] = robot.com_velocity
        body.position[:] = q[:3]
        x, y, z, w = q[3:7].tolist()                # plain floats: this runs every step
        norm = 1.0 / math.sqrt(x * x + y * y + z * z + w * w)
        x, y, z, w = x * norm, y * norm, z * norm, w * norm
        r00, r01, r02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)
        r10, r11, r12 = 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)
        r20, r21, r22 = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
        wx, wy, wz = v[3:6].tolist()                 # the base's angular velocity, local axes
        body.angular_velocity[:] = (r00 * wx + r01 * wy + r02 * wz, r10 * wx + r11 * wy + r12 * wz,
                                    r20 * wx + r21 * wy + r22 * wz)
        body.pitch = -math.asin(min(max(r20, -1.0), 1.0))
        body.roll = math.atan2(r21, r22)
        yaw = math.atan2(r10, r00)
        if self._yaw is not None:                  # continuous: unwrapped from the last step
            yaw = self._yaw + (yaw - self._yaw + math.pi) % (2 * math.pi) - math.pi
        body.yaw = self._yaw = yaw
        if self.rolling is not None:
            self.rolling.update()
