"""The HTML pages: the interactive explorer and the API's description."""

from __future__ import annotations

import json
import math
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


def first_controls() -> dict:
    """The controls' values in the page's first view (the default example, seed 1), written
    into the HTML so the first paint shows them before any script has run."""
    default = default_request()
    d_k = len(default["W_Q"][0])
    return {"seed": 1, "n": len(default["X"]), "d_model": len(default["X"][0]), "d_k": d_k,
            "d_v": len(default["W_V"][0]), "heads": 1, "scale": f"{1 / math.sqrt(d_k):.3f}"}


@bp.record_once
def _prepare(state) -> None:
    """Compute the first view's answer and list the modules once, at registration."""
    state.app.extensions["pages"] = {
        "initial": initial_answer(), "first": first_controls(),
        "modules": modules(Path(state.app.static_folder))}


@bp.get("/")
def index():
    """The interactive page, with the default view's answer already in it."""
    prepared = current_app.extensions["pages"]
    return render_template("index.html", version=__version__, presets=presets(),
                           initial=prepared["initial"], first=prepared["first"],
                           modules=prepared["modules"])


@bp.get("/api/docs")
def api_docs():
    """A human-readable description of the API."""
    example = json.dumps({**default_request(), "scale": None, "mask": None, "row": 2})
    config = current_app.config
    return render_template("api_docs.html", version=__version__, example=example,
                           max_body=config["MAX_CONTENT_LENGTH"],
                           max_tokens=config["MAX_TOKENS"], max_dim=config["MAX_DIM"])
