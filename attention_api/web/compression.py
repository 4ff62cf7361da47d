"""gzip for the text the page is made of: its static files, compressed once at start-up,
and its HTML, compressed per response.

On a phone's connection the bytes are the first load's cost: the static folder's ~590 KiB
of text are ~190 KiB gzipped. Fonts (woff2) are compressed already and are sent as they
are. The API's JSON answers are left alone: they are computed per request, and most are
small.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from flask import Response, request

TEXT_SUFFIXES = {".css", ".js", ".mjs", ".svg", ".json", ".html", ".txt"}
STATIC_LEVEL = 9  # once per file at start-up: the smallest output is worth the time
PAGE_LEVEL = 6    # per response: ~0.5 ms for the 17 KB page


def pack(data: bytes, level: int) -> bytes:
    """gzip of ``data``, with no timestamp in it, so the same bytes always pack the same."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def precompress(folder: Path) -> dict[str, bytes]:
    """{path under ``folder`` (posix): its gzip bytes} for each text file gzip makes smaller."""
    packed = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES):
        data = path.read_bytes()
        small = pack(data, STATIC_LEVEL)
        if len(small) < len(data):
            packed[path.relative_to(folder).as_posix()] = small
    return packed


def accepts_gzip() -> bool:
    """Whether this request's Accept-Encoding takes gzip: named with a quality above 0, or
    not named but allowed by ``*`` (RFC 9110 §12.5.3; "gzip;q=0, *" refuses it)."""
    qualities = {value.lower(): quality for value, quality in request.accept_encodings}
    return qualities.get("gzip", qualities.get("x-gzip", qualities.get("*", 0))) > 0


def gzip_page(response: Response) -> Response:
    """A whole HTML response gzipped when the client takes it; either way it varies by
    Accept-Encoding, so a shared cache keeps the two apart."""
    if response.mimetype != "text/html" or response.direct_passthrough:
        return response
    response.vary.add("Accept-Encoding")
    packable = response.status_code == 200 and "Content-Encoding" not in response.headers
    if packable and accepts_gzip():
        response.set_data(pack(response.get_data(), PAGE_LEVEL))  # sets Content-Length too
        response.headers["Content-Encoding"] = "gzip"
    return response
