"""The JSON API of the real models: GET /api/models and POST /api/model/attention."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from attention_core import AttentionInputError
from attention_models import registry
from attention_models.base import ModelUnavailable

from .api import json_payload
from .errors import error
from .model_request import parse_model_request
from .model_response import describe_model, model_body
from .model_runs import Runs
from .values import JSONSyntaxError

bp = Blueprint("models", __name__)


@bp.record_once
def _keep_runs(state) -> None:
    state.app.extensions["model_runs"] = Runs()


def unavailable(exc: ModelUnavailable):
    """503: a model's package, reader or file is missing here, and the command to install it."""
    return error(503, f"The real models cannot be read on this server: {exc}. "
                      f"{registry.remedy()}")


@bp.get("/api/models")
def models():
    """Every model: its id, architecture, the longest text it takes, licence and source."""
    try:
        return jsonify({"models": [describe_model(m.info) for m in registry.load_all()]})
    except ModelUnavailable as exc:
        return unavailable(exc)


@bp.post("/api/model/attention")
def model_attention():
    """One head of a real model on a text: its inputs, every intermediate and the overview."""
    try:
        payload = json_payload()
    except JSONSyntaxError as exc:
        return error(400, str(exc))
    try:
        req = parse_model_request(payload)
        kept = current_app.extensions["model_runs"].get(req.model, req.text, req.tokenized)
        return jsonify(model_body(req, kept))
    except AttentionInputError as exc:
        return error(422, exc.message, exc.field)
    except ModelUnavailable as exc:
        return unavailable(exc)
