"""Time per POST /api/attention of the default example against GET /health, in process.

Run: .venv/bin/python benchmarks/bench_api.py   Goal: ratio <= 3×.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app import create_app
from attention_core import default_request
from benchmarks.common import compare


def main() -> int:
    client = create_app().test_client()
    body = json.dumps(default_request())

    def attention():
        r = client.post("/api/attention", data=body, content_type="application/json")
        assert r.status_code == 200

    def health():
        assert client.get("/health").status_code == 200

    for label, extra in (("default example", {}), ("default example + row working", {"row": 2})):
        body = json.dumps({**default_request(), **extra})
        ours, base, ratio = compare(attention, health, calls=200)
        print(f"POST /api/attention ({label}): {ours * 1e6:7.1f} µs   GET /health: "
              f"{base * 1e6:7.1f} µs   ratio {ratio:.2f}× "
              f"({'meets' if ratio <= 3 else 'misses'} the goal of 3×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
