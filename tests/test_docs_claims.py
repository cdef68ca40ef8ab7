"""What the documentation claims about the code is read from the code or checked here.

* Every command-line option a page names exists: it is in the help of a ``tsid-py`` command
  (``demo``, ``bench``, ``replay``, ``inverse-dynamics``, ``check-robot``), or a script of
  ``benchmarks/`` or ``examples/`` declares it, or it is one of :data:`OTHER_TOOLS`' options.
* Defaults, constants and numbers measured by the demos are written in the pages as macros
  that the documentation build replaces from the code and from the demos' JSON
  (``docs/hooks.py``): ``{{ default tsid_py.PlanarContact mu }}``,
  ``{{ value tsid_py.scenarios.push_recovery.PUSH_PER_KG }}``,
  ``{{ demo walk speed_mps .2f }}``. Each macro of the pages resolves here (a demo's key
  against the keys its summary has), so a renamed parameter or summary key fails the tests
  before it fails the build.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from docs import hooks

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
#: Options of other programs the pages show (mkdocs build --strict, pytest, pip).
OTHER_TOOLS = {"--strict", "--quiet"}
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def _help(argv: list[str]) -> str:
    from tsid_py.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main([*argv, "--help"])
    return out.getvalue()


def known_options() -> set[str]:
    """Every option of the ``tsid-py`` commands' help, and every ``"--option"`` literal of
    the scripts in ``benchmarks/`` and ``examples/``."""
    texts = [_help(argv) for argv in (["demo"], ["bench"], ["replay"], ["inverse-dynamics"], ["check-robot"])]
    texts += [path.read_text() for folder in ("benchmarks", "examples") for path in (ROOT / folder).glob("*.py")]
    texts.append((ROOT / "tsid_py" / "tools" / "scripts.py").read_text())
    return set(_OPTION.findall("\n".join(texts))) | OTHER_TOOLS


def test_every_option_the_pages_name_exists():
    known = known_options()
    assert {"--push-direction", "--step-recovery", "--terrain", "--reduce-residuals", "--peer"} <= known
    unknown = sorted({f"{page.name}: {option}" for page in PAGES for option in _OPTION.findall(page.read_text())
                      if option not in known})
    assert not unknown, "options the pages name that no command or script has:\n  " + "\n  ".join(unknown)


def test_every_macro_of_the_pages_resolves():
    """Defaults and values from the code; a demo's measure from its JSON in ``docs/generated``
    when a documentation build has made it (else the build checks it: a macro that does not
    resolve fails it)."""
    macros = [(page.name, match) for page in PAGES for match in hooks.MACRO.finditer(page.read_text())]
    assert macros, "the pages use no macro"
    for page, match in macros:
        kind, arguments = match.group(1), match.group(2).split()
        if kind == "demo" and not (hooks.GENERATED / f"{arguments[0]}.json").exists():
            continue                      # resolved by the build that runs the demo
        try:
            text = hooks.expand(match)
        except Exception as error:        # noqa: BLE001 - named in the failure
            pytest.fail(f"{page}: {match.group(0)}: {type(error).__name__}: {error}")
        assert text and "{{" not in text


def test_a_macro_reads_the_code_it_names():
    expand = lambda text: hooks.MACRO.sub(hooks.expand, text)
    assert expand("{{ default tsid_py.PlanarContact length }}") == "0.2"
    assert expand("{{ default tsid_py.PointContact mu .2f }}") == "0.70"
    with pytest.raises(KeyError, match="no_such"):
        expand("{{ default tsid_py.PlanarContact no_such }}")
    with pytest.raises(ValueError, match="macro"):
        expand("{{ guess tsid_py.PlanarContact }}")


#: A page's runnable example and its output: a Python block, then "prints (… checks that it
#: still does):" and a text block.
_PRINTS = re.compile(r"```python\n((?:(?!```).)*)```\s*\n+prints \(`tests/test_docs_claims.py` checks that it still does\):"
                     r"\s*\n+```text\n(.*?)```", flags=re.S)
PRINTING = [(page.name, match) for page in PAGES for match in _PRINTS.finditer(page.read_text())]


@pytest.mark.parametrize("page, match", PRINTING, ids=[f"{page}:{match.start()}" for page, match in PRINTING])
def test_a_page_shows_what_its_example_prints(page, match):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(match.group(1), page, "exec"), {})
    assert out.getvalue() == match.group(2)


def test_the_pages_that_show_an_output_are_found():
    assert {"report.md", "troubleshooting.md"} <= {page for page, _ in PRINTING}


def test_a_page_s_summary_and_printed_lines_become_the_demo_s_table_and_text(tmp_path, monkeypatch):
    """``<!-- summary: NAME -->`` and ``<!-- printed: NAME -->`` read ``docs/generated/NAME.json``
    and word it as ``tsid-py demo`` does; a macro in the same page is replaced."""
    import json

    summary = {"demo": "arm", "robot": "panda", "fell": False, "rms_tracking_error": 0.00072,
               "max_tracking_error": 0.004, "median_step_us": 66.5, "p99_step_us": 4233.5, "simulated_time": 4.0}
    (tmp_path / "arm.json").write_text(json.dumps(summary))
    monkeypatch.setattr(hooks, "GENERATED", tmp_path)
    page = hooks.on_page_markdown("A\n<!-- summary: arm -->\n\n<!-- printed: arm -->\n{{ demo arm simulated_time g }} s")
    assert "<!--" not in page and "{{" not in page
    assert "| hand tracking error | RMS 0.7 mm, largest 4.0 mm |" in page
    assert "$ tsid-py demo arm\ntsid-py demo arm (panda)\n" in page and page.endswith("\n4 s")
