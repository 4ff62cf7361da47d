"""The OpenAPI description of the real models' routes (openapi.py joins it to the rest).

The requests' schemas come from their declarations (declaration.py): one form per model,
with its own range of layer and head. The answers' come from answer.py's declarations, their
bounds from the registry and attention_models.base.
"""

from __future__ import annotations

from ..declared import answer_components, ref, schema_of
from ..web.errors import REFUSED
from .answer import Model, ModelKVCache, Models, model_answers, model_tiles_answer
from .declaration import model_schemas as model_request_schemas


def _ref(name: str) -> dict:
    return schema_of(ref(name))


def model_schemas() -> dict:
    """The requests' schemas from their declarations (declaration.py), and the answers':
    Models, Model, ModelAttentionAnswer, ModelWorking, ModelKVCache and ModelTilesAnswer
    (answer.py), a head's parts at MODEL_LIMITS."""
    answer, model_working = model_answers()
    return {**model_request_schemas(),
            **answer_components(Models, Model, answer, model_working, ModelKVCache,
                                model_tiles_answer())}


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
        "headers": {"Retry-After": {"required": False, "schema": schema_of(int),
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
             "content": {"image/png": {"schema": schema_of(bytes)},
                         "image/svg+xml": {"schema": schema_of(str)},
                         "text/plain": {"schema": schema_of(str)}}},
            REFUSED, missing_models=missing_or_busy,
            requestBody={"required": True, "content": {"application/json": {
                "schema": _ref("ModelSlideRequest"),
                "examples": {"a head of SmolLM2": {"value": {
                    **{k: example[k] for k in ("model", "text", "layer", "head", "row")},
                    "what": "heatmap", "format": "png"}}}}}})},
    }
    return paths
