"""A bounded HTTP/1.1 load generator on asyncio, for loopback benchmarks of the server.

Each client keeps one keep-alive connection and sends one request at a time (a closed
loop). A request succeeds when it gets the status its kind expects (a bad request's
expected 4xx included) and, where the kind gives one, exactly the expected body.
Latencies are kept per kind in seconds.

Why not locust: this script knows, for every connection, whether a request is in flight
and on which local port, which is what counting the requests lost with a killed worker
needs; it needs no gevent monkey-patching; and it reads response bodies without parsing
them, so the 4.5 MB answers of the 256-token requests do not make the client the
bottleneck.
"""

import argparse
import asyncio
import json
import random
import select
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from attention_core import default_request

REQUEST_TIMEOUT = 30.0  # seconds; a request slower than this counts as failed
MAX_REQUESTS_PER_CLIENT = 1_000_000  # a bound on every loop besides its deadline


def raw_request(method: str, path: str, body: bytes = b"",
                content_type: str = "application/json") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if method == "POST":
        head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


@dataclass
class Kind:
    """One kind of request: its variants (raw HTTP bytes) and the answer expected."""

    name: str
    variants: list[tuple[bytes, int]]  # (request, expected status)
    body: bytes | None = None  # when set, the exact answer expected (learned by warm-up)


def attention(payload: dict) -> bytes:
    return raw_request("POST", "/api/attention", json.dumps(payload).encode())


def random_request(rng: np.random.Generator, n: int, d: int) -> bytes:
    """n tokens of width d, each projection d × d: all values rounded to 3 decimals."""
    X, W_Q, W_K, W_V = (rng.normal(size=s).round(3) for s in ((n, d), (d, d), (d, d), (d, d)))
    return attention({"X": X.tolist(), "W_Q": W_Q.tolist(), "W_K": W_K.tolist(),
                      "W_V": W_V.tolist()})


def request_kinds(seed: int = 0, d: int = 16) -> dict[str, Kind]:
    """The kinds of request the benchmarks send, with d = 16 for the random ones."""
    rng = np.random.default_rng(seed)
    default = default_request()
    bad = [  # each with the 4xx the API promises for it
        (raw_request("POST", "/api/attention", b'{"X": [[1, 0]'), 400),
        (raw_request("POST", "/api/attention", json.dumps(default).encode(), "text/plain"), 415),
        (attention({**default, "W_Q": [[1, 0, 0]]}), 422),  # W_Q rows ≠ X columns
        (attention({"X": [[1.0]] * 513, "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}),
         422),  # over the 512-token limit
        (raw_request("GET", "/api/attention"), 405),
        (raw_request("GET", "/api/nothing-here"), 404),
    ]
    return {
        "health": Kind("GET /health", [(raw_request("GET", "/health"), 200)]),
        "default": Kind("default example", [(attention(default), 200)]),
        "n64": Kind("64 tokens", [(random_request(rng, 64, d), 200) for _ in range(8)]),
        "n256": Kind("256 tokens", [(random_request(rng, 256, d), 200) for _ in range(4)]),
        "bad": Kind("bad (4xx)", bad),
    }


def load_mix(kinds: dict[str, Kind]) -> list[tuple[Kind, float]]:
    """The load benchmark's mix, as (kind, weight): mostly the page's own default request,
    some bigger ones, and the errors a public API keeps receiving."""
    return [(kinds["default"], 55), (kinds["n64"], 20), (kinds["n256"], 5), (kinds["bad"], 20)]


class Connection:
    """One keep-alive connection; ``in_flight`` is true while a request awaits its answer."""

    def __init__(self, port: int, host: str = "127.0.0.1"):
        self.host, self.port = host, port
        self.reader = self.writer = None
        self.local_port = None
        self.in_flight = False

    async def _open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.local_port = self.writer.get_extra_info("sockname")[1]

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    def _readable(self) -> bool:
        # poll, not select: beside a thousand slow connections (bench_faults) the
        # descriptor is over select's limit of 1024.
        poller = select.poll()
        poller.register(self.writer.get_extra_info("socket").fileno(), select.POLLIN)
        return bool(poller.poll(0))

    def answer_started(self) -> bool:
        """Whether bytes of the answer to the request in flight have arrived."""
        return self._readable() or len(self.reader._buffer) > 0  # asyncio has no public peek

    def _dropped(self) -> bool:
        """Like urllib3 before reusing a connection: an idle connection that is readable
        has been closed by the server (or holds garbage), so it is not reused."""
        return self.reader.at_eof() or self._readable()

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        """(status, body) of one request. Reconnects first when the server has closed
        the idle connection, so only requests actually sent to a server can fail."""
        if self.reader is None or self._dropped():
            self.close()
            await self._open()
        self.in_flight = True
        try:
            self.writer.write(raw)
            head = await self.reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            headers = head.lower()
            if b"\r\ncontent-length:" in headers:
                length = int(headers.split(b"\r\ncontent-length:")[1].split(b"\r\n")[0])
                body = await self.reader.readexactly(length)
            else:
                body = await self.reader.read()
            if b"\r\nconnection: close" in headers:
                self.close()
            return status, body
        finally:
            self.in_flight = False


@dataclass
class Record:
    """Latencies (seconds) of successes and reasons of failures, per kind name."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    failed_ports: list[int] = field(default_factory=list)  # local port of each failure
    seconds: float = 0.0

    def count(self, name: str) -> int:
        return len(self.latencies[name]) + len(self.failures[name])

    def total_failures(self) -> int:
        return sum(len(v) for v in self.failures.values())


async def one(conn: Connection, kind: Kind, rng: random.Random, record: Record):
    raw, expected = rng.choice(kind.variants)
    start = time.perf_counter()
    try:
        status, body = await asyncio.wait_for(conn.send(raw), REQUEST_TIMEOUT)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
        record.failures[kind.name].append(type(exc).__name__)
        record.failed_ports.append(conn.local_port)
        conn.close()
        return
    if status != expected:
        record.failures[kind.name].append(f"status {status}, expected {expected}")
    elif kind.body is not None and body != kind.body:
        record.failures[kind.name].append("a different body")
    else:
        record.latencies[kind.name].append(time.perf_counter() - start)
        return
    record.failed_ports.append(conn.local_port)


async def run(connections: list[Connection], mix: list[tuple[Kind, float]], seconds: float,
              seed: int = 1) -> Record:
    """Every connection sends requests drawn from ``mix`` (kind, weight) for ``seconds``."""
    record = Record()
    kinds, weights = zip(*mix, strict=True)
    deadline = time.monotonic() + seconds

    async def client(i: int, conn: Connection):
        rng = random.Random(seed * 1000 + i)
        for _ in range(MAX_REQUESTS_PER_CLIENT):
            if time.monotonic() >= deadline:
                break
            await one(conn, rng.choices(kinds, weights)[0], rng, record)

    start = time.perf_counter()
    await asyncio.gather(*(client(i, c) for i, c in enumerate(connections)))
    record.seconds = time.perf_counter() - start
    return record


def percentile_ms(latencies: list[float], q: float) -> float:
    return float(np.percentile(latencies, q)) * 1e3 if latencies else float("nan")


def cli(doc: str, main_async, *, seconds: float, min_seconds: float, what: str) -> int:
    """Parse --seconds and --clients (both bounded: these loops must stop by themselves)
    and run ``main_async(args)``; ``what`` says what --seconds is the length of."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=seconds,
                        help=f"length of {what} ({seconds:g})")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    args = parser.parse_args()
    if not 1 <= args.clients <= 500 or not min_seconds <= args.seconds <= 600:
        parser.error(f"--clients must be 1–500 and --seconds {min_seconds:g}–600, got "
                     f"{args.clients} and {args.seconds}")
    return asyncio.run(main_async(args))
