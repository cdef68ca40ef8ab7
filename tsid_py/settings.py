"""Validated settings: one descriptor for every parameter that may change after construction.

Every documented parameter of a task, contact, constraint, solver or controller can be
changed after construction, with the constructor's checks, and takes effect at the next
solve (or step). :class:`Setting` is how each class declares such a parameter, once::

    class PlanarContact(Contact):
        # its docstring on the next line:
        length = Setting(positive, after="_rebuild_friction")

Assigning ``contact.length = value`` checks the value (``check(value, "length")`` returns
the clean value or raises ``ValueError`` naming the setting), stores it in
``contact._length`` (the fast path of the class reads that), and then calls the instance's
``after`` method, which updates what depends on it (rebuilt friction rows, a layout to
rebuild, a derived quantity). If ``after`` raises (a setting inconsistent with another, e.g.
``f_min`` not below ``f_max``), the previous value is restored and the error propagates.

A ``check`` is a function ``(value, name) -> value`` or the name of a method of the instance
with that signature (for checks that depend on the instance, e.g. one value per axis of a
task). The checks shared across the package are below.
"""

from __future__ import annotations

from collections.abc import Callable

from ._validation import positive_scalar

_MISSING = object()


#: How many settings were assigned in this process, in ``CHANGES[0]``: a flight recorder
#: (:mod:`tsid_py.scenarios.recorder`) compares it between steps to know that a setting of
#: some item changed and keeps a new copy of the items then. Each object also counts its own,
#: :func:`settings_assigned` (the compiled assembly packs an item's parameters anew then).
CHANGES = [0]


def settings_assigned(instance) -> int:
    """How many of ``instance``'s settings were assigned (or changed by a method that
    bumps it, :func:`assigned`)."""
    return instance.__dict__.get("_settings_assigned", 0)


def assigned(instance) -> None:
    """Count a change of ``instance``'s parameters made without a :class:`Setting` (a method
    setting several at once)."""
    CHANGES[0] += 1
    instance.__dict__["_settings_assigned"] = instance.__dict__.get("_settings_assigned", 0) + 1


class Setting:
    """A validated, assignable parameter (see the module).

    Parameters
    ----------
    check : ``(value, name) -> value`` (raises ``ValueError`` naming ``name``), or the name of
        an instance method with that signature.
    after : the name of an instance method called after each assignment (no argument).
    stored : the instance attribute holding the value (default ``_<name>``).
    """

    def __init__(self, check: Callable | str, *, after: str | None = None, stored: str | None = None):
        self.check, self.after, self.stored = check, after, stored

    def __set_name__(self, owner, name: str) -> None:
        self.public = name
        if self.stored is None:
            self.stored = f"_{name}"

    def __get__(self, instance, owner=None):
        return self if instance is None else getattr(instance, self.stored)

    def __set__(self, instance, value) -> None:
        check = getattr(instance, self.check) if isinstance(self.check, str) else self.check
        clean = check(value, self.public)
        assigned(instance)
        if self.after is None:
            setattr(instance, self.stored, clean)
            return
        previous = getattr(instance, self.stored, _MISSING)
        setattr(instance, self.stored, clean)
        try:
            getattr(instance, self.after)()
        except BaseException:
            if previous is _MISSING:
                delattr(instance, self.stored)
            else:
                setattr(instance, self.stored, previous)
            raise


def setting_names(cls) -> set[str]:
    """The public names of the :class:`Setting` descriptors of ``cls`` and its bases."""
    return {attribute.public for klass in cls.__mro__ for attribute in vars(klass).values()
            if isinstance(attribute, Setting)}


# ------------------------------------------------------------------------------ checks
def positive(value, name: str) -> float:
    """A finite number > 0."""
    return positive_scalar(value, name)


def non_negative(value, name: str) -> float:
    """A finite number ≥ 0."""
    return positive_scalar(value, name, allow_zero=True)


def optional_non_negative(value, name: str) -> float | None:
    """None, or a finite number ≥ 0."""
    return None if value is None else positive_scalar(value, name, allow_zero=True)


def fraction(value, name: str) -> float:
    """A number in [0, 1]."""
    number = positive_scalar(value, name, allow_zero=True)
    if number > 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return number


def flag(value, name: str) -> bool:
    """A boolean (``True``/``False``, or numpy's; not a string, which is always true)."""
    if isinstance(value, str) or value is None:
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)
