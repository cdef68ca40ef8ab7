"""Inequality constraints: torque, joint position, velocity and acceleration limits, and
self-collision avoidance."""

from .base import AccelerationBounds, Constraint, LinearConstraint
from .limits import AccelerationLimits, JointLimits, TorqueLimits, VelocityLimits
from .self_collision import SelfCollisionAvoidance

__all__ = ["Constraint", "AccelerationBounds", "LinearConstraint",
           "TorqueLimits", "JointLimits", "VelocityLimits", "AccelerationLimits",
           "SelfCollisionAvoidance"]
