"""The answer of POST /api/model/attention and the models' descriptions of GET /api/models.

One head of a real model is answered as ``POST /api/attention`` answers one head
(response.head_body), computed by the engine from that head's own inputs, with what the
model adds: its tokens and words, the inputs themselves (X, W_Q, W_K, W_V and biases),
a decoder's next tokens, and the overview of every layer × head.
"""

from __future__ import annotations

from dataclasses import asdict

from attention_core import working
from attention_models.base import ModelInfo
from attention_models.heads import attend, head_inputs

from ..attention.response import encode_arrays, head_body, select
from .request import ModelRequest
from .run import Run


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
