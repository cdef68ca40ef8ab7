"""Collada meshes' declared axes, which coal ignores, read by the robot's own evidence.

A Collada (``.dae``) file declares its ``<up_axis>`` (and ``<unit meter>``); assimp puts the
conversion into a Z-up world on the scene's root node, and coal builds its mesh leaving that
transform out, so the vertices are read as stored. A file declaring ``Y_UP`` is then read
turned 90° about its x axis (the Collada convention maps the asset's ``(x, y, z)`` to
``(x, −z, y)`` in a Z-up world; ``X_UP`` to ``(−y, −z, x)``).

Exporters disagree on which part is right — the declaration or the stored vertices — so the
robot decides (:func:`declared_axes_evidence`): a link's collision mesh should contain the
link's centre of mass and the origins of its child joints. When more links' meshes do with
the declared axes than as read, :func:`apply_declared_axes` turns those meshes by them (their
geometry placement in the joint frame, so every later reader of the model agrees). A declared
``<unit meter>`` other than 1 is not applied (it is a scale, not a placement); the model check
reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pinocchio as pin

#: The Collada up axes as rotations of the asset's coordinates into a Z-up world.
UP_AXES = {"Y_UP": np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]),
           "X_UP": np.array([[0.0, -1, 0], [0, 0, -1], [1, 0, 0]]),
           "Z_UP": np.eye(3)}
#: How far a point may lie outside a mesh's bounding box and still be "in" it, m.
CONTAINS = 0.01


@lru_cache(maxsize=512)
def collada_header(path: str) -> tuple[str, float]:
    """A Collada file's declared ``<up_axis>`` (``"Z_UP"`` when it declares none) and
    ``<unit meter>`` (1 when none), read from its first 8 kB."""
    try:
        with open(path, errors="replace") as handle:
            head = handle.read(8192)
    except OSError:
        return "Z_UP", 1.0
    up = re.search(r"<up_axis>\s*([XYZ]_UP)\s*</up_axis>", head)
    unit = re.search(r"<unit[^>]*\bmeter\s*=\s*\"([^\"]+)\"", head)
    try:
        scale = float(unit.group(1)) if unit else 1.0
    except ValueError:
        scale = 1.0
    return (up.group(1) if up else "Z_UP"), (scale if np.isfinite(scale) and scale > 0 else 1.0)


@dataclass
class AxesEvidence:
    """What the robot says about its Collada meshes' declared axes: ``meshes`` by declared
    ``(up axis, unit)``, and how many of those meshes contain their link's centre of mass
    and child joints ``read`` (as coal reads them) and ``declared`` (turned by their axes)."""

    meshes: dict[tuple[str, float], set[str]] = field(default_factory=dict)
    read: int = 0
    declared: int = 0

    @property
    def favours_declared(self) -> bool:
        return self.declared > self.read


def declared_axes_evidence(model: pin.Model, q: np.ndarray, collision: pin.GeometryModel | None) -> AxesEvidence:
    """The :class:`AxesEvidence` of ``collision``'s Collada meshes that declare an up axis
    other than Z or a unit other than 1, at the configuration ``q``."""
    evidence = AxesEvidence()
    if collision is None:
        return evidence
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    geometry_data = collision.createData()
    pin.updateGeometryPlacements(model, data, collision, geometry_data, q)
    for index, item in enumerate(collision.geometryObjects):
        if not item.meshPath.lower().endswith(".dae") or not hasattr(item.geometry, "vertices"):
            continue
        up, unit = collada_header(item.meshPath)
        if up == "Z_UP" and unit == 1.0:
            continue
        evidence.meshes.setdefault((up, unit), set()).add(item.meshPath)
        joint = item.parentJoint
        targets = [data.oMi[joint].act(model.inertias[joint].lever)]
        targets += [data.oMi[child].translation for child in range(joint + 1, model.njoints)
                    if model.parents[child] == joint]
        vertices = np.asarray(item.geometry.vertices())
        placement = geometry_data.oMg[index]
        for reading, points in (("read", vertices), ("declared", vertices @ UP_AXES[up].T * unit)):
            world = points @ placement.rotation.T + placement.translation
            low, high = world.min(axis=0) - CONTAINS, world.max(axis=0) + CONTAINS
            inside = all(np.all(low <= target) and np.all(target <= high) for target in targets)
            setattr(evidence, reading, getattr(evidence, reading) + inside)
    return evidence


def apply_declared_axes(model: pin.Model, q: np.ndarray, collision: pin.GeometryModel | None) -> AxesEvidence:
    """Turn ``collision``'s Collada meshes by their declared up axis when the robot's evidence
    favours the declaration (see the module); returns the evidence (``favours_declared``
    says whether they were turned)."""
    evidence = declared_axes_evidence(model, q, collision)
    if not evidence.favours_declared:
        return evidence
    for item in collision.geometryObjects:
        if item.meshPath.lower().endswith(".dae"):
            up, _ = collada_header(item.meshPath)
            if up != "Z_UP":
                item.placement = item.placement * pin.SE3(UP_AXES[up], np.zeros(3))
    return evidence
