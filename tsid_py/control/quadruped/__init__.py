"""Quadruped locomotion: gaits (walk, trot, pace, bound) on any quadruped, footholds from a
velocity command, swing feet landed on contact, and a convex MPC of the centroidal dynamics
that the whole-body QP tracks (:class:`QuadrupedController`)."""

from .body import VelocityCommand
from .controller import QuadrupedController
from .forces import ForceTargets
from .gaits import BOUND, GAITS, PACE, STAND, TROT, WALK, GaitPattern, GaitSchedule
from .geometry import QuadrupedGeometry
from .mpc import CentroidalMPC, MPCPlan, MPCWeights

__all__ = ["BOUND", "GAITS", "PACE", "STAND", "TROT", "WALK", "CentroidalMPC", "ForceTargets", "GaitPattern",
           "GaitSchedule", "MPCPlan", "MPCWeights", "QuadrupedController", "QuadrupedGeometry", "VelocityCommand"]
