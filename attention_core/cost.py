"""What attention costs: the multiply-adds of each step and the bytes of each matrix, by
formula, and the time the engine takes as n grows, measured, beside the tiled computation
(tiles.py) and the memory each holds at once.

The textbook's point, in numbers: the score matrix has an entry for every pair of tokens,
so QKᵀ and A·V take n·m·d multiply-adds and the scores n·m numbers: doubling n quadruples
them, a slope of 2 on log–log axes once they dominate. Tiling holds B_r·B_c scores at once
whatever n is; its time grows the same way.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .engine import attention, prepare
from .tiles import block_tiles

SIZES = (64, 128, 256, 512)  # n (= m) of a measurement
FLOAT_BYTES = 8  # float64


def step_costs(n: int, m: int, d_model: int, d_k: int, d_v: int) -> list[dict]:
    """Each step's multiply-adds, with its formula: n queries, m keys (self-attention: m = n)."""
    return [
        {"step": "Q = X·W_Q", "formula": "n · d_model · d_k", "multiply_adds": n * d_model * d_k},
        {"step": "K = X·W_K", "formula": "m · d_model · d_k", "multiply_adds": m * d_model * d_k},
        {"step": "V = X·W_V", "formula": "m · d_model · d_v", "multiply_adds": m * d_model * d_v},
        {"step": "QKᵀ", "formula": "n · m · d_k", "multiply_adds": n * m * d_k},
        {"step": "A·V", "formula": "n · m · d_v", "multiply_adds": n * m * d_v},
    ]


def matrix_bytes(n: int, m: int, d_k: int, d_v: int) -> list[dict]:
    """Each matrix's bytes in float64, with its shape."""
    shapes = [("Q", "n × d_k", n, d_k), ("K", "m × d_k", m, d_k), ("V", "m × d_v", m, d_v),
              ("QKᵀ", "n × m", n, m), ("A", "n × m", n, m), ("Z", "n × d_v", n, d_v)]
    return [{"matrix": name, "shape": shape, "bytes": rows * cols * FLOAT_BYTES}
            for name, shape, rows, cols in shapes]


def slope(sizes, seconds) -> float:
    """The least-squares slope of log(seconds) against log(n): 2 when time grows as n²."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float))
    return float(np.polyfit(x, y, 1)[0])


@dataclass(frozen=True)
class Measurement:
    """Seconds per computation at each n of ``sizes`` (those measured within the budget:
    ``complete`` False when it ran out), the engine's and the tiled one's, and the bytes of
    scores each holds at once."""

    sizes: tuple[int, ...]
    standard: tuple[float, ...]
    tiled: tuple[float, ...]
    block: int
    complete: bool

    @property
    def standard_bytes(self) -> list[int]:
        return [n * n * FLOAT_BYTES for n in self.sizes]

    @property
    def tiled_bytes(self) -> list[int]:
        return [min(self.block, n) ** 2 * FLOAT_BYTES for n in self.sizes]


REPEATS = 15  # runs of one computation at most: its fastest is the least disturbed


def _best(run, share: float, clock) -> float:
    """The fastest of up to REPEATS runs of ``run`` within ``share`` seconds (at least one):
    the one least disturbed by whatever else the machine does."""
    best, start = math.inf, clock()
    for _ in range(REPEATS):
        t0 = clock()
        run()
        best = min(best, clock() - t0)
        if clock() - start >= share:
            break
    return best


def measure(d_model: int, d_k: int, d_v: int, *, sizes=SIZES, block: int = 64,
            budget: float = 2.0, clock=time.perf_counter) -> Measurement:
    """Time attention() and the tiled computation at each n of ``sizes`` on random inputs
    (seeded: the same numbers every time), within about ``budget`` seconds in all."""
    rng = np.random.default_rng(0)
    W = [rng.standard_normal((d_model, d)) for d in (d_k, d_k, d_v)]
    share = 0.8 * budget / (2 * len(sizes))  # each size's turn, the engine's and the tiles'
    start = clock()
    done, standard, tiled = [], [], []
    for n in sizes:
        if clock() - start > budget - 2 * share:  # no room left for this size's turn
            break
        X = rng.standard_normal((n, d_model))
        standard.append(_best(lambda X=X: attention(X, *W), share, clock))
        tiled.append(_best(lambda X=X: _tiled(X, W, block), share, clock))
        done.append(n)
    return Measurement(tuple(done), tuple(standard), tuple(tiled), block,
                       complete=len(done) == len(sizes))


def _tiled(X, W, block: int) -> None:
    """Every query block through every key block (tiles.block_tiles)."""
    p = prepare(X, *W)
    for b in range(-(-X.shape[0] // block)):
        block_tiles(p, b, block, block)
