"""Exercises (attention_core/classroom/exercises.py): 200 seeds at every level have the promised
hand-friendly numbers, and their blanks' numbers agree with a reference written here from
the exercise's request alone."""

import math

import numpy as np
import pytest

from attention_core.classroom.exercises import (
    LEVELS,
    SEEDS,
    exercise,
    request,
    solve,
    view_exercise,
)
from attention_core.errors import AttentionInputError
from tests.core.helpers import exercise_reference as reference
from tests.core.helpers import exercise_value as value

SEEDS_CHECKED = range(200)


@pytest.mark.parametrize("level", LEVELS)
def test_every_seed_is_hand_friendly_finite_and_agrees_with_the_reference(level):
    for seed in SEEDS_CHECKED:
        e = exercise(seed, level)
        body = request(e)
        n, d_model = np.shape(body["X"])
        assert 2 <= n <= 4 and len(body["tokens"]) == n and 0 <= body["row"] < n
        for name in ("X", "W_Q", "W_K", "W_V", "W_O"):
            for matrix in [body[name]] if name in body else \
                    [h[name] for h in body.get("heads", []) if name in h]:
                assert all(v in (-1, 0, 1, 2) for r in matrix for v in r), (seed, name)
        heads = body.get("heads") or [body]
        assert all(2 <= np.shape(h["W_Q"])[1] <= 4 for h in heads)
        answers = solve(e)
        assert list(answers) == list(e.blanks) and len(set(e.blanks)) == len(e.blanks)
        numbers = reference(body)
        for path, got in answers.items():
            assert math.isfinite(got), (seed, path)
            assert got == pytest.approx(value(numbers, path), abs=1e-12), (seed, path)
        for h in range(len(heads)):
            scaled = numbers[h]["scaled"][numbers[h]["exp"] > 0]
            assert np.abs(scaled).max() <= 3, (seed, scaled)


def test_levels_ask_for_their_steps():
    e = exercise(5, "exp")
    n = len(e.tokens)
    assert e.blanks == (*(f"working.exp[{j}]" for j in range(n)), "working.exp_sum")
    row = exercise(5, "row")
    assert row.blanks[0] == "working.q[0]" and row.blanks[-1] == "working.z[1]"
    heads = exercise(5, "heads").blanks
    assert {b.split(".")[0] for b in heads} == {"heads[0]", "heads[1]"}
    causal = exercise(5, "causal")
    masked = [j for j in range(len(causal.tokens)) if j > causal.row]
    assert masked, "a causal exercise asks about a row with a later key"
    assert not any(f"working.scaled[{j}]" in causal.blanks for j in masked)  # −∞: not typed
    assert all(f"working.weights[{j}]" in causal.blanks for j in masked)


def test_level_titles_write_their_maths_as_text_not_as_tex():
    """A level's title is read in a <select> and a heading, where nothing typesets it: its
    subscripts are Unicode's (xᵢ, kⱼ, dₖ), never TeX's x_i."""
    assert [t for t in LEVELS.values() if "_" in t or "^" in t] == []
    assert LEVELS["row"] == "a whole row, from xᵢ to zᵢ"


def test_a_seed_gives_the_same_exercise_every_time_and_seeds_differ():
    a, b = request(exercise(17, "weights")), request(exercise(17, "weights"))
    assert a == b
    assert len({str(request(exercise(s, "weights"))) for s in range(50)}) == 50


@pytest.mark.parametrize("seed, level, field", [
    (-1, "weights", "seed"), (SEEDS, "weights", "seed"), (1.5, "weights", "seed"),
    (True, "weights", "seed"), ("17", "weights", "seed"), (17, "softmax", "level"),
    (17, None, "level"),
])
def test_a_bad_seed_or_level_names_the_field_and_the_value(seed, level, field):
    with pytest.raises(AttentionInputError) as raised:
        exercise(seed, level)
    assert raised.value.field == field
    assert repr(seed if field == "seed" else level) in str(raised.value)


def test_a_request_writes_small_whole_numbers_as_ints_and_huge_ones_as_floats():
    head = {k: np.array([[0.0]]) for k in ("W_Q", "W_K", "W_V")}
    e = view_exercise(["a"], np.array([[2.0]]), (head,), 0, "weights",
                      W_O=np.array([[1.7976931348623157e308]]))
    body = request(e)
    assert body["X"] == [[2]] and isinstance(body["X"][0][0], int)
    # A float64 beyond 2^53 stays a float: as an int it has no JSON number (a 500, once).
    assert body["W_O"] == [[1.7976931348623157e308]] and isinstance(body["W_O"][0][0], float)
