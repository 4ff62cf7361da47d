"""The blocks below the screen (near.js): an edit's answer paints the heatmap first and
draws the projections, the scores and the outputs off the screen after that frame, while
the results are still marked busy; once they are not, every block holds the new numbers,
for a reader, find-in-page, printing and the walk alike."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.editor.test_widget import numpy_attention
from tests.browser.helpers import cell, loaded, matrix, wait_settled

pytestmark = pytest.mark.browser

# The default example with X[0][0] typed as 2 (worked by hand): Q = X·W_Q, K = X·W_K,
# V = X·W_V and QKᵀ for X = [[2, 0], [0, 1], [1, 1]].
X = [[2, 0], [0, 1], [1, 1]]
W = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])
Q = [[2, 0], [1, 2], [2, 2]]
K = [[4, 0], [0, 1], [2, 1]]
V = [[2, 0], [0, 2], [1, 2]]
S = [[8, 0, 4], [4, 2, 4], [8, 2, 6]]

# Which blocks each batch of the page's changes touched, and whether the results were
# busy then, from the edit on.
WATCH = """() => {
  window.batches = [];
  const $ = (id) => document.getElementById(id);
  const hosts = ['heatmap', 'projections', 'scores', 'output'];
  const seen = new MutationObserver((records) => {
    const touched = hosts.filter((id) => records.some((r) => $(id).contains(r.target)));
    window.batches.push({ touched, busy: $('results').getAttribute('aria-busy') });
  });
  const all = { subtree: true, childList: true, characterData: true, attributes: true };
  for (const id of hosts) seen.observe($(id), all);
}"""


def below_the_screen(page, key):
    box = page.locator(f'figure[data-key="{key}"]').bounding_box()
    return box["y"] >= page.viewport_size["height"]


def test_blocks_below_the_screen_are_drawn_after_the_heatmap_while_busy(browser, console, server):
    page = open_page(browser, console, width=1280, height=800)
    loaded(page, server.url)
    for key in ("Q", "S", "Z"):
        assert below_the_screen(page, key), key
    page.evaluate(WATCH)
    cell(page, "X row 1 column 1").fill("2")
    wait_settled(page)
    batches = page.evaluate("window.batches")
    first = next(b for b in batches if "heatmap" in b["touched"])
    assert first["touched"] == ["heatmap"], "the new weights' frame draws nothing off the screen"
    late = [b for b in batches if set(b["touched"]) & {"projections", "scores", "output"}]
    assert late, "the blocks below the screen are drawn"
    assert all(b["busy"] == "true" for b in late), "the results are busy until they are"
    # Without scrolling: the page holds the new numbers below the screen too.
    assert matrix(page, "Q") == Q and matrix(page, "K") == K and matrix(page, "V") == V
    assert matrix(page, "S") == S
    A, Z = numpy_attention(X, **W)
    assert matrix(page, "Z") == [[round(v, 3) for v in row] for row in Z.tolist()]
    page.close()


def test_a_block_on_the_screen_is_drawn_with_the_heatmap(browser, console, server):
    page = open_page(browser, console, width=1280, height=800)
    loaded(page, server.url)
    page.locator("#projections").scroll_into_view_if_needed()
    expect(page.locator('figure[data-key="Q"]')).to_be_in_viewport()
    page.evaluate(WATCH)
    cell(page, "X row 1 column 1").fill("2")
    wait_settled(page)
    batches = page.evaluate("window.batches")
    first = next(b for b in batches if "heatmap" in b["touched"])
    assert "projections" in first["touched"], "what is on the screen changes in one frame"
    assert matrix(page, "Q") == Q
    page.close()


def test_printing_finds_every_block_drawn(browser, console, server):
    """A print starts from the page as it is: the blocks waiting to be drawn are drawn
    first (beforeprint), so the paper never holds the numbers of an earlier edit."""
    page = open_page(browser, console, width=1280, height=800)
    loaded(page, server.url)
    # Hold the work after the paint, so the blocks below the screen stay waiting.
    page.evaluate("""() => {
      window.held = [];
      window.requestAnimationFrame = (f) => { window.held.push(f); return 0; };
    }""")
    cell(page, "X row 1 column 1").fill("2")
    weights = page.get_by_role("grid", name="Attention weights", exact=True).locator("tbody tr")
    expect(weights.first.locator("td").first).to_have_text("0.941")
    assert matrix(page, "Q")[0] == [1, 0], "still waiting"
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    assert matrix(page, "Q") == Q and matrix(page, "S") == S
    page.close()


def test_the_walk_lights_its_step_in_a_block_redrawn_below_the_screen(browser, console, server):
    """A step lights q_i in Q; scrolled away, a token added rebuilds Q below the screen:
    the new Q is drawn before the walk lights it, so the light is on the new row."""
    page = open_page(browser, console, width=1280, height=800)
    loaded(page, server.url)
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    page.get_by_role("button", name="Next", exact=True).click()
    expect(panel).to_contain_text("Step 2 of 8")
    lit = page.locator('figure[data-key="Q"] tbody tr.walk-lit')
    expect(lit).to_have_count(1)
    # Scrolled by the wheel, as a person scrolls: until then the walk keeps placing its lit
    # parts in view whenever the page's height changes (walkroom.js).
    page.mouse.move(640, 400)
    page.mouse.wheel(0, -20000)
    page.wait_for_function("() => scrollY === 0")
    expect(page.locator('figure[data-key="Q"]')).not_to_be_in_viewport()
    page.get_by_role("button", name="Add token").click()
    wait_settled(page)
    expect(page.locator('figure[data-key="Q"] tbody tr')).to_have_count(4)
    expect(lit).to_have_count(1)
    page.close()
