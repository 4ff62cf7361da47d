"""The attention request's routes: POST /api/attention, the presets, the scaling lab."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from attention_core import presets

from ..web.body import json_payload
from . import lab
from .admission import busy, keep_slots
from .answer_size import check_answer_size
from .request import Limits, parse_request
from .response import compute, response_body

bp = Blueprint("attention", __name__)
bp.record_once(keep_slots)


def limits(config=None) -> Limits:
    """This app's limits on a request, from its config (the current app's by default)."""
    config = current_app.config if config is None else config
    return Limits(max_tokens=config["MAX_TOKENS"], max_dim=config["MAX_DIM"],
                  max_model_dim=config["MAX_MODEL_DIM"], max_heads=config["MAX_HEADS"],
                  max_answer_cells=config["MAX_ANSWER_CELLS"])


@bp.post("/api/attention")
def attention():
    """Compute attention for one request and return every intermediate."""
    # A body that is not JSON is a 400, one that is not a computation a 422 (errors.py).
    allowed = limits()
    req = parse_request(json_payload(), allowed)
    cells = check_answer_size(req, allowed.max_answer_cells)  # before computing a thing
    release = current_app.extensions["admission"]["LARGE_REQUESTS"].admit(req, cells)
    if release is None:
        return busy("LARGE_REQUESTS")
    try:
        # Only the selected arrays outlive this line: what fields leaves out is freed before
        # the answer is written (16 heads at 512 tokens compute ~220 MB, whatever is sent).
        response = jsonify(response_body(req, compute(req)))
    except BaseException:
        release()
        raise
    response.call_on_close(release)  # the turn is given back once the answer is written
    return response


@bp.get("/api/presets")
def api_presets():
    """The named example configurations, default first, in the request format."""
    return jsonify({"presets": presets()})


def lab_answer(answer):
    """A scaling-lab answer from the query string (422 naming a bad parameter)."""
    return jsonify(answer(request.args.items(multi=True)))


@bp.get("/api/scaling")
def scaling():
    """Winner probability of two keys √d_k apart, unscaled and scaled, d_k = 1, 2, 4 …"""
    return lab_answer(lab.scaling_curve)


@bp.get("/api/scaling/sample")
def scaling_sample():
    """Measured variance of random q·k and q·k/√d_k for one d_k, samples and seed."""
    return lab_answer(lab.scaling_sample)
