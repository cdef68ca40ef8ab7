"""numba's on-disk cache of the package's kernels, kept consistent with all of their sources.

numba checks a cached kernel against its own file only ("cache invalidation fails to recognize
changes in symbols defined in a different file", its caching notes). A kernel's cached code
also holds the code of what it calls or inlines from other files, so after a change of one file
(a branch switched, a helper edited, a partial update) a kernel of another file can keep
running the old version of that code. Measured: in caches that had lived through source
changes, `assembly_program.run_program` held 360 kB of object code where a clean compile
gives 320 kB, and a G1 walk took another course (docs/walking.md, "how far a count can be
trusted").

Importing this module (the package's ``__init__`` does, before anything else) runs
:func:`refresh`, which stamps the cache with a SHA-256 of every package source that uses
numba (path and content): on the first import after any of them changed, it removes the
index files (``*.nbi``) of the package's cached kernels, and numba, finding no index,
compiles each kernel anew (about a minute) and writes the cache again. numba tolerates a
missing index, and a process that imports the package at the same time at worst compiles a
kernel twice. The stamp is ``__pycache__/numba-kernels.sha256`` beside this module. A cache
numba keeps elsewhere (``NUMBA_CACHE_DIR``) is left as it is, as is a package whose cache
cannot be written (an install without write access keeps what its build compiled, stamped
by the same rule: ``python -m tsid_py.kernels``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: The stamp's file, in a package's ``__pycache__``.
STAMP_NAME = "numba-kernels.sha256"
STAMP = PACKAGE / "__pycache__" / STAMP_NAME


def sources_digest(package: Path = PACKAGE) -> str:
    """SHA-256 (hex) of the relative paths and contents of the ``.py`` files under
    ``package`` that use numba, in path order."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + text + b"\0")
    return digest.hexdigest()


def refresh(package: Path = PACKAGE, stamp: Path | None = None) -> bool:
    """Remove the package's cached kernels' index files if the stamp ``stamp`` (default:
    ``package/__pycache__/``:data:`STAMP_NAME`) is not :func:`sources_digest`'s, then write it;
    whether the cache was found stale. Nothing when numba caches elsewhere
    (``NUMBA_CACHE_DIR``); a package that cannot be written keeps its cache and its stamp."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    stamp = package / "__pycache__" / STAMP_NAME if stamp is None else stamp
    try:
        digest = sources_digest(package)
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return False
    except OSError:
        return False
    try:
        for index in package.rglob("__pycache__/*.nbi"):
            index.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=stamp.parent, delete=False) as file:
            file.write(digest + "\n")
        os.replace(file.name, stamp)
    except OSError:
        pass                                  # (not writable: as it was built; or partly dropped: compiled again)
    return True


refresh()
