"""The solver's QP layouts (:class:`~tsid_py.assembly.Layout`): one for its items, and one
per set of hard contacts a step's overrides soften (their no-slip rows made costs: a QP of
another shape), each built the first time a step asks for it. When an item is added or
removed, the layouts of the items before are kept, by what they were built from
(:meth:`SolverLayouts.items_structure`: the contacts' structure, the other items themselves),
and those of the items after are taken back if they were kept, the contacts' bound to the
contact objects now (:mod:`tsid_py.layout_rebind`): a walk, which alternates between a few
sets of feet on the ground (and a swing task for the foot in the air), builds each of its
layouts once, though each touch-down makes a new contact. A setting that shapes the QP drops
them all.

Building a layout is the slowest thing a step can do — about a millisecond for a humanoid,
a whole control period at 1 kHz — and a controller asks for a new one exactly when it least
can wait: the first time its contact monitor softens a rocking sole, in the middle of a push.
:meth:`SolverLayouts.prepare_layouts` builds them ahead of the loop.
"""

from __future__ import annotations

from itertools import combinations

from .assembly import Layout
from .layout_rebind import contacts_structure, rebind

_NOTHING_SOFTENED: frozenset = frozenset()

#: How many sets of items a solver keeps the layouts of besides its current one's, the least
#: recently left dropped first: a bound on the memory (a layout of G1's or Talos's walk takes
#: about 0.1 MB; a set holds one, and one per set of soles its steps softened), well above
#: the four sets a biped's walk alternates between (both feet, in either order of their
#: columns, and each foot alone with the other's swing task).
KEPT_ITEM_SETS = 16


class SolverLayouts:
    """The part of :class:`~tsid_py.DynamicsSolver` that keeps its layouts (``_layouts``, by
    the frozenset of the hard contacts softened, for the items of :meth:`items_structure`
    ``_layouts_key``; ``_kept_layouts``: those of other items, by theirs)."""

    def items_structure(self) -> tuple:
        """What the layouts are built from among the items: the contacts' structure, in their
        order (:func:`~tsid_py.layout_rebind.contacts_structure`: a layout serves other contact
        objects of that structure), and the tasks, constraints, closures and known wrenches
        themselves, in their order, each with its ``structure_version``."""
        others = tuple(tuple((item, item.structure_version) for item in items)
                       for items in (self.tasks, self.constraints, self.closures.values(), self.external_wrenches))
        return contacts_structure(list(self.contacts.values())), others

    @property
    def layout(self) -> Layout:
        """The QP's :class:`~tsid_py.assembly.Layout` for the current items (built on demand)."""
        return self.layout_for(_NOTHING_SOFTENED)

    def layout_for(self, softened: frozenset) -> Layout:
        """The layout for the current items with the hard contacts ``softened`` (names) made
        costs, built the first time that set is asked for (until the items change), or kept
        from when the solver held items like these."""
        layout = self._layouts.get(softened)
        if layout is None and self._layouts_key is None:
            self._take_back_layouts()
            layout = self._layouts.get(softened)
        if layout is None:
            layout = self._layouts[softened] = Layout(
                self.robot, self._dt, list(self.contacts.values()), self.tasks, self.constraints,
                self.regularization_tasks, root_equalities=not self.actuated_root, softened=softened,
                external_wrenches=self.external_wrenches, closures=list(self.closures.values()),
                passive=[self.robot.joint_v_index(joint) for joint in self._passive_joints])
            self.layouts_built += 1
        return layout

    def _take_back_layouts(self) -> None:
        """Note the :meth:`items_structure` of the items now, and take back the layouts kept
        for it (if any), bound to these contacts."""
        key = self._layouts_key = self.items_structure()
        layouts = self._kept_layouts.pop(key, None)
        if layouts is not None:
            contacts = list(self.contacts.values())
            for layout in layouts.values():
                rebind(layout, contacts)
            self._layouts = layouts

    def _items_changed(self) -> None:
        """Items were added or removed: keep the layouts of the items before (by their
        :meth:`items_structure`, the least recently left dropped beyond :data:`KEPT_ITEM_SETS`);
        the next layout asked for looks for those of the items then (one look for the few
        changes a contact event makes: a foot lifted and its swing task added)."""
        kept = self._kept_layouts
        if self._layouts and self._layouts_key is not None:
            kept.pop(self._layouts_key, None)            # (last left: last dropped)
            kept[self._layouts_key] = self._layouts
            while len(kept) > KEPT_ITEM_SETS:
                del kept[next(iter(kept))]
        self._layouts, self._layouts_key = {}, None
        self.configuration_epoch += 1

    def softenable_contacts(self) -> list[str]:
        """The contacts a step's overrides may soften into another layout: the hard ones
        that hold their frame (a step's override of another contact changes no layout)."""
        return [name for name, contact in self.contacts.items() if contact.priority == "hard" and contact.kinematic]

    def prepare_layouts(self, most_softened: int | None = None) -> int:
        """Build now the layouts for every set of at most ``most_softened`` (None: any number
        of) :meth:`softenable_contacts` a step may soften, and the plain one, so that no step
        builds one until the items change (adding or removing an item, or a setting that
        shapes the QP, drops them; items removed and added again find theirs). ``2ⁿ`` layouts for ``n`` contacts. Returns how many were
        built (those already kept are not built again)."""
        names = self.softenable_contacts()
        if most_softened is not None and (not isinstance(most_softened, int) or isinstance(most_softened, bool)
                                          or most_softened < 0):
            raise ValueError(f"most_softened must be a non-negative int or None, got {most_softened!r}")
        largest = len(names) if most_softened is None else min(most_softened, len(names))
        before = self.layouts_built
        for size in range(largest + 1):
            for softened in combinations(names, size):
                self.layout_for(frozenset(softened))
        return self.layouts_built - before
