"""The OpenAPI description of the real models' routes (openapi.py joins it to the rest).

The requests' schemas come from their declarations (declaration.py): one form per model,
with its own range of layer and head. The answers' are written here, their bounds from the
registry and attention_models.base.
"""

from __future__ import annotations

from attention_models.base import MAX_TOKENS
from attention_models.registry import MODEL_IDS

from ..attention.request import Limits
from ..web.errors import REFUSED
from .declaration import model_schemas as model_request_schemas

# The bounds of a model's answer, whatever the app's own limits on /api/attention: its
# text's tokens, and a row of X as wide as the widest model here (SmolLM2's 576).
MODEL_LIMITS = Limits(max_tokens=MAX_TOKENS, max_dim=1024)

INTEGER = {"type": "integer", "minimum": 0}
TEXT = {"type": "string"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def model_schemas(answers: dict, array) -> dict:
    """Models, ModelAttentionRequest, ModelAttentionAnswer and ModelWorking. ``answers``
    are openapi.answer_schemas for MODEL_LIMITS: a model's answer shares the parts of their
    HeadAnswer and its working is their Working. ``array(schema)`` makes an answer's array
    (nested lists or EncodedArray)."""
    head_answer = answers["HeadAnswer"]
    n = MAX_TOKENS
    source = {"type": "object", "additionalProperties": False,
              "required": ["package", "version", "format", "file", "url"],
              "properties": {"package": TEXT, "version": TEXT, "format": TEXT, "file": TEXT,
                             "url": TEXT}}
    model = {
        "type": "object", "additionalProperties": False,
        "required": ["id", "name", "kind", "layers", "heads", "kv_heads", "d_model", "d_head",
                     "positional", "max_tokens", "causal", "licence", "source"],
        "properties": {
            "id": {"enum": list(MODEL_IDS)}, "name": TEXT,
            "kind": {"enum": ["decoder", "encoder"]},
            "layers": INTEGER, "heads": INTEGER,
            "kv_heads": {**INTEGER, "description": "query head h reads key/value head "
                                                   "h // (heads / kv_heads)"},
            "d_model": INTEGER, "d_head": INTEGER,
            "positional": {"enum": ["rope", "learned"], "description":
                           "rope: q and k turned by RoPE; learned: added to X before layer 0"},
            "rope_base": {"type": "number", "description": "θ; only with rope"},
            "max_tokens": {**INTEGER, "description": "the longest text, in its tokens"},
            "causal": {"type": "boolean", "description": "the model's own mask"},
            "licence": TEXT, "source": source,
        },
    }
    matrix = array({"type": "array", "items": {"type": "array", "items": {"type": "number"}}})
    vector = array({"type": "array", "items": {"type": "number"}})
    word = {"type": "object", "additionalProperties": False,
            "required": ["text", "start", "end", "tokens"],
            "properties": {"text": TEXT, "start": INTEGER, "end": INTEGER,
                           "tokens": {"type": "array", "items": INTEGER}}}
    next_token = {
        "type": "object", "additionalProperties": False,
        "required": ["id", "text", "probability", "kind", "appendable"],
        "properties": {
            "id": INTEGER,
            "text": {**TEXT, "description": "the text appended (\" Paris\"); a control "
                                            "token as written, part of a character's bytes as "
                                            "<0xE2>"},
            "probability": {"type": "number", "minimum": 0, "maximum": 1},
            "kind": {"enum": ["text", "control", "bytes"], "description":
                     "text; control: a mark of the model's own (<|im_end|>), which no typed "
                     "text makes; bytes: part of a character"},
            "name": {**TEXT, "description": "only with kind control: what it marks, in words "
                                            "(\"end of turn\")"},
            "appendable": {"type": "boolean", "description":
                           "the text with text appended is read as the text's own tokens "
                           "followed by this one token (and is taken: at most max_tokens); "
                           "false for a control token, part of a character, or a token that "
                           "would join the text's last (\"␣Par\" + \"is\" → \"␣Paris\")"},
            "reason": {**TEXT, "description": "only when appendable is false: why, in words"},
        }}
    overview = {
        "type": "object", "additionalProperties": False,
        "required": ["weights_u8", "first_token_share"],
        "properties": {
            "weights_u8": array({"type": "array", "description":
                                 "(layers, heads, n, n): round(255 · weight) of every head"}),
            "first_token_share": array({"type": "array", "description":
                                        "(layers, heads): each head's mean weight on the "
                                        "first token over its queries"}),
        }}
    answer = {
        "type": "object", "additionalProperties": False,
        "description": "One head as POST /api/attention answers one head, with the model's "
                       "tokens and inputs; every part unless fields leaves it out.",
        "properties": {
            **{k: v for k, v in head_answer["properties"].items()
               if k not in ("bias", "alibi_slope")},
            "working": _ref("ModelWorking"),
            "model": {"enum": list(MODEL_IDS)}, "text": TEXT,
            "tokens": {"type": "array", "maxItems": n, "items": TEXT,
                       "description": "the model's tokens, spaces made visible (␣, ↵, ⇥)"},
            "token_ids": {"type": "array", "maxItems": n, "items": INTEGER},
            "words": {"type": "array", "items": word},
            "layer": INTEGER, "head": INTEGER,
            "kv_head": {**INTEGER, "description": "the key/value head this query head reads"},
            "causal": {"type": "boolean", "description": "the mask used in this answer"},
            "model_causal": {"type": "boolean", "description": "the model's own mask"},
            "counterfactual": {"type": "boolean", "description": "causal differs from the "
                               "model's own: the same X under the other mask"},
            "positional": {"enum": ["rope", "learned"]},
            "rope_base": {"type": "number"},
            "X": matrix, "W_Q": matrix, "W_K": matrix, "W_V": matrix,
            "b_Q": vector, "b_K": vector, "b_V": vector,
            "next_tokens": {"type": "array", "maxItems": 10, "items": next_token,
                            "description": "a decoder's 10 most likely next tokens, most "
                                           "likely first"},
            "overview": overview,
        },
    }
    return {"Models": {"type": "object", "required": ["models"], "additionalProperties": False,
                       "properties": {"models": {"type": "array", "items": _ref("Model")}}},
            "Model": model, **model_request_schemas(), "ModelAttentionAnswer": answer,
            "ModelWorking": answers["Working"], "ModelKVCache": kv_cache_answer()}


def model_tiles_answer(tiles_answer: dict) -> dict:
    """POST /api/model/tiles' answer: POST /api/tiles' (``tiles_answer``), with the model,
    its tokens, the layer, the head and the row."""
    extra = {"model": {"enum": list(MODEL_IDS)}, "tokens": {"type": "array", "items": TEXT},
             "layer": INTEGER, "head": INTEGER, "row": INTEGER}
    return {**tiles_answer, "required": [*tiles_answer["required"], *extra],
            "properties": {**tiles_answer["properties"], **extra}}


def kv_cache_answer() -> dict:
    """POST /api/model/kv-cache's answer: the head's steps and the whole model's cache."""
    whole = {"type": "integer", "minimum": 0}
    size = {"type": "object", "additionalProperties": False, "properties": {
        "tokens": whole, "numbers": whole, "bytes": whole, "without_sharing_bytes": whole}}
    numbers = {"type": "array", "items": {"type": "number"}}
    step = {"type": "object", "additionalProperties": False,
            "required": ["t", "token", "weights", "z", "cost", "cache"],
            "properties": {"t": whole, "token": TEXT, "weights": numbers, "z": numbers,
                           "cost": {"type": "object", "properties": {
                               "dot_products": whole, "without_cache": whole}},
                           "cache": size}}
    return {"type": "object", "additionalProperties": False,
            "required": ["model", "text", "tokens", "layer", "head", "kv_head", "steps",
                         "model_cache"],
            "properties": {
                "model": {"enum": list(MODEL_IDS)}, "text": TEXT,
                "tokens": {"type": "array", "items": TEXT}, "layer": INTEGER,
                "head": INTEGER, "kv_head": INTEGER,
                "steps": {"type": "array", "items": step,
                          "description": "token t's row of weights and z, its cost, and "
                                         "this head's cache (float64, 8 bytes a number)"},
                "model_cache": {
                    "type": "object", "description": "the whole model's cache: 2 · layers "
                    "· kv_heads · d_head numbers a token, at 2 bytes (16-bit, as servers "
                    "keep it), at the text's length and at the model's context",
                    "properties": {"per_token": whole, "without_sharing_per_token": whole,
                                   "bytes_per_number": whole, "context": whole,
                                   "at_text": size, "at_context": size}}}}


def model_paths(op, json) -> dict:
    """The five routes, with openapi.py's ``op`` and ``json`` helpers. Their 503 is their
    own: a model's package missing here, which no retry mends (no Retry-After); or, for
    the four POSTs, a server busy (with Retry-After)."""
    example = {"model": "smollm2-135m", "text": "The capital of France is", "layer": 3,
               "head": 5, "row": 4, "fields": ["tokens", "weights", "working", "next_tokens"]}
    missing = json(_ref("Error"), "A model's package, a reader it needs or its file is "
                   "missing on this server: the message names it and the command that "
                   "installs it.")
    missing_or_busy = {
        **json(_ref("Error"), f"{missing['description'][:-1]}, without Retry-After: no retry "
               "mends it. Or the server is running the model on as many texts as it may, or "
               "serving as many requests of this kind (slides, tiles) as it may: nothing was "
               "computed; send it again after Retry-After seconds."),
        "headers": {"Retry-After": {"required": False, "schema": {"type": "integer"},
                                    "description": "Seconds to wait, when the server is "
                                                   "busy."}}}
    paths = {
        "/api/models": {"get": op(
            "models", "The real pretrained models: architecture, limits, licence, source.",
            json(_ref("Models"), "Every model, in order."), missing_models=missing)},
        "/api/model/attention": {"post": op(
            "modelAttention", "One head of a real model on a text, with its working.",
            json(_ref("ModelAttentionAnswer"), "That head's inputs and every intermediate, "
                 "the overview of every layer × head, and a decoder's next tokens."),
            REFUSED, missing_models=missing_or_busy,
            requestBody={"required": True, "content": {"application/json": {
                "schema": _ref("ModelAttentionRequest"),
                "examples": {"a head of SmolLM2": {"value": example}}}}})},
        "/api/model/kv-cache": {"post": op(
            "modelKVCache", "The real decoder's head generating the text with a key/value "
                            "cache, and the whole model's cache.",
            json(_ref("ModelKVCache"), "A step per token, as POST /api/kv-cache's without "
                 "their working, and the cache of every layer."),
            REFUSED, missing_models=missing_or_busy,
            requestBody={"required": True, "content": {"application/json": {
                "schema": _ref("ModelKVCacheRequest"),
                "examples": {"a head of SmolLM2": {"value": {
                    k: example[k] for k in ("model", "text", "layer", "head")}}}}}})},
        "/api/model/tiles": {"post": op(
            "modelTiles", "A row of the real model's head through FlashAttention's tiles.",
            json(_ref("ModelTilesAnswer"), "The row's tiles, its final z and log-sum-exp, "
                                           "and the scores held."),
            REFUSED, missing_models=missing_or_busy,
            requestBody={"required": True, "content": {"application/json": {
                "schema": _ref("ModelTilesRequest"),
                "examples": {"a head of SmolLM2": {"value": {
                    **{k: example[k] for k in ("model", "text", "layer", "head", "row")},
                    "block_q": 2, "block_k": 2}}}}}})},
        "/api/model/slide": {"post": op(
            "modelSlide", "One head of a real model as a slide: its heatmap or a row's working.",
            {"description": "A 1920 × 1080 PNG, an SVG or the typst source, as POST /api/slide "
                            "makes them; a vector longer than 8 (q, z) is shortened, with its "
                            "length.",
             "content": {"image/png": {"schema": {"type": "string", "format": "binary"}},
                         "image/svg+xml": {"schema": {"type": "string"}},
                         "text/plain": {"schema": {"type": "string"}}}},
            REFUSED, missing_models=missing_or_busy,
            requestBody={"required": True, "content": {"application/json": {
                "schema": _ref("ModelSlideRequest"),
                "examples": {"a head of SmolLM2": {"value": {
                    **{k: example[k] for k in ("model", "text", "layer", "head", "row")},
                    "what": "heatmap", "format": "png"}}}}}})},
    }
    return paths
