"""Typesetting with typst: its Python binding carries the compiler, which writes PDF, SVG and
PNG from one source in milliseconds, with real maths typesetting.

Everything a person wrote (a token's label) reaches a source only as a typst string literal
(``literal``), which typst prints as text and never reads as markup or code; the compiler
reads files only under an empty directory and uses the fonts it carries, never the
machine's, so a page comes out the same on every machine.
"""

from __future__ import annotations

import datetime
import tempfile

import typst

FORMATS = {"pdf": "application/pdf", "svg": "image/svg+xml", "png": "image/png",
           "typ": "text/plain; charset=utf-8"}
# A PDF's date: fixed, so that the same request gives the same bytes.
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def literal(text: str) -> str:
    """``text`` as a typst string literal: ``a"b`` → ``"a\\"b"``. Inside it only the
    backslash, the quote and line ends are special; any other control character is written
    as its code, so nothing in ``text`` can end the string."""
    out = []
    for ch in str(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def compile_source(source: str, fmt: str, ppi: float | None = None) -> bytes:
    """``source`` typeset as ``fmt`` ("pdf", "svg" or "png"; a PNG at ``ppi`` pixels per
    inch). A source of several pages gives a PDF of them all, and of SVG or PNG the first
    page only."""
    with tempfile.TemporaryDirectory(prefix="typeset-") as root:
        out = typst.compile(source.encode(), format=fmt, ppi=ppi, root=root,
                            ignore_system_fonts=True, timestamp=int(EPOCH.timestamp()))
    return out[0] if isinstance(out, list) else out
