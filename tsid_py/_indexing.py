"""Index arrays as slices where possible: in the per-step code, indexing with a slice makes
a view (about 0.2 µs) where an index array makes a copy (1–2 µs)."""

from __future__ import annotations

import numpy as np


def index_selector(indices) -> slice | np.ndarray:
    """``slice(first, last + 1)`` when ``indices`` is a contiguous ascending range, else the
    indices as an int array (selecting the same entries either way)."""
    indices = np.asarray(indices, dtype=int)
    if indices.size and np.array_equal(indices, np.arange(indices[0], indices[0] + indices.size)):
        return slice(int(indices[0]), int(indices[0]) + indices.size)
    return indices
