"""What tasks, contacts and constraints share: each belongs to at most one solver.

A solver *attaches* an item when it is added and *detaches* it when it is removed; adding
an item that another solver owns, or adding it twice, raises ``ValueError`` naming it. A
setting changed on an attached item that alters the QP's structure (a priority, a friction
coefficient, a mask…) tells its owner, which rebuilds its layout before the next solve.
"""

from __future__ import annotations

from typing import Protocol


class Owner(Protocol):
    """The side of a solver an item sees."""

    def invalidate(self) -> None:
        """Rebuild the QP's layout before the next solve."""

    def footprint_changed(self) -> None:
        """A contact's footprint (a sole's size) changed: what depends on it is derived anew."""


class SolverItem:
    """Base of :class:`~tsid_py.tasks.Task`, :class:`~tsid_py.contacts.Contact` and
    :class:`~tsid_py.constraints.Constraint`: ownership by one solver at a time."""

    name: str
    _owner: Owner | None = None
    #: How many times a setting that shapes the QP changed (:meth:`structure_changed`), in a
    #: solver or out of one: a solver keeps the layouts of items it held before by it.
    structure_version: int = 0

    @property
    def owner(self) -> Owner | None:
        """The solver this item was added to, or None."""
        return self._owner

    def attach(self, owner: Owner) -> None:
        """Called by a solver's ``add_*``; raises ``ValueError`` if the item is already owned."""
        if self._owner is owner:
            raise ValueError(f"{self!r} ({self.name!r}) was already added to this solver")
        if self._owner is not None:
            raise ValueError(f"{self!r} ({self.name!r}) belongs to another solver; remove it there "
                             "first or create a new one (an item is bound to one solver's robot)")
        self._owner = owner

    def bind(self, robot) -> None:
        """Resolve names against ``robot`` (once, when the item is added)."""

    def prepare(self, robot) -> None:
        """Make the item ready for ``robot`` (default: :meth:`bind`)."""
        self.bind(robot)

    def join(self, owner: Owner, robot) -> None:
        """:meth:`attach` to ``owner`` and :meth:`prepare` for its ``robot``; an item that
        cannot be prepared (an unknown frame, a bad size) is detached again."""
        self.attach(owner)
        try:
            self.prepare(robot)
        except BaseException:
            self.detach()
            raise

    def detach(self) -> None:
        """Called by a solver's ``remove_*``: the item may be added again, anywhere."""
        self._owner = None

    def structure_changed(self) -> None:
        """A setting that shapes the QP changed: the owner rebuilds before the next solve."""
        self.structure_version += 1
        if self._owner is not None:
            self._owner.invalidate()
