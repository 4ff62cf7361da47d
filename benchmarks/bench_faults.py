"""Faults under load on the production server, over loopback.

Run: .venv/bin/python benchmarks/bench_faults.py [--clients 50] [--seconds 12]

(a) One gunicorn worker gets SIGKILL halfway through a run of bench_load's mix. Goals: the
    master starts a replacement, and no more requests fail (nginx answers them 502) than
    the worker's threads could hold in flight (gunicorn.conf.py's threads).
(b) Normal clients run alone, then beside hostile ones, then alone again (so the noise of
    a shared machine shows), then beside more hostile ones. The hostile ones: S clients
    each announcing a 100 000-byte body and sending one byte of it every 2 s; S that
    send half a request line and then nothing; one client that sends part of a body and
    then nothing (nginx's 10 s client timeout closes it); and a loop hanging up mid-body,
    mid-response and before sending. Goal, for S = 48: the normal clients see no failure
    and no request slower than 2 s. Larger S are reported to show how many slow
    connections the server survives (nginx holds them all: 8192 connections, a proxied
    request counting two, attention_server/nginx.conf's worker_connections).
Normal clients there send 70% the default example and 30% 64-token requests.
"""

import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import settings
from benchmarks.loadgen import (
    Connection,
    cli,
    load_mix,
    percentile_ms,
    raw_request,
    request_kinds,
    run,
)
from benchmarks.server import Production, is_gone

SLOW_BODY = 100_000  # bytes announced by each slow client
SLOW_GAP = 2.0  # seconds between two of its bytes
SLOW_COUNTS = (48, 960, 1900)  # S of each slow kind, phase by phase; the first is the goal
MAX_NORMAL_SECONDS = 2.0  # a normal request slower than this counts as stalled


def summary(record) -> str:
    ok = [t for v in record.latencies.values() for t in v]
    reasons = sorted(set(r for v in record.failures.values() for r in v))
    return (f"{len(ok) / record.seconds:6.0f} req/s  p50 {percentile_ms(ok, 50):6.1f} ms  "
            f"p95 {percentile_ms(ok, 95):6.1f} ms  max {percentile_ms(ok, 100):7.1f} ms  "
            f"failed {record.total_failures()}" + (f" {reasons}" if reasons else ""))


async def kill_a_worker(server: Production, mix, clients: int, seconds: float) -> bool:
    connections = [Connection(server.port) for _ in range(clients)]
    load = asyncio.create_task(run(connections, mix, seconds))
    await asyncio.sleep(seconds / 2)
    before = server.workers()
    victim = before[0]
    # nginx holds every client's connection: which requests the victim was computing does
    # not show from here, only how many were in flight on both workers.
    in_flight = sum(c.in_flight for c in connections)
    os.kill(victim, signal.SIGKILL)
    # Hold the event loop until the kernel has closed the victim's sockets, so no client
    # starts a new request on one of them unseen. A request counts as in flight when its
    # client still awaits the answer, even if the first bytes of it had arrived.
    deadline = time.monotonic() + 5
    while not is_gone(victim) and time.monotonic() < deadline:
        time.sleep(0.001)
    killed = time.monotonic()
    replaced_after = None
    while not load.done():
        now = server.workers()
        if replaced_after is None and victim not in now and len(now) == len(before):
            replaced_after = time.monotonic() - killed
        await asyncio.sleep(0.05)
    record = await load
    for c in connections:
        c.close()
    threads = settings.threads(server.env)  # as gunicorn.conf.py sets them
    print(f"(a) SIGKILL to worker {victim} at {seconds / 2:.0f} s of {seconds:.0f} s, with "
          f"{in_flight} of {clients} clients' requests in flight on both workers")
    print(f"    {summary(record)}")
    print(f"    reasons {sorted(set(r for v in record.failures.values() for r in v))}")
    replaced = replaced_after is not None
    print(f"    workers before {before}, after {server.workers()}; replacement up "
          f"{replaced_after:.2f} s after the kill" if replaced else "    never replaced")
    ok = replaced and record.total_failures() <= min(threads, in_flight)
    print(f"{'MEETS' if ok else 'MISSES'}  worker replaced and failures ({record.total_failures()}"
          f") no more than the requests its {threads} threads could hold")
    return ok


async def slow_body(port: int, until: float) -> int:
    """Announce SLOW_BODY bytes and send one every SLOW_GAP s until ``until``; bytes sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = raw_request("POST", "/api/attention", b"").replace(
        b"Content-Length: 0", f"Content-Length: {SLOW_BODY}".encode())
    writer.write(head)
    sent = 0
    try:
        while time.monotonic() < until and sent < SLOW_BODY and not reader.at_eof():
            writer.write(b" ")
            await writer.drain()
            sent += 1
            await asyncio.sleep(SLOW_GAP)
    except ConnectionResetError:  # the server gave up on it (out of connections)
        pass
    writer.close()
    return sent


async def half_line(port: int, until: float) -> bool:
    """Send half a request line and then nothing; whether the server closed it in time."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /api/att")
    try:
        await asyncio.wait_for(reader.read(), max(until - time.monotonic(), 0.1))
        return True
    except ConnectionResetError:  # nginx resets a timed-out connection
        return True
    except (TimeoutError, OSError):
        return False
    finally:
        writer.close()


async def stalled_body(port: int, wait: float) -> str:
    """Send part of a body and then nothing: how, and when, does the server answer?"""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    start = time.monotonic()
    writer.write(raw_request("POST", "/api/attention", b"").replace(
        b"Content-Length: 0", b"Content-Length: 1000") + b'{"X": [[1')
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n"), wait)
        return f"answered {head[9:12].decode()} after {time.monotonic() - start:.1f} s"
    except (TimeoutError, asyncio.IncompleteReadError, OSError) as exc:
        return f"no answer ({type(exc).__name__}) after {time.monotonic() - start:.1f} s"
    finally:
        writer.close()


async def hang_ups(port: int, until: float, heavy: bytes) -> int:
    """Connections closed mid-body, mid-response and before sending, in turn; how many."""
    done = 0
    while time.monotonic() < until:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if done % 3 == 0:
            writer.write(raw_request("POST", "/api/attention", b"").replace(
                b"Content-Length: 0", b"Content-Length: 100000") + b"[" * 5000)
        elif done % 3 == 1:
            writer.write(heavy)  # a 256-token request: 4.5 MB answer nobody reads
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()
        done += 1
        await asyncio.sleep(0.05)
    return done


async def normal_beside_faults(server: Production, mix, clients: int, seconds: float,
                               slow: int, heavy: bytes):
    connections = [Connection(server.port) for _ in range(clients)]
    until = time.monotonic() + seconds
    hostile = ([slow_body(server.port, until) for _ in range(slow)]
               + [half_line(server.port, until + 5) for _ in range(slow)]
               + [stalled_body(server.port, seconds), hang_ups(server.port, until, heavy)]
               if slow else [])
    record, *results = await asyncio.gather(run(connections, mix, seconds), *hostile)
    for c in connections:
        c.close()
    notes = ""
    if slow:
        sent, closed, (stalled, hung) = results[:slow], results[slow:-2], results[-2:]
        notes = (f"\n      {slow} slow bodies sent {min(sent)}–{max(sent)} bytes each, none "
                 f"finished; {sum(closed)} of {slow} half request lines closed by the "
                 f"server; part-body client {stalled}; {hung} hang-ups")
    return record, notes


async def main_async(args) -> int:
    kinds = request_kinds()
    mix = [(kinds["default"], 70), (kinds["n64"], 30)]
    heavy = kinds["n256"].variants[0][0]
    with tempfile.TemporaryDirectory() as logs:
        with Production(Path(logs)) as server:
            await run([Connection(server.port)], mix, 1)  # warm-up
            killed_ok = await kill_a_worker(server, load_mix(kinds), args.clients,
                                            args.seconds)
        print(f"\n(b) {args.clients} normal clients for {args.seconds:.0f} s per phase")
        verdicts = []
        with Production(Path(logs)) as server:
            await run([Connection(server.port)], mix, 1)
            phases = [("alone", 0), (f"beside 2 × {SLOW_COUNTS[0]} slow", SLOW_COUNTS[0]),
                      ("alone again", 0)]
            phases += [(f"beside 2 × {s} slow", s) for s in SLOW_COUNTS[1:]]
            for label, slow in phases:
                record, notes = await normal_beside_faults(server, mix, args.clients,
                                                           args.seconds, slow, heavy)
                print(f"    {label:24} {summary(record)}{notes}")
                worst = max((t for v in record.latencies.values() for t in v), default=0)
                verdicts.append((slow, record.total_failures() == 0
                                 and worst < MAX_NORMAL_SECONDS))
    slow_ok = dict(verdicts)[SLOW_COUNTS[0]]
    print(f"\n{'MEETS' if killed_ok else 'MISSES'}  (a) a killed worker is replaced and costs "
          f"only its requests in flight")
    print(f"{'MEETS' if slow_ok else 'MISSES'}  (b) 2 × {SLOW_COUNTS[0]} slow clients and "
          f"hang-ups: no normal request failed or took {MAX_NORMAL_SECONDS:.0f} s")
    for count in SLOW_COUNTS[1:]:
        print(f"{'holds' if dict(verdicts)[count] else 'breaks'}  (limit) 2 × {count} slow "
              f"connections")
    return 0 if killed_ok and slow_ok else 1


def main() -> int:
    return cli(__doc__, main_async, seconds=12, min_seconds=4, what="each phase")


if __name__ == "__main__":
    sys.exit(main())
