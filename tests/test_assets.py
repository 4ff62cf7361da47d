"""attention_api.assets: /assets/<version>/…, versioned by contents and cached for a year."""

import re
from pathlib import Path


def test_assets_are_versioned_by_their_contents_and_cached_for_a_year(client):
    def fetch(path):  # a file is streamed: the response must be closed
        with client.get(path) as r:
            return r.status_code, r.get_data(), r.headers.get("Cache-Control", "")

    page = client.get("/").get_data(as_text=True)
    (version,) = set(re.findall(r'href="/assets/([0-9a-f]{12})/css/app.css"', page))
    static = Path(__file__).resolve().parents[1] / "static"
    status, data, cache = fetch(f"/assets/{version}/css/app.css")
    assert status == 200 and data == (static / "css" / "app.css").read_bytes()
    assert "max-age=31536000" in cache
    # A page from an older release still gets the file, but not for keeps.
    status, old, cache = fetch("/assets/000000000000/css/app.css")
    assert status == 200 and old == data and "max-age=31536000" not in cache
    assert fetch(f"/assets/{version}/../app.py")[0] == 404
    assert fetch(f"/assets/{version}/js/nothing.js")[0] == 404
    # Imports are relative, so every module a page loads carries the version.
    assert 'from "./api.js"' in fetch(f"/assets/{version}/js/main.js")[1].decode()
