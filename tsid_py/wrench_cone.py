"""The contact wrench cone of a flat sole bearing on a convex polygon.

A flat sole pressed on the ground bears where it touches: on level ground its whole
rectangle, on bumps the convex hull of the few points it rests on. Every wrench the ground
can exert on it is a sum of forces at the bearing polygon's vertices ``v_j`` (a pressure
distribution over a convex polygon has the same resultant as some forces at its corners),
each force in its friction pyramid. The pyramid :class:`~tsid_py.PlanarContact` uses lies
inside the Coulomb cone: ``|f_x|, |f_y| ≤ k f_z``, ``k = μ/√2``, whose four edges are
``e_i = (±k, ±k, 1)``. So the set of local wrenches ``w = [f; m]`` at the frame origin is
the cone spanned by the 4 n generators

    g_ij = [e_i ; v_j × e_i]          (v_j = (x_j, y_j, 0) in the sole's frame),

the **contact wrench cone** (CWC; Caron, Pham, Nakamura, "Stability of surface contacts for
humanoid robots: closed-form formulae of the contact wrench cone for rectangular support
areas", ICRA 2015, give it in closed form for a rectangle). Unlike the bounds of
:class:`~tsid_py.PlanarContact`'s rectangle alone (centre of pressure in the rectangle and a
torsion ``|m_z| ≤ μ min(l, w)/2 f_z`` that ignores the tangential force; its
``coupled_torsion`` adds the rectangle's cone's faces with ``m_z``), it couples the
torsion with the tangential force and the centre of pressure: a long narrow sole has a
torsion budget of up to ``k (l + w)/2 f_z`` when it is pressed evenly and little when it
bears on one edge, and about the frame origin the moment of a tangential force at an
off-centre centre of pressure (``m_z = p_x f_y − p_y f_x``, a slope's friction) is no
torsion at all.

**Half-space form.** Every generator has ``f_z = 1``, so the cone is the set of
``w = f_z (1, u)`` with ``u = (f_x, f_y, m_x, m_y, m_z) / f_z`` in the convex hull of the
generators' ``u``: a polytope of R⁵, whose facets ``a · u + b ≤ 0`` (Qhull) are the cone's
faces ``a · (f_x, f_y, m_x, m_y, m_z) + b f_z ≤ 0``. :func:`wrench_cone_rows` returns them
as rows ``F w ≤ 0`` over ``w = [f_x, f_y, f_z, m_x, m_y, m_z]``, each scaled to a unit norm;
for a rectangle they are Caron et al.'s 16 (the tests check both forms, and membership
against a non-negative least-squares decomposition onto the generators).

Units: m, N, N·m.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._geometry import convex_hull_2d, polygon_area
from ._validation import positive_scalar

#: The pyramid inside the Coulomb cone (see :data:`tsid_py.contacts.INSCRIBED_PYRAMID`).
_PYRAMID = 1.0 / np.sqrt(2.0)


def convex_polygon(vertices, name: str = "vertices") -> np.ndarray:
    """``vertices`` (k, 2) as the counter-clockwise vertices of their convex hull;
    ``ValueError`` naming ``name`` unless they are finite and span an area."""
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != 2 or len(v) < 3 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be (k ≥ 3, 2) finite points of a plane, got shape {np.shape(vertices)}")
    hull = convex_hull_2d(v)
    if polygon_area(hull) < 1e-12:
        raise ValueError(f"{name} must span an area (not all on a line), got {v.tolist()}")
    return hull


def generators(vertices, mu: float) -> np.ndarray:
    """The cone's generators ``g_ij`` (4 k, 6) of the module: the edges of the friction
    pyramid of ``mu`` at each vertex (k, 2), as local wrenches at the origin."""
    k = positive_scalar(mu, "mu") * _PYRAMID
    edges = np.array([[sx * k, sy * k, 1.0] for sx in (1.0, -1.0) for sy in (1.0, -1.0)])
    rows = []
    for x, y in np.asarray(vertices, dtype=float):
        point = np.array([x, y, 0.0])
        for edge in edges:
            rows.append(np.r_[edge, np.cross(point, edge)])
    return np.array(rows)


def wrench_cone_rows(vertices, mu: float) -> np.ndarray:
    """The faces ``F w ≤ 0`` (rows × 6, unit rows, over ``[f_x, f_y, f_z, m_x, m_y, m_z]``)
    of the contact wrench cone of a sole bearing on the convex polygon ``vertices`` (k ≥ 3,
    2) of its frame's x–y plane, friction ``mu`` (see the module). Cached by value."""
    polygon = convex_polygon(vertices)
    return _cone_rows(tuple(map(tuple, np.round(polygon, 12))), float(positive_scalar(mu, "mu"))).copy()


@lru_cache(maxsize=256)
def _cone_rows(vertices: tuple, mu: float) -> np.ndarray:
    from scipy.spatial import ConvexHull

    section = generators(np.array(vertices), mu)
    u = section[:, [0, 1, 3, 4, 5]]                 # f_z = 1 on every generator
    hull = ConvexHull(u)
    a, b = hull.equations[:, :5], hull.equations[:, 5]          # a · u + b ≤ 0 inside
    rows = np.column_stack([a[:, 0], a[:, 1], b, a[:, 2], a[:, 3], a[:, 4]])
    rows /= np.linalg.norm(rows, axis=1)[:, None]
    unique = []
    for row in rows:                                 # Qhull splits a face into simplices
        if not any(np.max(np.abs(row - other)) < 1e-9 for other in unique):
            unique.append(row)
    result = np.array(unique)
    result.flags.writeable = False
    return result


def inside(wrench, vertices, mu: float, tolerance: float = 1e-9) -> bool:
    """Whether the local wrench (6,) lies in the cone: ``F w ≤ tolerance · |w|``."""
    w = np.asarray(wrench, dtype=float)
    return bool(np.all(wrench_cone_rows(vertices, mu) @ w <= tolerance * max(1.0, float(np.linalg.norm(w)))))
