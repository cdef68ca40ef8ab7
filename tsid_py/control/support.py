"""The capture-point task's per-step inputs: the support its centre of pressure is kept in,
and the balance mode a plan asks for.

:class:`CapturePointStage` hands the :class:`~tsid_py.control.dcm.CapturePointTask` the
support polygon of the :class:`~tsid_py.control.stance.Stance` (so a contact made, lifted or
re-anchored moves the region the commanded centre of pressure is kept in, at the next step)
and the step's :class:`BalanceMode`, set on the step state by a plan stage (standing when
none is): while walking the reference capture point is followed wherever the plan takes it;
during a recovery step the hip strategy is off and the centre of pressure keeps a margin
inside the stance sole. Returning to standing restores the task's own standing settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import positive_scalar
from .dcm import CapturePointTask
from .pipeline import Stage, StepState
from .stance import Stance


@dataclass(frozen=True)
class BalanceMode:
    """How the capture-point task uses the support this step.

    ``hip_ratio``: the hip strategy's share (None: the task's standing value);
    ``follow_reference``: the reference capture point is followed wherever it goes (a walk's
    plan takes it out of the stance sole on purpose) instead of being kept the task's
    ``reference_margin`` inside the support; ``support_margin`` (m): the commanded centre of
    pressure keeps this far inside the support polygon (at its very edge a compliant sole
    rolls)."""

    hip_ratio: float | None = None
    follow_reference: bool = False
    support_margin: float = 0.0

    def __post_init__(self):
        if self.hip_ratio is not None and not 0.0 <= positive_scalar(self.hip_ratio, "hip_ratio", allow_zero=True) <= 1:
            raise ValueError(f"hip_ratio must be in [0, 1], got {self.hip_ratio!r}")
        positive_scalar(self.support_margin, "support_margin", allow_zero=True)


#: Standing: the task's own settings, the whole support.
STANDING = BalanceMode()
#: Following a walk's plan.
WALKING = BalanceMode(follow_reference=True)


class CapturePointStage(Stage):
    """Each step, give ``task`` the support of ``stance`` and the step's mode (see the
    module); the task's support is set anew only when either changed."""

    def __init__(self, task: CapturePointTask, stance: Stance):
        if not isinstance(task, CapturePointTask):
            raise ValueError(f"task must be a CapturePointTask, got {type(task).__name__}")
        self.task, self.stance = task, stance
        self._support = self._mode = None                # what the task was last handed
        self._solver = stance.solver
        self._epoch = self._changes = -1                 # the contacts' and stance's counts then
        self._standing: tuple[float, float | None] | None = None     # the task's, while not standing

    def step(self, state: StepState) -> None:
        """Hand the task this step's support and mode (when they changed)."""
        mode = state.mode or STANDING
        if mode is not self._mode or self._solver.contact_epoch != self._epoch or self.stance.changes != self._changes:
            self.apply(mode)

    def apply(self, mode: BalanceMode) -> None:
        """Hand the task the stance's support and ``mode`` now (when either changed): what
        :meth:`step` does, for a controller that switches mode between steps."""
        support = self.stance.support()
        self._epoch, self._changes = self._solver.contact_epoch, self.stance.changes
        if support is self._support and (mode is self._mode or mode == self._mode):
            self._mode = mode
            return
        self._support, self._mode = support, mode
        task = self.task
        if mode == STANDING:
            if self._standing is not None:
                hip_ratio, margin = self._standing
                self._standing = None
            else:
                hip_ratio, margin = task.hip_ratio, task.reference_margin
        else:
            if self._standing is None:
                self._standing = (task.hip_ratio, task.reference_margin)
            standing_hip, standing_margin = self._standing
            hip_ratio = standing_hip if mode.hip_ratio is None else mode.hip_ratio
            margin = None if mode.follow_reference else standing_margin
        region = support.shrunk(mode.support_margin) if mode.support_margin > 0 else support
        task.set_support(region, hip_ratio=hip_ratio, reference_margin=margin)
