"""The model check's reading of a URDF's text (see :mod:`tsid_py.models.check`).

What pinocchio does not say, or hides by accepting it:

* **names**: two links or two joints of one name (urdfdom refuses the file), names that
  differ only by case (a joint and a link of one name are two frames of one name in
  pinocchio's model: :func:`tsid_py.models.check.stance.frame_findings`);
* **joints**: ``<mimic>`` couplings (passive joints of their own, held on their primary joints by the
  solver and the harness), ``continuous`` joints (``q = (cos θ, sin θ)``, no position
  limit), ``<limit>`` with ``lower > upper`` or ``lower = upper``, an ``effort`` or
  ``velocity`` of 0 (the library's limits then treat the joint as unlimited);
* **inertias**: a rigid body's rotational inertia about its centre of mass has principal
  moments ``λ₁, λ₂, λ₃`` with ``λᵢ ≥ 0`` and ``λᵢ + λⱼ ≥ λₖ`` (``λᵢ + λⱼ − λₖ = 2 ∫ rₖ² dm``).
  MuJoCo refuses a matrix that breaks them ("inertia must have positive eigenvalues", "must
  satisfy A + B >= C"), and a moving body (the links one joint moves, with those welded to
  them by fixed joints) lighter than 10⁻¹⁵ kg or with an inertia trace below 10⁻¹⁵ kg·m².
  The harness replaces them (:mod:`tsid_py.sim.inertia`) in the simulator only; the check
  applies the same test (moments and triangle slacks above 10⁻¹² of the largest moment) and
  gives the nearest valid moments, ``min ‖λ − λ⁰‖`` over that set, as the file's fix. A link
  with mass and no rotational inertia (moments ≤ 10⁻¹² kg·m²) is a point mass, not a rigid
  body: the loader gives it the inertia of a body of its size (:mod:`tsid_py.models.point_masses`);
* **meshes**: a mesh file that cannot be found (``package://`` resolved against the folders
  above the URDF, as the loader does); the header of a Collada file (its declared
  ``<up_axis>`` and ``<unit meter>``, which coal ignores: see
  :func:`tsid_py.models.check.soles.collada_findings`).

The SRDF's names are checked by :mod:`tsid_py.models.check.srdf`.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict

import numpy as np

from ..point_masses import ZERO_MOMENT, link_inertia
from .report import Finding, finding

#: Joint types with a position, velocity and effort limit in a URDF.
LIMITED_TYPES = ("revolute", "prismatic")
#: MuJoCo's smallest mass and inertia trace of a moving body (``mjMINVAL``).
MJ_MINVAL = 1e-15
#: The six inequalities ``G λ ≥ 0`` of a valid inertia's principal moments.
_TRIANGLE = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1]])


def parse_xml(path: str, what: str) -> ElementTree.Element:
    """The root element of the XML file at ``path``; ``ValueError`` naming it otherwise."""
    try:
        return ElementTree.parse(path).getroot()
    except ElementTree.ParseError as exc:
        raise ValueError(f"{path}: not a valid XML {what} file ({exc})") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None


class UrdfFile:
    """A URDF's links and joints as its text gives them (duplicates kept)."""

    def __init__(self, path: str):
        self.path = path
        root = parse_xml(path, "URDF")
        if root.tag != "robot":
            raise ValueError(f"{path}: the root element is <{root.tag}>, a URDF's is <robot>")
        self.links = root.findall("link")
        self.joints = [joint for joint in root.findall("joint") if joint.find("parent") is not None]
        self.link_names = [link.get("name", "") for link in self.links]
        self.joint_names = [joint.get("name", "") for joint in self.joints]
        self.child_joint = {joint.find("child").get("link"): joint for joint in self.joints
                            if joint.find("child") is not None}

    def finding(self, severity, code, element, problem, fix, applied_by=None, **values) -> Finding:
        """A finding about this file."""
        return finding(severity, code, self.path, element, problem, fix, applied_by, **values)


def file_findings(urdf: UrdfFile, package_dirs) -> list[Finding]:
    """The findings of the URDF's text (see the module)."""
    return (_name_findings(urdf) + _joint_findings(urdf) + _limit_findings(urdf) + _inertia_findings(urdf)
            + _mesh_findings(urdf, package_dirs))


# ------------------------------------------------------------------------------------ names
def listed(names, most: int = 6) -> str:
    """Names quoted and joined, the first ``most`` of them and how many more."""
    names = list(names)
    shown = ", ".join(repr(name) for name in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _name_findings(urdf: UrdfFile) -> list[Finding]:
    found = []
    for kind, names in (("link", urdf.link_names), ("joint", urdf.joint_names)):
        repeated = sorted(name for name, count in Counter(names).items() if count > 1)
        if repeated:
            found.append(urdf.finding(
                "error", f"duplicate-{kind}-name", f"{kind}s {listed(repeated)}",
                f"{len(repeated)} {kind} name(s) appear more than once: urdfdom (pinocchio's URDF reader) refuses "
                "the file", f"give each <{kind}> a name of its own", names=repeated))
    every = list(dict.fromkeys(urdf.link_names + urdf.joint_names))
    by_case = defaultdict(list)
    for name in every:
        by_case[name.lower()].append(name)
    clashes = [group for group in by_case.values() if len(group) > 1]
    if clashes:
        found.append(urdf.finding(
            "note", "names-differ-by-case", listed(" / ".join(group) for group in clashes),
            f"{len(clashes)} group(s) of names differ only by case: a frame asked for in the wrong case is another "
            "frame or none", "keep names distinct beyond case", groups=clashes))
    return found


# ------------------------------------------------------------------------------------ joints
def _joint_findings(urdf: UrdfFile) -> list[Finding]:
    found = []
    mimics = defaultdict(list)
    for joint in urdf.joints:
        mimic = joint.find("mimic")
        if mimic is not None and joint.get("type") != "fixed":
            mimics[mimic.get("joint")].append((joint.get("name"), float(mimic.get("multiplier", 1.0)),
                                               float(mimic.get("offset", 0.0))))
    if mimics:
        joints = [name for group in mimics.values() for name, _, _ in group]
        detail = "; ".join(f"{listed([name for name, _, _ in group], 3)} mimic {primary!r}"
                           for primary, group in list(mimics.items())[:4])
        found.append(urdf.finding(
            "note", "mimic-joints", f"joints {listed(joints)}",
            f"{len(joints)} mimic joint(s) ({detail}): each a joint of its own in the model (one q, one v), "
            "passive, kept on its primary joint by the linkage q_m = k q_p + b",
            "the solver holds each coupling as a closure whose force is a variable (the primary joint's motor "
            "carries the pair's torque, the mimic joint's is 0) and the harness with MuJoCo joint equalities "
            "(Robot.closures); a robot loaded with mimic='independent' drops them", "loader",
            joints=joints, couplings={name: {"primary": primary, "multiplier": k, "offset": c}
                                      for primary, group in mimics.items() for name, k, c in group}))
    continuous = [joint.get("name") for joint in urdf.joints if joint.get("type") == "continuous"]
    if continuous:
        found.append(urdf.finding(
            "note", "continuous-joints", f"joints {listed(continuous)}",
            f"{len(continuous)} continuous joint(s): unbounded revolute joints, q = (cos θ, sin θ) in pinocchio "
            "(2 q, 1 v), with no position limit",
            "the posture task controls their wrapped angle and the harness converts them to MuJoCo's θ; if a real "
            "joint has a range, make it revolute with <limit lower upper> so that its limits are enforced",
            "library", joints=continuous))
    return found


def _limit_findings(urdf: UrdfFile) -> list[Finding]:
    found, zero = [], {"effort": [], "velocity": []}
    for joint in urdf.joints:
        name, kind, limit = joint.get("name"), joint.get("type"), joint.find("limit")
        if kind not in LIMITED_TYPES + ("continuous",) or limit is None:
            continue
        for attribute in zero:
            if _number(limit.get(attribute)) <= 0:
                zero[attribute].append(name)
        lower, upper = _number(limit.get("lower")), _number(limit.get("upper"))
        if kind in LIMITED_TYPES and lower > upper:
            found.append(urdf.finding(
                "error", "inverted-range", f"joint {name!r}", f"<limit lower={lower:g} upper={upper:g}>: lower > upper; "
                "pinocchio keeps them so and no configuration is within the range", "swap them", lower=lower,
                upper=upper))
        elif kind in LIMITED_TYPES and lower == upper:
            found.append(urdf.finding(
                "warning", "empty-range", f"joint {name!r}", f"<limit lower=upper={lower:g}>: the joint cannot move, "
                "yet it is a degree of freedom (and actuated) in the model", "make it a fixed joint", value=lower))
    mimic = {joint.get("name") for joint in urdf.joints if joint.find("mimic") is not None}
    for attribute, joints in zero.items():
        if not joints:
            continue
        constraint = "TorqueLimits" if attribute == "effort" else "VelocityLimits"
        among = f" ({len(mimic & set(joints))} of them mimic joints)" if mimic & set(joints) else ""
        found.append(urdf.finding(
            "warning", f"no-{attribute}-limit", f"joints {listed(joints)}",
            f"{len(joints)} joint(s) have <limit {attribute}=\"0\"> (or none){among}: the controller's {constraint} "
            f"treat them as unlimited, and the harness applies any {'torque' if attribute == 'effort' else 'speed'}",
            f"give each its actuator's {attribute} limit ({'N·m or N' if attribute == 'effort' else 'rad/s or m/s'}), "
            f"or pass {constraint}(limits={{joint: value}})", "library", joints=joints))
    return found


def _number(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


# ------------------------------------------------------------------------------------ inertias
def inertia_is_valid(moments) -> bool:
    """Whether principal moments (3,) are a rigid body's, as MuJoCo tests them: each moment and
    each triangle slack ``λᵢ + λⱼ − λₖ`` above 10⁻¹² of the largest moment (all zero: a
    massless link, valid)."""
    moments = np.asarray(moments, dtype=float)
    scale = np.abs(moments).max()
    return bool(scale == 0 or np.all(_TRIANGLE @ moments > 1e-12 * scale))


def nearest_valid_moments(moments) -> np.ndarray:
    """The valid moments nearest to ``moments`` (Euclidean): ``min ‖λ − λ⁰‖²`` subject to
    ``G λ ≥ m`` (the six inequalities, ``m = max(10⁻¹², 10⁻⁹ max|λ⁰|)``), a strictly convex QP
    in three variables (DAQP, through qpsolvers)."""
    moments = np.asarray(moments, dtype=float)
    margin = max(1e-12, 1e-9 * np.abs(moments).max())
    if np.all(_TRIANGLE @ moments >= margin):
        return moments.copy()
    from qpsolvers import solve_qp

    scale = max(np.abs(moments).max(), 1e-300)        # solved in units of the largest moment
    solution = solve_qp(np.eye(3), -moments / scale, -_TRIANGLE, -np.full(6, margin / scale), solver="daqp")
    return moments.copy() if solution is None else solution * scale


def _inertia_findings(urdf: UrdfFile) -> list[Finding]:
    found, points = [], []
    for link in urdf.links:
        name = link.get("name")
        mass, matrix = link_inertia(link)
        moments = np.linalg.eigvalsh((matrix + matrix.T) / 2)
        if mass < 0:
            found.append(urdf.finding("error", "negative-mass", f"link {name!r}", f"<mass value={mass:g}>: a negative "
                                      "mass", "give the link its mass (kg)", mass=mass))
        if np.abs(moments).max() <= ZERO_MOMENT:
            if mass > 0:
                points.append((name, mass))
            continue
        if inertia_is_valid(moments):
            continue
        fixed = nearest_valid_moments(moments)
        broken = ("has a non-positive principal moment (MuJoCo: 'inertia must have positive eigenvalues')"
                  if moments.min() <= 1e-12 * np.abs(moments).max() else
                  "breaks the triangle inequality A + B >= C (MuJoCo: 'inertia must satisfy A + B >= C')")
        found.append(urdf.finding(
            "warning", "invalid-inertia", f"link {name!r}",
            f"principal moments ({_moments(moments)}) kg·m² (mass {mass:g} kg) are not a rigid body's: the inertia "
            f"{broken}; pinocchio accepts it, the controller's model keeps it",
            f"the harness replaces it in MuJoCo by the nearest valid inertia (same principal axes); in the file, "
            f"moments ({_moments(fixed)}) kg·m² are the nearest valid ones (better: the CAD's)", "harness",
            mass=mass, moments=moments, nearest_valid_moments=fixed))
    if points:
        total = sum(link_inertia(link)[0] for link in urdf.links)
        heavy = sum(mass for _, mass in points)
        found.append(urdf.finding(
            "warning", "point-mass-links", f"links {listed(name for name, _ in points)}",
            f"{len(points)} link(s) have mass ({heavy:.3g} kg, {100 * heavy / max(total, 1e-300):.0f}% of "
            f"{total:.3g} kg) but no rotational inertia (moments <= {ZERO_MOMENT:g} kg·m²): point masses, not rigid "
            "bodies; a joint that turns only point masses about an axis through them moves nothing (M singular) "
            "and the simulation diverges on the first torque error",
            "the loader gives each the isotropic inertia m (a² + b² + c²) / 18 of a uniform box the size of its "
            "collision geometry (a sphere of water's density without geometry), in the controller's model and "
            "the simulator's alike (tsid_py.models.point_masses); in the file, give them their inertia (the CAD's)",
            "loader", links={name: mass for name, mass in points}))
    found += _moving_massless(urdf)
    return found


def _moving_massless(urdf: UrdfFile) -> list[Finding]:
    """The moving bodies MuJoCo refuses for want of mass: each joint's child link with the
    links welded to it (by fixed joints), weighing less than :data:`MJ_MINVAL`."""
    links = {link.get("name"): link for link in urdf.links}
    children = defaultdict(list)
    for joint in urdf.joints:
        children[joint.find("parent").get("link")].append(joint)

    def welded_mass(name: str) -> float:
        mass = link_inertia(links[name])[0] if name in links else 0.0
        for joint in children[name]:
            if joint.get("type") == "fixed":
                mass += welded_mass(joint.find("child").get("link"))
        return mass

    massless = [joint.find("child").get("link") for joint in urdf.joints
                if joint.get("type") not in ("fixed", "floating") and welded_mass(joint.find("child").get("link")) < MJ_MINVAL]
    if not massless:
        return []
    return [urdf.finding(
        "warning", "massless-moving-links", f"links {listed(massless)}",
        f"{len(massless)} link(s) moved by a joint weigh nothing (with the links fixed to them): MuJoCo refuses a "
        "moving body lighter than 1e-15 kg, and a joint that moves no mass at all makes pinocchio's mass matrix "
        "singular", "the harness gives each 1e-6 kg (and 1e-10 kg·m²) in MuJoCo; in the file, give them their mass, "
        "or make their joints fixed", "harness", links=massless)]


def _moments(values) -> str:
    return ", ".join(f"{value:.4g}" for value in values)


# ------------------------------------------------------------------------------------ meshes
def resolve_mesh(filename: str, urdf_path: str, package_dirs) -> str | None:
    """The file a URDF mesh ``filename`` names (``package://`` against each of
    ``package_dirs``, ``file://`` or a path relative to the URDF), None if none exists."""
    if filename.startswith("package://"):
        relative = filename[len("package://"):]
        return next((os.path.join(folder, relative) for folder in package_dirs
                     if os.path.isfile(os.path.join(folder, relative))), None)
    filename = filename[len("file://"):] if filename.startswith("file://") else filename
    path = filename if os.path.isabs(filename) else os.path.join(os.path.dirname(os.path.abspath(urdf_path)), filename)
    return path if os.path.isfile(path) else None


def _mesh_findings(urdf: UrdfFile, package_dirs) -> list[Finding]:
    missing = {"collision": [], "visual": []}
    for link in urdf.links:
        for kind in missing:
            for element in link.findall(kind):
                mesh = element.find("geometry/mesh")
                if mesh is not None and resolve_mesh(mesh.get("filename", ""), urdf.path, package_dirs) is None:
                    missing[kind].append((link.get("name"), mesh.get("filename", "")))
    found = []
    if missing["collision"]:
        found.append(urdf.finding(
            "error", "missing-collision-mesh", f"links {listed(name for name, _ in missing['collision'])}",
            f"{len(missing['collision'])} collision mesh(es) cannot be found, e.g. {missing['collision'][0][1]!r}: "
            "the loader cannot read the geometry (the feet come from it)",
            "install the meshes, or pass package_dirs=[the folder holding the package] (--package-dir)",
            meshes=list(dict.fromkeys(filename for _, filename in missing["collision"]))))
    if missing["visual"]:
        found.append(urdf.finding(
            "warning", "missing-visual-mesh", f"links {listed(name for name, _ in missing['visual'])}",
            f"{len(missing['visual'])} visual mesh(es) cannot be found, e.g. {missing['visual'][0][1]!r}",
            "the harness drops them from its visuals; the loader reads visuals only when the collision geometry "
            "shows fewer than two feet", "harness", meshes=list(dict.fromkeys(filename for _, filename in missing["visual"]))))
    return found
