"""attention_api.pages.routes: the explorer page (its preloads) and the API's description."""

import html
import json
import re
from pathlib import Path

import pytest
from werkzeug.exceptions import NotFound
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.test import Client

from app import create_app
from attention_api.attention.lab import MAX_DRAWS
from attention_api.attention.request import Limits
from attention_api.classroom.worksheet import MAX_SHEETS
from attention_core.prose import NUMBER_FORMAT
from attention_models import registry


def test_index_serves_a_page(client):
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert b"Attention Explorer" in r.data


def test_the_page_preloads_every_module_main_js_can_import(client):
    # Each module main.js reaches by import statements, read here from the files themselves
    # (a module resolved against its importer's folder, as the browser does).
    static = Path(__file__).resolve().parents[3] / "static"
    imported, todo = set(), [static / "js/editor/main.js"]
    while todo:
        module = todo.pop()
        for spec in re.findall(r'from "((?:\.\.?/)+[a-z/]+\.js)"', module.read_text()):
            name = (module.parent / spec).resolve().relative_to(static).as_posix()
            if name not in imported:
                imported.add(name)
                todo.append(static / name)
    assert {"js/lib/api.js", "js/draw/heatmap.js", "js/model/state.js"} <= imported
    page = client.get("/").get_data(as_text=True)
    # The one script of the head is boot.js, async; it preloads the modules and starts
    # main.js, whose URLs its tag holds.
    scripts = re.findall(r'<script ([^>]*)src="/assets/[0-9a-f]{12}/([^"]+)"', page)
    assert [name for _, name in scripts] == ["js/editor/boot.js"] and "async" in scripts[0][0]
    hrefs = json.loads(re.search(r"data-modules='([^']+)'", page).group(1))
    preloaded = {re.fullmatch(r"/assets/[0-9a-f]{12}/(js/[a-z/]+\.js)", h).group(1)
                 for h in hrefs}
    assert imported == preloaded  # the real-model view's own modules are not the editor's
    # Neither the entry point nor the loader.
    assert not {"js/editor/main.js", "js/editor/boot.js"} & preloaded
    assert re.search(r'data-main="/assets/[0-9a-f]{12}/js/editor/main.js"', page)


def test_api_docs_page_describes_the_routes(client):
    r = client.get("/api/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    text = r.get_data(as_text=True)
    for words in ("POST /api/attention", "masked entries of <code>scaled_scores</code> are",
                  "GET /api/presets", "GET /api/scaling", "GET /health", "5242880 bytes",
                  "an answer of\n    at most 10,000,000 numbers"):
        assert words in text, words


def test_the_docs_page_lists_what_a_plain_answer_holds_as_the_server_sends_it(client):
    """The list of a single head's answer is the answer's own keys, not a copy typed by hand:
    those of the plainest request, less what only a row asks for."""
    body = {"X": [[1, 0], [0, 1]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]],
            "W_V": [[1, 0], [0, 1]]}
    answer = client.post("/api/attention", json=body)
    assert answer.status_code == 200
    r = client.get("/api/docs")
    assert r.status_code == 200
    listed = re.search(r"The answer holds <code>([^<]+)</code> and, with <code>row</code>",
                       r.get_data(as_text=True))
    assert listed and sorted(listed[1].split(", ")) == sorted(answer.get_json())


def config_block(html):
    """The page's one JSON block of limits and URLs (read by static/js/lib/config.js)."""
    found = re.findall(r'<script type="application/json" id="config">(.*?)</script>', html)
    assert len(found) == 1, found
    return json.loads(found[0])


def test_the_config_block_holds_the_apps_own_limits():
    app = create_app({"TESTING": True, "MAX_TOKENS": 64, "MAX_DIM": 8, "MAX_CONTENT_LENGTH": 5000,
                      "MAX_ANSWER_CELLS": 70_000, "MAX_HEADS": 4})
    r = app.test_client().get("/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    config = config_block(html)
    assert config["limits"] == {"tokens": 64, "dim": 8, "model_dim": Limits.max_model_dim,
                                "label": Limits.max_label, "heads": 4, "body_bytes": 5000,
                                "answer_cells": 70_000,
                                "position": 1_000_000, "worksheets": MAX_SHEETS}
    assert config["lab"] == {"max_draws": MAX_DRAWS, "curve_d_k_max": 1024}
    assert config["urls"]["attention"] == "/api/attention"
    # How numbers print, as the worksheets and the hints print them (attention_core.prose).
    assert config["number"] == NUMBER_FORMAT == {"fixed_limit": 100_000, "decimals": 3,
                                                 "figures": 4}
    # The template's own bounds come from the same values.
    for dim in ("d_k", "d_v"):
        assert re.search(rf'<input id="{dim}" [^>]*min="1" max="8"', html), dim
    assert re.search(r'<input id="d_model" [^>]*min="1" max="1024"', html)
    assert re.search(r'<input id="heads" [^>]*max="4"', html)


def test_export_configuration_saves_every_field_the_api_reads_but_how_the_answer_is_written():
    client = create_app({"TESTING": True}).test_client()
    page, document = client.get("/"), client.get("/api/openapi.json")
    assert page.status_code == document.status_code == 200
    saved = config_block(page.get_data(as_text=True))["settings"]["fields"]
    schemas = document.get_json()["components"]["schemas"]
    # Every field of any of the request's forms (one head, several, grouped-query heads).
    declared = list({name: None for form in schemas["AttentionRequest"]["oneOf"]
                     for name in schemas[form["$ref"].rsplit("/", 1)[1]]["properties"]})
    # The document lists them in its own order; the file keeps the request's (tokens first).
    assert sorted(saved) == sorted(f for f in declared if f not in ("fields", "encoding"))
    assert len(set(saved)) == len(saved) and saved[:2] == ["tokens", "X"]


def test_no_limit_or_api_url_is_typed_in_the_page_s_javascript():
    static = Path(__file__).resolve().parents[3] / "static" / "js"
    sources = sorted(static.rglob("*.js"))
    assert len(sources) > 50  # every folder's modules
    for source in sources:
        text = source.read_text()
        assert not re.search(r'["`\'](/api|/health)', text), source.name
        assert not re.search(r"\b(MAX_HEADS|MAX_DRAWS|MAX_EXPONENT|LIMITS|FIXED_LIMIT)\s*=",
                             text), source.name


def prefixed(app, prefix="/explorer"):
    """A client of ``app`` mounted under ``prefix``, as a reverse proxy's path would put it."""
    return Client(DispatcherMiddleware(NotFound(), {prefix: app}))


def status(client, url):
    """The status of GET ``url``, its body (a file, for an asset) closed."""
    with client.get(url) as r:
        return r.status_code


def test_under_a_url_prefix_every_url_of_the_page_carries_it(app, cat_sat):
    client = prefixed(app)
    r = client.get("/explorer/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    urls = config_block(html)["urls"]
    assert urls == {"attention": "/explorer/api/attention", "presets": "/explorer/api/presets",
                    "scaling": "/explorer/api/scaling",
                    "scaling_sample": "/explorer/api/scaling/sample",
                    "openapi": "/explorer/api/openapi.json", "health": "/explorer/health",
                    "docs": "/explorer/api/docs", "index": "/explorer/",
                    "model": "/explorer/model", "model_attention": "/explorer/api/model/attention",
                    "model_slide": "/explorer/api/model/slide",
                    "model_kv_cache": "/explorer/api/model/kv-cache",
                    "model_tiles": "/explorer/api/model/tiles",
                    "models": "/explorer/api/models", "practise": "/explorer/practise",
                    "exercise_check": "/explorer/api/exercise/check",
                    "tiles": "/explorer/api/tiles",
                    "worksheet": "/explorer/api/worksheet", "slide": "/explorer/api/slide",
                    "kv_cache": "/explorer/api/kv-cache", "cost": "/explorer/api/cost",
                    "katex": f"/explorer/assets/{app.extensions['assets_version']}"
                             "/vendor/katex/katex.min.js"}
    for name in ("presets", "scaling", "openapi", "health", "docs", "index", "katex",
                 "practise"):
        assert status(client, urls[name]) == 200, name
    checked = client.post(urls["exercise_check"], json={"seed": 1, "level": "z", "answers": {}})
    assert checked.status_code == 200 and checked.get_json()["results"] == {}
    sheet = client.post(urls["worksheet"], json={"seeds": [1], "level": "z"})
    assert sheet.status_code == 200 and sheet.data.startswith(b"%PDF-")
    sample = client.get(urls["scaling_sample"] + "?d_k=4&samples=100&seed=0")
    assert sample.status_code == 200 and sample.get_json()["d_k"] == 4
    answer = client.post(urls["attention"], json={**cat_sat, "fields": ["weights"]})
    assert answer.status_code == 200 and len(answer.get_json()["weights"]) == 3
    assert client.post(urls["attention"], json={**cat_sat, "fields": []}).get_json() == {}
    # Every file and link of the page and of the API's docs is under the prefix and answers.
    docs = client.get(urls["docs"]).get_data(as_text=True)
    links = set(re.findall(r'(?:href|src|data-main)="(/[^"#]*)"', html + docs))
    links |= set(json.loads(re.search(r"data-modules='([^']+)'", html).group(1)))
    assert links and all(link.startswith("/explorer/") for link in links), links
    for link in links:
        assert status(client, link) == 200, link
    assert "<code>POST /explorer/api/attention</code>" in docs
    openapi = client.get(urls["openapi"]).get_json()
    assert openapi["servers"] == [{"url": "/explorer"}] and "/api/attention" in openapi["paths"]


def test_the_model_view_without_its_models_says_what_is_missing_and_what_to_run(
        client, minilm_missing):
    r = client.get("/model")
    assert (r.status_code, r.mimetype) == (503, "text/html")
    page = r.get_data(as_text=True)
    assert "<h2>The real models are not installed on this server</h2>" in page
    assert "This server cannot read them: the module no_such_reader_for_tests is not " \
           "installed.</p>" in page
    command = re.search(r'<code id="install-command">(.*?)</code>', page, re.S).group(1)
    assert html.unescape(command) == registry.install_command()
    # Nothing of the working view: no script looking for its parts, no skip link to them.
    for absent in ("model/main.js", 'id="models-data"', 'href="#grid-start"', 'id="text"'):
        assert absent not in page, absent
    assert '<a href="/">The editable example</a> works without them.' in page


# What the two pages asked of the answer when their lists were typed in their scripts
# (static/js/editor/results/results.js and static/js/model/request.js): the config block must say
# exactly this, so the pages' requests stay what they were.
EDITOR_WORKING = ["row", "token", "q", "dots", "scale", "scaled", "allowed", "exp", "exp_sum",
                  "exp_overflow", "shift", "exp_shifted", "exp_shifted_sum", "weights", "z",
                  "entropy", "jacobian_norm", "q_unbiased", "b_Q", "k_unbiased", "b_K",
                  "v_unbiased", "b_V", "q_unrotated", "k_unrotated", "position", "positions_k",
                  "frequencies", "angles", "angles_k", "bias", "alibi_slope", "window",
                  "in_window", "sinks", "sink"]


@pytest.mark.parametrize("page", ["/", "/model"])
def test_the_config_block_says_what_the_pages_ask_of_the_answer(client, page):
    answer = config_block(client.get(page).get_data(as_text=True))["answer"]
    assert {k: set(v) for k, v in answer["whole"].items()} == {
        "ask": {"tokens", "tokens_kv", "causal"},
        "corner": {"positional_encoding", "positional_encoding_kv"}}
    assert {k: set(v) for k, v in answer["head"].items()} == {
        "ask": {"d_k", "scale", "alibi_slope", "K", "V", "mask"}, "corner": {"Q", "output"},
        "small": {"scores", "scaled_scores"}, "heatmap": {"weights"},
        "heatmap_big": {"weights_u8"}, "readout_big": {"strongest_keys"},
        "every_head": {"kv_head"}}
    assert {k: set(v) for k, v in answer["beside"].items()} == {"corner": {"concat", "output"}}
    # The order of a request's fields changes nothing in its answer (response.select keeps
    # the answer's own order).
    assert sorted(answer["working"]) == sorted(EDITOR_WORKING)
    model = answer["model"]
    assert {k: v for k, v in model.items() if k != "working"} == {
        "run": ["tokens", "words", "overview"], "decoder": ["next_tokens"],
        "head": ["kv_head", "causal", "model_causal", "counterfactual", "positional",
                 "rope_base", "d_k", "scale", "K", "V", "mask", "weights", "strongest_keys"]}
    # A real model's head has biases and RoPE, never ALiBi, a window or sinks.
    assert sorted(model["working"]) == sorted(p for p in EDITOR_WORKING if p not in (
        "bias", "alibi_slope", "window", "in_window", "sinks", "sink"))


def test_the_pages_unit_tests_read_the_config_block_the_server_sends(client):
    """tests/js reads tests/data/page_answer.json as the config block's "answer": it must be
    the server's."""
    data = Path(__file__).resolve().parents[2] / "data"
    fixture = json.loads((data / "page_answer.json").read_text())
    assert fixture["config"] == config_block(client.get("/").get_data(as_text=True))["answer"]
