"""An independent attention written with plain Python loops and math.exp, for comparison.

It shares no code with attention_core: lists in, lists out, masked entries None.
"""

import math


def matmul(a, b):
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a)]


def reference_attention(X, W_Q, W_K, W_V, causal=False, scale=None, mask=None):
    Q, K, V = matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V)
    n, d_k = len(X), len(W_Q[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    scores = matmul(Q, transpose(K))
    weights = []
    for i in range(n):
        ok = [(not causal or j <= i) and (mask is None or mask[i][j]) for j in range(n)]
        s = [scores[i][j] * scale for j in range(n)]
        if not any(ok):
            weights.append([0.0] * n)
            continue
        m = max(s[j] for j in range(n) if ok[j])
        e = [math.exp(s[j] - m) if ok[j] else 0.0 for j in range(n)]
        total = sum(e)
        weights.append([x / total for x in e])
    return {"Q": Q, "K": K, "V": V, "scores": scores, "weights": weights,
            "output": matmul(weights, V)}
