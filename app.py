"""Attention Explorer's HTTP layer: the application factory, JSON API, errors and headers.

All maths lives in attention_core; this module only turns HTTP into calls and back.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from flask import Flask, jsonify, render_template, request, send_from_directory, url_for
from flask.json.provider import JSONProvider
from werkzeug.exceptions import ClientDisconnected, HTTPException, UnsupportedMediaType

import orjson

import attention_core as core
from attention_core import lab as scaling_lab

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")


class NumpyJSONProvider(JSONProvider):
    """orjson: numpy arrays straight to JSON, ~30× faster than json on large matrices.

    Strict by construction: a non-finite float (a masked −∞ score) is written as
    null, never as a NaN or Infinity token.
    """

    OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS

    def dumps(self, obj, **kwargs) -> str:
        return orjson.dumps(obj, option=self.OPTIONS).decode()

    def loads(self, s, **kwargs):
        return orjson.loads(s)

    def response(self, *args, **kwargs):
        obj = self._prepare_response_obj(args, kwargs)
        return self._app.response_class(orjson.dumps(obj, option=self.OPTIONS),
                                        mimetype="application/json")


ONE_YEAR = 365 * 24 * 3600  # seconds


def _contents_hash(folder: Path) -> str:
    """12 hex digits of a hash of every file's path and bytes under ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else int(raw)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; ``test_config`` overrides the settings read from the environment."""
    app = Flask(__name__)
    app.json = NumpyJSONProvider(app)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=_env_int("ATTENTION_MAX_BODY_BYTES", 4 * 1024 * 1024),
        MAX_TOKENS=_env_int("ATTENTION_MAX_TOKENS", 512),
        MAX_DIM=_env_int("ATTENTION_MAX_DIM", 256),
    )
    if test_config:
        app.config.from_mapping(test_config)

    # The page opens on the default example with its last row selected. Its answer is
    # computed once here and sent with the page, so the first paint has every number.
    default = core.default_request()
    initial_req = core.parse_request({**default, "row": len(default["X"]) - 1})
    initial_answer = core.response_body(initial_req, core.compute(initial_req))

    # Every module main.js may import, preloaded by the page: fetched at once, not as a
    # waterfall of imports. Read from the folder, so a new module cannot be forgotten.
    static = Path(app.static_folder)
    modules = sorted(p.relative_to(static).as_posix() for p in (static / "js").glob("*.js")
                     if p.name != "main.js") + ["vendor/katex/katex.mjs"]

    # The page's own files are linked as /assets/<version>/…, the version a hash of their
    # contents: a browser keeps them for a year without asking again (otherwise each of
    # ~25 modules is revalidated on every visit), and a new release has new URLs. Module
    # imports are relative, so a page's whole module graph shares its version.
    assets_version = _contents_hash(static)

    @app.get("/assets/<version>/<path:filename>")
    def asset(version: str, filename: str):
        """A static file; cached for a year when its version is the current one."""
        current = version == assets_version  # an old page's link still gets today's file
        return send_from_directory(static, filename, max_age=ONE_YEAR if current else 0)

    app.jinja_env.globals["asset"] = lambda filename: url_for(
        "asset", version=assets_version, filename=filename)

    def limits() -> core.Limits:
        return core.Limits(max_tokens=app.config["MAX_TOKENS"], max_dim=app.config["MAX_DIM"])

    def error(status: int, message: str, field: str | None = None):
        return jsonify({"error": {"message": message, "field": field}}), status

    @app.get("/")
    def index():
        """The interactive page, with the default view's answer already in it."""
        return render_template("index.html", version=core.__version__, presets=core.presets(),
                               initial=initial_answer, modules=modules)

    @app.get("/api/docs")
    def api_docs():
        """A human-readable description of the API."""
        example = json.dumps({**core.default_request(), "scale": None, "mask": None, "row": 2})
        return render_template("api_docs.html", version=core.__version__, example=example,
                               max_body=app.config["MAX_CONTENT_LENGTH"],
                               max_tokens=app.config["MAX_TOKENS"],
                               max_dim=app.config["MAX_DIM"])

    spec = core.openapi_document(limits(), app.config["MAX_CONTENT_LENGTH"], core.__version__)

    @app.get("/api/openapi.json")
    def api_openapi():
        """The OpenAPI 3.1 document of this API, with this app's limits in it."""
        return jsonify(spec)

    @app.get("/health")
    def health():
        """Liveness: answers without computing anything."""
        return jsonify({"status": "ok", "version": core.__version__})

    @app.get("/api/presets")
    def api_presets():
        """The named example configurations, default first, in the request format."""
        return jsonify({"presets": core.presets()})

    def lab_answer(answer):
        """A scaling-lab answer from the query string, or 422 naming the bad parameter."""
        try:
            return jsonify(answer(request.args.items(multi=True)))
        except core.AttentionInputError as exc:
            return error(422, exc.message, exc.field)

    @app.get("/api/scaling")
    def api_scaling():
        """Winner probability of two keys √d_k apart, unscaled and scaled, d_k = 1, 2, 4 …"""
        return lab_answer(scaling_lab.scaling_curve)

    @app.get("/api/scaling/sample")
    def api_scaling_sample():
        """Measured variance of random q·k and q·k/√d_k for one d_k, samples and seed."""
        return lab_answer(scaling_lab.scaling_sample)

    @app.post("/api/attention")
    def api_attention():
        """Compute attention for one request and return every intermediate."""
        if not request.is_json:
            raise UnsupportedMediaType(
                f"Send the request as application/json, not "
                f"{request.mimetype or 'a body without a Content-Type'}.")
        try:
            payload = core.parse_json(request.get_data(cache=False))
        except core.JSONSyntaxError as exc:
            return error(400, str(exc))
        try:
            req = core.parse_request(payload, limits())
            computed = core.compute(req)
        except core.AttentionInputError as exc:
            return error(422, exc.message, exc.field)
        return jsonify(core.response_body(req, computed))

    @app.errorhandler(ClientDisconnected)
    def body_not_received(exc: ClientDisconnected):
        # The client went away, or (under gunicorn, see gunicorn.conf.py) went silent for
        # ATTENTION_CLIENT_TIMEOUT seconds mid-body: werkzeug's own answer is a bare 400.
        return error(408, "The request body stopped arriving before it was complete; "
                          "nothing was computed. Send it again.")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {
            404: f"There is nothing at {request.path}.",
            405: f"{request.path} does not accept {request.method}.",
            413: (f"The request body is larger than the limit of "
                  f"{app.config['MAX_CONTENT_LENGTH']} bytes."),
        }
        message = messages.get(exc.code) or exc.description or exc.name
        response = error(exc.code or 500, message)[0]
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response, exc.code

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        app.logger.exception("unhandled error")
        return error(500, "Something went wrong on the server; the request was not computed.")

    @app.after_request
    def security_headers(response):
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    return app


if __name__ == "__main__":
    create_app().run(host=os.environ.get("HOST", "127.0.0.1"),
                     port=_env_int("PORT", 5000),
                     debug=os.environ.get("ATTENTION_DEBUG") == "1")
