"""The solver's QP layouts (:class:`~tsid_py.assembly.Layout`): one for its items, and one
per set of hard contacts a step's overrides soften (their no-slip rows made costs: a QP of
another shape), each built the first time a step asks for it and kept until the items change.

Building a layout is the slowest thing a step can do — about a millisecond for a humanoid,
a whole control period at 1 kHz — and a controller asks for a new one exactly when it least
can wait: the first time its contact monitor softens a rocking sole, in the middle of a push.
:meth:`SolverLayouts.prepare_layouts` builds them ahead of the loop.
"""

from __future__ import annotations

from itertools import combinations

from .assembly import Layout

_NOTHING_SOFTENED: frozenset = frozenset()


class SolverLayouts:
    """The part of :class:`~tsid_py.DynamicsSolver` that keeps its layouts (``_layouts``, by
    the frozenset of the hard contacts softened)."""

    @property
    def layout(self) -> Layout:
        """The QP's :class:`~tsid_py.assembly.Layout` for the current items (built on demand)."""
        return self.layout_for(_NOTHING_SOFTENED)

    def layout_for(self, softened: frozenset) -> Layout:
        """The layout for the current items with the hard contacts ``softened`` (names) made
        costs, built the first time that set is asked for (until the items change)."""
        layout = self._layouts.get(softened)
        if layout is None:
            layout = self._layouts[softened] = Layout(
                self.robot, self._dt, list(self.contacts.values()), self.tasks, self.constraints,
                self.regularization_tasks, root_equalities=not self.actuated_root, softened=softened,
                external_wrenches=self.external_wrenches, closures=list(self.closures.values()),
                passive=[self.robot.joint_v_index(joint) for joint in self._passive_joints])
            self.layouts_built += 1
        return layout

    def softenable_contacts(self) -> list[str]:
        """The contacts a step's overrides may soften into another layout: the hard ones
        that hold their frame (a step's override of another contact changes no layout)."""
        return [name for name, contact in self.contacts.items() if contact.priority == "hard" and contact.kinematic]

    def prepare_layouts(self, most_softened: int | None = None) -> int:
        """Build now the layouts for every set of at most ``most_softened`` (None: any number
        of) :meth:`softenable_contacts` a step may soften, and the plain one, so that no step
        builds one until the items change (adding or removing an item, or a setting that
        shapes the QP, drops them). ``2ⁿ`` layouts for ``n`` contacts. Returns how many were
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
