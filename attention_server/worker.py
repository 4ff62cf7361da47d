"""gunicorn's threaded worker, with every request read whole by the worker's event loop
before a thread takes it.

gthread alone commits a thread to a connection as soon as its first byte arrives, and
the thread then blocks until the request is complete: 16 clients that send half a
request line (two workers of 8 threads) stopped the server. Here the main loop reads
each request into memory, without blocking, as a buffering proxy would, and only a
whole request reaches a thread; a thread then never waits for a client to send. While
it reads, the loop enforces two limits (gunicorn.conf.py sets them):

- ``client_timeout``: the longest a client may stay silent: before its first byte, in
  the middle of its request line, headers or body, and while it does not read its
  answer (sending.py: the loop also sends what the client could not take at once);
- ``request_timeout``: the longest a request may take to arrive, from its first byte to
  its last, so a client trickling a byte every few seconds is closed too.

A request that breaks either gets 408; a body over the app's limit gets 413 and
malformed chunked framing 400, before any of it reaches the app. Bodies waiting in
memory are bounded per worker by ``buffer_bytes``: past it, the loop stops reading the
bodies still arriving until the requests ahead of them have gone to a thread. Answers
waiting for slow readers have a budget of the same size.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import selectors
import socket
import time
from collections import deque
from functools import partial

from gunicorn import http as gunicorn_http
from gunicorn.http.errors import ConfigurationProblem
from gunicorn.workers.gthread import TConn, ThreadWorker

from .framing import FramingError, RequestFraming
from .replies import CONTINUE, CapturedError, error_response
from .sending import Ledger, PatientSocket

READ_SIZE = 64 * 1024
LINGER_SECONDS = 2.0  # how long a closing connection may take to read our last answer
CLOCK_SECONDS = 0.5  # how often the clocks of connections still sending are read


class Conn(TConn):
    """A client connection, with the request it is sending (``framing``) and its clock."""

    def __init__(self, worker, *args):
        super().__init__(*args)
        self.worker = worker
        self.framing = None
        self.opened = self.last_read = time.monotonic()
        self.first_byte = None  # when the current request's first byte came
        self.paused = False
        self.listening = False  # registered with the poller for reading
        self.continued = False
        self.finished = None  # the thread's result, while the loop sends the answer's rest
        self.last_sent = self.unacknowledged = 0

    def close(self, graceful=False):
        # gthread's graceful close waits up to 2 s for the client to close first, on the
        # worker's main loop; a client that never does would freeze every connection.
        if graceful:
            self.worker.linger(self.sock)
        else:
            super().close()


class BufferingWorker(ThreadWorker):
    """gthread whose event loop reads each request whole before a thread serves it."""

    client_timeout = request_timeout = max_body_bytes = buffer_bytes = None

    def configure(self, client_timeout: float, request_timeout: float,
                  max_body_bytes: int, buffer_bytes: int) -> None:
        """Set the limits (seconds, bytes); gunicorn.conf.py calls this in post_worker_init."""
        self.client_timeout, self.request_timeout = client_timeout, request_timeout
        self.max_body_bytes, self.buffer_bytes = max_body_bytes, buffer_bytes

    @classmethod
    def check_config(cls, cfg, log):
        super().check_config(cfg, log)
        if cfg.is_ssl or cfg.http2_cleartext != "off":
            raise RuntimeError("BufferingWorker reads plain HTTP/1.1 only: terminate TLS "
                               "and HTTP/2 in a proxy in front of it")

    def init_process(self):
        self.reading: dict[Conn, None] = {}  # connections sending a request, oldest first
        self.paused: deque[Conn] = deque()  # of those, the ones not read until memory frees
        self.writing: dict[Conn, None] = {}  # connections whose answer the loop sends
        self.lingering: dict[socket.socket, float] = {}  # socket → when to close it
        self.buffered = 0  # bytes of requests held in memory by ``reading``
        self.next_clock = 0.0
        # Each connection is a file descriptor; a shell's soft limit (often 1024) would
        # stop accept() before worker_connections (4096, gunicorn.conf.py) does.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard != resource.RLIM_INFINITY:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        super().init_process()

    def run(self):
        if self.client_timeout is None:
            raise RuntimeError("BufferingWorker.configure() was not called "
                               "(gunicorn.conf.py's post_worker_init does it)")
        self.answers = Ledger(self.buffer_bytes)
        super().run()

    # --- in a thread --------------------------------------------------------------
    def handle_request(self, req, conn):
        try:
            return super().handle_request(req, conn)
        except TimeoutError:  # from PatientSocket.sendall: the client stopped reading
            self._note_stopped_reader(conn)
            return False

    def _note_stopped_reader(self, conn) -> None:
        self.log.warning("Closed the connection to %s: it took no byte of the answer for "
                         "%g s", conn.client[0], self.client_timeout)

    def handle_error(self, req, client, addr, exc):
        """gunicorn's answer to a request it could not parse (400, 414, 431 …), rewritten
        in the app's JSON shape with its security headers; gunicorn still logs it."""
        captured = CapturedError()
        super().handle_error(req, captured, addr, exc)
        status, message = captured.status_and_message()
        prefix = os.environ.get("SCRIPT_NAME", "")
        if isinstance(exc, ConfigurationProblem) and prefix and req is not None:
            # gunicorn's 500 for a path outside SCRIPT_NAME: the client asked for a page
            # that is not here, which is a 404 (the app's own words for one).
            status = 404
            message = f"There is nothing at {req.path}; this server is under {prefix}/."
        self._send_quietly(client, error_response(status, message))

    # --- accepting and reading -----------------------------------------------------
    def accept(self, listener):
        try:
            client, address = listener.accept()
        except OSError as e:
            if e.errno in (errno.EMFILE, errno.ENFILE):  # out of descriptors: try next turn
                self.log.warning("Cannot accept a connection: %s", e)
                self.set_accept_enabled(False)
            elif e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        sock = PatientSocket(client.family, client.type, client.proto, fileno=client.detach())
        sock.start(self.answers)
        self.enqueue_req(Conn(self, self.cfg, sock, address, listener.getsockname()))

    def enqueue_req(self, conn):
        """Read ``conn``'s next request; gthread calls this for every new request."""
        leftover = conn.parser.unreader.take_buffered() if conn.parser else b""
        conn.sock.setblocking(False)
        conn.framing = RequestFraming(self.max_body_bytes)
        conn.first_byte, conn.last_read, conn.continued = None, time.monotonic(), False
        self.reading[conn] = None
        if leftover:  # pipelined behind the last request
            self._take(conn, leftover)
        # Read at once: a kept-alive connection is here because it is readable, and a new
        # one often has its request in already. With a poller registration for every
        # request, bench_load measured /health's throughput 5–15% below gthread's; reading
        # first, registering only when nothing has come, it is level with gthread's.
        if conn in self.reading and not conn.paused:
            self._readable(conn, conn.sock)
        if conn in self.reading and not conn.paused:
            self._listen(conn)

    def _listen(self, conn) -> None:
        if not conn.listening:
            conn.listening = True
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._readable, conn))

    def _unlisten(self, conn) -> None:
        if conn.listening:
            conn.listening = False
            self.poller.unregister(conn.sock)

    def _readable(self, conn, sock):
        try:
            data = sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._forget(conn)
            return
        if not data:
            self._ended(conn)
        else:
            self._take(conn, data)

    def _take(self, conn, data: bytes) -> None:
        now = time.monotonic()
        conn.first_byte = conn.first_byte or now
        conn.last_read = now
        self.buffered += len(data)
        framing = conn.framing
        try:
            framing.feed(data)
        except FramingError as e:
            self.refuse(conn, e.status, e.message)
            return
        if framing.complete:
            self._hand_to_thread(conn)
        elif framing.expects_continue and not conn.continued:
            conn.continued = True
            self._send_quietly(conn.sock, CONTINUE)
        elif self.buffered > self.buffer_bytes and framing.head_end is not None:
            self._pause(conn)

    def _ended(self, conn) -> None:
        """The client closed its side: a request cut short is answered, if it can be."""
        framing = conn.framing
        if not framing.buffer:
            self._forget(conn)
        elif framing.head_end is None:
            self.refuse(conn, 400, "The connection closed before the request's headers "
                                   f"were complete ({len(framing.buffer)} bytes came).")
        else:
            self.refuse(conn, 400, f"The request body ended after {framing.body_bytes} "
                                   f"bytes, before it was complete.")

    def _hand_to_thread(self, conn) -> None:
        self._stop_reading(conn)
        if conn.parser is None:
            conn.parser = gunicorn_http.get_parser(self.cfg, conn.sock, conn.client)
        conn.parser.unreader.unread(bytes(conn.framing.buffer))
        conn.framing = None
        conn.data_ready = True  # gthread's handle() then does not wait for data again
        super().enqueue_req(conn)

    # --- writing the rest of an answer ---------------------------------------------
    def finish_request(self, conn, fs):
        """After a thread: send what is left of its answer first, then carry on as gthread
        does (keep the connection for the next request, or close it)."""
        if not conn.sock.outbox or conn.sock.fileno() < 0:  # closed after an error
            conn.sock.drop_queued()
            super().finish_request(conn, fs)
            return
        conn.finished = fs
        conn.last_sent, conn.unacknowledged = time.monotonic(), conn.sock.unacknowledged()
        conn.sock.setblocking(False)
        self.writing[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_WRITE, partial(self._writable, conn))

    def _writable(self, conn, sock) -> None:
        try:
            done = sock.send_queued()
        except OSError:
            self._abandon(conn)
            return
        conn.last_sent, conn.unacknowledged = time.monotonic(), sock.unacknowledged()
        if done:
            self.poller.unregister(sock)
            del self.writing[conn]
            super().finish_request(conn, conn.finished)

    def _abandon(self, conn) -> None:
        self.poller.unregister(conn.sock)
        del self.writing[conn]
        conn.sock.drop_queued()
        self.nr_conns -= 1
        conn.close()

    def _check_reader(self, conn, now: float) -> None:
        unacknowledged = conn.sock.unacknowledged()
        if unacknowledged < conn.unacknowledged:  # the client read, though no room came
            conn.last_sent, conn.unacknowledged = now, unacknowledged
        elif now - conn.last_sent > self.client_timeout:
            self._note_stopped_reader(conn)
            self._abandon(conn)

    # --- memory for bodies ---------------------------------------------------------
    def _pause(self, conn) -> None:
        conn.paused = True
        self.paused.append(conn)
        self._unlisten(conn)
        self._resume()

    def _resume(self) -> None:
        """Read paused bodies again while memory allows; and always one of them if no other
        body is still arriving, or no memory would ever be freed (the budget is then
        exceeded by at most that one body)."""
        while self.paused and self.buffered <= self.buffer_bytes:
            self._wake(self.paused.popleft())
        if self.paused and not any(c.framing.head_end is not None and not c.paused
                                   for c in self.reading):
            self._wake(self.paused.popleft())

    def _wake(self, conn) -> None:
        conn.paused = False
        self._listen(conn)

    def _stop_reading(self, conn) -> None:
        del self.reading[conn]
        self.buffered -= len(conn.framing.buffer)
        if conn.paused:
            conn.paused = False
            self.paused.remove(conn)
        self._unlisten(conn)
        self._resume()

    # --- closing ----------------------------------------------------------------
    def refuse(self, conn, status: int, message: str) -> None:
        """Answer ``status`` with ``message`` from the event loop, then close."""
        self.log.warning("Refused a request from %s with %s: %s", conn.client[0], status,
                         message)
        self._stop_reading(conn)
        self.nr_conns -= 1
        self._send_quietly(conn.sock, error_response(status, message))
        self.linger(conn.sock)

    def _forget(self, conn) -> None:
        self._stop_reading(conn)
        self.nr_conns -= 1
        conn.close()

    def linger(self, sock) -> None:
        """Close after our answer has left: send FIN, drain what the client still sends
        (closing with unread bytes would reset the connection and could cut the answer),
        and close when the client does, or after LINGER_SECONDS."""
        try:
            sock.setblocking(False)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            sock.close()
            return
        self.lingering[sock] = time.monotonic() + LINGER_SECONDS
        self.poller.register(sock, selectors.EVENT_READ, self._drain)

    def _drain(self, sock) -> None:
        try:
            if sock.recv(READ_SIZE):
                return
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._close_lingering(sock)

    def _close_lingering(self, sock) -> None:
        del self.lingering[sock]
        self.poller.unregister(sock)
        sock.close()

    @staticmethod
    def _send_quietly(sock, data: bytes) -> None:
        """A short answer on a non-blocking socket; a client that cannot take it is gone."""
        with contextlib.suppress(OSError):
            sock.send(data)

    def murder_pending(self):
        """Close what is over its time (gthread's loop calls this on every turn)."""
        super().murder_pending()
        now = time.monotonic()
        if now < self.next_clock:  # gthread calls it after every event, not once a second
            return
        self.next_clock = now + CLOCK_SECONDS
        for sock in [s for s, deadline in self.lingering.items() if deadline <= now]:
            self._close_lingering(sock)
        for conn in list(self.reading):
            self._check_clock(conn, now)
        for conn in list(self.writing):
            self._check_reader(conn, now)

    def _check_clock(self, conn, now: float) -> None:
        if conn.first_byte is None:
            if not self.alive or now - conn.last_read > self.client_timeout:
                self._forget(conn)  # nothing was asked: nothing to answer
        elif now - conn.first_byte > self.request_timeout:
            self.refuse(conn, 408, f"The request did not arrive whole within "
                                   f"{self.request_timeout:g} s.")
        elif not conn.paused and now - conn.last_read > self.client_timeout:
            self.refuse(conn, 408, f"The client sent nothing for {self.client_timeout:g} s "
                                   f"before its request was complete.")

