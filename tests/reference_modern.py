"""An independent attention with today's additions — projection biases, rotary positions
(RoPE), linear position biases (ALiBi), sliding windows with sink tokens and grouped-query
heads — written with plain loops, math and cmath, for comparison.

It shares no code with attention_core: lists in, lists out. Where the engine has one way to
write the maths, this file takes another:
- RoPE through complex numbers: the pair (x[2c], x[2c+1]) is the number x[2c] + i·x[2c+1],
  turned by multiplying it by e^{i·p·θ^(−2c/d_k)} (the engine writes out cosines and sines);
- grouped-query heads by repeating each key/value head for the query heads that share it,
  as torch's ``repeat_interleave`` does under ``enable_gqa`` (the engine picks ⌊h·G/H⌋);
- the ALiBi slopes by the paper's own recursive rule (``get_slopes`` in its code).
"""

import cmath
import math

from tests.reference import matmul, softmax_row, transpose


def add_bias(rows, b):
    """Every row plus the vector b (None: the rows as they are)."""
    if b is None:
        return rows
    return [[x + y for x, y in zip(row, b, strict=True)] for row in rows]


def rotate_complex(vector, p, base):
    """The (d_k,) vector at position p, each pair (x[2c], x[2c+1]) turned as a complex number
    by the angle p·base^(−2c/d_k)."""
    d_k = len(vector)
    out = []
    for c in range(d_k // 2):
        z = complex(vector[2 * c], vector[2 * c + 1])
        z *= cmath.exp(1j * p * base ** (-2 * c / d_k))
        out += [z.real, z.imag]
    return out


def paper_alibi_slopes(H):
    """The ALiBi paper's slopes for H heads (Press et al., 2022, its ``get_slopes``).

    H a power of two: 2^(−8/H), 2^(−16/H), …, 2^(−8). Otherwise the slopes of the closest
    lower power of two P, then every other slope of 2P, the first H − P of them.
    """
    if H & (H - 1) == 0:
        start = 2 ** (-8 / H)
        return [start ** (h + 1) for h in range(H)]
    P = 2 ** math.floor(math.log2(H))
    return paper_alibi_slopes(P) + paper_alibi_slopes(2 * P)[0::2][:H - P]


def readable(i, j, *, causal=False, mask=None, window=None, sinks=0):
    """May query i read key j? causal AND mask AND (inside the window OR a sink)."""
    in_window = window is None or abs(i - j) < window
    return ((not causal or j <= i) and (mask is None or bool(mask[i][j]))
            and (in_window or j < sinks))


def reference_modern(X, W_Q, W_K, W_V, *, causal=False, scale=None, mask=None, X_kv=None,
                     b_Q=None, b_K=None, b_V=None, rope_base=None, position_offset=0,
                     alibi_slope=None, window=None, sinks=0):
    """Attention with every addition, by loops. Masked scaled scores are −inf, as the
    engine's; ``bias`` is the ALiBi term (None without ALiBi), ``allowed`` the final mask."""
    X_kv = X if X_kv is None else X_kv
    n, m = len(X), len(X_kv)
    Q_unrotated = add_bias(matmul(X, W_Q), b_Q)
    K_unrotated = add_bias(matmul(X_kv, W_K), b_K)
    V = add_bias(matmul(X_kv, W_V), b_V)
    if rope_base is None:
        Q, K = Q_unrotated, K_unrotated
    else:  # query i at position offset + i, key j (of X_kv too) at offset + j
        Q = [rotate_complex(q, position_offset + i, rope_base) for i, q in enumerate(Q_unrotated)]
        K = [rotate_complex(k, position_offset + j, rope_base) for j, k in enumerate(K_unrotated)]
    d_k = len(W_Q[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    bias = None
    if alibi_slope is not None:
        bias = [[-alibi_slope * abs(i - j) for j in range(m)] for i in range(n)]
    scores = matmul(Q, transpose(K))
    allowed, scaled, weights = [], [], []
    for i in range(n):
        ok = [readable(i, j, causal=causal, mask=mask, window=window, sinks=sinks)
              for j in range(m)]
        s = [scale * scores[i][j] + (0.0 if bias is None else bias[i][j]) for j in range(m)]
        allowed.append(ok)
        scaled.append([s[j] if ok[j] else -math.inf for j in range(m)])
        weights.append(softmax_row(s, ok))
    return {"Q_unrotated": Q_unrotated, "K_unrotated": K_unrotated, "Q": Q, "K": K, "V": V,
            "scores": scores, "bias": bias, "scaled_scores": scaled, "allowed": allowed,
            "weights": weights, "output": matmul(weights, V)}


def reference_heads(X, heads, W_O, *, alibi_slopes=None, **options):
    """Concat(head_1 … head_H) · W_O; heads are dicts of reference_modern's W_Q, W_K, W_V,
    b_Q, b_K, b_V; head h gets alibi_slopes[h]."""
    results = [reference_modern(X, **head, **options,
                                alibi_slope=None if alibi_slopes is None else alibi_slopes[h])
               for h, head in enumerate(heads)]
    concat = [sum((r["output"][i] for r in results), []) for i in range(len(X))]
    return {"heads": results, "concat": concat, "output": matmul(concat, W_O)}


def reference_grouped(X, queries, kv_heads, W_O, **options):
    """Grouped-query attention by repetition: queries are H dicts {W_Q, b_Q?}, kv_heads G dicts
    {W_K, W_V, b_K?, b_V?}; each key/value head is repeated H/G times, so that consecutive
    query heads share it, and the heads are then ordinary heads."""
    H, G = len(queries), len(kv_heads)
    repeated = [kv for kv in kv_heads for _ in range(H // G)]
    heads = [{**q, **kv} for q, kv in zip(queries, repeated, strict=True)]
    return reference_heads(X, heads, W_O, **options)
