"""POST /api/tiles (attention_api/running/tiles.py, answer.py): a row's pass through
FlashAttention's tiles, its numbers those of a hand calculation and of the independent loops
of tests/reference_modern.py, its answer the documented schema, and every bad input a 422
naming the field with its value."""

import json
import math

import jsonschema_rs
import numpy as np
import pytest

from tests.api import helpers
from tests.api.helpers import X, close, grouped, one_head, two_heads
from tests.reference import reference_sinusoidal
from tests.reference_modern import reference_grouped, reference_modern


def post(client, body, content_type="application/json"):
    return helpers.post(client, body, content_type, path="/api/tiles")


def tiles(client, body):
    """The 200 answer to ``body``, read as strict JSON (no Infinity or NaN tokens)."""
    return helpers.ok(client, body, path="/api/tiles")


def minus_inf(values):
    """null (JSON's −∞) back as −∞."""
    return [-math.inf if v is None else v for v in values]


def test_three_tokens_one_key_per_tile_by_hand(client):
    """Row 3 of the cat-sat example with scale 1: q_3 = [2, 2] and the scores 4, 2, 6 (see
    helpers.SCORES); V = [[1, 0], [0, 2], [1, 2]]. Key by key: m −∞ → 4 → 4 → 6, rescale
    0 (the first key), 1 (the maximum stays), e^(4−6) = e^−2; ℓ 1, 1 + e^−2, then
    e^−2(1 + e^−2) + 1 = 1 + e^−2 + e^−4; O [1, 0], [1, 2e^−2], [1 + e^−2, 2 + 2e^−4]."""
    a = tiles(client, one_head(row=2, block_q=1, block_k=1, scale=1))
    e2, e4 = math.exp(-2), math.exp(-4)
    assert set(a) == {"rows", "tiles", "final", "memory"}
    assert a["rows"] == [2, 3]  # B_r = 1: query block 2 is row 2 alone
    t = a["tiles"]
    assert [set(tile) for tile in t] == [{
        "key_block", "keys", "skipped", "m_before", "m_after", "l_before", "l_after", "O_before",
        "O_after", "rescale", "scores"}] * 3
    assert [x["key_block"] for x in t] == [0, 1, 2]
    assert [x["keys"] for x in t] == [[0, 1], [1, 2], [2, 3]]
    assert [x["m_before"] for x in t] == [None, 4, 4]  # −∞ is null
    assert [x["m_after"] for x in t] == [4, 4, 6]
    close([x["rescale"] for x in t], [0, 1, e2])
    close([x["l_before"] for x in t], [0, 1, 1 + e2])
    close([x["l_after"] for x in t], [1, 1 + e2, 1 + e2 + e4])
    close([x["O_before"] for x in t], [[0, 0], [1, 0], [1, 2 * e2]])
    close([x["O_after"] for x in t], [[1, 0], [1, 2 * e2], [1 + e2, 2 + 2 * e4]])
    assert [x["scores"] for x in t] == [[4], [2], [6]]
    assert not any(x["skipped"] for x in t)
    close(a["final"]["z"], [(1 + e2) / (1 + e2 + e4), (2 + 2 * e4) / (1 + e2 + e4)])
    close(a["final"]["logsumexp"], math.log(math.exp(4) + math.exp(2) + math.exp(6)))
    assert a["memory"] == {"held": 1, "whole": 9}


def test_causal_blocks_of_two_skip_the_tile_above_the_diagonal(client):
    """Four tokens, causal, B_r = B_c = 2: row 1 (query block 0) skips key block 1 (keys 2, 3
    come after both its queries), whose scores are never computed: all null. Row 3 (query
    block 1) skips nothing; row 2 computes key block 1 for row 3's sake, key 3 masked."""
    body = {"X": [[1], [2], [-1], [0.5]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]],
            "causal": True, "block_q": 2, "block_k": 2}
    row1 = tiles(client, {**body, "row": 1})
    assert [x["skipped"] for x in row1["tiles"]] == [False, True]
    assert row1["rows"] == [0, 2]
    assert [x["keys"] for x in row1["tiles"]] == [[0, 2], [2, 4]]
    assert row1["tiles"][1]["scores"] == [None, None]
    assert row1["tiles"][1]["rescale"] == 1
    assert row1["tiles"][1]["m_after"] == row1["tiles"][0]["m_after"] == 4  # max(2·1, 2·2)
    row3 = tiles(client, {**body, "row": 3})
    assert [x["skipped"] for x in row3["tiles"]] == [False, False]
    assert row3["rows"] == [2, 4]
    row2 = tiles(client, {**body, "row": 2})
    assert row2["tiles"][1]["scores"] == [1, None]  # (−1)·(−1); key 3 is after query 2
    assert row3["memory"] == {"held": 4, "whole": 16}


def test_a_row_that_may_read_no_key_has_z_0_and_a_null_logsumexp(client):
    mask = [[False, False, False], [True, True, True], [True, True, True]]
    a = tiles(client, one_head(row=0, block_q=1, block_k=2, mask=mask))
    assert a["final"] == {"z": [0, 0], "logsumexp": None}
    assert [x["skipped"] for x in a["tiles"]] == [True, True]
    assert all(x["m_after"] is None and x["l_after"] == 0 for x in a["tiles"])


def final_of_reference(ref, i):
    """z_i and ln Σ_j e^(s_ij) over the permitted keys, from the reference's own numbers."""
    s = [x for x in ref["scaled_scores"][i] if x != -math.inf]
    top = max(s)
    return ref["output"][i], top + math.log(sum(math.exp(x - top) for x in s))


@pytest.mark.parametrize("block_q, block_k", [(1, 1), (2, 3), (5, 5)])
def test_sinusoidal_cross_attention_agrees_with_the_reference(client, block_q, block_k):
    """Positions are added to X and X_kv before the projections, as POST /api/attention does."""
    X_kv = [[1, 1], [2, 0], [0, 3], [1, -1]]
    body = one_head(X_kv=X_kv, positional="sinusoidal", causal=True, row=1,
                    block_q=block_q, block_k=block_k)
    pe, pe_kv = reference_sinusoidal(3, 2), reference_sinusoidal(4, 2)
    add = [[a + b for a, b in zip(r, p, strict=True)] for r, p in zip(X, pe, strict=True)]
    add_kv = [[a + b for a, b in zip(r, p, strict=True)] for r, p in zip(X_kv, pe_kv,
                                                                         strict=True)]
    ref = reference_modern(add, body["W_Q"], body["W_K"], body["W_V"], X_kv=add_kv,
                           causal=True)
    a = tiles(client, body)
    z, lse = final_of_reference(ref, 1)
    close(a["final"]["z"], z)
    close(a["final"]["logsumexp"], lse)
    assert len(a["tiles"]) == math.ceil(4 / block_k)
    # The key blocks cover the 4 keys in order, the last one shorter where B_c does not divide 4.
    assert [x["keys"] for x in a["tiles"]] == [[c, min(c + block_k, 4)]
                                               for c in range(0, 4, block_k)]
    assert a["rows"] == [1 // block_q * block_q, min(1 // block_q * block_q + block_q, 3)]
    assert a["memory"] == {"held": min(block_q, 3) * min(block_k, 4), "whole": 12}


def test_the_head_asked_of_several_is_the_one_traced(client):
    H2 = {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]], "W_V": [[0.5, 0], [1, -1]],
          "b_Q": [1, 0], "b_V": [0, 2]}
    H1 = {k: v for k, v in one_head().items() if k.startswith("W_")}
    body = two_heads([H1, H2], row=2, block_q=2, block_k=2, positional="alibi",
                     alibi_slopes=[0.5, 0.25])
    ref = reference_modern(X, **H2, alibi_slope=0.25)
    a = tiles(client, {**body, "head": 1})
    z, lse = final_of_reference(ref, 2)
    close(a["final"]["z"], z)
    close(a["final"]["logsumexp"], lse)
    close(minus_inf(a["tiles"][1]["scores"]), ref["scaled_scores"][2][2:])
    first = tiles(client, body)  # head 0 by default
    close(first["final"]["z"], reference_modern(X, **H1, alibi_slope=0.5)["output"][2])


def test_a_grouped_query_head_reads_its_key_value_head_with_rope_and_a_window(client):
    body = grouped(row=2, block_q=1, block_k=2, head=3, positional="rope", position_offset=5,
                   window=2, sinks=1, causal=True)
    ref = reference_grouped(X, body["heads"], body["kv_heads"], body["W_O"], causal=True,
                            rope_base=10000.0, position_offset=5, window=2, sinks=1)
    a = tiles(client, body)
    z, lse = final_of_reference(ref["heads"][3], 2)
    close(a["final"]["z"], z)
    close(a["final"]["logsumexp"], lse)


def test_the_answer_is_the_documented_schema(client):
    spec = client.get("/api/openapi.json").get_json()
    validator = jsonschema_rs.Draft202012Validator(
        {"$ref": "#/components/schemas/TilesAnswer", "components": spec["components"]})
    for body in (one_head(row=2, block_q=1, block_k=1), one_head(row=0, block_q=3, block_k=2,
                                                                causal=True)):
        validator.validate(tiles(client, body))
    example = spec["paths"]["/api/tiles"]["post"]["requestBody"]["content"][
        "application/json"]["examples"]["example"]["value"]
    validator.validate(tiles(client, example))


GOOD = one_head(row=2, block_q=2, block_k=2)


@pytest.mark.parametrize("change, field, words", [
    ({"block_q": 0}, "block_q", "got 0"),
    ({"block_q": 1.5}, "block_q", "got 1.5"),
    ({"block_q": "2"}, "block_q", 'got the string "2"'),
    ({"block_k": True}, "block_k", "got true"),
    ({"block_k": -3}, "block_k", "got -3"),
    ({"block_k": None}, "block_k", "got null"),
    ({"row": 3}, "row", "got 3"),
    ({"row": -1}, "row", "got -1"),
    ({"row": "1"}, "row", 'got the string "1"'),
    ({"head": 1}, "head", "got 1"),
    ({"zz": 1}, "zz", 'Unknown field "zz"'),
    ({"fields": ["z"]}, "fields", 'Unknown field "fields"'),
    ({"encoding": "base64"}, "encoding", 'Unknown field "encoding"'),
    ({"W_K": [[1, 0, 0], [0, 1, 0]]}, "W_K", "W_Q has 2 columns but W_K has 3"),
])
def test_each_bad_input_is_a_422_naming_the_field_and_its_value(client, change, field, words):
    r = post(client, {**GOOD, **change})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == field and words in error["message"], error


@pytest.mark.parametrize("missing", ["row", "block_q", "block_k", "X"])
def test_a_missing_field_is_a_422_naming_it(client, missing):
    r = post(client, {k: v for k, v in GOOD.items() if k != missing})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == missing


def test_with_several_heads_the_head_is_checked_and_its_own_inputs_named(client):
    body = two_heads(row=0, block_q=1, block_k=1)
    r = post(client, {**body, "head": 2})
    assert r.status_code == 422
    assert r.get_json()["error"] == {
        "message": "head must be a whole number from 0 to 1 (the head, 0-based, of 2 heads), "
                   "got 2", "field": "head"}
    wide = {**body["heads"][1], "W_K": [[1, 0, 0], [0, 1, 0]]}
    r = post(client, {**body, "heads": [body["heads"][0], wide], "head": 1})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "heads[1].W_K"
    assert r.get_json()["error"]["message"].startswith("Head 2: ")


def test_a_score_beyond_float64_is_named_as_post_api_attention_names_it(client):
    body = {"X": [[1e160]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "row": 0}
    r = post(client, {**body, "block_q": 1, "block_k": 1})
    same = client.post("/api/attention", json=body)
    assert r.status_code == same.status_code == 422
    assert r.get_json() == same.get_json()
    assert "the score of query 1 for key 1" in r.get_json()["error"]["message"]


def test_a_body_that_is_not_an_object_json_or_json_at_all(client):
    r = post(client, [1, 2])
    assert r.status_code == 422 and r.get_json()["error"]["field"] is None
    assert post(client, "{not json").status_code == 400
    assert post(client, json.dumps(GOOD), content_type="text/plain").status_code == 415
    assert client.get("/api/tiles").status_code == 405


def test_blocks_larger_than_the_sequence_hold_it_whole_in_one_tile(client):
    a = tiles(client, one_head(row=1, block_q=5, block_k=5))
    assert len(a["tiles"]) == 1 and a["memory"] == {"held": 9, "whole": 9}
    assert np.isfinite(a["tiles"][0]["scores"]).all()


def test_whole_numbers_sent_as_floats_are_those_numbers(client):
    """The document's "integer" takes 2.0 as JSON Schema does: row, block_q, block_k and head
    as floats give the answer of the same ints."""
    body = {**one_head(), "causal": True}
    as_ints = tiles(client, {**body, "row": 2, "block_q": 2, "block_k": 1, "head": 0})
    assert tiles(client, {**body, "row": 2.0, "block_q": 2.0, "block_k": 1.0,
                          "head": 0.0}) == as_ints
