"""Track planned contact forces in the whole-body QP: ``w Σ_i ‖f_i − f_i*‖²``.

The centroidal plan (:mod:`.mpc`) gives each foot on the ground a force ``f_i*`` (world
axes); the whole-body QP's point-contact variables are the same forces in each contact
frame's own axes, ``f_i = R_iᵀ f_i^{world}``. A cost of equal weight on the three axes is
invariant under rotation, ``‖R_iᵀ f − R_iᵀ f*‖ = ‖f − f*‖``, so the tracking cost is a
diagonal cost on the contact variables with targets ``R_iᵀ f_i*`` — no rows, as cheap as the
solver's own force regularisation. A contact with no target is pulled toward zero force
with the same weight.
"""

from __future__ import annotations

import numpy as np
from numba import float64, intp, njit, void

from ..._numba import MATRIX, VECTOR, direct_calls
from ..._validation import as_vector, positive_scalar
from ...rows import DiagonalCost, Rows
from ...settings import Setting
from ...tasks import DiagonalTask


@njit(void(VECTOR, intp, MATRIX, VECTOR, float64), cache=True)
def add_local_target(targets, start, rotation, force, scale):
    """``targets[start:start + 3] += scale Rᵀ f`` (the force in the contact frame's axes)."""
    for i in range(3):
        targets[start + i] += scale * (rotation[0, i] * force[0] + rotation[1, i] * force[1] + rotation[2, i] * force[2])


_direct = direct_calls(add_local_target)


class ForceTargets(DiagonalTask):
    """``weight Σ_i ‖f_i − f_i*‖²`` over the active point contacts (1/N²; see the module).

    :meth:`set_target` takes ``{contact name: f* (3,) world axes, N}``; contacts not named
    have target 0."""

    acts_on = "x"

    def __init__(self, weight: float = 1e-4, *, name: str = "force targets"):
        super().__init__(1, weight=positive_scalar(weight, "weight"), priority="soft", name=name)
        self.targets: dict[str, np.ndarray] = {}
        self._cost = None

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target``: ``{contact name: force (3,) world-aligned, N}`` (a new dict each
        call, or the same one refreshed; the solve reads it)."""
        if velocity is not None or acceleration is not None:
            raise ValueError("ForceTargets takes forces only: velocity and acceleration must be None")
        if not isinstance(target, dict):
            raise ValueError(f"target must be a dict of contact name -> force (3,), got {type(target).__name__}")
        self.targets = {name: as_vector(force, f"target[{name!r}]", 3) for name, force in target.items()}

    def _soft_only(self, value, name: str) -> str:
        if value != "soft":
            raise ValueError(f"{name} of ForceTargets must be 'soft' (a cost on the contact variables), got {value!r}")
        return value

    priority = Setting("_soft_only", after="structure_changed")
    """Always ``"soft"``."""

    def _sources(self, context) -> list[tuple[str, int, np.ndarray]]:
        """``(name, first column, rotation view)`` per active contact (once per layout)."""
        cached = getattr(self, "_sources_for", None)
        if cached is None or cached[0] is not context.contact_columns:
            robot = context.robot
            sources = [(name, columns.start, robot.frame_rotation(context.contacts[name].frame_id))
                       for name, columns in context.contact_columns.items()]
            self._sources_for = cached = (context.contact_columns, sources)
        return cached[1]

    def diagonal(self, context, targets, weight=None) -> DiagonalCost:
        """The cost's ``(columns, weights)`` (every contact variable, the task's weight) and
        ``w R_iᵀ f_i*`` added into ``targets`` at each contact's columns (compiled)."""
        w = self._weight if weight is None else weight
        scale = float(w[0])
        forces, add = self.targets, _direct.add_local_target
        for name, start, rotation in self._sources(context):
            force = forces.get(name)
            if force is not None:
                add(targets, start, rotation, force, scale)
        if self._cost is None or self._cost[0] is not context.contact_columns or self._cost[1] is not w:
            count = context.n - context.nv
            self._cost = (context.contact_columns, w, DiagonalCost(slice(context.nv, context.n), np.full(count, scale)))
        return self._cost[2]

    def compute(self, context) -> Rows:
        """Unit rows on the contact variables with targets ``R_iᵀ f_i*`` (0 where none)."""
        count = context.n - context.nv
        matrix = np.zeros((count, context.n))
        matrix[:, context.nv:] = np.eye(count)
        vector = np.zeros(count)
        for name, columns in context.contact_columns.items():
            if name in self.targets:
                rotation = context.robot.frame_rotation(context.contacts[name].frame_id)
                vector[columns.start - context.nv:columns.start - context.nv + 3] = rotation.T @ self.targets[name]
        return Rows(matrix, vector)
