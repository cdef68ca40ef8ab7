"""Inequality constraints: torque, joint position, velocity and acceleration limits."""

from .base import AccelerationBounds, Constraint, LinearConstraint
from .limits import AccelerationLimits, JointLimits, TorqueLimits, VelocityLimits

__all__ = ["Constraint", "AccelerationBounds", "LinearConstraint",
           "TorqueLimits", "JointLimits", "VelocityLimits", "AccelerationLimits"]
