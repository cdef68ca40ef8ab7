"""Stance: the feet on the ground, the one way a controller makes, breaks and moves contacts.

A controller's contacts change for many reasons — a walk lifts and lands feet, a recovery
step unloads one, a sole that slid is re-anchored where it now is — and everything that
depends on where the soles are (the support polygon the centre of pressure is kept in) must
follow. :class:`Stance` is where those changes go through: it adds and removes the solver's
contacts (:meth:`make`, :meth:`release`, :meth:`lift`) and re-anchors them (:meth:`reanchor`),
and :meth:`support` is the polygon of the footprints of the contacts that carry the robot,
recomputed whenever a contact was added, removed or re-anchored (the solver's
``contact_epoch``), by this stance or by anyone else.

A **footprint** is a contact's region in the world at its anchor (where the contact was
made): a planar contact's rectangle ``length × width`` centred at the frame origin (or the
polygon its sole bears on, :attr:`~tsid_py.PlanarContact.bearing`), a point contact's
point. The **support polygon** is the convex hull of the footprints of the
contacts in :attr:`supporting`: every active contact, except one being released (its force
ramping to zero), which stops counting at once — or, for a walk that plans its unloading,
when it lifts (``release(..., counted_until_lift=True)``).

Units: m, s.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import positive_scalar
from ..contacts import Contact, PlanarContact
from ..solver import DynamicsSolver
from .capture_point import SupportPolygon, rectangle_corners


class Stance:
    """The solver's contacts as feet on the ground (see the module).

    Parameters
    ----------
    solver : the solver whose contacts this stance makes and breaks.
    make_contact : ``foot name -> Contact``: a new contact for a foot put down (its model:
        sole rectangle, friction, gains).
    """

    def __init__(self, solver: DynamicsSolver, make_contact: Callable[[str], Contact]):
        if not isinstance(solver, DynamicsSolver):
            raise ValueError(f"solver must be a tsid_py.DynamicsSolver, got {type(solver).__name__}")
        self.solver = solver
        self.make_contact = make_contact
        self._released: dict[str, bool] = {}        # foot -> still counted in the support
        self._version = 0                           # counts this stance's own changes
        self._support_epoch = self._support_version = -1
        self._support: SupportPolygon | None = None

    # ------------------------------------------------------------------ changes
    def make(self, foot: str, transition: float = 0.0, bearing=None, anchor=None) -> Contact:
        """Put ``foot`` down where it is now (its normal force ramps up over ``transition`` s);
        returns its new contact. ``bearing``: the polygon of its sole it bears on (a
        :class:`~tsid_py.PlanarContact`'s ``bearing``; None: all of it). ``anchor``
        (pin.SE3, world): where the contact holds the foot (None: where it is at the next
        solve)."""
        contact = self.make_contact(foot)
        if bearing is not None:
            contact.bearing = bearing
        self._released.pop(foot, None)
        self._version += 1
        self.solver.add_contact(contact, transition=transition)
        if anchor is not None:
            self.solver.reanchor_contact(foot, anchor)
        return contact

    def release(self, foot: str, transition: float = 0.0, *, counted_until_lift: bool = False) -> None:
        """Start unloading ``foot``: its normal force ramps to 0 over ``transition`` s (at once
        for 0). It leaves the support polygon now, or when it lifts if
        ``counted_until_lift``."""
        if foot not in self.solver.contacts:
            raise KeyError(f"foot {foot!r} is not in contact; in contact: {list(self.solver.contacts)}")
        positive_scalar(transition, "transition", allow_zero=True)
        self.solver.remove_contact(foot, transition=transition)
        if foot in self.solver.contacts:             # ramping out
            self._released[foot] = bool(counted_until_lift)
        self._version += 1

    def lift(self, foot: str) -> None:
        """End ``foot``'s contact now (its release ramp over): it leaves the solver and the
        support polygon."""
        if foot in self.solver.contacts:
            self.solver.remove_contact(foot)
        self._released.pop(foot, None)
        self._version += 1

    def reanchor(self, foot: str) -> None:
        """Anchor ``foot``'s contact where its frame is now (the robot's last update): its
        footprint, and the support polygon, move with it."""
        self.solver.reanchor_contact(foot)

    # ------------------------------------------------------------------ where the feet are
    @property
    def changes(self) -> int:
        """How many times this stance made, released or lifted a foot (with the solver's
        ``contact_epoch``: what tells that the support polygon may have changed)."""
        return self._version

    @property
    def releasing(self) -> list[str]:
        """The feet whose contact is being released (its force ramping to zero)."""
        return [foot for foot in self._released if foot in self.solver.contacts]

    @property
    def in_contact(self) -> list[str]:
        """The feet whose contacts are active (releasing ones included)."""
        return list(self.solver.contacts)

    @property
    def supporting(self) -> list[str]:
        """The feet counted in the support polygon (see the module)."""
        contacts, released = self.solver.contacts, self._released
        if released:
            for foot in [f for f in released if f not in contacts]:      # retired by the solver
                del released[foot]
        return [foot for foot in contacts if released.get(foot, True)]

    def footprint(self, foot: str) -> np.ndarray:
        """World (x, y) of ``foot``'s footprint at its anchor: the corners of a planar
        contact's centre-of-pressure region (its rectangle, or the polygon it bears on), or a
        point contact's point, (k, 2), m."""
        contact = self.solver.contacts[foot]
        if isinstance(contact, PlanarContact):
            anchor = contact.anchor
            if contact.bearing is None:
                return rectangle_corners(anchor, contact.length, contact.width)
            region = contact.region
            return (region @ anchor.rotation[:, :2].T + anchor.translation)[:, :2]
        return contact.anchor.translation[None, :2].copy()

    def support(self) -> SupportPolygon:
        """The support polygon of the supporting feet's footprints (recomputed only when a
        contact was added, removed, released or re-anchored since the last call)."""
        epoch = self.solver.contact_epoch
        if epoch != self._support_epoch or self._version != self._support_version:
            feet = self.supporting
            if not feet:
                raise RuntimeError("no foot supports the robot: the support polygon is empty")
            self._support = SupportPolygon(np.vstack([self.footprint(foot) for foot in feet]))
            self._support_epoch, self._support_version = epoch, self._version
        return self._support
