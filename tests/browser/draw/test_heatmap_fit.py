"""The whole heatmap on the first screen: its picture (the table, or beyond 24 tokens the
canvas scaled to its box) and its colour bar inside the window's first screen and inside
their boxes, neither over the other, nothing scrolled sideways, at 1280 × 800, 1024 × 700
and 390 × 844, at 3, 8, 40, 64 and 512 tokens; with 4 heads and the fourth shown, its
heatmap beside its working. A canvas's caption says how many screen pixels a weight takes,
which the drawn picture is measured against. Every check is made with bounding boxes."""

import contextlib
import re

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import loaded

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1024, 700), (390, 844)]


def tokens(n):
    """A view of n tokens (2 numbers each, no two rows alike), its last row selected."""
    X = ";".join(f"{round((i % 7) / 7, 1):g},{round((i % 4) / 4, 2):g}" for i in range(n))
    return f"#tokens={'|'.join(f't{i + 1}' for i in range(n))}&X={X}&row={n - 1}"


EIGHT = "#tokens=the|cat|sat|on|a|warm|red|mat&X=1,0;0,1;1,1;2,0;0,2;1,-1;-1,1;2,1&row=7"
# Four heads, each its own W_Q, W_K, W_V, and the fourth (head=3, counted from 0) shown.
FOUR_HEADS = ("#heads=4&head=3&W_Q_2=0,1;1,0&W_K_2=1,0;0,1&W_V_2=1,0;0,1"
              "&W_Q_3=1,1;0,1&W_K_3=1,0;1,1&W_V_3=1,0;0,1&W_Q_4=0,1;1,1&W_K_4=1,1;1,0&W_V_4=1,0;0,1"
              "&W_O=" + ";".join(["1,0"] * 4 + ["0,1"] * 4))
VIEWS = {"3 tokens": "", "8 tokens": EIGHT, "40 tokens": tokens(40), "64 tokens": tokens(64),
         "512 tokens": tokens(512), "4 heads, the 4th shown": FOUR_HEADS,
         "4 heads of 40 tokens, the 4th shown": FOUR_HEADS + "&" + tokens(40)[1:]}

# What is wrong with the shown head's heatmap, in words ([] when nothing is), with the page
# at its top: its picture (a table's grid, or the canvas) and the colour bar must each be
# wholly in the window's first screen and in its own box, apart from each other; no box
# may scroll sideways, nor the page; a canvas's key labels stand over its columns.
PROBLEMS = """() => {
  const problems = [];
  const heatmap = document.querySelector('#heatmap');
  const shown = heatmap.querySelector(':scope > .shown') ?? heatmap.firstElementChild;
  const box = shown.querySelector('.heatmap');
  const picture = box.querySelector('canvas.map') ?? box.querySelector('table.grid');
  const bar = document.querySelector('#legend .bar');
  const rect = (n) => n.getBoundingClientRect();
  const px = Math.round;
  const str = (r) => `${px(r.left)}–${px(r.right)} × ${px(r.top)}–${px(r.bottom)}`;
  const inside = (r, o) => r.left >= o.left - 0.5 && r.right <= o.right + 0.5
    && r.top >= o.top - 0.5 && r.bottom <= o.bottom + 0.5;
  const screen = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  const parts = [['the picture', picture, box], ['the colour bar', bar, bar.closest('.legend')]];
  for (const [what, node, owner] of parts) {
    const r = rect(node);
    if (!(r.width > 0 && r.height > 0)) problems.push(`${what} is not drawn`);
    if (!inside(r, screen)) {
      problems.push(`${what} ${str(r)} is off the first screen ${innerWidth} × ${innerHeight}`);
    }
    if (!inside(r, rect(owner))) {
      problems.push(`${what} ${str(r)} is outside its box ${str(rect(owner))}`);
    }
  }
  const [p, b] = [rect(picture), rect(bar)];
  if (p.left < b.right && b.left < p.right && p.top < b.bottom && b.top < p.bottom) {
    problems.push(`the colour bar ${str(b)} is over the picture ${str(p)}`);
  }
  if (document.scrollingElement.scrollWidth > innerWidth) {
    problems.push(`the page scrolls sideways: ${document.scrollingElement.scrollWidth}`);
  }
  for (const n of document.querySelectorAll('#heatmap, #heatmap .heatmap')) {
    if (n.scrollWidth > n.clientWidth + 1) {
      problems.push(`a heatmap's box scrolls sideways: ${n.scrollWidth} in ${n.clientWidth}`);
    }
  }
  for (const label of box.querySelectorAll('.axis-keys span:not([hidden])')) {
    const l = rect(label);
    const centre = (l.left + l.right) / 2;
    if (centre < p.left || centre > p.right) {
      problems.push(`key label “${label.textContent}” at ${px(centre)} is off the map`);
    }
  }
  return problems;
}"""


def problems_once_fitted(page):
    """PROBLEMS, once the view has had its frames to fit (or has not fitted in 5 s)."""
    page.evaluate("scrollTo(0, 0)")
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({PROBLEMS})().length === 0", timeout=5_000)
    return page.evaluate(PROBLEMS)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_the_shown_heatmap_and_its_colour_bar_are_whole_on_the_first_screen(
        browser, console, server, size, view):
    page = open_page(browser, console, *size)
    loaded(page, server.url + VIEWS[view])
    assert problems_once_fitted(page) == [], (size, view)
    page.close()


# The shown head's picture and the working's table side by side: the working right of the
# picture, their heights overlapping, both starting on the first screen.
BESIDE = """() => {
  const shown = document.querySelector('#heatmap > .shown :is(canvas.map, table.grid)');
  const picture = shown.getBoundingClientRect();
  const working = document.querySelector('#working').getBoundingClientRect();
  return {right: picture.right, workingLeft: working.left, pictureTop: picture.top,
          pictureBottom: picture.bottom, workingTop: working.top};
}"""


@pytest.mark.parametrize("view", ["4 heads, the 4th shown", "4 heads of 40 tokens, the 4th shown"])
@pytest.mark.parametrize("size", SIZES[:2], ids=str)
def test_with_4_heads_the_shown_heads_heatmap_stands_beside_its_working(
        browser, console, server, size, view):
    page = open_page(browser, console, *size)
    loaded(page, server.url + VIEWS[view])
    expect(page.locator("#working-sym")).to_contain_text("head 4")
    expect(page.locator("#heatmap > .shown")).to_have_attribute("data-head", "3")
    expect(page.locator("#heatmap > .shown .head-caption")).to_have_text(
        "Head 4 — shown in the other blocks")
    assert problems_once_fitted(page) == [], (size, view)
    at = page.evaluate(BESIDE)
    assert at["right"] <= at["workingLeft"], at
    assert at["pictureTop"] < size[1] and at["workingTop"] < at["pictureBottom"], at
    page.close()


CAPTION = re.compile(r"query ↓ \((\d+) tokens\), key → \((\d+)\) — each weight "
                     r"(\d+\.\d+) × (\d+\.\d+) screen pixels"
                     r"(: fewer pixels than weights, so not every weight is drawn)?")


@pytest.mark.parametrize("n", [40, 64, 512])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_a_canvas_caption_says_the_screen_pixels_a_weight_takes(browser, console, server, size, n):
    page = open_page(browser, console, *size)
    loaded(page, server.url + tokens(n))
    problems_once_fitted(page)
    caption = page.locator("#heatmap .map-scale")
    expect(caption).to_have_text(CAPTION)
    drawn = page.locator("#heatmap canvas.map").bounding_box()
    dpr = page.evaluate("devicePixelRatio")
    across, down = drawn["width"] * dpr / n, drawn["height"] * dpr / n
    said = CAPTION.fullmatch(caption.inner_text())
    assert said.group(1, 2) == (str(n), str(n))
    # Said to 1 decimal from 1 pixel up, to 2 below: within half its last digit.
    for value, text in ((across, said.group(3)), (down, said.group(4))):
        assert abs(float(text) - value) <= (0.005 if value < 1 else 0.05) + 1e-9, (text, value)
        assert len(text.split(".")[1]) == (2 if value < 1 else 1), text
    assert (said.group(5) is not None) == (min(across, down) < 1), said.group(0)
    page.close()


def test_another_heads_tile_gives_a_weight_under_the_pointer_and_a_click_shows_that_head(
        browser, console, server):
    page = open_page(browser, console, 1280, 800)
    loaded(page, server.url + VIEWS["4 heads, the 4th shown"])
    # Head 2: W_Q = [[0, 1], [1, 0]], W_K = W_V = I, X the first example's.
    X = np.array([[1, 0], [0, 1], [1, 1]])
    s = (X @ np.array([[0, 1], [1, 0]])) @ X.T / np.sqrt(2)
    A = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    tile = page.locator('[data-head="1"]')
    cell = tile.locator('td[data-i="1"][data-j="0"]')
    size = cell.bounding_box()
    assert size["width"] < 20 and size["height"] < 20, size  # a tile: colours alone
    cell.hover()
    number = cell.locator(".v")
    expect(number).to_have_text(f"{A[1, 0]:.3f}")
    shown = number.evaluate("v => { const r = v.getBoundingClientRect();"
                            " return [r.width, parseFloat(getComputedStyle(v).fontSize)]; }")
    assert shown[0] > size["width"] and shown[1] >= 12, shown
    cell.click()
    expect(page.locator("#working-sym")).to_have_text("— query 2, “cat”, head 2")
    expect(page.locator("#heatmap > .shown")).to_have_attribute("data-head", "1")
    page.close()
