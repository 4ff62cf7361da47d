"""The HTML pages (the explorer, the real-model view, the practice page, the API's
description), the OpenAPI document and /health."""

from __future__ import annotations

import json
import math
from pathlib import Path

from flask import Blueprint, current_app, jsonify, render_template, request, url_for

from attention_core import __version__, default_request, presets
from attention_core.classroom.exercises import LEVELS, SEEDS, VIEW_LEVELS
from attention_core.errors import AttentionInputError
from attention_core.prose import NUMBER_FORMAT
from attention_models import registry
from attention_models.base import ModelUnavailable

from ..attention import answer_fields
from ..attention.lab import CURVE_PARAMS, MAX_DRAWS, SAMPLE_PARAMS
from ..attention.request import SETTINGS, parse_request
from ..attention.response import compute, response_body
from ..attention.routes import limits
from ..classroom.declaration import ExerciseRequest
from ..classroom.exercise import body_of, exercise_of
from ..classroom.practise import DEFAULT, parse_seed, practise_view
from ..classroom.worksheet import MAX_SHEETS
from ..real_models.answer import describe_model
from ..real_models.request import MODEL_VARIANTS, PAGE_ASKS
from ..values import JSONSyntaxError, parse_json
from ..web.compression import gzip_page
from .assets import asset_url, modules
from .fields import request_fields
from .openapi import openapi_document

bp = Blueprint("pages", __name__)
bp.after_request(gzip_page)


def answer_asks() -> dict:
    """What the editor and the "Real model" view ask of their answers' fields, from the
    table of the answer's fields (answer_fields) and the model view's own (PAGE_ASKS)."""
    model_working = [f.name for f in answer_fields.WORKING
                     if f.page == "ask" and set(f.when) <= MODEL_VARIANTS]
    return {**answer_fields.page_config(),
            "model": {**{k: list(v) for k, v in PAGE_ASKS.items()}, "working": model_working}}


def page_config() -> dict:
    """The server's limits, the API's URLs and the answer's fields each page asks for, for
    the page (static/js/lib/config.js reads them).

    Each value comes from its one Python source (the app's config, Limits, the
    lab's constants, the table of the answer's fields, the number format) and each URL
    from url_for, so it carries the app's prefix. The templates render it as one JSON block
    and take their own min and max from it.
    """
    allowed = limits()
    return {
        "limits": {"tokens": allowed.max_tokens, "dim": allowed.max_dim,
                   "model_dim": allowed.max_model_dim,
                   "label": allowed.max_label, "heads": allowed.max_heads,
                   "body_bytes": current_app.config["MAX_CONTENT_LENGTH"],
                   "answer_cells": allowed.max_answer_cells,
                   "position": allowed.max_position, "worksheets": MAX_SHEETS},
        # GET scaling answers d_k = 1, 2, 4 … up to its default d_k_max when not asked.
        "lab": {"max_draws": MAX_DRAWS, "curve_d_k_max": CURVE_PARAMS["d_k_max"].default},
        "urls": {"attention": url_for("attention.attention"),
                 "presets": url_for("attention.api_presets"),
                 "scaling": url_for("attention.scaling"),
                 "scaling_sample": url_for("attention.scaling_sample"),
                 "openapi": url_for("pages.openapi"), "health": url_for("pages.health"),
                 "docs": url_for("pages.api_docs"), "index": url_for("pages.index"),
                 "model": url_for("pages.model"), "practise": url_for("pages.practise"),
                 "exercise_check": url_for("classroom.api_exercise_check"),
                 "tiles": url_for("running.api_tiles"),
                 "worksheet": url_for("classroom.api_worksheet"),
                 "slide": url_for("classroom.api_slide"),
                 "kv_cache": url_for("running.api_kv_cache"), "cost": url_for("running.api_cost"),
                 "model_attention": url_for("models.model_attention"),
                 "model_slide": url_for("models.model_slide"),
                 "model_kv_cache": url_for("models.model_kv_cache"),
                 "model_tiles": url_for("models.model_tiles"),
                 "models": url_for("models.models"),
                 "katex": asset_url("vendor/katex/katex.min.js")},
        "answer": answer_asks(),
        # How every number prints (lib/format.js): the rule of the hints and worksheets too.
        "number": NUMBER_FORMAT,
        # The request's fields "Export configuration" saves, in the API's order.
        "settings": {"fields": list(SETTINGS)},
        # The levels an example of one's own is worked at, for the editor's worksheet.
        "exercise": {"view_levels": {k: LEVELS[k] for k in VIEW_LEVELS}},
    }


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
    """Compute the first view's answer, list the modules and describe the API once, at
    registration, from the limits the app was configured with."""
    state.app.extensions["pages"] = {
        "initial": initial_answer(), "first": first_controls(),
        "modules": modules(Path(state.app.static_folder))}
    config = state.app.config
    state.app.extensions["openapi"] = openapi_document(
        limits(config), config["MAX_CONTENT_LENGTH"], __version__)


# strict_slashes=False: under a prefix, "/explorer" is the page too, rather than a 308 to
# http://<Host>/explorer/ (see app.py: no route redirects).
@bp.get("/", strict_slashes=False)
def index():
    """The interactive page, with the default view's answer already in it."""
    prepared = current_app.extensions["pages"]
    return render_template("index.html", version=__version__, presets=presets(),
                           initial=prepared["initial"], first=prepared["first"],
                           modules=[asset_url(m) for m in prepared["modules"]],
                           page_config=page_config())


@bp.get("/model")
def model():
    """The "Real model" view: one head of a pretrained model on the person's own text."""
    # The models' descriptions (GET /api/models's) come with the page, so the picker, the
    # footer's licences and the grid's size are in the first paint; the numbers are fetched.
    try:
        models = [describe_model(m.info) for m in registry.load_all()]
    except ModelUnavailable as exc:  # the page says what is missing and what to run (503)
        return render_template("model.html", version=__version__, models=[],
                               missing=str(exc), install=registry.install_command(),
                               page_config=page_config()), 503
    return render_template("model.html", version=__version__, models=models, missing=None,
                           page_config=page_config())


@bp.get("/practise")
def practise():
    """Practise by hand: an exercise (?seed=17&level=weights), its blanks filled and checked."""
    # A seed or level that is not one is said on the page (422), with the controls to
    # choose another.
    # ?level=weights&seed=17, or an example of one's own: ?level=dots&request={…} (JSON,
    # its row in it), which a seed typed beside it replaces.
    seed = request.args.get("seed", "")
    own = request.args.get("request") if not seed else None
    seed = seed or ("" if own else str(DEFAULT["seed"]))
    level = request.args.get("level", DEFAULT["level"])
    try:
        asked = {"level": level, **({"request": parse_json(own.encode())} if own else
                                     {"seed": parse_seed(seed)})}
        body = body_of(ExerciseRequest, asked, limits())  # as POST /api/exercise's
        view, problem, status = practise_view(exercise_of(body)), None, 200
    except AttentionInputError as exc:
        view, problem, status = None, str(exc).rstrip("."), 422
    except JSONSyntaxError as exc:  # the link's own example, cut or mistyped
        view, problem, status = None, f"This link's example cannot be read: {exc}".rstrip("."), 422
    return render_template("practise.html", version=__version__, view=view, problem=problem,
                           levels={k: LEVELS[k] for k in (VIEW_LEVELS if own else LEVELS)},
                           seeds=SEEDS, asked={"seed": seed, "level": level, "request": own},
                           max_sheets=MAX_SHEETS,
                           page_config=page_config()), status


@bp.get("/api/docs")
def api_docs():
    """A human-readable description of the API."""
    example = json.dumps({**default_request(), "scale": None, "mask": None, "row": 2})
    defaults = {name: p.default for name, p in {**CURVE_PARAMS, **SAMPLE_PARAMS}.items()}
    return render_template("api_docs.html", version=__version__, example=example,
                           plain_answer=answer_fields.names(answer_fields.PLAIN),
                           page_config=page_config(), lab_defaults=defaults,
                           exercise_levels=list(LEVELS), exercise_seeds=SEEDS,
                           # each body's fields, from the declarations through the document
                           requests=request_fields(current_app.extensions["openapi"]))


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
