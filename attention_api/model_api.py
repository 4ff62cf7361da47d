"""The JSON API of the real models: GET /api/models and POST /api/model/attention."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from attention_models import registry
from attention_models.base import ModelUnavailable

from .api import json_payload
from .errors import error
from .model_request import parse_model_request
from .model_response import describe_model, model_body
from .model_runs import Runs

bp = Blueprint("models", __name__)


@bp.record_once
def _keep_runs(state) -> None:
    state.app.extensions["model_runs"] = Runs(state.app.config["RUNS_MB"] * 2**20)


@bp.errorhandler(ModelUnavailable)
def unavailable(exc: ModelUnavailable):
    """503: a model's package, reader or file is missing here, and the command to install it."""
    return error(503, f"The real models cannot be read on this server: {exc}. "
                      f"{registry.remedy()}")


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
