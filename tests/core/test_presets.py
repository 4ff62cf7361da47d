"""GET /api/presets (attention_core/presets.py): each example's one sentence is true of its
numbers. The weights are computed here with numpy, independently of the engine (rotations
written as 2 × 2 matrices, ALiBi's bias and the window's band as index arithmetic), checked
against the sentence, and then against the engine's answer."""

import json

import numpy as np
import pytest


def softmax(scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Each row's softmax over its allowed keys; 0 elsewhere."""
    s = np.where(allowed, scores, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def turned(M: np.ndarray, offset: int = 0) -> np.ndarray:
    """Each row p of an (n, 2) matrix turned by p + offset radians (RoPE with d_k = 2:
    θ^(−2·0/2) = 1 radian per position, whatever θ)."""
    out = np.empty_like(M)
    for p, (a, b) in enumerate(M):
        c, s = np.cos(p + offset), np.sin(p + offset)
        out[p] = [a * c - b * s, a * s + b * c]
    return out


def head_weights(r: dict, W_Q, W_K, slope=None, offset=0) -> tuple[np.ndarray, np.ndarray]:
    """(the scaled scores, the weights) of one head of the request ``r``."""
    X = np.array(r["X"], float)
    Q, K = X @ np.array(W_Q, float), X @ np.array(W_K, float)
    if r.get("positional") == "rope":
        Q, K = turned(Q, offset), turned(K, offset)
    n, d_k = len(X), Q.shape[1]
    i, j = np.indices((n, n))
    scaled = Q @ K.T / np.sqrt(d_k) + (0 if slope is None else -slope * abs(i - j))
    allowed = np.ones((n, n), bool)
    if r.get("causal"):
        allowed &= j <= i
    if r.get("window") is not None:
        allowed &= (abs(i - j) < r["window"]) | (j < r.get("sinks", 0))
    return scaled, softmax(scaled, allowed)


def all_weights(r: dict) -> list[np.ndarray]:
    """Every head's weights: one head, or query heads reading their key/value heads in
    order, H / G consecutive query heads to each."""
    if "heads" not in r:
        slope = r["alibi_slopes"][0] if r.get("positional") == "alibi" else None
        return [head_weights(r, r["W_Q"], r["W_K"], slope)[1]]
    H, G = len(r["heads"]), len(r["kv_heads"])
    return [head_weights(r, q["W_Q"], r["kv_heads"][h // (H // G)]["W_K"])[1]
            for h, q in enumerate(r["heads"])]


@pytest.fixture(scope="module")
def presets():
    from app import create_app
    r = create_app({"TESTING": True}).test_client().get("/api/presets")
    assert r.status_code == 200
    return {p["name"]: p for p in r.get_json()["presets"]}


def test_the_cat_sat_is_three_tokens_in_two_dimensions_small_enough_for_a_hand(presets):
    p = presets["the cat sat"]
    assert p["description"] == "Three tokens in two dimensions, small enough to check by hand."
    r = p["request"]
    assert len(r["tokens"]) == 3 and np.shape(r["X"]) == (3, 2)
    for name in ("X", "W_Q", "W_K", "W_V"):  # small whole numbers
        assert all(v == int(v) and abs(v) <= 2 for row in r[name] for v in row)


def test_equal_scores_read_every_key_equally(presets):
    p = presets["equal scores"]
    assert p["description"] == ("W_Q is zero, so every score is 0 and each token reads all "
                                "keys equally.")
    r = p["request"]
    assert not np.any(r["W_Q"])
    scaled, A = head_weights(r, r["W_Q"], r["W_K"])
    assert np.all(scaled == 0)
    assert np.allclose(A, 1 / len(r["X"]), rtol=0, atol=1e-12)


def test_sharp_attention_puts_almost_all_of_each_row_on_one_key(presets):
    p = presets["sharp attention"]
    assert p["description"] == ("Large weights make large scores, so the softmax puts almost "
                                "all of each row's weight, over 0.98, on one key.")
    r = p["request"]
    A = all_weights(r)[0]
    assert np.all(A.max(axis=1) > 0.98), A


def test_a_causal_sentence_reads_only_itself_and_the_past(presets):
    p = presets["a causal sentence"]
    assert p["description"] == ("Four tokens with the causal mask on: each reads only itself "
                                "and the past.")
    r = p["request"]
    assert len(r["tokens"]) == 4 and r["causal"] is True
    A = all_weights(r)[0]
    i, j = np.indices(A.shape)
    assert np.all(A[j > i] == 0) and np.all(A[j <= i] > 0)


def test_rotary_positions_make_a_score_depend_on_the_distance_alone(presets):
    p = presets["rotary positions"]
    assert p["description"] == ("The cat sat with RoPE: each q and k turns by 1 radian per "
                                "position (d_k = 2), so a score depends on how far apart two "
                                "tokens are.")
    r = p["request"]
    cat = presets["the cat sat"]["request"]
    assert {k: r[k] for k in cat} == cat and r["positional"] == "rope"
    assert np.shape(r["W_Q"])[1] == 2
    # Moved 5 places along, every pair keeps its distance and so its score; without the
    # rotation the scores are the cat sat's, which differ.
    at_0, _ = head_weights(r, r["W_Q"], r["W_K"])
    at_5, _ = head_weights(r, r["W_Q"], r["W_K"], offset=5)
    assert np.allclose(at_0, at_5, rtol=0, atol=1e-12)
    plain, _ = head_weights(cat, cat["W_Q"], cat["W_K"])
    assert not np.allclose(at_0, plain, atol=1e-3)


def test_grouped_query_heads_share_two_key_value_heads_in_pairs(client, presets):
    p = presets["grouped-query heads"]
    assert p["description"] == ("Four query heads share two key/value heads: heads 1 and 2 "
                                "read one K and V, heads 3 and 4 the other, as in Llama-style "
                                "models.")
    r = p["request"]
    assert len(r["heads"]) == 4 and len(r["kv_heads"]) == 2
    answer = client.post("/api/attention", data=json.dumps({**r, "fields": ["heads.K"]}),
                         content_type="application/json")
    assert answer.status_code == 200
    X = np.array(r["X"], float)
    K = [X @ np.array(kv["W_K"], float) for kv in r["kv_heads"]]
    shown = [np.array(h["K"]) for h in answer.get_json()["heads"]]
    for h, kv in enumerate([0, 0, 1, 1]):
        assert np.allclose(shown[h], K[kv], rtol=0, atol=1e-12)
    assert not np.allclose(K[0], K[1])


def test_alibi_alone_makes_the_nearer_keys_win(presets):
    p = presets["ALiBi"]
    assert p["description"] == ("W_Q is zero, so every score is 0: ALiBi's −0.5·|i − j| alone "
                                "makes the nearer keys win, with no position in X.")
    r = p["request"]
    assert not np.any(r["W_Q"]) and r["alibi_slopes"] == [0.5] and r["positional"] == "alibi"
    A = all_weights(r)[0]
    for i, row in enumerate(A):  # causal: keys 0 … i, each nearer one heavier
        assert np.all(np.diff(row[: i + 1]) > 0), row


def test_the_sliding_window_reads_the_3_most_recent_tokens_and_the_first(presets):
    p = presets["sliding window with a sink"]
    assert p["description"] == ("Six tokens, causal, a window of 3 and one sink: each reads the "
                                "3 most recent tokens and always the first.")
    r = p["request"]
    assert len(r["tokens"]) == 6 and r["causal"] and r["window"] == 3 and r["sinks"] == 1
    A = all_weights(r)[0]
    for i, row in enumerate(A):
        assert set(np.flatnonzero(row > 0)) == {0} | set(range(max(0, i - 2), i + 1))


def test_every_preset_is_checked_and_the_engine_computes_these_weights(client, presets):
    checked = {"the cat sat", "equal scores", "sharp attention", "a causal sentence",
               "rotary positions", "grouped-query heads", "ALiBi", "sliding window with a sink"}
    assert set(presets) == checked
    for name, p in presets.items():
        fields = ["heads.weights"] if "heads" in p["request"] else ["weights"]
        body = json.dumps({**p["request"], "fields": fields})
        answer = client.post("/api/attention", data=body, content_type="application/json")
        assert answer.status_code == 200, name
        got = answer.get_json()
        shown = [h["weights"] for h in got["heads"]] if "heads" in got else [got["weights"]]
        for A, B in zip(all_weights(p["request"]), shown, strict=True):
            assert np.allclose(A, B, rtol=0, atol=1e-12), name
