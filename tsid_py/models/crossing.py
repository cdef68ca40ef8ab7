"""How far a biped's legs cross: the farthest a foot lands beyond the other foot, across it.

A **crossover step** catches a capture point pushed past the stance sole's outer edge with the
swing foot, crossing in front of (or behind) the stance foot. Where it can land is a stance
with the feet crossed: the swing sole ``split`` m ahead of (behind, negative) the stance sole
and ``cross`` m beyond its centre across the walk, both flat, the base upright as it stands
(the walking controller keeps the torso upright), the CoM over the soles' middle, every leg
joint inside :func:`~tsid_py.models.posture.joint_bounds` — :func:`~.reach.reach`'s fit — and
the two legs' collision pieces (the robot file's, meshes as their hulls:
:func:`tsid_py.collision_geometry.collision_model`) apart. :func:`crossing_reach` is the
largest ``cross`` (to ``resolution`` m) at which the fit reaches and the legs clear, by
bisection from ``cross`` = 0 (which is assumed to reach).

A fit is a local least-squares solve: a stance it does not reach may still exist elsewhere
(its :attr:`~.reach.Reach.at_limits` name the joints that stopped it). The clearance is
checked at the fitted stance only (not along a swing toward it).

Units: m.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .legs import leg_joints
from .reach import Reach, reach, standing_soles


@dataclass(frozen=True)
class Crossing:
    """A crossed stance: ``cross`` (m beyond the stance sole's centre), ``split`` (m ahead of
    it), its fit (:class:`~.reach.Reach`), the legs' least distance (m, negative when their
    pieces overlap) and the pair of pieces at it."""

    cross: float
    split: float
    fit: Reach
    clearance: float
    closest: tuple[str, str]

    @property
    def feasible(self) -> bool:
        return self.fit.reached and self.clearance > 0.0


def leg_pieces(model: pin.Model, q: np.ndarray, geometry: pin.GeometryModel, foot: str) -> list[int]:
    """The indices of ``geometry``'s pieces on ``foot``'s leg (on its chain's joints)."""
    joints = set(leg_joints(model, foot))
    return [index for index, item in enumerate(geometry.geometryObjects) if item.parentJoint in joints]


def legs_distance(model: pin.Model, geometry: pin.GeometryModel, q: np.ndarray, first, second) -> tuple[float, tuple]:
    """The least distance (m; coal's, negative when overlapping) between the pieces ``first``
    and ``second`` (indices) at ``q``, and the names of the pair at it."""
    import coal

    data, geometry_data = model.createData(), pin.GeometryData(geometry)
    pin.updateGeometryPlacements(model, data, geometry, geometry_data, q)
    best = (np.inf, ("", ""))
    for a in first:
        for b in second:
            result = coal.DistanceResult()
            distance = coal.distance(geometry.geometryObjects[a].geometry, geometry_data.oMg[a],
                                     geometry.geometryObjects[b].geometry, geometry_data.oMg[b],
                                     coal.DistanceRequest(), result)
            if distance < best[0]:
                best = (float(distance), (geometry.geometryObjects[a].name, geometry.geometryObjects[b].name))
    return best


def crossed_stance(model: pin.Model, q: np.ndarray, geometry: pin.GeometryModel, stance_foot: str, swing_foot: str,
                   cross: float, split: float) -> Crossing:
    """The fit (:func:`~.reach.reach`) of ``swing_foot`` landed ``cross`` m beyond
    ``stance_foot``'s centre and ``split`` m ahead of it (the stance sole where it stands at
    ``q``), and the legs' clearance there."""
    stance, swing = standing_soles(model, q, (stance_foot, swing_foot))
    outward = stance.translation - swing.translation
    outward[2] = 0.0
    forward = stance.rotation[:, 0].copy()
    forward[2] = 0.0
    forward /= np.linalg.norm(forward)
    outward -= (outward @ forward) * forward
    outward /= np.linalg.norm(outward)
    landed = stance.copy()
    landed.translation = stance.translation + cross * outward + split * forward
    middle = 0.5 * (stance.translation[:2] + landed.translation[:2])
    fit = reach(model, q, (stance_foot, swing_foot), (stance, landed), middle, forward[:2])
    clearance, closest = legs_distance(model, geometry, fit.configuration,
                                       leg_pieces(model, q, geometry, stance_foot),
                                       leg_pieces(model, q, geometry, swing_foot))
    return Crossing(float(cross), float(split), fit, clearance, closest)


def crossing_reach(model: pin.Model, q: np.ndarray, geometry: pin.GeometryModel, stance_foot: str, swing_foot: str,
                   split: float, *, limit: float = 0.5, resolution: float = 0.005) -> tuple[Crossing, Crossing]:
    """The largest feasible crossed stance (:func:`crossed_stance`) at ``split`` by bisection
    on ``cross`` in ``[0, limit]`` m to ``resolution`` m, and the infeasible one just past it
    (the joints or pieces that stopped it)."""
    low = crossed_stance(model, q, geometry, stance_foot, swing_foot, 0.0, split)
    if not low.feasible:
        return low, low
    high = crossed_stance(model, q, geometry, stance_foot, swing_foot, limit, split)
    if high.feasible:
        return high, high
    while high.cross - low.cross > resolution:
        middle = crossed_stance(model, q, geometry, stance_foot, swing_foot, 0.5 * (low.cross + high.cross), split)
        low, high = (middle, high) if middle.feasible else (low, middle)
    return low, high
