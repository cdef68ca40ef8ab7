"""MkDocs hooks: the gallery's figures, summaries and the home page's clip, made by the build.

Before the pages are collected, every demo of ``tsid-py demo`` runs once with its default
settings (``--plot``, ``--json``; the balance demo also ``--video``) into ``docs/generated/``,
which git ignores: the repository keeps no binary, and the figures always show the code being
documented. A file already there is kept (delete the folder to refresh it). Each demo runs
in its own process, as a user would run it, so that MuJoCo picks its off-screen OpenGL
before it is imported.

In the pages, a line ``<!-- summary: NAME -->`` becomes a table of that demo's summary.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.gallery")

GENERATED = Path(__file__).parent / "generated"
DEMOS = ("balance", "com-sway", "single-leg", "walk", "quadruped", "trot", "arm", "reconstruct")
#: The demo whose clip the home page shows.
CLIP = "balance"


def _run_demo(name: str) -> None:
    plot, summary, video = (GENERATED / f"{name}{suffix}" for suffix in (".png", ".json", ".mp4"))
    wanted = [plot, summary] + ([video] if name == CLIP else [])
    if all(path.exists() for path in wanted):
        return
    command = [sys.executable, "-m", "tsid_py.cli", "demo", name, "--plot", str(plot), "--json", str(summary)]
    if name == CLIP:
        command += ["--video", str(video)]
    tic = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    if result.returncode not in (0, 1) or not all(path.exists() for path in wanted):    # 1: the robot fell
        raise RuntimeError(f"gallery: {' '.join(command[2:])} failed ({result.returncode}):\n{result.stderr}")
    log.info("gallery: %s in %.1f s", name, time.perf_counter() - tic)


def _human_gait_figure() -> None:
    """The Human motion page's figure: ``benchmarks/human_gait.py`` on the real trial (a few
    Monte-Carlo draws: the band's shape, not its timing)."""
    figure = GENERATED / "human-gait.png"
    if figure.exists():
        return
    script = Path(__file__).parent.parent / "benchmarks" / "human_gait.py"
    command = [sys.executable, str(script), "--draws", "8", "--workers", "1", "--figure", str(figure)]
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    if result.returncode != 0 or not figure.exists():
        raise RuntimeError(f"human motion figure: {' '.join(command[1:])} failed ({result.returncode}):\n"
                           f"{result.stderr}")


def on_pre_build(config, **kwargs) -> None:
    GENERATED.mkdir(exist_ok=True)
    for name in DEMOS:
        _run_demo(name)
    _human_gait_figure()


def _format(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and all(isinstance(item, (int, float)) for item in value):
        return "(" + ", ".join(_format(item) for item in value) + ")"
    if isinstance(value, list):
        return "; ".join(_format(item) for item in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{key} {_format(item)}" for key, item in value.items())
    return "—" if value is None else str(value)


def summary_table(name: str) -> str:
    """A Markdown table of ``docs/generated/NAME.json``."""
    summary = json.loads((GENERATED / f"{name}.json").read_text())
    rows = [f"| `{key}` | {_format(value)} |" for key, value in summary.items() if key not in ("demo", "robot")]
    return "\n".join(["| summary | value |", "| --- | --- |", *rows])


def on_page_markdown(markdown: str, **kwargs) -> str:
    lines = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("<!-- summary:") and stripped.endswith("-->"):
            lines.append(summary_table(stripped[len("<!-- summary:"):-3].strip()))
        else:
            lines.append(line)
    return "\n".join(lines)
