"""MuJoCo harness for the demos: the same robot, simulated by a real physics engine."""

from .contact import DEFAULT_CONTACT, ContactOptions
from .model import build_model
from .simulation import Simulation, SimulationDiverged

__all__ = ["Simulation", "SimulationDiverged", "build_model", "ContactOptions", "DEFAULT_CONTACT"]
