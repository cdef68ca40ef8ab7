"""Writing a run's JSON summary."""

from __future__ import annotations

import json
import os
import tempfile


def write_json(path: str | None, report) -> None:
    """Write ``report`` to ``path`` as indented JSON (nothing when no path was asked for),
    atomically: into a temporary file beside it, then renamed over it, so an interrupted
    write leaves the previous file whole."""
    if not path:
        return
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w") as stream:
            json.dump(report, stream, indent=2)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
