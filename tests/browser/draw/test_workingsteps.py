"""draw/workingsteps.js: the working's steps (and the lessons) for biases, RoPE, ALiBi,
grouped-query heads, a sliding window and its sinks, in a real browser against the real
server, each checked against an independent numpy computation written here."""

import json
import re

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import MINUS, SETTLE_MS, loaded, number, wait_settled

pytestmark = pytest.mark.browser

X = [[1, 0], [0, 1], [1, 1]]
W_Q = [[1, 0], [1, 2]]
W_K = [[2, 0], [0, 1]]
W_V = [[1, 0], [0, 2]]
CAT = {"tokens": "the|cat|sat", "X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "row": 2}


def fragment(**parts):
    """A URL fragment in the page's URL keys: matrices as rows "1,0;0,1"."""
    def text(v):
        if isinstance(v, list):
            return ";".join(",".join(f"{x:g}" for x in row) for row in v)
        return str(v)
    return "#" + "&".join(f"{k}={text(v)}" for k, v in parts.items())


# ---- independent references ----

def rope(M, positions, base=10000.0):
    """Each pair (2c, 2c+1) of every row turned by position · base^(−2c/d), as complex numbers."""
    M = np.asarray(M, dtype=float)
    d = M.shape[1]
    angles = np.outer(positions, base ** (-np.arange(0, d, 2) / d))
    z = (M[:, 0::2] + 1j * M[:, 1::2]) * np.exp(1j * angles)
    out = np.empty_like(M)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def sinusoidal(n, d, offset):
    pos = offset + np.arange(n)[:, None]
    angle = pos / 10000 ** (np.arange(0, d, 2) / d)
    PE = np.empty((n, d))
    PE[:, 0::2], PE[:, 1::2] = np.sin(angle), np.cos(angle)
    return PE


def softmax(s):
    e = np.exp(s - s[np.isfinite(s)].max())
    return e / e.sum()


def printed(x):
    """A number as the page prints it: 3 decimals, a true minus, never −0.000."""
    text = f"{x:.3f}"
    return ("0.000" if text == "-0.000" else text).replace("-", MINUS)


def term(x):
    """A computed number as the working writes it in its maths: always 3 decimals."""
    return f"{x:.3f}".replace("-0.000", "0.000")


def vec(v):
    """A vector as the working writes it, KaTeX's spacing removed: "2,-0.500"."""
    return ",".join(map(term, v))


# ---- reading the page ----

def step_keys(page):
    steps = page.locator("#working section.working-step")
    return steps.evaluate_all("ss => ss.map(s => s.dataset.step)")


def step_text(page, key):
    """One step's typeset maths as text, KaTeX's spacing removed (helpers.working_text)."""
    step = page.locator(f'#working section[data-step="{key}"]')
    expect(step.locator(".katex-html").first).to_be_attached()
    text = "".join(step.locator(".katex-html").all_inner_texts())
    return re.sub(r"[\s\u200b]+", "", text).replace(MINUS, "-").replace("\u22c5", "·")


def lesson(page, kind):
    return page.locator(f'#lessons section.lesson[data-lesson="{kind}"]')


# An element's text as seen: KaTeX's MathML copy of each formula left out.
SHOWN = ("n => { const c = n.cloneNode(true);"
         " c.querySelectorAll('.katex-mathml').forEach(m => m.remove());"
         " return c.textContent.replace(/[\\s\\u200b]+/g, ' ').trim(); }")
CELLS = "cs => cs.map(c => [+c.dataset.i, +c.dataset.j])"  # cells as [i, j]


def shown(locator):
    return locator.evaluate(SHOWN)


def table_rows(table):
    """A table's body as seen, row by row: its heading, then its cells."""
    return table.locator("tbody tr").evaluate_all(
        f"rows => rows.map(r => [...r.cells].map({SHOWN}))")


def settled_lesson(page, kind):
    """The lesson once its comparisons have come (none reads "Computing…")."""
    node = lesson(page, kind)
    expect(node).to_be_visible()
    expect(node).not_to_contain_text("Computing the comparison", timeout=SETTLE_MS)
    expect(node).not_to_contain_text("could not be computed")
    return node


def posted(page):
    """Every POST /api/attention body the page sends from now on."""
    bodies = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data))
            if r.method == "POST" and r.url.endswith("/api/attention") else None)
    return bodies


# ---- RoPE ----

def test_rope_working_rotates_q_and_each_k_by_its_position(page, server):
    loaded(page, server.url + fragment(**CAT, positional="rope"))
    assert step_keys(page) == ["rope", "dots", "softmax", "output"]
    title = page.locator('#working section[data-step="rope"] h3').inner_text()
    assert title == "1 · Rotate qi and each kj by its position (RoPE, θ = 10000)"
    Q, K = np.array(X) @ W_Q, np.array(X) @ W_K
    q, Kr = rope(Q, [0, 1, 2])[2], rope(K, [0, 1, 2])
    text = step_text(page, "rope")
    # Query 3 at p = 2: the one pair (2, 2) turned by 2 radians.
    # ω is a rate (4 significant figures), p a position; α and the turn are computed.
    assert "αc=pωc=2·(1)=(2.000)" in text
    assert f"cos2.000={term(np.cos(2))},sin2.000={term(np.sin(2))}" in text
    assert f"(2.000,2.000)↦(2.000·({term(np.cos(2))})-2.000·{term(np.sin(2))}," in text
    assert f"q3=({term(q[0])},{term(q[1])})" in text
    for j in range(3):
        assert f"k{j + 1}:p={j},α=({term(j)}),({vec(K[j])})↦({vec(Kr[j])})" in text
    dots = step_text(page, "dots")
    for j in range(3):
        assert f"={term(q @ Kr[j])}" in dots


def test_rope_lesson_shifts_every_position_and_the_scores_stay(page, server):
    bodies = posted(page)
    loaded(page, server.url + fragment(**CAT, positional="rope"))
    node = settled_lesson(page, "rope")
    Q, K = np.array(X) @ W_Q, np.array(X) @ W_K
    [rope_table, sin_table] = [node.locator("table").nth(k) for k in range(2)]
    for row, offset in zip(table_rows(rope_table), (0, 1), strict=True):
        q, Kr = rope(Q, offset + np.arange(3))[2], rope(K, offset + np.arange(3))
        assert row == [f"offset {offset}", *map(printed, q), *map(printed, Kr @ q)]
    sin_rows = table_rows(sin_table)
    for row, offset in zip(sin_rows, (0, 1), strict=True):
        XP = np.array(X) + sinusoidal(3, 2, offset)
        q = (XP @ W_Q)[2]
        assert row == [f"offset {offset}", *map(printed, q), *map(printed, (XP @ W_K) @ q)]
    verdicts = node.locator("p.verdict").all_inner_texts()
    assert verdicts[0].startswith(
        "Shifting every position by 1 leaves all 3 scores the same to the last digit shown")
    assert sin_rows[0][3:] != sin_rows[1][3:]
    assert verdicts[1].startswith(
        "With sinusoidal positions the same shift changes the scores, by up to")
    # The side requests ask only the two fields the lesson shows.
    sides = [b for b in bodies if b.get("fields") == ["working.q", "working.dots"]]
    asked = sorted((b["positional"], b["position_offset"]) for b in sides)
    assert asked == [("rope", 1), ("sinusoidal", 0), ("sinusoidal", 1)]


def test_rope_lesson_at_an_offset_compares_it_with_offset_0(page, server):
    loaded(page, server.url + fragment(**CAT, positional="rope", offset=5))
    note = page.locator('#working section[data-step="rope"] p.note')
    expect(note).to_contain_text("Positions count from the offset 5: query 3 stands at")
    node = settled_lesson(page, "rope")
    expect(node.locator("p").first).to_contain_text("Row 3 at offset 0 and 5 (this view is at 5)")
    rows = table_rows(node.locator("table").first)
    assert [r[0] for r in rows] == ["offset 0", "offset 5"]
    assert rows[0][3:] == rows[1][3:] and rows[0][1:3] != rows[1][1:3]


# ---- biases ----

BIASES = {"biases": 1, "b_Q": [[0.5, -1]], "b_K": [[0, 1]], "b_V": [[1, 0]]}


def biased(rope_on=False, b_K=(0, 1)):
    """Q, K, V of the biased example, rotated with RoPE, and the weights of query 3."""
    Q = np.array(X) @ W_Q + [0.5, -1]
    K = np.array(X) @ W_K + np.array(b_K)
    V = np.array(X) @ W_V + [1, 0]
    if rope_on:
        Q, K = rope(Q, range(3)), rope(K, range(3))
    return Q, K, V, softmax(K @ Q[2] / np.sqrt(2))


def test_bias_working_adds_b_q_b_k_and_b_v(page, server):
    loaded(page, server.url + fragment(**CAT, **BIASES))
    assert step_keys(page) == ["bias", "dots", "softmax", "output"]
    Q, K, V, _ = biased()
    text = step_text(page, "bias")
    # b_Q is typed, (0.5, −1): one of its entries needs decimals, so both have them.
    assert f"q3=x3WQ+bQ=(2.000,2.000)+(0.500,-1.000)=({vec(Q[2])})" in text
    XK, XV = np.array(X) @ W_K, np.array(X) @ W_V
    for j in range(3):
        assert f"k{j + 1}=x{j + 1}WK+bK=({vec(XK[j])})+(0,1)=({vec(K[j])})" in text
        assert f"v{j + 1}=x{j + 1}WV+bV=({vec(XV[j])})+(1,0)=({vec(V[j])})" in text


def test_bias_lesson_b_k_leaves_the_weights_identical(page, server):
    loaded(page, server.url + fragment(**CAT, **BIASES))
    node = settled_lesson(page, "bias")
    Q, K, V, a = biased()
    _, _, _, a_without = biased(b_K=(0, 0))
    qb = Q[2] @ [0, 1]
    assert re.sub(r"\s", "", shown(node.locator("p").first)).endswith(f"={printed(qb)}.")
    shift = table_rows(node.locator("table").nth(0))
    XK = np.array(X) @ W_K
    assert shift == [[str(j + 1), printed(Q[2] @ XK[j]), printed(qb), printed(Q[2] @ K[j])]
                     for j in range(3)]
    weights = table_rows(node.locator("table").nth(1))
    assert weights == [["with bK", *map(printed, a)], ["without bK", *map(printed, a_without)]]
    assert list(map(printed, a)) == list(map(printed, a_without))
    assert shown(node.locator("p.verdict")).startswith("Identical to every digit shown")
    texts = [shown(p) for p in node.locator("p").all()]
    b_Q = Q[2] - (np.array(X) @ W_Q)[2]
    adds = ", ".join(printed(b_Q @ k) for k in K)
    assert f"key j: ({adds}), not the same number for every key" in texts[2]
    z_plain = a @ (np.array(X) @ W_V)
    z_line = re.sub(r"\s", "", texts[3]).replace(MINUS, "-")  # maths, as KaTeX sets it
    assert z_line.endswith(f"=({vec(z_plain)})+(1,0)=({vec(a @ V)}).")  # b_V as typed


def test_bias_lesson_under_rope_says_what_its_numbers_show(page, server):
    loaded(page, server.url + fragment(**CAT, **BIASES, positional="rope"))
    assert step_keys(page) == ["bias", "rope", "dots", "softmax", "output"]
    node = settled_lesson(page, "bias")
    *_, a = biased(rope_on=True)
    *_, a_without = biased(rope_on=True, b_K=(0, 0))
    weights = table_rows(node.locator("table").first)
    assert weights == [["with bK", *map(printed, a)], ["without bK", *map(printed, a_without)]]
    same = list(map(printed, a)) == list(map(printed, a_without))
    verdict = shown(node.locator("p.verdict"))
    assert verdict.startswith("Identical") == same
    assert not same and verdict.startswith("They differ")


# ---- grouped-query heads ----

def test_grouped_query_heads_name_their_key_value_head_and_the_cache(page, server):
    loaded(page, server.url)
    page.select_option("#preset", label="grouped-query heads")
    wait_settled(page)
    assert step_keys(page)[0] == "kv-head"
    step = page.locator('#working section[data-step="kv-head"]')
    expect(step.locator("h3")).to_have_text("1 · Keys and values from key/value head 1 of 2")
    expect(step).to_contain_text("query heads 1 and 2 share it")
    page.locator('.heatmap-head[data-head="2"] td[data-i="2"][data-j="0"]').click()
    expect(page.locator("#working-sym")).to_contain_text("head 3")
    expect(step.locator("h3")).to_have_text("1 · Keys and values from key/value head 2 of 2")
    expect(step).to_contain_text("query heads 3 and 4 share it")
    node = lesson(page, "gqa")
    rows = table_rows(node.locator("table"))
    assert [r[0] for r in rows] == ["each query head its own", "shared"]
    counts = [re.sub(r"\s", "", r[2]) for r in rows]
    assert counts[0].endswith("=16") and counts[1].endswith("=8")
    expect(node.locator("p.verdict")).to_contain_text(
        "makes it 2 times smaller: for the 3 tokens here, 48 numbers become 24 in each layer. "
        "Here query heads 1 and 2 read key/value head 1; "
        "query heads 3 and 4 read key/value head 2.")


# ---- ALiBi ----

def test_alibi_working_and_lesson_nearer_keys_win(page, server):
    loaded(page, server.url)
    page.select_option("#preset", label="ALiBi")
    wait_settled(page)
    # The preset: 4 tokens, causal, W_Q = 0 (every score 0), slope 0.5; query 4 selected.
    header = page.locator("#working table.softmax-table thead th").all_inner_texts()
    assert len(header) == 7
    rows = page.locator("#working table.softmax-table tbody tr")
    distance = np.array([3, 2, 1, 0])
    a = softmax(-0.5 * distance)
    for j in range(4):
        cells = rows.nth(j).locator("td").all_inner_texts()
        bias = printed(-0.5 * distance[j])
        assert cells[:4] == ["0.000", "0.000", bias, bias]
        assert number(cells[5]) == float(printed(a[j]).replace(MINUS, "-"))
    node = settled_lesson(page, "alibi")
    got = table_rows(node.locator("table"))
    tokens = ["I", "like", "green", "tea"]
    want = [[f"{j + 1} {tokens[j]}", str(distance[j]), printed(-0.5 * distance[j]), "0.250",
             printed(a[j])] for j in (3, 2, 1, 0)]
    assert got == want
    expect(node.locator("p.verdict")).to_contain_text(
        "the keys at distances 0 to 1 gain weight and the keys at distances 2 to 3 lose it")


# ---- window and sinks ----

def test_window_and_sink_on_the_heatmap_the_working_and_the_lesson(page, server):
    loaded(page, server.url)
    page.select_option("#preset", label="sliding window with a sink")
    wait_settled(page)
    grid = page.get_by_role("grid", name="Attention weights", exact=True)
    # 6 tokens, causal, window 3, 1 sink: key 1's column is open from every query.
    expect(grid.locator('thead th[role="columnheader"]').first).to_have_text("the sink")
    open_cells = grid.locator("td.sink-open").evaluate_all(CELLS)
    assert open_cells == [[3, 0], [4, 0], [5, 0]]
    left = grid.locator("td.band-l").evaluate_all(CELLS)
    right = grid.locator("td.band-r").evaluate_all(CELLS)
    assert left == [[i, i - 2] for i in range(3, 6)]
    assert right == [[i, i + 2] for i in range(0, 3)]
    masked = grid.locator("td.masked").evaluate_all(CELLS)
    assert masked == [[i, j] for i in range(6) for j in range(6)
                      if j > i or (i - j >= 3 and j != 0)]
    described = grid.get_attribute("aria-describedby")
    assert page.locator(f"#{described}").text_content().startswith(
        "Sliding window of 3: query i reads the keys j with |i − j| < 3")
    reach = page.locator('#working section[data-step="reach"]')
    expect(reach.locator("h3")).to_have_text(
        "2 · Which keys query 6 may read — window w = 3, 1 sink")
    expect(reach).to_contain_text("Outside the window and not a sink, so masked: keys 2 and 3.")
    expect(reach).to_contain_text("So query 6 reads keys 1 and 4 to 6: 4 of 6.")
    expect(lesson(page, "window").locator("p.verdict")).to_have_text(
        "Of the 36 weights, 12 lie outside the band: 3 stay open because their keys are sinks, "
        "the other 9 are masked.")


def test_a_canvas_heatmap_outlines_the_band_and_the_sinks(page, server):
    n = 30
    rng = np.random.default_rng(3)
    Xn = rng.integers(-2, 3, size=(n, 2)).tolist()
    tokens = "|".join(f"w{k}" for k in range(n))
    loaded(page, server.url + fragment(tokens=tokens, X=Xn, W_Q=W_Q, W_K=W_K, W_V=W_V, causal=1,
                                       window=4, sinks=2, row=n - 1))
    host = page.locator('.heatmap[data-mode="canvas"]')
    # The band's left and right edges (each over a light halo).
    expect(host.locator("svg.band polyline.band-edge")).to_have_count(2)
    points = host.locator("svg.band polyline.band-edge").first.get_attribute("points").split()
    assert points[:2] == ["1,4", "1,5"]  # row 4's first key in the band is key 1 (0-based)
    rect = host.locator("svg.band rect.sink-cols")
    assert [rect.get_attribute(a) for a in ("x", "width", "height")] == ["0", "2", str(n)]
    described = host.locator('[role="grid"]').get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_contain_text("the 2 sinks, keys 1 “w0”, 2 “w1”")


# ---- a plain view asks for nothing more ----

def test_a_plain_view_shows_no_lesson_and_sends_no_side_request(page, server):
    bodies = posted(page)
    loaded(page, server.url + fragment(**CAT))
    page.locator('td[data-i="1"][data-j="0"]').click()
    wait_settled(page)
    expect(page.locator("#lessons-block")).to_be_hidden()
    assert step_keys(page) == ["dots", "softmax", "output"]
    assert bodies, "selecting the row asked for its working"
    sides = (["working.q", "working.dots"], ["working.weights"])
    assert all(b["fields"] not in sides for b in bodies)
    assert all("positional" not in b and "position_offset" not in b for b in bodies)


@pytest.mark.parametrize("width", [1280, 390])
def test_axe_finds_nothing_in_the_lessons_and_the_new_steps(browser, console, server, width):
    page = open_page(browser, console, width=width)
    for view in (fragment(**CAT, **BIASES, positional="rope", window=2, sinks=1, causal=1),
                 fragment(**CAT, positional="alibi")):
        loaded(page, server.url + view)
        expect(page.locator("#lessons .lesson").first).to_be_visible()
        expect(page.locator("#lessons")).not_to_contain_text("Computing the comparison",
                                                             timeout=SETTLE_MS)
        wcag = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}}
        results = Axe().run(page, options=wcag)
        assert results.violations_count == 0, results.generate_report()
    page.close()
