"""Attention as FlashAttention computes it (Dao et al., 2022): tile by tile, with the online
softmax, so that the n × m matrix of scores is never held whole.

The queries are cut into blocks of B_r rows, the keys and values into blocks of B_c. A query
block meets the key blocks one after another, keeping for each of its rows only three
things: the largest scaled score seen so far m, the running sum ℓ = Σ e^(s_j − m) over the
keys seen so far, and the running output O = Σ e^(s_j − m)·v_j. When a tile's scores raise
the maximum from m_old to m_new, what was summed under m_old is rescaled by
e^(m_old − m_new) before the tile's own terms are added. After the last key block
O/ℓ = z_i and m + ln ℓ = ln Σ_j e^(s_ij), the row's log-sum-exp over the keys it may read.

A tile whose B_r × B_c entries are all masked (above the diagonal of a causal mask, beyond
a window) is skipped: its scores are never computed, and it is counted.

Orientation as in engine.py: row i is query i, column j is key j; a tile (b, c) holds the
scores of queries b·B_r … and keys c·B_c …; the last block of each may be shorter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import Prepared, prepare, scaled_scores
from .errors import AttentionInputError


@dataclass(frozen=True)
class BlockTile:
    """One key block met by one query block: the running state before and after it.

    r = the query block's rows (at most B_r), c = the key block's columns (at most B_c).

    key_block : int            its index c, 0-based.
    keys : (start, stop)       the keys j it covers, start ≤ j < stop.
    skipped : bool             every entry of the r × c tile is masked: nothing computed.
    m_before, m_after : (r,)   the running maximum of each row (−∞ before any permitted key).
    l_before, l_after : (r,)   the running sum ℓ.
    O_before, O_after : (r, d_v)  the running (unnormalised) output.
    rescale : (r,)             the factor the old ℓ and O were multiplied by: e^(m_before −
        m_after) when the maximum grew, 1 when it did not. At a row's first permitted key
        (m_before = −∞) it is 0 = e^(−∞): the empty sums before are 0 anyway.
    scores : (r, c)            the scaled scores held at this moment, −∞ where masked (all −∞
        when skipped: never computed).
    """

    key_block: int
    keys: tuple[int, int]
    skipped: bool
    m_before: np.ndarray
    m_after: np.ndarray
    l_before: np.ndarray
    l_after: np.ndarray
    O_before: np.ndarray
    O_after: np.ndarray
    rescale: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class Memory:
    """Scores held at once: the largest tile, min(B_r, n)·min(B_c, m), against n·m whole."""

    held: int
    whole: int


@dataclass(frozen=True)
class BlockTiles:
    """A query block's whole pass over the key blocks.

    rows : (start, stop)   the queries i of the block.
    tiles : tuple of BlockTile, key block 0 first.
    Z : (r, d_v)           O/ℓ after the last tile: the rows of attention's output (0 for a
        row with no permitted key, as the engine gives).
    logsumexp : (r,)       m + ln ℓ: ln Σ_j e^(s_ij) over the permitted keys (−∞ for none).
    skipped : int          how many tiles were skipped.
    memory : Memory
    """

    rows: tuple[int, int]
    tiles: tuple[BlockTile, ...]
    Z: np.ndarray
    logsumexp: np.ndarray
    skipped: int
    memory: Memory


@dataclass(frozen=True)
class Tile:
    """One key block as query row i goes through it: BlockTile's fields for that row alone
    (floats, O_before and O_after (d_v,), scores (c,)); ``skipped`` is the whole tile's."""

    key_block: int
    keys: tuple[int, int]
    skipped: bool
    m_before: float
    m_after: float
    l_before: float
    l_after: float
    O_before: np.ndarray
    O_after: np.ndarray
    rescale: float
    scores: np.ndarray


@dataclass(frozen=True)
class Final:
    """z : (d_v,) O/ℓ, attention's z_i (0 with no permitted key); logsumexp : m + ln ℓ."""

    z: np.ndarray
    logsumexp: float


@dataclass(frozen=True)
class RowTiles:
    """Query row i's pass, tile by tile, within its query block (query_block, 0-based,
    whose queries are rows = (start, stop))."""

    row: int
    query_block: int
    rows: tuple[int, int]
    tiles: tuple[Tile, ...]
    final: Final
    skipped: int
    memory: Memory


def row_tiles(X, W_Q, W_K, W_V, *, row: int, block_q: int, block_k: int,
              **options) -> RowTiles:
    """Query ``row``'s pass through the key blocks, from ``attention``'s inputs and options
    (causal, scale, mask, X_kv, b_Q, b_K, b_V, rope_base, position_offset, alibi_slope,
    window, sinks) and the block sizes B_r = ``block_q``, B_c = ``block_k``.

    >>> r = row_tiles([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
    ...               [[1, 0], [0, 2]], row=2, block_q=1, block_k=1, scale=1)
    >>> [(t.m_after, round(t.rescale, 4)) for t in r.tiles]   # scores 4, 2, 6
    [(4.0, 0.0), (4.0, 1.0), (6.0, 0.1353)]
    >>> r.final.z.round(3)
    array([0.984, 1.765])
    """
    return row_of(prepare(X, W_Q, W_K, W_V, **options), row, block_q, block_k)


def row_of(p: Prepared, row: int, block_q: int, block_k: int) -> RowTiles:
    """Query ``row``'s view of its query block's pass (block_tiles)."""
    n = p.Q.shape[0]
    _check_block(block_q, "block_q")
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < n:
        raise AttentionInputError(
            f"row must be a whole number from 0 to {n - 1} (0-based, queries 1 to {n}), got "
            f"{row!r}", "row")
    b = int(row) // block_q
    block = block_tiles(p, b, block_q, block_k)
    r = int(row) - block.rows[0]
    tiles = tuple(_row_tile(t, r) for t in block.tiles)
    return RowTiles(row=int(row), query_block=b, rows=block.rows, tiles=tiles,
                    final=Final(z=block.Z[r], logsumexp=float(block.logsumexp[r])),
                    skipped=block.skipped, memory=block.memory)


def _row_tile(t: BlockTile, r: int) -> Tile:
    return Tile(key_block=t.key_block, keys=t.keys, skipped=t.skipped,
                m_before=float(t.m_before[r]), m_after=float(t.m_after[r]),
                l_before=float(t.l_before[r]), l_after=float(t.l_after[r]),
                O_before=t.O_before[r], O_after=t.O_after[r], rescale=float(t.rescale[r]),
                scores=t.scores[r])


def block_tiles(p: Prepared, b: int, block_q: int, block_k: int) -> BlockTiles:
    """Query block ``b`` (rows b·B_r … ) through every key block, key block 0 first."""
    _check_block(block_q, "block_q")
    _check_block(block_k, "block_k")
    n, m = p.allowed.shape
    start, stop = b * block_q, min((b + 1) * block_q, n)
    if not 0 <= start < n:
        raise AttentionInputError(
            f"query block {b} starts at row {start}, past the last query, row {n - 1}",
            "block_q")
    d_v = p.V.shape[1]
    state = (np.full(stop - start, -np.inf), np.zeros(stop - start),
             np.zeros((stop - start, d_v)))  # m, ℓ, O of each row
    tiles = []
    for c in range(-(-m // block_k)):  # ceil(m / B_c) key blocks
        tile = _tile(p, (start, stop), (c * block_k, min((c + 1) * block_k, m)), c, state)
        tiles.append(tile)
        state = (tile.m_after, tile.l_after, tile.O_after)
    m_run, l_run, out = state
    seen = l_run > 0  # a row with no permitted key keeps ℓ = 0: its z is 0, as the engine's
    Z = np.zeros_like(out)
    Z[seen] = out[seen] / l_run[seen, np.newaxis]
    logsumexp = np.full(stop - start, -np.inf)
    logsumexp[seen] = m_run[seen] + np.log(l_run[seen])
    memory = Memory(held=min(block_q, n) * min(block_k, m), whole=n * m)
    return BlockTiles(rows=(start, stop), tiles=tuple(tiles), Z=Z, logsumexp=logsumexp,
                      skipped=sum(t.skipped for t in tiles), memory=memory)


def _tile(p: Prepared, rows: tuple[int, int], keys: tuple[int, int], c: int,
          state) -> BlockTile:
    """One tile's step of the online softmax, from the running (m, ℓ, O) ``state``."""
    m_old, l_old, O_old = state
    allowed = p.allowed[rows[0]:rows[1], keys[0]:keys[1]]  # (r, c)
    if not allowed.any():  # nothing to read here: skipped, never computed
        return BlockTile(c, keys, True, m_old, m_old, l_old, l_old, O_old, O_old,
                         np.ones_like(m_old), np.full(allowed.shape, -np.inf))
    s = _scores(p, rows, keys)
    s[~allowed] = -np.inf
    m_new = np.maximum(m_old, s.max(axis=1))  # (r,)
    grew = m_new > m_old
    rescale = np.ones_like(m_old)
    rescale[grew] = np.exp(m_old[grew] - m_new[grew])  # 0 where m_old is −∞
    shift = np.where(np.isfinite(m_new), m_new, 0.0)  # a row still without a key: e^−∞ = 0
    e = np.exp(s - shift[:, np.newaxis])  # (r, c), 0 where masked
    l_new = rescale * l_old + e.sum(axis=1)
    O_new = rescale[:, np.newaxis] * O_old + e @ p.V[keys[0]:keys[1]]  # (r, d_v)
    return BlockTile(c, keys, False, m_old, m_new, l_old, l_new, O_old, O_new, rescale, s)


def _scores(p: Prepared, rows: tuple[int, int], keys: tuple[int, int]) -> np.ndarray:
    """The tile's (r, c) scale·q_i·k_j (+ ALiBi's bias), unmasked; for one beyond float64,
    the engine's own error naming the input to blame (it looks at every score to find it)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = (p.Q[rows[0]:rows[1]] @ p.K[keys[0]:keys[1]].T) * p.scale
        if p.bias is not None:
            s += p.bias[rows[0]:rows[1], keys[0]:keys[1]]
    if not np.isfinite(s).all():
        scaled_scores(p)  # raises, naming the culprit
        raise AttentionInputError(  # rounded otherwise than the whole product: still refused
            f"a score of queries {rows[0] + 1}–{rows[1]} for keys {keys[0] + 1}–{keys[1]} is "
            "beyond float64's range (about ±1.8e308); make the inputs smaller", None)
    return s


def _check_block(size, name: str) -> None:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise AttentionInputError(
            f"{name} must be a whole number of at least 1 (the rows or columns of a tile), "
            f"got {size!r}", name)
