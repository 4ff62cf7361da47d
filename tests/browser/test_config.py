"""The server's limits and URLs as the page gets them (attention_api.pages.routes.page_config,
static/js/lib/config.js): a lowered limit reaches the controls, and the page works under a
URL prefix."""

import json

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.editor.test_widget import CAT_A, numpy_attention
from tests.browser.helpers import beyond, cell, expect_url, heatmap, loaded, wait_settled

pytestmark = pytest.mark.browser

CAT = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
       "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}


@pytest.fixture(scope="module")
def small_server():
    """The app with lowered limits, as ATTENTION_MAX_TOKENS=64 ATTENTION_MAX_MODEL_DIM=12
    ATTENTION_MAX_DIM=8 ATTENTION_MAX_HEADS=4 give."""
    s = Server(config={"MAX_TOKENS": 64, "MAX_MODEL_DIM": 12, "MAX_DIM": 8, "MAX_HEADS": 4})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def prefixed_server():
    """The app mounted under /explorer, as a reverse proxy serving it at a path would."""
    s = Server(prefix="/explorer")
    yield s
    s.stop()


def test_a_lowered_token_limit_reaches_the_controls(page, small_server):
    loaded(page, small_server.url)
    status = page.get_by_role("status")
    tokens = page.get_by_role("textbox", name="Tokens", exact=True)
    tokens.fill("65")
    tokens.press("Enter")
    expect(status).to_have_text("Tokens must be a whole number from 1 to 64; “65” is not.")
    expect(tokens).to_have_value("65")  # kept, to be corrected
    tokens.fill("64")
    tokens.press("Enter")
    page.wait_for_function("""() => new URLSearchParams(location.hash.slice(1)).get("tokens")
        .split("|").length === 64""")
    expect(page.get_by_role("button", name="Add token")).to_be_disabled()
    expect(page.get_by_role("button", name="Remove token")).to_be_enabled()
    wait_settled(page)
    expect(tokens).to_have_value("64")


def test_a_lowered_dimension_limit_reaches_the_controls(page, small_server):
    loaded(page, small_server.url)
    status = page.get_by_role("status")
    for dim, label, most in (("d_model", "dmodel", 12), ("d_k", "dk", 8), ("d_v", "dv", 8)):
        box = page.get_by_role("spinbutton", name=label, exact=True)
        expect(box).to_have_attribute("max", str(most))
        box.fill(str(most + 1))
        box.press("Enter")
        expect(status).to_have_text(
            f"{dim} must be a whole number from 1 to {most}; “{most + 1}” is not.")
        expect(box).to_have_value("2")
    d_k = page.get_by_role("spinbutton", name="dk", exact=True)
    d_k.fill("8")
    d_k.press("Enter")
    expect(cell(page, "W_Q row 2 column 8")).to_have_value("0")
    page.get_by_role("button", name="Increase d_k").click()  # past the limit: nothing changes
    expect(d_k).to_have_value("8")
    expect(cell(page, "W_Q row 2 column 9")).to_have_count(0)
    # Heads too, from ATTENTION_MAX_HEADS.
    expect(beyond(page).get_by_role("spinbutton", name="Heads", exact=True)).to_have_attribute(
        "max", "4")


def test_the_page_works_under_a_url_prefix(page, console, prefixed_server):
    server = prefixed_server
    answered = []
    page.on("response", lambda r: answered.append((r.status, r.url)))
    loaded(page, server.url)
    assert heatmap(page) == CAT_A
    # An edit is computed by the API under the prefix and redrawn; numpy says what it must be.
    cell(page, "X row 1 column 1").fill("2")
    expect_url(page, "X=2,0;")
    wait_settled(page)
    A, _ = numpy_attention([[2, 0], [0, 1], [1, 1]], CAT["W_Q"], CAT["W_K"], CAT["W_V"])
    assert heatmap(page) == np.round(A, 3).tolist()
    # By hand: q_0 = (2, 0), keys (4, 0), (0, 1), (2, 1); scores 8, 0, 4, each ÷ √2.
    assert heatmap(page)[0] == [0.941, 0.003, 0.056]

    # The scaling lab fetches its curve and its samples under the prefix.
    lab = page.locator("#lab-panel")
    slider = page.get_by_role("slider", name="d_k for the scaling lab")
    slider.focus()
    page.keyboard.press("End")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 1024")
    expect(lab.locator(".lab-winner")).to_have_text("without scaling 1.0000, with scaling 0.731")
    lab.get_by_role("button", name="Sample").click()
    expect(lab.locator("table tbody tr")).to_have_count(5)

    # An import is checked by the server under the prefix: its message, then the view.
    paste = page.get_by_role("textbox", name="Paste a configuration")
    load = page.locator("#export-panel").get_by_role("button", name="Load pasted configuration")
    paste.fill(json.dumps({**CAT, "W_Q": [[1, 0], ["a", 2]]}))
    load.click()
    expect(page.locator("#export-panel .export-message")).to_have_text(
        'W_Q row 2 column 1 must be a number, got the string "a"')
    paste.fill(json.dumps({**CAT, "causal": True}))
    load.click()
    expect(page.locator("#status")).to_have_text("Imported the pasted configuration")
    wait_settled(page)
    assert heatmap(page)[:2] == [[1, 0, 0], [0.5, 0.5, 0]]

    # The API's docs and every link of theirs resolve under the prefix.
    page.get_by_role("link", name="API documentation").click()
    expect(page).to_have_url(server.url + "api/docs")
    expect(page.get_by_role("heading", name="POST /explorer/api/attention")).to_be_visible()
    links = page.eval_on_selector_all("a[href], link[href]", "nodes => nodes.map(n => n.href)")
    assert len(links) >= 7
    for link in links:
        assert link.startswith(server.url), link
        assert page.request.get(link).status == 200, link
    page.get_by_role("link", name="← Attention Explorer").click()
    wait_settled(page)
    assert heatmap(page) == CAT_A

    # Every file and call went under the prefix, and none was missing.
    assert answered and all(url.startswith(server.url) for _, url in answered), answered
    assert [a for a in answered if a[0] == 404] == []
    # Chrome logs every 4xx answer as a console error; the import's 422 is the expected one.
    console[:] = [m for m in console if "status of 422" not in m[1]]
