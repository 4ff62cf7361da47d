"""Shared by the engine's tests of today's additions: fixed random problems and the
comparison of the engine's arrays with the independent reference (tests/reference_modern.py),
and a reference for the exercises' numbers from their request alone."""

import math
import re

import numpy as np

I2 = [[1.0, 0.0], [0.0, 1.0]]
T, F = True, False  # a mask's cells, as the tests write them out
COS1, SIN1 = 0.5403023058681398, 0.8414709848078965  # cos 1, sin 1 (1 radian)


def lists(value):
    """Arrays (also inside dicts and lists) as nested lists, for the reference."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [lists(v) for v in value]
    return value


def close(actual, expected, tol=1e-12):
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def agree(result, ref, names=("Q", "K", "V", "scores", "scaled_scores", "weights", "output")):
    """The engine's result and the reference's agree to 1e-12 in every named array."""
    for name in names:
        close(getattr(result, name), ref[name])
    assert result.mask.tolist() == ref["allowed"]


def rng_problem(seed, n=3, m=None, d_model=3, d_k=4, d_v=2):
    """A fixed random problem: X (n, d_model), X_kv (m, d_model) when m is given, weights."""
    rng = np.random.default_rng(seed)
    p = dict(X=rng.standard_normal((n, d_model)), W_Q=rng.standard_normal((d_model, d_k)),
             W_K=rng.standard_normal((d_model, d_k)), W_V=rng.standard_normal((d_model, d_v)))
    if m is not None:
        p["X_kv"] = rng.standard_normal((m, d_model))
    return p


def rng_biases(seed, d_k=4, d_v=2):
    rng = np.random.default_rng(seed)
    return dict(b_Q=rng.standard_normal(d_k), b_K=rng.standard_normal(d_k),
                b_V=rng.standard_normal(d_v))


def gqa_problem(seed, H, G, n=3, m=None, d_model=3, d_k=2, d_v=2, biases=False):
    """H query heads {W_Q(, b_Q)}, G key/value heads {W_K, W_V(, b_K, b_V)}, X, X_kv, W_O."""
    rng = np.random.default_rng(seed)
    queries = [{"W_Q": rng.standard_normal((d_model, d_k))} for _ in range(H)]
    kv = [{"W_K": rng.standard_normal((d_model, d_k)), "W_V": rng.standard_normal((d_model, d_v))}
          for _ in range(G)]
    if biases:
        for q in queries:
            q["b_Q"] = rng.standard_normal(d_k)
        for g in kv:
            g.update(b_K=rng.standard_normal(d_k), b_V=rng.standard_normal(d_v))
    X = rng.standard_normal((n, d_model))
    X_kv = None if m is None else rng.standard_normal((m, d_model))
    return dict(X=X, heads=queries, kv_heads=kv, W_O=rng.standard_normal((H * d_v, 2)),
                X_kv=X_kv)


def exercise_reference(body: dict) -> dict:
    """Every number a blank may name, from a request body, in plain numpy: the working of
    body["row"] per head, and the sinusoidal positions."""
    X = np.array(body["X"], float)
    n, d_model = X.shape
    pos = np.arange(n)[:, None] / 10000 ** (2 * (np.arange(d_model) // 2) / d_model)[None, :]
    pe = np.where(np.arange(d_model) % 2 == 0, np.sin(pos), np.cos(pos))  # (n, d_model)
    if body.get("positional") == "sinusoidal":
        X = X + pe
    heads = body.get("heads") or [{k: body[k] for k in ("W_Q", "W_K", "W_V")}]
    i = body["row"]
    out = {"positional_encoding": pe}
    for h, head in enumerate(heads):
        Q, K, V = (X @ np.array(head[w], float) for w in ("W_Q", "W_K", "W_V"))
        d_k = K.shape[1]
        allowed = np.ones(n, bool)
        if body.get("causal"):
            allowed[i + 1:] = False
        if "mask" in body:
            allowed &= np.array(body["mask"], bool)[i]
        dots = K @ Q[i]
        scaled = dots * body.get("scale", 1 / math.sqrt(d_k))
        exp = np.where(allowed, np.exp(scaled), 0.0)
        weights = exp / exp.sum()
        out[h] = {"q": Q[i], "k": K, "v": V, "dots": dots, "scaled": scaled, "exp": exp,
                  "exp_sum": exp.sum(), "weights": weights, "z": weights @ V}
    return out


def exercise_value(numbers: dict, path: str) -> float:
    """The number at a blank's path ("heads[1].working.z[0]") in exercise_reference's."""
    head, step, index = re.fullmatch(r"(?:heads\[(\d)\]\.)?(?:working\.)?([a-z_]+)((?:\[\d+\])*)",
                                     path).groups()
    table = numbers[step] if step == "positional_encoding" else numbers[int(head or 0)][step]
    return float(np.asarray(table)[tuple(int(i) for i in re.findall(r"\d+", index))])
