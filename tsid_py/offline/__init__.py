"""Offline inverse dynamics of recorded motions: the stacked over-time problem, its
structure-exploiting solver, many recordings at once, and file input/output."""

from .frames import finite_differences
from .over_time import InverseDynamicsOverTimeResult, multiple_contact_inverse_dynamics_over_time

__all__ = ["finite_differences", "InverseDynamicsOverTimeResult", "multiple_contact_inverse_dynamics_over_time"]
