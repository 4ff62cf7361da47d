"""Flask's JSON provider for this app: orjson, which writes numpy arrays itself."""

from __future__ import annotations

import numpy as np
import orjson
from flask import current_app
from flask.json.provider import JSONProvider

OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
# Cells of an array that orjson writes in one call: ~1.3 MB of JSON, a few ms. orjson holds
# the GIL while it writes, so one call per answer kept a worker's other threads waiting: in
# tests/test_answer_memory.py (six 203 MB answers at once, two workers) /health timed out
# after 2 s in one run of three and took up to 1.2 s in the others, and the workers peaked
# at 1.87 to 2.07 GB. Written in pieces, in three runs: /health at most 0.32 s, the peak 1.47
# to 1.63 GB. Small answers stay one call.
PIECE_CELLS = 1 << 16


def _large(obj) -> bool:
    """Whether ``obj`` is an array or holds one (as numbers or base64) too long for one call."""
    if isinstance(obj, np.ndarray):
        return obj.size > PIECE_CELLS
    if isinstance(obj, str):
        return len(obj) > 8 * PIECE_CELLS  # an array sent as base64, ~8 characters a cell
    if isinstance(obj, dict):
        return all(isinstance(k, str) for k in obj) and any(_large(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_large(v) for v in obj)
    return False


def json_pieces(obj, out: list[bytes] | None = None) -> list[bytes]:
    """``orjson.dumps(obj)`` as a list of pieces whose concatenation is exactly those bytes:
    a large array in pieces of whole rows, a container holding one piece by piece, anything
    else in one call.

    >>> b"".join(json_pieces({"a": np.zeros((3, 2)), "b": [1, None]}))
    b'{"a":[[0.0,0.0],[0.0,0.0],[0.0,0.0]],"b":[1,null]}'
    """
    out = [] if out is None else out
    if isinstance(obj, str) or not _large(obj):  # one string is one call, however long
        out.append(orjson.dumps(obj, option=OPTIONS))
    elif isinstance(obj, np.ndarray):
        step = max(1, PIECE_CELLS // (obj.size // len(obj)))  # rows per piece
        for start in range(0, len(obj), step):  # "[[…],[…]]" less its outer brackets
            rows = orjson.dumps(obj[start:start + step], option=OPTIONS)[1:-1]
            out.append((b"[" if start == 0 else b",") + rows)
        out.append(b"]")
    elif isinstance(obj, dict):
        for i, (key, value) in enumerate(obj.items()):
            out.append((b"{" if i == 0 else b",") + orjson.dumps(key) + b":")
            json_pieces(value, out)
        out.append(b"}")
    else:  # a list or tuple
        for i, value in enumerate(obj):
            out.append(b"[" if i == 0 else b",")
            json_pieces(value, out)
        out.append(b"]")
    return out


class NumpyJSONProvider(JSONProvider):
    """orjson: numpy arrays straight to JSON, ~30× faster than json on large matrices.

    Strict by construction: a non-finite float (a masked −∞ score) is written as
    null, never as a NaN or Infinity token.
    """

    OPTIONS = OPTIONS

    def dumps(self, obj, **kwargs) -> str:
        return orjson.dumps(obj, option=self.OPTIONS).decode()

    def loads(self, s, **kwargs):
        return orjson.loads(s)

    def response(self, *args, **kwargs):
        """The answer as a list of pieces (json_pieces): werkzeug sends them one after the
        other with their total as Content-Length. Called as jsonify is: one value, several
        (a list of them), or keyword arguments (an object), never both."""
        if args and kwargs:
            raise TypeError("jsonify() behavior undefined when passed both args and kwargs")
        obj = args[0] if len(args) == 1 else args or kwargs
        return current_app.response_class(json_pieces(obj), mimetype="application/json")
