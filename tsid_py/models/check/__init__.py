"""The model check: what is wrong with a robot file, and what was or should be done about it.

:func:`check_robot` reads a URDF (with its SRDF) or an MJCF file as :func:`tp.robots.load
<tsid_py.robots.load>` does, and names each problem it finds as a :class:`Finding`: its
severity, the file and element (link, joint, frame, mesh, group state), what is wrong with
the numbers, and the fix — the one the loader or the MuJoCo harness applied (``applied_by``),
or the one to apply to the file. ``tsid-py check-robot PATH`` prints the same report.

Severities:

* ``error``: the robot will not behave as the file intends (it falls in MuJoCo, its soles are
  misread, the file cannot be loaded, the posture cannot be held within the torque limits);
* ``warning``: something the library works around or ignores, or that is likely wrong in the
  file, that a user should know before tuning (mimic joints loaded as independent ones,
  inertias the harness repairs, a bad SRDF name);
* ``note``: what the loader derived or changed that a user would otherwise have to find by
  hand (the soles' centre off the ankle, the posture levelled and put on the ground).

What is checked, and where:

* the file's text (:mod:`tsid_py.models.check.urdf_text`, the SRDF's in
  :mod:`tsid_py.models.check.srdf`): duplicate and ambiguous names, mimic and
  continuous joints, missing or zero effort and velocity limits, inverted or empty ranges,
  inertias MuJoCo refuses (principal moments ``λᵢ > 0`` and ``λᵢ + λⱼ ≥ λₖ``), moving bodies
  without mass, missing meshes, Collada meshes whose declared axes or unit coal ignores, the
  SRDF's names (end effectors, chains, group-state joints) and its presence;
* the loaded robot at its posture (:mod:`tsid_py.models.check.stance`, the gravity torques in
  :mod:`tsid_py.models.check.torques`): joint values outside
  their ranges (and the mirrored joint's range), gravity torques of the standing posture
  against the torque limits, the centre of mass over the support polygon, degrees of freedom
  that move no mass, ambiguous frame names;
* a biped's walk (:mod:`tsid_py.models.check.walking`): whether its legs reach, within their
  ranges and with the soles flat, the CoM over each sole and the feet a step apart;
* the feet (:mod:`tsid_py.models.check.soles`): what they were derived from (collision, visual
  geometry, SRDF), soles tilted at the posture and the levelling the loader applied, the sole
  centre's offset from the foot's joint and from the file's own foot frames, soles wider than
  long (with the Collada up-axis diagnosis), a contact frame name taken by the file.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pinocchio as pin

from ...loaders.urdf import srdf_postures
from ..loading import SUFFIXES, load_robot
from .report import SEVERITIES, CheckReport, Finding, finding, report_json
from .soles import base_findings, collada_findings, feet_findings, read_geometry
from .srdf import posture_findings, srdf_findings, srdf_for
from .stance import stance_findings
from .urdf_text import UrdfFile, file_findings
from .walking import walking_findings

__all__ = ["SEVERITIES", "CheckReport", "Finding", "check_robot", "report_json"]


def check_robot(path, *, srdf=None, posture: str | None = None, package_dirs=None) -> CheckReport:
    """Check the robot file at ``path`` (URDF or MJCF; see the module) as
    ``tp.robots.load(path, srdf=srdf, posture=posture)`` loads it.

    ``ValueError`` names the file when it is not a readable robot file (missing, not XML, an
    unknown suffix, ``srdf`` missing), ``KeyError`` an unknown ``posture``; anything else —
    including a file pinocchio or the loader refuses — is a finding."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise ValueError(f"{path}: no such robot file")
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"{path}: a robot file is a URDF (.urdf) or an MJCF file (.xml, .mjcf), got {path.suffix!r}")
    package_dirs = (list(package_dirs) if package_dirs is not None
                    else [str(parent) for parent in path.resolve().parents])
    findings, facts = [], {"file": str(path), "kind": kind}
    srdf_path = urdf = None
    if kind == "urdf":
        urdf = UrdfFile(str(path))
        srdf_path = srdf_for(path, srdf)
        if posture is not None and srdf_path is None:
            raise ValueError(f"{path}: posture {posture!r} was asked for, but the URDF has no SRDF (pass --srdf)")
        facts["srdf"] = srdf_path
        findings += file_findings(urdf, package_dirs)
        findings += srdf_findings(urdf, srdf_path)
    elif srdf is not None:
        raise ValueError(f"{path}: --srdf applies to a URDF; an MJCF file's postures are its keyframes")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # each warning of the loader is a finding here
            robot = load_robot(path, srdf=srdf_path, posture=posture, package_dirs=package_dirs)
    except ValueError as exc:
        findings.append(finding("error", "load-failed", str(path), "the file", f"tp.robots.load refuses it: {exc}",
                                "fix what the message names (the findings above may say why)"))
        return _report(path, findings, facts)
    posture_name, q_raw, source = _raw_posture(robot, srdf_path, posture)
    facts.update(posture=posture_name, posture_source=source)
    if urdf is not None and srdf_path is not None and posture_name is not None:
        findings += posture_findings(urdf, srdf_path, posture_name)
    geometry = read_geometry(robot, q_raw, srdf_path, package_dirs)
    findings += stance_findings(robot, q_raw, posture_name, source, facts)
    findings += feet_findings(robot, q_raw, posture_name, geometry, facts) + collada_findings(robot, q_raw, geometry)
    findings += base_findings(robot, srdf_path, posture_name, package_dirs)
    findings += walking_findings(robot, str(path))
    return _report(path, findings, facts)


def _raw_posture(robot, srdf: str | None, posture: str | None) -> tuple[str | None, np.ndarray, str]:
    """The posture as the file gives it (before the loader levels it and puts it on the
    ground): its name, q, and where it came from (the SRDF, a keyframe, or neutral)."""
    if robot.source is not None and robot.source.kind == "mjcf":
        name = posture or next(iter(robot.postures), None)
        if name is None:
            return None, pin.neutral(robot.model), "neutral configuration: the file has no keyframe"
        return name, np.array(robot.postures[name]), "MJCF keyframe"
    postures = srdf_postures(robot.model, srdf) if srdf is not None else {}
    if not postures:
        reason = "the SRDF has no group state" if srdf is not None else "no SRDF"
        return None, pin.neutral(robot.model), f"neutral configuration: {reason}"
    name = posture or next(iter(postures))
    return name, np.array(postures[name]), os.path.basename(srdf)


def _report(path: Path, findings: list[Finding], facts: dict) -> CheckReport:
    order = {severity: rank for rank, severity in enumerate(SEVERITIES)}
    ranked = sorted(findings, key=lambda finding: order[finding.severity])      # stable: file order within
    return CheckReport(str(path), ranked, facts)
