"""attention_api.attention.request: today's additions (b_Q, b_K, b_V; positional, rope_base,
position_offset, alibi_slopes; kv_heads; window and sinks) refused with a 422 that names the
field and carries its value, for every bad value, and the corners they still accept."""

import copy
import math

import numpy as np
import pytest

from tests.api.helpers import (
    H1,
    I2,
    close,
    grouped,
    ok,
    one_head,
    post,
    strict_loads,
    two_heads,
)

# ---- bad input: a 422 naming the field, its value in the message ----

FOUR = grouped()


def at(base, path, value):
    """A copy of ``base`` with the value at ``path`` (keys and indices) set, or deleted
    when ``value`` is DELETE."""
    body = copy.deepcopy(base)
    target = body
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


DELETE = object()
D3 = [[1, 0, 0], [0, 1, 0]]  # d_model 2 × d_k 3: odd, for RoPE
ROPE_TEXT = ("rotary positions turn the numbers of a query and a key in pairs, so d_k must be "
             "even; it is 3")


def _whole(name, low, meaning, got):
    return (f"{name} must be a whole number from {low} to 1,000,000 ({meaning}), got {got}")


OFFSET, WINDOW = "the position of the first token", "query i reads key j only when |i − j| < window"
SINKS = "the first keys, readable from every query whatever the window"

BAD = [
    # biases
    ("b_K too long", one_head(b_K=[1, 2, 3]), "b_K",
     "b_K has 3 numbers, but it is added to every row of K, which is d_k = 2 wide; it needs 2 "
     "numbers"),
    ("b_V too short", one_head(b_V=[1]), "b_V",
     "b_V has 1 number, but it is added to every row of V, which is d_v = 2 wide; it needs 2 "
     "numbers"),
    ("b_Q of head 2 too long", two_heads([H1, {**H1, "b_Q": [1, 2, 3]}]), "heads[1].b_Q",
     "Head 2: b_Q has 3 numbers, but it is added to every row of Q, which is d_k = 2 wide; it "
     "needs 2 numbers"),
    ("b_V of kv head 2 too long", at(FOUR, ("kv_heads", 1, "b_V"), [1, 2]), "kv_heads[1].b_V",
     "Key/value head 2: b_V has 2 numbers, but it is added to every row of V, which is d_v = 1 "
     "wide; it needs 1 number"),
    ("b_Q a string in it", one_head(b_Q=[1, "a"]), "b_Q[1]",
     'b_Q column 2 must be a number, got the string "a"'),
    ("b_K null in it", at(FOUR, ("kv_heads", 1, "b_K"), [None, 1]), "kv_heads[1].b_K[0]",
     "b_K key/value head 2 column 1 must be a number, got null"),
    ("b_Q of head 2 a bool in it", two_heads([H1, {**H1, "b_Q": [1, True]}]), "heads[1].b_Q[1]",
     "b_Q head 2 column 2 must be a number, got true"),
    ("b_V not a list", one_head(b_V=3), "b_V", "b_V must be a list of numbers, got 3"),
    ("b_K empty", one_head(b_K=[]), "b_K", "b_K has 0 numbers; it needs 1 to 256"),
    ("b_Q at the top of several heads", two_heads(b_Q=[1, 0]), "b_Q",
     "Send either W_Q, W_K and W_V (one head) or heads with W_O, not both; this request has "
     "heads and b_Q (with heads, each head carries its own weights and biases)"),
    # kv_heads
    ("kv_heads with one head", one_head(kv_heads=FOUR["kv_heads"]), "kv_heads",
     "kv_heads goes with heads; a single head sent as W_Q, W_K and W_V has no kv_heads"),
    ("kv_heads 3 for 4 heads", {**FOUR, "kv_heads": [FOUR["kv_heads"][0]] * 3}, "kv_heads",
     "kv_heads has 3 key/value heads but the request has 4 query heads; the query heads share "
     "them equally, so their number must divide 4 (1, 2, 4)"),
    ("kv_heads 2 for 1 head", {**FOUR, "heads": FOUR["heads"][:1], "W_O": I2}, "kv_heads",
     "kv_heads has 2 key/value heads but the request has 1 query head; the query heads share "
     "them equally, so their number must divide 1 (1)"),
    ("kv_heads empty", {**FOUR, "kv_heads": []}, "kv_heads",
     "kv_heads must be a list of 1 to 16 objects with W_K and W_V, got 0 of them"),
    ("kv_heads not a list", {**FOUR, "kv_heads": {"W_K": I2}}, "kv_heads",
     "kv_heads must be a list of 1 to 16 objects with W_K and W_V, got an object"),
    ("a kv head not an object", at(FOUR, ("kv_heads", 1), [I2, I2]), "kv_heads[1]",
     "Key/value head 2 must be an object with W_K and W_V, got a list"),
    ("a query head with W_K", at(FOUR, ("heads", 2, "W_K"), I2), "heads[2].W_K",
     "Head 3 has W_K, but with kv_heads a query head carries only W_Q and b_Q: query head 3 "
     "reads the keys and values of key/value head 2"),
    ("a query head with b_V", at(FOUR, ("heads", 1, "b_V"), [1]), "heads[1].b_V",
     "Head 2 has b_V, but with kv_heads a query head carries only W_Q and b_Q: query head 2 "
     "reads the keys and values of key/value head 1"),
    ("a query head without W_Q", at(FOUR, ("heads", 0), {"b_Q": [1, 1]}), "heads[0].W_Q",
     'Head 1 needs the field "W_Q"'),
    ("a kv head without W_V", at(FOUR, ("kv_heads", 1, "W_V"), DELETE), "kv_heads[1].W_V",
     'Key/value head 2 needs the field "W_V"'),
    ("a kv head with W_Q", at(FOUR, ("kv_heads", 0, "W_Q"), I2), "kv_heads[0].W_Q",
     'Key/value head 1 has an unknown field "W_Q"; did you mean "W_V"? The fields are W_K, '
     "W_V, b_K, b_V."),
    ("a kv head with b_k", at(FOUR, ("kv_heads", 1, "b_k"), [1, 1]), "kv_heads[1].b_k",
     'Key/value head 2 has an unknown field "b_k"; did you mean "b_K"? The fields are W_K, '
     "W_V, b_K, b_V."),
    ("a kv head's W_K cell", at(FOUR, ("kv_heads", 1, "W_K", 0, 1), "x"), "kv_heads[1].W_K[0][1]",
     'W_K key/value head 2 row 1 column 2 must be a number, got the string "x"'),
    ("a kv head's W_K too wide", at(FOUR, ("kv_heads", 1, "W_K"), D3), "kv_heads[1].W_K",
     "Head 3 (reading key/value head 2): W_Q has 2 columns but W_K has 3; queries and keys "
     "must have the same width d_k to take their dot product"),
    # positional and rope_base
    ("positional unknown", one_head(positional="RoPE"), "positional",
     'positional must be null, "sinusoidal", "rope" or "alibi", got the string "RoPE"'),
    ("positional true", one_head(positional=True), "positional",
     'positional must be null, "sinusoidal", "rope" or "alibi", got true'),
    ("rope with odd d_k", one_head(positional="rope", W_Q=D3, W_K=D3), "positional", ROPE_TEXT),
    ("rope with odd d_k in head 2", two_heads([H1, {**H1, "W_Q": D3, "W_K": D3}],
                                              positional="rope"), "positional",
     f"Head 2: {ROPE_TEXT}"),
    ("rope with odd d_k in kv head 1", at(at(FOUR, ("kv_heads", 0, "W_K"), D3),
                                          ("heads",), [{"W_Q": D3}] * 4) | {"positional": "rope"},
     "positional", f"Key/value head 1: {ROPE_TEXT}"),
    ("rope_base 0", one_head(positional="rope", rope_base=0), "rope_base",
     "rope_base (θ) must be a positive number, got 0"),
    ("rope_base negative", one_head(positional="rope", rope_base=-2.5), "rope_base",
     "rope_base (θ) must be a positive number, got -2.5"),
    ("rope_base a string", one_head(positional="rope", rope_base="10000"), "rope_base",
     'rope_base must be a number, got the string "10000"'),
    ("rope_base true", one_head(positional="rope", rope_base=True), "rope_base",
     "rope_base must be a number, got true"),
    ("rope_base with positional null", one_head(positional=None, rope_base=500), "rope_base",
     'rope_base goes with "positional": "rope"; this request has no positional'),
    ("rope_base with sinusoidal", one_head(positional="sinusoidal", rope_base=500), "rope_base",
     'rope_base goes with "positional": "rope"; this request has "positional": "sinusoidal"'),
    ("rope_base so small the angles overflow", one_head(
        positional="rope", rope_base=1e-320, W_Q=np.eye(2, 64).tolist(),
        W_K=np.eye(2, 64).tolist()), "rope_base",
     "rope_base (θ) is 1e-320: the last pair of a d_k = 64 query or key at position 2 turns by "
     "2·θ^(−62/64) radians, beyond float64's range (about ±1.8e308), and a θ below 1 turns the "
     "later pairs faster; make θ larger (10000 is usual)"),
    ("rope_base so small the angles overflow, two heads", two_heads(
        [{**H1, "W_Q": np.eye(2, 64).tolist(), "W_K": np.eye(2, 64).tolist()}] * 2,
        positional="rope", rope_base=1e-320, W_O=np.eye(4, 2).tolist()), "rope_base",
     "rope_base (θ) is 1e-320: the last pair of a d_k = 64 query or key at position 2 turns by "
     "2·θ^(−62/64) radians, beyond float64's range (about ±1.8e308), and a θ below 1 turns the "
     "later pairs faster; make θ larger (10000 is usual)"),
    # position_offset
    *[(f"position_offset {said}", one_head(positional="rope", position_offset=value),
       "position_offset", _whole("position_offset", 0, OFFSET, said))
      for value, said in ((-1, "-1"), (1.5, "1.5"), (True, "true"), (1_000_001, "1000001"),
                          ("3", 'the string "3"'))],
    ("position_offset with alibi", one_head(positional="alibi", position_offset=2),
     "position_offset", 'position_offset goes with "positional": "sinusoidal" or "rope"; this '
     'request has "positional": "alibi"'),
    ("position_offset without positions", one_head(position_offset=2), "position_offset",
     'position_offset goes with "positional": "sinusoidal" or "rope"; this request has no '
     "positional"),
    # alibi_slopes
    ("alibi_slopes too many", one_head(positional="alibi", alibi_slopes=[0.5, 0.25]),
     "alibi_slopes", "alibi_slopes has 2 slopes but the request has 1 head; give one slope per "
     "head"),
    ("alibi_slopes too few", two_heads(positional="alibi", alibi_slopes=[0.5]), "alibi_slopes",
     "alibi_slopes has 1 slope but the request has 2 heads; give one slope per head"),
    ("alibi_slopes for 4 query heads, not 2 kv heads", FOUR | {"positional": "alibi",
                                                             "alibi_slopes": [1, 1]},
     "alibi_slopes", "alibi_slopes has 2 slopes but the request has 4 heads; give one slope per "
     "head"),
    ("alibi slope negative", two_heads(positional="alibi", alibi_slopes=[0.5, -0.25]),
     "alibi_slopes[1]", "ALiBi slope head 2 is -0.25; a slope must be 0 or more (the bias "
     "−slope·|i − j| must push far keys down, not up)"),
    ("alibi slope a string", two_heads(positional="alibi", alibi_slopes=["1", 1]),
     "alibi_slopes[0]", 'ALiBi slope head 1 must be a number, got the string "1"'),
    ("alibi_slopes empty", one_head(positional="alibi", alibi_slopes=[]), "alibi_slopes",
     "alibi_slopes has 0 numbers; it needs 1 to 16"),
    ("alibi_slopes without alibi", one_head(positional="rope", alibi_slopes=[1]),
     "alibi_slopes", 'alibi_slopes goes with "positional": "alibi"; this request has '
     '"positional": "rope"'),
    ("alibi slope too large", two_heads(positional="alibi", alibi_slopes=[1, 1e308]),
     "alibi_slopes[1]", "Head 2: the ALiBi slope 1e+308 times the distance 2 is beyond "
     "float64's range (about ±1.8e308); make the slope smaller"),
    # window and sinks
    *[(f"window {said}", one_head(window=value), "window", _whole("window", 1, WINDOW, said))
      for value, said in ((0, "0"), (1.5, "1.5"), ("3", 'the string "3"'), (True, "true"),
                          (-2, "-2"), (1_000_001, "1000001"))],
    *[(f"sinks {said}", one_head(window=2, sinks=value), "sinks",
       _whole("sinks", 0, SINKS, said))
      for value, said in ((-1, "-1"), (0.5, "0.5"), ("1", 'the string "1"'), (False, "false"),
                          (1_000_001, "1000001"))],
]


@pytest.mark.parametrize("body, field, message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_values_of_the_new_fields_are_a_422_naming_them(client, body, field, message):
    r = post(client, body)
    assert r.status_code == 422
    assert r.mimetype == "application/json"
    assert strict_loads(r.get_data(as_text=True)) == {"error": {"message": message,
                                                                "field": field}}


def test_the_largest_offset_window_and_sinks_are_accepted(client):
    body = ok(client, one_head(positional="sinusoidal", position_offset=1_000_000,
                               window=1_000_000, sinks=1_000_000))
    assert body["mask"] == [[True] * 3] * 3
    close(body["positional_encoding"][0], [math.sin(1e6), math.cos(1e6)])


def test_a_small_rope_base_whose_angles_stay_finite_is_computed(client):
    # θ = 1e-300 turns pair c by θ^(−2c/64) = 10^(300·2c/64) radians per position: up to
    # 10^290.6, finite, so the request is computed (its angles are huge but exact numbers).
    W = np.eye(2, 64).tolist()
    body = ok(client, one_head(W_Q=W, W_K=W, positional="rope", rope_base=1e-300, row=2))
    w = body["working"]
    close(w["frequencies"][:3], [1, 10 ** (600 / 64), 10 ** (1200 / 64)])
    assert w["angles"][31] == 2 * w["frequencies"][31] and math.isfinite(w["angles"][31])


# ---- the documented examples ----


def test_a_whole_number_sent_as_a_float_is_that_number(client):
    """JSON does not tell 2 from 2.0, and the document's "integer" takes both: row 2.0 and
    position_offset 3.0 give the answer of row 2 and position_offset 3, a whole int."""
    def answer(row, offset):
        r = post(client, one_head(positional="rope", position_offset=offset, row=row))
        assert r.status_code == 200, r.get_data(as_text=True)
        return strict_loads(r.get_data(as_text=True))
    as_floats, as_ints = answer(2.0, 3.0), answer(2, 3)
    assert as_floats == as_ints
    assert as_floats["working"]["row"] == 2 and isinstance(as_floats["working"]["row"], int)
