"""Regularisation tasks: small costs on q̈, τ and the contact forces.

They make the QP strictly convex and pick, among equally good solutions, the one with
small accelerations, torques and forces. The solver adds one of each by default
(:data:`DEFAULT_REGULARIZATION`, built by :func:`regularization_tasks`): an :class:`AccelerationTask` toward 0, a
:class:`ForceRegularization` and a :class:`~tsid_py.tasks.TorqueTask` toward 0, each with a
small weight. Users may add their own with other weights.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validation import as_vector, positive_scalar
from ..rows import DiagonalCost, Rows
from ..settings import Setting
from .base import DiagonalTask, Task
from .effort import TorqueTask

#: Default regularisation weights: q̈ in (rad/s²)², contact forces in N², torques in (N·m)².
#: Small enough not to bias the tasks, large enough to make the QP strictly convex; they keep
#: a 90 kg humanoid standing with only a CoM task and a posture task.
DEFAULT_REGULARIZATION = {"acceleration": 1e-5, "force": 1e-8, "torque": 1e-7}


class AccelerationTask(DiagonalTask):
    r""":math:`\ddot q = \ddot q_{ref}` on every degree of freedom (nv rows), rad/s² (m/s² for the base).

    As a hard task it prescribes the whole motion (inverse dynamics); as a soft task with a
    small weight and ``q̈_ref = 0`` it is the solver's acceleration regularisation.

    Parameters
    ----------
    target : the accelerations asked for (nv,), rad/s² (m/s² for the base; default: zeros).
    weight : per-axis weights of the cost (scalar or (nv,), ≥ 0); unused when hard.
    priority : ``"soft"`` (a diagonal cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans (nv,) selecting the degrees of freedom the task keeps (default: all).
    name : how reports and errors name the task (default: ``"AccelerationTask"``).
    """

    def __init__(self, target=None, *, weight=1.0, priority: str | int = "soft", mask=None, name: str | None = None):
        self._pending_target = target
        super().__init__(None, weight=weight, priority=priority, mask=mask, name=name)

    def dimension(self, robot) -> int:
        """``robot.nv``: one axis per degree of freedom."""
        return robot.nv

    def bind(self, robot) -> None:
        """Apply the target given so far (default: zeros) now that ``nv`` is known."""
        self._eye = np.eye(robot.nv)
        self._cost = None
        self.set_target(np.zeros(robot.nv) if self._pending_target is None else self._pending_target)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target``: the accelerations asked for (nv,), rad/s² (m/s² for the base)."""
        if velocity is not None or acceleration is not None:
            raise ValueError("AccelerationTask takes an acceleration target only: velocity and "
                             "acceleration must be None")
        if self.robot is None:
            self._pending_target = target
            return
        self.acceleration_ref = as_vector(target, "target", self.dim).copy()
        self.acceleration_ref.flags.writeable = False      # change it with set_target
        self._zero_target = not np.any(self.acceleration_ref)

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """``(acceleration_ref,)`` once the task is added."""
        return () if self.robot is None else (self.acceleration_ref,)

    def restore_targets(self, values) -> None:
        """:meth:`set_target` with the recorded accelerations."""
        if len(values):
            self.set_target(values[0])

    def compute(self, context) -> Rows:
        """``A = I`` (the kept rows, nv columns) and ``b = q̈_ref`` (rad/s², m/s² for the base)."""
        return Rows(self._eye[self._rows], self.acceleration_ref[self._rows])

    def diagonal(self, context, targets, weight=None) -> DiagonalCost:
        """The cost ``Σ w_i (x_c_i − t_i)²`` on ``x[columns]``: returns ``(columns, weights)``
        and adds ``w ∘ t`` into ``targets`` at the columns (nothing when every ``t`` is 0);
        ``weight``: a step's per-axis override."""
        kept = self._kept          # axis i is the column of q̈_i
        kept_weight = self.kept_weight if weight is None else self.kept_weight_of(weight)
        if not self._zero_target:
            targets[kept] += kept_weight * self.acceleration_ref[kept]
        cost = self._cost
        if cost is None or cost.weights is not kept_weight or cost.columns is not kept:
            cost = self._cost = DiagonalCost(kept, kept_weight)       # the weights or mask changed
        return cost


class ForceRegularization(DiagonalTask):
    """``weight Σ_i ||f_i||²`` over every active contact's variables and every closure's
    force (N², local axes; the norm does not depend on the axes).

    Parameters
    ----------
    weight : the weight of the cost, a scalar ≥ 0.
    priority : must be ``"soft"`` (a regularisation is a cost).
    mask : booleans (1,) (default: keep the task).
    name : how reports and errors name the task (default: ``"ForceRegularization"``).
    """

    def __init__(self, weight: float = 1e-8, *, priority: str | int = "soft", mask=None, name: str | None = None):
        super().__init__(1, weight=positive_scalar(weight, "weight", allow_zero=True), priority=priority, mask=mask,
                         name=name)

    def _soft_only(self, value, name: str) -> str:
        if value != "soft":
            raise ValueError(f"{name} must be 'soft' for a regularisation task, got {value!r}")
        return value

    priority = Setting("_soft_only", after="structure_changed")
    """Always ``"soft"``: a regularisation is a cost."""

    @property
    def scalar_weight(self) -> float:
        """The weight of the cost (the task's one axis), 1/N²."""
        return float(self._weight[0])

    def compute(self, context) -> Rows:
        """``A = [0 I]`` (n columns: identity on the contact and closure forces, zero on q̈) and
        ``b = 0``, one row per force variable."""
        count = context.n - context.nv
        matrix = np.zeros((count, context.n))
        matrix[:, context.nv:] = np.eye(count)
        return Rows(matrix, np.zeros(count))

    def diagonal(self, context, targets, weight=None) -> DiagonalCost:
        """``(columns, weights)`` of the cost on the contact variables (its targets are 0);
        ``weight`` (1,): a step's override of the scalar weight."""
        weights = self._weight if weight is None else weight
        if getattr(self, "_diagonal_for", None) is not context or self._weights_for is not weights:
            count = context.n - context.nv           # built once per layout (its contacts) and weight
            self._diagonal_for, self._weights_for = context, weights
            self._diagonal = DiagonalCost(slice(context.nv, context.n), np.full(count, float(weights[0])))
        return self._diagonal


# ------------------------------------------------------------------------------ the solver's
class ReadOnlyWeights(dict):
    """Regularisation weights in force: read-only (an edit would not reach the tasks built
    from them; assign ``solver.regularization = {...}`` instead)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("the regularisation weights are read-only: assign solver.regularization = {...} "
                        "to change them")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse

    def __reduce__(self):
        return type(self), (dict(self),)


def regularization_weights(value, name: str) -> ReadOnlyWeights:
    """The weights of :data:`DEFAULT_REGULARIZATION` overridden by ``value`` (a mapping), as
    a read-only mapping (a change is an assignment, which rebuilds the tasks)."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a dict with keys {list(DEFAULT_REGULARIZATION)}, got {type(value).__name__}")
    weights = dict(DEFAULT_REGULARIZATION)
    for key, weight in value.items():
        if key not in weights:
            raise KeyError(f"{name} key {key!r} is unknown; expected {list(weights)}")
        weights[key] = positive_scalar(weight, f"{name}[{key!r}]", allow_zero=True)
    return ReadOnlyWeights(weights)


def regularization_tasks(weights: Mapping[str, float], robot) -> list[Task]:
    """The regularisation tasks of ``weights`` (one per non-zero weight), prepared for
    ``robot``: q̈ toward 0, the contact forces, τ toward 0."""
    candidates = [
        AccelerationTask(weight=weights["acceleration"], name="acceleration regularisation"),
        ForceRegularization(weights["force"], name="force regularisation"),
        TorqueTask(weight=weights["torque"], name="torque regularisation"),
    ]
    tasks = []
    for task, weight in zip(candidates, (weights["acceleration"], weights["force"], weights["torque"])):
        if weight > 0:
            task.prepare(robot)
            tasks.append(task)
    return tasks
