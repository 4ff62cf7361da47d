"""Shared by the API's tests: posting a request and reading its answer strictly (base64
arrays decoded by the test's own reading), the small examples of today's additions, and
the request bodies docs/http-api.md and the /api/docs page give."""

import base64
import copy
import html
import json
import math
import re
from pathlib import Path

import numpy as np


def strict_loads(text):
    def refuse(token):
        raise AssertionError(f"non-strict JSON token {token} in the response")
    return json.loads(text, parse_constant=refuse)


def post(client, body, content_type="application/json", path="/api/attention"):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(path, data=data, content_type=content_type)


def decode(obj):
    """The test's own reading of "encoding": "base64": numpy straight from the bytes."""
    if isinstance(obj, dict) and set(obj) == {"dtype", "shape", "base64"}:
        dtype = {"float64": "<f8", "bool": np.uint8, "uint8": np.uint8}[obj["dtype"]]
        a = np.frombuffer(base64.b64decode(obj["base64"]), dtype=dtype).reshape(obj["shape"])
        return a.astype(bool) if obj["dtype"] == "bool" else a
    if isinstance(obj, dict):
        return {k: decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    return obj


X = [[1, 0], [0, 1], [1, 1]]
H1 = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
# With H1: Q = X·W_Q = [[1, 0], [1, 2], [2, 2]], K = [[2, 0], [0, 1], [2, 1]],
# V = [[1, 0], [0, 2], [1, 2]], and the scores Q·Kᵀ = [[2, 0, 2], [2, 2, 4], [4, 2, 6]].
SCORES = [[2, 0, 2], [2, 2, 4], [4, 2, 6]]
I2 = [[1, 0], [0, 1]]
SIN1, COS1, SIN2, COS2 = math.sin(1), math.cos(1), math.sin(2), math.cos(2)
SIN5, COS5 = math.sin(5), math.cos(5)


def one_head(**changes):
    return {"tokens": ["the", "cat", "sat"], "X": X, **H1, **changes}


def two_heads(heads=None, **changes):
    return {"X": X, "heads": heads or [H1, H1], "W_O": [[1, 0], [0, 1], [0, 0], [0, 0]],
            **changes}


def grouped(**changes):
    """Four query heads on two key/value heads (query heads 1, 2 read key/value head 1)."""
    return copy.deepcopy({  # no list shared, so that a test may change one cell
        "X": X, "heads": [{"W_Q": [[1, 0], [1, 2]]}, {"W_Q": [[1, 0], [0, 1]]},
                          {"W_Q": [[0, 1], [1, 0]]}, {"W_Q": [[1, 1], [0, 1]]}],
        "kv_heads": [{"W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]},
                     {"W_K": [[1, 0], [0, 1]], "W_V": [[1], [-1]]}],
        "W_O": np.eye(6, 2).tolist(), **changes})  # d_v 2 + 2 + 1 + 1


def ok(client, body, path="/api/attention"):
    """The answer to ``body`` (at ``path``), checked to be a 200 of strict JSON."""
    r = post(client, body, path=path)
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "application/json"
    return strict_loads(r.get_data(as_text=True))


def masked(rows):
    """An answer's scaled scores with null (JSON's −∞) back as −∞."""
    return [[-math.inf if v is None else v for v in row] for row in rows]


def close(actual, expected):
    np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float),
                               rtol=1e-12, atol=1e-12)


def agree(head, ref):
    """One head's answer and the reference's agree to 1e-12."""
    for name in ("Q", "K", "V", "scores", "weights", "output"):
        close(head[name], ref[name])
    close(masked(head["scaled_scores"]), ref["scaled_scores"])
    assert head["mask"] == ref["allowed"]
    if ref["bias"] is not None:
        close(head["bias"], ref["bias"])


HTTP_API = Path(__file__).resolve().parents[2] / "docs/http-api.md"


def guide_requests(route="/api/attention"):
    """The request bodies of docs/http-api.md's JSON blocks (some indented under a list item) for
    ``route``: a body naming a "model" is the real models' (/api/model/attention)."""
    blocks = re.findall(r"^ *```json\n(.*?)^ *```", HTTP_API.read_text(), re.M | re.S)
    return [b for b in map(json.loads, blocks) if ("model" in b) == (route != "/api/attention")]


def docs_requests(client, route="/api/attention"):
    r = client.get("/api/docs")
    assert r.status_code == 200
    blocks = re.findall(r'<pre tabindex="0"><code>(\{.*?\})</code></pre>',
                        r.get_data(as_text=True), re.S)
    bodies = [json.loads(html.unescape(b)) for b in blocks]
    return [b for b in bodies if ("model" in b) == (route != "/api/attention")]
