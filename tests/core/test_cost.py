"""attention_core/cost.py: each step's multiply-adds and each matrix's bytes by formula,
counted by hand for the default example; the fitted slope of exact power laws; a measurement
that stays within its budget, told by a clock the test drives."""

import itertools

import pytest

from attention_core.cost import SIZES, matrix_bytes, measure, slope, step_costs


def test_the_default_examples_costs_by_hand():
    """3 tokens, d_model = d_k = d_v = 2: each projection 3·2·2 = 12 multiply-adds, QKᵀ and
    A·V 3·3·2 = 18; Q, K, V and Z 3·2·8 = 48 bytes, QKᵀ and A 3·3·8 = 72."""
    steps = step_costs(3, 3, 2, 2, 2)
    assert [(s["step"], s["multiply_adds"]) for s in steps] == [
        ("Q = X·W_Q", 12), ("K = X·W_K", 12), ("V = X·W_V", 12), ("QKᵀ", 18), ("A·V", 18)]
    assert steps[3]["formula"] == "n · m · d_k"
    assert [(b["matrix"], b["shape"], b["bytes"]) for b in matrix_bytes(3, 3, 2, 2)] == [
        ("Q", "n × d_k", 48), ("K", "m × d_k", 48), ("V", "m × d_v", 48),
        ("QKᵀ", "n × m", 72), ("A", "n × m", 72), ("Z", "n × d_v", 48)]


def test_cross_attention_counts_its_m_keys():
    steps = step_costs(2, 5, 4, 3, 1)
    assert [s["multiply_adds"] for s in steps] == [2 * 4 * 3, 5 * 4 * 3, 5 * 4 * 1,
                                                   2 * 5 * 3, 2 * 5 * 1]


@pytest.mark.parametrize(("power", "want"), [(2, 2.0), (1, 1.0), (3, 3.0)])
def test_the_slope_of_a_power_law_is_its_power(power, want):
    sizes = [64, 128, 256, 512]
    assert slope(sizes, [1e-9 * n ** power for n in sizes]) == pytest.approx(want, abs=1e-12)


def test_a_measurement_times_every_size_and_holds_a_tile_of_scores():
    r = measure(4, 4, 4, budget=0.5, block=64)
    assert r.sizes == SIZES and r.complete
    assert all(s > 0 for s in r.standard + r.tiled)
    assert r.standard_bytes == [n * n * 8 for n in SIZES]  # the whole n × n of scores
    assert r.tiled_bytes == [64 * 64 * 8] * 4  # one B_r × B_c tile, whatever n


def test_a_measurement_stops_when_its_budget_is_spent():
    """A clock that advances 0.1 s at each reading: each computation's turn ends after its
    first run, and the budget of 2 s leaves room for fewer than the four sizes."""
    ticks = itertools.count()
    r = measure(2, 2, 2, budget=2.0, clock=lambda: 0.1 * next(ticks))
    assert not r.complete and 0 < len(r.sizes) < len(SIZES)
    assert r.sizes == SIZES[:len(r.sizes)]
