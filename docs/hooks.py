"""MkDocs hooks: the gallery's figures, clips and summaries, made by the build.

Before the pages are collected, every demo of ``tsid-py demo`` runs once with its default
settings (``--plot``, ``--json``; the demos of :data:`CLIPS` also ``--video``) into
``docs/generated/``, which git ignores: the repository keeps no binary, and the figures always
show the code being documented. A file already there is kept (delete the folder to refresh
it). Each demo runs in its own process, as a user would run it (so that MuJoCo picks its
off-screen OpenGL before it is imported), as many at once as the machine has cores.

In the pages, a line ``<!-- summary: NAME -->`` becomes a table of that demo's summary, rounded
as ``tsid-py demo NAME`` prints it (:mod:`tsid_py.scenarios.summary_text`), a line
``<!-- printed: NAME -->`` the text the command printed, and a macro becomes
what it reads, so that what the pages quote is the code's and the demos' (an optional format
spec last, as Python's ``format`` takes it):

* ``{{ default tsid_py.PlanarContact mu }}``: a parameter's default value in a signature (a
  class's ``__init__``);
* ``{{ value tsid_py.scenarios.push_recovery.PUSH_PER_KG }}``: a module's constant;
* ``{{ demo walk speed_mps .2f }}``: a measure in the demo's JSON summary (a dotted key for a
  nested one: ``push_bounds.+x``);
* the format ``tex`` writes a power of ten for maths: ``$ {{ value M.WEIGHT tex }} $``.

A macro that does not resolve fails the build (``tests/test_docs_claims.py`` checks them too).
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.gallery")

GENERATED = Path(__file__).parent / "generated"
ROOT = Path(__file__).parent.parent
DEMOS = ("balance", "com-sway", "single-leg", "walk", "quadruped", "trot", "arm", "reconstruct")
#: The demos whose run is also filmed (the home page shows the balance clip).
CLIPS = ("balance", "walk", "trot", "arm")
#: The demos by their CPU time in the build, longest first (measured: walk 36 s, balance 22 s,
#: trot 13 s, the others 5 to 8 s; the human-gait figure 9 s).
LONGEST_FIRST = ("walk", "balance", "trot", "arm", "single-leg", "quadruped", "com-sway", "reconstruct")


def _run(command: list[str], wanted: list[Path], ok=(0,)) -> tuple[float, float]:
    """Run ``command`` (a fresh Python process) unless every ``wanted`` file exists; its wall
    and CPU seconds (the process's user and system time, its threads included)."""
    if all(path.exists() for path in wanted):
        return 0.0, 0.0
    tic = time.perf_counter()
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                               os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen([sys.executable, *command], stdout=subprocess.DEVNULL, stderr=stderr, env=env,
                                   text=True)
        if hasattr(os, "wait4"):             # POSIX: the child's own CPU time
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode, busy = os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        else:
            process.wait()
            busy = float("nan")
        stderr.seek(0)
        if process.returncode not in ok or not all(path.exists() for path in wanted):
            raise RuntimeError(f"gallery: {' '.join(command)} failed ({process.returncode}):\n{stderr.read()}")
    return time.perf_counter() - tic, busy


def _demo(name: str) -> tuple[str, tuple[float, float]]:
    plot, summary, video = (GENERATED / f"{name}{suffix}" for suffix in (".png", ".json", ".mp4"))
    wanted = [plot, summary] + ([video] if name in CLIPS else [])
    command = ["-m", "tsid_py.cli", "demo", name, "--plot", str(plot), "--json", str(summary)]
    if name in CLIPS:
        command += ["--video", str(video)]
    return name, _run(command, wanted, ok=(0, 1))           # 1: the robot fell, which the page shows


def _human_gait_figure() -> tuple[str, tuple[float, float]]:
    """The Human motion page's figure: ``benchmarks/human_gait.py`` on the real trial (a few
    Monte-Carlo draws: the band's shape, not its timing)."""
    figure = GENERATED / "human-gait.png"
    script = ROOT / "benchmarks" / "human_gait.py"
    return "human gait", _run([str(script), "--draws", "8", "--workers", "1", "--figure", str(figure)], [figure])


def on_pre_build(config, **kwargs) -> None:
    GENERATED.mkdir(exist_ok=True)
    tic = time.perf_counter()
    # the longest first (the walk and balance clips), so that the last job to end starts early
    jobs = [lambda name=name: _demo(name) for name in sorted(DEMOS, key=LONGEST_FIRST.index)] + [_human_gait_figure]
    cpu = 0.0
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for name, (seconds, busy) in pool.map(lambda job: job(), jobs):
            if seconds:
                log.info("gallery: %s in %.1f s (CPU %.1f s)", name, seconds, busy)
                cpu += busy
    log.info("gallery: ready in %.1f s (CPU %.1f s)", time.perf_counter() - tic, cpu)


def summary_table(name: str) -> str:
    """A Markdown table of ``docs/generated/NAME.json``, as ``tsid-py demo NAME`` prints it."""
    sys.path.insert(0, str(ROOT))
    from tsid_py.scenarios.summary_text import summary_rows

    summary = json.loads((GENERATED / f"{name}.json").read_text())
    rows = [f"| {label} | {text} |" for label, text in summary_rows(summary)]
    return "\n".join([f"| `tsid-py demo {name}` | |", "| --- | --- |", *rows])


#: ``{{ KIND ARGUMENTS }}`` (see the module).
MACRO = re.compile(r"\{\{\s*(\w+)\s+([^{}]*?)\s*\}\}")


def _resolve(dotted: str):
    """The object a dotted name names: the longest importable module, then attributes (or
    a mapping's keys)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = obj[name] if isinstance(obj, dict) else getattr(obj, name)
        return obj
    raise ImportError(f"nothing importable in {dotted!r}")


def _formatted(value, spec: str) -> str:
    """``value`` by Python's format ``spec``, or ``tex``: a power of ten as TeX writes it
    inside maths (``1e-05`` → ``10^{-5}``, ``2.5e-3`` → ``2.5 \\times 10^{-3}``)."""
    if spec != "tex":
        return format(value, spec) if spec else str(value)
    mantissa, exponent = f"{float(value):e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else f"{mantissa} \\times {power}"


def _demo_value(name: str, key: str):
    value = json.loads((GENERATED / f"{name}.json").read_text())
    for part in key.split("."):
        value = value[part]
    return value


def expand(match: re.Match) -> str:
    """The text of one :data:`MACRO` match."""
    sys.path.insert(0, str(ROOT))
    kind, arguments = match.group(1), match.group(2).split()
    if kind == "default" and len(arguments) in (2, 3):
        target = _resolve(arguments[0])
        parameters = inspect.signature(target.__init__ if inspect.isclass(target) else target).parameters
        if arguments[1] not in parameters:
            raise KeyError(f"{arguments[0]} has no parameter {arguments[1]!r}")
        value = parameters[arguments[1]].default
        if value is inspect.Parameter.empty:
            raise KeyError(f"{arguments[0]}'s parameter {arguments[1]!r} has no default")
    elif kind == "value" and len(arguments) in (1, 2):
        value = _resolve(arguments[0])
    elif kind == "demo" and len(arguments) in (2, 3):
        value = _demo_value(arguments[0], arguments[1])
    else:
        raise ValueError(f"unknown macro {match.group(0)!r}: {{{{ default|value|demo ... }}}}")
    spec = arguments[-1] if len(arguments) == {"default": 3, "value": 2, "demo": 3}[kind] else ""
    return _formatted(value, spec)


def printed(name: str) -> str:
    """A text block of what ``tsid-py demo NAME`` printed for ``docs/generated/NAME.json``."""
    sys.path.insert(0, str(ROOT))
    from tsid_py.scenarios.reports import JSON_HINT
    from tsid_py.scenarios.summary_text import format_summary

    summary = json.loads((GENERATED / f"{name}.json").read_text())
    return "\n".join(["```text", f"$ tsid-py demo {name}", format_summary(summary), JSON_HINT, "```"])


#: ``<!-- KIND: NAME -->`` lines and what they become.
DIRECTIVES = {"summary": summary_table, "printed": printed}


def on_page_markdown(markdown: str, **kwargs) -> str:
    markdown = MACRO.sub(expand, markdown)
    lines = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        kind = stripped[5:].split(":", 1)[0] if stripped.startswith("<!-- ") and stripped.endswith("-->") else None
        if kind in DIRECTIVES:
            lines.append(DIRECTIVES[kind](stripped[len(f"<!-- {kind}:"):-3].strip()))
        else:
            lines.append(line)
    return "\n".join(lines)
