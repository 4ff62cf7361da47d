"""A class opening the real-model view together, then switching heads (issue 25 §2).

Run: .venv/bin/python benchmarks/bench_classroom.py [--students 30] [--switches 5] [--seed 0]
                                                     [--url http://127.0.0.1:8000]

Each student has a sentence of their own (8–40 words, drawn from --seed) and one keep-alive
connection. All start at the same moment and send what the page sends (model/main.js asks
what model/request.js's requestFor says, with the fields the page's config block lists, on
the page's first model):
  first view: GET /model; POST /api/model/attention for the run and the first head (its
    tokens, words, overview, next tokens and the head's blocks); then POST for the last
    row's working, whose row the first answer's tokens give (the figure: from the GET
    sent to the working's last byte);
  then --switches head switches one after another, each a click on another cell of the
    grid: one POST for that head's blocks and its last row's working.
The page's static files are left out: a browser keeps them from an earlier visit. A 503
is sent again after its Retry-After, and a lost connection after 0.5, 1, 2, 4 s, as the
page does (lib/api.js), five tries at most; every failed try counts as a failure. Beside
the class, GET /health is polled every 0.1 s on a connection of its own, from the first
request to the last answer.

A latency is from sending to the answer's last byte at the client: the server's work and
the wait for it, not the page's drawing. The baseline, measured in the same run: one more
student alone before the class (its first view and 10 head switches, /health beside it);
each figure's p50 is printed beside the class's. The server is the production server (the
Dockerfile's CMD, benchmarks/server.py), or with --url one already running, for example
behind a proxy.

Goals (issue 25 §2, for 30 students on this 2-core machine): a head switch p95 ≤ 0.5 s; a
first view p95 ≤ 4 s; every /health ≤ 0.5 s; no failure. Exit status 1 if a goal is
missed; 0, saying so, when the server has no real models.
"""

import argparse
import asyncio
import contextlib
import gzip
import html
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_load import client_cpu
from benchmarks.loadgen import REQUEST_TIMEOUT, Connection, Record, percentile_ms
from benchmarks.server import Production

HEALTH_EVERY = 0.1  # seconds between the ends of two /health polls
RETRY_WAITS = (0.5, 1, 2, 4)  # lib/api.js's RETRY_MS, for a lost connection
TRIES = 1 + len(RETRY_WAITS)  # the page tries for ever; a benchmark has to stop
# Names of the figures, in the order they are printed.
FIRST_VIEW, PAGE, RUN, ROW, SWITCH, HEALTH = (
    "first view", "  GET /model", "  POST run + head", "  POST row's working", "head switch",
    "GET /health")
GOALS = {SWITCH: ("p95", 95, 0.5), FIRST_VIEW: ("p95", 95, 4.0), HEALTH: ("max", 100, 0.5)}

# Sentences a student might type: clauses of subject, verb, object and perhaps a place or
# time, joined until the sentence has its length.
SUBJECTS = ["the old fisherman", "my younger sister", "a tired student", "the city council",
            "our neighbour's dog", "the small robot", "every teacher", "the orchestra",
            "a curious child", "the night train", "the baker", "two astronomers", "Anna",
            "we", "they", "nobody"]
VERBS = ["painted", "carried", "noticed", "repaired", "forgot", "described", "followed",
         "borrowed", "explained", "watched", "found", "answered"]
OBJECTS = ["a red umbrella", "the broken clock", "three letters from Paris", "the map",
           "an old song", "the last piece of bread", "the quiet garden", "a list of questions",
           "the river", "her first poem", "the missing key", "a box of apples", "it",
           "everything", "bread", "music"]
ENDINGS = ["before the storm", "in the morning", "near the harbour", "after the long meeting",
           "without a word", "for the first time", "at the edge of the forest", "again", "", ""]
JOINS = [", and", ", but", " because", " while", " so", " although", " until"]
WORDS = (8, 40)
WARM_CONNECTIONS = 6
ALONE_SWITCHES = 10  # the baseline student's, whatever --switches is


def sentence(rng: random.Random) -> str:
    """A sentence of WORDS[0] to WORDS[1] words: clauses added until it reaches a length drawn
    in that range, the last one dropped if it went past the maximum."""
    target = rng.randint(*WORDS)
    parts: list[str] = []  # the first clause, then each joined one with its join
    while len("".join(parts).split()) < target:
        clause = " ".join(filter(None, (rng.choice(SUBJECTS), rng.choice(VERBS),
                                        rng.choice(OBJECTS), rng.choice(ENDINGS))))
        parts.append(f"{rng.choice(JOINS)} {clause}" if parts else clause)
    if len("".join(parts).split()) > WORDS[1]:
        parts.pop()  # what is left has over 40 − 16 words: a joined clause has at most 16
    text = "".join(parts)
    return text[0].upper() + text[1:] + "."


def texts(count: int, seed: int) -> list[str]:
    """``count`` different sentences, the same for the same seed."""
    rng, seen = random.Random(seed), []
    while len(seen) < count:
        text = sentence(rng)
        if text not in seen:
            seen.append(text)
    return seen


def page_fields(page: str) -> dict[str, list[str]]:
    """What the real-model view asks of each answer (run, decoder, head, working), read
    from the config block the page is sent (lib/config.js's answer.model), as the page
    reads it."""
    block = re.search(r'<script type="application/json" id="config">(.*?)</script>', page,
                      re.S)
    asks = json.loads(block.group(1)).get("answer", {}).get("model") if block else None
    if not asks:
        raise SystemExit("GET /model sent no config block with answer.model")
    lists = {part.upper(): list(asks.get(part, [])) for part in ("run", "decoder", "head",
                                                                   "working")}
    lists["WORKING"] = [f"working.{f}" for f in lists["WORKING"]]
    return lists


def asked(*parts: list[str]) -> list[str]:
    """requestFor's fields: the parts in order, "tokens" first if none of them has it."""
    fields = [f for part in parts for f in part]
    return fields if "tokens" in fields else ["tokens", *fields]


@dataclass
class Target:
    """Where the server is, and its requests as raw HTTP/1.1 bytes."""

    host: str
    port: int
    prefix: str = ""  # the server's SCRIPT_NAME, when it is served under a path

    def get(self, path: str) -> bytes:
        return self._raw("GET", path, b"")

    def post(self, body: dict) -> bytes:
        # As JSON.stringify writes it: no spaces, keys in the object's order.
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        return self._raw("POST", "/api/model/attention", data)

    def _raw(self, method: str, path: str, body: bytes) -> bytes:
        head = (f"{method} {self.prefix}{path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Accept-Encoding: gzip\r\n")
        if method == "POST":
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return (head + "\r\n").encode() + body


async def ask(conn: Connection, raw: bytes, name: str, record: Record,
              tries: int = TRIES) -> bytes | None:
    """The body of the answer 200 to ``raw``, tried again as the page does, or None. Each
    try's latency or failure is kept under ``name``."""
    for attempt in range(tries):
        start = time.perf_counter()
        try:
            status, body = await asyncio.wait_for(conn.send(raw), REQUEST_TIMEOUT)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            record.failures[name].append(type(exc).__name__)
            conn.close()
            wait = RETRY_WAITS[min(attempt, len(RETRY_WAITS) - 1)]
        else:
            if status == 200:
                record.latencies[name].append(time.perf_counter() - start)
                return body
            record.failures[name].append(f"status {status}")
            if status != 503:
                return None  # the page shows the error and asks no more
            wait = 1  # the API's Retry-After
        if attempt < tries - 1:
            await asyncio.sleep(wait)
    return None


def request(text: str, model: dict, layer: int, head: int, row: int | None,
            fields: list[str]) -> dict:
    """The page's body for one head of ``text`` (requestFor's, key for key)."""
    return {"model": model["id"], "text": text, "layer": layer, "head": head,
            **({} if row is None else {"row": row}), "causal": model["causal"],
            "fields": fields, "encoding": "base64"}


@dataclass
class Student:
    """One student's text, choices and connection."""

    text: str
    rng: random.Random
    conn: Connection
    tokens: int | None = None

    async def lesson(self, target: Target, model: dict, fields: dict, switches: int,
                     record: Record):
        """The first view, then ``switches`` head switches, each latency kept in ``record``."""
        start = time.perf_counter()
        if await ask(self.conn, target.get("/model"), PAGE, record) is None:
            return
        # A new text: the run's parts and the first head's, no row until the tokens are known.
        decoder = fields["DECODER"] if model["kind"] == "decoder" else []
        first = request(self.text, model, 0, 0, None, asked(fields["RUN"], decoder, fields["HEAD"]))
        body = await ask(self.conn, target.post(first), RUN, record)
        try:
            self.tokens = len(json.loads(body)["tokens"]) if body is not None else None
        except (ValueError, KeyError, TypeError):
            record.failures[RUN].append("an answer without its tokens")
        if self.tokens is None:
            return
        row = self.tokens - 1  # the state's row is null: the text's last token (rowOf)
        working = request(self.text, model, 0, 0, row, asked(fields["WORKING"]))
        if await ask(self.conn, target.post(working), ROW, record) is None:
            return
        record.latencies[FIRST_VIEW].append(time.perf_counter() - start)
        layer = head = 0
        for _ in range(switches):
            layer, head = self.other_head(model, layer, head)
            switch = request(self.text, model, layer, head, row,
                             asked(fields["HEAD"], fields["WORKING"]))
            await ask(self.conn, target.post(switch), SWITCH, record)

    def other_head(self, model: dict, layer: int, head: int) -> tuple[int, int]:
        """A cell of the grid other than (layer, head)."""
        cells = model["layers"] * model["heads"]
        cell = (layer * model["heads"] + head + self.rng.randrange(1, cells)) % cells
        return divmod(cell, model["heads"])


async def poll_health(target: Target, record: Record, done: asyncio.Event):
    """GET /health every HEALTH_EVERY seconds, on a connection of its own, until ``done``."""
    conn = Connection(target.port, target.host)
    while not done.is_set():
        await ask(conn, target.get("/health"), HEALTH, record, tries=1)
        with contextlib.suppress(TimeoutError):  # the pause, cut short at the end
            await asyncio.wait_for(done.wait(), HEALTH_EVERY)
    conn.close()


async def first_model(target: Target) -> tuple[dict, dict[str, list[str]]] | None:
    """The page's first model as GET /model describes it and the fields the page asks, or
    None (saying why) when the server has no real models."""
    conn = Connection(target.port, target.host)
    try:
        status, body = await asyncio.wait_for(conn.send(target.get("/model")), REQUEST_TIMEOUT)
    except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
        raise SystemExit(f"GET /model on {target.host}:{target.port} failed: {exc!r}") from exc
    finally:
        conn.close()
    page = (gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body).decode()
    if status == 503 and 'id="models-missing"' in page:
        reason = re.search(r"cannot read them: (.*?)\.</p>", page, re.S)
        command = re.search(r'id="install-command">(.*?)</code>', page, re.S)
        print("This benchmark needs the real models, and the server has none"
              f"{': ' + html.unescape(reason.group(1)) if reason else ''}. Nothing measured."
              f"\nTo install them: {html.unescape(command.group(1)) if command else '(none)'}")
        return None
    data = re.search(r'<script type="application/json" id="models-data">(.*?)</script>', page,
                     re.S)
    if status != 200 or data is None:
        raise SystemExit(f"GET /model answered {status} without the models' description")
    return json.loads(data.group(1))["models"][0], page_fields(page)


async def warm_up(target: Target, model: dict, fields: dict[str, list[str]]):
    """The page and a short forward on WARM_CONNECTIONS connections at once, outside the
    figures: a worker's first of each pays for imports and the template's compiling, and
    which worker takes which request is the kernel's (both accept on gunicorn's socket,
    which nginx's kept connections reach): six may leave one of two workers cold."""
    body = request("Warm up.", model, 0, 0, None, asked(fields["RUN"], fields["HEAD"]))

    async def warm(conn: Connection) -> bool:
        ok = all([await ask(conn, target.get("/model"), PAGE, Record()) is not None,
                  await ask(conn, target.post(body), RUN, Record()) is not None])
        conn.close()
        return ok

    connections = [Connection(target.port, target.host) for _ in range(WARM_CONNECTIONS)]
    if not all(await asyncio.gather(*map(warm, connections))):
        raise SystemExit("the warm-up's requests failed")


async def session(target: Target, model: dict, fields: dict[str, list[str]],
                  students: list[Student], switches: int) -> tuple[Record, float]:
    """The students' lessons, all at once, with /health polled beside them; and the CPU
    seconds this client spent on them."""
    record, done = Record(), asyncio.Event()
    poller = asyncio.create_task(poll_health(target, record, done))
    start, cpu = time.perf_counter(), client_cpu()
    await asyncio.gather(*(s.lesson(target, model, fields, switches, record)
                           for s in students))
    record.seconds = time.perf_counter() - start
    cpu = client_cpu() - cpu
    done.set()
    await poller
    for s in students:
        s.conn.close()
    return record, cpu


async def lessons(target: Target, args) -> int:
    found = await first_model(target)
    if found is None:
        return 0
    model, fields = found
    await warm_up(target, model, fields)
    *own, spare = texts(args.students + 1, args.seed)
    students = [Student(text, random.Random(args.seed * 1000 + i),
                        Connection(target.port, target.host)) for i, text in enumerate(own)]
    print(f"{args.students} students, {args.switches} head switches each, on {model['id']} "
          f"({model['layers']} layers × {model['heads']} heads); seed {args.seed}")
    # The baseline: one more student, alone, before the class.
    alone, _ = await session(target, model, fields, [
        Student(spare, random.Random(-1), Connection(target.port, target.host))],
        ALONE_SWITCHES)
    if alone.total_failures() or not alone.latencies[FIRST_VIEW]:
        raise SystemExit(f"one student alone already failed: {dict(alone.failures)}")
    print("load average before the class (1, 5, 15 min): "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    record, cpu = await session(target, model, fields, students, args.switches)
    return report(record, alone, students, cpu)


def report(record: Record, alone: Record, students: list[Student], cpu: float) -> int:
    words = [len(s.text.split()) for s in students]
    tokens = sorted(s.tokens for s in students if s.tokens is not None)
    print(f"texts: {min(words)}–{max(words)} words"
          + (f", {tokens[0]}–{tokens[-1]} tokens" if tokens else ""))
    print(f"\n{'':24} {'count':>6} {'failed':>7} {'p50 s':>7} {'p95 s':>7} {'max s':>7}"
          f"   {'alone p50 s':>11} {'p50 / alone':>11}")
    for name in (FIRST_VIEW, PAGE, RUN, ROW, SWITCH, HEALTH):
        ok = record.latencies[name]
        p50, p95, top = (percentile_ms(ok, q) / 1e3 for q in (50, 95, 100))
        base = percentile_ms(alone.latencies[name], 50) / 1e3
        print(f"{name:24} {len(ok):6d} {len(record.failures[name]):7d} "
              f"{p50:7.3f} {p95:7.3f} {top:7.3f}   {base:11.3f} {p50 / base:10.1f}×")
    failures = record.total_failures()
    for name, reasons in record.failures.items():
        if reasons:
            kinds = ", ".join(f"{k} × {n}" for k, n in Counter(reasons).most_common())
            print(f"  failures of {name.strip()}: {kinds}")
    print(f"wall time: {record.seconds:.1f} s, from the first request to the last answer; "
          f"CPU used by this client: {cpu:.2f} s\n")
    lost = len(students) - len(record.latencies[FIRST_VIEW])
    goals = [(failures == 0 and lost == 0,
              f"no failure: {failures} failed tries, {lost} students without a first view")]
    for name, (label, q, limit) in GOALS.items():
        value = percentile_ms(record.latencies[name], q) / 1e3
        goals.append((value <= limit, f"{name.strip()} {label} ≤ {limit:g} s: {value:.3f} s"))
    for ok, text in goals:
        print(f"{'MEETS' if ok else 'MISSES'}  {text}")
    return 0 if all(ok for ok, _ in goals) else 1


def target_of(url: str) -> Target:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise SystemExit(f"--url must be http://host[:port][/prefix], got {url!r}")
    return Target(parts.hostname, parts.port or 80, parts.path.rstrip("/"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30, help="students at once (30)")
    parser.add_argument("--switches", type=int, default=5, help="head switches each (5)")
    parser.add_argument("--seed", type=int, default=0, help="draws the texts and heads (0)")
    parser.add_argument("--url", help="a server already running (default: start the "
                                      "production server on a free loopback port)")
    args = parser.parse_args()
    if not 1 <= args.students <= 300 or not 0 <= args.switches <= 100:
        parser.error(f"--students must be 1–300 and --switches 0–100, got {args.students} "
                     f"and {args.switches}")
    if args.url:
        target = target_of(args.url)
        print(f"server: {args.url}")
        return asyncio.run(lessons(target, args))
    with tempfile.TemporaryDirectory() as logs, Production(Path(logs)) as server:
        print(f"server: the production server on 127.0.0.1:{server.port}, "
              f"workers {server.workers()}")
        return asyncio.run(lessons(Target("127.0.0.1", server.port), args))


if __name__ == "__main__":
    sys.exit(main())
