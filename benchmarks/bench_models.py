"""The real models: load time, answer time at 16, 64 and 128 tokens, a head switch on a
text already run, and the production server's memory with both models loaded.

Run: .venv/bin/python benchmarks/bench_models.py
Goals: a head switch ≤ 30 ms; an answer for 64 tokens ≤ 300 ms on a warm server; the
production server's processes together ≤ 2 GB with both models loaded.

Each figure comes with a baseline measured in the same run, as a ratio: loading against
reading the file's bytes; an answer against the model's bare forward pass in this process
(numpy on one thread, as the server runs it); a head switch against GET /health on the
same server. Memory is the proportional set size (PSS: a page shared by k processes counts
1/k in each), so the sum over the master and its workers is what they hold together.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # as gunicorn.conf.py sets for the server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from attention_api.pages.routes import answer_asks  # noqa: E402
from attention_models import registry  # noqa: E402
from attention_models.base import package_dir  # noqa: E402
from benchmarks.server import Production, pss_bytes  # noqa: E402

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "seven",
         "wise", "owls", "watch", "from", "an", "old", "oak", "tree", "by", "the", "river"]
LENGTHS = (16, 64, 128)
ROUNDS = 7


def text_of(model, tokens: int, salt: int) -> str:
    """A text of exactly ``tokens`` of the model's tokens (specials included), unlike any
    other ``salt``'s, so that it is a new text for the server's runs."""
    words = [f"w{salt}"]

    def count() -> int:
        return len(model.tokenize(" ".join(words)).ids)

    while count() < tokens:
        words.append(WORDS[len(words) % len(WORDS)])
    while count() > tokens:
        words.pop()
    while count() < tokens:
        words.append("a")  # one token in both models
    assert count() == tokens
    return " ".join(words)


def load_times(model_id: str) -> tuple[float, float]:
    """(seconds to load the model, seconds to read its weights file's bytes), each in a
    new process."""
    code = ("import time, sys; t = time.perf_counter(); "
            "from attention_models import registry; m = registry.get(sys.argv[1]); "
            "print(time.perf_counter() - t)")
    load = subprocess.run([sys.executable, "-c", code, model_id], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    source = registry.get(model_id).info.source
    path = package_dir(source.package.replace("-", "_")) / source.file
    read = subprocess.run([sys.executable, "-c", "import time, sys, pathlib; "
                           "t = time.perf_counter(); pathlib.Path(sys.argv[1]).read_bytes(); "
                           "print(time.perf_counter() - t)", str(path)],
                          check=True, capture_output=True, text=True).stdout
    return float(load), float(read)


def post(port: int, body: dict) -> float:
    """Seconds for one POST /api/model/attention answered 200, the answer read whole."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/model/attention", data,
                                     {"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as r:
        r.read()
        assert r.status == 200
    return time.perf_counter() - start


def health(port: int) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
        r.read()
    return time.perf_counter() - start


def page_fields() -> list[str]:
    """What the real-model page asks for when only the head changes: the head's fields and
    its row's working, as the page's config block lists them (model/request.js)."""
    asks = answer_asks()["model"]
    return ["tokens", *asks["head"], *(f"working.{name}" for name in asks["working"])]


def main() -> int:
    print("Loading (each in a new process; baseline: reading the file's bytes)")
    for model_id in registry.MODEL_IDS:
        load, read = load_times(model_id)
        print(f"  {model_id:13s} {load:6.2f} s   read {read:6.3f} s   ratio {load / read:5.1f}×")

    models = {m.info.id: m for m in registry.load_all()}
    salt = iter(range(10_000))
    with tempfile.TemporaryDirectory() as logs, Production(Path(logs)) as server:
        port = server.port
        post(port, {"model": "smollm2-135m", "text": "warm up", "layer": 0, "head": 0})
        post(port, {"model": "minilm-l6", "text": "warm up", "layer": 0, "head": 0})
        print("\nAn answer for a new text (median of "
              f"{ROUNDS}; baseline: the bare forward pass in this process)")
        for model_id, model in models.items():
            for n in LENGTHS:
                served, bare = [], []
                for _ in range(ROUNDS):
                    text = text_of(model, n, next(salt))
                    served.append(post(port, {"model": model_id, "text": text, "layer": 0,
                                              "head": 0, "row": 0, "encoding": "base64"}))
                    ids = model.tokenize(text).ids
                    start = time.perf_counter()
                    model.forward(ids)
                    bare.append(time.perf_counter() - start)
                s, b = statistics.median(served), statistics.median(bare)
                goal = " (goal ≤ 300 ms)" if n == 64 else ""
                print(f"  {model_id:13s} {n:3d} tokens: {s * 1e3:6.1f} ms{goal}   forward "
                      f"{b * 1e3:6.1f} ms   ratio {s / b:4.2f}×")
        print("\nA head switch on a text already run (median of 20, the fields the page asks; "
              "baseline: GET /health)")
        for model_id, model in models.items():
            info = model.info
            for n in LENGTHS:
                text = text_of(model, n, next(salt))
                # Both workers run it once, so that the switch finds it whichever answers.
                for _ in range(4):
                    post(port, {"model": model_id, "text": text, "layer": 0, "head": 0})
                switch, base = [], []
                for k in range(20):
                    switch.append(post(port, {
                        "model": model_id, "text": text, "layer": k % info.layers,
                        "head": k % info.heads, "row": n - 1, "encoding": "base64",
                        "fields": page_fields()}))
                    base.append(health(port))
                s, b = statistics.median(switch), statistics.median(base)
                print(f"  {model_id:13s} {n:3d} tokens: {s * 1e3:6.1f} ms (goal ≤ 30 ms)   "
                      f"/health {b * 1e3:5.2f} ms   ratio {s / b:5.1f}×")
        pids = [server.process.pid, *server.workers()]
        total = sum(pss_bytes(p) for p in pids)
        print(f"\nMemory after these answers (PSS of the master and its "
              f"{len(pids) - 1} workers): {total / 2**30:.2f} GB (goal ≤ 2 GB)")
        print("  " + ", ".join(f"pid {p}: {pss_bytes(p) / 2**20:.0f} MB" for p in pids))
    return 0


if __name__ == "__main__":
    sys.exit(main())
