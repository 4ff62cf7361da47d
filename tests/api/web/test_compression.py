"""attention_api.web.compression: the static text files gzipped at start-up, the pages per
response."""

import gzip
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "static"
GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def linked(client):
    """The version and every asset the page links: stylesheets and icon in its head, and the
    scripts boot.js and tex.js load (their URLs are in boot.js's tag and the config block)."""
    page = client.get("/").get_data(as_text=True)
    found = re.findall(r'/assets/([0-9a-f]{12})/([^"\'\s]+)', page)
    (version,) = {v for v, _ in found}
    return version, sorted({f for _, f in found})


def fetch(client, path, headers=None):
    with client.get(path, headers=headers or {}) as r:  # a file is streamed: close it
        return r.status_code, r.headers, r.get_data()


def test_every_text_asset_the_page_links_comes_gzipped_and_unpacks_to_the_file(client):
    version, files = linked(client)
    texts = [f for f in files if not f.endswith((".woff2", ".png"))]  # already compressed
    assert {"css/app.css", "js/editor/boot.js", "js/editor/main.js", "js/lib/api.js",
            "vendor/katex/katex.min.js"} <= set(texts)
    for name in texts:
        status, headers, body = fetch(client, f"/assets/{version}/{name}", GZIP)
        assert status == 200, name
        assert headers["Content-Encoding"] == "gzip", name
        assert "Accept-Encoding" in headers["Vary"], name
        assert int(headers["Content-Length"]) == len(body), name
        assert gzip.decompress(body) == (STATIC / name).read_bytes(), name
        assert "max-age=31536000" in headers["Cache-Control"], name
        assert len(body) < (STATIC / name).stat().st_size, name


def test_without_gzip_in_accept_encoding_the_file_is_sent_as_it_is(client):
    version, _ = linked(client)
    original = (STATIC / "css/app.css").read_bytes()
    for accept in (None, "identity", "gzip;q=0", "gzip;q=0, *", "br"):
        status, headers, body = fetch(client, f"/assets/{version}/css/app.css",
                                      {"Accept-Encoding": accept} if accept else None)
        assert status == 200, accept
        assert "Content-Encoding" not in headers, accept
        assert body == original and int(headers["Content-Length"]) == len(original), accept
        assert "Accept-Encoding" in headers["Vary"], accept
    for accept in ("*", "GZIP;q=0.5", "identity, x-gzip"):
        assert fetch(client, f"/assets/{version}/css/app.css",
                     {"Accept-Encoding": accept})[1]["Content-Encoding"] == "gzip", accept


def test_fonts_are_sent_as_they_are_and_an_old_version_is_not_kept(client):
    version, _ = linked(client)
    font = "vendor/katex/fonts/KaTeX_Main-Regular.woff2"  # asked for by katex.min.css
    status, headers, body = fetch(client, f"/assets/{version}/{font}", GZIP)
    assert status == 200 and "Content-Encoding" not in headers  # woff2 is compressed already
    assert body == (STATIC / font).read_bytes()
    status, headers, body = fetch(client, "/assets/000000000000/css/app.css", GZIP)
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert "max-age=31536000" not in headers["Cache-Control"]


def test_a_gzipped_asset_answers_a_revalidation_with_304(client):
    version, _ = linked(client)
    status, headers, _ = fetch(client, f"/assets/{version}/js/editor/main.js", GZIP)
    etag = headers["ETag"]
    status, headers, body = fetch(client, f"/assets/{version}/js/editor/main.js",
                                  {**GZIP, "If-None-Match": etag})
    assert status == 304 and body == b""
    # The plain file has an ETag of its own: the two encodings are different representations.
    assert fetch(client, f"/assets/{version}/js/editor/main.js")[1]["ETag"] != etag


@pytest.mark.parametrize("path", ["/", "/api/docs"])
def test_pages_are_gzipped_for_a_client_that_takes_it(client, path):
    plain = client.get(path)
    packed = client.get(path, headers=GZIP)
    assert plain.status_code == 200 and packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert plain.headers["Vary"] == "Accept-Encoding"
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.headers["Vary"] == "Accept-Encoding"
    assert int(packed.headers["Content-Length"]) == len(packed.data)
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data) / 2


def test_api_answers_and_error_pages_are_not_gzipped(client, cat_sat):
    r = client.post("/api/attention", json=cat_sat, headers=GZIP)
    assert r.status_code == 200 and "Content-Encoding" not in r.headers and r.get_json()["weights"]
    r = client.get("/no/such/page", headers=GZIP)
    assert r.status_code == 404 and "Content-Encoding" not in r.headers
