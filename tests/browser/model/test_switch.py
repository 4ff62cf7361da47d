"""A head or row switch on the real-model view: the heatmap and the working show the
numbers of the head and row switched to (checked against numpy on the API's inputs); the
working's maths is typeset as it comes into view, with those numbers, and none of it off
screen before; nothing stale is said."""

from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.model.test_view import head_inputs, open_view, reference, settled, shown_weights
from tests.browser.model.test_working import vector

pytestmark = pytest.mark.browser

SENTENCE = "The cat sat on the mat"
LONG = "the cat sat on the mat " * 21  # 127 tokens: a canvas heatmap, keys written out by weight

# The working's maths spans: their TeX, whether typeset (and then the TeX KaTeX typeset, from
# its MathML annotation), and where each stands in the viewport (null: not laid out).
SPANS = """() => [...document.querySelectorAll('#working [data-tex]')].map((s) => {
  const a = s.querySelector('annotation');
  const laid = s.getClientRects().length > 0;
  return { tex: s.dataset.tex, typeset: Boolean(s.firstChild), set: a && a.textContent,
           top: laid ? s.getBoundingClientRect().top : null,
           folded: Boolean(s.closest('details:not([open])')) };
})"""


def spans(page):
    return page.evaluate(SPANS)


def dots_of(page):
    """The working's q_i·k_j values, by key (1-based), from its dot products' TeX."""
    out = {}
    for tex in page.locator('#working [data-step="dots"] li[data-j] .math').evaluate_all(
            "els => els.map((e) => e.dataset.tex)"):
        lhs, value = tex.split("=")[0], tex.split("=")[-1]
        j = int(lhs.split("k_{")[1].split("}")[0])
        out[j] = float(value.replace("\u2212", "-"))
    return out


def test_on_a_phone_a_head_switch_shows_its_numbers_and_typesets_its_working_in_view(
        browser, console, server):
    page = open_page(browser, console, width=390, height=844)
    open_view(page, server, f"#model=smollm2-135m&text={quote(SENTENCE)}&layer=1&head=3")
    page.wait_for_timeout(0)
    # The working stands under the heatmap, over a screen down: none of it is typeset yet.
    before = spans(page)
    assert before and all(s["top"] is None or s["top"] > 1.5 * 844 for s in before), before
    assert not any(s["typeset"] for s in before), before
    # Layer 3 head 8, clicked without scrolling (a keyboard's Enter does the same).
    page.get_by_role("gridcell", name="Layer 3 head 8", exact=True).dispatch_event("click")
    expect(page.locator("#h-head")).to_contain_text("Layer 3 head 8")
    settled(page)
    inputs = head_inputs(page, server, "smollm2-135m", SENTENCE, 2, 7)
    dots, weights = reference(inputs, causal=True)
    n = len(inputs["tokens"])
    assert shown_weights(page) == pytest.approx(weights, abs=6e-4)
    expect(page.locator("#working-sym")).to_contain_text(f"query {n}, “␣mat”, layer 3 head 8")
    assert dots_of(page) == pytest.approx({j + 1: dots[n - 1, j] for j in range(n)}, abs=6e-4)
    assert not any(s["typeset"] for s in spans(page))
    # Scrolled to, it is typeset, each span with its own TeX: this head's numbers.
    page.locator("#working-block").scroll_into_view_if_needed()
    page.wait_for_function("""() => [...document.querySelectorAll('#working [data-tex]')]
      .every((s) => s.firstChild || s.closest('details:not([open])')
        || s.getBoundingClientRect().top > innerHeight)""")
    shown = [s for s in spans(page) if s["top"] is not None and 0 <= s["top"] < 844]
    assert len(shown) >= 5, shown
    assert all(s["typeset"] and s["set"] == s["tex"] for s in shown), shown
    expect(page.locator("#status")).to_have_text("")
    page.close()


def test_side_by_side_a_row_switch_paints_its_working_typeset_and_the_rest_as_it_comes(
        browser, console, server):
    page = open_page(browser, console, width=1280, height=600)
    open_view(page, server, f"#model=smollm2-135m&text={quote(LONG)}&layer=3&head=5&row=5")
    page.wait_for_function("() => document.querySelector('#working .katex')")
    # At the moment the view says it is done (aria-busy cleared), every span on screen is
    # typeset with the new row's TeX: no frame paints it blank, nor the last row's.
    page.evaluate("""() => { const page = document.getElementById('page');
      window.atDone = null;
      const seen = new MutationObserver(() => {
        if (page.getAttribute('aria-busy') !== 'false') return;
        seen.disconnect();
        window.atDone = { sym: document.getElementById('working-sym').textContent,
          blank: [...document.querySelectorAll('#working [data-tex]')].filter((s) => !s.firstChild
            && s.getClientRects().length && s.getBoundingClientRect().top < innerHeight).length };
      });
      seen.observe(page, { attributes: true }); }""")
    kept = {s["tex"] for s in spans(page) if s["typeset"]}
    page.locator('#heatmap [role="row"][data-i="40"]').dispatch_event("click")
    page.wait_for_function("() => window.atDone")
    done = page.evaluate("window.atDone")
    assert "query 41," in done["sym"] and done["blank"] == 0, done
    # Those within half a screen under it are typeset in the frames after, unscrolled.
    page.wait_for_function("""() => [...document.querySelectorAll('#working [data-tex]')]
      .filter((s) => s.getClientRects().length && s.getBoundingClientRect().top < 1.5 * innerHeight)
      .every((s) => s.firstChild)""")
    # The spans more than half a screen under it wait; scrolled to, they are typeset. (One
    # whose TeX the last row's working had typeset, a "+" of z's sum, is kept as it was:
    # morph.js leaves a span whose TeX is unchanged.)
    late = [s for s in spans(page) if s["top"] is not None and s["top"] > 1.5 * 600]
    assert late and any(not s["typeset"] for s in late), late
    assert all(s["tex"] in kept for s in late if s["typeset"]), late
    page.mouse.wheel(0, 1400)
    page.wait_for_function("""() => [...document.querySelectorAll('#working [data-tex]')]
      .every((s) => s.firstChild || !s.getClientRects().length
        || s.getBoundingClientRect().bottom < 0 || s.getBoundingClientRect().top > innerHeight)""")
    inputs = head_inputs(page, server, "smollm2-135m", LONG, 3, 5)
    z = page.locator('#working [data-step="output"] li').last.locator(".math")
    expect(z.locator(".katex")).to_be_attached()
    assert z.locator("annotation").text_content() == z.get_attribute("data-tex")
    _, weights = reference(inputs, causal=True)
    V = inputs["X"] @ inputs["W_V"]
    want = weights[40] @ V
    got = vector(z.get_attribute("data-tex"))
    assert got[:4] == pytest.approx(want[:4], abs=6e-4) and np.isclose(got[-1], want[-1], atol=6e-4)
    page.close()
