"""Small plane-geometry helpers shared by the plots and the viewers."""

from __future__ import annotations

import math

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


def _following(v: np.ndarray) -> np.ndarray:
    """Each vertex's (or value's) successor around a closed polygon: ``np.roll(v, -1, axis=0)``,
    without its argument handling (a search calls this thousands of times)."""
    return np.concatenate((v[1:], v[:1]))


def polygon_area(vertices) -> float:
    """Area (m²) of the polygon ``vertices`` (k, 2), in order either way (shoelace; 0 for
    fewer than three)."""
    v = np.asarray(vertices, dtype=float).reshape(-1, 2)
    if len(v) < 3:
        return 0.0
    x, y = v[:, 0], v[:, 1]
    return 0.5 * abs(float(np.dot(x, _following(y)) - np.dot(y, _following(x))))


def polygon_centroid(vertices) -> np.ndarray:
    """The centroid (2,) of a polygon's area (k ≥ 3 vertices in order, non-zero area), or
    the mean of the points when they span no area."""
    v = np.asarray(vertices, dtype=float).reshape(-1, 2)
    following = _following(v)
    cross = v[:, 0] * following[:, 1] - following[:, 0] * v[:, 1]
    area = 0.5 * float(np.sum(cross))
    if len(v) < 3 or abs(area) < 1e-12:
        return v.mean(axis=0)
    return ((v + following) * cross[:, None]).sum(axis=0) / (6.0 * area)


def clip_polygon(vertices, normal, offset: float) -> np.ndarray:
    """The part of the convex polygon ``vertices`` (k, 2, counter-clockwise) where
    ``normal · p ≤ offset`` (Sutherland–Hodgman against one half-plane); (0, 2) when none."""
    v = np.asarray(vertices, dtype=float).reshape(-1, 2)
    n = np.asarray(normal, dtype=float)
    kept = []
    for a, b in zip(v, _following(v)):
        da, db = float(n @ a) - offset, float(n @ b) - offset
        if da <= 0.0:
            kept.append(a)
        if da * db < 0.0:
            kept.append(a + (b - a) * (da / (da - db)))
    return np.array(kept).reshape(-1, 2)


def polygon_edges(polygon) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (k, 2) and offsets (k,) of a counter-clockwise polygon's edges:
    the polygon is ``normals @ p ≤ offsets``."""
    v = np.asarray(polygon, dtype=float).reshape(-1, 2)
    edges = _following(v) - v
    normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
    return normals, np.einsum("ij,ij->i", normals, v)


def separation(moving, fixed) -> tuple[float, float] | None:
    """The least translation ``(dx, dy)`` that makes the convex polygon ``moving`` meet the
    convex polygon ``fixed`` (vertices (k, 2) each, counter-clockwise), None when they meet
    already. Disjoint convex polygons are told by a separating axis among their edges'
    normals; their nearest points are then a vertex of one and a point of an edge of the
    other, and the translation is from the one of ``moving`` to the one of ``fixed``. Plain
    floats (a control loop's path)."""
    a = [(float(x), float(y)) for x, y in np.asarray(moving, dtype=float).reshape(-1, 2)]
    b = [(float(x), float(y)) for x, y in np.asarray(fixed, dtype=float).reshape(-1, 2)]
    if not _separated(a, b) and not _separated(b, a):
        return None
    best, move = math.inf, (0.0, 0.0)
    for points, polygon, sign in ((a, b, 1.0), (b, a, -1.0)):
        for px, py in points:
            for (ax, ay), (bx, by) in zip(polygon, polygon[1:] + polygon[:1]):
                ex, ey = bx - ax, by - ay
                ratio = min(max(((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey), 0.0), 1.0)
                dx, dy = ax + ratio * ex - px, ay + ratio * ey - py
                distance = dx * dx + dy * dy
                if distance < best:
                    best, move = distance, (sign * dx, sign * dy)
    return move


def _separated(a, b) -> bool:
    """Whether an edge of the counter-clockwise polygon ``a`` has all of ``b`` outside it."""
    for (ax, ay), (bx, by) in zip(a, a[1:] + a[:1]):
        nx, ny = by - ay, ax - bx                               # outward normal of a's edge
        offset = nx * ax + ny * ay
        if all(nx * x + ny * y > offset for x, y in b):
            return True
    return False
