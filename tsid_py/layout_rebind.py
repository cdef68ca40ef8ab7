"""A kept QP layout bound again to other contact objects of the same structure.

A walk alternates between a few sets of contacts — both feet, the left one, the right one —
but each touch-down makes a new contact object, so a layout kept per set of contact objects
would never be found again. What a :class:`~tsid_py.assembly.Layout` takes from a contact
when it is built is its *structure* (:func:`contact_structure`): its kind, name and frame,
its variables and no-slip rows, its priority and weight, and its constant friction rows;
everything else (anchor, gains, force bounds) it reads from the contact at each step. So a
layout built for contacts of one structure serves any contacts of that structure, in that
order, once its references to the contact objects point at them (:func:`rebind`): its rows,
columns and buffers are the same, and each step writes them as a new layout would.

A contact's structure changes only through a setting that tells its solver
(:meth:`~tsid_py.items.SolverItem.structure_changed`, which drops every kept layout) or while
it is in no solver; the structure is compared when a contact set comes back, so a contact
changed while away gets a new layout.
"""

from __future__ import annotations

from collections.abc import Sequence

from .contacts import Contact


def contact_structure(contact: Contact) -> tuple:
    """What a layout reads from ``contact`` when it is built (:class:`~tsid_py.assembly.Layout`,
    :mod:`tsid_py.levels`, :mod:`tsid_py.assembly_program`): its class, name, frame, number
    of variables, normal force's index, no-slip rows, force generator, priority, weight,
    whether it has kinematics and friction rows, and the friction rows and their labels."""
    friction, generator = contact.friction_matrix, contact.generator
    return (type(contact), contact.name, contact.frame_id, contact.size, contact.normal_index,
            contact.motion_rows.start, contact.motion_rows.stop, contact.generator_selects, generator.shape,
            generator.tobytes(), contact.priority, contact.weight, contact.kinematic, contact.unilateral,
            friction.shape, friction.tobytes(), tuple(contact.row_labels))


def contacts_structure(contacts: Sequence[Contact]) -> tuple:
    """The structures of ``contacts``, in their order (the order of their columns in ``x``)."""
    return tuple(contact_structure(contact) for contact in contacts)


def rebind(layout, contacts: Sequence[Contact]) -> None:
    """Point ``layout`` — built for contacts of the structure of ``contacts``, in this order
    (:func:`contacts_structure`; the caller checks) — at the objects ``contacts``: its lists,
    views and level blocks by contact, its context's contacts and its assembly program's
    items, whose parameters are packed again from the new objects at the next step."""
    contacts = list(contacts)
    if len(contacts) != len(layout.contacts):
        raise ValueError(f"a layout of {len(layout.contacts)} contacts cannot be bound to {len(contacts)}")
    if all(old is new for old, new in zip(layout.contacts, contacts)):
        return
    by_id = {id(old): new for old, new in zip(layout.contacts, contacts)}

    def new_of(contact):
        return by_id[id(contact)]

    layout.contacts = contacts
    layout.context.contacts = {contact.name: contact for contact in contacts}
    layout.wrench_sources = [(name, columns, contact.local_wrench, rotation)
                             for (name, columns, _, rotation), contact in zip(layout.wrench_sources, contacts)]
    layout.kinematic = [new_of(contact) for contact in layout.kinematic]
    layout.unilateral_columns = [(new_of(contact), column) for contact, column in layout.unilateral_columns]
    layout.hard_contact_views = [(new_of(contact), *rows) for contact, *rows in layout.hard_contact_views]
    layout.soft_contact_views = [(new_of(contact), *rows) for contact, *rows in layout.soft_contact_views]
    layout.contact_views = [(new_of(contact), *rest) for contact, *rest in layout.contact_views]
    for block in layout.levels:
        block.contact_rows = {new_of(contact): rows for contact, rows in block.contact_rows.items()}
    program = layout.program
    if program is not None:
        for entry in program.items:
            if id(entry.item) in by_id:
                entry.item = by_id[id(entry.item)]
                entry.changes = -1             # (not the new item's count: packed again at the next run)
        program.changes = -1                   # (the next run asks which items changed)
