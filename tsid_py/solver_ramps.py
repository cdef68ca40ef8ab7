"""The solver's contact force ramps under way (:meth:`tsid_py.DynamicsSolver.add_contact` and
:meth:`~tsid_py.DynamicsSolver.remove_contact` with a ``transition``): their state, for a
flight recorder to keep and a replay to restore, and their end."""

from __future__ import annotations

from collections.abc import Mapping


class ContactRamps:
    """The part of :class:`~tsid_py.DynamicsSolver` that follows its force ramps
    (``_transitions``: :class:`~tsid_py.ramps.ForceRamp` by contact name)."""

    @property
    def has_transitions(self) -> bool:
        """Whether a contact force ramp is under way."""
        return bool(self._transitions)

    def transition_state(self) -> dict[str, float]:
        """The elapsed time (s) of each contact force ramp under way, by contact name."""
        return {name: transition.elapsed for name, transition in self._transitions.items()}

    def restore_transition_state(self, elapsed: Mapping[str, float]) -> None:
        """Set the ramps' elapsed times to recorded ones (:meth:`transition_state`); the ramps
        themselves must be those of the recording (a replay from its copy of the solver)."""
        if set(elapsed) != set(self._transitions):
            raise ValueError(f"ramps {sorted(elapsed)} recorded, {sorted(self._transitions)} under way")
        for name, value in elapsed.items():
            self._transitions[name].elapsed = float(value)

    def _retire_finished_transitions(self) -> None:
        """Drop the ramps that ended; a removal's contact is removed then."""
        for name, transition in list(self._transitions.items()):
            if transition.done:
                del self._transitions[name]
                self.configuration_epoch += 1
                if transition.removing:
                    self.contacts.pop(name).detach()
                    self._retired.add(name)
                    self._items_changed()
                    self._contacts_moved()
