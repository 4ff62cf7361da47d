"""Exercises: a small attention problem from a seed and a level, and the numbers to fill.

An exercise asks for some of the numbers of one query row's working (working.py): the dot
products, the scaled scores, the exponentials and their sum, the weights, z_i, or all of
them from x_i on; the later levels add a causal mask, a mask of the teacher's kind, no
scaling, sinusoidal positions and two heads. Its inputs are hand-friendly: 2 to 4 tokens,
d_k 2 to 4, whole numbers from −1 to 2, every scaled score between −3 and 3.

Each blank is named by its path in the answer of ``POST /api/attention`` for the
exercise's inputs ("working.weights[1]", "working.exp_sum", "heads[1].working.z[0]",
"positional_encoding[2][0]"), so a script can compute it there; ``solve`` gives the
numbers, from the engine, and diagnosis.py says where a wrong one went wrong.

The same seed and level give the same exercise on every machine and Python: the choices
are drawn with ``random.Random.random`` alone, seeded with a string, which the standard
library promises to keep reproducible (its other methods it does not).

>>> e = exercise(17, "weights")
>>> e.row, e.blanks[0], len(e.tokens) == len(e.blanks)
(0, 'working.weights[0]', True)
>>> round(sum(v for p, v in solve(e).items() if "weights" in p), 12)
1.0
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import numpy as np

from ..engine import attention
from ..errors import AttentionInputError
from ..multihead import multi_head_attention
from ..positions import sinusoidal
from ..working import RowWorking, working

# The levels, in the order a lesson takes them, and what each asks.
LEVELS = {
    "dots": "the dot products q·kⱼ",
    "scaled": "the scaled scores sⱼ = q·kⱼ / √dₖ",
    "exp": "the exponentials exp(sⱼ) and their sum",
    "weights": "the weights aⱼ = exp(sⱼ) / Σ exp(s)",
    "z": "the output z = Σ aⱼ vⱼ",
    "row": "a whole row, from xᵢ to zᵢ",
    "causal": "a row under the causal mask",
    "mask": "a row under a mask",
    "unscaled": "a row without scaling (scale 1)",
    "positions": "a row with sinusoidal positions added to X",
    "heads": "the weights and zᵢ of two heads",
}
# The steps of the row's working each level gives, worked out, for a page or a worksheet
# to show beside the blanks: what the blanks are made from, and no more, so that a row fits
# a phone. The steps in neither are the student's own work on the way (at "heads", the
# scaled scores and exponentials before the weights).
GIVEN = {
    "dots": ("q", "k"), "scaled": ("dots",), "exp": ("scaled",), "weights": ("exp", "exp_sum"),
    "z": ("v", "weights"), "row": (), "causal": ("dots", "v"), "mask": ("dots", "v"),
    "unscaled": ("dots", "v"), "positions": ("k",), "heads": ("dots", "v"),
}
SEEDS = 1_000_000  # a seed is a whole number from 0 to SEEDS − 1
TOKENS = (2, 3, 4)
D_K = (2, 3, 4)
D_MODEL = (2, 3)
D_V = 2
ENTRIES = (-1, 0, 1, 2)  # X's and W's entries
SCALED_LIMIT = 3.0  # |scaled score| at most this, so each e^s is a calculator's work
WORDS = ("the", "cat", "sat", "on", "a", "mat", "it", "was", "warm", "dog", "ran", "home")
_TRIES = 10_000  # draws before giving up; 200 seeds at every level need at most a few hundred


@dataclass(frozen=True)
class Exercise:
    """One exercise: the inputs of a ``POST /api/attention`` request, the row asked about
    and the blanks. Matrices are float64, rows are tokens (X: (n, d_model); each head's
    W_Q, W_K: (d_model, d_k), W_V: (d_model, d_v)); ``mask`` (n, n) True where query i may
    read key j; ``scale`` None means 1/√d_k; ``W_O`` only with two heads."""

    seed: int | None  # None for an example of one's own (view_exercise)
    level: str
    tokens: tuple[str, ...]
    X: np.ndarray
    heads: tuple[dict, ...]  # {"W_Q", "W_K", "W_V"} each
    row: int
    blanks: tuple[str, ...]
    causal: bool = False
    mask: np.ndarray | None = None
    scale: float | None = None
    positional: str | None = None  # "sinusoidal" or None
    W_O: np.ndarray | None = None  # (2 · d_v, d_v) with two heads


def check_level(level) -> str:
    if not isinstance(level, str) or level not in LEVELS:
        raise AttentionInputError(f"level must be one of {', '.join(LEVELS)}; got {level!r}",
                                  "level")
    return level


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < SEEDS:
        raise AttentionInputError(f"seed must be a whole number from 0 to {SEEDS - 1}; got "
                                  f"{seed!r}", "seed")
    return int(seed)


def exercise(seed: int, level: str) -> Exercise:
    """The exercise of ``seed`` (0 to SEEDS − 1) at ``level`` (one of LEVELS)."""
    seed, level = check_seed(seed), check_level(level)
    rng = random.Random(f"attention-exercise:{level}:{seed}")
    for _ in range(_TRIES):
        drawn = _draw(rng, seed, level)
        if drawn is not None:
            return drawn
    raise RuntimeError(f"no hand-friendly exercise in {_TRIES} draws for seed {seed}, {level}")


def _pick(rng: random.Random, values):
    return values[int(rng.random() * len(values))]


def _matrix(rng: random.Random, rows: int, cols: int) -> np.ndarray:
    return np.array([[_pick(rng, ENTRIES) for _ in range(cols)] for _ in range(rows)], float)


def _draw(rng: random.Random, seed: int, level: str) -> Exercise | None:
    """One draw of an exercise, or None when it is not hand-friendly."""
    n = _pick(rng, TOKENS[1:] if level in ("causal", "mask") else TOKENS)
    d_model, d_k = _pick(rng, D_MODEL), _pick(rng, D_K[:1] if level == "heads" else D_K)
    tokens = tuple(_pick(rng, WORDS) for _ in range(n))
    X = _matrix(rng, n, d_model)
    heads = tuple({"W_Q": _matrix(rng, d_model, d_k), "W_K": _matrix(rng, d_model, d_k),
                   "W_V": _matrix(rng, d_model, D_V)} for _ in range(2 if level == "heads" else 1))
    row = _pick(rng, range(1, n - 1) if level == "causal" else range(n))
    mask = _mask(rng, n, row) if level == "mask" else None
    W_O = _matrix(rng, 2 * D_V, D_V) if level == "heads" else None
    e = Exercise(seed, level, tokens, X, heads, row, (), causal=level == "causal", mask=mask,
                 scale=1.0 if level == "unscaled" else None,
                 positional="sinusoidal" if level == "positions" else None, W_O=W_O)
    rows = rows_of(e)
    if not all(_friendly(w) for w in rows):
        return None
    return Exercise(**{**e.__dict__, "blanks": _blanks(e, rows)})


def _mask(rng: random.Random, n: int, row: int) -> np.ndarray:
    """A mask hiding one or two keys from the row asked about (never all but one), every
    other query reading every key."""
    mask = np.ones((n, n), bool)
    hidden = [j for j in range(n) if rng.random() < 0.4]
    if 1 <= len(hidden) <= n - 2:
        mask[row, hidden] = False
    else:
        mask[row, (row + 1) % n] = False
    return mask


def _friendly(w: RowWorking) -> bool:
    """Scaled scores within ±SCALED_LIMIT, not all alike (weights that differ), and some
    dot product not 0 (so that forgetting to scale shows)."""
    s = w.scaled[w.allowed]
    return bool(np.abs(s).max() <= SCALED_LIMIT and np.ptp(s) >= 0.5
                and np.abs(w.dots[w.allowed]).max() > 0)


def inputs(e: Exercise) -> np.ndarray:
    """X as the heads read it: with sinusoidal positions added when the level has them."""
    n, d_model = e.X.shape
    return e.X + sinusoidal(n, d_model) if e.positional else e.X


def rows_of(e: Exercise) -> list[RowWorking]:
    """The working of the row asked about, one per head."""
    X = inputs(e)
    if e.W_O is None:
        h = e.heads[0]
        r = attention(X, h["W_Q"], h["W_K"], h["W_V"], causal=e.causal, scale=e.scale,
                      mask=e.mask)
        return [working(r, e.row)]
    m = multi_head_attention(X, e.heads, e.W_O, causal=e.causal, scale=e.scale, mask=e.mask)
    return [working(r, e.row) for r in m.heads]


def _blanks(e: Exercise, rows: list[RowWorking]) -> tuple[str, ...]:
    """The blanks of the level: one head's, or with several heads each head's, prefixed."""
    if e.W_O is None:
        return tuple(_head_blanks(e, rows[0], e.level))
    level = "weights+z" if e.level == "heads" else e.level
    return tuple(f"heads[{h}].{p}" for h, w in enumerate(rows) for p in _head_blanks(e, w, level))


def _head_blanks(e: Exercise, w: RowWorking, level: str) -> list[str]:
    """One head's blanks at ``level`` ("weights+z": the "heads" level's, for each head)."""
    m, d_k = w.k.shape
    d_v = w.v.shape[1]
    keys, allowed = range(m), [j for j in range(m) if w.allowed[j]]
    z = [f"working.z[{c}]" for c in range(d_v)]
    weights = [f"working.weights[{j}]" for j in keys]
    exps = [f"working.exp[{j}]" for j in keys] + ["working.exp_sum"]
    scaled = [f"working.scaled[{j}]" for j in allowed]  # a masked score is −∞, not typed
    dots = [f"working.dots[{j}]" for j in keys]
    projections = ([f"working.q[{c}]" for c in range(d_k)]
                   + [f"working.k[{j}][{c}]" for j in keys for c in range(d_k)]
                   + [f"working.v[{j}][{c}]" for j in keys for c in range(d_v)])
    by_level = {
        "dots": dots, "scaled": scaled, "exp": exps, "weights": weights, "z": z,
        "row": projections + dots + scaled + exps + weights + z,
        "causal": scaled + exps + weights + z, "mask": scaled + exps + weights + z,
        "unscaled": scaled + exps + weights + z,
        "positions": [f"positional_encoding[{e.row}][{c}]" for c in range(e.X.shape[1])]
        + [f"working.q[{c}]" for c in range(d_k)] + dots + weights,
        "weights+z": weights + z,
    }
    return by_level[level]


# The levels an example of one's own may be practised at (view_exercise): its row's steps;
# its mask, scale, positions and heads are its own.
VIEW_LEVELS = ("dots", "scaled", "exp", "weights", "z", "row")
VIEW_TOKENS = 8  # an example of one's own worked by hand: at most 8 tokens
VIEW_DIM = 8  # and d_model, d_k and d_v at most 8


def view_exercise(tokens, X, heads, row: int, level: str, *, causal: bool = False, mask=None,
                  scale: float | None = None, positional: str | None = None,
                  W_O=None) -> Exercise:
    """An exercise of one's own example at ``level`` (one of VIEW_LEVELS): its inputs as the
    engine takes them (X: (n, d_model); each head {"W_Q", "W_K", "W_V"}; mask (n, n) True
    where query i may read key j), ``row`` the query asked about. Its seed is None."""
    if not isinstance(level, str) or level not in VIEW_LEVELS:
        raise AttentionInputError(f"level must be one of {', '.join(VIEW_LEVELS)} for an "
                                  f"example of your own; got {level!r}", "level")
    X = np.asarray(X, float)
    n, d_model = X.shape
    widths = [np.shape(h[k])[1] for h in heads for k in ("W_Q", "W_V")]
    if n > VIEW_TOKENS or max(d_model, *widths) > VIEW_DIM:
        raise AttentionInputError(
            f"an example worked by hand has at most {VIEW_TOKENS} tokens and d_model, d_k and "
            f"d_v at most {VIEW_DIM}; this one has {n} tokens, d_model {d_model} and d_k or "
            f"d_v up to {max(widths)}", "X")
    e = Exercise(None, level, tuple(tokens), X,
                 tuple({k: np.asarray(h[k], float) for k in ("W_Q", "W_K", "W_V")} for h in heads),
                 row, (), causal=causal, mask=None if mask is None else np.asarray(mask, bool),
                 scale=scale, positional=positional,
                 W_O=None if W_O is None else np.asarray(W_O, float))
    return Exercise(**{**e.__dict__, "blanks": _blanks(e, rows_of(e))})


# A blank's path: "working.weights[1]", "heads[1].working.k[2][0]", "positional_encoding[1][0]".
PATH = re.compile(r"(?:heads\[(?P<head>\d+)\]\.)?(?P<where>working\.|)(?P<step>[a-z_]+)"
                  r"(?P<index>(?:\[\d+\])*)")


@dataclass(frozen=True)
class Blank:
    """A blank's path taken apart: its head (0 with one), the working's step ("weights")
    or "positional_encoding", and its indices (the key j, or j and the component c)."""

    path: str
    head: int
    step: str
    index: tuple[int, ...]


def parse_path(path: str) -> Blank:
    found = PATH.fullmatch(path)
    if not found:
        raise ValueError(f"not a blank's path: {path!r}")
    index = tuple(int(i) for i in re.findall(r"\d+", found["index"]))
    return Blank(path, int(found["head"] or 0), found["step"], index)


def solve(e: Exercise) -> dict[str, float]:
    """Each blank's number, as the engine computes it (float64)."""
    rows = rows_of(e)
    pe = sinusoidal(*e.X.shape)
    out = {}
    for path in e.blanks:
        b = parse_path(path)
        if b.step == "positional_encoding":
            out[path] = float(pe[b.index])
        else:
            out[path] = float(np.asarray(getattr(rows[b.head], b.step))[b.index])
    return out


# The largest whole numbers written as ints: beyond 2^53 float64 holds only some of them, and
# beyond 2^63 JSON's writer takes no int (1.8e308 stays a float, not a 309-digit int).
WHOLE = 2.0 ** 53


def _whole(a: np.ndarray) -> list:
    """A matrix as lists, its whole numbers up to 2^53 as ints, as a person would write them
    (2, not 2.0), any other number as it is."""
    return [[int(v) if float(v).is_integer() and abs(v) <= WHOLE else float(v) for v in row]
            for row in a.tolist()]


def request(e: Exercise) -> dict:
    """The exercise's inputs in the request format of ``POST /api/attention``, asking for
    the working of its row (plain lists and numbers, ready for JSON)."""
    body = {"tokens": list(e.tokens), "X": _whole(e.X)}
    if e.W_O is None:
        body.update({k: _whole(v) for k, v in e.heads[0].items()})
    else:
        body.update(heads=[{k: _whole(v) for k, v in h.items()} for h in e.heads],
                    W_O=_whole(e.W_O))
    if e.causal:
        body["causal"] = True
    if e.mask is not None:
        body["mask"] = e.mask.tolist()
    if e.scale is not None:
        body["scale"] = e.scale
    if e.positional:
        body["positional"] = e.positional
    body["row"] = e.row
    return body
