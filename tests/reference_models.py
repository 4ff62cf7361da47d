"""Independent forward passes of the pretrained models' architectures, written with plain
Python loops over tokens and heads, math.exp and math.erf, for comparison on the tiny models.

They share no code with attention_models: they read the tensors as the files store them
(torch's Linear weight is (out, in): y[o] = Σ_i weight[o][i]·x[i] + bias[o]) and work on
lists of floats.
"""

import math

# ---- encoder (BERT) ----


def bert_linear(tensors, name, x):
    """torch's Linear ``name`` on one vector x: weight (out, in), bias (out,)."""
    weight, bias = tensors[f"{name}.weight"], tensors[f"{name}.bias"]
    return [sum(w * v for w, v in zip(row, x, strict=True)) + b
            for row, b in zip(weight, bias, strict=True)]


def bert_layer_norm(tensors, name, x, eps=1e-12):
    """One vector to mean 0 and (biased) variance 1, then the gain and bias of ``name``."""
    mean = sum(x) / len(x)
    variance = sum((v - mean) ** 2 for v in x) / len(x)
    gain, bias = tensors[f"{name}.weight"], tensors[f"{name}.bias"]
    return [(v - mean) / math.sqrt(variance + eps) * g + b
            for v, g, b in zip(x, gain, bias, strict=True)]


def bert_gelu(v):
    return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))


def bert_attention(tensors, prefix, X, heads):
    """Every head's weights[h][i][j] and outputs[h][i] (A·V), by loops, and the heads'
    outputs side by side for each token."""
    q, k, v = ([bert_linear(tensors, f"{prefix}.attention.self.{m}", x) for x in X]
               for m in ("query", "key", "value"))
    n, d = len(X), len(X[0]) // heads
    weights, outputs = [], []
    for h in range(heads):
        cols = range(h * d, (h + 1) * d)
        head_weights, head_outputs = [], []
        for i in range(n):
            scores = [sum(q[i][c] * k[j][c] for c in cols) / math.sqrt(d) for j in range(n)]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            row = [x / sum(e) for x in e]
            head_weights.append(row)
            head_outputs.append([sum(row[j] * v[j][c] for j in range(n)) for c in cols])
        weights.append(head_weights)
        outputs.append(head_outputs)
    concat = [sum((outputs[h][i] for h in range(heads)), []) for i in range(n)]
    return weights, outputs, concat


def bert_layer(tensors, i, X, heads):
    """Encoder layer i (post-layernorm) on the token vectors X: (its output, weights,
    outputs)."""
    p = f"encoder.layer.{i}"
    weights, outputs, concat = bert_attention(tensors, p, X, heads)
    after = []
    for x, c in zip(X, concat, strict=True):
        attended = bert_linear(tensors, f"{p}.attention.output.dense", c)
        a = bert_layer_norm(tensors, f"{p}.attention.output.LayerNorm",
                            [s + t for s, t in zip(x, attended, strict=True)])
        expanded = [bert_gelu(s) for s in bert_linear(tensors, f"{p}.intermediate.dense", a)]
        back = bert_linear(tensors, f"{p}.output.dense", expanded)
        after.append(bert_layer_norm(tensors, f"{p}.output.LayerNorm",
                                     [s + t for s, t in zip(a, back, strict=True)]))
    return after, weights, outputs


def bert_forward(tensors, ids, heads):
    """The encoder on token ids (token type 0 throughout) from the file's tensors, given as
    nested lists by name: {"X": [layer][token][D], "weights": [layer][head][query][key],
    "outputs": [layer][head][token][d], "hidden": [token][D]}."""
    words = tensors["embeddings.word_embeddings.weight"]
    positions = tensors["embeddings.position_embeddings.weight"]
    token_type = tensors["embeddings.token_type_embeddings.weight"][0]
    X = [bert_layer_norm(tensors, "embeddings.LayerNorm",
                         [w + p + t for w, p, t in zip(words[i], positions[pos], token_type,
                                                       strict=True)])
         for pos, i in enumerate(ids)]
    layers = len({name.split(".")[2] for name in tensors if name.startswith("encoder.layer.")})
    result = {"X": [], "weights": [], "outputs": []}
    for i in range(layers):
        result["X"].append(X)
        X, weights, outputs = bert_layer(tensors, i, X, heads)
        result["weights"].append(weights)
        result["outputs"].append(outputs)
    result["hidden"] = X
    return result
