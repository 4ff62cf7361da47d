"""attention_api.pages.assets: /assets/<version>/…, versioned by contents and cached for a year."""

import re
from pathlib import Path

from attention_api.pages.assets import served


def test_assets_are_versioned_by_their_contents_and_cached_for_a_year(client):
    def fetch(path):  # a file is streamed: the response must be closed
        with client.get(path) as r:
            return r.status_code, r.get_data(), r.headers.get("Cache-Control", "")

    page = client.get("/").get_data(as_text=True)
    (version,) = set(re.findall(r'href="/assets/([0-9a-f]{12})/css/app.css"', page))
    static = Path(__file__).resolve().parents[3] / "static"
    status, data, cache = fetch(f"/assets/{version}/css/app.css")
    assert status == 200 and data == (static / "css" / "app.css").read_bytes()
    assert "max-age=31536000" in cache
    # A page from an older release still gets the file, but not for keeps.
    status, old, cache = fetch("/assets/000000000000/css/app.css")
    assert status == 200 and old == data and "max-age=31536000" not in cache
    assert fetch(f"/assets/{version}/../app.py")[0] == 404
    assert fetch(f"/assets/{version}/js/nothing.js")[0] == 404
    # Imports are relative, so every module a page loads carries the version.
    assert 'from "../lib/api.js"' in fetch(f"/assets/{version}/js/editor/main.js")[1].decode()


STATIC = Path(__file__).resolve().parents[3] / "static"


def test_the_page_and_its_stylesheets_name_only_files_that_are_served(client):
    """Every file the page links, its modules and the fonts KaTeX's stylesheet names (the
    woff2 ones, which are vendored) answer 200 with the file's bytes."""
    page = client.get("/").get_data(as_text=True)
    (version,) = set(re.findall(r'/assets/([0-9a-f]{12})/', page))
    linked = set(re.findall(rf'"/assets/{version}/([^"]+)"', page))
    css = (STATIC / "vendor/katex/katex.min.css").read_text()
    fonts = {f"vendor/katex/{f}" for f in re.findall(r"url\((fonts/[^)]+\.woff2)\)", css)}
    assert {"favicon.png", "js/editor/main.js", "js/lib/api.js", "css/app.css"} <= linked
    assert len(fonts) == 20
    for name in sorted(linked | fonts):
        with client.get(f"/assets/{version}/{name}", headers={"Accept-Encoding": ""}) as r:
            assert r.status_code == 200 and r.get_data() == (STATIC / name).read_bytes(), name


def test_what_is_not_part_of_the_page_is_not_served(client):
    version = client.application.extensions["assets_version"]
    for path in ("/static/css/app.css", "/static/js/editor/main.js", "/static/tests/api.test.mjs",
                 f"/assets/{version}/tests/api.test.mjs", "/assets/x/tests/api.test.mjs",
                 f"/assets/{version}/vendor/katex/VENDOR.md",
                 f"/assets/{version}/js/editor/main.js.map", f"/assets/{version}/.gitignore"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.get_json()["error"]["message"] == f"There is nothing at {path}."


def test_only_the_kinds_of_file_the_page_is_made_of_are_served():
    assert all(served(name) for name in (
        "css/app.css", "js/editor/main.js", "favicon.png", "favicon.svg",
        "vendor/katex/fonts/KaTeX_Main-Regular.woff2", "vendor/katex/LICENSE"))
    assert not any(served(name) for name in (
        "vendor/katex/VENDOR.md", "js/editor/main.js.map", "tests/api.test.mjs", "README.md",
        ".eslintrc.js", "js/.main.js.swp", "js/.hidden/x.js", "js/editor/main.js~", "LICENSE.txt"))
    # Of what the checkout's static/ holds, only KaTeX's note for maintainers is left out.
    unserved = {p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*")
                if p.is_file() and not served(p.relative_to(STATIC).as_posix())}
    assert unserved == {"vendor/katex/VENDOR.md"}


def test_katex_licence_is_served_as_text_beside_its_script(client):
    version = client.application.extensions["assets_version"]
    with client.get(f"/assets/{version}/vendor/katex/LICENSE") as r:
        assert r.status_code == 200 and r.mimetype == "text/plain"
        assert r.get_data() == (STATIC / "vendor/katex/LICENSE").read_bytes()
        assert b"Permission is hereby granted" in r.get_data()
