"""Where an HTTP/1.1 request ends: its bytes are fed in as they arrive, and it says when
the request is whole, or what is wrong with it.

This is not a second HTTP parser. It reads only what framing needs (the end of the head,
Content-Length, Transfer-Encoding: chunked, Expect) so that the server can hold a request
until it is complete without a thread; gunicorn's parser then reads the whole request as
it always does. Anything this reader finds unusual but not clearly broken (two
Content-Lengths, a transfer coding other than chunked, bare LF line ends) is handed on
as it is at the end of its head, and gunicorn's parser answers it.
"""

from __future__ import annotations

import re

MAX_HEAD_BYTES = 32 * 1024  # request line and headers, as nginx's default buffers allow
MAX_CHUNK_LINE = 1024  # a chunk-size line with its extensions
MAX_TRAILER_BYTES = 8 * 1024

_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")  # 15 digits: under 2**60, so never an overflow
_DIGITS = re.compile(rb"[0-9]{1,18}")


class FramingError(Exception):
    """The request cannot be read: answer ``status`` with ``message`` and close."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class RequestFraming:
    """One request's bytes as they arrive: ``feed`` them, then read ``complete``.

    ``buffer`` holds every byte fed so far; ``end`` is the offset just past the request
    once it is complete (bytes after it are the start of a pipelined next request).
    """

    def __init__(self, max_body_bytes: int):
        self.max_body_bytes = max_body_bytes
        self.buffer = bytearray()
        self.end: int | None = None  # set once the request is whole
        self.head_end: int | None = None  # offset of the body's first byte
        self.expects_continue = False  # an HTTP/1.1 client waits for "100 Continue"
        self.body_bytes = 0  # body bytes that have arrived (chunked: their data only)
        self._length: int | None = None  # Content-Length, when that frames the body
        self._chunked = False
        self._scan = 0  # where the search for the head's end, or the next chunk, resumes
        self._chunk_left = 0  # data bytes (and then the CRLF) of the current chunk
        self._trailers: int | None = None  # where the trailers start, once the last chunk is read

    @property
    def complete(self) -> bool:
        return self.end is not None

    def feed(self, data: bytes) -> None:
        """Take the next bytes from the connection; raises FramingError if they are wrong."""
        self.buffer += data
        if self.head_end is None:
            self._find_head_end()
        if self.head_end is not None and self.end is None:
            if self._chunked:
                self._read_chunks()
            else:
                self.body_bytes = min(len(self.buffer) - self.head_end, self._length)
                if self.body_bytes == self._length:
                    self.end = self.head_end + self._length

    def _find_head_end(self) -> None:
        start = max(0, self._scan - 3)
        crlf = self.buffer.find(b"\r\n\r\n", start)
        lf = self.buffer.find(b"\n\n", start)
        self._scan = len(self.buffer)
        if lf != -1 and (crlf == -1 or lf < crlf):
            self.head_end = self.end = lf + 2  # bare LF: gunicorn's parser decides
            return
        if crlf == -1:
            if len(self.buffer) > MAX_HEAD_BYTES:
                raise FramingError(431, f"The request line and headers are longer than "
                                        f"{MAX_HEAD_BYTES} bytes.")
            return
        self.head_end = crlf + 4
        self._frame(bytes(self.buffer[:crlf]))

    def _frame(self, head: bytes) -> None:
        """Decide from the head how the body is framed."""
        request_line, *lines = head.split(b"\r\n")
        fields: dict[bytes, list[bytes]] = {}
        for line in lines:
            name, _, value = line.partition(b":")
            fields.setdefault(name.strip().lower(), []).append(value.strip())
        lengths = fields.get(b"content-length", [])
        codings = fields.get(b"transfer-encoding", [])
        http11 = request_line.rstrip().endswith(b"HTTP/1.1")
        handed_on = (len(lengths) > 1 or (lengths and codings) or len(codings) > 1
                     or (codings and codings[0].lower() != b"chunked")
                     or (lengths and not _DIGITS.fullmatch(lengths[0])))
        if handed_on:
            self.end = self.head_end
            return
        if codings:
            self._chunked = True
            self._scan = self.head_end
        else:
            self._length = int(lengths[0]) if lengths else 0
            if self._length > self.max_body_bytes:
                raise FramingError(413, f"The request body is {self._length} bytes, over the "
                                        f"limit of {self.max_body_bytes} bytes.")
        has_body = self._chunked or self._length > 0
        self.expects_continue = http11 and has_body and any(
            v.lower() == b"100-continue" for v in fields.get(b"expect", []))

    def _read_chunks(self) -> None:
        """Walk the chunks that have arrived whole; stop at the first that has not."""
        while self.end is None:
            if self._trailers is not None:
                if not self._read_trailer_line():
                    return
            elif self._chunk_left:
                if len(self.buffer) - self._scan < self._chunk_left:
                    return
                self._scan += self._chunk_left
                if self.buffer[self._scan - 2:self._scan] != b"\r\n":
                    raise FramingError(400, "A chunk of the request body is not followed "
                                            "by CRLF (malformed chunked encoding).")
                self._chunk_left = 0
            elif not self._read_chunk_size():
                return

    def _read_chunk_size(self) -> bool:
        line = self._next_line(MAX_CHUNK_LINE, "chunk-size line")
        if line is None:
            return False
        digits = line.split(b";", 1)[0].strip()
        if not _HEX.fullmatch(digits):
            raise FramingError(400, f"The chunk size {digits[:20].decode('latin-1')!r} is not "
                                    f"a hexadecimal number (malformed chunked encoding).")
        size = int(digits, 16)
        if self.body_bytes + size > self.max_body_bytes:
            raise FramingError(413, f"The chunked request body is over the limit of "
                                    f"{self.max_body_bytes} bytes.")
        self.body_bytes += size
        if size == 0:
            self._trailers = self._scan
        else:
            self._chunk_left = size + 2  # the data, then its CRLF
        return True

    def _read_trailer_line(self) -> bool:
        line = self._next_line(MAX_TRAILER_BYTES, "trailer")
        if line is None:
            return False
        if line == b"":
            self.end = self._scan
        elif self._scan - self._trailers > MAX_TRAILER_BYTES:
            raise FramingError(400, "The request's chunked trailers are too long.")
        return True

    def _next_line(self, limit: int, what: str) -> bytes | None:
        """The line starting at the scan position, without its CRLF; None until it is in."""
        eol = self.buffer.find(b"\r\n", self._scan, self._scan + limit + 2)
        if eol == -1:
            if len(self.buffer) - self._scan > limit:
                raise FramingError(400, f"A {what} of the request body is longer than "
                                        f"{limit} bytes (malformed chunked encoding).")
            return None
        line = bytes(self.buffer[self._scan:eol])
        self._scan = eol + 2
        return line
