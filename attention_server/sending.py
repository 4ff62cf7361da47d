"""Writing answers so that a slow reader holds neither a thread nor the answer's end.

A thread writes what the client's socket takes at once and leaves the rest, within the
worker's budget for answers in memory (``Ledger``), for the worker's event loop to send
as the client reads it: a client reading one byte every few seconds would otherwise hold
one of the worker's few threads for as long as it liked. Past the budget the thread
waits for the client itself, as before, with ``send_patiently``.
"""

from __future__ import annotations

import fcntl
import socket
import struct
import termios
import threading
from collections import deque


class Ledger:
    """Bytes of answers waiting in one worker's memory, against a budget (thread-safe)."""

    def __init__(self, budget: int):
        self.budget = budget
        self.held = 0
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        """Reserve ``size`` bytes if they fit; an answer larger than the whole budget fits
        when nothing else is held, so the budget is exceeded by at most one answer."""
        with self._lock:
            if self.held and self.held + size > self.budget:
                return False
            self.held += size
            return True

    def give(self, size: int) -> None:
        with self._lock:
            self.held -= size


class PatientSocket(socket.socket):
    """A client socket whose ``sendall`` queues what the client cannot take yet.

    ``outbox`` holds the queued bytes (views of the answer, not copies) until the event
    loop sends them (``send_queued``). The standard sendall would also treat the
    socket's timeout as a deadline for the whole answer (Python 3.5+): a 15 MB answer
    read at under 1 MB/s was cut off at the client timeout.
    """

    __slots__ = ("outbox", "ledger")

    def start(self, ledger: Ledger) -> PatientSocket:
        self.outbox: deque[memoryview] = deque()
        self.ledger = ledger
        return self

    def sendall(self, data, flags=0):
        rest = memoryview(data).cast("B")
        if not self.outbox:
            rest = self._send_now(rest, flags)
            if not rest:
                return
        if self.ledger.take(len(rest)):
            self.outbox.append(rest)
            return
        while self.outbox:  # no room: what is queued goes first, then this, from here
            self.send_patiently(self.outbox[0], flags)
            self.ledger.give(len(self.outbox.popleft()))
        self.send_patiently(rest, flags)

    def sendfile(self, file, offset=0, count=None):
        """Through sendall, so that a file's bytes queue behind its headers (assets are
        small; os.sendfile would write past the queue)."""
        file.seek(offset)
        data = file.read() if count is None else file.read(count)
        self.sendall(data)
        return len(data)

    def _send_now(self, rest: memoryview, flags: int) -> memoryview:
        """Send what the socket takes without waiting; return the rest."""
        timeout = self.gettimeout()
        self.settimeout(0.0)  # with a timeout, CPython waits for room before each send
        try:
            while rest:
                rest = rest[self.send(rest, flags):]
        except BlockingIOError:
            pass
        finally:
            self.settimeout(timeout)
        return rest

    def send_patiently(self, rest: memoryview, flags: int = 0) -> None:
        """Send all of ``rest``, waiting at most the socket's timeout for the client to
        take any byte (TimeoutError then). A wait that times out goes on if bytes were
        acknowledged meanwhile: the kernel reports a socket writable only once a third of
        a send buffer of several megabytes is free, so a client reading 2.6 MB/s could
        look silent for 1.5 s."""
        while rest:
            unacknowledged = self.unacknowledged()
            try:
                rest = rest[self.send(rest, flags):]
            except TimeoutError:
                if self.unacknowledged() >= unacknowledged:
                    raise

    def send_queued(self) -> bool:
        """From the event loop (the socket non-blocking): send what the socket takes now;
        True once nothing is queued. Raises OSError if the client is gone."""
        while self.outbox:
            view = self.outbox[0]
            try:
                sent = self.send(view)
            except BlockingIOError:
                return False
            self.ledger.give(sent)
            if sent == len(view):
                self.outbox.popleft()
            else:
                self.outbox[0] = view[sent:]
        return True

    def drop_queued(self) -> None:
        while self.outbox:
            self.ledger.give(len(self.outbox.popleft()))

    def unacknowledged(self) -> int:
        """Bytes sent to the client and not yet acknowledged (Linux's SIOCOUTQ)."""
        return struct.unpack("i", fcntl.ioctl(self.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
