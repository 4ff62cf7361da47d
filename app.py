"""Attention Explorer's application factory: config, then the assets, pages, API and errors.

All maths lives in attention_core; the request format and the app's parts (Flask
blueprints) live in attention_api. Run: ``python app.py`` (Flask's server, HOST and PORT)
or, in production, python -m attention_server.serve (nginx in front of gunicorn).
"""

from __future__ import annotations

import logging
import os

from flask import Flask

import settings
from attention_api.attention import routes as attention
from attention_api.classroom import routes as classroom
from attention_api.pages import assets
from attention_api.pages import routes as pages
from attention_api.real_models import routes as real_models
from attention_api.running import routes as running
from attention_api.web import errors
from attention_api.web.headers import security_headers
from attention_api.web.provider import NumpyJSONProvider
from attention_models import registry


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; ``test_config`` overrides the settings read from the environment."""
    # No static folder given to Flask: its /static/ route would serve the page's files a
    # second time, unversioned; assets.py serves them, from the folder set just after.
    app = Flask(__name__, static_folder=None, template_folder=str(settings.FILES / "templates"))
    app.static_folder = str(settings.FILES / "static")
    # No route redirects, so no answer carries a Location built from the Host header,
    # which the client chooses: "/api//presets" is a 404 rather than a 308 to
    # http://<Host>/api/presets (the root's rule, in pages/routes.py, takes "" as well as "/").
    app.url_map.merge_slashes = False
    app.json = NumpyJSONProvider(app)
    # The limits, the bounds on heavy requests and the real models' runs, each from its
    # ATTENTION_ variable or its default (settings.py, which says why each is what it is).
    app.config.from_mapping(settings.app_config())
    if test_config:
        app.config.from_mapping(test_config)

    for part in (assets, pages, attention, classroom, running, real_models, errors):
        app.register_blueprint(part.bp)
    app.after_request(security_headers)
    return app


def run(app: Flask) -> None:
    """Serve ``app`` with Flask's own server on HOST:PORT (default 127.0.0.1:5000), after
    loading the real models and saying which are loaded (or what to run to install them)."""
    debug = settings.DEBUG.read() == "1"
    if not debug or os.environ.get("WERKZEUG_RUN_MAIN") == "true":  # the reloader's child
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        registry.log_loading(logging.getLogger("attention_explorer"))
    app.run(host=settings.DEVELOPMENT_HOST.read(), port=settings.DEVELOPMENT_PORT.read(),
            debug=debug)


if __name__ == "__main__":
    run(create_app())
