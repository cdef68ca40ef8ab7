"""Yaw angles of level feet: wrapping, extraction from a rotation, and back."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from ..._validation import as_vector


def wrap_angle(angle: float) -> float:
    """``angle`` (rad) wrapped into [−π, π)."""
    return float((angle + math.pi) % (2 * math.pi) - math.pi)


def mean_yaw(first: float, second: float) -> float:
    """The yaw halfway from ``first`` to ``second`` along the shorter arc, rad."""
    return first + 0.5 * wrap_angle(second - first)


def yaw_of(rotation: np.ndarray) -> float:
    """The heading (rad) of a rotation's x axis in the horizontal plane."""
    return float(math.atan2(rotation[1, 0], rotation[0, 0]))


def yaw_rotation(yaw: float) -> np.ndarray:
    """The rotation by ``yaw`` rad about the vertical."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def level_placement(position, yaw: float) -> pin.SE3:
    """A level sole at ``position`` (3,) m turned by ``yaw`` rad about the vertical."""
    return pin.SE3(yaw_rotation(float(yaw)), as_vector(position, "position", 3).copy())
