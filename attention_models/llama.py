"""The maths of a Llama-style decoder as pure functions over a weights dict: RMSNorm, rotary
positions with interleaved pairs (attention_core.positions' formula), grouped-query causal
attention, a SwiGLU MLP, and the forward pass that keeps every layer's attention.

Orientation is the engine's: rows are tokens, X (n, D) @ W (D, out). The residual stream,
the norms, the output projection and the MLP run in float32. Attention itself (from X's
projections to each head's A·V) runs in float64 from the float32 X: it is what the page
shows, and in float32 the 576-term sums of the projections alone differ from the engine's
float64 by up to ~1e-5, while the tests hold the two to 1e-6. It costs ~20 ms at 64 tokens
(the query/key/value matmul in float64) and 66 MB (W_qkv kept in float64).

For speed (the server runs numpy on one core) each layer's query, key and value
projections are one matrix W_qkv and the MLP's gate and up one matrix W_gate_up, and all
heads' attention is one batched matmul, and the large products (those, the output
projection and the next token's logits) are split over two threads (split.py: 0.35 s → 0.25 s
at 64 tokens, to the bit the same); tests/reference_models.py computes the same with plain
loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.errors import counted
from attention_core.positions import rope_angles

from .base import Forward
from .gguf_file import GGUFFile
from .split import matmul


@dataclass(frozen=True)
class LlamaConfig:
    """The architecture's numbers, read from the file's metadata."""

    layers: int
    d_model: int
    heads: int  # query heads
    kv_heads: int  # key/value heads; query head h reads h // (heads // kv_heads)
    d_head: int
    d_ffn: int  # the MLP's hidden width
    vocabulary: int
    rope_base: float  # θ; SmolLM2 uses 100000
    eps: float  # RMSNorm's ε, added to the mean square
    context: int  # the longest sequence it was trained on ("llama.context_length")


def read_config(metadata: dict) -> LlamaConfig:
    """The architecture from a GGUF's "llama.*" metadata (the tiny test file has the same).
    d_head is the file's own key length where it gives one ("llama.attention.key_length",
    which a model whose heads are not d_model / H wide must give), else d_model / H."""
    heads = metadata["llama.attention.head_count"]
    d_model = metadata["llama.embedding_length"]
    d_head = metadata.get("llama.attention.key_length", d_model // heads)
    d_value = metadata.get("llama.attention.value_length", d_head)
    if d_value != d_head:
        raise ValueError(f"the file's heads have keys of {counted(d_head, 'number')} and values of "
                         f"{d_value}; this reader takes heads whose keys and values are "
                         "equally wide")
    return LlamaConfig(
        layers=metadata["llama.block_count"], d_model=d_model, heads=heads,
        kv_heads=metadata["llama.attention.head_count_kv"], d_head=d_head,
        d_ffn=metadata["llama.feed_forward_length"],
        vocabulary=len(metadata["tokenizer.ggml.tokens"]),
        rope_base=float(metadata["llama.rope.freq_base"]),
        eps=float(metadata["llama.attention.layer_norm_rms_epsilon"]),
        context=int(metadata["llama.context_length"]))


def read_weights(file: GGUFFile, config: LlamaConfig) -> dict:
    """The weights the forward multiplies, C-contiguous in the orientation used, float32
    but for W_qkv, float64 (the attention's precision; its values are the float32 ones):
    "embedding" (vocabulary, D) one row per token, "output" (vocabulary, D) the same array
    (SmolLM2 ties them; a file with its own output.weight would give that), "output_norm"
    (D,), and "layers", one dict each: attn_norm and ffn_norm (D,), W_qkv (D, (H + 2G)·d) as
    W_Q's columns then W_K's then W_V's, W_o (H·d, D), W_gate_up (D, 2F), W_down (F, D)."""
    embedding = file.array("token_embd.weight")  # (vocabulary, D)
    names = set(file.names())
    output = file.array("output.weight") if "output.weight" in names else embedding
    return {"embedding": embedding, "output": output,
            "output_norm": file.array("output_norm.weight"),
            "layers": [read_layer(file, f"blk.{i}.") for i in range(config.layers)]}


def read_layer(file: GGUFFile, prefix: str) -> dict:
    """One layer's weights (see read_weights), its projections fused side by side."""
    def fused(*names, dtype=np.float32):
        parts = [file.array(prefix + name + ".weight") for name in names]  # (out, in) each
        # Written straight into one C-contiguous (in, Σ out): each value is copied once.
        out = np.empty((parts[0].shape[1], sum(p.shape[0] for p in parts)), dtype=dtype)
        np.concatenate([p.T for p in parts], axis=1, out=out)
        return out
    return {"attn_norm": file.array(prefix + "attn_norm.weight"),
            "W_qkv": fused("attn_q", "attn_k", "attn_v", dtype=np.float64),
            "W_o": file.projection(prefix + "attn_output.weight"),
            "ffn_norm": file.array(prefix + "ffn_norm.weight"),
            "W_gate_up": fused("ffn_gate", "ffn_up"),
            "W_down": file.projection(prefix + "ffn_down.weight")}


def rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """(n, D) rows scaled to unit root mean square, then times the (D,) gain."""
    mean_square = np.mean(x * x, axis=-1, keepdims=True)  # (n, 1)
    return x / np.sqrt(mean_square + np.float32(eps)) * gain


def rope_tables(n: int, d_head: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin, (n, d_head/2) float64 each, of the angles position p turns pair c by."""
    angles = rope_angles(np.arange(n), d_head, base)  # (n, d_head/2)
    return np.cos(angles), np.sin(angles)


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotary positions on (heads, n, d) with interleaved pairs, as positions.rotate:
    (x[2c], x[2c+1]) becomes (x[2c]·cos − x[2c+1]·sin, x[2c]·sin + x[2c+1]·cos).

    GGUF's Q and K rows were reordered by llama.cpp's converter for exactly this pairing, so
    the stored weights are used as they are."""
    even, odd = x[..., 0::2], x[..., 1::2]  # (heads, n, d/2) each: the pairs' two numbers
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def causal_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, future: np.ndarray):
    """Every query head's causal attention, keys and values shared by groups of heads.

    q (H, n, d), k and v (G, n, d) with G dividing H: query head h reads key/value head
    h // (H // G). ``future`` (n, n) bool is True where key j comes after query i (made once
    per forward: causal_mask). Returns weights (H, n, n) (``weights[h, i, j]``: how much
    query i reads key j; rows sum to 1, 0 above the diagonal) and outputs (H, n, d) =
    weights · V.
    """
    H, n, d = q.shape  # (query heads, tokens, d_head)
    G = k.shape[0]  # key/value heads
    grouped = q.reshape(G, H // G, n, d)  # heads h = g·(H/G) + i share key/value head g
    scores = grouped @ k[:, np.newaxis].transpose(0, 1, 3, 2)  # (G, H/G, n, n)
    scores = scores.reshape(H, n, n) * (1.0 / np.sqrt(d))
    scores[:, future] = -np.inf
    # The row maximum (the diagonal is always allowed) keeps exp() from overflowing.
    exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = exp / exp.sum(axis=-1, keepdims=True)  # (H, n, n)
    outputs = weights.reshape(G, H // G, n, n) @ v[:, np.newaxis]  # (G, H/G, n, d)
    return weights, outputs.reshape(H, n, d)


def causal_mask(n: int) -> np.ndarray:
    """(n, n) bool, True above the diagonal: the keys j > i that query i may not read."""
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def silu(x: np.ndarray) -> np.ndarray:
    """x·sigmoid(x), with sigmoid(x) = (1 + tanh(x/2)) / 2: the same function, and unlike
    1 / (1 + e^−x) it never overflows for very negative x."""
    return x * (np.float32(0.5) + np.float32(0.5) * np.tanh(np.float32(0.5) * x))


def mlp(x: np.ndarray, W_gate_up: np.ndarray, W_down: np.ndarray) -> np.ndarray:
    """SwiGLU: (silu(x·W_gate) ⊙ x·W_up)·W_down, for x (n, D), W_gate_up (D, 2F) holding
    W_gate's F columns then W_up's, W_down (F, D)."""
    gate_up = matmul(x, W_gate_up)  # (n, 2F)
    F = W_down.shape[0]
    return matmul(silu(gate_up[:, :F]) * gate_up[:, F:], W_down)


def block(h: np.ndarray, layer: dict, config: LlamaConfig, cos, sin, future):
    """One decoder layer on the float32 residual stream h (n, D). Returns the new h and what
    its attention used and made, float32: X (n, D) the normed input, weights (H, n, n),
    outputs (H, n, d) (computed in float64: see the module's docstring)."""
    H, G, d = config.heads, config.kv_heads, config.d_head
    n = h.shape[0]
    X = rms_norm(h, layer["attn_norm"], config.eps)  # (n, D)
    qkv = matmul(X.astype(np.float64), layer["W_qkv"])  # (n, (H + 2G)·d): queries, keys, values
    heads = qkv.reshape(n, H + 2 * G, d).transpose(1, 0, 2)  # (H + 2G, n, d)
    turned = rope(heads[:H + G], cos, sin)  # the queries and keys, turned in one call
    weights, outputs = causal_attention(turned[:H], turned[H:], heads[H + G:], future)
    weights, outputs = weights.astype(np.float32), outputs.astype(np.float32)
    h = h + matmul(outputs.transpose(1, 0, 2).reshape(n, -1), layer["W_o"])  # heads side by side
    h = h + mlp(rms_norm(h, layer["ffn_norm"], config.eps), layer["W_gate_up"], layer["W_down"])
    return h, X, weights, outputs


def forward(weights: dict, config: LlamaConfig, ids: list[int]) -> Forward:
    """The decoder on token ids: every layer's X, attention weights and head outputs, the
    final normed hidden states, and the next token's probabilities (float64) from the last
    position's logits hidden[-1] · output^T, where output is the file's own output.weight
    or, when the file has none (SmolLM2 ties them), the token embedding (read_weights)."""
    h = weights["embedding"][np.asarray(ids)]  # (n, D): one row per token
    cos, sin = rope_tables(len(ids), config.d_head, config.rope_base)
    future = causal_mask(len(ids))
    kept = []  # each layer's (X, weights, outputs)
    for layer in weights["layers"]:
        h, *used = block(h, layer, config, cos, sin, future)
        kept.append(used)
    hidden = rms_norm(h, weights["output_norm"], config.eps)  # (n, D)
    logits = matmul(hidden[-1:], weights["output"].T)[0].astype(np.float64)  # (vocabulary,)
    exp = np.exp(logits - logits.max())
    X, attention_weights, outputs = (np.stack(parts) for parts in zip(*kept, strict=True))
    return Forward(ids=list(ids), X=X, weights=attention_weights, outputs=outputs,
                   hidden=hidden, next_probabilities=exp / exp.sum())
