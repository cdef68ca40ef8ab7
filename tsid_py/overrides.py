"""Per-step overrides: what a controller changes for one solve without touching its items.

A control loop sometimes needs one step's QP to differ from the configured one: a sole that
rocks has its no-slip rows turned into a cost, an infeasible step is relaxed by softening
every contact and widening the torque limits, a contact's normal force is held in other
bounds (released: ``[0, 0]``), a soft task weighs differently while a recovery step is under
way. :class:`StepOverrides` carries such changes into one call of
:meth:`tsid_py.DynamicsSolver.solve`; the tasks, contacts and constraints keep their
settings, and the assembly applies the overrides to that step's QP only:

* ``soften(contact, weight)``: the contact's no-slip rows ``J q̈ = −J̇v − kd J v + kp e``
  become the cost ``weight ||J q̈ + J̇v + kd J v − kp e||²`` (weight in (s²/m)²). A hard
  contact softened moves its rows from the equalities to the cost: the solver keeps one
  layout per set of softened hard contacts, built the first time that set is asked for;
* ``bound_normal_force(contact, f_min, f_max)`` (N), ``release(contact)`` (``[0, 0]``): the
  normal force's bounds for this step, within any force ramp under way;
* ``scale_torque_limits(factor)``: every :class:`~tsid_py.constraints.TorqueLimits` bound is
  multiplied by ``factor`` (> 0);
* ``weigh(task, weight)``: a soft task's (or a levelled task's) per-axis weights for this step;
* ``drop_levels(first)``: with priority levels, leave the levels ``first, first + 1, …`` out of
  this step (the failure policy's answer to a level whose QP failed);
* ``relax(constraint)``: a relaxable constraint's rows (:attr:`~tsid_py.constraints.Constraint.relaxable`,
  self-collision avoidance) take their relaxed form for this step
  (:meth:`~tsid_py.constraints.Constraint.relax_rows`: lifted, or weaker).

An override object is reused from step to step by a control loop (:meth:`clear` empties it);
it is validated where it is built (weights, bounds) and where it is applied (the names must
be the solver's active contacts, the tasks its soft tasks). A contact whose removal ramp
ended is taken out by the solve that follows: the controller built that step's overrides
before, so an override naming it is dropped rather than refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ._validation import per_axis, positive_scalar, priority


@dataclass(frozen=True)
class ContactOverride:
    """One contact's changes for a step: ``soft_weight`` (its no-slip rows a cost of this
    weight, (s²/m)²; None: as configured) and ``normal_force`` (``(f_min, f_max)`` N for this
    step; None: as configured)."""

    soft_weight: float | None = None
    normal_force: tuple[float, float] | None = None


class StepOverrides:
    """The overrides of one solve (see the module). Empty when built."""

    __slots__ = ("contacts", "_torque_limit_scale", "task_weights", "_levels_from", "relaxed_constraints", "active")

    def __init__(self):
        #: Contact name -> :class:`ContactOverride`.
        self.contacts: dict[str, ContactOverride] = {}
        self._torque_limit_scale = 1.0
        #: Soft task -> its per-axis weights (dim,) for this step.
        self.task_weights: dict = {}
        self._levels_from: int | None = None
        #: Constraints whose rows are relaxed this step.
        self.relaxed_constraints: set = set()
        #: Whether any override was set since the last :meth:`clear` (read on the control
        #: loop's path: an attribute, not a computed truth value).
        self.active = False

    def __bool__(self) -> bool:
        return self.active

    def clear(self) -> None:
        """Remove every override (a loop calls this at the start of each step)."""
        if self.active:
            self.contacts.clear()
            self.task_weights.clear()
            self.relaxed_constraints.clear()
            self._torque_limit_scale, self._levels_from = 1.0, None
            self.active = False

    def copy(self) -> StepOverrides:
        """An independent copy (the contact overrides are immutable values)."""
        other = StepOverrides()
        other.contacts.update(self.contacts)
        other.task_weights.update(self.task_weights)
        other.relaxed_constraints.update(self.relaxed_constraints)
        if self._torque_limit_scale != 1.0:
            other.scale_torque_limits(self._torque_limit_scale)
        if self._levels_from is not None:
            other.drop_levels(self._levels_from)
        other.active = self.active
        return other

    def without_contacts(self, names) -> StepOverrides:
        """A copy whose contact overrides leave out the contacts ``names`` (self if none is named)."""
        if self.contacts.keys().isdisjoint(names):
            return self
        other = self.copy()
        for name in names:
            other.contacts.pop(name, None)
        return other

    # ------------------------------------------------------------------ contacts
    def soften(self, contact: str, weight: float) -> None:
        """``contact``'s no-slip rows are a cost of ``weight`` (s²/m)² for this step."""
        weight = positive_scalar(weight, "weight")
        self._update(contact, soft_weight=weight)

    def bound_normal_force(self, contact: str, f_min: float, f_max: float) -> None:
        """``f_min ≤ f_z ≤ f_max`` (N) for ``contact`` this step (``0 ≤ f_min ≤ f_max``)."""
        lower = positive_scalar(f_min, "f_min", allow_zero=True)
        upper = positive_scalar(f_max, "f_max", allow_zero=True)
        if lower > upper:
            raise ValueError(f"f_min must be ≤ f_max, got f_min={f_min}, f_max={f_max}")
        self._update(contact, normal_force=(lower, upper))

    def release(self, contact: str) -> None:
        """``contact`` carries no force this step (its normal force bounded to ``[0, 0]``)."""
        self._update(contact, normal_force=(0.0, 0.0))

    def _update(self, contact: str, **changes) -> None:
        if not isinstance(contact, str):
            raise ValueError(f"contact must be a contact name (str), got {contact!r}")
        self.contacts[contact] = replace(self.contacts.get(contact, _NO_CHANGE), **changes)
        self.active = True

    def softened(self) -> dict[str, float]:
        """Name -> weight of the contacts softened this step."""
        return {name: entry.soft_weight for name, entry in self.contacts.items() if entry.soft_weight is not None}

    # ------------------------------------------------------------------ limits and tasks
    @property
    def torque_limit_scale(self) -> float:
        """Factor on every torque limit this step (1: as configured); assigning it is
        :meth:`scale_torque_limits`."""
        return self._torque_limit_scale

    @torque_limit_scale.setter
    def torque_limit_scale(self, factor: float) -> None:
        self.scale_torque_limits(factor)

    @property
    def levels_from(self) -> int | None:
        """The first priority level left out of this step (None: every level is solved);
        assigning a level is :meth:`drop_levels`."""
        return self._levels_from

    @levels_from.setter
    def levels_from(self, first: int) -> None:
        self.drop_levels(first)

    def scale_torque_limits(self, factor: float) -> None:
        """Multiply every torque limit by ``factor`` (> 0) this step."""
        self._torque_limit_scale = positive_scalar(factor, "factor")
        self.active = True

    def drop_levels(self, first: int) -> None:
        """Leave the priority levels ``first, first + 1, …`` (ints ≥ 1) out of this step: the
        hard rows, the levels above ``first`` and the soft level are solved as usual."""
        level = priority(first, "first")
        if not isinstance(level, int):
            raise ValueError(f"first must be a level 1, 2, … (an int), got {first!r}")
        self._levels_from = level
        self.active = True

    def relax(self, constraint) -> None:
        """Relax ``constraint``'s rows for this step (its ``relax_rows``); it must be
        relaxable (self-collision avoidance: never the reason a step fails)."""
        if not getattr(constraint, "relaxable", False):
            raise ValueError(f"constraint {getattr(constraint, 'name', constraint)!r} is not relaxable (only a "
                             "constraint with relaxable = True, such as SelfCollisionAvoidance, may be lifted)")
        self.relaxed_constraints.add(constraint)
        self.active = True

    def weigh(self, task, weight) -> None:
        """A soft task's per-axis weights (scalar or (dim,), ≥ 0) for this step; ``task``
        must have been added to a solver (its dimension is known)."""
        if task.dim is None:
            raise ValueError(f"task {task.name!r} must be added to a solver before its weight is overridden")
        weights = per_axis(weight, f"weight of task {task.name!r}", task.dim)
        weights.flags.writeable = False
        self.task_weights[task] = weights
        self.active = True


_NO_CHANGE = ContactOverride()


def checked_normal_force(override: ContactOverride | None, configured: tuple[float, float]) -> tuple[float, float]:
    """The normal-force bounds of a contact this step: the override's, else as configured."""
    if override is None or override.normal_force is None:
        return configured
    return override.normal_force


def soft_scale(weight: float) -> float:
    """The factor √weight that turns rows into the rows of the cost ``weight ||·||²``."""
    return float(np.sqrt(weight))
