"""Writing a run's JSON summary."""

from __future__ import annotations

import json

from .._files import atomic_write


def write_json(path: str | None, report) -> None:
    """Write ``report`` to ``path`` as indented JSON (nothing when no path was asked for),
    atomically (:func:`tsid_py._files.atomic_write`): an interrupted write leaves the
    previous file whole."""
    if not path:
        return
    with atomic_write(path) as stream:
        json.dump(report, stream, indent=2)
