"""The typed values that tasks, constraints and the assembly hand each other.

Every item of the QP speaks in one of these shapes, over the variables
``x = [q̈ (nv); f_1; …; f_k]`` (a task or constraint "on q̈" uses the first ``nv`` columns
only):

* :class:`Rows` — ``A x = b``: a task's rows (a cost when soft, equalities when hard);
* :class:`Bounds` — ``lower ≤ C x ≤ upper``: a linear constraint's rows;
* :class:`VariableBounds` — ``lower ≤ q̈[index] ≤ upper``: bounds on single accelerations;
* :class:`DiagonalCost` — ``Σ_i w_i (x[columns_i] − t_i)²``: a cost on single variables;
* :class:`PDKinematics` — what a PD task measures: error, Jacobian and drift;
* :class:`StepContext` — what every item may read while one step's QP is assembled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from .robot import Robot


class Rows(NamedTuple):
    """``matrix x = vector`` on a task's kept axes: ``matrix`` is (size, nv) for a task on
    q̈ or (size, n) for a task on the whole ``x``; ``vector`` is (size,)."""

    matrix: np.ndarray
    vector: np.ndarray


class Bounds(NamedTuple):
    """``lower ≤ matrix x ≤ upper``; ``matrix`` is (rows, n) or (rows, nv) (q̈ only);
    infinite entries of ``lower``/``upper`` mean "unbounded"."""

    matrix: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


class VariableBounds(NamedTuple):
    """``lower ≤ q̈[index] ≤ upper`` (rad/s² or m/s²): ``index`` an int array of velocity
    indices, ``lower`` and ``upper`` one value each."""

    index: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


class DiagonalCost(NamedTuple):
    """The weights of a cost ``Σ_i w_i (x[columns_i] − t_i)²`` on single variables:
    ``columns`` (a slice or an int array into ``x``) and ``weights`` (one per column). The
    task adds ``w ∘ t`` into the assembly's target vector itself (targets are often 0)."""

    columns: slice | np.ndarray
    weights: np.ndarray


class PDKinematics(NamedTuple):
    """What a PD task measures at the robot's current state.

    ``error`` (dim,) is ``x_ref − x``; ``jacobian`` and ``drift`` are arrays whose rows
    ``first_row … first_row + dim − 1`` are the task's axes (``J`` with ``nv`` columns and
    ``J̇ v``): unsliced, so a task can hand over pinocchio's own buffers. The task's velocity
    is ``J v``, so the error rate is ``v_ref − J v``.
    """

    error: np.ndarray
    jacobian: np.ndarray
    drift: np.ndarray
    first_row: int = 0


@dataclass
class StepContext:
    """What tasks and constraints read while one step's QP is assembled.

    ``robot`` holds the step's state and dynamics; ``dt`` the control period, s; ``n`` the
    number of variables and ``nv`` of accelerations; ``contact_columns[name]`` the slice of
    ``x`` holding that contact's variables and ``contacts[name]`` the contact itself.

    The torques are affine in ``x``: ``τ_a = torque_matrix x + torque_offset``. That map is
    the equation of motion's rows, so the assembly writes it first in every step and only
    then lets tasks and constraints read it (:meth:`torque_map` refuses before).
    """

    robot: "Robot"
    dt: float
    n: int
    nv: int
    contact_columns: dict = field(default_factory=dict)
    contacts: dict = field(default_factory=dict)
    zero_nv: np.ndarray = None
    torque_matrix: np.ndarray = field(default=None, repr=False)
    torque_offset: np.ndarray = field(default=None, repr=False)
    #: Set by the assembly once the equation of motion's rows of this step are written.
    dynamics_written: bool = False
    #: Factor on every torque limit this step (a step's override; 1: as configured).
    torque_limit_scale: float = 1.0

    def torque_map(self) -> tuple[np.ndarray, np.ndarray]:
        """``(T, t)`` with ``τ_a = T x + t`` at this step; ``RuntimeError`` if the equation of
        motion's rows were not written yet (the assembly's order guarantees they are)."""
        if not self.dynamics_written:
            raise RuntimeError("the torque map is read before the equation of motion's rows are written")
        return self.torque_matrix, self.torque_offset
