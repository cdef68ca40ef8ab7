"""tsid_py: QP-based task-space inverse dynamics for legged and fixed-base robots."""

from . import assembly, backends, constraints, robots, rows, tasks
from .contacts import PlanarContact, PointContact
from .errors import InfeasibleError, SolverError
from .robot import Robot
from .solution import Solution
from .solver import DynamicsSolver

__version__ = "0.1.0"

#: The inverse-dynamics cases, imported on first use (they bring the offline tools and
#: scipy's signal processing, a second of import a control loop does not need).
_LAZY = {
    "inverse_dynamics": "inverse_dynamics", "contact_inverse_dynamics": "inverse_dynamics",
    "multiple_contact_inverse_dynamics": "inverse_dynamics", "gravity_compensation": "inverse_dynamics",
    "multiple_contact_inverse_dynamics_over_time": "inverse_dynamics", "inverse_dynamics_over_time_batch": "offline",
}


def __getattr__(name: str):
    """The inverse-dynamics functions, imported when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tsid_py' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Robot", "robots", "DynamicsSolver", "Solution", "PointContact", "PlanarContact",
    "tasks", "constraints", "backends", "assembly", "rows", "SolverError", "InfeasibleError",
    "inverse_dynamics", "contact_inverse_dynamics", "multiple_contact_inverse_dynamics",
    "multiple_contact_inverse_dynamics_over_time", "gravity_compensation", "inverse_dynamics_over_time_batch",
]
