"""attention_api.headers: the security headers, on answers and on errors."""

import pytest


@pytest.mark.parametrize("path", ["/", "/health", "/api/presets", "/nowhere"])
def test_security_headers_on_every_response(client, path):
    r = client.get(path)
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["Referrer-Policy"] == "no-referrer"


def test_security_headers_on_errors_too(client):
    r = client.post("/api/attention", data="{", content_type="application/json")
    assert r.status_code == 400 and "Content-Security-Policy" in r.headers
