"""tsid_py: QP-based task-space inverse dynamics for legged and fixed-base robots."""

from . import _kernel_cache  # noqa: F401  (first: numba's cache made consistent before any kernel loads)
from . import assembly, backends, closures, constraints, mechanism, robots, rows, tasks
from .contacts import PlanarContact, PointContact
from .errors import InfeasibleError, SolverError
from .external_wrenches import ExternalWrench
from .inverse_dynamics import (
    contact_inverse_dynamics,
    gravity_compensation,
    inverse_dynamics,
    multiple_contact_inverse_dynamics,
    multiple_contact_inverse_dynamics_over_time,
)
from .offline import inverse_dynamics_over_time_batch
from .robot import Robot
from .solution import Solution
from .solver import DynamicsSolver

__version__ = "0.1.0"

__all__ = [
    "Robot", "robots", "DynamicsSolver", "Solution", "PointContact", "PlanarContact", "ExternalWrench",
    "tasks", "constraints", "closures", "mechanism", "backends", "assembly", "rows", "SolverError", "InfeasibleError",
    "inverse_dynamics", "contact_inverse_dynamics", "multiple_contact_inverse_dynamics",
    "multiple_contact_inverse_dynamics_over_time", "gravity_compensation", "inverse_dynamics_over_time_batch",
]
