"""The JSON API of the real models: GET /api/models and POST /api/model/attention, /slide,
/kv-cache and /tiles. Each body is checked by its declaration (declaration.py) and what
needs the text's tokens by request.py; a route checks nothing of its own but a slide's
heatmap size, in tokens."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify

from attention_core import working
from attention_core.errors import counted
from attention_core.tiles import row_tiles
from attention_models import registry
from attention_models.base import ModelUnavailable
from attention_models.heads import attend, head_inputs

from ..attention.admission import admitted, keep_slots
from ..classroom.slide import check_size, typeset_slide
from ..running.tiles import answer
from ..web.body import json_payload
from ..web.errors import error, retry_later
from .answer import describe_model, model_body
from .kv_cache import model_kv_cache_body
from .request import parse_model_body, parse_model_request
from .runs import Busy, Runs, Turns

bp = Blueprint("models", __name__)
bp.record_once(keep_slots)


@bp.record_once
def _keep_runs(state) -> None:
    config = state.app.config
    folder = config.get("RUNS_DIR")
    state.app.extensions["model_runs"] = Runs(
        config["RUNS_MB"] * 2**20, Turns(config["FORWARDS"], config["FORWARDS_WAITING"]),
        Path(folder) if folder else None)


@bp.errorhandler(ModelUnavailable)
def unavailable(exc: ModelUnavailable):
    """503: a model's package, reader or file is missing here, and the command to install it."""
    return error(503, f"The real models cannot be read on this server: {exc}. "
                      f"{registry.remedy()}")


@bp.errorhandler(Busy)
def busy(exc: Busy):
    """503: this process runs the model on as many texts as it may, and as many wait."""
    return retry_later(f"This server is running the model on {counted(exc.computing, 'text')} "
                       f"with {exc.waiting} more waiting, as many as it takes at once; nothing "
                       "was computed. Send it again in a moment (the page does so on its own).",
                       1)


@bp.get("/api/models")
def models():
    """Every model: its id, architecture, the longest text it takes, licence and source."""
    return jsonify({"models": [describe_model(m.info) for m in registry.load_all()]})


@bp.post("/api/model/attention")
def model_attention():
    """One head of a real model on a text: its inputs, every intermediate and the overview."""
    # A body that is not JSON is a 400, one that is not a request a 422 (errors.py), and
    # models that cannot be read here a 503 (above).
    req = parse_model_request(json_payload())
    kept = current_app.extensions["model_runs"].get(req.model, req.text, req.tokenized)
    return jsonify(model_body(req, kept))


@bp.post("/api/model/slide")
@admitted("TYPESETS")
def model_slide():
    """A real model's head as a slide: its heatmap, or a row's working, as PNG or SVG."""
    body, req = parse_model_body(json_payload(), "Slide")
    what, tokens, info = body.what, req.tokenized.tokens, req.model.info
    check_size(what, len(tokens), len(tokens), req.row)  # a heatmap's size, in tokens
    kept = current_app.extensions["model_runs"].get(req.model, req.text, req.tokenized)
    result = attend(head_inputs(req.model, kept, req.layer, req.head), req.causal)
    row = None if req.row is None else working(result, req.row)
    about = (f"{info.name}, layer {req.layer + 1} head {req.head + 1} · "
             f"{counted(len(tokens), 'token')}"
             + (" · causal mask" if req.causal else ""))
    name = (f"slide-{what}-{info.id}-layer{req.layer + 1}-head{req.head + 1}"
            + ("" if req.row is None else f"-row{req.row + 1}"))
    sheet = typeset_slide(what, body.format, result, row, tokens, tokens, about, name)
    return Response(sheet.data, mimetype=sheet.media_type, headers={
        "Content-Disposition": f'attachment; filename="{sheet.filename}"'})


@bp.post("/api/model/kv-cache")
def model_kv_cache():
    """The real decoder's head generating the text token by token with a key/value cache."""
    req = parse_model_request(json_payload(), "KVCache")  # an encoder is refused
    kept = current_app.extensions["model_runs"].get(req.model, req.text, req.tokenized)
    return jsonify(model_kv_cache_body(req, head_inputs(req.model, kept, req.layer, req.head)))


@bp.post("/api/model/tiles")
@admitted("TILES_AND_COSTS")
def model_tiles():
    """A row of the real model's head through FlashAttention's tiles."""
    body, req = parse_model_body(json_payload(), "Tiles")
    kept = current_app.extensions["model_runs"].get(req.model, req.text, req.tokenized)
    inputs = head_inputs(req.model, kept, req.layer, req.head)
    traced = row_tiles(inputs["X"], inputs["W_Q"], inputs["W_K"], inputs["W_V"],
                       b_Q=inputs["b_Q"], b_K=inputs["b_K"], b_V=inputs["b_V"],
                       rope_base=inputs["rope_base"], causal=req.causal, row=req.row,
                       block_q=body.block_q, block_k=body.block_k)
    return jsonify({"model": req.model.info.id, "tokens": req.tokenized.tokens,
                    "layer": req.layer, "head": req.head, "row": req.row, **answer(traced)})
