"""The JSON API: attention, the presets, the scaling lab, exercises, the tiles of
FlashAttention, the OpenAPI document, health."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge, UnsupportedMediaType

from attention_core import __version__, presets

from . import lab
from .admission import admitted, busy, slots_of
from .answer_size import check_answer_size
from .cost import Measuring, cost_body
from .errors import retry_later
from .exercise import check_body, exercise_body
from .kv_cache import kv_cache_body
from .openapi import openapi_document
from .request import Limits, parse_request
from .response import compute, response_body
from .slide import slide
from .tiles import tiles_body
from .values import parse_json
from .worksheet import worksheet

bp = Blueprint("api", __name__)


def limits(config=None) -> Limits:
    """This app's limits on a request, from its config (the current app's by default)."""
    config = current_app.config if config is None else config
    return Limits(max_tokens=config["MAX_TOKENS"], max_dim=config["MAX_DIM"],
                  max_model_dim=config["MAX_MODEL_DIM"], max_heads=config["MAX_HEADS"],
                  max_answer_cells=config["MAX_ANSWER_CELLS"])


@bp.record_once
def _describe(state) -> None:
    """Build the OpenAPI document and the turns of the heavy requests once, from the limits
    the app was configured with."""
    config = state.app.config
    state.app.extensions["admission"] = slots_of(config)
    state.app.extensions["openapi"] = openapi_document(
        limits(config), config["MAX_CONTENT_LENGTH"], __version__)


def request_body() -> bytes:
    """The whole body, or 413 if it is over MAX_CONTENT_LENGTH however it is framed.

    werkzeug refuses a Content-Length over the limit, but reads a body without one
    (chunked) only up to the limit and returns that much as if it were all of it.
    """
    if request.content_length is not None or not request.environ.get("wsgi.input_terminated"):
        return request.get_data(cache=False)
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    stream, parts, size = request.environ["wsgi.input"], [], 0
    while size <= limit and (part := stream.read(limit + 1 - size)):
        parts.append(part)
        size += len(part)
    if size > limit:
        raise RequestEntityTooLarge()
    return b"".join(parts)


def json_payload():
    """The request's JSON body, decoded (values.parse_json); 415 for another type, 413 for
    one over the limit, 400 for one that is not JSON (as JSONSyntaxError)."""
    if not request.is_json:
        raise UnsupportedMediaType(
            f"Send the request as application/json, not "
            f"{request.mimetype or 'a body without a Content-Type'}.")
    return parse_json(request_body())


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


@bp.post("/api/cost")
@admitted("TILES_AND_COSTS")
def api_cost():
    """The view's costs by formula; with "measure": true, the engine timed at n = 64 … 512."""
    try:
        return jsonify(cost_body(json_payload(), limits()))
    except Measuring:
        return retry_later("This server is measuring for another request, one measurement at a "
                           "time (each takes up to 2 s); nothing was measured. Send it again in "
                           "a moment.", 2)


@bp.post("/api/kv-cache")
def api_kv_cache():
    """A causal view generated token by token with a key/value cache: a step per token."""
    return jsonify(kv_cache_body(json_payload()))


@bp.post("/api/exercise")
def api_exercise():
    """An exercise from a seed and a level: its inputs, row and blanks, not their numbers."""
    return jsonify(exercise_body(json_payload()))


@bp.post("/api/exercise/check")
def api_exercise_check():
    """A student's numbers for an exercise checked, with a hint for each wrong one."""
    return jsonify(check_body(json_payload()))


@bp.post("/api/worksheet")
@admitted("TYPESETS")
def api_worksheet():
    """Worksheets or their answer key, a page per seed, as PDF (or the typst source)."""
    sheet = worksheet(json_payload())
    return Response(sheet.data, mimetype=sheet.media_type, headers={
        "Content-Disposition": f'attachment; filename="{sheet.filename}"'})


@bp.post("/api/slide")
@admitted("TYPESETS")
def api_slide():
    """A head's heatmap or a row's working as a 1920 × 1080 PNG slide, or SVG."""
    sheet = slide(json_payload())
    return Response(sheet.data, mimetype=sheet.media_type, headers={
        "Content-Disposition": f'attachment; filename="{sheet.filename}"'})


@bp.post("/api/tiles")
@admitted("TILES_AND_COSTS")
def api_tiles():
    """One query row through FlashAttention's tiles: its running m, ℓ and O, block by block."""
    return jsonify(tiles_body(json_payload(), limits()))


@bp.get("/api/openapi.json")
def openapi():
    """The OpenAPI 3.1 document of this API, with this app's limits and URL prefix in it."""
    # The paths are relative to the server's URL, which includes a prefix the app is mounted under.
    servers = [{"url": request.script_root or "/"}]
    return jsonify({**current_app.extensions["openapi"], "servers": servers})


@bp.get("/health")
def health():
    """Liveness: answers without computing anything."""
    return jsonify({"status": "ok", "version": __version__})
