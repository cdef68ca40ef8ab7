"""Small plane-geometry helpers shared by the plots and the viewers."""

from __future__ import annotations

import numpy as np


def convex_hull_2d(points) -> np.ndarray:
    """The convex hull of 2-D ``points`` (k, 2), counter-clockwise, without repeating its
    first vertex (Andrew's monotone chain; collinear points dropped). Fewer than three
    distinct points are returned as they are (sorted)."""
    ordered = sorted(set(map(tuple, np.asarray(points, dtype=float).reshape(-1, 2))))
    if len(ordered) < 3:
        return np.array(ordered).reshape(-1, 2)

    def turns_left(a, b, c) -> bool:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0

    def half(sequence):
        chain = []
        for point in sequence:
            while len(chain) >= 2 and not turns_left(chain[-2], chain[-1], point):
                chain.pop()
            chain.append(point)
        return chain

    lower, upper = half(ordered), half(reversed(ordered))
    return np.array(lower[:-1] + upper[:-1])
