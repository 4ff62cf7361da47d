"""tests/numbers.py: the pinned answers' comparison lets the last bits go and nothing else."""

import base64
import json

import numpy as np
import pytest

from tests.numbers import assert_same_answer, colours_near, printed_near

PINNED = {"tokens": ["a", "b"], "d_k": 2, "causal": False, "scale": 0.7071067811865475,
          "weights": [[0.4458082215862046, 0.5541917784137954]], "z": [1.0, 0.0],
          "weights_u8": [[114, 141]], "warnings": []}


def body(**changes):
    return json.dumps({**PINNED, **changes})


def encoded(values, dtype="<f8"):
    a = np.array(values, dtype=dtype)
    return {"dtype": {"<f8": "float64", "uint8": "uint8"}[dtype], "shape": list(a.shape),
            "base64": base64.b64encode(a.tobytes()).decode()}


def test_the_last_bits_may_differ():
    """0.44971311169566397 against 0.4497131116956639: one CPU's jacobian_norm and another's."""
    assert_same_answer(body(scale=0.7071067811865476,
                            weights=[[0.44580822158620463, 0.5541917784137954]]), body())
    assert_same_answer(body(z=[1.0, 2e-16]), body())  # a zero that is a few ulp elsewhere
    assert_same_answer(body(weights_u8=[[115, 140]]), body())  # a rounding boundary


@pytest.mark.parametrize("changes", [
    {"scale": 0.70710678118},  # a digit the page could print
    {"weights": [[0.4458082215862046, 0.5541917784137954, 0.0]]},
    {"tokens": ["a", "c"]},
    {"d_k": 2.0},  # an integer that became a float
    {"causal": None},
    {"z": [1.0, 1e-9]},
    {"weights_u8": [[112, 141]]},
    {"warnings": ["one"]},
])
def test_anything_else_is_a_difference(changes):
    with pytest.raises(AssertionError):
        assert_same_answer(body(**changes), body())


def test_keys_must_keep_their_order():
    reordered = json.dumps(dict(reversed(list(PINNED.items()))))
    with pytest.raises(AssertionError, match="keys"):
        assert_same_answer(reordered, body())


def test_base64_arrays_are_compared_as_numbers():
    want = body(weights=encoded([[0.4458082215862046, 0.5541917784137954]]))
    assert_same_answer(body(weights=encoded([[0.44580822158620463, 0.5541917784137954]])), want)
    for wrong in (encoded([[0.4458, 0.5541917784137954]]),
                  encoded([[0.4458082215862046, 0.5541917784137954, 0.0]]),
                  encoded([[114, 141]], "uint8")):
        with pytest.raises(AssertionError):
            assert_same_answer(body(weights=wrong), want)
    assert_same_answer(body(weights_u8=encoded([[115, 141]], "uint8")),
                       body(weights_u8=encoded([[114, 141]], "uint8")))


def test_printed_near_gives_both_sides_only_at_a_boundary():
    three = lambda x: f"{x:.3f}"  # noqa: E731
    assert printed_near(0.1871, three) == {"0.187"}  # far from a boundary: one text
    assert printed_near(0.1875, three) == {"0.187", "0.188"}  # exactly on one: both
    assert printed_near(0.12349999999999, three, tol=1e-5) == {"0.123", "0.124"}


def test_colours_near_allows_one_step_in_each_channel_and_no_more():
    fills = {"#fde725", "#440154"}
    assert colours_near([(253, 231, 37), (252, 232, 36), (68, 1, 84)], fills) == []
    assert colours_near([(253, 229, 37), (70, 1, 84)], fills) == [(253, 229, 37), (70, 1, 84)]
