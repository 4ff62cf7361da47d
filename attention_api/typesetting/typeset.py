"""Typesetting with typst: its Python binding carries the compiler, which writes PDF, SVG and
PNG from one source in milliseconds, with real maths typesetting.

Everything a person wrote (a token's label) reaches a source only as a typst string literal
(``literal``), which typst prints as text and never reads as markup or code; the compiler
reads files only under an empty directory and uses the fonts it carries, never the
machine's, so a page comes out the same on every machine.

Each document is typeset in a Python process of its own (this file run as a script), which
gives all its memory back when it exits. Typeset in the server's own process, typst's
memory stayed: a 100-page answer key took ~0.17 GB, and four typeset one after another
left a process holding 0.56 GB (typst keeps what it memoised over its last 10 compiles, and
glibc keeps the freed pages); even after 11 small compiles had aged that out and
malloc_trim(0), 0.35 GB remained, and with MALLOC_ARENA_MAX=1 the same. In the server,
30 class sets at once left its workers at 6.4–7.9 GB, idle (benchmarks/bench_class_burst.py).
A process costs ~30 ms more a document.
"""

from __future__ import annotations

import datetime
import subprocess
import sys
import tempfile

import typst

FORMATS = {"pdf": "application/pdf", "svg": "image/svg+xml", "png": "image/png",
           "typ": "text/plain; charset=utf-8"}
# A PDF's date: fixed, so that the same request gives the same bytes.
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
TYPST_FAILED = 3  # the child's exit status when typst refuses the source
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
    inch), in a process of its own. A source of several pages gives a PDF of them all, and
    of SVG or PNG the first page only. A source typst cannot typeset raises TypstError with
    typst's message."""
    # -I: the child reads no PYTHON* variable and imports nothing from beside this file.
    done = subprocess.run([sys.executable, "-I", __file__, fmt, "" if ppi is None else str(ppi)],
                          input=source.encode(), capture_output=True, check=False)
    if done.returncode == TYPST_FAILED:
        raise typst.TypstError(done.stderr.decode(errors="replace"))
    if done.returncode != 0:
        raise RuntimeError(f"typesetting stopped with status {done.returncode}: "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    return done.stdout


def compile_here(source: bytes, fmt: str, ppi: float | None = None) -> bytes:
    """``source`` typeset by typst in this process (the child's work)."""
    with tempfile.TemporaryDirectory(prefix="typeset-") as root:
        out = typst.compile(source, format=fmt, ppi=ppi, root=root,
                            ignore_system_fonts=True, timestamp=int(EPOCH.timestamp()))
    return out[0] if isinstance(out, list) else out


def main() -> int:
    """The child: the source on stdin, the document on stdout (argv: format, ppi or "")."""
    fmt, ppi = sys.argv[1], float(sys.argv[2]) if sys.argv[2] else None
    try:
        out = compile_here(sys.stdin.buffer.read(), fmt, ppi)
    except typst.TypstError as exc:
        sys.stderr.write(str(exc))
        return TYPST_FAILED
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
