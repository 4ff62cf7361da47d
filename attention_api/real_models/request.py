"""The request format of POST /api/model/attention, validated against the model it names.

``{"model", "text", "layer", "head", "row"?, "causal"?, "fields"?, "encoding"?}``: one
head of a real model on a person's own text. The model's sizes (layers, heads, the
longest text) come from the loaded model itself, so every range in a message is its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attention_core.errors import AttentionInputError, counted
from attention_models import registry
from attention_models.base import Model, Tokenized

from ..attention.request import CORNERED, WORKING_PARTS, _encoding, _fields
from ..values import check_keys, describe, printable, quoted

FIELDS = ("model", "text", "layer", "head", "row", "causal", "fields", "encoding")
# A text is tokenized before its length in tokens is known: this many characters at most
# (every token of either model is one character or more), so a 4 MB body of text costs
# nothing to refuse.
MAX_TEXT_CHARS = 4096
# What an answer may hold, in its order: the model's additions around one head's answer
# of POST /api/attention (response.head_body), for the optional "fields" selection.
ANSWER_FIELDS = ("model", "text", "tokens", "token_ids", "words", "layer", "head", "kv_head",
                 "causal", "model_causal", "counterfactual", "positional", "rope_base", "X",
                 "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "d_k", "scale", "Q", "K", "V",
                 "Q_unrotated", "K_unrotated", "scores", "scaled_scores", "mask", "weights",
                 "output", "warnings", "working", "weights_u8", "strongest_keys",
                 "next_tokens", "overview")
# What the "Real model" view asks (static/js/model/request.js, sent in the page's config
# block): per (model, text), a decoder's next tokens, per head and mask. Of a row's working
# it asks the parts the page's working draws (answer_fields.WORKING) of the variants a real
# model's head has: biases (MiniLM) and RoPE (SmolLM2), never ALiBi, a window or sinks.
PAGE_ASKS = {"run": ("tokens", "words", "overview"), "decoder": ("next_tokens",),
             "head": ("kv_head", "causal", "model_causal", "counterfactual", "positional",
                      "rope_base", "d_k", "scale", "K", "V", "mask", "weights",
                      "strongest_keys")}
MODEL_VARIANTS = frozenset({"b_Q", "b_K", "b_V", "rope"})
MODEL_CORNERED = ("X", "W_Q", "W_K", "W_V", *(c for c in CORNERED if c in ANSWER_FIELDS))
_KNOWN = frozenset((*ANSWER_FIELDS, *WORKING_PARTS))


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


def parse_model_request(payload) -> ModelRequest:
    """Validate a decoded request, tokenizing its text with the model it names.

    Raises AttentionInputError naming the first offending field.
    """
    if not isinstance(payload, dict):
        raise AttentionInputError(
            f"The request must be a JSON object with model, text, layer and head, got "
            f"{describe(payload)}")
    check_keys(payload, FIELDS)
    for name in ("model", "text", "layer", "head"):
        if name not in payload:
            raise AttentionInputError(f'The request needs the field "{name}"', name)
    model = _model(payload["model"])
    info = model.info
    text = _text(payload["text"])
    layer = _index(payload["layer"], "layer", info.layers, f"{info.id} has "
                   f"{counted(info.layers, 'layer')}")
    head = _index(payload["head"], "head", info.heads, f"each layer of {info.id} has "
                  f"{counted(info.heads, 'query head')}")
    tokenized = model.tokenize(text)
    n = len(tokenized.ids)
    if n > info.max_tokens:
        raise AttentionInputError(
            f"text makes {n} tokens for {info.id}, more than the {info.max_tokens} it takes "
            "here; shorten it", "text")
    if not any(word["tokens"] for word in tokenized.words):
        raise AttentionInputError(
            f"text {quoted(text)} has no word for {info.id} to read: send some words", "text")
    causal = payload.get("causal")
    if causal is None:
        causal = info.causal
    elif not isinstance(causal, bool):
        raise AttentionInputError(f"causal must be true or false, got {describe(causal)}",
                                  "causal")
    row = payload.get("row")
    if row is not None:
        row = _index(row, "row", n, f"the text makes {counted(n, 'token')}")
    fields, corners = _fields(payload.get("fields"), 0, _KNOWN, ANSWER_FIELDS, MODEL_CORNERED)
    return ModelRequest(model=model, text=text, tokenized=tokenized, layer=layer, head=head,
                        causal=causal, row=row, fields=fields,
                        encoding=_encoding(payload.get("encoding")), corners=corners)


def _model(value) -> Model:
    if value not in registry.MODEL_IDS:  # a list or object is never one of the ids
        raise AttentionInputError(
            f"model must be one of {', '.join(registry.MODEL_IDS)} (GET /api/models "
            f"describes them), got {describe(value)}", "model")
    return registry.get(value)


def _text(value) -> str:
    if not isinstance(value, str):
        raise AttentionInputError(f"text must be a string, got {describe(value)}", "text")
    if printable(value) != value:
        raise AttentionInputError(
            f"text {quoted(value)} holds half of a UTF-16 surrogate pair, which is no "
            "character: send the whole character", "text")
    if not value.strip():
        raise AttentionInputError(
            f"text is {'empty' if not value else 'only spaces'}: type a sentence", "text")
    if len(value) > MAX_TEXT_CHARS:
        raise AttentionInputError(
            f"text is {len(value):,} characters long, more than the {MAX_TEXT_CHARS:,} taken "
            "here", "text")
    return value


def _index(value, name: str, count: int, why: str) -> int:
    """A whole number from 0 to count − 1."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise AttentionInputError(
            f"{name} must be a whole number from 0 to {count - 1} (0-based: {why}), got "
            f"{describe(value)}", name)
    return value
