"""Reading recorded text files robustly and writing results safely.

- :func:`read_text` decodes a file whatever its origin: a UTF-8 byte-order mark is dropped
  (it would otherwise glue itself to the first cell), UTF-8 is tried first and Latin-1
  (which decodes any byte) after it, and Windows (CRLF) or old Mac (CR) line ends read as
  ordinary ones.
- :func:`atomic_write` writes through a temporary file in the target's folder, flushed to
  disk and renamed over the target in one step: an interrupted write leaves the previous
  file untouched, never a truncated one; :func:`temporary_beside` and :func:`publish` do the
  same for a writer that opens its file by name (a video).
- :func:`check_output_path` is called *before* long work, so that a missing or unwritable
  folder is reported at once rather than after the solve.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def read_text(path: str | os.PathLike, what: str = "file") -> list[str]:
    """The lines of ``path`` (no line ends), decoded as described in the module docstring;
    ``ValueError`` naming the file if it does not exist or is a folder."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} {str(path)!r} does not exist" if not path.exists()
                         else f"{what} {str(path)!r} is not a file")
    raw = path.read_bytes()
    raw = raw.removeprefix(BYTE_ORDER_MARK)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.splitlines()


def output_path_problem(path: str | os.PathLike, suffixes: tuple[str, ...]) -> str | None:
    """Why a result cannot be written at ``path`` (its suffix not one of ``suffixes``, any
    case; its folder missing or not writable; itself a folder), or None if it can."""
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        article = "an" if suffixes[0][1:2] in "aeiouAEIOU" else "a"
        return f"must be {article} {' or '.join(suffixes)} file, got {str(path)!r}"
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        return f"{str(path)!r} is a folder, not a file"
    if not folder.is_dir():
        return f"folder {str(folder)!r} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{str(path)!r} is not writable"
    return None


def check_output_path(path: str | os.PathLike, suffixes: tuple[str, ...], option: str = "out") -> Path:
    """``path`` as a :class:`Path` if a result can be written there
    (:func:`output_path_problem`); ``ValueError`` naming ``option`` otherwise."""
    problem = output_path_problem(path, suffixes)
    if problem is not None:
        raise ValueError(f"{option} {problem}" if problem.startswith("must") else f"{option}: {problem}")
    return Path(path)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w"):
    """``with atomic_write(path) as handle: …`` writes ``path`` all at once: into a temporary
    file beside it, renamed over ``path`` only when the block ends without an exception
    (the temporary file is removed otherwise). ``mode``: ``"w"`` (text, UTF-8, ``\\n``) or
    ``"wb"``."""
    handle, temporary = _temporary_beside(path, ".part")
    try:
        with os.fdopen(handle, mode, **({"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {})) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        publish(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _temporary_beside(path: str | os.PathLike, suffix: str) -> tuple[int, str]:
    """A new empty file in ``path``'s folder, hidden and named after it: ``(descriptor, its
    path)``."""
    path = Path(path)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent or ".")


def temporary_beside(path: str | os.PathLike, suffix: str = ".part") -> str:
    """The path of a new empty file beside ``path`` (see :func:`atomic_write`) for a writer
    that opens files by name; :func:`publish` it when written."""
    handle, temporary = _temporary_beside(path, suffix)
    os.close(handle)
    return temporary


def publish(temporary: str | os.PathLike, path: str | os.PathLike) -> None:
    """Rename the written ``temporary`` over ``path`` in one step, with the permissions of an
    ordinary new file (the umask's; ``mkstemp`` makes it 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)
    os.replace(temporary, path)
