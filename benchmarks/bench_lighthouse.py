"""Lighthouse (mobile, its default simulated throttling) against the production server.

Run: .venv/bin/python benchmarks/bench_lighthouse.py [--runs 3]
Installs the pinned Lighthouse of benchmarks/lighthouse/package-lock.json with `npm ci`
the first time, serves the app with the Dockerfile's gunicorn command, and audits the page
with Debian's chromium. Prints the median over the runs of each category's score and of
first contentful paint, largest contentful paint, total blocking time, speed index, layout
shift and the bytes transferred, and the same for the API documentation page (a page of
text and one stylesheet) as the baseline measured in the same run. Goal (issue 11):
performance >= 0.95, first contentful paint <= 1.8 s, accessibility, best practices and SEO
1.0, no layout shift.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.server import Production
from tests.browser.conftest import ARGS, CHROMIUM

HERE = Path(__file__).resolve().parent / "lighthouse"
LIGHTHOUSE = HERE / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {"first-contentful-paint": "FCP", "largest-contentful-paint": "LCP",
           "total-blocking-time": "TBT", "speed-index": "SI", "cumulative-layout-shift": "CLS",
           "total-byte-weight": "sent"}


def install() -> None:
    """npm ci of the pinned Lighthouse, once: its lock file says exactly what is installed."""
    if not LIGHTHOUSE.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


def audit(url: str) -> dict:
    """One Lighthouse run: {category: score, metric: value in ms (CLS unitless)}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        flags = " ".join(["--headless=new", *ARGS])
        subprocess.run([str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
                        f"--chrome-flags={flags}", "--only-categories=" + ",".join(CATEGORIES)],
                       check=True, env={"CHROME_PATH": CHROMIUM, "PATH": "/usr/bin:/bin"})
        report = json.loads(out.read_text())
    figures = {c: report["categories"][c]["score"] for c in CATEGORIES}
    figures.update({m: report["audits"][m]["numericValue"] for m in METRICS})
    return figures


def medians(runs: list[dict]) -> dict:
    """Each figure's median over the runs."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def line(label: str, med: dict) -> str:
    scores = "  ".join(f"{c} {med[c]:.2f}" for c in CATEGORIES)
    def shown(metric: str, value: float) -> str:
        if metric == "cumulative-layout-shift":
            return f"{value:.3f}"
        return f"{value / 1024:.0f} KiB" if metric == "total-byte-weight" else f"{value:.0f} ms"
    metrics = "  ".join(f"{short} {shown(m, med[m])}" for m, short in METRICS.items())
    return f"{label:<10} {scores}  {metrics}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    install()
    page, docs = [], []
    with tempfile.TemporaryDirectory() as logs, Production(Path(logs)) as server:
        base = f"http://127.0.0.1:{server.port}/"
        for _ in range(args.runs):  # alternately, so a noisy neighbour slows both alike
            page.append(audit(base))
            docs.append(audit(base + "api/docs"))
    page, docs = medians(page), medians(docs)
    print(f"Lighthouse, mobile, median of {args.runs} runs each")
    print(line("page", page))
    print(line("api/docs", docs))
    fcp, perf = page["first-contentful-paint"], page["performance"]
    ratio = fcp / docs["first-contentful-paint"]
    print(f"first contentful paint: {ratio:.1f}× the API docs page's; "
          f"goals: performance {perf:.2f} (>= 0.95: {'meets' if perf >= 0.95 else 'misses'}), "
          f"FCP {fcp:.0f} ms (<= 1800 ms: {'meets' if fcp <= 1800 else 'misses'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
