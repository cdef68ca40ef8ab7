"""A griffe extension that turns the library's docstrings into Markdown for mkdocstrings.

The docstrings are written for readers of the source: Sphinx roles (``:class:`~tsid_py.Robot```),
double-backtick literals and numpy-like sections whose entries read ``name : what it is``
(units and maths in prose, no separate type line). mkdocstrings renders them as Markdown
(``docstring_style: null`` in ``mkdocs.yml``), after this extension has

* replaced each role by an inline code span of its target (the last name only with ``~``);
* turned each ``Title`` / ``-----`` section into a bold title and a bullet list with one item
  per entry, ``name``: its description (the entry's indented lines joined);
* ended a paragraph that introduces a literal block (``::``) with a single colon;
* turned Sphinx's maths into what ``pymdownx.arithmatex`` typesets: the role
  ``:math:`x^2``` into ``$x^2$``, a ``.. math::`` directive and its indented lines into a
  ``$$ … $$`` block (lines ending in ``\\`` or aligned on ``&`` inside ``aligned``); Unicode
  super- and subscripts (``δ²``, ``Jᵀ``, ``x₀``) become ``^{}`` and ``_{}`` there, which
  KaTeX reads.
"""

from __future__ import annotations

import re

from griffe import Extension

_ROLE = re.compile(r":(?:class|meth|func|data|mod|attr|exc|obj|py:\w+):`(~?)([^`]+)`")
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ᵀ", "0123456789+-T"))
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖ", "0123456789ijk"))
_SCRIPT_RUN = re.compile(f"([{''.join(_SUPERSCRIPTS)}]+)|([{''.join(_SUBSCRIPTS)}]+)")
_ENTRY = re.compile(r"^(\S[^:]*?)\s+:\s+(.*)$")


def _role(match: re.Match) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def latex(text: str) -> str:
    """``text`` with Unicode super- and subscripts written as TeX's ``^{…}`` and ``_{…}``."""
    def script(match: re.Match) -> str:
        if match.group(1):
            return "^{" + "".join(_SUPERSCRIPTS[c] for c in match.group(1)) + "}"
        return "_{" + "".join(_SUBSCRIPTS[c] for c in match.group(2)) + "}"

    return _SCRIPT_RUN.sub(script, text.replace("½", r"\tfrac12"))


def _math_blocks(lines: list[str]) -> list[str]:
    """Each ``.. math::`` directive and its indented body as a ``$$`` block."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() != ".. math::":
            out.append(lines[i])
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        i += 1
        body = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i].strip())
            i += 1
        while body and not body[-1]:
            body.pop()
        text = latex("\n".join(line for line in body if line))
        if "&" in text or "\\\\" in text:
            text = "\\begin{aligned}\n" + text + "\n\\end{aligned}"
        out += ["", " " * indent + "$$", *(" " * indent + line for line in text.split("\n")), " " * indent + "$$", ""]
    return out


def _is_underline(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= 3 and set(stripped) == {"-"}


def _sections(lines: list[str]) -> list[str]:
    """Numpy-like sections as a bold title and a bullet list."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and _is_underline(lines[i + 1]) and not line.startswith(" "):
            out += ["", f"**{line.strip()}**", ""]
            i += 2
            while i < len(lines):
                entry = _ENTRY.match(lines[i])
                if entry is None:
                    break
                text = [entry.group(2).strip()]
                i += 1
                while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
                    text.append(lines[i].strip())
                    i += 1
                names = ", ".join(f"`{name.strip()}`" for name in entry.group(1).split(","))
                out.append(f"- {names}: {' '.join(text)}")
            out.append("")
            continue
        out.append(line)
        i += 1
    return out


def to_markdown(text: str) -> str:
    """The Markdown form of one docstring (see the module's description)."""
    text = _ROLE.sub(_role, text)
    text = _MATH_ROLE.sub(lambda match: f"${latex(match.group(1))}$", text)
    text = "\n".join(_math_blocks(text.split("\n")))
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return "\n".join(_sections(text.split("\n")))


class SphinxToMarkdown(Extension):
    """Rewrites every docstring with :func:`to_markdown` as griffe loads it."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
