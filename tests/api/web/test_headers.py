"""attention_api.web.headers: the security headers, on every answer the app writes: its pages,
its files, its API, and every error, werkzeug's routing errors included."""

import json

import pytest

from attention_api.web.headers import SECURITY_HEADERS
from tests.api.web.test_errors import MAX_BODY_BYTES, SilentClient

# The policy, written out here: the page and its files are for this origin alone.
EXPECTED = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
# Powerful features the page never uses, each of which must be denied to every origin.
MUST_BE_DENIED = {"camera", "microphone", "geolocation", "display-capture", "usb", "serial",
                  "hid", "midi", "payment", "accelerometer", "gyroscope", "magnetometer"}


def permissions(header: str) -> dict[str, str]:
    """{feature: allowlist} of a Permissions-Policy header ("camera=(), usb=()")."""
    pairs = (item.strip().split("=", 1) for item in header.split(","))
    return {feature: allowlist for feature, allowlist in pairs}


def assert_secured(r):
    for name, value in EXPECTED.items():
        assert r.headers.get(name) == value, (r.status_code, name)
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    policy = permissions(r.headers["Permissions-Policy"])
    assert {f for f, allowlist in policy.items() if allowlist == "()"} >= MUST_BE_DENIED
    # "Copy link" and "Copy" write to the clipboard: never denied to the page itself.
    assert policy.get("clipboard-write", "(self)") in ("(self)", "self")


def test_the_table_is_what_every_answer_carries():
    assert set(SECURITY_HEADERS) == {*EXPECTED, "Content-Security-Policy", "Permissions-Policy"}
    policy = permissions(SECURITY_HEADERS["Permissions-Policy"])
    assert all(allowlist == "()" for allowlist in policy.values())  # it only denies
    assert len(policy) == 17 and "clipboard-write" not in policy and "clipboard-read" not in policy


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/", 200), ("HEAD", "/", 200), ("GET", "/api/docs", 200),
    ("GET", "/health", 200), ("GET", "/api/presets", 200), ("GET", "/api/openapi.json", 200),
    ("GET", "/api/scaling", 200), ("OPTIONS", "/api/attention", 200),
    ("GET", "/nowhere", 404), ("GET", "/static/css/app.css", 404),  # routing: no rule
    ("GET", "/api/attention", 405), ("DELETE", "/health", 405),  # routing: no method
    ("GET", "/api/scaling?d_k_max=x", 422),
])
def test_security_headers_on_every_page_answer_and_routing_error(client, method, path, status):
    r = client.open(path, method=method)
    assert r.status_code == status
    assert_secured(r)
    if status >= 400 and method != "HEAD":
        assert set(r.get_json()["error"]) == {"message", "field"}


@pytest.mark.parametrize("accept_encoding", ["gzip", ""])
def test_security_headers_on_a_file_and_its_304(client, accept_encoding):
    version = client.application.extensions["assets_version"]
    url = f"/assets/{version}/js/editor/main.js"
    with client.get(url, headers={"Accept-Encoding": accept_encoding}) as r:
        assert r.status_code == 200 and r.headers.get("Content-Encoding") == (
            "gzip" if accept_encoding else None)
        assert_secured(r)
        etag = r.headers["ETag"]
    with client.get(url, headers={"Accept-Encoding": accept_encoding,
                                  "If-None-Match": etag}) as again:
        assert again.status_code == 304
        assert_secured(again)


def test_security_headers_on_api_answers_and_request_errors(client, cat_sat):
    def post(data, content_type="application/json", **kwargs):
        return client.post("/api/attention", data=data, content_type=content_type, **kwargs)

    answers = {
        200: post(json.dumps(cat_sat)),
        400: post("{"),
        413: post(b" " * (MAX_BODY_BYTES + 1)),
        415: post(json.dumps(cat_sat), content_type="text/plain"),
        422: post(json.dumps({**cat_sat, "X": [[1, 0]] * 3 + [["a", 0]]})),
        408: client.post("/api/attention", input_stream=SilentClient(), content_length=100,
                         content_type="application/json",
                         environ_overrides={"wsgi.input_terminated": False}),
    }
    for status, r in answers.items():
        assert r.status_code == status
        assert_secured(r)


def test_security_headers_on_a_500(app, monkeypatch, cat_sat):
    import attention_api.attention.routes

    def boom(*_):
        raise RuntimeError("secret internals")
    monkeypatch.setattr(attention_api.attention.routes, "compute", boom)
    app.logger.disabled = True
    r = app.test_client().post("/api/attention", data=json.dumps(cat_sat),
                               content_type="application/json")
    assert r.status_code == 500 and r.get_json()["error"]["field"] is None
    assert_secured(r)
