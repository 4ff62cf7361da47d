"""The production server (the Dockerfile's CMD: attention_server/serve.py, nginx in front
of gunicorn) against clients that misbehave: slow and idle connections, slow readers,
malformed bodies, a taken port; and the two processes starting and stopping together.

Each server runs with a short ATTENTION_CLIENT_TIMEOUT, so that what takes ten seconds
in production takes one and a half here.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import weakref
from pathlib import Path

import numpy as np
import pytest

from attention_api.real_models.shared_runs import key_of
from attention_api.web.headers import SECURITY_HEADERS
from benchmarks.server import ROOT, Production, dockerfile_cmd, health, is_gone
from tests.served import free_port
from tests.serving.test_deploy import healthcheck_command

CLIENT_TIMEOUT = 1.5  # seconds
MAX_BODY = 256 * 1024  # bytes
SERVING_ENV = {"ATTENTION_CLIENT_TIMEOUT": str(CLIENT_TIMEOUT),
               "ATTENTION_MAX_BODY_BYTES": str(MAX_BODY)}
SLOW = 48  # connections of each misbehaving kind
FAST_ENOUGH = 2.0  # seconds: the longest a normal request may take beside them
SECURITY_HEADERS_LOWER = [name.lower() for name in SECURITY_HEADERS]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with Production(tmp_path_factory.mktemp("serving"), env=SERVING_ENV) as running:
        yield running


def log_of(server) -> str:
    return server.log_path.read_text()


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {seconds} s")


# --- a client that writes bytes and reads the answer -------------------------------------
def post_head(length_or_chunked, extra: bytes = b"") -> bytes:
    framing = (b"Transfer-Encoding: chunked" if length_or_chunked == "chunked"
               else b"Content-Length: %d" % length_or_chunked)
    return (b"POST /api/attention HTTP/1.1\r\nHost: example\r\n"
            b"Content-Type: application/json\r\n" + extra + framing + b"\r\n\r\n")


def chunked(body: bytes, size: int) -> bytes:
    pieces = [body[i:i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


# Bytes received on a socket past the answer read from it: the start of the next answer
# to a pipelined request, which can arrive in the same read.
LEFT_OVER: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def read_answer(sock) -> tuple[int, dict[str, str], bytes]:
    """One whole answer from ``sock``: status, headers (lower-case names), body."""
    data = LEFT_OVER.pop(sock, b"")
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, f"the connection closed before an answer's head: {data!r}"
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    length = int(headers["content-length"])
    while len(body) < length:
        more = sock.recv(65536)
        assert more, f"the connection closed after {len(body)} of {length} body bytes"
        body += more
    LEFT_OVER[sock] = body[length:]
    return int(status_line.split()[1]), headers, body[:length]


def exchange(port: int, data: bytes, half_close: bool = False, timeout: float = 10):
    """Send ``data``, then read one answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        return read_answer(sock)


def cat_sat_body(cat_sat) -> bytes:
    return json.dumps(cat_sat).encode()


def expected_weights(cat_sat) -> np.ndarray:
    """softmax(QKᵀ/√2) written out independently: (3 queries, 3 keys)."""
    X = np.array(cat_sat["X"], float)
    scores = (X @ np.array(cat_sat["W_Q"])) @ (X @ np.array(cat_sat["W_K"])).T / np.sqrt(2)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def assert_cat_sat_answer(answer, cat_sat):
    status, headers, body = answer
    assert status == 200, body
    np.testing.assert_allclose(json.loads(body)["weights"], expected_weights(cat_sat),
                               rtol=1e-12)


def timed_get_and_post(port: int, cat_sat) -> float:
    """A /health and a default-example request, on fresh connections; the slower's time."""
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
        assert r.status == 200
    health = time.monotonic() - started
    body = cat_sat_body(cat_sat)
    started = time.monotonic()
    assert_cat_sat_answer(exchange(port, post_head(len(body)) + body, timeout=5), cat_sat)
    return max(health, time.monotonic() - started)


def security_headers_of_the_app(port: int) -> dict[str, str]:
    """The headers the app itself sends on /health that a server's answer must also carry."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
        names = ("content-security-policy", "x-content-type-options", "x-frame-options",
                 "referrer-policy", "cross-origin-opener-policy",
                 "cross-origin-resource-policy", "permissions-policy")
        return {n: r.headers[n] for n in names if r.headers[n] is not None}


# --- slow and idle connections -------------------------------------------------------
class Trickler:
    """Connections that, once opened, send one byte each every ``gap`` seconds."""

    def __init__(self, socks, gap: float):
        self.socks, self.gap, self.stop = socks, gap, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.wait(self.gap):
            for sock in self.socks:
                with contextlib.suppress(OSError):  # closed by the server: as expected
                    sock.send(b" ")


def open_many(port: int, first_bytes: bytes, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if first_bytes:
            sock.sendall(first_bytes)
        socks.append(sock)
    return socks


def closed_with(sock) -> tuple[float, bytes]:
    """Block until the server closes ``sock`` (or resets it: nginx's
    reset_timedout_connection); when that was, and what it sent first."""
    data = b""
    while True:
        try:
            more = sock.recv(65536)
        except ConnectionResetError:
            more = b""
        if not more:
            return time.monotonic(), data
        data += more


def test_slow_and_idle_connections_leave_other_clients_served(server, cat_sat):
    """Silent connections, half a request line, headers trickled a byte a second and
    bodies that stop are all closed after CLIENT_TIMEOUT (nginx closes them without an
    answer: the client stopped talking); bodies trickled a byte a second stay open (each
    byte resets nginx's wait), holding an nginx connection and no gunicorn thread. Normal
    requests are answered at once throughout."""
    opened = time.monotonic()
    groups = {"silent": open_many(server.port, b"", SLOW),
              "half_line": open_many(server.port, b"POST /api/att", SLOW),
              "heads": open_many(server.port, b"GET /health HTTP/1.1\r\nX-Slow: ", SLOW),
              "stalled_bodies": open_many(server.port, post_head(100_000) + b'{"X": ', SLOW)}
    trickled = open_many(server.port, post_head(100_000), SLOW)
    try:
        closes, slowest = watch_them_close(server, groups, trickled, opened, cat_sat)
        assert not any(peer_closed(sock) for sock in trickled)
    finally:
        for sock in (s for group in [*groups.values(), trickled] for s in group):
            sock.close()
    assert slowest < FAST_ENOUGH, f"a normal request took {slowest:.2f} s beside them"
    assert {k: len(v) for k, v in closes.items()} == dict.fromkeys(groups, SLOW)
    for kind, times in closes.items():
        for when, data in times:
            assert data == b"", (kind, data[:80])
            # nginx's clock is the time its event loop last woke, so it may close a few
            # milliseconds before the timeout by this one.
            assert CLIENT_TIMEOUT - 0.05 <= when - opened <= CLIENT_TIMEOUT + 2.5, (
                kind, when - opened)
    assert "Traceback" not in log_of(server)


def watch_them_close(server, groups, trickled, opened: float, cat_sat):
    """Trickle a byte a second into the heads and ``trickled`` (never silent for
    CLIENT_TIMEOUT) and time normal requests until every connection of ``groups`` is
    closed, and for at least 3 × CLIENT_TIMEOUT; return {kind: [(closed at, bytes sent)]}
    and the slowest time."""
    trickler = Trickler(groups["heads"] + trickled, gap=1.0)
    closes: dict[str, list] = {kind: [] for kind in groups}
    waiters = [threading.Thread(target=lambda k=k, s=s: closes[k].append(closed_with(s)),
                                daemon=True)
               for k, group in groups.items() for s in group]
    for w in waiters:
        w.start()
    slowest = 0.0
    while ((any(w.is_alive() for w in waiters) or time.monotonic() - opened < 3 * CLIENT_TIMEOUT)
           and time.monotonic() - opened < 15):
        slowest = max(slowest, timed_get_and_post(server.port, cat_sat))
    trickler.stop.set()
    assert not any(w.is_alive() for w in waiters), "slow connections still open after 15 s"
    return closes, slowest


def peer_closed(sock) -> bool:
    """Whether the server has closed its end of ``sock`` (it is in CLOSE_WAIT here),
    without reading what it sent."""
    port = sock.getsockname()[1]
    with open("/proc/net/tcp") as f:
        next(f)  # header
        for line in f:
            fields = line.split()
            if int(fields[1].split(":")[1], 16) == port:
                return fields[3] == "08"  # TCP_CLOSE_WAIT
    return True  # gone altogether


# --- slow readers ---------------------------------------------------------------------
def large_request(n: int = 384, d: int = 8) -> tuple[bytes, int]:
    """A request whose answer is several megabytes; returns it and the number of tokens."""
    rng = np.random.default_rng(3)
    X, W = rng.normal(size=(n, d)).round(3), rng.normal(size=(d, d)).round(3)
    body = json.dumps({"X": X.tolist(), "W_Q": W.tolist(), "W_K": W.tolist(),
                       "W_V": W.tolist()}).encode()
    return post_head(len(body)) + body, n


def slow_socket(port: int) -> socket.socket:
    sock = socket.socket()
    # Smaller than the default, so the answer waits in the server more than in this
    # client; large enough that delayed acknowledgements do not set the pace.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 128 * 1024)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    return sock


def test_a_slow_reader_gets_the_whole_answer(tmp_path):
    """A reader slower than the client timeout in all, but never pausing for as long, gets
    every byte. Its own server, with a 3 s timeout: at the module's 1.5 s, nginx now and
    then reset this reader, which had not paused, while the suite's other worker loaded
    the machine (building environments, driving chromium); nginx writes a large answer
    through its temporary files, and a stalled disk stalls its writes to the client."""
    timeout = 3.0
    request, n = large_request()
    env = {**SERVING_ENV, "ATTENTION_CLIENT_TIMEOUT": str(timeout)}
    with Production(tmp_path, env=env) as running, slow_socket(running.port) as sock:
        sock.sendall(request)
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        head, _, body = head.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        started = time.monotonic()
        rate = length / (2.5 * timeout)  # bytes a second: the answer takes 7.5 s to read
        while len(body) < length:
            more = sock.recv(32 * 1024)
            assert more, f"closed after {len(body)} of {length} bytes"
            body += more
            time.sleep(len(more) / rate)
    took = time.monotonic() - started
    assert took > 2 * timeout, f"read in {took:.1f} s: not slow enough to test"
    weights = np.array(json.loads(body)["weights"])
    assert weights.shape == (n, n)
    np.testing.assert_allclose(weights.sum(axis=1), 1, rtol=1e-12)


def test_a_reader_that_stops_is_dropped_after_the_client_timeout(server, cat_sat):
    request, _ = large_request()
    with slow_socket(server.port) as sock:
        sock.sendall(request)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 OK")
        length = int(first.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        stopped = time.monotonic()
        wait_for(lambda: peer_closed(sock), CLIENT_TIMEOUT + 5,
                 "the server closing the connection of a reader that stopped")
        # nginx's wait began when its writes first blocked, a little before this read.
        assert time.monotonic() - stopped >= CLIENT_TIMEOUT / 2
        received = len(first)
        with contextlib.suppress(ConnectionResetError):  # reset_timedout_connection
            while more := sock.recv(65536):
                received += len(more)
    assert received < length, "the whole answer fitted in the socket buffers"
    assert timed_get_and_post(server.port, cat_sat) < FAST_ENOUGH


def test_a_reader_that_pauses_holds_no_thread_and_then_gets_every_byte(tmp_path, cat_sat):
    """One worker with one thread: while a client leaves a 10 MB answer unread, nginx
    holds the answer's rest and the thread serves others; then the client gets it all."""
    env = {**SERVING_ENV, "ATTENTION_WORKERS": "1", "ATTENTION_THREADS": "1",
           "ATTENTION_CLIENT_TIMEOUT": "6"}
    request, n = large_request()
    with Production(tmp_path, env=env) as running, slow_socket(running.port) as sock:
        sock.sendall(request)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 OK")
        paused = time.monotonic()
        slowest = max(timed_get_and_post(running.port, cat_sat) for _ in range(5))
        assert slowest < 1.0, f"a request took {slowest:.2f} s beside the paused reader"
        assert time.monotonic() - paused < 6 - 1, "too slow to test before the timeout"
        head, _, body = first.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        while len(body) < length:
            more = sock.recv(1 << 20)
            assert more, f"closed after {len(body)} of {length} bytes"
            body += more
    weights = np.array(json.loads(body)["weights"])
    assert weights.shape == (n, n)
    np.testing.assert_allclose(weights.sum(axis=1), 1, rtol=1e-12)


# --- malformed and oversized bodies --------------------------------------------------------
def error_of(answer) -> tuple[int, str]:
    status, headers, body = answer
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    return status, json.loads(body)["error"]["message"]


def test_a_chunked_body_is_served_like_one_with_a_length(server, cat_sat):
    body = cat_sat_body(cat_sat)
    assert_cat_sat_answer(exchange(server.port, post_head("chunked") + chunked(body, 7)),
                          cat_sat)


OVER_THE_LIMIT = f"The request body is larger than the limit of {MAX_BODY} bytes."


def test_a_chunked_body_over_the_limit_is_413(server):
    data = post_head("chunked") + chunked(b" " * (MAX_BODY + 1), 64 * 1024)
    assert error_of(exchange(server.port, data)) == (413, OVER_THE_LIMIT)


def test_a_content_length_over_the_limit_is_413_before_the_body(server):
    assert error_of(exchange(server.port, post_head(MAX_BODY + 1))) == (413, OVER_THE_LIMIT)


def test_a_body_at_the_limit_reaches_the_app(server):
    """nginx's limit is the app's (one byte more is the 413 above, in the words the app
    uses for it, attention_api/web/errors.py): a body of exactly the limit is the app's to
    answer, here that spaces are not JSON."""
    status, _, body = exchange(server.port, post_head(MAX_BODY) + b" " * MAX_BODY)
    assert status == 400 and json.loads(body)["error"]["field"] is None


@pytest.mark.parametrize("body", [b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}XX0\r\n\r\n"])
def test_malformed_chunked_framing_is_400(server, body):
    assert error_of(exchange(server.port, post_head("chunked") + body)) == (
        400, "The request is not valid HTTP; nothing was computed.")


def test_a_body_that_ends_early_is_closed_without_reaching_the_app(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(post_head(100) + b'{"X": ')
        sock.shutdown(socket.SHUT_WR)
        assert closed_with(sock)[1] == b""
    assert '"POST /api/attention HTTP/1.1" 400 0 ' in log_of(server)


def test_pipelined_requests_are_each_answered_in_order(server, cat_sat):
    body = cat_sat_body(cat_sat)
    one = post_head(len(body)) + body
    health = b"GET /health HTTP/1.1\r\nHost: example\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(one + health + one[:50])
        assert_cat_sat_answer(read_answer(sock), cat_sat)
        assert read_answer(sock)[2] == b'{"status":"ok","version":"0.1.0"}'
        sock.sendall(one[50:])
        assert_cat_sat_answer(read_answer(sock), cat_sat)


def test_expect_100_continue_is_answered_before_the_body_is_sent(server, cat_sat):
    body = cat_sat_body(cat_sat)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(post_head(len(body), b"Expect: 100-continue\r\n"))
        assert sock.recv(25) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        data = b""
        while b"HTTP/1.1 200" not in data:  # a server may add a second 100 (RFC 9110 15.2)
            data += sock.recv(65536)
        status_at = data.index(b"HTTP/1.1 200")
        rest = data[status_at:]
        head, _, answer = rest.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        while len(answer) < length:
            answer += sock.recv(65536)
    np.testing.assert_allclose(json.loads(answer)["weights"], expected_weights(cat_sat),
                               rtol=1e-12)


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"NOT A REQUEST\r\n\r\n", 400),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: example\r\n\r\n", 414),
    (b"GET /health HTTP/1.1\r\nHost: example\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431),
])
def test_answers_the_server_writes_itself_are_json_with_the_security_headers(
        server, request_bytes, status):
    got_status, headers, body = exchange(server.port, request_bytes)
    assert got_status == status
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    error = json.loads(body)["error"]
    assert error["field"] is None and len(error["message"]) > 10
    expected = security_headers_of_the_app(server.port)
    assert len(expected) >= 4
    assert {name: headers.get(name) for name in expected} == expected


# --- methods a path does not serve --------------------------------------------------------
def paths_of_the_app(app) -> list[str]:
    """A path of each of the app's routes (an asset's for the assets' route)."""
    asset = f"/assets/{app.extensions['assets_version']}/css/app.css"
    paths = [asset if "<" in rule.rule else rule.rule for rule in app.url_map.iter_rules()]
    return sorted(set(paths) - {""})  # the root's rule takes "" as well as "/"


def test_a_method_a_path_does_not_serve_is_405_with_allow_as_flask_says(server, cat_sat):
    """TRACE, which nginx refuses itself, and DELETE, which it passes on: through nginx,
    on every path of the app, the app's own 405 (Allow, JSON, security headers); a path
    with nothing is 404; and the methods each path serves still work."""
    from app import create_app

    app = create_app({"TESTING": True})
    client = app.test_client()
    paths = paths_of_the_app(app)
    assert len(paths) == 23  # not vacuous: every route
    security = security_headers_of_the_app(server.port)
    for path in [*paths, "/nothing-here", "/api/attention?fields=weights"]:
        for method in ("TRACE", "DELETE"):
            status, headers, body = exchange(
                server.port, f"{method} {path} HTTP/1.1\r\nHost: example\r\n"
                             f"Connection: close\r\n\r\n".encode())
            flask = client.open(path, method=method)
            assert status == flask.status_code in (404, 405), (method, path, status)
            assert json.loads(body) == flask.get_json(), (method, path)
            if status == 405:
                assert f"does not accept {method}." in json.loads(body)["error"]["message"]
                allowed = {m.strip() for m in headers["allow"].split(",")}
                assert allowed == set(flask.allow) and "OPTIONS" in allowed, (method, path)
            assert {name: headers.get(name) for name in security} == security, (method, path)
    # What a path serves is served: GET, HEAD, OPTIONS and POST on their paths.
    assert answers_health(server.port)
    status, headers, _ = exchange(server.port,
                                  b"OPTIONS /api/attention HTTP/1.1\r\nHost: example\r\n\r\n")
    assert status == 200 and set(headers["allow"].split(", ")) == {"OPTIONS", "POST"}
    body = cat_sat_body(cat_sat)
    assert_cat_sat_answer(exchange(server.port, post_head(len(body)) + body), cat_sat)
    assert "Traceback" not in log_of(server)


# --- bodies arriving together ------------------------------------------------------------
def test_bodies_arriving_together_on_one_thread_are_all_served(tmp_path, cat_sat):
    """One worker with one thread: six 100 KB bodies, each half sent and then the rest,
    are all answered (nginx holds each until it is whole, then hands it over)."""
    compact = cat_sat_body(cat_sat)
    body = compact[:-1] + b" " * 100_000 + b"}"  # JSON whitespace: the same request
    env = {**SERVING_ENV, "ATTENTION_WORKERS": "1", "ATTENTION_THREADS": "1"}
    with Production(tmp_path, env=env) as running, contextlib.ExitStack() as stack:
        socks = [stack.enter_context(s) for s in
                 open_many(running.port, post_head(len(body)) + body[:60_000], 6)]
        for sock in socks:
            sock.sendall(body[60_000:])
        for sock in socks:
            assert_cat_sat_answer(read_answer(sock), cat_sat)


def answers_health(port: int, prefix: str = "") -> bool:
    try:
        return health(port, timeout=2, prefix=prefix) == 200
    except OSError:
        return False


# --- starting -----------------------------------------------------------------------------
def start(port: int, timeout: float = 20) -> subprocess.CompletedProcess:
    """Run the Dockerfile's CMD on ``port`` until it exits (it should, at once)."""
    command = dockerfile_cmd()
    executable = str(Path(sys.executable).parent / command[0])  # as benchmarks.server does
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
    return subprocess.run([executable, *command[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_a_port_another_program_holds_stops_the_server_at_once_naming_it():
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):
        started = time.monotonic()
        result = start(port)
    assert result.returncode == 1
    assert time.monotonic() - started < 10
    assert (f"Cannot listen at http://127.0.0.1:{port}: another program, or another copy of "
            f"this server, is listening there.") in result.stdout + result.stderr
    assert "Booting worker" not in result.stdout + result.stderr


def test_a_second_copy_on_the_same_port_stops_and_the_first_names_its_address(server):
    assert f"listening at http://127.0.0.1:{server.port} " in log_of(server)
    result = start(server.port)
    assert result.returncode == 1
    assert f"Cannot listen at http://127.0.0.1:{server.port}" in result.stdout + result.stderr


def test_the_readmes_start_command_serves_with_the_same_protected_server(tmp_path):
    """`bash scripts/run` runs the same start script: nginx in front of gunicorn's stock
    gthread worker, and a half request line is closed after ATTENTION_CLIENT_TIMEOUT."""
    port = free_port()
    log = tmp_path / "run.log"
    env = {**os.environ, "PORT": str(port), "ATTENTION_CLIENT_TIMEOUT": str(CLIENT_TIMEOUT)}
    env.pop("HOST", None)
    with open(log, "wb") as out:
        process = subprocess.Popen(["bash", "scripts/run"], cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: f"listening at http://127.0.0.1:{port} " in log.read_text(), 120,
                 f"scripts/run's log line naming port {port}")
        wait_for(lambda: answers_health(port), 30, f"scripts/run answering on {port}")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /hea")
            sent = time.monotonic()
            closed, data = closed_with(sock)
        assert data == b""
        assert CLIENT_TIMEOUT - 0.05 <= closed - sent <= CLIENT_TIMEOUT + 2.5
        text = log.read_text()
        assert "Using worker: gthread" in text and "(nginx, in front of gunicorn)" in text
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0, log.read_text()


def port_is_free(port: int) -> bool:
    try:
        socket.create_server(("127.0.0.1", port)).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize("which", ["gunicorn", "nginx"])
def test_when_either_process_dies_the_other_is_stopped_and_the_server_exits_1(tmp_path,
                                                                              which):
    with Production(tmp_path) as running:
        gunicorn = running.gunicorn()
        nginx = running.nginx()[0]
        os.kill(gunicorn if which == "gunicorn" else nginx, 9)
        assert running.process.wait(timeout=15) == 1
        assert is_gone(gunicorn) and is_gone(nginx)
        assert f"Attention Explorer: {which} exited with status -9; stopping the server." \
            in log_of(running)
        assert port_is_free(running.port)


def test_a_gunicorn_that_cannot_start_stops_nginx_and_the_server_exits_1():
    port = free_port()
    command = dockerfile_cmd()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "ATTENTION_WORKERS": "0"}
    result = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:]],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "ATTENTION_WORKERS must be at least 1, got '0'" in result.stderr
    assert (f"Attention Explorer cannot start at http://127.0.0.1:{port}: gunicorn exited "
            f"with status 1 while starting") in result.stderr
    assert port_is_free(port)


def test_while_gunicorn_loads_the_models_nginx_answers_502_in_json(tmp_path):
    """nginx is up before gunicorn has loaded the models (seconds): meanwhile it answers
    its own 502 in the app's shape, with the app's security headers."""
    port = free_port()
    command = dockerfile_cmd()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
    with open(tmp_path / "log", "wb") as log:
        process = subprocess.Popen([str(Path(sys.executable).parent / command[0]),
                                    *command[1:]], cwd=ROOT, env=env, stdout=log, stderr=log)
    try:
        def first_answer():
            try:
                return exchange(port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", timeout=2)
            except OSError:
                return None
        status, headers, body = wait_for(first_answer, 20, "nginx answering")
        assert status == 502, body
        assert json.loads(body) == {"error": {"field": None, "message": (
            "The app is not answering (starting or restarting); nothing was computed. "
            "Send it again in a moment.")}}
        assert headers["content-type"] == "application/json"
        wait_for(lambda: answers_health(port), 60, "gunicorn answering through nginx")
        assert {name: headers.get(name) for name in SECURITY_HEADERS_LOWER} == \
            security_headers_of_the_app(port)
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0


def test_under_a_prefix_the_health_check_passes_and_other_paths_are_404(tmp_path):
    with Production(tmp_path, env={**SERVING_ENV, "SCRIPT_NAME": "/explorer"}) as running:
        status, headers, body = exchange(
            running.port, b"GET /health HTTP/1.1\r\nHost: example\r\n\r\n")
        assert (status, json.loads(body)["error"]["message"]) == (
            404, "There is nothing at /health; this server is under /explorer/.")
        assert headers["content-type"] == "application/json"
        assert answers_health(running.port, "/explorer")
        # A method a path does not serve: the app's 405 under the prefix, nginx's 404 outside.
        status, headers, body = exchange(
            running.port, b"TRACE /explorer/api/attention HTTP/1.1\r\nHost: example\r\n\r\n")
        assert (status, set(headers["allow"].split(", "))) == (405, {"OPTIONS", "POST"}), body
        status, _, body = exchange(running.port, b"TRACE /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (status, json.loads(body)["error"]["message"]) == (
            404, "There is nothing at /health; this server is under /explorer/.")
        env = {"PATH": os.environ["PATH"], "PORT": str(running.port),
               "SCRIPT_NAME": "/explorer"}
        assert subprocess.run(healthcheck_command(), env=env, timeout=20).returncode == 0
        assert "Traceback" not in log_of(running)


def test_the_workers_share_their_runs_in_one_folder_removed_when_the_server_stops(tmp_path):
    with Production(tmp_path) as running:
        (folder,) = Path("/dev/shm").glob(f"attention-runs-{running.gunicorn()}-*")
        assert len(running.workers()) == 2 and list(folder.iterdir()) == []
        body = json.dumps({"model": "minilm-l6", "text": "shared by both workers",
                           "layer": 0, "head": 0}).encode()
        for _ in range(4):  # whichever worker each reaches
            request = urllib.request.Request(f"http://127.0.0.1:{running.port}/api/model/"
                                             "attention", body,
                                             {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                assert answer.status == 200
        assert [p.name for p in folder.iterdir()] == [key_of("minilm-l6", "shared by both workers")]
    assert not folder.exists()
