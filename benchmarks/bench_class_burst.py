"""Teachers asking at once for a class set each (issue 36 §3): every client POSTs
/api/worksheet once for --sheets worksheets' answer key (PDF), all at the same moment, to the
production server (the Dockerfile's CMD, benchmarks/server.py) on a loopback port.

Run: .venv/bin/python benchmarks/bench_class_burst.py [--clients 30] [--sheets 100]
                                                      [--after 20] [--seed 0]

Each client has seeds of its own and a level (the levels in turn). A 503 with Retry-After is
sent again after it, as a teacher's page would, at most --tries times; any other answer but
200 with a PDF, and a 503 without Retry-After, is a failure. Beside the burst, GET /health
is polled every 0.1 s on a connection of its own, and the memory of gunicorn's master, its
workers and any process they start is sampled every 0.2 s (their PSS summed: pages shared
with the master, the real models' included, count once), from the first request until the
server has used no CPU for 3 s (a request whose client gave up, at nginx's 60 s, is still
computed) and at least --after seconds after the last answer.

The baseline, measured in the same run: one more client alone before the burst, its time,
/health's slowest answer beside it and the memory after it. Goals (issue 36 §3, 30 × 100
on this 2-core machine): peak memory ≤ 4 GB; ≤ 1.5 GB --after (20) seconds after the burst;
every /health ≤ 0.5 s; no failure other than 503 with Retry-After. Exit status 1 if a goal
is missed.
"""

import argparse
import http.client
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from attention_api.classroom.worksheet import MAX_SHEETS
from attention_core.classroom.exercises import LEVELS, SEEDS
from benchmarks.server import Production, cpu_seconds, descendants, pss_bytes

HEALTH_EVERY = 0.1  # seconds between two /health polls
MEMORY_EVERY = 0.2  # seconds between two samples of the memory
TIMEOUT = 300  # seconds a request may take before it counts as failed
GB = 1e9
SETTLE_MAX, IDLE_EVERY, IDLE_CPU = 300, 3.0, 0.1  # s; idle: < IDLE_CPU s of CPU in IDLE_EVERY
GOALS = {"peak": 4.0, "after": 1.5, "health": 0.5}  # GB, GB, seconds


def post(port: int, body: bytes) -> tuple[int, str | None, bytes]:
    """(status, Retry-After, body) of one POST /api/worksheet on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.request("POST", "/api/worksheet", body=body,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, r.headers.get("Retry-After"), r.read()
    finally:
        conn.close()


def class_set(port: int, body: bytes, tries: int, out: dict) -> None:
    """One teacher's class set, sent again after each 503's Retry-After: into ``out`` its
    seconds to the PDF (or None), its 503s and its failures."""
    out.update(seconds=None, refused=0, failures=[])
    start = time.monotonic()
    for _ in range(tries):
        try:
            status, retry, data = post(port, body)
        except OSError as exc:
            out["failures"].append(type(exc).__name__)
            return
        if status == 200 and data.startswith(b"%PDF-"):
            out["seconds"] = time.monotonic() - start
            return
        if status != 503 or retry is None or not retry.isdigit():
            out["failures"].append(f"status {status}" + (" without Retry-After"
                                                         if status == 503 else ""))
            return
        out["refused"] += 1
        time.sleep(int(retry))
    out["failures"].append(f"still 503 after {tries} tries")


def body(i: int, sheets: int, seed: int) -> bytes:
    first = (seed * 1000 + i) * sheets % (SEEDS - sheets)
    level = list(LEVELS)[i % len(LEVELS)]
    return (f'{{"seeds": {list(range(first, first + sheets))}, "level": "{level}", '
            f'"key": true}}').encode()


def _or_zero(read, pid: int):
    try:
        return read(pid)
    except OSError:  # exited while we looked
        return 0


class Watch:
    """/health polled and the memory sampled, each in a thread, until ``stop``."""

    def __init__(self, server: Production):
        self.server, self.stopped = server, threading.Event()
        self.master = server.gunicorn()
        self.health: list[float] = []
        self.health_failures: list[str] = []
        self.memory: list[tuple[float, int]] = []  # (monotonic seconds, bytes)
        self.threads = [threading.Thread(target=f) for f in (self._poll, self._sample)]

    def tree(self) -> list[int]:
        """gunicorn's master, its workers and any process they started (one pass over
        /proc, not one a process: this process's /health poll shares its GIL)."""
        return descendants(self.master)

    def held(self) -> int:
        """PSS of the tree's processes together (nginx's is left out: it keeps an answer on
        its way to a client in a file)."""
        return sum(_or_zero(pss_bytes, pid) for pid in self.tree())

    def busy_seconds(self) -> float:
        """CPU seconds the tree's live processes have used."""
        return sum(_or_zero(cpu_seconds, pid) for pid in self.tree())

    def _poll(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=5)
        while not self.stopped.wait(HEALTH_EVERY):
            start = time.monotonic()
            try:
                conn.request("GET", "/health")
                r = conn.getresponse()
                r.read()
                ok = r.status == 200
            except OSError as exc:
                ok = False
                self.health_failures.append(type(exc).__name__)
                conn.close()
            if ok:
                self.health.append(time.monotonic() - start)
            else:
                self.health_failures.append("not 200")
        conn.close()

    def _sample(self):
        while not self.stopped.wait(MEMORY_EVERY):
            self.memory.append((time.monotonic(), self.held()))

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        for t in self.threads:
            t.join()


def burst(server: Production, bodies: list[bytes], tries: int) -> tuple[list[dict], float]:
    """Every body at once, one client each: their outcomes, and when the last one ended."""
    outs = [{} for _ in bodies]
    clients = [threading.Thread(target=class_set, args=(server.port, b, tries, o))
               for b, o in zip(bodies, outs, strict=True)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    return outs, time.monotonic()


def report(outs: list[dict], watch: Watch, times: tuple[float, float, float], after: float,
           idle: int, alone: tuple[float, int, float]) -> int:
    """The figures and the goals met; ``times``: the burst's start and end, and when the
    server fell idle."""
    start, end, quiet = times
    answered = sorted(o["seconds"] for o in outs if o["seconds"] is not None)
    failures = Counter(f for o in outs for f in o["failures"])
    peak = max(b for _, b in watch.memory)
    later = [b for t, b in watch.memory if t >= end + after]
    settled = later[0] if later else watch.memory[-1][1]
    slowest = max(watch.health, default=float("inf"))
    print(f"baseline: memory {idle / GB:.2f} GB idle; one class set alone {alone[0]:.2f} s, "
          f"/health beside it {alone[2]:.3f} s at most, memory after it {alone[1] / GB:.2f} GB")
    print(f"burst: {len(answered)} of {len(outs)} class sets answered in {end - start:.1f} s "
          f"(each {answered[0] if answered else float('nan'):.1f}–"
          f"{answered[-1] if answered else float('nan'):.1f} s, "
          f"{(answered[-1] if answered else float('nan')) / alone[0]:.1f}× alone at most); "
          f"{sum(o['refused'] for o in outs)} answers 503 with Retry-After, sent again")
    print(f"memory: peak {peak / GB:.2f} GB ({peak / idle:.1f}× idle); {after:g} s after the "
          f"burst {settled / GB:.2f} GB ({settled / idle:.1f}× idle); once the server fell "
          f"idle, {quiet - end:.0f} s after the burst, {watch.memory[-1][1] / GB:.2f} GB")
    print(f"/health: {len(watch.health)} answered, slowest {slowest:.3f} s, "
          f"{len(watch.health_failures)} failed")
    if failures:
        print("failures: " + ", ".join(f"{k} × {n}" for k, n in failures.most_common()))
    goals = [(peak <= GOALS["peak"] * GB, f"peak memory ≤ {GOALS['peak']:g} GB: "
                                          f"{peak / GB:.2f} GB"),
             (settled <= GOALS["after"] * GB, f"memory {after:g} s after ≤ {GOALS['after']:g} "
                                              f"GB: {settled / GB:.2f} GB"),
             (slowest <= GOALS["health"] and not watch.health_failures,
              f"/health ≤ {GOALS['health']:g} s throughout: {slowest:.3f} s, "
              f"{len(watch.health_failures)} failed"),
             (not failures and len(answered) == len(outs),
              f"no failure but 503 with Retry-After: {sum(failures.values())}")]
    for ok, text in goals:
        print(f"{'MEETS' if ok else 'MISSES'}  {text}")
    return 0 if all(ok for ok, _ in goals) else 1


def run(server: Production, args) -> int:
    idle = Watch(server).held()
    with Watch(server) as beside:  # /health beside one class set: the machine's own noise
        start = time.monotonic()
        status, _, data = post(server.port, body(args.clients, args.sheets, args.seed + 1))
    if status != 200 or not data.startswith(b"%PDF-"):
        raise SystemExit(f"one class set alone failed: {status} {data[:200]!r}")
    alone = (time.monotonic() - start, Watch(server).held(), max(beside.health, default=0))
    bodies = [body(i, args.sheets, args.seed) for i in range(args.clients)]
    with Watch(server) as watch:
        start = time.monotonic()
        outs, end = burst(server, bodies, args.tries)
        watch.stopped.wait(args.after + 2 * MEMORY_EVERY)  # the figure after, and one more
        quiet = settle(watch)  # a request its client gave up on may still be computed
    return report(outs, watch, (start, end, quiet), args.after, idle, alone)


def settle(watch: Watch) -> float:
    """When the server's processes stopped using CPU (for IDLE_EVERY s), or SETTLE_MAX s."""
    deadline = time.monotonic() + SETTLE_MAX
    used = watch.busy_seconds()
    while time.monotonic() < deadline:
        time.sleep(IDLE_EVERY)
        now = watch.busy_seconds()
        if 0 <= now - used < IDLE_CPU:
            break
        used = now
    return time.monotonic()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=30, help="teachers at once (30)")
    parser.add_argument("--sheets", type=int, default=100,
                        help=f"worksheets in each class set, with the key (100; at most "
                             f"{MAX_SHEETS})")
    parser.add_argument("--after", type=float, default=20,
                        help="seconds after the burst at which memory is read (20)")
    parser.add_argument("--tries", type=int, default=100,
                        help="tries of each class set, the first and those after a 503 (100)")
    parser.add_argument("--seed", type=int, default=0, help="chooses the seeds (0)")
    args = parser.parse_args()
    if not (1 <= args.clients <= 200 and 1 <= args.sheets <= MAX_SHEETS
            and 0 <= args.after <= 300 and 1 <= args.tries <= 100):
        parser.error(f"--clients must be 1–200, --sheets 1–{MAX_SHEETS}, --after 0–300 and "
                     f"--tries 1–100")
    with tempfile.TemporaryDirectory() as logs, Production(Path(logs), start_seconds=120) as server:
        print(f"server: the production server on 127.0.0.1:{server.port}, workers "
              f"{server.workers()}; {args.clients} clients × {args.sheets} worksheets with "
              f"the key")
        return run(server, args)


if __name__ == "__main__":
    sys.exit(main())
