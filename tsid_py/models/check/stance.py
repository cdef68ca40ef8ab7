"""The model check on the loaded robot at its posture (see :mod:`tsid_py.models.check`).

* **Joint ranges**: each 1-dof joint's value in the file's posture against its range
  ``[lower, upper]`` (MuJoCo enforces it: a joint outside is pushed back in the first steps,
  and a standing robot falls), with the mirrored joint's range (``LLEG_KNEE`` ↔ ``RLEG_KNEE``,
  ``l_…`` ↔ ``r_…``, ``FL_…`` ↔ ``FR_…``) when it holds the value; values within
  :data:`AT_LIMIT` of a bound; mirrored joints whose ranges the mirror does not explain: two
  joints whose axes are each other's mirror image through the sagittal plane turn the same
  way and should have equal ranges; with opposite axes, ``[a, b]`` and ``[−b, −a]``.
* **Gravity torques** of the standing posture against the torque limits
  (:mod:`tsid_py.models.check.torques`).
* **Centre of mass**: its height, and its horizontal distance inside (positive) or outside
  the support polygon (the convex hull of the soles' corners and the point feet).
* **Dynamics**: degrees of freedom whose diagonal entry of the mass matrix ``M(q)`` is 0 (the
  joint moves no mass or inertia at all: ``M`` is singular).
* **Frame names**: several frames of the model with one name (a joint and a link named alike,
  an MJCF body and site): pinocchio's ``getFrameId`` refuses such a name, so a task or contact
  on it fails.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pinocchio as pin

from ..held import joints_moving_no_mass
from .report import Finding, finding
from .torques import dof_names, passive_findings, torque_findings
from .urdf_text import listed

#: A joint value within this of a bound is "at its limit" (rad, or m for a prismatic joint).
AT_LIMIT = np.radians(0.5)
#: A joint value beyond its range by more than this is outside it (rad or m).
OUTSIDE = 1e-6
#: A CoM closer than this to the support polygon's edge is a warning, m.
COM_MARGIN = 0.01
_PRISMATIC = {"JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"}


def stance_findings(robot, q_raw: np.ndarray, posture: str | None, source: str, facts: dict) -> list[Finding]:
    """The findings about ``robot`` at the file's posture ``q_raw`` (its joints those of
    ``robot.q_ref``, which stands on the ground) and the facts (mass, CoM, torque ratio)
    added to ``facts``."""
    model = robot.model
    file = robot.source.path if robot.source is not None else robot.name
    facts.update(base="floating" if robot.floating_base else "fixed", nq=model.nq, nv=model.nv, na=robot.na,
                 mass_kg=float(pin.computeTotalMass(model)), feet=list(robot.feet), sole_size=robot.sole_size,
                 foot_radius=robot.foot_radius, end_effector=robot.end_effector)
    label = f"posture {posture!r}" if posture else "the neutral posture"
    return (range_findings(robot, q_raw, label, source, file) + mirror_range_findings(robot, file)
            + torque_findings(robot, facts, file) + passive_findings(robot, file) + com_findings(robot, facts, file)
            + massless_dof_findings(robot, file) + frame_findings(robot, file))


# ------------------------------------------------------------------------------------ ranges
def mirror_of(name: str, names) -> str | None:
    """The name of ``name``'s mirrored counterpart among ``names``: ``left`` ↔ ``right`` (any
    case), else one letter ``l`` ↔ ``r`` (``L`` ↔ ``R``) swapped where the result is a name
    (``LLEG_KNEE`` ↔ ``RLEG_KNEE``, ``FL_calf`` ↔ ``FR_calf``); None without one."""
    names = set(names)
    for left, right in (("left", "right"), ("Left", "Right"), ("LEFT", "RIGHT")):
        for this, other in ((left, right), (right, left)):
            if this in name and name.replace(this, other, 1) in names:
                return name.replace(this, other, 1)
    swap = {"l": "r", "r": "l", "L": "R", "R": "L"}
    for index, letter in enumerate(name):
        if letter in swap:
            candidate = name[:index] + swap[letter] + name[index + 1:]
            if candidate in names:
                return candidate
    return None


def joint_ranges(robot) -> dict[str, tuple[int, float, float, str]]:
    """Per 1-dof joint with a finite, non-empty range: ``(q index, lower, upper, unit)``."""
    model, ranges = robot.model, {}
    for name in robot.joint_names:
        if not robot.has_1dof_joint(name):
            continue
        index = robot.joint_q_index(name)
        lower, upper = float(model.lowerPositionLimit[index]), float(model.upperPositionLimit[index])
        if np.isfinite(lower) and np.isfinite(upper) and lower < upper and max(abs(lower), abs(upper)) < 1e10:
            prismatic = model.existJointName(name) and model.joints[model.getJointId(name)].shortname() in _PRISMATIC
            ranges[name] = (index, lower, upper, "m" if prismatic else "rad")
    return ranges


def range_findings(robot, q: np.ndarray, label: str, source: str, file: str) -> list[Finding]:
    """Joint values of ``q`` outside their ranges (one error each) or at a bound (a note)."""
    ranges, found, at_limit = joint_ranges(robot), [], []
    for name, (index, lower, upper, unit) in ranges.items():
        value = float(q[index])
        beyond = max(lower - value, value - upper)
        if beyond > OUTSIDE:
            bound = lower if value < lower else upper
            degrees = f" ({np.degrees(beyond):.1f}°)" if unit == "rad" else ""
            hint = ""
            other = mirror_of(name, ranges)
            if other is not None:
                _, other_lower, other_upper, _ = ranges[other]
                holds = "holds" if other_lower <= value <= other_upper else "does not hold"
                hint = (f"; the mirrored joint {other!r} has range [{other_lower:.4g}, {other_upper:.4g}], which "
                        f"{holds} the value")
            found.append(finding(
                "error", "posture-outside-range", file, f"joint {name!r}",
                f"{label} ({source}) sets {value:.4g} {unit}, outside the joint's range [{lower:.4g}, {upper:.4g}] "
                f"{unit} by {beyond:.4g} {unit}{degrees}{hint}",
                f"MuJoCo enforces the range: the joint is pushed to {bound:.4g} in the first steps and a standing "
                "robot falls. Set the posture's value within the range, or correct the URDF <limit> if the range is "
                "the wrong one", None, joint=name, value=value, lower=lower, upper=upper, beyond=beyond,
                mirror=other))
        elif beyond > -AT_LIMIT:
            at_limit.append(name)
    if at_limit:
        found.append(finding(
            "note", "posture-at-limit", file, f"joints {listed(at_limit)}",
            f"{label} puts {len(at_limit)} joint(s) within {np.degrees(AT_LIMIT):.1f}° (or mm) of a bound of their "
            "range", "the position limits stop them there (the controller's and MuJoCo's): a task that pulls them "
            "further is not achieved; bend them off the bound if the robot must move them both ways", None,
            joints=at_limit))
    return found


def mirror_range_findings(robot, file: str) -> list[Finding]:
    """Mirrored joints whose ranges are not what the mirror makes them (see the module)."""
    ranges, pairs = joint_ranges(robot), []
    axes = _joint_axes(robot)
    for name, (_, lower, upper, _) in ranges.items():
        other = mirror_of(name, ranges)
        if other is None or other < name:
            continue
        _, other_lower, other_upper, _ = ranges[other]
        sense = axes[name] @ (axes[other] * np.array([-1.0, 1.0, -1.0]))
        if abs(sense) < 0.9:                   # the axes are not each other's mirror image: nothing to expect
            continue
        expected = (lower, upper) if sense > 0 else (-upper, -lower)
        if not np.allclose([other_lower, other_upper], expected, atol=1e-6):
            pairs.append((name, other, (lower, upper), (other_lower, other_upper)))
    if not pairs:
        return []
    shown = "; ".join(f"{a} [{ra[0]:.4g}, {ra[1]:.4g}] vs {b} [{rb[0]:.4g}, {rb[1]:.4g}]" for a, b, ra, rb in pairs[:4])
    return [finding(
        "warning", "asymmetric-ranges", file, f"joints {listed([a for a, *_ in pairs], 4)} and their mirrors",
        f"{len(pairs)} pair(s) of mirrored joints have ranges the mirror does not explain (equal ranges for axes "
        f"turning the same way, [a, b] and [-b, -a] for opposite ones): {shown}",
        "compare each <limit> with the robot's data sheet: a range copied from the neighbouring joint is a common "
        "slip", None, pairs={a: {"mirror": b, "range": ra, "mirror_range": rb} for a, b, ra, rb in pairs})]


def _joint_axes(robot) -> dict[str, np.ndarray]:
    """Per 1-dof joint, its axis in world axes at the posture, as a rotation's (pseudovector)
    or, for a prismatic joint, a translation's; mirrored through the robot's sagittal (x–z)
    plane a rotation axis ``(a, b, c)`` becomes ``(−a, b, −c)`` — which the test above expects
    of a mirrored joint turning the same way — a translation axis ``(a, −b, c)``, negated
    here to fit the same test."""
    model, data = robot.model, robot.model.createData()
    pin.computeJointJacobians(model, data, robot.q_ref)
    axes = {}
    for name in robot.joint_names:
        if not robot.has_1dof_joint(name):
            continue
        index = robot.joint_v_index(name)
        joint = next(j for j in range(1, model.njoints) if model.idx_vs[j] <= index < model.idx_vs[j] + model.nvs[j])
        column = np.asarray(pin.getJointJacobian(model, data, joint, pin.WORLD)).reshape(6, model.nv)[:, index]
        angular = column[3:]
        axes[name] = angular / np.linalg.norm(angular) if np.linalg.norm(angular) > 1e-9 else -(
            column[:3] / max(np.linalg.norm(column[:3]), 1e-12))
    return axes


# ------------------------------------------------------------------------------------ CoM
def support_margin(points: np.ndarray, point: np.ndarray) -> float:
    """The distance (m) of ``point`` (2,) inside (positive) or outside (negative) the convex
    hull of ``points`` (k, 2); a hull of fewer than three corners has no inside."""
    hull = _hull(points)
    if len(hull) < 3:
        return -min(_segment_distance(point, hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull)))
    distances = []
    for i in range(len(hull)):
        a, b = hull[i], hull[(i + 1) % len(hull)]
        edge = b - a
        distances.append((edge[0] * (point - a)[1] - edge[1] * (point - a)[0]) / np.linalg.norm(edge))
    inside = min(distances)
    if inside >= 0:
        return float(inside)
    return -min(_segment_distance(point, hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull)))


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull's corners, counter-clockwise (Andrew's monotone chain)."""
    ordered = sorted({(round(x, 12), round(y, 12)) for x, y in points})
    if len(ordered) < 3:
        return np.array(ordered, dtype=float)

    def chain(sequence):
        out = []
        for p in sequence:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    return np.array(chain(ordered)[:-1] + chain(ordered[::-1])[:-1], dtype=float)


def _segment_distance(point, a, b) -> float:
    edge = b - a
    t = 0.0 if not edge.any() else float(np.clip((point - a) @ edge / (edge @ edge), 0.0, 1.0))
    return float(np.linalg.norm(point - (a + t * edge)))


def com_findings(robot, facts: dict, file: str) -> list[Finding]:
    """The CoM's height and its place over the support polygon at the standing posture."""
    model, data = robot.model, robot.model.createData()
    com = pin.centerOfMass(model, data, robot.q_ref)
    facts["com_m"] = com
    if not (robot.floating_base and robot.feet):
        return []
    pin.framesForwardKinematics(model, data, robot.q_ref)
    corners = []
    for foot in robot.feet:
        placement = data.oMf[robot.frame_id(foot)]
        if robot.sole_size is None:
            corners.append(placement.translation)
        else:
            half_length, half_width = robot.sole_size[0] / 2, robot.sole_size[1] / 2
            corners += [placement.act(np.array([sx * half_length, sy * half_width, 0.0]))
                        for sx in (1, -1) for sy in (1, -1)]
    corners = np.array(corners)
    ground = corners[:, 2].min()
    margin = support_margin(corners[:, :2], com[:2])
    facts.update(com_height_m=float(com[2] - ground), com_support_margin_m=margin)
    if margin < 0:
        return [finding("error", "com-outside-support", file, "the standing posture",
                        f"the centre of mass ({com[0]:.3f}, {com[1]:.3f}) m is {-margin:.3f} m outside the support "
                        f"polygon of the feet {list(robot.feet)}: the robot cannot stand still there",
                        "choose a posture with the CoM over the feet (another SRDF group state or keyframe)", None,
                        com=com, margin=margin)]
    if margin < COM_MARGIN:
        return [finding("warning", "com-near-support-edge", file, "the standing posture",
                        f"the centre of mass is {margin * 1000:.1f} mm inside the support polygon's edge",
                        "choose a posture with the CoM nearer the middle of the feet", None, com=com, margin=margin)]
    return []


# ------------------------------------------------------------------------------------ dynamics, names
def massless_dof_findings(robot, file: str) -> list[Finding]:
    """Degrees of freedom with ``M(q)ᵢᵢ = 0``: the joint moves nothing (``M`` singular). Those
    the profile holds (:func:`~tsid_py.models.held.joints_moving_no_mass`) and those it cannot
    (a mimic coupling ties them to a joint that moves mass) are told apart."""
    model, data = robot.model, robot.model.createData()
    mass = pin.crba(model, data, robot.q_ref)
    first = 6 if robot.floating_base else 0
    names = dof_names(robot)
    empty = [names[i - first] for i in range(first, model.nv) if mass[i, i] <= 1e-12]
    held = set(joints_moving_no_mass(robot))
    found = []
    singular = ("move no mass and no inertia (their whole subtree is massless): the mass matrix M is singular, "
                "any torque on them gives an unbounded acceleration")
    holdable = [name for name in empty if name in held]
    if holdable:
        found.append(finding("warning", "massless-dofs", file, f"joints {listed(holdable)}",
                             f"{len(holdable)} joint(s) {singular}",
                             "the profile holds them (RobotProfile.held_joints, tsid_py.models.held): the controller "
                             "sends them no torque and the harness locks them at the posture; give their links mass, "
                             "or make the joints fixed", "library", joints=holdable))
    coupled = [name for name in empty if name not in held]
    if coupled:
        found.append(finding("warning", "massless-dofs", file, f"joints {listed(coupled)}",
                             f"{len(coupled)} joint(s) {singular}; a mimic coupling ties them to a joint that moves "
                             "mass, so the profile does not hold them and their motion is the coupling's alone",
                             "give their links mass, or make the joints fixed", None, joints=coupled))
    return found


def frame_findings(robot, file: str) -> list[Finding]:
    """Names shared by several frames (see the module): a note when the frames coincide (same
    joint, same placement), a warning listing them when they differ."""
    model, by_name = robot.model, defaultdict(list)
    for frame in model.frames:
        by_name[frame.name].append(frame)
    alike, different = {}, {}
    for name, frames in by_name.items():
        if len(frames) < 2:
            continue
        kinds = ", ".join(f"{str(f.type).rsplit('.', 1)[-1].lower()} on joint {model.names[f.parentJoint]!r}"
                          for f in frames)
        same = all(f.parentJoint == frames[0].parentJoint and f.placement.isApprox(frames[0].placement, 1e-9)
                   for f in frames)
        (alike if same else different)[name] = kinds
    found = []
    if different:
        shown = "; ".join(f"{name!r}: {kinds}" for name, kinds in list(different.items())[:3])
        found.append(finding(
            "warning", "ambiguous-frame-name", file, f"frames {listed(different)}",
            f"{len(different)} name(s) each name different frames ({shown}): pinocchio's getFrameId refuses such a "
            "name (several frames match), so a task or contact on it raises ValueError",
            "rename one of each pair in the file (e.g. the joint '<name>_joint')", None, frames=different))
    if alike:
        found.append(finding(
            "note", "same-name-frames", file, f"frames {listed(alike)}",
            f"{len(alike)} name(s) each name frames that coincide ({listed(alike.values(), 2)})",
            "pinocchio still refuses the bare name (several frames match): rename one, or ask for the frame by type",
            None, frames=alike))
    return found
