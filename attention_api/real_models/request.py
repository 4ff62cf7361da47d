"""The request format of POST /api/model/attention, validated against the model it names.

``{"model", "text", "layer", "head", "row"?, "causal"?, "fields"?, "encoding"?}``: one
head of a real model on a person's own text. The model's sizes (layers, heads, the
longest text) come from the loaded model itself, so every range in a message is its own.

Its declaration (declaration.py), and those of the slide, the tiles and the key/value cache
built from it, check every field before the text is tokenized; here, once it is, only what
needs its tokens: the text's length in tokens, a word in it, and a row below its tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attention_core.errors import AttentionInputError, counted
from attention_models.base import Model, Tokenized

from ..declared import validate
from ..values import quoted
from .declaration import (  # noqa: F401 (the request's names, where they always were)
    ANSWER_FIELDS,
    FIELDS,
    MAX_TEXT_CHARS,
    MODEL_CORNERED,
    index,
    model_request,
)

# What the "Real model" view asks (static/js/model/request.js, sent in the page's config
# block): per (model, text), a decoder's next tokens, per head and mask. Of a row's working
# it asks the parts the page's working draws (answer_fields.WORKING) of the variants a real
# model's head has: biases (MiniLM) and RoPE (SmolLM2), never ALiBi, a window or sinks.
PAGE_ASKS = {"run": ("tokens", "words", "overview"), "decoder": ("next_tokens",),
             "head": ("kv_head", "causal", "model_causal", "counterfactual", "positional",
                      "rope_base", "d_k", "scale", "K", "V", "mask", "weights",
                      "strongest_keys")}
MODEL_VARIANTS = frozenset({"b_Q", "b_K", "b_V", "rope"})


@dataclass(frozen=True)
class ModelRequest:
    """A validated request: the loaded model, its tokens for the text, and the head asked."""

    model: Model
    text: str
    tokenized: Tokenized
    layer: int  # 0-based
    head: int  # 0-based query head
    causal: bool  # the mask this answer uses: the model's own unless asked otherwise
    row: int | None
    fields: frozenset[str] | None
    encoding: str = "json"
    corners: dict = field(default_factory=dict)

    @property
    def counterfactual(self) -> bool:
        return self.causal != self.model.info.causal


def parse_model_request(payload, kind: str = "Attention") -> ModelRequest:
    """Validate a decoded request by its declaration (declaration.py; ``kind`` is the
    route's), tokenizing its text with the model it names.

    Raises AttentionInputError naming the first offending field.
    """
    return parse_model_body(payload, kind)[1]


def parse_model_body(payload, kind: str):
    """A route's body validated by its declaration (``kind``'s: what and format of a
    slide, block_q and block_k of the tiles), and the request it holds, its text tokenized.

    Raises AttentionInputError naming the first offending field: one the declaration
    refuses, else the text or the row, which need the text's tokens.
    """
    r = validate(model_request(kind), payload)  # every field, before the text is tokenized
    model, text = r.model, r.text
    info = model.info
    tokenized = model.tokenize(text)
    n = len(tokenized.ids)
    if n > info.max_tokens:
        raise AttentionInputError(
            f"text makes {n} tokens for {info.id}, more than the {info.max_tokens} it takes "
            "here; shorten it", "text")
    if not any(word["tokens"] for word in tokenized.words):
        raise AttentionInputError(
            f"text {quoted(text)} has no word for {info.id} to read: send some words", "text")
    row = r.row
    if row is not None:
        row = index(row, "row", n, f"the text makes {counted(n, 'token')}")
    # An absent field keeps its default, None; a slide's and the tiles' have no fields or
    # encoding.
    fields, corners = getattr(r, "fields", None) or (None, {})
    return r, ModelRequest(model=model, text=text, tokenized=tokenized, layer=r.layer,
                           head=r.head, causal=info.causal if r.causal is None else r.causal,
                           row=row, fields=fields, encoding=getattr(r, "encoding", None) or
                           "json", corners=corners)
