"""Offline inverse dynamics of recorded motions: the stacked over-time problem
(:mod:`.frames`, :mod:`.stacked`), its structure-exploiting interior-point solver
(:mod:`.ipm`), many recordings at once on Dask (:mod:`.batch`) and file input/output for the
command line (:mod:`.files`); human gait — OpenSim files (:mod:`.opensim_files`), C3D files
(:mod:`.c3d`, :mod:`.plates`), force plates as known wrenches, contact phases and ground
reactions from the motion (:mod:`.gait`, :mod:`.gait_uncertainty`), residual reduction by
the mass distribution (:mod:`.residual_reduction`)."""

from .batch import BatchResult, Recording, RobotSource, inverse_dynamics_over_time_batch
from .c3d import C3DTrial, ForcePlate, read_c3d
from .frames import KnownWrench, finite_differences
from .gait import HumanInverseDynamicsResult, human_inverse_dynamics
from .over_time import (
           InverseDynamicsOverTimeResult,
           multiple_contact_inverse_dynamics_over_time,
)
from .residual_reduction import (
           ResidualReduction,
           ResidualReductionOptions,
           reduce_residuals,
)

__all__ = [
           "BatchResult",
           "C3DTrial",
           "ForcePlate",
           "HumanInverseDynamicsResult",
           "InverseDynamicsOverTimeResult",
           "KnownWrench",
           "Recording",
           "ResidualReduction",
           "ResidualReductionOptions",
           "RobotSource",
           "finite_differences",
           "human_inverse_dynamics",
           "inverse_dynamics_over_time_batch",
           "multiple_contact_inverse_dynamics_over_time",
           "read_c3d",
           "reduce_residuals",
]
