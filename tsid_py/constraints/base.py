"""Constraint base classes: the contract every inequality implements.

Two shapes of inequality reach the QP, each with one required method:

* :class:`AccelerationBounds`: :meth:`~AccelerationBounds.acceleration_bounds` returns
  :class:`~tsid_py.rows.VariableBounds` ``lower ≤ q̈[index] ≤ upper`` (joint position,
  velocity and acceleration limits), merged into one box on q̈;
* :class:`LinearConstraint`: :meth:`~LinearConstraint.rows` returns
  :class:`~tsid_py.rows.Bounds` ``lower ≤ C x ≤ upper`` over ``x = [q̈; f]`` (torque
  limits), with an optional fast path :meth:`~LinearConstraint.write_rows`.

:meth:`Constraint.bind` resolves names and limits against the robot when the constraint is
added; a constraint belongs to one solver.

Its ``priority`` is ``"hard"`` by default: the rows must hold, and a step whose other hard
rows contradict them fails. At a level ``1, 2, …`` (or ``"soft"``, the last level) the rows
get a slack ``w`` instead, ``lower ≤ C x − w ≤ upper``, and ``weight · ‖w‖²`` is minimised at
that level, after the levels above it and before those below (:mod:`tsid_py.hierarchy`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .._validation import priority as check_priority
from ..items import SolverItem
from ..rows import Bounds, StepContext, VariableBounds
from ..settings import Setting, positive


def setting(check) -> Setting:
    """A constraint's parameter: validated by ``check(value, name)`` on every assignment (the
    constructor's too); a change re-binds the constraint to its robot and takes effect at
    the next solve (:meth:`Constraint.reconfigure`)."""
    return Setting(check, after="reconfigure")


class Constraint(SolverItem, ABC):
    """An inequality on the QP's variables; see :class:`AccelerationBounds` and
    :class:`LinearConstraint`. Parameters are :func:`setting` attributes.

    Parameters
    ----------
    priority : ``"hard"`` (default: the rows must hold), a level ``1, 2, …`` or ``"soft"``:
        the rows' violation is minimised at that level (see the module).
    weight : weight of the squared violation at that level, 1/(row unit)² (> 0; unused
        when hard).
    """

    name = "constraint"
    robot = None
    _priority = "hard"          # for subclasses that do not call Constraint.__init__
    _weight = 1.0

    def __init__(self, *, priority: str | int = "hard", weight: float = 1.0):
        self.priority, self.weight = priority, weight

    priority = Setting(check_priority, after="structure_changed")
    """``"hard"``, a level ``1, 2, …`` or ``"soft"`` (see the module)."""

    weight = Setting(positive, after="structure_changed")
    """Weight of the squared violation when the constraint has a level, 1/(row unit)² (> 0)."""

    #: Whether a control loop's failure policy may lift this constraint's rows for a step
    #: before the step fails (:meth:`tsid_py.overrides.StepOverrides.relax`): a safeguard
    #: such as self-collision avoidance, not a physical limit.
    relaxable = False

    def relax_rows(self, context, matrix, lower, upper) -> None:
        """This step's rows as a failure policy relaxes them
        (:meth:`tsid_py.overrides.StepOverrides.relax`): by default lifted, ``−inf ≤ · ≤ inf``;
        a relaxable constraint may keep a weaker form."""
        lower.fill(-np.inf)
        upper.fill(np.inf)

    @property
    def engaged(self) -> bool:
        """Whether the rows of the last assembly could bind (a relaxable constraint with no
        pair near has nothing to lift); True unless a constraint knows better."""
        return True

    def prepare(self, robot) -> None:
        """Bind to ``robot`` (the solver calls this when the constraint is added)."""
        self.robot = robot
        self.bind(robot)

    def bind(self, robot) -> None:
        """Resolve names and limits against ``robot`` (called when the constraint is added)."""

    def reconfigure(self) -> None:
        """Apply changed settings: bind again (once added) and rebuild the owner's layout."""
        if self.robot is not None:
            self.bind(self.robot)
        self.structure_changed()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class AccelerationBounds(Constraint):
    """Bounds on single accelerations."""

    @abstractmethod
    def acceleration_bounds(self, context: StepContext) -> VariableBounds:
        """``VariableBounds(index, lower, upper)`` on ``q̈[index]``, rad/s² (or m/s²)."""


class LinearConstraint(Constraint):
    """Two-sided rows ``lower ≤ C x ≤ upper``."""

    @abstractmethod
    def rows(self, context: StepContext) -> Bounds:
        """``Bounds(C, lower, upper)`` with ``C`` over the whole variable vector (or over q̈
        only: ``nv`` columns)."""

    def row_count(self, context: StepContext) -> int:
        """How many rows :meth:`rows` gives (asked once, when the layout is built)."""
        return len(self.rows(context).lower)

    def write_rows(self, context, matrix: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Write :meth:`rows` into the solver's buffers (``matrix`` spans the whole variable
        vector); constraints on the control loop's path override it to skip temporaries."""
        rows, lo, hi = self.rows(context)
        if rows.shape not in ((matrix.shape[0], context.nv), matrix.shape):
            raise ValueError(f"{self!r} returned rows of shape {rows.shape}; expected {matrix.shape} "
                             f"or ({matrix.shape[0]}, {context.nv})")
        matrix[:, : rows.shape[1]] = rows
        lower[:] = lo
        upper[:] = hi


def limit_values(value, name: str):
    """A limits argument as given: None, a ``{joint: value}`` dict, a scalar or an array;
    every value > 0 (``inf``: unlimited), never NaN."""
    if value is None:
        return None
    items = value.items() if isinstance(value, dict) else [(None, value)]
    for joint, entry in items:
        label = name if joint is None else f"{name}[{joint!r}]"
        try:
            array = np.asarray(entry, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{label} must be a number or an array of numbers > 0, got {entry!r}") from None
        if array.ndim > 1 or np.any(np.isnan(array)) or np.any(array <= 0):
            raise ValueError(f"{label} must be > 0 (inf for unlimited), scalar or one per joint; got {entry!r}")
    return dict(value) if isinstance(value, dict) else value


def actuated_limits(robot, urdf_values: np.ndarray, limits, scale: float, name: str) -> np.ndarray:
    """Per-actuated-joint limits: the URDF's values, or ``limits`` (a scalar, an (na,) array
    or a ``{joint: value}`` dict overriding some joints), times ``scale``. URDF entries that
    are non-positive or non-finite mean "unlimited" (inf), and so does an ``inf`` given."""
    from .._validation import positive_scalar

    values = np.array(urdf_values, dtype=float)
    limits = limit_values(limits, name)
    if isinstance(limits, dict):
        offset = 6 if robot.floating_base else 0
        for joint, value in limits.items():
            values[robot.joint_v_index(joint) - offset] = float(value)
    elif limits is not None:
        array = np.asarray(limits, dtype=float)
        if array.ndim == 1 and array.shape != (robot.na,):
            raise ValueError(f"{name} must be a scalar or have shape ({robot.na},), got {array.shape}")
        values = np.broadcast_to(array, (robot.na,)).copy()
    values = values * positive_scalar(scale, "scale")
    values[~np.isfinite(values) | (values <= 0) | (values > 1e300)] = np.inf
    return values
