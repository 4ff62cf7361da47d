"""Everything fits: the heatmap's columns, the working's table and the input matrices stand
in their boxes and in the window, with no box scrolled sideways, for every example, 2 and 4
heads, 8 tokens and d_model = d_k = 4, at 1280 × 800 and 1024 × 700, and 6 tokens on a
phone; a cell too narrow for its number keeps its colour and gives the number on hover and
focus. Every check is made with bounding boxes, in the window and in the boxes that clip
them."""

from urllib.parse import quote

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from attention_core import presets
from tests.browser.conftest import open_page
from tests.browser.helpers import SETTLE_MS, beyond, loaded, wait_settled

pytestmark = pytest.mark.browser

PRESETS = [p["name"] for p in presets()]
SIZES = [(1280, 800), (1024, 700)]

# The frames after an answer is drawn, in which the heatmap learns its cells' width.
FRAMES = ("() => new Promise((done) => requestAnimationFrame(() =>"
          " requestAnimationFrame(() => requestAnimationFrame(done))))")

# What does not fit, in words, or [] when everything does. A part is cut when its box
# is not wholly inside every box that clips it (a scroll box) or not wholly across the
# window; a box scrolls sideways when its content is wider than it. The legible size of
# a heatmap's number is 12 px: under it a cell must show no number at all (its colour).
FITS = """([parts, figure]) => {
  const problems = [];
  const clipped = (node) => {
    const r = node.getBoundingClientRect();
    let s = {left: r.left, right: r.right};
    for (let a = node.parentElement; a; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      s = {left: Math.max(s.left, c.left), right: Math.min(s.right, c.right)};
    }
    return {r, s};
  };
  const name = (n) => {
    const where = n.closest('figure')?.dataset.key ?? n.closest('[data-head]')?.dataset.head
      ?? n.closest('[data-step]')?.dataset.step ?? '';
    return `${n.tagName.toLowerCase()}${n.className ? '.' + n.className : ''} ${where}`.trim();
  };
  const whole = (what, selector) => {
    for (const n of document.querySelectorAll(selector)) {
      if (!n.getClientRects().length) continue;
      const {r, s} = clipped(n);
      if (r.left < s.left - 0.5 || r.right > s.right + 0.5) {
        problems.push(`${what} ${name(n)} is cut: ${Math.round(r.left)}–${Math.round(r.right)}`
          + ` shown ${Math.round(s.left)}–${Math.round(s.right)}`);
      } else if (r.left < -0.5 || r.right > innerWidth + 0.5) {
        problems.push(`${what} ${name(n)} is off the window:`
          + ` ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
  };
  const sideways = (selector) => {
    for (const n of document.querySelectorAll(selector)) {
      const st = getComputedStyle(n);
      const scrolls = st.overflowX === 'auto' || st.overflowX === 'scroll';
      if (scrolls && n.scrollWidth > n.clientWidth + 1) {
        problems.push(`${name(n)} scrolls sideways: ${n.scrollWidth} in ${n.clientWidth}`);
      }
    }
  };
  const doc = document.scrollingElement;
  if (doc.scrollWidth > innerWidth) problems.push(`the page scrolls sideways: ${doc.scrollWidth}`);
  if (parts.includes('heatmap')) {
    whole('heatmap column', '#heatmap table.grid thead th, #heatmap table.grid td');
    sideways('#heatmap, #heatmap .heatmap');
    // Every number in a heatmap's cell is whole and legible, or the cell shows none (the
    // cell under the pointer or the focus may show its number over its neighbours).
    for (const td of document.querySelectorAll('#heatmap table.grid td:not(:hover, :focus)')) {
      const n = window.__number(td);
      if (!n.drawn) continue;
      if (n.size < 12) {
        problems.push(`weight ${td.dataset.i},${td.dataset.j} is printed at ${n.size} px`);
      }
      const c = td.getBoundingClientRect();
      if (n.left < c.left - 0.5 || n.right > c.right + 0.5) {
        problems.push(`weight ${td.dataset.i},${td.dataset.j} “${n.text}” overflows its cell`);
      }
    }
  }
  if (parts.includes('working')) {
    whole("working's table", '#working table.softmax-table th, #working table.softmax-table td');
    sideways('#working, #working *');
  }
  if (parts.includes('inputs')) {
    whole('input', `#inputs figure[data-key="${figure}"] input`);
    sideways(`#inputs figure[data-key="${figure}"] .scroll`);
  }
  return problems;
}"""

# A heatmap cell's number as painted: its text (not the hidden words of a masked cell),
# its size and box, and whether it is drawn at all (a cell may show its colour alone).
NUMBER = """() => { window.__number = (td) => {
  const hidden = (t) => t.parentElement.closest('.visually-hidden');
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT, {acceptNode: (t) =>
    hidden(t) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const text = walker.nextNode();
  if (!text) return {drawn: false, text: ''};
  const range = document.createRange();
  range.selectNodeContents(text);
  const t = range.getBoundingClientRect();
  let painted = t.width > 1;
  for (let e = text.parentElement; e && painted; e = e === td ? null : e.parentElement) {
    const st = getComputedStyle(e);
    painted = st.visibility === 'visible' && st.opacity !== '0' && st.clipPath === 'none'
      && st.clip === 'auto' && !/^rgba[(].*,\\s*0[)]$/.test(st.color) && st.color !== 'transparent';
  }
  const size = parseFloat(getComputedStyle(text.parentElement).fontSize);
  return {drawn: painted && size > 0, size, left: t.left, right: t.right, top: t.top,
          bottom: t.bottom, text: text.data};
}; }"""

ALL = ["heatmap", "working", "inputs"]


def fits(page, parts=ALL):
    """FITS once the view is drawn (the editor's answer in) and its cells sized. The input
    matrices are measured one by one, each brought into view: off screen, the browser need
    not lay out another head's inputs (app.css, content-visibility)."""
    if "inputs" in parts:
        wait_settled(page)
    page.evaluate(FRAMES)
    page.evaluate(NUMBER)
    problems = page.evaluate(FITS, [[p for p in parts if p != "inputs"], None])
    if "inputs" in parts:
        for key in page.locator("#inputs figure").evaluate_all("fs => fs.map(f => f.dataset.key)"):
            page.locator(f'#inputs figure[data-key="{key}"]').scroll_into_view_if_needed()
            page.evaluate(FRAMES)
            problems += page.evaluate(FITS, [["inputs"], key])
        page.evaluate("scrollTo(0, 0)")
    return problems


def set_count(page, control, n):
    """Type ``n`` into a count (Tokens, Heads, d_model …) and wait for its answer."""
    control.fill(str(n))
    control.press("Enter")
    wait_settled(page)


def set_heads(page, heads):
    set_count(page, beyond(page).get_by_role("spinbutton", name="Heads", exact=True), heads)
    last = "Attention weights" + (f", head {heads}" if heads > 1 else "")
    expect(page.get_by_role("grid", name=last, exact=True)).to_have_count(1)
    wait_settled(page)


def open_preset(page, server, preset):
    loaded(page, server.url)
    page.get_by_label("Example").select_option(label=preset)
    wait_settled(page)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_every_example_fits_with_its_heads_and_with_2_and_4(browser, console, server, size, preset):
    page = open_page(browser, console, *size)
    for heads in (None, 2, 4):  # the example's own heads, then 2 and 4
        open_preset(page, server, preset)
        if heads:
            set_heads(page, heads)
        # The last row's working: with a causal mask, the row that reads every key.
        rows = page.locator('#heatmap [role="grid"]').first.locator("tbody tr")
        rows.last.locator("td").first.click()
        assert fits(page) == [], (size, preset, heads)
    page.close()


EIGHT = ("#tokens=the|cat|sat|on|a|warm|red|mat"
         "&X=1,0;0,1;1,1;2,0;0,2;1,-1;-1,1;2,1&row=7")


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_8_tokens_fit_with_1_2_and_4_heads(browser, console, server, size, heads):
    page = open_page(browser, console, *size)
    loaded(page, server.url + EIGHT)
    if heads > 1:
        set_heads(page, heads)
    assert fits(page) == [], (size, heads)
    # A longer label widens the labels' column, not the heatmap's box: its cells narrow,
    # and their numbers still fit, or give way to their colours.
    page.get_by_role("textbox", name="Token 1 label", exact=True).fill("the longest label")
    expect(page.get_by_role("rowheader").first).to_have_attribute("title", "the longest label")
    assert fits(page) == [], (size, heads, "a long label")
    page.close()


# Eight tokens whose keys' numbers have three decimals: the dot products of the working
# are long enough to fill its column at 1280 and at 1024.
LONG_DOTS = ("#tokens=the|cat|sat|on|the|mat|t7|t8&X=1,0;0,1;1,1;0,1.9;-0.8,0.8;-0.9,-1.1;"
             "-0.3,-0.2;-0.1,-1&row=2")

# Each dot product's key label against the first line of its equation: the label's
# middle must lie within that line's height, right of the line's start, and the label
# inside its line's box ([] when so).
DOTS = "#working [data-step='dots'] li"
LABELS_ON_THEIR_LINE = """() => [...document.querySelectorAll(""" + repr(DOTS) + """)]
  .filter((li) => li.querySelector(':scope > .key-label')).flatMap((li) => {
    const label = li.querySelector(':scope > .key-label').getBoundingClientRect();
    const first = li.querySelector('.katex-html > :first-child').getBoundingClientRect();
    const box = li.getBoundingClientRect();
    const middle = (label.top + label.bottom) / 2;
    const ok = middle > first.top && middle < first.bottom && label.left >= first.right
      && label.right <= box.right + 0.5;
    return ok ? [] : [`${li.querySelector(':scope > .key-label').textContent.trim()}: label at`
      + ` ${Math.round(label.left)},${Math.round(label.top)}, its line`
      + ` ${Math.round(first.top)}–${Math.round(first.bottom)}`];
  })"""


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_each_dot_products_key_label_stays_on_its_line(browser, console, server, size):
    """With 8 tokens the working's dot products fill its column: "mat", "t7" and "t8"
    fell to a line of their own under their equations, between the keys' lines. Each
    label stays beside its equation; a line too long wraps its result instead."""
    page = open_page(browser, console, *size)
    loaded(page, server.url + LONG_DOTS)
    expect(page.locator("#working-sym")).to_have_text("— query 3, “sat”")
    # Typeset: the working's maths is typeset as it nears the screen (texsight.js).
    page.wait_for_function(f"() => [...document.querySelectorAll({DOTS!r})]"
                           ".every((li) => li.querySelector('.katex-html > :first-child'))")
    page.evaluate(FRAMES)
    assert page.evaluate(LABELS_ON_THEIR_LINE) == [], size
    assert fits(page, ["working"]) == [], size
    page.close()


# Each dot product's result against its expression: the "=" before q_i·k_j, the term before
# it and the number after it stand on one line (a line too long breaks after a "+", and
# continues indented), and the key's label on the first ([] when so).
RESULTS_ON_THEIR_LINE = """() => [...document.querySelectorAll(""" + repr(DOTS) + """)]
  .filter((li) => li.querySelector(':scope > .key-label')).flatMap((li) => {
    const html = li.querySelector('.katex-html');
    const atoms = [...html.querySelectorAll('.mord, .mrel, .mbin, .mopen, .mclose, .minner')]
      .filter((n) => !n.querySelector('.mord, .mrel, .mbin, .mopen, .mclose, .minner'));
    const eq = atoms.findLastIndex((n) => n.classList.contains('mrel'));
    const line = (n) => { const r = n.getBoundingClientRect(); return [r.top, r.bottom]; };
    const [top, bottom] = line(atoms[eq]);
    const apart = [atoms[eq - 1], atoms.at(-1)].filter((n) => {
      const [t, b] = line(n);
      return (t + b) / 2 < top || (t + b) / 2 > bottom;
    });
    const first = line(html.firstElementChild);
    const wrapped = li.getBoundingClientRect().height > 1.8 * (first[1] - first[0]);
    const indent = wrapped && html.lastElementChild.getBoundingClientRect().left
      <= html.firstElementChild.getBoundingClientRect().left + 4;
    const text = html.textContent.replace(/\\s+/g, '');
    return [...(apart.length ? [`${text}: its result is not on the line of its "="`] : []),
      ...(indent ? [`${text}: its second line is not indented`] : [])];
  })"""


def dots_view(n, d_k):
    """n of LONG_DOTS' tokens (d_k = 2), or 8 with W_Q and W_K d_k wide (one decimal each),
    the last row selected."""
    tokens = ["the", "cat", "sat", "on", "the", "mat", "t7", "t8"][:n]
    X = ["1,0", "0,1", "1,1", "0,1.9", "-0.8,0.8", "-0.9,-1.1", "-0.3,-0.2", "-0.1,-1"][:n]
    view = f"#tokens={'|'.join(tokens)}&X={';'.join(X)}&row={n - 1}"
    if d_k == 2:
        return view
    rng = np.random.default_rng(d_k)
    W_Q, W_K = (";".join(",".join(f"{v:.1f}" for v in row) for row in rng.uniform(-2, 2, (2, d_k)))
                for _ in range(2))
    return f"{view}&W_Q={W_Q}&W_K={W_K}"


@pytest.mark.parametrize("size", [*SIZES, (390, 844)], ids=str)
def test_each_dot_products_result_stays_on_the_line_of_its_expression(
        browser, console, server, size):
    """At 8 tokens some results fell to a line of their own, "−5.800" under its sum. From 1
    to 8 tokens, and at 8 with d_k = 8 (every term) and 16 (shortened), each result stays
    beside its "=" and the term before it, and the label on its line."""
    page = open_page(browser, console, *size)
    for n, d_k in [*((n, 2) for n in range(1, 9)), (8, 8), (8, 16)]:
        loaded(page, server.url + dots_view(n, d_k))
        expect(page.locator("#working-sym")).to_contain_text(f"— query {n},")
        page.locator("#working").scroll_into_view_if_needed()
        page.wait_for_function(f"() => [...document.querySelectorAll({DOTS!r})]"
                               ".every((li) => li.querySelector('.katex-html'))")
        page.evaluate(FRAMES)
        assert page.evaluate(RESULTS_ON_THEIR_LINE) == [], (size, n, d_k)
        assert page.evaluate(LABELS_ON_THEIR_LINE) == [], (size, n, d_k)
        assert fits(page, ["working"]) == [], (size, n, d_k)
    page.close()


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_inputs_of_width_4_fit_with_1_2_and_4_heads(browser, console, server, size, heads):
    """X, W_Q, W_K, W_V with d_model = d_k = d_v = 4, their bias rows on (each as wide as
    its matrix, its name beside it), on ALiBi's example of four tokens."""
    page = open_page(browser, console, *size)
    open_preset(page, server, "ALiBi")
    for dim in ("d_model", "d_k", "d_v"):
        set_count(page, page.locator(f"#{dim}"), 4)
    page.get_by_role("checkbox", name="Biases").check()
    wait_settled(page)
    if heads > 1:
        set_heads(page, heads)
    assert page.locator('figure[data-key="X"] tbody tr').first.locator("input").count() == 4
    assert fits(page) == [], (size, heads)
    page.close()


@pytest.mark.parametrize("view", ["six", "window"])
def test_on_a_phone_6_tokens_show_all_6_columns(browser, console, server, view):
    page = open_page(browser, console, 390, 844)
    if view == "six":
        loaded(page, server.url + "#tokens=the|cat|sat|on|a|mat"
                                  "&X=1,0;0,1;1,1;2,0;0,2;1,-1&row=5")
    else:
        open_preset(page, server, "sliding window with a sink")
    grid = page.get_by_role("grid", name="Attention weights", exact=True)
    expect(grid.locator("tbody tr")).to_have_count(6)
    assert fits(page) == [], view
    page.close()


# Wide numbers for a phone: scores of ±20 make e^s of 7 × 10⁵ and 8 × 10⁻⁸, and their sum
# 1.080 × 10⁶ divides the weights (the table was 414 px in 350 at 6 tokens).
WIDE_X = ["-0.3,-0.3", "1.3,-0.4", "0.4,0.6", "-0.7,1.6", "1.2,-0.5", "-2,-1", "1.9,-2", "-1.6,1.8"]
WIDE_W = "&W_Q=1.8,-1.1;1.3,-1.8&W_K=-1.2,1.9;-0.6,-1.7&W_V=-1.5,1.2;0.7,-1.5"
TABLE_FITS = """() => { const t = document.querySelector('#working table.softmax-table');
  const box = t.closest('.table-scroll');
  return {table: t.getBoundingClientRect().width, box: box.clientWidth,
          working: document.querySelector('#working').clientWidth,
          page: document.scrollingElement.scrollWidth}; }"""


def test_on_a_phone_the_softmax_table_fits_its_box_from_1_to_8_tokens(browser, console, server):
    page = open_page(browser, console, 390, 844)
    for n in range(1, 9):
        tokens = ["the", "cat", "sat", "on", "a", "mat", "t7", "t8"][:n]
        loaded(page, f"{server.url}#tokens={'|'.join(tokens)}&X={';'.join(WIDE_X[:n])}"
                     f"{WIDE_W}&row={n - 1}")
        page.locator("#working").scroll_into_view_if_needed()
        page.wait_for_function("() => [...document.querySelectorAll('#working table.softmax-table"
                               " thead .math')].every((s) => s.querySelector('.katex'))")
        page.evaluate(FRAMES)
        width = page.evaluate(TABLE_FITS)
        assert width["table"] <= width["box"] + 0.5 and width["box"] <= width["working"], (n, width)
        assert width["page"] <= 390, (n, width)
        assert fits(page, ["working"]) == [], n
    page.close()


def numpy_weights(X, W_Q, W_K):
    """softmax(X·W_Q (X·W_K)ᵀ / √d_k), row by row, written here."""
    X, W_Q, W_K = (np.array(m, dtype=float) for m in (X, W_Q, W_K))
    s = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_K.shape[1])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# Twenty tokens of "the cat sat"'s W_Q and W_K: X's rows cycle through five vectors.
X20 = [[1, 0], [0, 1], [1, 1], [2, -1], [-1, 2]] * 4
T20 = [f"w{k + 1}" for k in range(20)]
TWENTY = (f"#tokens={'|'.join(T20)}&X={';'.join(','.join(map(str, r)) for r in X20)}&row=0")


CHIP = "td => window.__number(td)"


def drawn(chip):
    return chip["drawn"] and chip["size"] >= 12


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_20_tokens_show_every_column_in_colour_and_a_weight_on_hover_and_focus(
        browser, console, server, size):
    page = open_page(browser, console, *size)
    loaded(page, server.url + TWENTY)
    assert fits(page) == [], size
    grid = page.get_by_role("grid", name="Attention weights", exact=True)
    A = numpy_weights(X20, [[1, 0], [1, 2]], [[2, 0], [0, 1]])
    cell = grid.locator('td[data-i="4"][data-j="13"]')
    # Too narrow for its number: its colour alone, the number still its text for a
    # screen reader.
    chip = cell.evaluate(CHIP)
    assert not drawn(chip), chip
    assert cell.text_content() == f"{A[4, 13]:.3f}"
    colour = cell.evaluate("td => getComputedStyle(td).backgroundColor")
    assert colour not in ("", "rgba(0, 0, 0, 0)")
    # Hovered, it shows its number, legibly, whole in the window.
    cell.hover()
    chip = cell.evaluate(CHIP)
    assert drawn(chip) and chip["text"] == f"{A[4, 13]:.3f}", chip
    # Focused by the arrow keys, the next cell does; the one left shows none again.
    cell.click()
    page.keyboard.press("ArrowRight")
    page.mouse.move(0, 0)
    nxt = grid.locator('td[data-i="4"][data-j="14"]')
    expect(nxt).to_be_focused()
    assert drawn(nxt.evaluate(CHIP)) and nxt.evaluate(CHIP)["text"] == f"{A[4, 14]:.3f}"
    assert not drawn(cell.evaluate(CHIP))
    # The last column's number stays in the heatmap's box and the window.
    page.keyboard.press("End")
    last = grid.locator('td[data-i="4"][data-j="19"]')
    expect(last).to_be_focused()
    assert fits(page) == [], "with the last column's number shown"
    chip = last.evaluate(CHIP)
    assert drawn(chip) and chip["text"] == f"{A[4, 19]:.3f}", chip
    box = last.evaluate("td => td.closest('.heatmap').getBoundingClientRect().toJSON()")
    assert box["left"] <= chip["left"] and chip["right"] <= box["right"] <= size[0], (chip, box)
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


# A sentence of 21 of SmolLM2's tokens.
SENTENCE21 = ("The quick brown fox jumps over the lazy dog while the cat sat on the mat"
              " and slept all day.")


@pytest.mark.parametrize("size", [*SIZES, (390, 844)], ids=str)
def test_a_real_models_21_tokens_show_every_column(browser, console, server, size):
    page = open_page(browser, console, *size)
    page.goto(f"{server.url}model#model=smollm2-135m&text={quote(SENTENCE21)}")
    grid = page.locator('#heatmap [role="grid"]')
    expect(grid).to_be_visible(timeout=SETTLE_MS)
    expect(page.locator("#page")).to_have_attribute("aria-busy", "false", timeout=SETTLE_MS)
    expect(grid.locator("thead th[role=columnheader]")).to_have_count(21)
    assert fits(page, ["heatmap"]) == [], size
    page.close()
