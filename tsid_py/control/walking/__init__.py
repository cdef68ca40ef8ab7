"""Walking: footstep plans, the LIPM/DCM CoM plan, swing-foot trajectories, the contact
schedule, the controller that follows them (see :mod:`.plan` for the timeline), and step
recovery after a push (:mod:`.recovery`)."""

from .controller import WalkingController
from .controller import default_gait
from .footsteps import Footstep, Gait, footsteps_from_velocity, plan_footsteps
from .lipm import DCMTrajectory, LIPMSample, ZMPSegment
from .plan import Phase, WalkPlan
from .recovery import RecoveryStep, StepRecovery
from .swing import SwingTrajectory, quintic

__all__ = ["DCMTrajectory", "Footstep", "Gait", "LIPMSample", "Phase", "RecoveryStep", "StepRecovery", "SwingTrajectory", "WalkPlan",
           "WalkingController", "ZMPSegment", "default_gait", "footsteps_from_velocity", "plan_footsteps", "quintic"]
