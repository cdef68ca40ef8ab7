"""Task base classes.

A task contributes rows ``A x = b`` to the QP, either as a cost ``weight ||A x − b||²``
(``priority="soft"``) or as an equality (``priority="hard"``). Most tasks act on q̈ only
(``acts_on = "ddq"``: ``A`` has ``nv`` columns); torque and wrench tasks act on the whole
variable vector ``x = [q̈; f]`` (``acts_on = "x"``).
"""

from __future__ import annotations

import numpy as np

from .. import _kernels
from .._indexing import index_selector
from .._validation import as_vector, mask_vector, per_axis, priority as check_priority


class Task:
    """Rows ``A x = b`` of dimension ``dim`` with a priority, per-axis weights and a mask."""

    acts_on = "ddq"

    def __init__(self, dim: int | None, *, weight=1.0, priority: str = "soft", mask=None,
                 name: str | None = None):
        self.priority = check_priority(priority)
        self.name = name or type(self).__name__
        self._settings = {"weight": weight, "mask": mask}
        self.dim = None
        if dim is not None:
            self._configure(dim)

    def _configure(self, dim: int) -> None:
        """Validate the per-axis settings once the dimension is known (at construction, or
        at ``bind`` for tasks sized by the robot)."""
        self.dim = dim
        self.mask = mask_vector(self._settings["mask"], "mask", dim)
        self._rows = np.flatnonzero(self.mask)
        #: Selects the kept axes: a slice (a view, no copy) when they are contiguous.
        self._kept = index_selector(self._rows)
        self.weight = self._settings["weight"]

    @property
    def weight(self) -> np.ndarray:
        """Per-axis weights (dim,); the cost is ``Σ weight_i (A_i x − b_i)²``."""
        return self._weight

    @weight.setter
    def weight(self, value) -> None:
        self._weight = per_axis(value, "weight", self.dim)
        #: √weight of the kept axes, to scale b (and, as a column, the rows of A); a plain
        #: float when every axis has the same weight (scaling by a scalar is cheaper).
        root = np.sqrt(self._weight)[self._rows]
        uniform = root.size > 0 and bool(np.all(root == root[0]))
        self.row_scale = float(root[0]) if uniform else root
        self.row_scale_column = self.row_scale if uniform else root[:, None]
        self._row_scales = {True: root, False: np.ones(root.size)}     # by ``weighted``
        #: The weights of the kept axes (a new array whenever the weights are assigned).
        self.kept_weight = self._weight[self._rows]

    @property
    def size(self) -> int:
        """Number of rows the task adds (the axes its mask keeps)."""
        return len(self._rows)

    def weighted_rows(self, context) -> tuple[np.ndarray, np.ndarray]:
        """``(√W A, √W b)`` for the masked axes, so that the cost is ``||√W (A x − b)||²``."""
        matrix, vector = self.compute(context)
        return matrix * self.row_scale_column, vector * self.row_scale

    def compute(self, context) -> tuple[np.ndarray, np.ndarray]:
        """``(A, b)`` for the masked axes at the robot's current state."""
        raise NotImplementedError

    def write_rows(self, context, matrix: np.ndarray, vector: np.ndarray, weighted: bool) -> None:
        """Write ``(√W A, √W b)`` (``weighted``, a cost) or ``(A, b)`` (an equality) into the
        solver's buffers: ``matrix`` is ``nv`` columns wide for a task on q̈ and ``n`` for a
        task on ``x``. This default goes through :meth:`compute`; tasks on the control
        loop's path override it to skip the temporaries."""
        rows, target = self.compute(context)
        if rows.shape != matrix.shape:
            raise ValueError(f"{self!r} returned rows of shape {rows.shape}; expected {matrix.shape}")
        if weighted:
            np.multiply(rows, self.row_scale_column, out=matrix)
            np.multiply(target, self.row_scale, out=vector)
        else:
            matrix[:] = rows
            vector[:] = target

    def bind(self, robot) -> None:
        """Resolve names against ``robot`` (called once when the task is added)."""

    def record(self, solution) -> None:
        """Called with each solution; tasks whose error depends on the solution update it."""

    def __repr__(self) -> str:
        return f"{self.name}(priority={self.priority!r})"


class PDTask(Task):
    """A task asking ``J q̈ + J̇ v = a* = a_ref + Kp e + Kd ė``.

    ``e = x_ref − x`` is the error and ``ė = v_ref − v`` its rate; ``kd`` defaults to
    ``2 √kp`` per axis (critically damped). Subclasses implement :meth:`measure`.
    """

    #: True for a task whose :meth:`kinematics` hands over the library's own float64 arrays
    #: (pinocchio's buffers): its rows are then written without the kernel dispatcher's
    #: checks (:data:`tsid_py._kernels.direct`), which a user's task keeps.
    kinematics_checked = False

    def __init__(self, dim: int | None, *, kp=10.0, kd=None, **kwargs):
        self._gains = (kp, kd)
        super().__init__(dim, **kwargs)

    def _configure(self, dim: int) -> None:
        super()._configure(dim)
        self.set_gains(*self._gains)
        self.velocity_ref = np.zeros(dim)
        self.acceleration_ref = np.zeros(dim)
        self.error = np.zeros(dim)
        self.error_rate = np.zeros(dim)

    def set_gains(self, kp, kd=None) -> None:
        """Set ``kp`` (1/s²) and ``kd`` (1/s), scalars or per axis; ``kd = 2√kp`` if omitted."""
        self._gains = (kp, kd)
        self.kp = per_axis(kp, "kp", self.dim)
        self.kd = 2.0 * np.sqrt(self.kp) if kd is None else per_axis(kd, "kd", self.dim)

    def _set_feedforward(self, velocity, acceleration) -> None:
        self.velocity_ref = np.zeros(self.dim) if velocity is None else as_vector(velocity, "velocity", self.dim)
        self.acceleration_ref = (np.zeros(self.dim) if acceleration is None
                                 else as_vector(acceleration, "acceleration", self.dim))

    def kinematics(self, robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
        """``(e, J, J̇v, first)``: the error of the ``dim`` axes, and a Jacobian and drift
        whose rows ``first … first + dim − 1`` are the task's (pinocchio's arrays, unsliced;
        the task's velocity is ``J v``); None for a task without that form, which implements
        :meth:`measure`."""
        return None

    def measure(self, robot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(e, ė, J, J̇v)`` at the robot's current state, all ``dim`` rows."""
        kinematics = self.kinematics(robot)
        if kinematics is None:
            raise NotImplementedError(f"{type(self).__name__} implements neither kinematics() nor measure()")
        error, jacobian, drift, first = kinematics
        rows = slice(first, first + self.dim)
        return error, self.velocity_ref - jacobian[rows] @ robot.v, jacobian[rows], drift[rows]

    def desired_acceleration(self) -> np.ndarray:
        """``a* = a_ref + Kp e + Kd ė`` from the last measured error."""
        return self.acceleration_ref + self.kp * self.error + self.kd * self.error_rate

    def compute(self, context) -> tuple[np.ndarray, np.ndarray]:
        matrix, vector = np.empty((self.size, context.robot.nv)), np.empty(self.size)
        self.write_rows(context, matrix, vector, weighted=False)
        return matrix, vector

    def write_rows(self, context, matrix, vector, weighted):
        """``A = J`` and ``b = a* − J̇v`` on the kept axes (scaled by √W when ``weighted``)."""
        robot = context.robot
        kinematics = self.kinematics(robot)
        if kinematics is not None:                  # one compiled call from pinocchio's arrays
            error, jacobian, drift, first = kinematics
            self.error, self.error_rate = error, np.empty(self.dim)
            rows = _kernels.direct.pd_rows if self.kinematics_checked else _kernels.pd_rows
            rows(jacobian, robot.v, drift, error, first, self._rows, self._row_scales[weighted], self.acceleration_ref,
                 self.velocity_ref, self.kp, self.kd, matrix, vector, self.error_rate)
            return
        error, error_rate, jacobian, drift = self.measure(robot)
        self.error, self.error_rate = error, error_rate
        if weighted:
            np.multiply(jacobian[self._kept], self.row_scale_column, out=matrix)
        else:
            matrix[:] = jacobian[self._kept]
        _kernels.pd_target(self.acceleration_ref, self.kp, error, self.kd, error_rate, drift, self._rows,
                           self._row_scales[weighted], vector)
