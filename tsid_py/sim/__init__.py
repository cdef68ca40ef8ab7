"""MuJoCo harness for the demos: the same robot, simulated by a real physics engine."""

from .model import build_model
from .simulation import Simulation

__all__ = ["Simulation", "build_model"]
