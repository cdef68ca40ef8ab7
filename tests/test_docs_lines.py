"""Every line of code the documentation shows fits its column: nothing is cut off at the right.

The column is the width of a code block in the site's theme (Material for MkDocs) at a desktop
window: ``python benchmarks/docs_screenshots.py`` measures it in headless Chromium — 80
characters of the code font at 1280 × 800 and at 1920 × 1080 (the theme scales its fonts with
the window, so the count stays), 87 below 1220 px where the navigation folds away. A block
nested in a list item is narrower by its indentation: 76 characters (in an admonition, whose
font is smaller, 97: the list's 76 is held to both). The script also reports any block the
browser shows cut off.

Checked: the fenced blocks of every page in ``docs/``, the files they include
(``--8<-- "examples/x.py"``) and the literal blocks of the docstrings the API reference shows.
A character's width is its display width: combining marks (``q̈``) take none.
"""

from __future__ import annotations

import re
import unicodedata
from html import unescape
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: Characters of the code font in a top-level code block at a desktop window.
COLUMN = 80
#: In a block nested in a list item (or an admonition, which holds more).
NESTED_COLUMN = 76

_FENCE = re.compile(r"^(\s*)(```+|~~~+)")
_SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')
_SNIPPET_LINE = re.compile(r'^(\s*)--8<--\s+"([^"]+)"\s*$', flags=re.M)


def display_width(line: str) -> int:
    """Columns ``line`` takes in a monospace font: combining marks none, wide characters two."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in line.rstrip("\n"))


def code_blocks(text: str) -> list[tuple[int, int, list[str]]]:
    """``(first line number, indentation, lines)`` of each fenced block of Markdown ``text``,
    with the lines' common indentation removed and snippets expanded."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        indent, marker, body, start = len(fence.group(1)), fence.group(2), [], i + 1
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(marker):
            snippet = _SNIPPET.match(lines[i])
            if snippet:
                body += (ROOT / snippet.group(1)).read_text().split("\n")
            else:
                body.append(lines[i][indent:])
            i += 1
        blocks.append((start, indent, body))
        i += 1
    return blocks


def too_wide(blocks, where: str) -> list[str]:
    found = []
    for start, indent, body in blocks:
        limit = NESTED_COLUMN if indent else COLUMN
        for offset, line in enumerate(body):
            if display_width(line) > limit:
                found.append(f"{where}:{start + offset + 1}: {display_width(line)} > {limit}: {line.strip()[:60]}")
    return found


PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(DOCS)) for page in PAGES])
def test_every_code_line_of_the_page_fits_the_column(page):
    found = too_wide(code_blocks(page.read_text()), str(page.relative_to(ROOT)))
    assert not found, f"{len(found)} code lines wider than the column:\n" + "\n".join(found)


_DIRECTIVE = re.compile(r"^::: (\S+)", re.M)


def documented_objects():
    """The griffe objects the API reference renders: each ``::: NAME`` of the pages, with its
    public members (a module's own and those its ``__all__`` re-exports), not its submodules."""
    griffe = pytest.importorskip("griffe")
    package = griffe.load("tsid_py", search_paths=[str(ROOT)], resolve_aliases=True, resolve_external=False)
    names = sorted({name for page in PAGES for name in _DIRECTIVE.findall(page.read_text())})
    seen = {}

    def visit(obj, top):
        if obj.is_alias:
            try:
                obj = obj.final_target
            except Exception:          # an alias to another package (numpy, pinocchio)
                return
        if obj.path in seen or not obj.path.startswith("tsid_py") or (obj.is_module and not top):
            return
        seen[obj.path] = obj
        exported = set(getattr(obj, "exports", None) or ())
        for name, member in obj.members.items():
            if not name.startswith("_") and (not member.is_alias or name in exported):
                visit(member, False)

    for name in names:
        visit(package[name.removeprefix("tsid_py.")] if name != "tsid_py" else package, True)
    return list(seen.values())


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(DOCS)) for page in PAGES])
def test_every_code_block_the_page_renders_fits_the_column(page):
    """Every block the page renders as code, indented ones included (the fenced ones nested
    in a list or an admonition are held to their narrower column by the test above)."""
    markdown = pytest.importorskip("markdown")
    text = _SNIPPET_LINE.sub(lambda match: (ROOT / match.group(2)).read_text(), page.read_text())
    html = markdown.markdown(text, extensions=["admonition", "tables", "md_in_html", "pymdownx.superfences",
                                               "pymdownx.details", "pymdownx.arithmatex"])
    found = [f"{page.name}: {display_width(line)} > {COLUMN}: {line.strip()[:60]}"
             for block in re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", html, flags=re.S)
             for line in unescape(block).split("\n") if display_width(line) > COLUMN]
    assert not found, f"{len(found)} code lines wider than the column:\n" + "\n".join(found)


def test_the_docstrings_code_blocks_fit_the_column():
    """The code blocks of every docstring the API reference shows, rendered as it renders them
    (``docs/griffe_markdown.py``, then Markdown), inside a documented object's body."""
    markdown = pytest.importorskip("markdown")
    from docs.griffe_markdown import to_markdown

    found = []
    for obj in documented_objects():
        if obj.docstring is None:
            continue
        html = markdown.markdown(to_markdown(obj.docstring.value), extensions=["fenced_code"])
        for block in re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", html, flags=re.S):
            for line in unescape(block).split("\n"):
                if display_width(line) > NESTED_COLUMN:
                    found.append(f"{obj.path}: {display_width(line)} > {NESTED_COLUMN}: {line.strip()[:60]}")
    assert not found, f"{len(found)} docstring code lines wider than the column:\n" + "\n".join(found)


def test_a_line_one_character_too_wide_is_found():
    nested = "* item\n\n    ```text\n    q̈" + "z" * (NESTED_COLUMN - 1) + "\n    q̈" + "z" * NESTED_COLUMN + "\n    ```\n"
    page = "```python\n" + "x" * COLUMN + "\n" + "y" * (COLUMN + 1) + "\n```\n\n" + nested
    found = too_wide(code_blocks(page), "page")
    assert [entry.split(":")[1] for entry in found] == ["3", "10"]
