"""Screenshots of the documentation site in headless Chromium, and a check of what a reader sees.

    python benchmarks/docs_screenshots.py                      # build the site, shoot, check
    python benchmarks/docs_screenshots.py --katex /tmp/katex/package/dist   # without internet

Builds the site (``mkdocs build --strict`` into a temporary folder, unless ``--site DIR``
names a built one), serves it on a local port and opens each page in headless Chromium at a
desktop window (1280 × 800 by default). For every page it

* waits for KaTeX and counts the typeset formulas and KaTeX's errors;
* measures each code block: a block whose text is wider than its box is cut off at the right
  edge (it scrolls), and the column's width in characters of the code font is reported — the
  limit ``tests/test_docs_lines.py`` holds the Markdown to;

and writes a screenshot of the places listed in :data:`SHOTS` to ``--out``
(``docs/img/screenshots/`` by default; 256 colours, to keep them small). It exits with 1 when a formula failed or a code block
is cut off on any page of the site.

KaTeX is loaded from its CDN by the pages. ``--katex DIR`` (the ``dist`` folder of the katex
npm package: ``npm pack katex@VERSION && tar xzf katex-*.tgz``) serves those requests from
disk instead, for machines without internet access.

Needs Playwright (``pip install playwright``) and a Chromium: ``--chromium PATH`` (default
``/usr/bin/chromium`` when it exists, else Playwright's own, ``playwright install chromium``).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: page → the sections to photograph (None: the top of the page), each one viewport high, or
#: ``"css:SELECTOR"``: the first element it selects, alone.
SHOTS = {
    "": [None],
    "concepts/": [None, "the-equation-of-motion"],
    "controllers/": ["balance-balancecontroller", "how-hard-a-push-can-the-soles-take-push_bounds"],
    "gallery/": [None, "walk", "com-sway", "css:article table"],
    "cli/": ["demos"],
    "api/tasks/": ["tsid_py.tasks.JointTask"],
}

#: The KaTeX CDN prefix the site loads (mkdocs.yml's extra_javascript).
CDN = re.compile(r"https://cdn\.jsdelivr\.net/npm/katex@[^/]+/dist/(.*)")

#: Chromium's flags for a sandboxed, offline-friendly headless run.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

MEASURE = """() => {
  const blocks = [...document.querySelectorAll("article pre > code")];
  let charWidth = null;
  if (blocks.length) {              // a span in a code block has the code's font and size
    const probe = document.createElement("span");
    probe.textContent = "x".repeat(100);
    blocks[0].appendChild(probe);
    charWidth = probe.getBoundingClientRect().width / 100;
    probe.remove();
  }
  const cut = blocks.filter(code => code.scrollWidth > code.clientWidth + 1)
                    .map(code => code.textContent.split("\\n").reduce((a, b) => a.length > b.length ? a : b));
  const column = blocks.length ? Math.max(...blocks.map(code => {
      const style = getComputedStyle(code);
      return code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  })) : null;
  return {
    charWidth, column, columnChars: column === null ? null : Math.floor(column / charWidth),
    blocks: blocks.length, cut,
    formulas: document.querySelectorAll(".katex").length,
    raw: document.querySelectorAll(".arithmatex:not(:has(.katex, .katex-error))").length,
    errors: [...document.querySelectorAll(".katex-error")].map(e => e.title),
  };
}"""


def build_site(target: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(target)],
                   cwd=ROOT, env=env, check=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def site_pages(site: Path) -> list[str]:
    """Every page of the built site, as a path below its root ("" for the home page)."""
    pages = sorted(str(path.parent.relative_to(site)) for path in site.rglob("index.html"))
    return ["" if page == "." else page + "/" for page in pages]


def route_katex(context, katex: Path | None) -> None:
    """Answer the KaTeX CDN's requests from ``katex`` (a local ``dist`` folder)."""
    def handle(route):
        match = CDN.match(route.request.url)
        path = katex / match.group(1)
        if path.is_file():
            route.fulfill(path=str(path))
        else:
            route.abort()

    if katex is not None:
        context.route(CDN, handle)


def save_small(png: bytes, path: Path) -> None:
    """Write a screenshot in 256 colours (a third of the size; text stays sharp)."""
    import io

    from PIL import Image

    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
        path, optimize=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "screenshots")
    parser.add_argument("--katex", type=Path, help="serve KaTeX's CDN files from this dist folder")
    parser.add_argument("--chromium", help="Chromium's executable (default /usr/bin/chromium if present)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        site = args.site
        if site is None:
            site = Path(scratch) / "site"
            build_site(site)
        server, url = serve(site)
        args.out.mkdir(parents=True, exist_ok=True)
        chromium = args.chromium or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
        failures = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium,
                args=CHROMIUM_FLAGS)        # Playwright gives it a fresh profile each launch
            context = browser.new_context(viewport={"width": args.width, "height": args.height})
            route_katex(context, args.katex)
            page = context.new_page()
            columns = set()
            for path in site_pages(site):
                page.goto(url + path, wait_until="networkidle")
                page.wait_for_function("() => !document.querySelector('.arithmatex') || "
                                       "document.querySelector('.katex, .katex-error')", timeout=10_000)
                found = page.evaluate(MEASURE)
                if found["columnChars"] is not None:
                    columns.add(found["columnChars"])
                problems = [f"{len(found['cut'])} code blocks cut off"] if found["cut"] else []
                problems += [f"{len(found['errors'])} KaTeX errors"] if found["errors"] else []
                problems += [f"{found['raw']} formulas not typeset"] if found["raw"] else []
                print(f"{path or '/':34s} {found['formulas']:4d} formulas, {found['blocks']:3d} code blocks"
                      + (": " + "; ".join(problems) if problems else ""))
                for line in found["cut"]:
                    print(f"    cut: {line.strip()[:100]}")
                for error in found["errors"]:
                    print(f"    KaTeX: {error[:200]}")
                if problems:
                    failures.append(path)
                for anchor in SHOTS.get(path, []):
                    name = (path.strip("/").replace("/", "-") or "home")
                    if anchor is not None and anchor.startswith("css:"):
                        save_small(page.locator(anchor[4:]).first.screenshot(), args.out / f"{name}-table.png")
                        continue
                    if anchor is not None:
                        page.goto(f"{url}{path}#{anchor}", wait_until="networkidle")
                    else:
                        page.evaluate("window.scrollTo(0, 0)")
                    page.wait_for_timeout(300)
                    save_small(page.screenshot(), args.out / (name + (f"-{anchor}" if anchor else "") + ".png"))
            browser.close()
        server.shutdown()
    print(f"code column at {args.width} × {args.height}: {', '.join(map(str, sorted(columns)))} characters")
    if failures:
        print(f"{len(failures)} pages with problems", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
