"""Links a URDF gives mass but no rotational inertia, given the inertia of a body of their size.

A link whose ``<inertia>`` has every principal moment at or below :data:`ZERO_MOMENT` while its
``<mass>`` is positive is a **point mass**, not a rigid body. Where no other inertia rides on
a joint, the joint then moves nothing but points on its own axis: the mass matrix ``M(q)`` is
singular, and a torque the controller computes on a state a little off the true one (an
estimate) accelerates that joint without bound. MuJoCo diverges within milliseconds: iCub's
URDF makes its 1.34 kg head, its neck links and 10 more links (44 % of its 28 kg) point masses;
its neck yaw turns the head about an axis through its centre of mass, and
``1 / (M⁻¹)ᵢᵢ`` of that joint is 3·10⁻¹⁸ kg·m².

The rule (:func:`point_mass_inertias`): such a link gets the **isotropic** inertia
``I = m r² 1`` about its centre of mass (its mass and centre of mass unchanged), with

* ``r² = (a² + b² + c²) / 18`` where ``a, b, c`` are the extents of the box that bounds the
  link's collision geometry (its visual geometry where it has none): the mean of the three
  principal moments ``m (b² + c²) / 12, …`` of a uniform solid filling that box;
* a link without geometry: the uniform sphere of water's density ``ρ`` (a body's), ``I =
  ⅖ m r²`` with ``r = (3 m / (4 π ρ))^⅓``.

Isotropic, it needs no axes: the same numbers go into the controller's model (added to the
inertia of the joint that carries the link, :func:`add_rotational_inertia`) and into the
simulator's (:func:`tsid_py.sim.model.build_model`, through
:attr:`~tsid_py.loaders.source.ModelSource.added_inertias`), so the two stay one robot.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree

import numpy as np
import pinocchio as pin

#: Inertia moments at or below this are zero (kg·m²): a link with mass and only such moments
#: is a point mass.
ZERO_MOMENT = 1e-12
#: Density of the sphere given to a point-mass link without geometry, kg/m³ (water's).
DENSITY = 1000.0


def link_inertia(link: ElementTree.Element) -> tuple[float, np.ndarray]:
    """A URDF ``<link>``'s mass (kg) and rotational inertia (3, 3) about its centre of mass,
    in its ``<inertial>`` frame (kg·m²); 0 and zeros without ``<inertial>``."""
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros((3, 3))
    mass = inertial.find("mass")
    inertia = inertial.find("inertia")
    values = {key: _number(inertia.get(key)) if inertia is not None else 0.0
              for key in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
    matrix = np.array([[values["ixx"], values["ixy"], values["ixz"]], [values["ixy"], values["iyy"], values["iyz"]],
                       [values["ixz"], values["iyz"], values["izz"]]])
    return (_number(mass.get("value")) if mass is not None else 0.0), matrix


def _number(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def point_mass_links(links) -> dict[str, float]:
    """The point-mass links (see the module) among URDF ``<link>`` elements: name → mass (kg)."""
    found = {}
    for link in links:
        mass, matrix = link_inertia(link)
        if mass > 0 and np.abs(np.linalg.eigvalsh((matrix + matrix.T) / 2)).max() <= ZERO_MOMENT:
            found[link.get("name")] = mass
    return found


def point_mass_inertias(links: dict[str, float], model: pin.Model,
                        *geometries: pin.GeometryModel | None) -> dict[str, float]:
    """The isotropic moment (kg·m²) the module's rule gives each point-mass link (``links``:
    name → mass, :func:`point_mass_links`) of ``model``: link name → ``m r²``. ``geometries``:
    the model's collision geometry, then its visual (either may be None); a link's extents come
    from the first that has it."""
    moments = {}
    for name, mass in links.items():
        extents = _extents(model, name, geometries)
        if extents is None:
            radius = (3.0 * mass / (4.0 * math.pi * DENSITY)) ** (1.0 / 3.0)
            moments[name] = 0.4 * mass * radius ** 2
        else:
            moments[name] = mass * float(extents @ extents) / 18.0
    return moments


def _extents(model: pin.Model, link: str, geometries) -> np.ndarray | None:
    """The extents (3,) of the box bounding ``link``'s geometry in the first of
    ``geometries`` that has some (each piece's own box, in the link's frame), or None."""
    if not model.existFrame(link, pin.BODY):
        return None
    frame = model.getFrameId(link, pin.BODY)
    for geometry in geometries:
        if geometry is None:
            continue
        corners = []
        for item in geometry.geometryObjects:
            if item.parentFrame != frame:
                continue
            item.geometry.computeLocalAABB()
            box = item.geometry.aabb_local
            lower, upper = np.asarray(box.min_), np.asarray(box.max_)
            if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
                continue
            placement = item.placement
            corners += [placement.act(np.array([x, y, z])) for x in (lower[0], upper[0])
                        for y in (lower[1], upper[1]) for z in (lower[2], upper[2])]
        if corners:
            corners = np.array(corners)
            return corners.max(axis=0) - corners.min(axis=0)
    return None


def add_rotational_inertia(model: pin.Model, moments: dict[str, float]) -> None:
    """Add ``moments`` (link name → isotropic moment, kg·m²) to the inertias of the joints
    that carry those links, in place: a massless isotropic inertia, so each joint's mass and
    centre of mass stay as they were."""
    for link, moment in moments.items():
        if not model.existFrame(link, pin.BODY):
            continue
        joint = model.frames[model.getFrameId(link, pin.BODY)].parentJoint
        model.inertias[joint] = model.inertias[joint] + pin.Inertia(0.0, np.zeros(3), moment * np.eye(3))
