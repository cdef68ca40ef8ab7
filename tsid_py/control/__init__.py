"""Controllers built on the solver: balance by capture-point feedback, the contact state,
and the failure policy that keeps a control loop running."""

from .balance import BalanceController
from .capture_point import PushBound, SupportPolygon, lipm_frequency, push_bounds
from .contact_state import ContactStateMonitor
from .dcm import CapturePointTask
from .failure import FailurePolicy

__all__ = ["BalanceController", "CapturePointTask", "ContactStateMonitor", "FailurePolicy", "PushBound",
           "SupportPolygon", "lipm_frequency", "push_bounds"]
