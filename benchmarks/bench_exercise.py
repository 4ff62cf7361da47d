"""The server's time for one exercise check, and for one exercise, against the default
example's POST /api/attention (the page's own edit) measured alternately in the same run.

Run: .venv/bin/python benchmarks/bench_exercise.py   Goal (issue 26): a check under 20 ms
of server time on this machine, at every level.

Server time is the app's own: Flask's test client calls it in this process, with no
socket, so what is timed is parsing, the exercise made again from its seed, the engine,
the diagnosis and the JSON answer. Each check sends every blank, half of them wrong (the
hints are the diagnosis's work), the worst case for its level.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app import create_app
from attention_core import default_request
from attention_core.classroom.exercises import LEVELS, exercise, solve
from benchmarks.common import compare

GOAL_MS = 20
SEEDS = range(20)


def check_body(seed: int, level: str) -> dict:
    """Every blank answered, every other one wrong by a half."""
    answers = solve(exercise(seed, level))
    return {"seed": seed, "level": level,
            "answers": {p: v + (0.5 if k % 2 else 0) for k, (p, v) in enumerate(answers.items())}}


def requests(client, level: str):
    """Two functions of no argument: a check of the next seed's answers, and its exercise."""
    bodies = [check_body(s, level) for s in SEEDS]
    turn = iter(range(10**9))

    def one_check():
        r = client.post("/api/exercise/check", json=bodies[next(turn) % len(bodies)])
        assert r.status_code == 200

    def one_exercise():
        r = client.post("/api/exercise", json={"seed": next(turn) % len(SEEDS), "level": level})
        assert r.status_code == 200

    return one_check, one_exercise


def main() -> int:
    client = create_app({"TESTING": True}).test_client()
    default = {**default_request(), "row": 2}

    def baseline():
        assert client.post("/api/attention", json=default).status_code == 200

    print(f"{'level':<10} {'check ms':>9} {'exercise ms':>12} {'baseline ms':>12} "
          f"{'check / baseline':>17}  goal: check < {GOAL_MS} ms")
    worst = 0.0
    for level in LEVELS:
        one_check, one_exercise = requests(client, level)
        check, base, ratio = compare(one_check, baseline, calls=20, rounds=7)
        made, _, _ = compare(one_exercise, baseline, calls=20, rounds=3)
        worst = max(worst, check)
        print(f"{level:<10} {check * 1e3:>9.2f} {made * 1e3:>12.2f} {base * 1e3:>12.2f} "
              f"{ratio:>16.2f}×")
    ok = worst * 1e3 < GOAL_MS
    print(f"{'MEETS' if ok else 'MISSES'}  slowest level's check: {worst * 1e3:.2f} ms "
          f"(goal < {GOAL_MS} ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
