"""Task base classes: the contract every task implements.

A task contributes rows ``A x = b`` to the QP over ``x = [q̈; f]``: a cost
``Σ_i weight_i (A_i x − b_i)²`` when ``priority="soft"``, equalities when ``"hard"``, and at a
level ``priority=1, 2, …`` the same cost minimised lexicographically: a level never degrades
the levels above it (:mod:`tsid_py.hierarchy`).

Writing a task
--------------
Subclass :class:`Task` and implement **one** method, :meth:`Task.compute`, returning
:class:`~tsid_py.rows.Rows` for the kept axes. For the common "drive a quantity with a PD
law" case subclass :class:`PDTask` instead and implement **one** method,
:meth:`PDTask.kinematics`, returning :class:`~tsid_py.rows.PDKinematics` (error, Jacobian,
drift); the gains, weights, masks, feed-forward and targets are handled by the base. A
complete example is ``examples/joint_coupling_task.py``.

Optional hooks, each with a working default:

* ``acts_on`` (class attribute): ``"ddq"`` (rows over q̈, ``nv`` columns, the default) or
  ``"x"`` (rows over the whole ``x``: torques, wrenches);
* :meth:`Task.dimension`: the number of axes, when it depends on the robot (pass
  ``dim=None`` to the constructor);
* :meth:`Task.bind`: resolve names against the robot once, when the task is added;
* :meth:`PDTask.apply_target` and :meth:`PDTask.default_target`: validate and store a
  position-level target; the target used when none is given (computed at the robot's
  ``q_ref`` without touching the robot's state);
* :meth:`Task.record`: update a reported error from each step's solution;
* :meth:`Task.write_rows`: a fast path writing the same rows into the solver's buffers.

Every setting (``weight``, ``priority``, ``mask``, ``kp``, ``kd``) is a validated property;
a change takes effect at the next solve.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from .._indexing import index_selector
from .._validation import as_vector, mask_vector, per_axis, priority as check_priority
from ..items import SolverItem
from ..row_writers import pd_rows
from ..rows import DiagonalCost, PDKinematics, Rows, StepContext
from ..settings import Setting, assigned


class Task(SolverItem, ABC):
    """Rows ``A x = b`` of dimension ``dim`` with a priority, per-axis weights and a mask.

    Parameters
    ----------
    dim : number of axes, or None when :meth:`dimension` sizes the task from the robot.
    weight : per-axis weights of the cost (scalar or (dim,), ≥ 0) at the task's level (soft
        or 1, 2, …); unused when hard.
    priority : ``"soft"`` (a weighted cost, the last level), ``"hard"`` (equalities) or a
        level ``1, 2, …`` (an int: solved after the hard rows, level 1 first, each level
        never degrading the ones above it).
    mask : booleans (dim,) selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default: the class name).
    """

    #: ``"ddq"``: the rows span q̈ (nv columns); ``"x"``: the whole variable vector.
    acts_on: ClassVar[str] = "ddq"

    #: Whether :meth:`target_arrays` hold everything the task changes from one step to the
    #: next other than its settings (which a flight recorder notices on their own). A flight
    #: recorder (:mod:`tsid_py.scenarios.recorder`) then copies those arrays each step;
    #: otherwise it keeps a copy of the task's whole state each step (a pickle: hundreds of
    #: µs). The library's tasks (:mod:`tsid_py.tasks`) are complete; a class elsewhere says so
    #: in its own body, not by inheritance: a subclass may add state of its own.
    targets_complete: ClassVar[bool] = False

    def __init__(self, dim: int | None = None, *, weight=1.0, priority: str | int = "soft", mask=None,
                 name: str | None = None):
        self._priority = check_priority(priority)
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name must be a str, got {type(name).__name__}")
        self.name = name or type(self).__name__
        self._settings = {"weight": weight, "mask": mask}
        self.dim: int | None = None
        self.robot = None
        if dim is not None:
            self._configure(dim)

    # ------------------------------------------------------------------ the contract
    @abstractmethod
    def compute(self, context: StepContext) -> Rows:
        """``Rows(A, b)`` for the kept axes (``size`` rows) at the robot's current state."""

    def write_rows(self, context: StepContext, matrix: np.ndarray, vector: np.ndarray, weighted: bool) -> None:
        """Write ``(√W A, √W b)`` (``weighted``: a cost) or ``(A, b)`` (equalities) into the
        solver's buffers: ``matrix`` is ``nv`` columns wide for a task on q̈ and ``n`` for a
        task on ``x``. This default goes through :meth:`compute`; a task on the control
        loop's path may override it to skip the temporaries, with the same rows."""
        rows, target = self.compute(context)
        if rows.shape != matrix.shape or np.shape(target) != vector.shape:
            raise ValueError(f"{self!r}.compute returned rows of shape {rows.shape} and a target of shape "
                             f"{np.shape(target)}; expected {matrix.shape} and {vector.shape}")
        if weighted:
            np.multiply(rows, self.row_scale_column, out=matrix)
            np.multiply(target, self.row_scale, out=vector)
        else:
            matrix[:] = rows
            vector[:] = target

    def write_cost_rows(self, context: StepContext, matrix: np.ndarray, vector: np.ndarray,
                        weight: np.ndarray | None = None) -> None:
        """Write the cost rows ``(√W A, √W b)``, with ``W`` the per-axis ``weight`` (dim,) of a
        step's override when given, else the task's own."""
        self.write_rows(context, matrix, vector, weighted=weight is None)
        if weight is not None:
            root = np.sqrt(weight[self.kept_axes])
            matrix *= root[:, None]
            vector *= root

    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """Move the task's reference: ``target`` (the task's own form, e.g. a point, a
        placement, joint positions), and its ``velocity`` and ``acceleration`` feed-forward
        where the task has them. Call it freely each step; it takes effect at the next solve."""
        raise TypeError(f"{type(self).__name__} has no target")

    def dimension(self, robot) -> int:
        """The number of axes (default: the ``dim`` given to the constructor)."""
        if self.dim is None:
            raise NotImplementedError(f"{type(self).__name__} was built with dim=None and must implement dimension()")
        return self.dim

    def bind(self, robot) -> None:
        """Resolve names against ``robot`` (called once, when the task is added)."""

    def record(self, solution) -> None:
        """Called with each solution; tasks whose error depends on the solution update it."""

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays that hold the task's target now (what :meth:`set_target` changes), for a
        flight recorder to copy each step (:mod:`tsid_py.scenarios.recorder`); a task without
        a target has none. Read them, do not keep them: a new target may replace them."""
        return ()

    def restore_targets(self, values) -> None:
        """Set the target from values :meth:`target_arrays` had (a recorded step replayed),
        exactly: no check, no conversion."""
        if len(values):
            raise ValueError(f"{self.name} has no target to restore, got {len(values)} arrays")

    # ------------------------------------------------------------------ lifecycle
    def prepare(self, robot) -> None:
        """Size the task for ``robot`` and :meth:`bind` it (the solver calls this once)."""
        dim = self.dimension(robot)
        if dim != self.dim:
            self._configure(dim)
        self.robot = robot
        self.bind(robot)

    def _configure(self, dim: int) -> None:
        """Validate the per-axis settings once the dimension is known."""
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive int, got {dim!r}")
        self.dim = int(dim)
        self._weight = None
        self.mask = self._settings["mask"]
        self.weight = self._settings["weight"]

    # ------------------------------------------------------------------ settings
    priority = Setting(check_priority, after="structure_changed")
    """``"soft"`` (a weighted cost), ``"hard"`` (equalities) or a level ``1, 2, …``."""

    mask = Setting("_checked_mask", after="_mask_changed")
    """Booleans (dim,) selecting the axes the task keeps."""

    weight = Setting("_checked_weight", after="_weight_changed")
    """Per-axis weights (dim,), ≥ 0 (read-only array); the cost is ``Σ weight_i (A_i x − b_i)²``."""

    def _checked_mask(self, value, name: str) -> np.ndarray:
        return mask_vector(value, name, self.dim)

    def _mask_changed(self) -> None:
        self._settings["mask"] = self._mask
        self._rows = np.flatnonzero(self._mask)
        #: Selects the kept axes: a slice (a view, no copy) when they are contiguous.
        self._kept = index_selector(self._rows)
        if self._weight is not None:         # re-derive the kept axes' weights
            self.weight = self._weight
        self.structure_changed()

    def _checked_weight(self, value, name: str) -> np.ndarray:
        weight = per_axis(value, name, self.dim).copy()
        weight.flags.writeable = False        # an in-place edit would not reach the cost
        return weight

    def _weight_changed(self) -> None:
        self._settings["weight"] = self._weight
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

    @property
    def kept_axes(self) -> np.ndarray:
        """Indices of the axes the mask keeps."""
        return self._rows

    def weighted_rows(self, context: StepContext) -> Rows:
        """``(√W A, √W b)`` for the kept axes, so that the cost is ``||√W (A x − b)||²``."""
        matrix, vector = self.compute(context)
        return Rows(matrix * self.row_scale_column, vector * self.row_scale)

    def __repr__(self) -> str:
        return f"{self.name}(priority={self.priority!r})"


class DiagonalTask(Task):
    """A task whose soft cost acts on single variables, ``Σ_i w_i (x[c_i] − t_i)²``.

    As a cost it is handed over by :meth:`diagonal` (cheaper than rows: the Hessian gains a
    diagonal); as a hard task it still gives :meth:`compute`'s rows.
    """

    @abstractmethod
    def diagonal(self, context: StepContext, targets: np.ndarray, weight: np.ndarray | None = None) -> DiagonalCost:
        """Add ``w ∘ t`` into ``targets`` (n,) at the task's columns and return the
        :class:`~tsid_py.rows.DiagonalCost` ``(columns, w)`` of the kept axes; ``weight``
        (dim,): the per-axis weights of this step (a step's override), else the task's."""

    def kept_weight_of(self, weight: np.ndarray | None) -> np.ndarray:
        """The kept axes' weights: the task's (:attr:`kept_weight`, the same array until the
        weights are assigned), or those of a step's override ``weight`` (the same array
        for the same override array)."""
        if weight is None:
            return self.kept_weight
        cached = getattr(self, "_override_kept", None)
        if cached is None or cached[0] is not weight or cached[2] is not self._rows:
            cached = self._override_kept = (weight, weight[self._rows], self._rows)
        return cached[1]


class PDTask(Task):
    r"""A task asking :math:`J \ddot q + \dot J v = a^* = a_{ref} + K_p e + K_d \dot e` on its kept axes.

    ``e = x_ref − x`` is the error and ``ė = v_ref − J v`` its rate (both readable after each
    step as :attr:`error` and :attr:`error_rate`: arrays the next step refreshes in place, so
    copy one to keep its value); ``kp`` (1/s²) and ``kd`` (1/s) take a
    scalar or one value per axis, ``kd`` defaulting to ``2 √kp`` (critically damped).
    Change the targets with :meth:`set_target` (each step reads their arrays) and the gains
    by assignment, never in place: a setting is checked and packed by the compiled assembly
    (:mod:`tsid_py.assembly_program`) when it is assigned.
    Subclasses implement :meth:`kinematics`, and :meth:`apply_target` /
    :meth:`default_target` when their target is not a plain (dim,) vector.

    Parameters
    ----------
    dim : number of axes, or None when :meth:`dimension` sizes the task from the robot.
    kp : proportional gains, 1/s² (scalar or (dim,), ≥ 0).
    kd : derivative gains, 1/s (scalar or (dim,), ≥ 0); default ``2 √kp``.
    weight : per-axis weights of the cost (scalar or (dim,), ≥ 0) at the task's level;
        unused when hard.
    priority : ``"soft"``, ``"hard"`` or a level ``1, 2, …`` (as for :class:`Task`).
    mask : booleans (dim,) selecting the axes the task keeps (default: all).
    name : how reports and errors name the task (default: the class name).
    """

    def __init__(self, dim: int | None = None, *, kp=10.0, kd=None, weight=1.0, priority: str | int = "soft", mask=None,
                 name: str | None = None):
        self._gains = (kp, kd)
        self.position_ref = None
        self._pending_target = None
        self._target_given = False
        self.velocity_ref = self.acceleration_ref = None
        super().__init__(dim, weight=weight, priority=priority, mask=mask, name=name)

    # ------------------------------------------------------------------ the contract
    @abstractmethod
    def kinematics(self, robot) -> PDKinematics:
        """The task's error, Jacobian and drift at the robot's current state."""

    def apply_target(self, target) -> None:
        """Validate and store the position-level ``target`` (default: a (dim,) vector kept
        as :attr:`position_ref`)."""
        self.position_ref = as_vector(target, "target", self.dim).copy()

    def default_target(self, robot):
        """The target when none was given (default: zeros)."""
        return np.zeros(self.dim)

    def target_arrays(self) -> tuple[np.ndarray, ...]:
        """``(position_ref, velocity_ref, acceleration_ref)`` (the position when it is an array)."""
        if isinstance(self.position_ref, np.ndarray):
            return self.position_ref, self.velocity_ref, self.acceleration_ref
        return self.velocity_ref, self.acceleration_ref

    def restore_targets(self, values) -> None:
        """Copies of ``values`` as :meth:`target_arrays`'s arrays."""
        arrays = [np.array(value, dtype=float) for value in values]
        if len(arrays) == 3:
            self.position_ref = arrays.pop(0)
        self.velocity_ref, self.acceleration_ref = arrays

    # ------------------------------------------------------------------ targets
    def set_target(self, target, velocity=None, acceleration=None) -> None:
        """``target`` (see :meth:`apply_target`), ``velocity`` (dim,) and ``acceleration``
        (dim,) feed-forward in the task's units (zero when None). A task sized by the robot
        keeps the three until it is added to a solver, then applies them."""
        self._target_given = True
        if self.dim is None:
            self._pending_target = (target, velocity, acceleration)
            return
        self._pending_target = None
        self.apply_target(target)
        self._feedforward(velocity, acceleration)

    def _feedforward(self, velocity, acceleration) -> None:
        self.velocity_ref = np.zeros(self.dim) if velocity is None else as_vector(velocity, "velocity",
                                                                                  self.dim).copy()
        self.acceleration_ref = (np.zeros(self.dim) if acceleration is None
                                 else as_vector(acceleration, "acceleration", self.dim).copy())

    def prepare(self, robot) -> None:
        """:meth:`Task.prepare` (size and bind the task for ``robot``), then apply the target:
        the one given before the task was added, or :meth:`default_target` if none was."""
        super().prepare(robot)
        if not self._target_given:
            self.set_target(self.default_target(robot))
        elif self._pending_target is not None:
            self.set_target(*self._pending_target)

    def _configure(self, dim: int) -> None:
        super()._configure(dim)
        self.set_gains(*self._gains)
        #: The buffers the compiled fast paths write the error and its rate into, each step
        #: (no allocation on the control loop's path): ``error`` and ``error_rate`` are them
        #: after such a step — copy to keep a value.
        self.error_buffers = (np.zeros(dim), np.zeros(dim))
        self.error, self.error_rate = self.error_buffers
        if self.velocity_ref is None or self.velocity_ref.size != dim:
            self._feedforward(None, None)

    # ------------------------------------------------------------------ gains
    def set_gains(self, kp, kd=None) -> None:
        """Set ``kp`` (1/s²) and ``kd`` (1/s), scalars or per axis; ``kd = 2√kp`` if omitted."""
        kp_value = per_axis(kp, "kp", self.dim)
        kd_value = 2.0 * np.sqrt(kp_value) if kd is None else per_axis(kd, "kd", self.dim)
        self._gains = (kp, kd)
        self._kp, self._kd = kp_value, kd_value
        assigned(self)

    kp = Setting("_checked_gain")
    """Proportional gains (dim,), 1/s²."""

    kd = Setting("_checked_gain")
    """Derivative gains (dim,), 1/s."""

    def _checked_gain(self, value, name: str) -> np.ndarray:
        return per_axis(value, name, self.dim)

    def desired_acceleration(self) -> np.ndarray:
        """``a* = a_ref + Kp e + Kd ė`` from the last measured error."""
        return self.acceleration_ref + self._kp * self.error + self._kd * self.error_rate

    def packed_parameters(self, weighted: bool, nv: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The compiled PD writer's parameters as :mod:`tsid_py.assembly_program` packs them
        (a task kind the program compiles adds its own): floats the velocity and acceleration
        references, ``kp``, ``kd``, room for the error and its rate (2 dim) and the rows'
        scales (√w when ``weighted``, else ones); ints the kept axes."""
        scales = np.broadcast_to(self._row_scales[weighted], (self.size,))
        return ([self.velocity_ref, self.acceleration_ref, self._kp, self._kd, np.zeros(2 * self.dim), scales],
                [self._rows])

    # ------------------------------------------------------------------ rows
    def compute(self, context: StepContext) -> Rows:
        """The readable definition of the rows: with ``(e, J, J̇v)`` of the task's axes from
        :meth:`kinematics` and ``ė = v_ref − J v``, ``A = J`` and
        ``b = a_ref + Kp e + Kd ė − J̇v`` on the kept axes (numpy; :meth:`write_rows` forms
        the same rows in compiled code)."""
        robot = context.robot
        error, jacobian, drift, first = self.kinematics(robot)
        axes = slice(first, first + self.dim)
        rate = self.velocity_ref - jacobian[axes] @ robot.v
        desired = self.acceleration_ref + self._kp * error + self._kd * rate - drift[axes]
        return Rows(jacobian[axes][self._rows], desired[self._rows])

    def write_rows(self, context, matrix, vector, weighted):
        """:meth:`compute`'s rows (scaled by √W when ``weighted``) in one compiled call from
        :meth:`kinematics` (through numba's dispatcher, which checks the arrays' types)."""
        self.write_pd_rows(pd_rows, context.robot.v, self.kinematics(context.robot), matrix, vector, weighted)

    def write_pd_rows(self, writer, v: np.ndarray, kinematics: PDKinematics, matrix, vector, weighted) -> None:
        """The PD rows through ``writer`` (:func:`~tsid_py.row_writers.pd_rows`, or its
        compiled function for a task whose kinematics are the library's own buffers)."""
        error, jacobian, drift, first = kinematics
        if error.shape != (self.dim,) or jacobian.shape[1] != v.size or jacobian.shape[0] < first + self.dim:
            raise ValueError(f"{self!r}.kinematics returned error {np.shape(error)} and Jacobian "
                             f"{np.shape(jacobian)}; expected ({self.dim},) and rows {first}..{first + self.dim - 1} "
                             f"of {v.size} columns")
        self.error, self.error_rate = error, np.empty(self.dim)
        writer(jacobian, v, drift, error, first, self._rows, self._row_scales[weighted], self.acceleration_ref,
               self.velocity_ref, self._kp, self._kd, matrix, vector, self.error_rate)

