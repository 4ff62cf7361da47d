"""attention_core.positions: the sinusoidal positional encoding, by formula and by hand."""

import math

import numpy as np
import pytest

from attention_core import sinusoidal
from tests.reference import reference_sinusoidal


@pytest.mark.parametrize("n, d_model", [(1, 1), (5, 4), (7, 5), (3, 16)])
def test_sinusoidal_matches_the_paper_formula(n, d_model):
    np.testing.assert_allclose(sinusoidal(n, d_model), reference_sinusoidal(n, d_model),
                               rtol=0, atol=1e-15)


def test_sinusoidal_first_rows_by_hand():
    pe = sinusoidal(2, 2)
    assert pe[0].tolist() == [0.0, 1.0]  # sin 0, cos 0
    assert pe[1].tolist() == pytest.approx([math.sin(1), math.cos(1)])
