"""attention_core.errors: an error says where its input is (input, head, key/value head, row,
column, 0-based); its field and the name in its sentence are derived from that."""

import math

import numpy as np
import pytest

from attention_core import attention, multi_head_attention
from attention_core.errors import NAME, AttentionInputError, Place

I2 = [[1.0, 0.0], [0.0, 1.0]]


def where(exc: AttentionInputError) -> tuple:
    return exc.input, exc.head, exc.kv_head, exc.row, exc.column


@pytest.mark.parametrize("place, field, spoken", [
    (Place("X", row=2, column=0), "X[2][0]", "X row 3 column 1"),
    (Place("W_Q", head=1, row=0, column=2), "heads[1].W_Q[0][2]", "W_Q head 2 row 1 column 3"),
    (Place("W_Q", head=0, row=0, column=0), "heads[0].W_Q[0][0]", "W_Q row 1 column 1"),
    (Place("W_K", kv_head=1, row=0, column=1), "kv_heads[1].W_K[0][1]",
     "W_K key/value head 2 row 1 column 2"),
    (Place("b_Q", column=1), "b_Q[1]", "b_Q column 2"),
    (Place("b_K", kv_head=0, column=2), "kv_heads[0].b_K[2]", "b_K column 3"),
    (Place("alibi_slopes", head=0), "alibi_slopes[0]", "alibi_slopes head 1"),
    (Place("tokens", row=0), "tokens[0]", "tokens row 1"),
    (Place("W_V", head=2), "heads[2].W_V", "W_V head 3"),
    (Place("scale"), "scale", "scale"),
    (Place(), None, None),
])
def test_the_field_and_the_spoken_name_come_from_the_place(place, field, spoken):
    assert place.field == field
    assert place.spoken == spoken


def test_the_sentence_names_its_input_where_it_says_and_the_field_follows():
    exc = AttentionInputError(f"{NAME} is nan; every entry must be a finite number", "W_Q",
                              row=0, column=2)
    assert where(exc) == ("W_Q", None, None, 0, 2)
    assert exc.field == "W_Q[0][2]"
    assert str(exc) == exc.message == \
        "W_Q row 1 column 3 is nan; every entry must be a finite number"
    assert exc.spelt(lambda place: f"<{place.field}>") == \
        "<W_Q[0][2]> is nan; every entry must be a finite number"


def test_a_head_is_added_by_setting_it_not_by_rewriting_the_text():
    exc = AttentionInputError(f"The largest is {NAME} (1e+300); make it smaller.", "W_Q",
                              row=0, column=2)
    in_2 = exc.in_head(1)
    assert where(in_2) == ("W_Q", 1, None, 0, 2) and in_2.field == "heads[1].W_Q[0][2]"
    assert str(in_2) == \
        "Head 2: The largest is W_Q head 2 row 1 column 3 (1e+300); make it smaller."
    assert where(exc) == ("W_Q", None, None, 0, 2)  # the first error is left as it was
    # A key read from a shared key/value head is that head's; the query head says so in front.
    k = AttentionInputError(f"{NAME} is inf", "W_K", row=1, column=0).in_head(2, 1)
    assert where(k) == ("W_K", None, 1, 1, 0) and k.field == "kv_heads[1].W_K[1][0]"
    assert str(k) == "Head 3 (reading key/value head 2): W_K key/value head 2 row 2 column 1 is inf"
    v = AttentionInputError(f"{NAME} is inf", "b_V", column=1).in_head(None, 0)
    assert v.field == "kv_heads[0].b_V[1]" and str(v) == "Key/value head 1: b_V column 2 is inf"
    # ALiBi's slope is the head's own entry; a whole-request input keeps its field.
    assert AttentionInputError("bad slope", "alibi_slopes").in_head(2).field == "alibi_slopes[2]"
    scale = AttentionInputError("scale must be a finite number", "scale").in_head(1)
    assert scale.field == "scale" and str(scale) == "Head 2: scale must be a finite number"


def test_text_of_the_request_is_not_taken_for_the_name():
    # A label may read "{name}": only the sentence's own slot is filled.
    exc = AttentionInputError(f'{NAME} is "{{name}}", not a number', "X", row=0, column=1)
    assert str(exc) == 'X row 1 column 2 is "{name}", not a number'


def test_a_bad_cell_in_a_head_is_raised_with_its_head_row_and_column():
    heads = [{"W_Q": I2, "W_K": I2, "W_V": I2}, {"W_Q": [[1, 0, math.nan], [0, 1, 0]],
                                                 "W_K": np.eye(2, 3), "W_V": I2}]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, heads, np.ones((4, 1)))
    assert where(info.value) == ("W_Q", 1, None, 0, 2)
    assert info.value.field == "heads[1].W_Q[0][2]"
    assert str(info.value) == ("Head 2: W_Q head 2 row 1 column 3 is nan; every entry must be a "
                               "finite number")


def test_a_bad_cell_of_a_shared_key_value_head_names_that_head():
    kv = [{"W_K": I2, "W_V": I2}, {"W_K": I2, "W_V": [[1.0, 0.0], [math.inf, 1.0]]}]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, [I2] * 4, np.ones((8, 1)), kv_heads=kv)
    assert where(info.value) == ("W_V", None, 1, 1, 0)
    assert info.value.field == "kv_heads[1].W_V[1][0]"
    assert str(info.value).startswith(
        "Key/value head 2: W_V key/value head 2 row 2 column 1 is inf")


def test_an_overflow_names_the_largest_cell_by_its_place():
    # Head 2's Q = X·W_Q: q_1[1] = 1e200·1e200 is beyond float64; of row 1 of X (1, 0) and
    # column 1 of W_Q (1e200, 0), the largest is W_Q[0][0] of head 2.
    heads = [(I2, I2, I2), ([[1e200, 0.0], [0.0, 1.0]], I2, I2)]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention([[1e200, 0.0], [0.0, 1.0]], heads, np.ones((4, 1)))
    assert where(info.value) == ("X", None, None, 0, 0)  # X's 1e200 comes first on the tie
    heads = [(I2, I2, I2), ([[1e300, 0.0], [0.0, 1.0]], I2, I2)]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention([[1e10, 0.0], [0.0, 1.0]], heads, np.ones((4, 1)))
    assert where(info.value) == ("W_Q", 1, None, 0, 0)
    assert info.value.message.endswith("The largest number it is built from is W_Q head 2 row "
                                       "1 column 1 (1e+300); make it smaller.")


def test_a_bias_entry_is_a_column():
    with pytest.raises(AttentionInputError) as info:
        attention(I2, I2, I2, I2, b_K=[1.0, math.nan])
    assert where(info.value) == ("b_K", None, None, None, 1) and info.value.field == "b_K[1]"


# ---- counts in messages: a number and its noun agree, for 1 and for several ----

def test_counted_agrees_with_its_number_and_takes_an_irregular_plural():
    from attention_core.errors import counted
    assert [counted(k, "number") for k in (0, 1, 2)] == ["0 numbers", "1 number", "2 numbers"]
    assert [counted(k, "query", "queries") for k in (1, 3)] == ["1 query", "3 queries"]


X3 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("call, message", [
    (lambda: attention([[1.0]], [[1.0]], [[1.0]], [[1.0]], mask=[[True, True]]),
     "mask has shape (1, 2); with 1 query and 1 key it must be 1×1"),
    (lambda: attention(X3, I2, I2, I2, mask=[[True, True]]),
     "mask has shape (1, 2); with 3 queries and 3 keys it must be 3×3"),
    (lambda: attention(X3, I2, I2, I2, X_kv=[[1.0]]),
     "X_kv has 1 number per token but X has 2; both sequences must use the same embedding "
     "width d_model"),
    (lambda: attention([[1.0]], [[1.0]], [[1.0]], [[1.0]], X_kv=[[1.0, 2.0, 3.0]]),
     "X_kv has 3 numbers per token but X has 1; both sequences must use the same embedding "
     "width d_model"),
    (lambda: multi_head_attention(X3, [{"W_Q": I2}], I2,
                                  kv_heads=[{"W_K": I2, "W_V": I2}] * 2),
     "1 query head cannot share 2 key/value heads equally: the number of key/value heads "
     "must divide 1 (1)"),
    (lambda: multi_head_attention(X3, [{"W_Q": I2}] * 2, [[1.0, 0.0]] * 4,
                                  kv_heads=[{"W_K": I2, "W_V": I2}] * 3),
     "2 query heads cannot share 3 key/value heads equally: the number of key/value heads "
     "must divide 2 (1, 2)"),
    (lambda: multi_head_attention(X3, [{"W_Q": I2, "W_K": I2, "W_V": I2}], I2,
                                  alibi_slopes=[0.5, 0.25]),
     "alibi_slopes has 2 slopes for 1 head; give one per head"),
    (lambda: multi_head_attention(X3, [{"W_Q": I2, "W_K": I2, "W_V": I2}] * 2,
                                  [[1.0, 0.0]] * 4, alibi_slopes=[0.5]),
     "alibi_slopes has 1 slope for 2 heads; give one per head"),
], ids=["mask-1", "mask-3", "x-kv-1", "x-kv-3", "kv-heads-1", "kv-heads-2", "slopes-2",
        "slopes-1"])
def test_a_count_in_a_message_agrees_with_its_noun(call, message):
    with pytest.raises(AttentionInputError) as info:
        call()
    assert str(info.value) == message


def test_a_query_block_past_the_last_query_names_that_row_without_a_count():
    """Once "beyond the 1 queries": the last row is named instead (0-based, as block_q)."""
    from attention_core.engine import prepare
    from attention_core.tiles import block_tiles
    with pytest.raises(AttentionInputError) as info:
        block_tiles(prepare([[1.0, 0.0]], I2, I2, I2), 1, 1, 1)
    assert str(info.value) == "query block 1 starts at row 1, past the last query, row 0"
