"""The model check of the SRDF beside a URDF (see :mod:`tsid_py.models.check`).

* **Which SRDF**: the one the loader reads (``srdf`` given, else ``<stem>.srdf`` beside the
  URDF or in ``../srdf/``, the example-robot-data layout); when there is none, the posture is
  pinocchio's neutral configuration, and other SRDF files nearby are named.
* **Its names against the URDF**: ``<end_effector parent_link>``, ``<chain base_link
  tip_link>`` and group ``<link>`` names the URDF does not have (the loader ignores them);
  group-state joints it does not have (pinocchio ignores them without a word).
* **The posture**: which group state the loader stands in when there are several (the first
  in pinocchio's order, by name), and the URDF joints it leaves at their neutral value.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from .report import Finding, finding
from .urdf_text import UrdfFile, listed, parse_xml

#: The name pinocchio gives the free-flyer joint it adds (an SRDF group state may set it).
FREE_FLYER = "root_joint"


def srdf_for(urdf: Path, srdf) -> str | None:
    """The SRDF the loader reads with ``urdf``: ``srdf`` when given (``ValueError`` if it
    does not exist), else ``<stem>.srdf`` beside it or in ``../srdf/`` (the example-robot-data
    layout), else None."""
    if srdf is not None:
        srdf = Path(os.fspath(srdf))
        if not srdf.is_file():
            raise ValueError(f"{srdf}: no such SRDF file")
        return str(srdf)
    return next((str(guess) for guess in (urdf.with_suffix(".srdf"), urdf.parent.parent / "srdf" / f"{urdf.stem}.srdf")
                 if guess.is_file()), None)


def srdf_findings(urdf: UrdfFile, srdf: str | None) -> list[Finding]:
    """The SRDF's presence and names against the URDF (see the module)."""
    if srdf is None:
        return [_no_srdf(urdf)]
    root = parse_xml(srdf, "SRDF")
    links, joints = set(urdf.link_names), set(urdf.joint_names)
    found = []
    referenced = [(f"<end_effector name={e.get('name')!r} parent_link={e.get('parent_link')!r}>", e.get("parent_link"))
                  for e in root.iter("end_effector")]
    referenced += [(f"<chain {key}={chain.get(key)!r}>", chain.get(key)) for chain in root.iter("chain")
                   for key in ("base_link", "tip_link")]
    referenced += [(f"<group name={group.get('name')!r}><link name={link.get('name')!r}>", link.get("name"))
                   for group in root.iter("group") for link in group.findall("link")]
    unknown = [(element, name) for element, name in referenced if name and name not in links]
    if unknown:
        hints = {name: difflib.get_close_matches(name, sorted(links), 2, 0.6) for _, name in unknown}
        shown = "; ".join(f"{element}" + (f" (links like it: {', '.join(hints[name])})" if hints[name] else "")
                          for element, name in unknown[:4])
        found.append(finding(
            "warning", "srdf-unknown-link", srdf, listed((element for element, _ in unknown), 3),
            f"{len(unknown)} SRDF element(s) name links {os.path.basename(urdf.path)} does not have: {shown}",
            "the loader ignores them (an end effector is then derived: the deepest frame of an arm, none for a "
            "legged robot); rename them to links of the URDF", "loader", names=[name for _, name in unknown]))
    for state in root.iter("group_state"):
        named = [joint.get("name") for joint in state.findall("joint")]
        strangers = [name for name in named if name not in joints and name != FREE_FLYER]
        if strangers:
            found.append(finding(
                "warning", "srdf-unknown-joint", srdf, f"<group_state name={state.get('name')!r}>",
                f"sets {len(strangers)} joint(s) the URDF does not have: {listed(strangers)}",
                "pinocchio ignores them without a word; rename them to the URDF's joints", "loader", joints=strangers))
    return found


def posture_findings(urdf: UrdfFile, srdf: str, chosen: str) -> list[Finding]:
    """The group state the loader stands the robot in (``chosen``): which, among several,
    and the URDF joints it leaves unset."""
    states = {state.get("name"): state for state in parse_xml(srdf, "SRDF").iter("group_state")}
    if chosen not in states:
        return []
    found = []
    if len(states) > 1:
        found.append(finding(
            "note", "posture-chosen", srdf, f"<group_state name={chosen!r}>",
            f"the SRDF has {len(states)} group states ({listed(states)}); the posture is {chosen!r}, the first in "
            "pinocchio's order (by name), which need not be the file's first", "pass posture= (--posture NAME) "
            "to stand in another", "loader", group_states=list(states)))
    named = {joint.get("name") for joint in states[chosen].findall("joint")}
    moving = [joint.get("name") for joint in urdf.joints if joint.get("type") not in ("fixed", "floating")
              and joint.find("mimic") is None]
    unset = [name for name in moving if name not in named]
    if unset:
        found.append(finding(
            "note", "posture-leaves-joints", srdf, f"<group_state name={chosen!r}>",
            f"leaves {len(unset)} of the URDF's {len(moving)} joints unset: {listed(unset)}",
            "they stand at their neutral value (0; a continuous joint's angle 0)", "loader", joints=unset))
    return found


def _no_srdf(urdf: UrdfFile) -> Finding:
    """No SRDF: the posture is the neutral one; SRDF files nearby are named."""
    path = Path(urdf.path)
    nearby = sorted({str(candidate) for folder in (path.parent, path.parent.parent / "srdf")
                     if folder.is_dir() for candidate in folder.glob("*.srdf")})
    where = f"{path.with_suffix('.srdf').name} beside it or in ../srdf/"
    if nearby:
        return urdf.finding(
            "warning", "srdf-not-found", "the posture", f"no SRDF named {where}, so the posture is pinocchio's neutral "
            f"configuration (every joint at 0); SRDF files nearby: {listed(nearby, 3)}",
            f"pass srdf= (--srdf) with the one that belongs to this robot, e.g. --srdf {nearby[0]}", None,
            candidates=nearby)
    return urdf.finding("note", "srdf-not-found", "the posture", f"no SRDF ({where}): the posture is pinocchio's "
                        "neutral configuration (every joint at 0)", "give a standing posture in an SRDF group state "
                        "(--srdf)", "loader")
