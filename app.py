"""Attention Explorer's application factory: config, then the assets, pages, API and errors.

All maths lives in attention_core; the request format and the app's parts (Flask
blueprints) live in attention_api. Run: ``python app.py`` (Flask's server, HOST and PORT)
or, in production, python -m attention_server.serve (nginx in front of gunicorn).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from flask import Flask

from attention_api.attention import routes as attention
from attention_api.attention.admission import BOUNDS
from attention_api.attention.request import Limits
from attention_api.classroom import routes as classroom
from attention_api.pages import assets
from attention_api.pages import routes as pages
from attention_api.real_models import routes as real_models
from attention_api.real_models.runs import FORWARDS, FORWARDS_WAITING, RUNS_MB
from attention_api.running import routes as running
from attention_api.web import errors
from attention_api.web.headers import security_headers
from attention_api.web.provider import NumpyJSONProvider
from attention_models import registry

# A checkout (or the image) has templates/ and static/ beside this file; `pip install .`
# puts them in <prefix>/share/attention-explorer (see pyproject.toml's data-files).
HERE = Path(__file__).resolve().parent
ROOT = HERE if (HERE / "templates").is_dir() else Path(sys.prefix) / "share/attention-explorer"


# The largest request body (ATTENTION_MAX_BODY_BYTES). A real model's head opened in the
# page ("Open in the editor": a 128-token SmolLM2 head) is X 128 × 576 and W_Q, W_K, W_V
# 576 × 64: 184,320 numbers, each sent exactly as float64's shortest form. Measured as the
# page sends it (float32 values widened to float64): 20.4 bytes a number, 3.77 MB, too close
# to 4 MiB; at worst 25 bytes ("-1.2345678901234567e-123,") it is 4.61 MB, and with 128
# labels of 64 four-byte characters (33 kB) and a 128 × 128 mask (98 kB) 4.74 MB: 5 MiB.
# Parsing holds ~14 times the body for a few milliseconds (orjson: 52 MB for 3.8 MB, 31 ms).
MAX_BODY_BYTES = 5 * 1024 * 1024


def _env_int(name: str, default: int) -> int:
    """The environment variable ``name`` as a whole number, or ``default`` when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None


def max_body_bytes() -> int:
    """The body limit the app answers 413 past, and nginx's client_max_body_size too
    (attention_server/serve.py): one source for both."""
    return _env_int("ATTENTION_MAX_BODY_BYTES", MAX_BODY_BYTES)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; ``test_config`` overrides the settings read from the environment."""
    # No static folder given to Flask: its /static/ route would serve the page's files a
    # second time, unversioned; assets.py serves them, from the folder set just after.
    app = Flask(__name__, static_folder=None, template_folder=str(ROOT / "templates"))
    app.static_folder = str(ROOT / "static")
    # No route redirects, so no answer carries a Location built from the Host header,
    # which the client chooses: "/api//presets" is a 404 rather than a 308 to
    # http://<Host>/api/presets (the root's rule, in pages/routes.py, takes "" as well as "/").
    app.url_map.merge_slashes = False
    app.json = NumpyJSONProvider(app)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=max_body_bytes(),
        MAX_TOKENS=_env_int("ATTENTION_MAX_TOKENS", Limits.max_tokens),
        MAX_DIM=_env_int("ATTENTION_MAX_DIM", Limits.max_dim),
        MAX_MODEL_DIM=_env_int("ATTENTION_MAX_MODEL_DIM", Limits.max_model_dim),
        MAX_HEADS=_env_int("ATTENTION_MAX_HEADS", Limits.max_heads),
        MAX_ANSWER_CELLS=_env_int("ATTENTION_MAX_ANSWER_CELLS", Limits.max_answer_cells),
        # Requests of each heavy kind served at once per process, the rest answered 503
        # (admission.py: LARGE_REQUESTS, TYPESETS, TILES_AND_COSTS, and why each default).
        **{name: _env_int(f"ATTENTION_{name}", bound.default) for name, bound in BOUNDS.items()},
        # Megabytes of the real models' runs a server keeps (in the folder below, shared by
        # its workers; without one, each process its own), and the forward passes a process
        # runs at once and lets wait (real_models/runs.py).
        RUNS_MB=_env_int("ATTENTION_RUNS_MB", RUNS_MB),
        # The folder a server's workers share their runs in (gunicorn.conf.py makes it);
        # without one each process keeps its own.
        RUNS_DIR=os.environ.get("ATTENTION_RUNS_DIR") or None,
        FORWARDS=_env_int("ATTENTION_FORWARDS", FORWARDS),
        FORWARDS_WAITING=_env_int("ATTENTION_FORWARDS_WAITING", FORWARDS_WAITING),
    )
    if test_config:
        app.config.from_mapping(test_config)

    for part in (assets, pages, attention, classroom, running, real_models, errors):
        app.register_blueprint(part.bp)
    app.after_request(security_headers)
    return app


def run(app: Flask) -> None:
    """Serve ``app`` with Flask's own server on HOST:PORT (default 127.0.0.1:5000), after
    loading the real models and saying which are loaded (or what to run to install them)."""
    debug = os.environ.get("ATTENTION_DEBUG") == "1"
    if not debug or os.environ.get("WERKZEUG_RUN_MAIN") == "true":  # the reloader's child
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        registry.log_loading(logging.getLogger("attention_explorer"))
    app.run(host=os.environ.get("HOST", "127.0.0.1"), port=_env_int("PORT", 5000), debug=debug)


if __name__ == "__main__":
    run(create_app())
