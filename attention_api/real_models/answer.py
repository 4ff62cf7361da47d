"""The answer of POST /api/model/attention and the models' descriptions of GET /api/models.

One head of a real model is answered as ``POST /api/attention`` answers one head
(response.head_body), computed by the engine from that head's own inputs, with what the
model adds: its tokens and words, the inputs themselves (X, W_Q, W_K, W_V and biases),
a decoder's next tokens, and the overview of every layer × head.

Below the builders, their answers declared as pydantic models for the API document
(openapi.py): Models, Model, ModelAttentionAnswer and ModelWorking at the bounds of
MODEL_LIMITS, ModelKVCache (kv_cache.py builds it) and ModelTilesAnswer.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from attention_core import working
from attention_models.base import MAX_TOKENS, ModelInfo
from attention_models.heads import attend, head_inputs
from attention_models.registry import MODEL_IDS

from ..attention.answer import encoded, head_fields, working_model
from ..attention.limits import Limits
from ..attention.response import encode_arrays, head_body, select
from ..declared import UNSENT, Answer, said
from ..running.answer import tiles_answer
from .request import ModelRequest
from .run import Run

# The bounds of a model's answer, whatever the app's own limits on /api/attention: its
# text's tokens, and a row of X as wide as the widest model here (SmolLM2's 576).
MODEL_LIMITS = Limits(max_tokens=MAX_TOKENS, max_dim=1024)


def describe_model(info: ModelInfo) -> dict:
    """A model as GET /api/models lists it."""
    body = {"id": info.id, "name": info.name, "kind": info.kind, "layers": info.layers,
            "heads": info.heads, "kv_heads": info.kv_heads, "d_model": info.d_model,
            "d_head": info.d_head, "positional": info.positional,
            "max_tokens": info.max_tokens, "causal": info.causal, "licence": info.licence,
            "source": asdict(info.source)}
    if info.rope_base is not None:
        body["rope_base"] = info.rope_base
    return body


def model_body(request: ModelRequest, kept: Run) -> dict:
    """The answer for one head of the request's model on its text, arrays unconverted."""
    model, info, tokens = request.model, request.model.info, request.tokenized
    inputs = head_inputs(model, kept, request.layer, request.head)
    result = attend(inputs, request.causal)
    row = None if request.row is None else working(result, request.row)
    body = {"model": info.id, "text": request.text, "tokens": tokens.tokens,
            "token_ids": tokens.ids, "words": tokens.words, "layer": request.layer,
            "head": request.head, "model_causal": info.causal,
            "counterfactual": request.counterfactual, "positional": info.positional}
    if inputs["rope_base"] is not None:
        body["rope_base"] = inputs["rope_base"]
    body.update({name: inputs[name] for name in ("X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")
                 if inputs[name] is not None})
    body.update(causal=request.causal)
    body.update(head_body(result, row, tokens.tokens, inputs["kv_head"]))
    if kept.next_tokens is not None:
        body["next_tokens"] = kept.next_tokens
    body["overview"] = {"weights_u8": kept.overview_u8,
                        "first_token_share": kept.first_token_share}
    if request.fields is not None:
        body = select(body, request.fields, request.corners)
    return encode_arrays(body) if request.encoding == "base64" else body


# The answers, declared for the API document.
Whole = Annotated[int, Field(ge=0)]
ModelId = Literal[tuple(MODEL_IDS)]
Positional = Literal["rope", "learned"]


def said_as(kind: Any, description: str) -> Any:
    return Annotated[kind, Field(description=description)]


class Source(Answer):
    package: str
    version: str
    format: str
    file: str
    url: str


class Model(Answer):  # GET /api/models lists them
    id: ModelId
    name: str
    kind: Literal["decoder", "encoder"]
    layers: Whole
    heads: Whole
    kv_heads: said_as(Whole, "query head h reads key/value head h // (heads / kv_heads)")
    d_model: Whole
    d_head: Whole
    positional: said_as(Positional, "rope: q and k turned by RoPE; learned: added to X before "
                                    "layer 0")
    rope_base: said_as(float, "θ; only with rope") = UNSENT
    max_tokens: said_as(Whole, "the longest text, in its tokens")
    causal: said_as(bool, "the model's own mask")
    licence: str
    source: Source


class Models(Answer):
    models: list[Model]


class Word(Answer):
    text: str
    start: Whole
    end: Whole
    tokens: list[Whole]


class NextToken(Answer):
    id: Whole
    text: said_as(str, 'the text appended (" Paris"); a control token as written, part of a '
                       "character's bytes as <0xE2>")
    probability: Annotated[float, Field(ge=0, le=1)]
    kind: said_as(Literal["text", "control", "bytes"], "text; control: a mark of the model's "
                  "own (<|im_end|>), which no typed text makes; bytes: part of a character")
    name: said_as(str, 'only with kind control: what it marks, in words ("end of turn")') = \
        UNSENT
    appendable: said_as(bool, "the text with text appended is read as the text's own tokens "
                              "followed by this one token (and is taken: at most max_tokens); "
                              "false for a control token, part of a character, or a token "
                              'that would join the text\'s last ("␣Par" + "is" → "␣Paris")')
    reason: said_as(str, "only when appendable is false: why, in words") = UNSENT


class Overview(Answer):
    weights_u8: encoded(said_as(list[Any], "(layers, heads, n, n): round(255 · weight) of "
                                           "every head"))
    first_token_share: encoded(said_as(list[Any], "(layers, heads): each head's mean weight "
                                                  "on the first token over its queries"))


@cache
def model_answers() -> tuple[type[Answer], type[Answer]]:
    """ModelAttentionAnswer and ModelWorking: one head as POST /api/attention answers one
    head (a head's fields at MODEL_LIMITS), with the model's tokens and inputs."""
    model_working = working_model(MODEL_LIMITS, "ModelWorking")
    head = {k: v for k, v in head_fields(MODEL_LIMITS, model_working).items()
            if k not in ("bias", "alibi_slope")}
    matrix, vector = encoded(list[list[float]]), encoded(list[float])
    n = MAX_TOKENS
    own = {
        "model": ModelId, "text": str,
        "tokens": said_as(Annotated[list[str], Field(max_length=n)],
                          "the model's tokens, spaces made visible (␣, ↵, ⇥)"),
        "token_ids": Annotated[list[Whole], Field(max_length=n)],
        "words": list[Word], "layer": Whole, "head": Whole,
        "kv_head": said_as(Whole, "the key/value head this query head reads"),
        "causal": said_as(bool, "the mask used in this answer"),
        "model_causal": said_as(bool, "the model's own mask"),
        "counterfactual": said_as(bool, "causal differs from the model's own: the same X "
                                        "under the other mask"),
        "positional": Positional, "rope_base": float,
        "X": matrix, "W_Q": matrix, "W_K": matrix, "W_V": matrix,
        "b_Q": vector, "b_K": vector, "b_V": vector,
        "next_tokens": said_as(Annotated[list[NextToken], Field(max_length=10)],
                               "a decoder's 10 most likely next tokens, most likely first"),
        "overview": Overview,
    }
    answer = create_model(
        "ModelAttentionAnswer",
        __config__=said("One head as POST /api/attention answers one head, with the model's "
                        "tokens and inputs; every part unless fields leaves it out."),
        **{**head, **{name: (kind, UNSENT) for name, kind in own.items()}})
    return answer, model_working


# ModelKVCache: the head's steps and the whole model's cache.
class Size(Answer):
    tokens: Whole = UNSENT
    numbers: Whole = UNSENT
    bytes: Whole = UNSENT
    without_sharing_bytes: Whole = UNSENT


class StepCost(BaseModel):
    dot_products: Whole = UNSENT
    without_cache: Whole = UNSENT


class Step(Answer):
    t: Whole
    token: str
    weights: list[float]
    z: list[float]
    cost: StepCost
    cache: Size


class ModelCache(BaseModel):
    model_config = ConfigDict(json_schema_extra={"description": (
        "the whole model's cache: 2 · layers · kv_heads · d_head numbers a token, at 2 bytes "
        "(16-bit, as servers keep it), at the text's length and at the model's context")})

    per_token: Whole = UNSENT
    without_sharing_per_token: Whole = UNSENT
    bytes_per_number: Whole = UNSENT
    context: Whole = UNSENT
    at_text: Size = UNSENT
    at_context: Size = UNSENT


class ModelKVCache(Answer):
    model: ModelId
    text: str
    tokens: list[str]
    layer: Whole
    head: Whole
    kv_head: Whole
    steps: said_as(list[Step], "token t's row of weights and z, its cost, and this head's "
                               "cache (float64, 8 bytes a number)")
    model_cache: ModelCache


@cache
def model_tiles_answer() -> type[Answer]:
    """POST /api/model/tiles' answer: POST /api/tiles' at MODEL_LIMITS, with the model, its
    tokens, the layer, the head and the row."""
    return create_model("ModelTilesAnswer", __base__=tiles_answer(MODEL_LIMITS),
                        model=(ModelId, ...), tokens=(list[str], ...), layer=(Whole, ...),
                        head=(Whole, ...), row=(Whole, ...))
