"""app.create_app: the factory's config, its defaults from one source, and its blueprints."""

import json

import pytest

from app import create_app
from attention_api.attention.request import Limits


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
    assert app.config["MAX_MODEL_DIM"] == Limits.max_model_dim == 1024
    assert app.config["MAX_ANSWER_CELLS"] == Limits.max_answer_cells == 10_000_000
    assert app.config["MAX_HEADS"] == Limits.max_heads == 16
    monkeypatch.setenv("ATTENTION_MAX_TOKENS", "64")
    monkeypatch.setenv("ATTENTION_MAX_HEADS", "4")
    monkeypatch.setenv("ATTENTION_MAX_ANSWER_CELLS", "5000")
    monkeypatch.setenv("ATTENTION_MAX_MODEL_DIM", "576")
    configured = create_app().config
    assert (configured["MAX_TOKENS"], configured["MAX_ANSWER_CELLS"]) == (64, 5000)
    assert configured["MAX_MODEL_DIM"] == 576
    assert configured["MAX_HEADS"] == 4


def test_the_app_is_built_from_its_blueprints(app):
    assert set(app.blueprints) == {"assets", "pages", "attention", "classroom", "running", "models",
                                   "errors"}
    for endpoint, view in app.view_functions.items():
        assert view.__doc__ and len(view.__doc__.strip().splitlines()) == 1, endpoint


# Every shape of path werkzeug would answer with a redirect, whose Location it builds from
# the Host header: doubled slashes (merge_slashes), a missing trailing slash (strict_slashes),
# the root under a prefix. Given as PATH_INFO: the test client reads "//x" as a host.
REDIRECTING_SHAPES = [
    ("GET", "", "/", 200), ("GET", "/explorer", "", 200),
    ("GET", "/", "//health", 200),  # werkzeug drops leading slashes before matching
    ("GET", "", "/api//presets", 404), ("HEAD", "", "/api//presets", 404),
    ("OPTIONS", "", "/api//presets", 404), ("POST", "", "/api//attention", 404),
    ("GET", "", "/api/docs/", 404), ("GET", "", "/health/", 404),
    ("GET", "", "/assets//{v}/css/app.css", 404), ("GET", "", "/assets/{v}//css/app.css", 404),
    ("GET", "/explorer", "/api//presets", 404),
]


@pytest.mark.parametrize(("method", "prefix", "path", "status"), REDIRECTING_SHAPES)
def test_no_answer_carries_the_host_header(app, method, prefix, path, status):
    version = app.extensions["assets_version"]
    r = app.test_client().open(
        "/", method=method, headers={"Host": "evil.example"},
        environ_overrides={"SCRIPT_NAME": prefix, "PATH_INFO": path.format(v=version)})
    assert r.status_code == status
    assert "Location" not in r.headers
    assert not any("evil.example" in value for _, value in r.headers.items())
    assert b"evil.example" not in r.get_data()


def test_no_route_can_redirect(app):
    """A route added later keeps the rule: no merged slashes, no trailing-slash redirect,
    no redirect_to or defaults (werkzeug redirects a URL that spells out a default)."""
    rules = list(app.url_map.iter_rules())
    assert len(rules) == 23  # not vacuous: every route of the app, and no /static/ of Flask's
    for rule in rules:
        assert rule.merge_slashes is False, rule.rule
        assert not (rule.rule.endswith("/") and rule.strict_slashes), rule.rule
        assert rule.redirect_to is None and not rule.defaults, rule.rule


@pytest.mark.parametrize("name", ["ATTENTION_RUNS_MB", "ATTENTION_MAX_TOKENS",
                                  "ATTENTION_FORWARDS"])
def test_a_setting_that_is_not_a_whole_number_is_named_with_its_value(monkeypatch, name):
    monkeypatch.setenv(name, "12x")
    with pytest.raises(ValueError) as raised:
        create_app()
    assert str(raised.value) == f"{name} must be a whole number, got '12x'"
