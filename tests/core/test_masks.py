"""attention_core.masks: the sliding window and its sink tokens, by hand and against the
independent reference_modern."""


import numpy as np
import pytest

from attention_core import attention
from tests.core.helpers import (
    F,
    T,
    agree,
    lists,
    rng_problem,
)
from tests.reference_modern import (
    reference_modern,
)

# ---- sliding window and sinks ----

def test_window_with_causal_reads_the_w_most_recent_keys_itself_included():
    r = attention(np.eye(5), np.eye(5), np.eye(5), np.eye(5), causal=True, window=2)
    assert r.mask.tolist() == [[T, F, F, F, F], [T, T, F, F, F], [F, T, T, F, F],
                               [F, F, T, T, F], [F, F, F, T, T]]
    assert r.window == 2 and r.sinks == 0


def test_sinks_stay_readable_outside_the_window():
    r = attention(np.eye(5), np.eye(5), np.eye(5), np.eye(5), causal=True, window=2, sinks=1)
    assert r.mask.tolist() == [[T, F, F, F, F], [T, T, F, F, F], [T, T, T, F, F],
                               [T, F, T, T, F], [T, F, F, T, T]]
    assert r.sinks == 1


def test_window_without_causal_is_a_band_of_both_sides():
    r = attention(np.eye(4), np.eye(4), np.eye(4), np.eye(4), window=2, sinks=2)
    assert r.mask.tolist() == [[T, T, F, F], [T, T, T, F], [T, T, T, T], [T, T, T, T]]


def test_custom_mask_still_applies_to_sinks_and_window():
    mask = [[T, T, T, T], [F, T, T, T], [F, T, T, T], [T, T, F, T]]
    r = attention(np.eye(4), np.eye(4), np.eye(4), np.eye(4), window=2, sinks=1, mask=mask)
    assert r.mask.tolist() == [[T, T, F, F], [F, T, T, F], [F, T, T, T], [T, F, F, T]]


def test_window_in_cross_attention_compares_query_and_key_indices():
    # n = 2 queries, m = 5 keys: query i reads key j when |i − j| < 2.
    p = rng_problem(8, n=2, m=5)
    r = attention(**p, window=2)
    assert r.mask.tolist() == [[T, T, F, F, F], [T, T, T, F, F]]
    agree(r, reference_modern(**lists(p), window=2))


def test_rows_the_window_leaves_without_a_key_are_zero_with_a_warning():
    # n = 4 queries, m = 2 keys, window 1: only key i is readable, and queries 3, 4 have none.
    p = rng_problem(9, n=4, m=2)
    r = attention(**p, window=1)
    assert r.mask.tolist() == [[T, F], [F, T], [F, F], [F, F]]
    assert r.weights[2:].tolist() == [[0, 0], [0, 0]]
    assert r.output[2:].tolist() == [[0, 0], [0, 0]]
    assert r.warnings == (
        "Query 3 has no key it may read, so its weights and output are all 0.",
        "Query 4 has no key it may read, so its weights and output are all 0.")
    agree(r, reference_modern(**lists(p), window=1))


@pytest.mark.parametrize("window, sinks, causal, m", [(1, 0, False, None), (2, 1, True, None),
                                                      (3, 2, False, 6), (2, 3, True, 3)])
def test_window_and_sinks_match_the_reference(window, sinks, causal, m):
    p = rng_problem(window + 10 * sinks, n=5, m=m)
    options = dict(window=window, sinks=sinks, causal=causal)
    agree(attention(**p, **options), reference_modern(**lists(p), **options))
