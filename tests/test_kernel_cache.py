"""numba's cache of the package's kernels is dropped when any source that uses numba changes
(tsid_py._kernel_cache), on a package laid out in a temporary directory."""

from __future__ import annotations

import os

from tsid_py import _kernel_cache


def _package(root):
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "__pycache__").mkdir()
    (root / "kernels.py").write_text("from numba import njit\n")
    (root / "sub" / "helpers.py").write_text("import numba\n")
    (root / "plain.py").write_text("x = 1\n")
    indexes = [root / "__pycache__" / "kernels.f-3.py311.nbi", root / "sub" / "__pycache__" / "helpers.g-1.py311.nbi"]
    data = root / "__pycache__" / "kernels.f-3.py311.1.nbc"
    for path in (*indexes, data):
        path.write_bytes(b"cached")
    return indexes, data


def test_the_cache_is_dropped_once_after_any_numba_source_changes(tmp_path, monkeypatch):
    """A first refresh (no stamp) drops the index files and writes the stamp; a second does
    nothing; an edit of a file that uses numba, even another file than the kernel's, drops
    them again; an edit of a file that does not use numba does not."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    indexes, data = _package(tmp_path)
    stamp = tmp_path / "__pycache__" / "numba-kernels.sha256"
    assert _kernel_cache.refresh(tmp_path)
    assert not any(index.exists() for index in indexes) and data.exists()
    assert stamp.read_text().strip() == _kernel_cache.sources_digest(tmp_path)

    for path in indexes:
        path.write_bytes(b"cached")
    assert not _kernel_cache.refresh(tmp_path)
    assert all(index.exists() for index in indexes)

    (tmp_path / "plain.py").write_text("x = 2\n")
    assert not _kernel_cache.refresh(tmp_path)
    assert all(index.exists() for index in indexes)

    (tmp_path / "sub" / "helpers.py").write_text("import numba  # edited\n")
    assert _kernel_cache.refresh(tmp_path)
    assert not any(index.exists() for index in indexes)


def test_a_cache_kept_elsewhere_or_not_writable_is_left_alone(tmp_path, monkeypatch):
    indexes, _ = _package(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert not _kernel_cache.refresh(tmp_path)
    assert all(index.exists() for index in indexes)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert _kernel_cache.refresh(tmp_path, stamp=tmp_path / "kernels.py" / "stamp")      # stale, not stampable
    assert not (tmp_path / "kernels.py" / "stamp").exists()


def test_the_package_carries_its_stamp():
    """Importing tsid_py refreshed its own cache: the stamp is the sources' digest (unless
    numba caches elsewhere)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        assert not _kernel_cache.refresh()
    else:
        assert _kernel_cache.STAMP.read_text().strip() == _kernel_cache.sources_digest()
