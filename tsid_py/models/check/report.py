"""What the model check reports: :class:`Finding` (one problem, with its fix) and
:class:`CheckReport` (all of them, and what the loader derived). See
:mod:`tsid_py.models.check`."""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import asdict, dataclass, field

import numpy as np

#: Severities, most serious first.
SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Finding:
    """One problem of a robot file.

    severity : ``"error"``, ``"warning"`` or ``"note"`` (see the module).
    code : a stable identifier of the kind of problem, e.g. ``"posture-outside-range"``.
    file : the file the element is in (the URDF, the SRDF, a mesh, the MJCF file).
    element : what is wrong, named as in the file: ``"joint 'LLEG_KNEE'"``, ``"link 'head'"``,
        ``"frame 'LF_HAA'"``, ``"<end_effector parent_link='r_foot'>"``.
    problem : what is wrong, with its numbers (SI units: m, rad, kg, N·m).
    fix : what was done about it (``applied_by`` says by whom) or what to change.
    applied_by : ``"loader"`` (tp.robots.load), ``"library"`` (the controller's constraints),
        ``"harness"`` (the MuJoCo harness) when the fix is already applied; None when it is
        the user's to apply.
    values : the numbers, by name, for scripts (the JSON report).
    """

    severity: str
    code: str
    file: str
    element: str
    problem: str
    fix: str
    applied_by: str | None = None
    values: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {self.severity!r}")

    def to_dict(self) -> dict:
        """The finding as JSON-ready values (numpy numbers and arrays made plain)."""
        return plain(asdict(self))

    def describe(self, width: int = 100) -> str:
        """The finding as text: severity, element, file and code; the problem; the fix — each
        wrapped at ``width`` characters, indented under the first."""
        who = f"applied by the {self.applied_by}" if self.applied_by else "to do"
        lines = []
        for first, text in ((f"{self.severity.upper():8s}", f"{self.element} ({os.path.basename(self.file)}) "
                                                            f"[{self.code}]"),
                            (" " * 8, self.problem), (" " * 8, f"fix ({who}): {self.fix}")):
            lines.append(textwrap.fill(text, width, initial_indent=first, subsequent_indent=" " * 8,
                                       break_on_hyphens=False, break_long_words=False))
        return "\n".join(lines)


@dataclass
class CheckReport:
    """What :func:`check_robot` found: ``findings`` (errors first) and ``facts`` (what the
    loader derived: base, posture, feet, mass, CoM height, …) of the file at ``path``."""

    path: str
    findings: list[Finding]
    facts: dict

    def of(self, severity: str) -> list[Finding]:
        """The findings of one severity."""
        return [finding for finding in self.findings if finding.severity == severity]

    @property
    def errors(self) -> list[Finding]:
        """The ``error`` findings."""
        return self.of("error")

    @property
    def warnings(self) -> list[Finding]:
        """The ``warning`` findings."""
        return self.of("warning")

    @property
    def notes(self) -> list[Finding]:
        """The ``note`` findings."""
        return self.of("note")

    def codes(self, severity: str | None = None) -> set[str]:
        """The codes of the findings (of one severity)."""
        return {finding.code for finding in self.findings if severity in (None, finding.severity)}

    def to_dict(self) -> dict:
        """The report as JSON-ready values: ``file``, ``counts`` per severity, ``facts``,
        ``findings``."""
        return {"file": self.path, "counts": {severity: len(self.of(severity)) for severity in SEVERITIES},
                "facts": plain(self.facts), "findings": [finding.to_dict() for finding in self.findings]}

    def format(self) -> str:
        """The report as text: a summary of the facts, then each finding."""
        facts = self.facts
        lines = [f"{self.path}"]
        if "base" in facts:
            lines.append(f"  {facts['base']} base, {facts.get('nv', '?')} dofs, {facts.get('mass_kg', 0):.2f} kg; "
                         f"posture {facts.get('posture') or 'neutral'} ({facts.get('posture_source', '-')})")
        if facts.get("feet"):
            shape = (f"soles {facts['sole_size'][0]:.3f} x {facts['sole_size'][1]:.3f} m" if facts.get("sole_size")
                     else f"point feet, radius {facts.get('foot_radius', 0):.3f} m")
            lines.append(f"  feet {', '.join(facts['feet'])} ({shape}, from {facts.get('feet_source')}); "
                         f"CoM {facts.get('com_height_m', float('nan')):.3f} m above the ground")
        if facts.get("gravity_torque_ratio") is not None:
            lines.append(f"  holding the posture needs {facts['gravity_torque_ratio']:.2f} of the torque limits "
                         f"(most at {facts.get('gravity_torque_joint')})")
        counts = ", ".join(f"{len(self.of(severity))} {severity}{'s' if len(self.of(severity)) != 1 else ''}"
                           for severity in SEVERITIES)
        lines.append(f"  {counts}")
        return "\n".join(lines + [""] + [finding.describe() + "\n" for finding in self.findings]).rstrip() + "\n"


def finding(severity: str, code: str, file: str, element: str, problem: str, fix: str, applied_by: str | None = None,
            **values) -> Finding:
    """A :class:`Finding`, its ``values`` given as keyword arguments."""
    return Finding(severity, code, file, element, problem, fix, applied_by, values)


def plain(value):
    """``value`` with numpy scalars and arrays turned into Python numbers and lists."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def report_json(report: CheckReport) -> str:
    """The report as indented JSON text."""
    return json.dumps(report.to_dict(), indent=2)
