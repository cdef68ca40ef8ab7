"""Offline inverse dynamics of recorded motions: the stacked over-time problem
(:mod:`.frames`, :mod:`.stacked`), its structure-exploiting interior-point solver
(:mod:`.ipm`), many recordings at once on Dask (:mod:`.batch`) and file input/output for the
command line (:mod:`.files`)."""

from .batch import BatchResult, Recording, RobotSource, inverse_dynamics_over_time_batch
from .frames import finite_differences
from .over_time import InverseDynamicsOverTimeResult, multiple_contact_inverse_dynamics_over_time

__all__ = ["BatchResult", "Recording", "RobotSource", "inverse_dynamics_over_time_batch", "finite_differences",
           "InverseDynamicsOverTimeResult", "multiple_contact_inverse_dynamics_over_time"]
