"""Yaw angles of feet: wrapping, extraction from a rotation (a level one, or a sole tilted
onto a surface), and back."""

from __future__ import annotations

import math

import numpy as np

from ..terrain import tilt_rotation


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


def yaw_of_sole(rotation: np.ndarray) -> float:
    """The yaw ``ψ`` (rad) of a sole's rotation ``R = T(n) R_z(ψ)``: the tilt ``T`` onto its
    normal ``n`` (:func:`tsid_py.control.terrain.tilt_rotation`) taken off first, as
    :func:`tsid_py.control.terrain.surface_placement` builds it; a level sole's :func:`yaw_of`."""
    if rotation[2, 2] > 1.0 - 1e-12:
        return yaw_of(rotation)
    return yaw_of(tilt_rotation(rotation[:, 2]).T @ rotation)
