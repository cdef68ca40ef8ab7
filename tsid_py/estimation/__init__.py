"""State estimation: a floating-base robot's ``(q, v)`` from its encoders, IMU and feet.

:class:`StateEstimator` composes the pieces, each usable alone: the joints' filter
(:mod:`~tsid_py.estimation.joints`), the base's orientation, position and velocity
(:mod:`~tsid_py.estimation.base`) and the contact detector (:mod:`~tsid_py.estimation.contacts`). :class:`~tsid_py.control.estimation.EstimationStage`
runs it at the head of a controller's pipeline.
"""

from .base import BaseFilter
from .contacts import ContactDetector
from .estimator import EstimatorSettings, StateEstimator
from .joints import JointFilter, alpha_beta_gains, filtered_noise, steady_state_covariance
from .readings import SensorReadings, SensorSpec

__all__ = ["StateEstimator", "EstimatorSettings", "SensorReadings", "SensorSpec", "JointFilter", "BaseFilter",
           "ContactDetector", "alpha_beta_gains", "filtered_noise", "steady_state_covariance"]
