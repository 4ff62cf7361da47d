"""Nothing covered: the walk's bar over the page, the walk's button over the working's
heading in present mode, the scaling lab's lines outside their plot. Every check is made
with bounding boxes, in the viewport and in the box that scrolls them."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import loaded

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

# Every part the step lights inside the block it is about: the step scrolls to it, so all
# of it must be in sight above the bar. What it lights elsewhere (the working's line of a
# step about Q) may be out of the window, but never under the bar.
LIT_CLEAR = "() => {" + GEOMETRY + """
  const b = bar();
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((n) => n.getClientRects().length > 0);
  const lit = shown('.walk-block .walk-lit');
  if (!lit.length) return ['nothing lit in the step\\'s block'];
  const under = shown('.walk-lit').filter((n) => {
    const r = seen(n);
    return r.bottom > b.top + 0.5 && r.top < b.bottom - 0.5 && r.right > b.left && r.left < b.right;
  }).map((n) => ({what: 'lit under the bar', node: n.outerHTML.slice(0, 80), box: seen(n), bar: b}));
  return [...lit.map((n, k) => uncovered(n, b.top, `lit part ${k + 1}`)).filter(Boolean), ...under];
}"""

# Scrolled to its very end, the page's last words stand above the bar.
END_CLEAR = "() => {" + GEOMETRY + """
  scrollTo(0, document.scrollingElement.scrollHeight);
  const last = document.querySelector('.site-footer p');
  const problem = uncovered(last, bar().top, 'the footer');
  return problem ? [problem] : [];
}"""


# Eight tokens, the most the first screen is made for: a longer page and longer steps.
EIGHT = ("#tokens=the|cat|sat|on|a|warm|red|mat"
         "&X=1,0;0,1;1,1;2,0;0,2;1,-1;-1,1;2,1&row=7")


@pytest.mark.parametrize("view", ["", EIGHT], ids=["3 tokens", "8 tokens"])
@pytest.mark.parametrize("size", [(1280, 800), (1024, 700), (390, 844)], ids=str)
def test_the_walks_bar_covers_neither_what_a_step_lights_nor_the_pages_end(
        browser, console, server, size, view):
    page = open_page(browser, console, *size)
    loaded(page, server.url + view)
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    for k in range(8):
        expect(panel).to_contain_text(f"Step {k + 1} of 8")
        assert page.evaluate(LIT_CLEAR) == [], (size, k + 1)
        assert page.evaluate(END_CLEAR) == [], (size, k + 1)
        if k < 7:
            page.get_by_role("button", name="Next").click()
    page.context.close()
