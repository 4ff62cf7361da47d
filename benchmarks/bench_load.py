"""Load on the production server (the Dockerfile's CMD: nginx in front of gunicorn) over
loopback.

Run: .venv/bin/python benchmarks/bench_load.py [--seconds 30] [--clients 50]

One server, the same clients throughout: a 2 s warm-up; GET /health alone and the
default example alone, in alternating 1 s rounds (five each; the two give the
throughput goal); then the mix for --seconds while the workers' memory is sampled
every second. The mix: 55% the default
example, 20% 64 tokens, 5% 256 tokens (random X, W_Q, W_K, W_V with d = 16), 20% bad
requests (malformed JSON, wrong content type, shape mismatch, too many tokens, wrong
method, unknown path: each must get its own 4xx).

Goals: no failed request; the default example at least half the throughput of /health;
the workers' resident memory flat within 10% from the 10th second (a third of the run)
to the end. Exit status 1 if a goal is missed.
"""

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.loadgen import Connection, Record, cli, load_mix, percentile_ms, request_kinds, run
from benchmarks.server import Production, cpu_seconds, rss_bytes

MIB = 1024 * 1024
ROUNDS, ROUND_SECONDS = 5, 1.0  # /health alone and the default example alone, alternating


def client_cpu() -> float:
    t = os.times()
    return t.user + t.system


async def sample_memory(server: Production, samples: list, stop: asyncio.Event):
    """Append (seconds since start, {worker pid: RSS bytes}) every second until ``stop``."""
    start = time.monotonic()
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), timeout=1.0)
        except TimeoutError:
            samples.append((time.monotonic() - start,
                            {pid: rss_bytes(pid) for pid in server.workers()}))


def merge(records: list[Record]) -> Record:
    total = Record()
    for r in records:
        for name, values in r.latencies.items():
            total.latencies[name] += values
        for name, reasons in r.failures.items():
            total.failures[name] += reasons
        total.failed_ports += r.failed_ports
        total.seconds += r.seconds
    return total


async def alternate(connections, kinds, rounds: int, seconds: float) -> list[Record]:
    """Each kind alone, in turn, ``rounds`` times: a record per kind. Alternating, as in
    benchmarks.common.compare, makes a noisy neighbour slow all kinds alike."""
    records = [[] for _ in kinds]
    for _ in range(rounds):
        for i, kind in enumerate(kinds):
            records[i].append(await run(connections, [(kind, 1)], seconds))
    return [merge(r) for r in records]


async def measured(server: Production, label: str, work):
    """Await ``work`` and print the CPU time the server and this client spent on it."""
    # The start script, nginx's master and worker, gunicorn's master and workers.
    pids = [server.process.pid, *server.nginx(), server.gunicorn(), *server.workers()]
    server_cpu, own_cpu, start = sum(map(cpu_seconds, pids)), client_cpu(), time.monotonic()
    result = await work
    wall = time.monotonic() - start
    server_cpu = sum(map(cpu_seconds, pids)) - server_cpu
    print(f"  {label}: {wall:.1f} s; CPU used by the server {server_cpu:.1f} s, by this "
          f"client {client_cpu() - own_cpu:.1f} s, of {2 * wall:.1f} s on 2 cores")
    return result


def rows_of(label: str, record: Record, kinds) -> list[tuple]:
    rows = []
    for kind in kinds:
        ok = record.latencies[kind.name]
        rows.append((f"{label}: {kind.name}", record.count(kind.name),
                     len(record.failures[kind.name]), len(ok) / record.seconds,
                     percentile_ms(ok, 50), percentile_ms(ok, 95), percentile_ms(ok, 100)))
        if record.failures[kind.name]:
            print(f"    failures of {kind.name}: {sorted(set(record.failures[kind.name]))}")
    return rows


def memory_verdict(samples, seconds: float) -> tuple[bool, str]:
    """Whether the workers' total RSS stays within 10% from a third of the run to its end."""
    totals = [(t, sum(rss.values())) for t, rss in samples]
    window = [rss for t, rss in totals if t >= seconds / 3]
    if len(window) < 2:
        return False, "too few memory samples; run longer"
    spread = (max(window) - min(window)) / min(window)
    return spread <= 0.10, (f"total worker RSS {min(window) / MIB:.1f}–{max(window) / MIB:.1f}"
                            f" MiB from {seconds / 3:.0f} s on: spread {spread:.1%}")


async def main_async(args) -> int:
    kinds = request_kinds()
    mix = load_mix(kinds)
    with tempfile.TemporaryDirectory() as logs, Production(Path(logs)) as server:
        print(f"nginx and gunicorn on 127.0.0.1:{server.port}, workers {server.workers()}, "
              f"{args.clients} clients")
        probe = Connection(server.port)
        kinds["default"].body = (await probe.send(kinds["default"].variants[0][0]))[1]
        probe.close()
        connections = [Connection(server.port) for _ in range(args.clients)]
        await run(connections, mix, 2)  # warm-up: connections, imports, caches
        health, default = await measured(
            server, f"/health and default example alone, {ROUNDS} × {ROUND_SECONDS} s each",
            alternate(connections, [kinds["health"], kinds["default"]], ROUNDS, ROUND_SECONDS))
        samples = []
        stop = asyncio.Event()
        sampler = asyncio.create_task(sample_memory(server, samples, stop))
        mixed = await measured(server, "mix", run(connections, mix, args.seconds))
        stop.set()
        await sampler
        for c in connections:
            c.close()
    rows = (rows_of("alone", health, [kinds["health"]])
            + rows_of("alone", default, [kinds["default"]])
            + rows_of("mix", mixed, [kind for kind, _ in mix]))
    print(f"\n{'phase: kind':32} {'requests':>9} {'failed':>7} {'req/s':>8} "
          f"{'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for label, n, failed, rate, p50, p95, worst in rows:
        print(f"{label:32} {n:9d} {failed:7d} {rate:8.0f} {p50:8.1f} {p95:8.1f} {worst:8.1f}")
    print("\nworker RSS (MiB) each second of the mix:")
    for t, rss in samples:
        per = "  ".join(f"{pid}: {b / MIB:6.1f}" for pid, b in sorted(rss.items()))
        print(f"  {t:5.1f} s  total {sum(rss.values()) / MIB:7.1f}   {per}")

    failures = sum(r.total_failures() for r in (health, default, mixed))
    rate = {name: len(r.latencies[k.name]) / r.seconds
            for name, r, k in (("health", health, kinds["health"]),
                               ("default", default, kinds["default"]))}
    ratio = rate["default"] / rate["health"]
    memory_ok, memory_text = memory_verdict(samples, args.seconds)
    goals = [
        (failures == 0, f"no failed requests: {failures} failed"),
        (ratio >= 0.5, f"default example at least half the throughput of /health: "
                       f"{rate['default']:.0f} vs {rate['health']:.0f} req/s = {ratio:.2f}×"),
        (memory_ok, f"worker memory flat within 10%: {memory_text}"),
    ]
    print()
    for ok, text in goals:
        print(f"{'MEETS' if ok else 'MISSES'}  {text}")
    return 0 if all(ok for ok, _ in goals) else 1


def main() -> int:
    return cli(__doc__, main_async, seconds=30, min_seconds=3, what="the mix")


if __name__ == "__main__":
    sys.exit(main())
