"""The server's time for a class set: 30 worksheets and their answer key, as PDF (two POST
/api/worksheet, one with "key": true), at every level, against one POST /api/exercise
(making one exercise) measured alternately in the same run.

Run: .venv/bin/python benchmarks/bench_worksheet.py   Goal (issue 26): a class set of 30
with keys under 10 s on this machine.

Server time is the app's own: Flask's test client calls it in this process, with no socket,
so what is timed is making 30 exercises again from their seeds, laying out their pages,
typst typesetting 60 pages and the PDF written.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app import create_app
from attention_core.classroom.exercises import LEVELS
from benchmarks.common import compare

GOAL_S = 10
CLASS = list(range(1, 31))


def main() -> int:
    client = create_app({"TESTING": True}).test_client()
    turn = iter(range(10**9))

    def baseline():
        body = {"seed": next(turn) % 30, "level": "row"}
        assert client.post("/api/exercise", json=body).status_code == 200

    print(f"{'level':<10} {'set of 30 + key s':>18} {'pages':>6} {'MB':>6} {'exercise ms':>12} "
          f"{'set / exercise':>15}  goal: < {GOAL_S} s")
    worst = 0.0
    for level in LEVELS:
        sizes = []

        def class_set(level=level, sizes=sizes):
            sizes.clear()
            for key in (False, True):
                r = client.post("/api/worksheet", json={"seeds": CLASS, "level": level,
                                                        "key": key})
                assert r.status_code == 200 and r.data.startswith(b"%PDF-")
                sizes.append(len(r.data))

        seconds, base, ratio = compare(class_set, baseline, calls=1, rounds=3)
        worst = max(worst, seconds)
        print(f"{level:<10} {seconds:>18.2f} {2 * len(CLASS):>6} {sum(sizes) / 1e6:>6.2f} "
              f"{base * 1e3:>12.2f} {ratio:>14.0f}×")
    ok = worst < GOAL_S
    print(f"{'MEETS' if ok else 'MISSES'}  slowest level's class set with key: {worst:.2f} s "
          f"(goal < {GOAL_S} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
