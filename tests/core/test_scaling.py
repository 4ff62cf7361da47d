"""attention_core.scaling: why scores are divided by √d_k, entropy and the softmax's Jacobian."""

import math

import numpy as np
import pytest

from attention_core import attention
from attention_core.scaling import entropy, score_variance, softmax_jacobian, winner_probability

# Raw scores of the last query are 1, 1, 2 (q_3 = (1, 1); keys (1, 0), (1, 0), (1, 1)).
ONE_ONE_TWO = dict(X=[[1, 0], [1, 0], [1, 1]], W_Q=[[1, 0], [0, 1]], W_K=[[1, 0], [0, 1]],
                   W_V=[[1, 0], [0, 1]])


def test_scaled_and_unscaled_weights_of_scores_1_1_2():
    r = attention(**ONE_ONE_TWO)
    assert r.scores[2].tolist() == [1, 1, 2]
    assert np.round(r.weights[2], 3).tolist() == [0.248, 0.248, 0.503]
    r1 = attention(**ONE_ONE_TWO, scale=1)
    assert np.round(r1.weights[2], 3).tolist() == [0.212, 0.212, 0.576]


@pytest.mark.parametrize("d_k, unscaled", [(4, 0.881), (64, 0.9997), (1024, 1.0000)])
def test_winner_probability_one_standard_deviation_apart(d_k, unscaled):
    digits = len(str(unscaled).split(".")[1])
    assert round(winner_probability(d_k, scaled=False), digits) == unscaled
    assert round(winner_probability(d_k, scaled=True), 3) == 0.731


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_dot_product_variance_grows_with_dk_and_scaling_undoes_it(d_k):
    raw, scaled = score_variance(d_k, samples=40_000, seed=3)
    # Var(q·k) = d_k for independent N(0, 1) components; sampling error ~ 2–3 %.
    assert raw == pytest.approx(d_k, rel=0.06)
    assert scaled == pytest.approx(1.0, rel=0.06)


def test_entropy_and_the_jacobian_vanishing_as_softmax_saturates():
    assert entropy([0.5, 0.5]) == pytest.approx(math.log(2))
    assert entropy([1.0, 0.0, 0.0]) == 0.0
    sharp = np.array([1 - 2e-9, 1e-9, 1e-9])
    flat = np.array([1 / 3] * 3)
    assert np.linalg.norm(softmax_jacobian(sharp)) < 1e-8 < np.linalg.norm(softmax_jacobian(flat))


def test_softmax_jacobian_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])

    def soft(v):
        return np.exp(v - v.max()) / np.exp(v - v.max()).sum()

    h = 1e-6
    numeric = np.column_stack([(soft(s + h * e) - soft(s - h * e)) / (2 * h)
                               for e in np.eye(len(s))])
    np.testing.assert_allclose(softmax_jacobian(soft(s)), numeric, atol=1e-9)
