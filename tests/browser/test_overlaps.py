"""Nothing covered: the walk's bar over the page, the walk's button over the working's
heading in present mode, the scaling lab's lines outside their plot. Every check is made
with bounding boxes, in the viewport and in the box that scrolls them."""

import json
import re
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from attention_core import presets
from tests.browser.conftest import open_page
from tests.browser.helpers import beyond, loaded, wait_settled

pytestmark = pytest.mark.browser

# Boxes of the window, the walk's bar and a node's scroll boxes, shared by the checks.
GEOMETRY = """
const box = (r) => ({top: r.top, bottom: r.bottom, left: r.left, right: r.right});
const bar = () => box(document.querySelector('#walk-panel .walk').getBoundingClientRect());
/* A node's box cut by every ancestor that clips it (a scroll box), or null if nothing is left. */
const seen = (node) => {
  let r = box(node.getBoundingClientRect());
  for (let a = node.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const c = a.getBoundingClientRect();
    r = {top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom),
         left: Math.max(r.left, c.left), right: Math.min(r.right, c.right)};
  }
  return r;
};
/* What is wrong with node's box (its name and the numbers), or null: its whole height is
   in the window, above ``floor`` (the bar's top), and not cut by a scroll box; across, it
   is in sight (a row wider than its matrix's box scrolls sideways inside it). */
const uncovered = (node, floor, what) => {
  const r = box(node.getBoundingClientRect());
  const s = seen(node);
  const whole = Math.abs(s.top - r.top) < 1 && Math.abs(s.bottom - r.bottom) < 1;
  const ok = r.bottom > r.top && r.top >= -0.5 && r.bottom <= floor + 0.5 && whole
    && s.right > s.left && s.left < innerWidth && s.right > 0;
  return ok ? null : {what, box: r, seen: s, floor};
};
"""

# The part a step scrolls to, the first it lights in the block it is about, must be wholly
# in sight above the bar. Whatever else it lights (the working's line of a step about Q,
# the row of a fourth head's heatmap) may be past the window's top or bottom, where a
# scroll brings it, but never under the bar.
LIT_CLEAR = "() => {" + GEOMETRY + """
  const b = bar();
  const shown = (sel) => [...document.querySelectorAll(sel)]
    .filter((n) => n.getClientRects().length > 0);
  const first = shown('.walk-block .walk-lit')[0];
  if (!first) return ["nothing lit in the step's block"];
  const under = shown('.walk-lit').filter((n) => {
    const r = seen(n);
    return r.bottom > b.top + 0.5 && r.top < b.bottom - 0.5 && r.right > b.left && r.left < b.right;
  }).map((n) => ({what: 'lit under the bar', node: n.outerHTML.slice(0, 80), box: seen(n)}));
  return [uncovered(first, b.top, 'the part scrolled to'), ...under].filter(Boolean);
}"""

# Scrolled to its very end, the page's last words stand above the bar.
END_CLEAR = "() => {" + GEOMETRY + """
  scrollTo(0, document.scrollingElement.scrollHeight);
  const last = document.querySelector('.site-footer p');
  const problem = uncovered(last, bar().top, 'the footer');
  return problem ? [problem] : [];
}"""


# Every example the page offers (GET /api/presets lists the same: checked below).
PRESETS = [p["name"] for p in presets()]

# Eight tokens, the most the first screen is made for: a longer page and longer steps.
EIGHT = ("#tokens=the|cat|sat|on|a|warm|red|mat"
         "&X=1,0;0,1;1,1;2,0;0,2;1,-1;-1,1;2,1&row=7")


SIZES = [(1280, 800), (1024, 700), (390, 844)]


# The page has stopped moving: its height and scroll the same three frames running. A step
# may bring the working near the screen, which on a phone is typeset then (results.js), and
# blocks below laid out as they come into view; the walk places its parts again as they do.
STILL = """() => {
  const now = `${document.scrollingElement.scrollHeight} ${scrollY}`;
  const frames = window.__layout?.now === now ? window.__layout.frames + 1 : 0;
  window.__layout = {now, frames};
  return frames >= 2;
}"""


def walk_clear_of_the_bar(page, what):
    """Every step of the walk: what it lights and the page's end clear of the bar."""
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    for k in range(8):
        expect(panel).to_contain_text(f"Step {k + 1} of 8")
        page.wait_for_function(STILL, polling="raf")
        assert page.evaluate(LIT_CLEAR) == [], (what, k + 1)
        assert page.evaluate(END_CLEAR) == [], (what, k + 1)
        page.get_by_role("button", name="Finish" if k == 7 else "Next", exact=True).click()
    expect(panel).to_be_hidden()


@pytest.mark.parametrize("view", ["", EIGHT], ids=["3 tokens", "8 tokens"])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_the_walks_bar_covers_neither_what_a_step_lights_nor_the_pages_end(
        browser, console, server, size, view):
    page = open_page(browser, console, *size)
    loaded(page, server.url + view)
    walk_clear_of_the_bar(page, size)
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_the_walks_bar_covers_nothing_a_step_lights_in_any_preset(browser, console, server, size):
    # Four heads light a row of each heatmap, rotary positions a longer working beside it.
    page = open_page(browser, console, *size)
    for preset in PRESETS:
        loaded(page, server.url)
        page.get_by_label("Example").select_option(label=preset)
        wait_settled(page)
        walk_clear_of_the_bar(page, (size, preset))
    page.close()


# ---- present mode: a projector at 1280 × 720 ----

# Present mode fits its type to the window in the frame after the view changes size
# (presentfit.js): three frames on, it has.
FRAMES = ("() => new Promise((done) => requestAnimationFrame(() =>"
          " requestAnimationFrame(() => requestAnimationFrame(done))))")

# The blocks present mode shows, each a box that no other may enter: the masthead's title
# and "Exit present mode", the walk's bar, the headings (their words, not their lines'
# width), each head's heatmap, the legend, each row a query uses, "Walk me through it"
# and the working.
PRESENT_PARTS = """() => {
  const text = (n) => {
    const r = document.createRange();
    r.selectNodeContents(n);
    return r.getBoundingClientRect();
  };
  const shown = (n) => n && n.getClientRects().length > 0
    && getComputedStyle(n).visibility !== 'hidden';
  const parts = [];
  const add = (what, n, r) => {
    if (shown(n)) parts.push({what, r: r ?? n.getBoundingClientRect()});
  };
  const q = (s) => document.querySelector(s);
  add('the title', q('.masthead h1'), text(q('.masthead h1')));
  add('Exit present mode', q('#present'));
  add("the walk's bar", q('#walk-panel .walk'));
  add('the heading Weights', q('#h-weights'), text(q('#h-weights')));
  document.querySelectorAll('#heatmap .heatmap-head').forEach((n, k) => add(`heatmap ${k + 1}`, n));
  add('the legend', q('#legend'));
  document.querySelectorAll('#qkv figure').forEach((n) => add(`rows used ${n.dataset.key}`, n));
  add('the heading Working', q('#h-working'), text(q('#h-working')));
  add('Walk me through it', q('#walk'));
  add('the working', q('#working'));
  return parts.map(({what, r}) =>
    ({what, top: r.top, bottom: r.bottom, left: r.left, right: r.right}));
}"""

# The working's readable width: 28 em of its own type (560 px at present mode's 20 px),
# about 60 characters of prose, so that a dot product or the softmax table of eight keys
# takes one line each. Its type: never under 14 px (the fit's floor is 12 px).
READABLE_EM = 28
LEAST_TYPE_PX = 14

# What else must hold on a projector: no scroll either way, the working at its readable
# width and size, and no box of weights, rows or working scrolling sideways.
PRESENT_FITS = """([readable, least]) => {
  const problems = [];
  const doc = document.scrollingElement;
  if (doc.scrollHeight > innerHeight) problems.push(`it scrolls down: ${doc.scrollHeight} px`);
  if (doc.scrollWidth > innerWidth) problems.push(`it scrolls sideways: ${doc.scrollWidth} px`);
  const working = document.querySelector('#working');
  const em = parseFloat(getComputedStyle(working).fontSize);
  const width = working.getBoundingClientRect().width;
  if (width < readable * em) {
    problems.push(`the working is ${Math.round(width)} px wide, under ${readable} em of ${em} px`);
  }
  if (em < least) problems.push(`the working's type is ${em} px`);
  for (const n of document.querySelectorAll('#working *, #heatmap .heatmap, #qkv .scroll')) {
    const s = getComputedStyle(n);
    if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && n.scrollWidth > n.clientWidth + 1) {
      const what = `${n.tagName.toLowerCase()}.${n.className}`;
      problems.push(`${what} scrolls sideways: ${n.scrollWidth} in ${n.clientWidth}`);
    }
  }
  return problems;
}"""


def overlaps(parts):
    """The pairs of ``parts`` whose boxes share more than half a pixel each way."""
    return [(a["what"], b["what"]) for k, a in enumerate(parts) for b in parts[k + 1:]
            if min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5]


def outside(parts, size):
    """The parts not wholly inside the window of ``size``."""
    return [p["what"] for p in parts if p["top"] < -0.5 or p["left"] < -0.5
            or p["bottom"] > size["height"] + 0.5 or p["right"] > size["width"] + 0.5]


def present_parts(page):
    """PRESENT_PARTS once present mode's type is fitted."""
    page.evaluate(FRAMES)
    return page.evaluate(PRESENT_PARTS)


def present_problems(page):
    """What is covered, cut, too small or too narrow in present mode."""
    parts = present_parts(page)
    return ([f"{a} overlaps {b}" for a, b in overlaps(parts)]
            + [f"{w} is not wholly in the window" for w in outside(parts, page.viewport_size)]
            + page.evaluate(PRESENT_FITS, [READABLE_EM, LEAST_TYPE_PX]))


def start_present(page, server, preset, heads=None, tokens=None):
    """Open ``preset``, with ``heads`` heads and ``tokens`` tokens when given, and switch
    to present mode."""
    loaded(page, server.url)
    page.get_by_label("Example").select_option(label=preset)
    wait_settled(page)
    if tokens:
        count = page.get_by_label("Tokens", exact=True)
        count.fill(str(tokens))
        count.press("Enter")
        rows = page.get_by_role("grid", name="Attention weights").locator("tbody tr")
        expect(rows).to_have_count(tokens)
        wait_settled(page)
    if heads:
        count = beyond(page).get_by_role("spinbutton", name="Heads", exact=True)
        count.fill(str(heads))
        count.press("Enter")
        last = "Attention weights" + (f", head {heads}" if heads > 1 else "")
        expect(page.get_by_role("grid", name=last, exact=True)).to_have_count(1)
        wait_settled(page)
    page.get_by_role("button", name="Present").click()
    expect(page.locator("html")).to_have_class(re.compile(r"\bpresent\b"))
    wait_settled(page)


def test_the_presets_are_the_apis_and_the_pickers(page, server):
    with urlopen(server.url + "api/presets") as answer:
        assert answer.status == 200
        listed = [p["name"] for p in json.load(answer)["presets"]]
    assert listed == PRESETS and len(PRESETS) >= 8
    loaded(page, server.url)
    expect(page.get_by_label("Example").locator("option:not([disabled])")).to_have_text(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_in_present_mode_walk_me_through_it_leaves_the_working_heading_alone(
        browser, console, server, preset):
    page = open_page(browser, console, 1280, 720)
    for heads in (None, 2, 4):  # the preset's own heads, then 2 and 4
        start_present(page, server, preset, heads)
        parts = [p for p in present_parts(page)
                 if p["what"] in ("Walk me through it", "the heading Working")]
        assert len(parts) == 2, (preset, heads, parts)
        assert overlaps(parts) == [], (preset, heads, parts)
        assert outside(parts, page.viewport_size) == [], (preset, heads, parts)
    page.close()


def walk_checking(page, what):
    """Every step of the walk, checking present mode at each."""
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    for k in range(8):
        expect(panel).to_contain_text(f"Step {k + 1} of 8")
        assert present_problems(page) == [], (what, f"step {k + 1}")
        page.get_by_role("button", name="Finish" if k == 7 else "Next", exact=True).click()
    expect(panel).to_be_hidden()


@pytest.mark.parametrize("preset", PRESETS)
def test_present_mode_fits_every_preset_with_its_heads_and_with_2_and_4(
        browser, console, server, preset):
    page = open_page(browser, console, 1280, 720)
    for heads in (None, 2, 4):
        start_present(page, server, preset, heads)
        assert present_problems(page) == [], (preset, heads)
        walk_checking(page, (preset, heads))
    page.close()


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_present_mode_fits_8_tokens(browser, console, server, heads):
    page = open_page(browser, console, 1280, 720)
    start_present(page, server, PRESETS[0], heads, tokens=8)
    assert present_problems(page) == [], heads
    walk_checking(page, heads)
    page.close()


def test_the_first_example_is_presented_at_20_px(browser, console, server):
    page = open_page(browser, console, 1280, 720)
    start_present(page, server, PRESETS[0])
    assert present_problems(page) == []
    expect(page.locator("#working")).to_have_css("font-size", "20px")
    page.get_by_role("button", name="Exit present mode").click()
    expect(page.locator("html")).not_to_have_class(re.compile(r"\bpresent\b"))
    expect(page.locator("html")).not_to_have_attribute("style", re.compile("present-size"))
    page.close()


# Each lit figure's name and brackets against the walk's ring: the ring's inner edge is
# the figure's box less an inset shadow's spread, or, for an outline, the box grown by
# the outline's offset. What touches it, in words.
RING_CLEAR = """() => [...document.querySelectorAll('figure.walk-lit')].flatMap((fig) => {
  const st = getComputedStyle(fig);
  const shadow = /inset/.test(st.boxShadow)
    ? Math.max(0, ...[...st.boxShadow.matchAll(/(-?[\\d.]+)px/g)].map((m) => +m[1])) : 0;
  const inset = shadow || (st.outlineStyle === 'none' ? 0 : -parseFloat(st.outlineOffset));
  const r = fig.getBoundingClientRect();
  const inner = {left: r.left + inset, right: r.right - inset, top: r.top + inset,
                 bottom: r.bottom - inset};
  return [...fig.querySelectorAll('.name, .brackets')].flatMap((part) => {
    const p = part.getBoundingClientRect();
    const gaps = [p.left - inner.left, inner.right - p.right, p.top - inner.top,
                  inner.bottom - p.bottom];
    return Math.min(...gaps) >= 2 ? [] : [`${fig.dataset.key} ${part.className}: gaps`
      + ` ${gaps.map(Math.round).join(', ')}`];
  });
})"""


def test_in_present_mode_the_walks_ring_leaves_x_and_q_clear(browser, console, server):
    """Steps 1 and 2 ring x_i and q_i under the heatmap: the ring, drawn inside the
    figure, ran over the first letter of its name and the matrix's closing bracket."""
    page = open_page(browser, console, 1280, 720)
    start_present(page, server, PRESETS[0])
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    for k, key in enumerate(["qx", "qq"]):
        expect(panel).to_contain_text(f"Step {k + 1} of 8")
        expect(page.locator(f'figure[data-key="{key}"]')).to_have_class(re.compile("walk-lit"))
        assert page.evaluate(RING_CLEAR) == [], f"step {k + 1}"
        page.get_by_role("button", name="Next", exact=True).click()
    page.close()
