"""A real model's head opened in the editor from the real-model view's link: its numbers
exactly, where they came from, one number of W_Q changed, a short URL and a reload."""

import base64
import json
import re
import urllib.parse
import urllib.request

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import cell, heatmap, wait_settled
from tests.reference_modern import reference_modern

pytestmark = pytest.mark.browser

TEXT = "The capital of France is"


def api(server, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path.lstrip("/"), data=data,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def decoded(value):
    """An array of a base64 answer as numpy (float64 little-endian, or uint8/bool)."""
    raw = base64.b64decode(value["base64"])
    dtype = {"float64": "<f8", "uint8": "u1", "bool": "?"}[value["dtype"]]
    return np.frombuffer(raw, dtype=dtype).reshape(value["shape"])


@pytest.fixture(scope="module")
def decoder(server):
    """The decoder's description, and its layer 4 head 6 (or the last of a smaller model's)."""
    models = {m["id"]: m for m in api(server, "/api/models")["models"]}
    model = models["smollm2-135m"]
    return model, min(3, model["layers"] - 1), min(5, model["heads"] - 1)


def link(model, layer, head, row=""):
    return (f"#from=model&model={model['id']}&text={urllib.parse.quote(TEXT)}&layer={layer}"
            f"&head={head}&row={row}&causal=1")


def editor_request(page, edit):
    """The body of the editor's next POST /api/attention, sent by ``edit()``."""
    with page.expect_request(lambda r: r.url.endswith("/api/attention")
                             and r.method == "POST") as asked:
        edit()
    return asked.value.post_data_json


def test_a_model_head_opens_exactly_and_keeps_an_edit_in_a_short_url(
        browser, console, server, decoder, artifacts):
    model, layer, head = decoder
    truth = api(server, "/api/model/attention", {
        "model": model["id"], "text": TEXT, "layer": layer, "head": head,
        "fields": ["tokens", "X", "W_Q", "W_K", "W_V", "rope_base", "weights"]})
    n = len(truth["tokens"])
    page = open_page(browser, console, width=1280, height=800)
    sent = editor_request(page, lambda: page.goto(server.url + link(model, layer, head, n - 1)))
    wait_settled(page)
    note = page.locator("#source-note")
    expect(note).to_contain_text(f"These inputs are {model['name']}, layer {layer + 1} head "
                                 f"{head + 1}, on “{TEXT}”.")
    back = note.get_by_role("link", name="Back to the real-model view")
    expect(back).to_have_attribute(
        "href", f"/model#model={model['id']}&text={urllib.parse.quote(TEXT)}&layer={layer}"
                f"&head={head}&row={n - 1}&causal=1")
    # The state's numbers are the API's, to the last bit, and so are the weights they give.
    for name in ("X", "W_Q", "W_K", "W_V"):
        assert np.array_equal(np.array(sent[name]), np.array(truth[name])), name
    assert sent["tokens"] == truth["tokens"]
    assert (sent["positional"], sent["rope_base"], sent["causal"]) == \
        ("rope", truth["rope_base"], True)
    assert "b_Q" not in sent  # SmolLM2 has no biases
    mine = api(server, "/api/attention", {**sent, "fields": ["weights"], "encoding": "base64"})
    assert np.array_equal(decoded(mine["weights"]), np.array(truth["weights"]))
    shown = np.array(heatmap(page))
    assert np.allclose(shown, truth["weights"], atol=5e-4)
    # A long number of the model's is shown with 3 decimals; the input holds all of it.
    x = cell(page, "X row 1 column 1")
    expect(x).to_have_value(repr(truth["X"][0][0]))
    compact = page.locator('td:has(> input[aria-label="X row 1 column 1"]) > .compact')
    expect(compact).to_have_text(f"{truth['X'][0][0]:.3f}".replace("-", "\u2212"))
    page.screenshot(path=str(artifacts / "editor-handoff-1280.png"), full_page=True)
    # A matrix wider than its box becomes a tab stop once laid out (matrix.js); the step by
    # step below the first screen is laid out once it nears the screen (content-visibility).
    for key in ("Q", "K", "V", "S", "SS", "Z"):
        page.locator(f'figure[data-key="{key}"]').scroll_into_view_if_needed()
    page.wait_for_function("""() => [...document.querySelectorAll('.matrix:not(.editable) .scroll')]
        .every((s) => s.scrollWidth <= s.clientWidth || s.hasAttribute('tabindex'))""")
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()

    # One number of W_Q changed: the weights follow, and the URL names only that change.
    W_Q = np.array(truth["W_Q"])
    W_Q[0, 0] = 3.0
    sent = editor_request(page, lambda: cell(page, "W_Q row 1 column 1").fill("3"))
    assert np.array_equal(np.array(sent["W_Q"]), W_Q)
    wait_settled(page)
    want = reference_modern(truth["X"], W_Q.tolist(), truth["W_K"], truth["W_V"], causal=True,
                            rope_base=truth["rope_base"])["weights"]
    edited = np.array(heatmap(page))
    assert np.allclose(edited, want, atol=5e-4)
    assert not np.allclose(edited, shown, atol=5e-3), "the edit changed the weights"
    expect(note).to_contain_text("1 number changed since")
    expect(page).to_have_url(re.compile(r"cells=W_Q:0:0:3&"))
    url = page.evaluate("location.href")
    assert len(url) < 700, url
    assert page.locator('td:has(> input[aria-label="W_Q row 1 column 1"]) > .compact').count() == 0
    page.reload()
    expect(note).to_be_visible()
    wait_settled(page)
    expect(cell(page, "W_Q row 1 column 1")).to_have_value("3")
    assert np.allclose(np.array(heatmap(page)), want, atol=5e-4)
    page.close()

    phone = open_page(browser, console, width=390, height=844)
    phone.goto(url)
    expect(phone.locator("#source-note")).to_be_visible()  # the default example shows until then
    wait_settled(phone)
    assert phone.evaluate("document.documentElement.scrollWidth <= innerWidth")
    phone.screenshot(path=str(artifacts / "editor-handoff-390.png"), full_page=True)
    phone.close()


def test_a_reshaped_head_keeps_every_number_however_large(browser, console, server, decoder):
    """A token added: the source form no longer fits, and the whole view is written out
    (or, beyond a link's size, kept in the tab); a reload keeps the typed number."""
    model, layer, head = decoder
    page = open_page(browser, console)
    page.goto(server.url + link(model, layer, head))
    expect(page.locator("#source-note")).to_be_visible()
    wait_settled(page)
    cell(page, "W_K row 2 column 1").fill("0.5")
    wait_settled(page)
    page.get_by_role("button", name="Add token").click()
    wait_settled(page)
    expect(page.locator("#source-note")).to_contain_text("reshaped since")
    expect(page).not_to_have_url(re.compile("from=model"))
    page.reload()
    wait_settled(page)
    expect(cell(page, "W_K row 2 column 1")).to_have_value("0.5")
    page.close()


# Each label input of X: whether its text is cut (it scrolls inside the input), and its name.
CUT = """f => [...f.querySelectorAll('.label-input')].map(
  i => [i.getAttribute('aria-label'), i.value, i.scrollWidth > i.clientWidth])"""


def test_a_model_heads_token_labels_are_whole_in_x(browser, console, server, decoder):
    """"␣teacher" was cut to "␣teache": the labels' column fits the longest label."""
    model, layer, head = decoder
    page = open_page(browser, console, 1280, 800)
    text = "The teacher said that the capital of France is"
    page.goto(server.url + link(model, layer, head).replace(urllib.parse.quote(TEXT),
                                                             urllib.parse.quote(text)))
    expect(page.locator("#source-note")).to_be_visible(timeout=120_000)
    wait_settled(page)
    labels = page.locator('figure[data-key="X"]').evaluate(CUT)
    assert [value for _, value, _ in labels][:3] == ["The", "\u2423teacher", "\u2423said"]
    assert [name for name, _, _ in labels][:2] == ["Token 1 label", "Token 2 label"]
    assert [value for _, value, cut in labels if cut] == []
    page.close()
