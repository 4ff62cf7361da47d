"""An independent attention written with plain Python loops and math.exp, for comparison.

It shares no code with attention_core: lists in, lists out, masked entries None.
"""

import math


def matmul(a, b):
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a, strict=True)]


def softmax_row(s, ok):
    """The softmax of the scores s over the keys where ok is true (0 elsewhere), by a loop;
    all zeros when no key is allowed."""
    if not any(ok):
        return [0.0] * len(s)
    top = max(x for x, allowed in zip(s, ok, strict=True) if allowed)
    e = [math.exp(x - top) if allowed else 0.0 for x, allowed in zip(s, ok, strict=True)]
    total = sum(e)
    return [x / total for x in e]


def reference_attention(X, W_Q, W_K, W_V, causal=False, scale=None, mask=None, X_kv=None):
    X_kv = X if X_kv is None else X_kv
    Q, K, V = matmul(X, W_Q), matmul(X_kv, W_K), matmul(X_kv, W_V)
    n, m, d_k = len(X), len(X_kv), len(W_Q[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    scores = matmul(Q, transpose(K))
    weights = []
    for i in range(n):
        ok = [(not causal or j <= i) and (mask is None or mask[i][j]) for j in range(m)]
        weights.append(softmax_row([scores[i][j] * scale for j in range(m)], ok))
    return {"Q": Q, "K": K, "V": V, "scores": scores, "weights": weights,
            "output": matmul(weights, V)}


def reference_multi_head(X, heads, W_O, **options):
    """Concat(head_1 … head_h) · W_O with each head from reference_attention."""
    outs = [reference_attention(X, *head, **options)["output"] for head in heads]
    concat = [sum((o[i] for o in outs), []) for i in range(len(X))]
    return {"concat": concat, "output": matmul(concat, W_O)}


def reference_sinusoidal(n, d_model):
    """PE[pos][2i] = sin(pos / 10000^(2i/d)), PE[pos][2i+1] = cos(same), by loops."""
    pe = [[0.0] * d_model for _ in range(n)]
    for pos in range(n):
        for c in range(d_model):
            i = c // 2
            angle = pos / 10000 ** (2 * i / d_model)
            pe[pos][c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def reference_entropy(a):
    """−Σ_j a_j ln a_j in nats, with 0 ln 0 = 0, by a loop."""
    h = 0.0
    for p in a:
        if p > 0:
            h -= p * math.log(p)
    return h


def reference_jacobian_norm(a):
    """√(Σ_ij J_ij²) with J_ij = a_i·[i = j] − a_i·a_j, the softmax's Jacobian, by loops."""
    squares = 0.0
    for i in range(len(a)):
        for j in range(len(a)):
            J_ij = (a[i] if i == j else 0.0) - a[i] * a[j]
            squares += J_ij * J_ij
    return math.sqrt(squares)
