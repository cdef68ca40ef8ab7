"""Tasks: each asks for rows ``A x = b`` as a weighted cost (soft) or an equality (hard)."""

from .base import DiagonalTask, PDTask, Task
from .com import CoMTask
from .coupling import JointCouplingTask
from .effort import TorqueTask, WrenchTask
from .frame import FrameTask, OrientationTask, PositionTask, RelativeFrameTask
from .joint import JointTask
from .momentum import MomentumTask
from .regularization import AccelerationTask, ForceRegularization

__all__ = [
    "Task", "PDTask", "DiagonalTask", "JointTask", "JointCouplingTask", "CoMTask", "FrameTask", "PositionTask", "OrientationTask",
    "RelativeFrameTask", "MomentumTask", "TorqueTask", "WrenchTask",
    "AccelerationTask", "ForceRegularization",
]
