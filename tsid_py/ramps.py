"""Contact force ramps: a contact's largest normal force moved linearly over a transition.

:meth:`tsid_py.DynamicsSolver.add_contact` and :meth:`~tsid_py.DynamicsSolver.remove_contact`
with ``transition > 0`` start one; each step bounds the contact's normal force by the ramp's
value at the end of that control period, and a step's overrides may bound it further.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass
class ForceRamp:
    """A linear ramp of a contact's largest normal force, N: from ``start`` to ``end`` over
    ``duration`` s, ``elapsed`` s of it done; ``removing``: the contact goes at its end."""

    start: float
    end: float
    duration: float
    elapsed: float = 0.0
    removing: bool = False

    def bound(self) -> float:
        """The largest normal force now, N."""
        ratio = min(self.elapsed / self.duration, 1.0) if self.duration > 0 else 1.0
        return self.start + (self.end - self.start) * ratio

    @property
    def done(self) -> bool:
        """Whether the ramp has reached its end."""
        return self.elapsed >= self.duration - 1e-12


def normal_force_limits(ramps: Mapping[str, ForceRamp], contacts: Mapping, overrides=None
                        ) -> dict[str, tuple[float, float]]:
    """``(f_min, f_max)`` of the contacts whose normal force is ramping (``ramps`` by contact
    name, ``contacts`` the active ones), or whose bounds a step's ``overrides``
    (:class:`~tsid_py.overrides.StepOverrides`) change: within a ramp, its bound caps ``f_max``."""
    limits = {}
    for name, ramp in ramps.items():
        upper = ramp.bound()
        limits[name] = (min(contacts[name].f_min, upper), upper)
    if overrides is not None:
        for name, entry in overrides.contacts.items():
            if entry.normal_force is not None:
                lower, upper = entry.normal_force
                if name in limits:
                    upper = min(upper, limits[name][1])
                limits[name] = (min(lower, upper), upper)
    return limits
