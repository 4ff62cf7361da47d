"""The HTML pages: the interactive explorer and the API's description."""

from __future__ import annotations

import json
from pathlib import Path

from flask import Blueprint, current_app, render_template

from attention_core import __version__, default_request, presets

from .assets import modules
from .compression import gzip_page
from .request import parse_request
from .response import compute, response_body

bp = Blueprint("pages", __name__)
bp.after_request(gzip_page)


def initial_answer() -> dict:
    """The answer to the page's first view: the default example with its last row selected.

    Sent with the page, so the first paint has every number.
    """
    default = default_request()
    request = parse_request({**default, "row": len(default["X"]) - 1})
    return response_body(request, compute(request))


@bp.record_once
def _prepare(state) -> None:
    """Compute the first view's answer and list the modules once, at registration."""
    state.app.extensions["pages"] = {
        "initial": initial_answer(), "modules": modules(Path(state.app.static_folder))}


@bp.get("/")
def index():
    """The interactive page, with the default view's answer already in it."""
    prepared = current_app.extensions["pages"]
    return render_template("index.html", version=__version__, presets=presets(),
                           initial=prepared["initial"], modules=prepared["modules"])


@bp.get("/api/docs")
def api_docs():
    """A human-readable description of the API."""
    example = json.dumps({**default_request(), "scale": None, "mask": None, "row": 2})
    config = current_app.config
    return render_template("api_docs.html", version=__version__, example=example,
                           max_body=config["MAX_CONTENT_LENGTH"],
                           max_tokens=config["MAX_TOKENS"], max_dim=config["MAX_DIM"])
