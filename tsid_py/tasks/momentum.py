"""MomentumTask: the rate of the centroidal momentum."""

from __future__ import annotations

import numpy as np
from numba import intp, njit, void

from .._numba import MATRIX, VECTOR
from .._validation import as_vector, per_axis
from ..rows import Rows
from ..settings import Setting
from .base import Task


class MomentumTask(Task):
    r"""Ask :math:`A_g \ddot q + \dot A_g v = \dot h^* = \dot h_{ref} + k_p (h_{ref} − h)` for the
    centroidal momentum :math:`h = A_g v = [p; L]` (linear, kg·m/s, then angular about the CoM,
    kg·m²/s).

    Momentum is a velocity-level quantity, so the law is first order: ``kp`` (1/s) is the
    only gain. ``components`` is ``"linear"``, ``"angular"`` (the default: regulate the
    angular momentum toward zero) or ``"both"``; ``target`` and ``velocity`` (the rate
    feed-forward ``ḣ_ref``) then have 3 or 6 entries. The robot's update (pinocchio's
    ``computeAllTerms``) already computes ``A_g``, ``Ȧ_g`` and ``h``: the task costs a row
    copy and ``Ȧ_g v``, no dynamics pass of its own.

    Parameters
    ----------
    target : the momentum to reach (3 or 6,), kg·m/s and kg·m²/s (default: zeros).
    components : ``"linear"``, ``"angular"`` or ``"both"``: the parts of ``h`` regulated.
    kp : gains of the first-order law, 1/s (scalar or one per axis, ≥ 0).
    weight : per-axis weights of the cost (scalar or one per axis, ≥ 0); unused when hard.
    priority : ``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``.
    mask : booleans, one per axis, selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default: ``"MomentumTask"``).
    """

    _COMPONENTS = {"linear": slice(0, 3), "angular": slice(3, 6), "both": slice(0, 6)}

    def __init__(self, target=None, *, components: str = "angular", kp=1.0, weight=1.0, priority: str | int = "soft",
                 mask=None, name: str | None = None):
        if components not in self._COMPONENTS:
            raise ValueError(f"components must be one of {list(self._COMPONENTS)}, got {components!r}")
        self.components = self._COMPONENTS[components]
        dim = self.components.stop - self.components.start
        super().__init__(dim, weight=weight, priority=priority, mask=mask, name=name)
        self.kp = kp
        self.set_target(np.zeros(dim) if target is None else target)
        self.error = np.zeros(dim)
        self.error_rate = np.zeros(dim)

    kp = Setting("_checked_kp")
    """Gains of the first-order law (dim,), 1/s."""

    def _checked_kp(self, value, name: str) -> np.ndarray:
        return per_axis(value, name, self.dim)

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target``: the momentum (3 or 6,); ``velocity``: its rate feed-forward ḣ_ref."""
        if acceleration is not None:
            raise ValueError("acceleration is not used by MomentumTask (a first-order task): pass None")
        self.momentum_ref = as_vector(target, "target", self.dim).copy()
        self.rate_ref = np.zeros(self.dim) if velocity is None else as_vector(velocity, "velocity", self.dim)

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """``(momentum_ref, rate_ref)``."""
        return self.momentum_ref, self.rate_ref

    def restore_targets(self, values) -> None:
        """:meth:`set_target` with the recorded momentum and rate."""
        self.set_target(values[0], np.array(values[1], dtype=float))

    def compute(self, context):
        """``A = A_g`` (the regulated rows of the centroidal momentum matrix, nv columns) and
        ``b = ḣ* − Ȧ_g v`` with ``ḣ* = ḣ_ref + kp (h_ref − h)``, on the kept axes; updates
        :attr:`error` ``= h_ref − h`` and :attr:`error_rate` ``= ḣ* − Ȧ_g v``."""
        rows = self.components
        # the robot's update has computed A_g, h_g = A_g v and the rate at q̈ = 0, Ȧ_g v
        matrix, momentum, drift = context.robot.centroidal()
        self.error = self.momentum_ref - momentum[rows]
        desired_rate = self.rate_ref + self.kp * self.error
        self.error_rate = desired_rate - drift[rows]      # the rate the task still has to produce
        keep = self._rows
        return Rows(matrix[rows][keep], self.error_rate[keep])

    def write_rows(self, context, matrix, vector, weighted):
        """:meth:`compute`'s rows, scaled by ``√W`` when ``weighted``, in one compiled call
        (the same numbers; :attr:`error` and :attr:`error_rate` updated in place; through
        numba's dispatcher, which checks the types of the references a user may assign)."""
        centroidal_matrix, momentum, drift = context.robot.centroidal()
        momentum_rows(centroidal_matrix, momentum, drift, self.components.start, self.momentum_ref, self.rate_ref,
                       self.kp, self._rows, self._row_scales[weighted], self.error, self.error_rate, matrix, vector)


@njit(void(MATRIX, VECTOR, VECTOR, intp, VECTOR, VECTOR, VECTOR, intp[:], VECTOR, VECTOR, VECTOR, MATRIX, VECTOR),
      cache=True, _nrt=False)
def momentum_rows(centroidal_matrix, momentum, drift, first, momentum_ref, rate_ref, kp, kept, scale, error, error_rate,
                  matrix, vector):
    """:meth:`MomentumTask.compute`'s law on the axes ``first, first + 1, …`` of ``h`` into
    ``error`` and ``error_rate``, and its kept rows ``kept`` times ``scale`` (one per kept
    row) into ``matrix`` and ``vector``."""
    for axis in range(momentum_ref.size):
        gap = momentum_ref[axis] - momentum[first + axis]
        error[axis] = gap
        error_rate[axis] = rate_ref[axis] + kp[axis] * gap - drift[first + axis]
    for row in range(kept.size):
        axis, factor = kept[row], scale[row]
        for column in range(matrix.shape[1]):
            matrix[row, column] = centroidal_matrix[first + axis, column] * factor
        vector[row] = error_rate[axis] * factor

