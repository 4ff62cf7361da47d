"""answer_size: the numbers of an answer, counted before anything is computed, against hand
counts and against the numbers real answers hold; the 422 beyond MAX_ANSWER_CELLS."""

import base64
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from attention_api.attention import routes
from attention_api.attention.answer_size import answer_cells
from attention_api.attention.request import (
    CORNERED,
    HEAD_FIELDS,
    RESPONSE_FIELDS,
    WORKING_PARTS,
    Limits,
    parse_request,
)

ROOT = Path(__file__).resolve().parents[3]
ITEM_BYTES = {"float64": 8, "bool": 1, "uint8": 1}


def numbers_in(answer) -> int:
    """The test's own count: every number, true/false and null of a decoded JSON answer
    (labels and warnings are text); an EncodedArray holds as many as its shape says, and
    its bytes are checked to be that many."""
    if isinstance(answer, dict):
        if set(answer) == {"dtype", "shape", "base64"}:
            cells = math.prod(answer["shape"])
            assert len(base64.b64decode(answer["base64"])) == cells * ITEM_BYTES[answer["dtype"]]
            return cells
        return sum(numbers_in(v) for v in answer.values())
    if isinstance(answer, list):
        return sum(numbers_in(v) for v in answer)
    return 0 if isinstance(answer, str) else 1  # int, float, bool or None (a −∞ or +∞)


def post(client, body):
    return client.post("/api/attention", data=json.dumps(body), content_type="application/json")


def counted(body) -> int:
    return answer_cells(parse_request(body))


HEAD = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
KV = {"W_K": HEAD["W_K"], "W_V": HEAD["W_V"]}  # a key/value head for kv_heads


def two_heads(**changes):
    return {"X": [[1, 0], [0, 1], [1, 1]], "heads": [HEAD, HEAD],
            "W_O": [[1, 0], [0, 1], [0, 0], [0, 0]], **changes}


# n = 3 queries, d_model = d_k = d_v = 2. Every field: causal, d_k and scale are one number
# each; Q, K, V and the output 3 × 2 = 6; scores, scaled scores, mask and weights 3 × 3 = 9.
WHOLE = 3 + 4 * 6 + 4 * 9  # 63
# The working of a row (m = 3 keys): row, scale, exp_sum, exp_overflow, shift,
# exp_shifted_sum, entropy, jacobian_norm (8 single numbers); q and z (2 each); dots, scaled,
# allowed, exp, exp_shifted, weights (3 each); k, v, products, terms (3 × 2 each).
WORKING = 8 + 2 * 2 + 6 * 3 + 4 * 6  # 54


@pytest.mark.parametrize("changes, expected", [
    ({}, WHOLE),
    ({"row": 2}, WHOLE + WORKING),
    ({"row": 2, "fields": ["working.q", "working.token"]}, 1 + 2),  # the row comes along
    # causal: query i reads keys 0…i, so 1, 2 and 3 [j, weight] pairs of 2 numbers
    ({"causal": True, "fields": ["strongest_keys"]}, (1 + 2 + 3) * 2),
    # and with a mask the first query may read no key, the second two of three
    ({"causal": True, "fields": ["strongest_keys"],
      "mask": [[False, False, False], [True, True, True], [True, True, True]]}, (0 + 2 + 3) * 2),
    ({"fields": ["weights_u8[:2]", "Q[:1,:1]", "K[:9,:9]", "d_k"]}, 2 * 3 + 1 + 6 + 1),
    # five tokens: at most 3 keys per query, so 5 × 3 pairs; causal, 1, 2, 3, 3 and 3
    ({"X": [[1, 0]] * 5, "tokens": None, "fields": ["strongest_keys"]}, 5 * 3 * 2),
    ({"X": [[1, 0]] * 5, "tokens": None, "fields": ["strongest_keys"], "causal": True},
     (1 + 2 + 3 + 3 + 3) * 2),
    ({"fields": []}, 0),
    # RoPE: Q_unrotated and K_unrotated, 6 each; its working adds q_unrotated (2),
    # k_unrotated (3 × 2), position, positions_k (3), frequencies and angles (1 pair each)
    # and angles_k (3 × 1). RoPE adds nothing to X, so there is no positional_encoding.
    ({"positional": "rope"}, WHOLE + 12),
    ({"positional": "rope", "rope_base": 100, "position_offset": 7, "row": 0},
     WHOLE + 12 + WORKING + 2 + 6 + 1 + 3 + 1 + 1 + 3),
    ({"positional": "sinusoidal", "position_offset": 7}, WHOLE + 6),  # the 3 × 2 encoding
    # ALiBi: bias (3 × 3) and alibi_slope; in the working bias (3) and alibi_slope
    ({"positional": "alibi"}, WHOLE + 9 + 1),
    ({"positional": "alibi", "alibi_slopes": [0.5], "row": 1}, WHOLE + 10 + WORKING + 3 + 1),
    # biases: only the working shows them, q_unbiased and b_Q 2 each, k_unbiased and
    # v_unbiased 3 × 2, b_K and b_V 2 each
    ({"b_Q": [1, 0], "b_K": [0, 1], "b_V": [1, 1]}, WHOLE),
    ({"b_Q": [1, 0], "b_K": [0, 1], "b_V": [1, 1], "row": 2}, WHOLE + WORKING + 20),
    ({"b_K": [0, 1], "row": 2}, WHOLE + WORKING + 8),
    # window: window and in_window (3); sinks and sink (3) only with a window and sinks > 0
    ({"window": 2, "row": 0}, WHOLE + WORKING + 4),
    ({"window": 2, "sinks": 1, "row": 0}, WHOLE + WORKING + 8),
    ({"window": 2, "sinks": 0, "row": 0}, WHOLE + WORKING + 4),
    ({"sinks": 2, "row": 0}, WHOLE + WORKING),
    # a causal window of 1 with one sink: queries read keys {0}, {0, 1}, {0, 2}
    ({"causal": True, "window": 1, "sinks": 1, "fields": ["strongest_keys"]}, (1 + 2 + 2) * 2),
    ({"positional": "alibi", "fields": ["bias[:2,:1]", "alibi_slope", "working.bias"]}, 2 + 1),
    ({"positional": "rope", "row": 1, "fields": ["Q_unrotated[:1]", "K_unrotated[:9,:1]",
                                                 "working.angles_k", "working.position"]},
     2 + 3 + (1 + 3 + 1)),
])
def test_one_head_counted_by_hand(client, cat_sat, changes, expected):
    body = {**cat_sat, **changes}
    assert counted(body) == expected
    r = post(client, body)
    assert r.status_code == 200
    assert numbers_in(r.get_json()) == expected


@pytest.mark.parametrize("changes, expected", [
    # every head's weights, head 2's Q cut to 2 × 1, concat's first row (of 2 + 2 columns);
    # a top-level strongest_keys is nothing with several heads (they are per head).
    ({"fields": ["heads.weights", "heads[1].Q[:2,:1]", "concat[:1]", "strongest_keys"]},
     2 * 9 + 2 + 4),
    # cross-attention: m = 2 keys of d_model = 2; the working's k (2 × 2) and allowed (2)
    ({"X_kv": [[1, 0], [0, 1]], "positional": "sinusoidal", "row": 0,
      "fields": ["positional_encoding_kv", "heads[0].working.k", "heads.working.allowed",
                 "heads.weights_u8[:1]"]}, 4 + (1 + 4 + 2) + (1 + 2) + 2 * 2),
    ({"fields": ["heads"]}, 2 * (WHOLE - 1)),  # causal is not a head's own
    # grouped-query heads: each query head's answer names its kv_head, one number; then
    # causal, concat (3 × 4) and the output (3 × 2)
    ({"kv_heads": [KV], "heads": [{"W_Q": HEAD["W_Q"]}] * 2}, 2 * (WHOLE - 1 + 1) + 1 + 12 + 6),
    ({"kv_heads": [KV] * 2, "heads": [{"W_Q": HEAD["W_Q"], "b_Q": [1, 1]}] * 2, "row": 1,
      "positional": "rope",
      "fields": ["heads.kv_head", "heads[1].working.angles_k", "heads.Q_unrotated[:2,:1]",
                 "heads[0].working.b_Q"]}, 2 * 1 + (1 + 3) + 2 * 2 + (1 + 2)),
    ({"positional": "alibi", "alibi_slopes": [1, 0], "fields": ["heads.bias", "heads.alibi_slope"]},
     2 * (9 + 1)),
    ({"positional": "sinusoidal", "fields": ["positional_encoding"]}, 6),
    ({"positional": "alibi", "fields": ["positional_encoding"]}, 0),
])
def test_several_heads_counted_by_hand(client, changes, expected):
    body = two_heads(**changes)
    assert counted(body) == expected
    r = post(client, body)
    assert r.status_code == 200
    assert numbers_in(r.get_json()) == expected


def _fields(draw, heads: int):
    """A random valid fields list: names of the answer, some cut to corners. A request of
    one head sent as W_Q, W_K, W_V (``heads`` 0) has no heads list to name parts of."""
    each_head = [f"heads.{f}" for f in HEAD_FIELDS] if heads else []
    names = [*RESPONSE_FIELDS, *WORKING_PARTS, *each_head,
             *(f"heads[{k}].{f}" for k in range(heads) for f in HEAD_FIELDS)]
    derived = ["weights_u8", "strongest_keys",
               *(["heads.weights_u8", "heads.strongest_keys"] if heads else [])]
    chosen = draw(st.lists(st.one_of(st.sampled_from(names), st.sampled_from(derived)),
                           unique=True, max_size=8))  # the derived ones drawn more often
    out = []
    for name in chosen:
        if name.rsplit(".", 1)[-1] in CORNERED and "working." not in name and draw(st.booleans()):
            r, c = draw(st.integers(1, 6)), draw(st.one_of(st.none(), st.integers(1, 6)))
            name += f"[:{r}]" if c is None else f"[:{r},:{c}]"
        out.append(name)
    return out


@st.composite
def requests(draw):
    """Small random requests of every form: one head or several (their keys and values
    shared or not), self or cross, masks, biases, every kind of position, a window and
    sinks, a working row, fields and either encoding."""
    ints = st.integers(-3, 3)
    n, m, d = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 3))
    matrix = lambda rows, cols: draw(st.lists(st.lists(ints, min_size=cols, max_size=cols),  # noqa: E731
                                             min_size=rows, max_size=rows))
    cross = draw(st.booleans())
    m = m if cross else n
    positional = draw(st.sampled_from([None, "sinusoidal", "rope", "alibi"]))
    body = {"X": matrix(n, d), "causal": draw(st.booleans()), "positional": positional,
            "encoding": draw(st.sampled_from(["json", "base64"]))}
    if cross:
        body["X_kv"] = matrix(m, d)
    if draw(st.booleans()):
        body["mask"] = draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m),
                                     min_size=n, max_size=n))
    if draw(st.booleans()):
        body["row"] = draw(st.integers(0, n - 1))
    if positional in ("sinusoidal", "rope") and draw(st.booleans()):
        body["position_offset"] = draw(st.integers(0, 1_000_000))
    if positional == "rope" and draw(st.booleans()):
        body["rope_base"] = draw(st.sampled_from([2.5, 100, 10000]))
    for name, low in (("window", 1), ("sinks", 0)):
        if draw(st.booleans()):
            body[name] = draw(st.integers(low, 6))
    heads = draw(st.integers(0, 4))  # 0: one head sent as W_Q, W_K, W_V
    H = max(heads, 1)
    shared = heads and draw(st.booleans())
    G = draw(st.sampled_from([g for g in range(1, H + 1) if H % g == 0])) if shared else H
    widths = st.sampled_from([2, 4]) if positional == "rope" else st.integers(1, 3)  # RoPE: even
    shapes = [(draw(widths), draw(st.integers(1, 3))) for _ in range(G)]  # (d_k, d_v) of each

    def biases(**lengths):
        return {b: draw(st.lists(ints, min_size=k, max_size=k))
                for b, k in lengths.items() if draw(st.booleans())}
    kv = [{"W_K": matrix(d, d_k), "W_V": matrix(d, d_v), **biases(b_K=d_k, b_V=d_v)}
          for d_k, d_v in shapes]
    mine = [shapes[h * G // H] for h in range(H)]  # the shapes of the key/value head h reads
    queries = [{"W_Q": matrix(d, d_k), **biases(b_Q=d_k)} for d_k, _ in mine]
    if shared:
        body.update(heads=queries, kv_heads=kv)
    elif heads:
        body["heads"] = [q | k for q, k in zip(queries, kv, strict=True)]
    else:
        body.update(queries[0] | kv[0])
    if heads:
        body["W_O"] = matrix(sum(d_v for _, d_v in mine), draw(st.integers(1, 3)))
    if positional == "alibi" and draw(st.booleans()):
        body["alibi_slopes"] = draw(st.lists(st.sampled_from([0, 0.25, 2]), min_size=H,
                                             max_size=H))
    if draw(st.booleans()):
        body["fields"] = _fields(draw, heads)
    return body


SHARED = create_app({"TESTING": True})  # one app for every example hypothesis draws


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_the_count_is_the_number_of_numbers_in_the_answer(body):
    r = post(SHARED.test_client(), body)
    assert r.status_code == 200, r.get_json()
    assert counted(body) == numbers_in(r.get_json())


def test_an_answer_of_exactly_the_limit_is_sent_and_one_more_is_a_422(cat_sat):
    body = {**cat_sat, "row": 1}  # WHOLE + WORKING = 117 numbers
    at = create_app({"TESTING": True, "MAX_ANSWER_CELLS": 117}).test_client()
    r = post(at, body)
    assert r.status_code == 200 and numbers_in(r.get_json()) == 117
    below = create_app({"TESTING": True, "MAX_ANSWER_CELLS": 116}).test_client()
    r = post(below, body)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == "fields"
    # 14 of the 117 are true/false (causal, exp_overflow, mask's 9, allowed's 3): roughly
    # 103 × 20 + 14 × 5.5 = 2137 bytes as JSON, 103 × 32/3 + 14 × 4/3 = 1117 as base64.
    assert error["message"].startswith(
        "This answer would hold 117 numbers (about 2.14 kB as JSON, about 1.12 kB with "
        '"encoding": "base64"), more than this server\'s limit of 116 numbers in one answer. '
        "Its largest parts: scores (9), scaled_scores (9), mask (9).")
    assert '"K[:16,:16]"' in error["message"] and "base64" in error["message"]
    # Asking for less brings it under the limit.
    r = post(below, {**body, "fields": ["weights", "working.weights", "Q[:1]"]})
    assert r.status_code == 200 and numbers_in(r.get_json()) == 9 + (1 + 3) + 2


def test_a_request_over_the_limit_is_refused_before_anything_is_computed(monkeypatch):
    """The issue's request: 157 KB, within every other limit, 16 heads × 512 tokens."""
    computed = []
    monkeypatch.setattr(routes, "compute", lambda req: computed.append(req))
    rng = np.random.default_rng(1)
    draw = lambda *shape: rng.normal(size=shape).round(3).tolist()  # noqa: E731
    body = {"X": draw(512, 1), "X_kv": draw(512, 1), "row": 3, "W_O": draw(16 * 256, 1),
            "heads": [{"W_Q": draw(1, 256), "W_K": draw(1, 256), "W_V": draw(1, 256)}] * 16}
    r = post(create_app({"TESTING": True}).test_client(), body)
    assert r.status_code == 422 and computed == []
    # Per head (n = m = 512, d_k = d_v = 256): Q, K, V, output 4 × 131 072; four n × m
    # matrices 4 × 262 144; d_k and scale; the working: 8 numbers, q and z 256 each, six
    # vectors of 512, k, v, products and terms 4 × 131 072. Then concat (512 × 4096), the
    # output (512 × 1) and causal.
    head = 4 * 131_072 + 4 * 262_144 + 2 + 8 + 2 * 256 + 6 * 512 + 4 * 131_072
    total = 16 * head + 512 * 4096 + 512 + 1
    message = r.get_json()["error"]["message"]
    assert message.startswith(f"This answer would hold {total:,} numbers (about 653 MB as JSON")
    assert f"more than this server's limit of {Limits.max_answer_cells:,} numbers" in message
    assert '"heads.K[:16,:16]"' in message


def page_fields(n: int, m: int, heads: int) -> list[str]:
    """What the page asks of POST /api/attention for this view, from its own code (main.js
    adds exactFields to fieldsFor beyond the table's size)."""
    script = (
        "import { fieldsFor } from './static/js/editor/results/results.js';"
        "import { exactFields } from './static/js/draw/readout.js';"
        "import { TABLE_MAX } from './static/js/draw/heatmap.js';"
        f"const [n, m, multi] = [{n}, {m}, {'true' if heads > 1 else 'false'}];"
        "const exact = Math.max(n, m) > TABLE_MAX ? exactFields(n, m, multi, 0) : [];"
        "console.log(JSON.stringify([...fieldsFor(n, multi, 0, m), ...exact]));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("n, m, heads", [(512, 512, 16), (512, 512, 1), (128, 100, 16)])
def test_the_page_s_largest_views_are_well_within_the_default(client, n, m, heads):
    """With d_k = d_v = 256 (the widest; d_model 1 keeps the body within 5 MiB), positions,
    cross-attention and a working row."""
    rng = np.random.default_rng(2)
    draw = lambda *shape: rng.normal(size=shape).round(3).tolist()  # noqa: E731
    one = {"W_Q": draw(1, 256), "W_K": draw(1, 256), "W_V": draw(1, 256)}
    body = {"X": draw(n, 1), "X_kv": draw(m, 1), "row": n - 1, "positional": "sinusoidal",
            "fields": page_fields(n, m, heads), "encoding": "base64",
            **({"heads": [one] * heads, "W_O": draw(heads * 256, 1)} if heads > 1 else one)}
    cells = counted(body)
    assert cells <= Limits.max_answer_cells / 2
    r = post(client, body)
    assert r.status_code == 200 and numbers_in(r.get_json()) == cells
