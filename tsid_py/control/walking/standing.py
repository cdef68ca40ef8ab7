"""Where the feet stand: footsteps read from the solver's contacts (the pose where each was
made), for the walk's plan and its re-plans."""

from __future__ import annotations

from ...solver import DynamicsSolver
from .angles import yaw_of_sole
from .footsteps import Footstep


def footstep_of(foot: str, placement, bearing=None) -> Footstep:
    """The :class:`~.footsteps.Footstep` of a sole at ``placement`` (its position, yaw and
    normal) bearing on ``bearing`` (None: all of it)."""
    position, rotation = placement.translation, placement.rotation
    normal = (0.0, 0.0, 1.0) if rotation[2, 2] > 1.0 - 1e-9 else tuple(rotation[:, 2].tolist())
    return Footstep(foot, float(position[0]), float(position[1]), yaw_of_sole(rotation), float(position[2]), normal,
                    None if bearing is None else tuple(map(tuple, bearing)))


def standing_feet(solver: DynamicsSolver, feet) -> dict[str, Footstep]:
    """Where ``feet`` stand now: each contact's anchor (the pose where it was made), and the
    polygon its sole bears on."""
    standing = {}
    for name in feet:
        contact = solver.contacts.get(name)
        if contact is None:
            raise ValueError(f"foot {name!r} is not on the ground: a walk starts on both feet")
        standing[name] = footstep_of(name, contact.anchor, getattr(contact, "bearing", None))
    return standing
