"""app.create_app: the factory's config, its defaults from one source, and its blueprints."""

import json

from app import create_app
from attention_api.request import Limits


def test_debug_is_off_by_default(app):
    assert app.debug is False


def test_body_limit_is_configurable(cat_sat):
    small = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 100}).test_client()
    r = small.post("/api/attention", data=json.dumps(cat_sat) + " " * 100,
                   content_type="application/json")
    assert r.status_code == 413


def test_the_default_limits_are_the_request_formats_own(app, monkeypatch):
    assert (app.config["MAX_TOKENS"], app.config["MAX_DIM"]) == (Limits.max_tokens,
                                                                 Limits.max_dim)
    assert app.config["MAX_ANSWER_CELLS"] == Limits.max_answer_cells == 10_000_000
    monkeypatch.setenv("ATTENTION_MAX_TOKENS", "64")
    monkeypatch.setenv("ATTENTION_MAX_ANSWER_CELLS", "5000")
    configured = create_app().config
    assert (configured["MAX_TOKENS"], configured["MAX_ANSWER_CELLS"]) == (64, 5000)


def test_the_app_is_built_from_its_blueprints(app):
    assert set(app.blueprints) == {"assets", "pages", "api", "errors"}
    for endpoint, view in app.view_functions.items():
        if endpoint != "static":  # Flask's own
            assert view.__doc__ and len(view.__doc__.strip().splitlines()) == 1, endpoint
