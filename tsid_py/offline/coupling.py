"""Coupled coordinates in the over-time inverse dynamics (robots read from OpenSim models).

A model whose joints move as functions of a coordinate (OpenSim's knee: two translations
that are splines of the knee angle) is a pinocchio chain with *dependent* joints, ``q = g(c)``
and ``v = Φ(c) ċ`` (:mod:`tsid_py.loaders.osim_coordinates`). Its actuators act on the
coordinates: by virtual work their generalized forces are ``τ_c = Φᵀ τ``; the dependent
joints' forces are carried by the joint's structure. So the over-time problem minimises
``‖Φ_aᵀ τ_a‖²``, the actuated coordinates' forces: each frame's torque map
``τ_a = T_t f + c_t`` becomes ``Φ_aᵀ T_t f + Φ_aᵀ c_t``.
"""

from __future__ import annotations

import numpy as np

from ..robot import Robot
from .frames import FrameData


def coordinate_projection(robot: Robot, frames: np.ndarray) -> np.ndarray | None:
    """``Φ_t`` (N, nv, n) at each frame for a robot read from an OpenSim model, else None."""
    if robot.opensim is None:
        return None
    coordinates = robot.opensim.coordinates
    return coordinates.velocity_maps(coordinates.coordinates_of(frames))


def actuated_coordinates(robot: Robot) -> np.ndarray:
    """Indices of the coordinates that are not the free-flyer root's."""
    coordinates = robot.opensim.coordinates
    root = () if coordinates.root is None else (*coordinates.root.rotation_coordinates,
                                                *coordinates.root.translation_coordinates)
    return np.setdiff1d(np.arange(len(coordinates)), root)


def project_torque_rows(robot: Robot, data: FrameData, projection: np.ndarray | None) -> FrameData:
    """``data`` with its torque map in the actuated coordinates (``Φ_aᵀ T_t``, ``Φ_aᵀ c_t``),
    or ``data`` itself without a projection."""
    if projection is None:
        return data
    actuated = np.transpose(projection[:, 6:, actuated_coordinates(robot)], (0, 2, 1))   # Φ_aᵀ (N, n_a, na)
    return FrameData(data.root_matrix, data.root_rhs, np.matmul(actuated, data.torque_matrix),
                     np.matmul(actuated, data.torque_offset[:, :, None])[:, :, 0], data.rotations)
