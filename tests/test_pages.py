"""attention_api.pages: the explorer page (its preloads) and the API's description."""

import re
from pathlib import Path


def test_index_serves_a_page(client):
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert b"Attention Explorer" in r.data


def test_the_page_preloads_every_module_main_js_can_import(client):
    # Each module found by an import statement, read here from the files themselves.
    static = Path(__file__).resolve().parents[1] / "static"
    imported = set()
    for source in (static / "js").glob("*.js"):
        for name in re.findall(r'from "\./([a-z]+\.js)"', source.read_text()):
            imported.add(f"js/{name}")
    assert {"js/api.js", "js/later.js", "js/morph.js", "js/arrays.js"} <= imported
    page = client.get("/").get_data(as_text=True)
    preloaded = set(re.findall(r'rel="modulepreload" href="/assets/[0-9a-f]{12}/([^"]+)"', page))
    assert imported <= preloaded
    assert "js/main.js" not in preloaded  # the entry point is the script itself
    # KaTeX is its minified build, a classic script deferred ahead of the modules.
    scripts = re.findall(r'<script ([^>]*)src="/assets/[0-9a-f]{12}/([^"]+)"', page)
    assert [name for _, name in scripts] == ["vendor/katex/katex.min.js", "js/main.js"]
    assert "defer" in scripts[0][0] and 'type="module"' in scripts[1][0]


def test_api_docs_page_describes_the_routes(client):
    r = client.get("/api/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    text = r.get_data(as_text=True)
    for words in ("POST /api/attention", "masked entries of <code>scaled_scores</code> are",
                  "GET /api/presets", "GET /api/scaling", "GET /health", "4194304 bytes"):
        assert words in text, words
