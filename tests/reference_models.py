"""Independent forward passes of the pretrained models' architectures, written with plain
Python loops over tokens, heads and pairs (math and cmath, lists in and lists out), for
comparison with attention_models on the tiny models in tests/data.

They share no code with attention_models: they read the tensors as the files store them
(torch's and GGUF's matrices are [out][in]: y[o] = Σ_i W[o][i]·x[i]), and where
attention_models has one way to write the maths this file takes another.
"""

import cmath
import math

# ---- decoder (Llama) ----
# The weights are a dict from GGUF tensor names to nested lists as the file stores them:
# a matrix is [out][in] (torch's orientation), so y[o] = Σ_i W[o][i]·x[i]; the embedding
# is [token][d_model]. Differences from attention_models.llama: matrix-vector products one
# token at a time, RoPE as complex multiplication, causal attention by looping over the
# keys j ≤ i only (no mask), a query head's key/value head as ⌊h·G/H⌋, separate Q, K, V
# and gate, up projections, and SiLU as x / (1 + e^−x).


def llama_matvec(W, x):
    """W [out][in] applied to the vector x [in]: [out]."""
    return [sum(w * v for w, v in zip(row, x, strict=True)) for row in W]


def llama_rms_norm(x, gain, eps):
    """x / √(mean(x²) + ε) ⊙ gain, for one token's vector."""
    root = math.sqrt(sum(v * v for v in x) / len(x) + eps)
    return [v / root * g for v, g in zip(x, gain, strict=True)]


def llama_rotate(vector, p, base):
    """One head's (d,) query or key at position p: pair (x[2c], x[2c+1]) as the complex
    number x[2c] + i·x[2c+1], times e^{i·p·base^(−2c/d)}."""
    d = len(vector)
    out = []
    for c in range(d // 2):
        z = complex(vector[2 * c], vector[2 * c + 1]) * cmath.exp(1j * p * base ** (-2 * c / d))
        out += [z.real, z.imag]
    return out


def llama_silu(x):
    """x·sigmoid(x); below −50 it is 0 to within 1e-20 (and e^50 would not overflow)."""
    return x / (1.0 + math.exp(-x)) if x > -50 else 0.0


def llama_heads(vector, count):
    """A projection's [count·d] split into count heads of d numbers each."""
    d = len(vector) // count
    return [vector[h * d:(h + 1) * d] for h in range(count)]


def llama_attention_head(q, k, v, n):
    """One head's causal attention over n tokens: q, k, v are [token][d] (q and k turned).
    Returns its weights [i][j] (0 for j > i) and outputs [i][d]."""
    d = len(q[0])
    weights, outputs = [], []
    for i in range(n):
        scores = [sum(a * b for a, b in zip(q[i], k[j], strict=True)) / math.sqrt(d)
                  for j in range(i + 1)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        row = [e / total for e in exps] + [0.0] * (n - i - 1)
        weights.append(row)
        outputs.append([sum(row[j] * v[j][c] for j in range(i + 1)) for c in range(d)])
    return weights, outputs


def llama_layer(hidden, W, prefix, config):
    """One decoder layer on hidden [token][D]: the new hidden states, and its X [token][D],
    weights [head][i][j] and outputs [head][i][d]."""
    H, G, base, eps = config["heads"], config["kv_heads"], config["rope_base"], config["eps"]
    n = len(hidden)
    X = [llama_rms_norm(x, W[prefix + "attn_norm.weight"], eps) for x in hidden]
    q = [llama_heads(llama_matvec(W[prefix + "attn_q.weight"], x), H) for x in X]
    k = [llama_heads(llama_matvec(W[prefix + "attn_k.weight"], x), G) for x in X]
    v = [llama_heads(llama_matvec(W[prefix + "attn_v.weight"], x), G) for x in X]
    weights, outputs = [], []
    for h in range(H):
        g = h * G // H  # the key/value head query head h reads
        qh = [llama_rotate(q[i][h], i, base) for i in range(n)]
        kh = [llama_rotate(k[i][g], i, base) for i in range(n)]
        w, o = llama_attention_head(qh, kh, [v[i][g] for i in range(n)], n)
        weights.append(w)
        outputs.append(o)
    new = []
    for i in range(n):
        joined = [x for h in range(H) for x in outputs[h][i]]  # the heads side by side
        r = [a + b for a, b in zip(hidden[i], llama_matvec(W[prefix + "attn_output.weight"],
                                                           joined), strict=True)]
        normed = llama_rms_norm(r, W[prefix + "ffn_norm.weight"], eps)
        gate = llama_matvec(W[prefix + "ffn_gate.weight"], normed)
        up = llama_matvec(W[prefix + "ffn_up.weight"], normed)
        act = [llama_silu(a) * b for a, b in zip(gate, up, strict=True)]
        new.append([a + b for a, b in zip(r, llama_matvec(W[prefix + "ffn_down.weight"], act),
                                          strict=True)])
    return new, X, weights, outputs


def llama_forward(W, config, ids):
    """The decoder on token ids. ``config`` holds layers, heads, kv_heads, rope_base, eps.

    Returns a dict of lists: X [layer][token][D], weights [layer][head][i][j], outputs
    [layer][head][i][d], hidden [token][D] (after the final norm), probabilities
    [vocabulary] of the next token (softmax of the last hidden state · each embedding row:
    the output matrix is the embedding, tied)."""
    hidden = [list(W["token_embd.weight"][t]) for t in ids]
    X, weights, outputs = [], [], []
    for layer in range(config["layers"]):
        hidden, x, w, o = llama_layer(hidden, W, f"blk.{layer}.", config)
        X.append(x)
        weights.append(w)
        outputs.append(o)
    hidden = [llama_rms_norm(x, W["output_norm.weight"], config["eps"]) for x in hidden]
    logits = llama_matvec(W["token_embd.weight"], hidden[-1])
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    return {"X": X, "weights": weights, "outputs": outputs, "hidden": hidden,
            "probabilities": [e / total for e in exps]}
# ---- end of decoder (Llama) ----


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
