"""editor/inputs/beyond.js, the controls beyond the chapter, for today's attention: the positions'
choice with θ, the offset and the ALiBi slopes; biases; the key/value heads stepper; the
window and its sinks. Each changes the request the page sends and its URL, comes back from
the URL on a reload, and marks a bad value without losing it; axe stays clean with all of
them on."""

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import (
    beyond,
    cell,
    expect_url,
    hash_matrix,
    heatmap,
    loaded,
    number,
    wait_settled,
    wait_until,
)

pytestmark = pytest.mark.browser

X = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
CAT = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])


class Sent:
    """The page's requests to compute attention (its own, asked in base64), as JSON."""

    def __init__(self, page):
        self.bodies = []
        page.on("request", self._seen)

    def _seen(self, request):
        if request.method == "POST" and request.url.endswith("/api/attention"):
            body = request.post_data_json
            if body.get("encoding") == "base64":
                self.bodies.append(body)

    def last(self, page, condition, what):
        """The newest request once ``condition(request)`` holds of it."""
        wait_until(page, lambda: bool(self.bodies) and condition(self.bodies[-1]), what)
        return self.bodies[-1]


def weights(Q, K, allowed=None):
    """softmax(QKᵀ/√d_k) in plain numpy, with key j hidden from query i where not allowed."""
    s = Q @ K.T / np.sqrt(K.shape[1])
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def head_weights(page, k):
    grid = page.get_by_role("grid", name=f"Attention weights, head {k}", exact=True)
    rows = grid.locator("tbody tr")
    return [[number(t) for t in rows.nth(i).locator("td").all_inner_texts()]
            for i in range(rows.count())]


def marked(page, field, name, message, stale=True):
    """``field`` is marked invalid, its message (under the inputs) names it, and the numbers
    on the page (when ``stale``: there are some) say they are out of date."""
    expect(field).to_have_attribute("aria-invalid", "true")
    described = field.get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_have_text(f"{name}: {message}")
    if stale:
        expect(page.locator("#stale-note")).to_be_visible()


def set_heads(page, h):
    heads = beyond(page).get_by_role("spinbutton", name="Heads", exact=True)
    heads.fill(str(h))
    heads.press("Enter")
    expect(page.get_by_role("grid", name=f"Attention weights, head {h}")).to_have_count(1)


def without_422s(console):
    # Chrome logs every 4xx answer as a console error; the server's 422s here are expected.
    console[:] = [m for m in console if "status of 422" not in m[1]]


def test_the_positions_choice_sends_its_kind_theta_and_offset(page, server):
    sent = Sent(page)
    loaded(page, server.url)
    positions = beyond(page).get_by_role("combobox", name="Positions", exact=True)
    theta = page.get_by_role("textbox", name="RoPE base θ", exact=True)
    offset = page.get_by_role("textbox", name="Position offset", exact=True)
    expect(positions).to_have_value("")
    expect(theta).to_be_hidden()
    expect(offset).to_be_hidden()
    positions.select_option(label="Rotary (RoPE)")
    body = sent.last(page, lambda b: b.get("positional") == "rope", "a request with RoPE")
    assert "rope_base" not in body and "position_offset" not in body, "the defaults"
    expect(theta).to_have_attribute("placeholder", "10000")
    theta.fill("100")
    offset.fill("3")
    body = sent.last(page, lambda b: b.get("position_offset") == 3, "θ and the offset sent")
    assert (body["positional"], body["rope_base"]) == ("rope", 100)
    expect_url(page, "&positional=rope&rope_base=100&offset=3&")
    wait_settled(page)
    # RoPE by hand: q_i and k_j turned by (offset + position)·θ^0 (d_k = 2: one pair).
    def turned(M, p):
        c, s = np.cos(p), np.sin(p)
        return np.stack([M[:, 0] * c - M[:, 1] * s, M[:, 0] * s + M[:, 1] * c], axis=1)
    p = 3 + np.arange(3)
    A = weights(turned(X @ CAT["W_Q"], p), turned(X @ CAT["W_K"], p))
    assert heatmap(page) == np.round(A, 3).tolist()
    page.reload()
    wait_settled(page)
    expect(positions).to_have_value("rope")
    expect(theta).to_have_value("100")
    expect(offset).to_have_value("3")
    positions.select_option(label="Sinusoidal")
    body = sent.last(page, lambda b: b.get("positional") == "sinusoidal", "sinusoidal positions")
    assert body["position_offset"] == 3 and "rope_base" not in body
    expect(theta).to_be_hidden()
    expect(offset).to_be_visible()
    positions.select_option(label="None")
    body = sent.last(page, lambda b: "positional" not in b, "no positions")
    assert "position_offset" not in body
    expect(offset).to_be_hidden()
    expect_url(page, "&positional=&")


def test_a_link_from_before_the_choice_still_loads(page, server):
    loaded(page, server.url + "#positional=1&row=0")
    expect(page.get_by_role("combobox", name="Positions")).to_have_value("sinusoidal")
    expect(page.locator('figure[data-key="PE"]')).to_be_visible()
    expect_url(page, "&positional=sinusoidal&")


def test_bad_theta_and_offset_are_marked_and_kept(page, server, console):
    loaded(page, server.url + "#positional=rope")
    theta = page.get_by_role("textbox", name="RoPE base θ", exact=True)
    theta.fill("big")
    marked(page, theta, "RoPE base θ", "“big” is not a number.")
    expect_url(page, "rope_base=big")
    page.reload()
    expect(theta).to_have_value("big")
    # Nothing is computed yet, so nothing is out of date.
    marked(page, theta, "RoPE base θ", "“big” is not a number.", stale=False)
    theta.fill("")  # the default again
    expect(theta).to_have_attribute("aria-invalid", "false")
    wait_settled(page)  # numbers on screen, for the offset's error to mark out of date
    offset = page.get_by_role("textbox", name="Position offset", exact=True)
    offset.fill("2.5")  # a number, but not a whole one: the server's to say
    marked(page, offset, "Position offset", "position_offset must be a whole number from 0 to"
           " 1,000,000 (the position of the first token), got 2.5")
    expect(offset).to_have_value("2.5")
    offset.fill("2")
    wait_settled(page)
    expect(offset).to_have_attribute("aria-invalid", "false")
    without_422s(console)


def test_alibi_slopes_the_papers_or_typed(page, server, console):
    sent = Sent(page)
    loaded(page, server.url)
    beyond(page).get_by_role("button", name="Increase heads").click()
    page.get_by_role("combobox", name="Positions").select_option("alibi")
    paper = page.get_by_role("checkbox", name="Paper's slopes")
    slopes = [page.get_by_role("textbox", name=f"ALiBi slope head {k}", exact=True) for k in (1, 2)]
    expect(paper).to_be_checked()
    # The paper's slopes for 2 heads, 2^-4 and 2^-8, shown and not sent (the server's default).
    for field, want in zip(slopes, ["0.0625", "0.00390625"], strict=True):
        expect(field).to_have_value(want)
        expect(field).to_be_disabled()
    body = sent.last(page, lambda b: b.get("positional") == "alibi", "ALiBi")
    assert "alibi_slopes" not in body
    paper.uncheck()
    body = sent.last(page, lambda b: "alibi_slopes" in b, "slopes of one's own")
    assert body["alibi_slopes"] == [0.0625, 0.00390625], "they start as the paper's"
    slopes[1].fill("0.5")
    body = sent.last(page, lambda b: b.get("alibi_slopes") == [0.0625, 0.5], "head 2's slope typed")
    expect_url(page, "&alibi=0.0625,0.5&")
    wait_settled(page)
    # Head 2 by hand: its scaled scores minus 0.5·|i − j|.
    W = {k: hash_matrix(page, k) for k in ("W_Q_2", "W_K_2")}
    distance = np.abs(np.arange(3)[:, None] - np.arange(3)[None, :])
    s = (X @ W["W_Q_2"]) @ (X @ W["W_K_2"]).T / np.sqrt(2) - 0.5 * distance
    e = np.exp(s - s.max(axis=1, keepdims=True))
    assert head_weights(page, 2) == np.round(e / e.sum(axis=1, keepdims=True), 3).tolist()
    page.reload()
    wait_settled(page)
    expect(paper).not_to_be_checked()
    expect(slopes[1]).to_have_value("0.5")
    slopes[0].fill("steep")
    marked(page, slopes[0], "ALiBi slope head 1", "“steep” is not a number.")
    slopes[0].fill("-1")
    marked(page, slopes[0], "ALiBi slope head 1", "ALiBi slope head 1 is -1; a slope must be 0 or"
           " more (the bias −slope·|i − j| must push far keys down, not up)")
    expect(slopes[0]).to_have_value("-1")
    paper.check()
    sent.last(page, lambda b: b.get("positional") == "alibi" and "alibi_slopes" not in b,
              "the paper's slopes again")
    expect(slopes[0]).to_be_disabled()
    expect_url(page, "&alibi=&")
    without_422s(console)


def test_biases_are_rows_under_their_matrices(page, server):
    sent = Sent(page)
    loaded(page, server.url)
    expect(cell(page, "b_Q column 1")).to_have_count(0)
    beyond(page).get_by_role("checkbox", name="Biases").check()
    for name in ("b_Q column 1", "b_Q column 2", "b_K column 2", "b_V column 1", "b_V column 2"):
        expect(cell(page, name)).to_have_value("0")
    body = sent.last(page, lambda b: "b_Q" in b, "the biases")
    assert (body["b_Q"], body["b_K"], body["b_V"]) == ([0, 0], [0, 0], [0, 0])
    shape = page.locator('figure[data-key="W_Q"] .shape')
    expect(shape).to_have_text("2 × 2  (dmodel × dk), bQ 1 × 2")
    cell(page, "b_Q column 2").fill("1")
    cell(page, "b_V column 1").fill("-0.5")
    body = sent.last(page, lambda b: b["b_V"] == [-0.5, 0], "b_Q and b_V typed")
    assert body["b_Q"] == [0, 1]
    expect_url(page, "&biases=1&b_Q=0,1&b_K=0,0&b_V=-0.5,0&")
    wait_settled(page)
    A = weights(X @ CAT["W_Q"] + [0, 1], X @ CAT["W_K"])
    assert heatmap(page) == np.round(A, 3).tolist()
    page.reload()
    wait_settled(page)
    expect(cell(page, "b_Q column 2")).to_have_value("1")
    b_K = cell(page, "b_K column 1")
    b_K.fill("1,5")
    marked(page, b_K, "b_K column 1", "“1,5”: use a point for decimals, e.g. 1.5.")
    expect(b_K).to_have_value("1,5")
    b_K.fill("0")
    page.get_by_role("button", name="Increase heads").click()
    expect(cell(page, "b_Q head 2 column 1")).to_have_value("0")
    expect(cell(page, "b_V head 2 column 2")).to_have_value("0")
    body = sent.last(page, lambda b: "heads" in b, "two heads")
    assert body["heads"][0]["b_Q"] == [0, 1] and body["heads"][1]["b_K"] == [0, 0]
    assert "b_Q" not in body
    page.get_by_role("checkbox", name="Biases").uncheck()
    expect(cell(page, "b_Q column 1")).to_have_count(0)
    body = sent.last(page, lambda b: "heads" in b and "b_Q" not in b["heads"][0], "no biases")
    expect_url(page, "&biases=0&causal")


def test_the_key_value_heads_stepper_goes_through_the_divisors(page, server):
    sent = Sent(page)
    loaded(page, server.url)
    kv = page.get_by_role("textbox", name="Key/value heads", exact=True)
    expect(kv).to_be_hidden()
    set_heads(page, 4)
    expect(kv).to_have_value("4")
    expect(page.get_by_role("button", name="Increase key/value heads")).to_be_disabled()
    page.get_by_role("button", name="Decrease key/value heads").click()
    expect(kv).to_have_value("2")
    body = sent.last(page, lambda b: "kv_heads" in b, "shared key/value heads")
    assert len(body["kv_heads"]) == 2 and [list(h) for h in body["heads"]] == [["W_Q"]] * 4
    # Key/value head 2 is what head 3 had: heads 3 and 4 read it.
    expect(cell(page, "W_K key/value head 2 row 1 column 1")).to_have_count(1)
    expect(cell(page, "W_K row 1 column 1")).to_have_count(1)
    expect(cell(page, "W_K head 3 row 1 column 1")).to_have_count(0)
    expect(page.locator('figure[data-key="W_V_2"] figcaption')).to_have_text(
        "WV value weights, key/value head 2, shared by heads 3 and 4")
    expect_url(page, "&kv_heads=2&")
    wait_settled(page)
    W = {k: hash_matrix(page, k) for k in ("W_Q_4", "W_K_2", "W_Q_2", "W_K")}
    assert head_weights(page, 4) == np.round(weights(X @ W["W_Q_4"], X @ W["W_K_2"]), 3).tolist()
    assert head_weights(page, 2) == np.round(weights(X @ W["W_Q_2"], X @ W["W_K"]), 3).tolist()
    page.get_by_role("button", name="Decrease key/value heads").click()
    expect(kv).to_have_value("1")
    expect(page.get_by_role("button", name="Decrease key/value heads")).to_be_disabled()
    expect(page.locator("#inputs-sym")).to_have_text(
        "— X, WQ of each of 4 heads, WK, WV of the one key/value head they share, WO")
    page.get_by_role("button", name="Increase key/value heads").click()
    expect(kv).to_have_value("2")
    # A reload loads the URL written after the edit's frame (history.js), not before it.
    expect_url(page, "&kv_heads=2&")
    page.reload()
    wait_settled(page)
    expect(kv).to_have_value("2")
    expect(cell(page, "W_K key/value head 2 row 1 column 1")).to_have_count(1)


def test_a_key_value_head_count_that_does_not_divide_is_marked_and_kept(page, server):
    loaded(page, server.url)
    set_heads(page, 4)
    kv = page.get_by_role("textbox", name="Key/value heads", exact=True)
    kv.fill("3")
    kv.press("Enter")
    message = "Key/value heads must divide the 4 heads (1, 2 or 4); “3” is not one of them."
    expect(kv).to_have_attribute("aria-invalid", "true")
    described = page.locator(f"#{kv.get_attribute('aria-describedby')}")
    expect(described).to_have_text(f"Key/value heads: {message}")
    # Another edit leaves the text to be corrected.
    page.get_by_role("checkbox", name="Causal mask").check()
    expect_url(page, "causal=1")
    expect(kv).to_have_value("3")
    expect(kv).to_have_attribute("aria-invalid", "true")
    expect_url(page, "kv_heads=4")
    kv.fill("2")
    kv.press("Enter")
    expect_url(page, "kv_heads=2")
    expect(kv).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#input-errors")).to_have_text("")
    set_heads(page, 5)  # 5 has no divisor 2: the five heads share one
    expect(kv).to_have_value("1")
    heads = page.get_by_role("spinbutton", name="Heads", exact=True)
    heads.fill("1")
    heads.press("Enter")
    expect(kv).to_be_hidden()


def test_the_window_and_its_sinks(page, server, console):
    sent = Sent(page)
    loaded(page, server.url)
    window = beyond(page).get_by_role("textbox", name="Window", exact=True)
    sinks = page.get_by_role("textbox", name="Sinks", exact=True)
    expect(window).to_have_attribute("placeholder", "none")
    expect(sinks).to_be_hidden()
    window.fill("2")
    body = sent.last(page, lambda b: b.get("window") == 2, "the window")
    assert "sinks" not in body
    wait_settled(page)
    near = np.abs(np.arange(3)[:, None] - np.arange(3)[None, :]) < 2
    assert heatmap(page) == np.round(weights(X @ CAT["W_Q"], X @ CAT["W_K"], near), 3).tolist()
    expect(page.locator("table.grid td.masked")).to_have_count(2)
    sinks.fill("1")
    body = sent.last(page, lambda b: b.get("sinks") == 1, "a sink")
    expect_url(page, "&window=2&sinks=1&")
    wait_settled(page)
    readable = near | (np.arange(3)[None, :] < 1)  # key 0 is readable from every query
    assert heatmap(page) == np.round(weights(X @ CAT["W_Q"], X @ CAT["W_K"], readable), 3).tolist()
    page.reload()
    wait_settled(page)
    expect(window).to_have_value("2")
    expect(sinks).to_have_value("1")
    window.fill("0")
    marked(page, window, "Window", "window must be a whole number from 1 to 1,000,000 (query i"
           " reads key j only when |i − j| < window), got 0")
    expect(window).to_have_value("0")
    window.fill("two")
    marked(page, window, "Window", "“two” is not a number.")
    window.fill("2")
    sinks.fill("")
    marked(page, sinks, "Sinks", "Type a number here.")
    window.fill("")  # no window: the sinks go with it
    expect(sinks).to_be_hidden()
    body = sent.last(page, lambda b: "window" not in b, "no window")
    assert "sinks" not in body
    expect(page.locator("table.grid td.masked")).to_have_count(0)
    without_422s(console)


@pytest.mark.parametrize("width", [1280, 390])
def test_axe_finds_nothing_with_every_new_control_on(browser, console, server, width):
    page = open_page(browser, console, width=width)
    # Two heads sharing one key/value head (four heads' Concat, 8 numbers wide, overflows its
    # box in the results, which axe counts against the results, not these controls).
    loaded(page, server.url + "#positional=alibi&window=2&sinks=1")
    set_heads(page, 2)
    page.get_by_role("button", name="Decrease key/value heads").click()
    page.get_by_role("checkbox", name="Biases").check()
    page.get_by_role("checkbox", name="Paper's slopes").uncheck()
    # Marked, with its message.
    page.get_by_role("textbox", name="ALiBi slope head 2", exact=True).fill("steep")
    kv = page.get_by_role("textbox", name="Key/value heads", exact=True)
    kv.fill("3")
    kv.press("Enter")
    expect(kv).to_have_attribute("aria-invalid", "true")
    expect(cell(page, "b_Q head 2 column 1")).to_have_value("0")
    expect(cell(page, "b_K column 1")).to_have_value("0")
    expect(page.locator("#stale-note")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "never sideways"
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    # With RoPE, θ and the offset are there to check too.
    page.get_by_role("combobox", name="Positions").select_option("rope")
    expect(page.get_by_role("textbox", name="RoPE base θ")).to_be_visible()
    wait_settled(page)
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


def test_every_example_loads_and_sends_its_own_request(page, server):
    sent = Sent(page)
    loaded(page, server.url)
    presets = page.request.get(server.url + "api/presets").json()["presets"]
    example = page.get_by_role("combobox", name="Example")
    for k, preset in enumerate(presets[1:], start=1):
        want = preset["request"]
        example.select_option(str(k))
        def its_own(b, want=want):
            return all(b.get(key) == want.get(key) for key in ("tokens", "X", "heads"))
        body = sent.last(page, its_own, preset["name"])
        asked = {key: v for key, v in body.items() if key not in ("fields", "encoding", "row")}
        assert asked == want, preset["name"]
        wait_settled(page)
        expect(example).to_have_value(str(k))  # the page knows it for the example, not "(edited)"
    page.reload()
    wait_settled(page)
    expect(example).to_have_value(str(len(presets) - 1))
    expect(page.get_by_role("textbox", name="Window", exact=True)).to_have_value("3")


def test_the_servers_marks_land_on_bias_and_key_value_head_cells(page, server, console):
    loaded(page, server.url)
    beyond(page).get_by_role("checkbox", name="Biases").check()
    b_Q, b_K = cell(page, "b_Q column 1"), cell(page, "b_K column 1")
    b_Q.fill("1e300")
    b_K.fill("1e300")  # q·k overflows; the server blames the largest number, b_Q's ("b_Q[0]")
    marked(page, b_Q, "b_Q column 1", "Q·Kᵀ is too large for float64: the score of query 1 for key"
           " 1 comes out beyond ±1.8e308, the largest number a float64 can hold. The largest number"
           " it is built from is b_Q column 1 (1e+300); make it smaller.")
    expect(b_Q).to_have_value("1e300")
    b_Q.fill("0")
    b_K.fill("0")
    set_heads(page, 4)
    page.get_by_role("button", name="Decrease key/value heads").click()
    w_k = cell(page, "W_K key/value head 2 row 1 column 1")
    w_k.fill("1e300")
    cell(page, "W_Q head 3 row 1 column 1").fill("1e10")
    marked(page, w_k, "W_K key/value head 2 row 1 column 1", "Head 3 (reading key/value head 2):"
           " Q·Kᵀ is too large for float64: the score of query 1 for key 1 comes out beyond"
           " ±1.8e308, the largest number a float64 can hold. The largest number it is built from"
           " is W_K key/value head 2 row 1 column 1 (1e+300); make it smaller.")
    without_422s(console)


def test_rotary_positions_with_an_odd_d_k_mark_the_positions_choice(page, server, console):
    loaded(page, server.url + "#positional=rope")
    page.get_by_role("button", name="Decrease d_k").click()
    positions = page.get_by_role("combobox", name="Positions", exact=True)
    marked(page, positions, "Positions", "rotary positions turn the numbers of a query and a key"
           " in pairs, so d_k must be even; it is 1")
    page.get_by_role("button", name="Increase d_k").click()
    wait_settled(page)
    expect(positions).to_have_attribute("aria-invalid", "false")
    without_422s(console)


INPUTS_SAY = (
    "Each row of X is one token's embedding: dmodel numbers that stand for the token. WQ, WK "
    "and WV are what a transformer learns; here you choose them. A token's row x times each "
    "gives its query q = x·WQ, its key k = x·WK and its value v = x·WV, each a row of Q, K "
    "and V. Row d of WQ is what the token's d-th number adds to its query, in proportion to "
    "that number: q = x1·(row 1) + x2·(row 2) + …; the rows of WK and WV make its key and "
    "value the same way.")
BEYOND_SAYS = (
    "What goes beyond the textbook chapter. With “Sinusoidal” positions, each row of X first "
    "gets its position's encoding PE added, so the same word in another place is a different "
    "vector; “Rotary (RoPE)” turns each query and key by an angle that grows with its "
    "position instead, and “ALiBi” subtracts from each score a penalty that grows with the "
    "distance. With “Biases” on, each projection adds a row of numbers, bQ, bK, bV, to every "
    "token's. “Heads” runs several heads side by side, each with its own WQ, WK and WV; with "
    "fewer “Key/value heads” than heads, neighbouring heads share one WK and WV (grouped-query "
    "attention). A “Window” of w lets each query read only the keys fewer than w places away, "
    "and the first “Sinks” keys stay readable whatever the distance. With “Cross-attention” "
    "on, the keys and values come from a second sequence, Xkv. “Seed” is the number “Random” "
    "draws its numbers from; typing one draws that seed's numbers.")


def test_the_inputs_explain_the_chapter_and_the_group_what_goes_beyond(page, server):
    """The inputs' "What is this?" says what X, W_Q, W_K and W_V are and what a row of each
    means, and nothing beyond the chapter; that is said in the group's own."""
    loaded(page, server.url)
    inputs = page.locator(".block-inputs > details.explain")
    inputs.get_by_text("What is this?").click()
    expect(inputs.locator("p")).to_have_text(INPUTS_SAY)
    group = beyond(page).get_by_role("group", name="Beyond the basics")
    group.get_by_text("What is this?").click()
    expect(group.locator("details.explain p")).to_have_text(BEYOND_SAYS)
