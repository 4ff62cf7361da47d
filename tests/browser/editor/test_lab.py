"""The scaling lab in a real browser: the slider, the plots, the sampling demo, the row readout."""

import math
import re
from itertools import pairwise

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import loaded, wait_settled

pytestmark = pytest.mark.browser


def sigma(x):
    return 1 / (1 + math.exp(-x))


def winner(d_k):
    """The readout at d_k, computed here: σ(√d_k) unscaled (4 decimals), σ(1) scaled (3)."""
    return f"without scaling {sigma(math.sqrt(d_k)):.4f}, with scaling {sigma(1):.3f}"


def softmax_row(scores):
    """Entropy and softmax-Jacobian size of one row of scaled scores, in plain numpy."""
    s = np.asarray(scores, dtype=float)
    a = np.exp(s - s.max())
    a /= a.sum()
    return -(a * np.log(a)).sum(), np.linalg.norm(np.diag(a) - np.outer(a, a))


def lab(page):
    return page.locator("#lab-panel")


def test_the_slider_by_keyboard_gives_the_worked_values(page, server):
    loaded(page, server.url)
    slider = page.get_by_role("slider", name="d_k for the scaling lab")
    readout = lab(page).locator(".lab-winner")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 64")
    expect(readout).to_have_text("without scaling 0.9997, with scaling 0.731")
    assert winner(64) == "without scaling 0.9997, with scaling 0.731"
    slider.focus()
    page.keyboard.press("Home")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 1")
    expect(readout).to_have_text(winner(1))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 4")
    # 0.881 to 3 decimals
    expect(readout).to_have_text("without scaling 0.8808, with scaling 0.731")
    assert round(sigma(2), 3) == 0.881
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 64")
    expect(readout).to_have_text("without scaling 0.9997, with scaling 0.731")
    page.keyboard.press("End")
    expect(slider).to_have_attribute("aria-valuetext", "d_k = 1024")
    expect(slider).to_have_value("10")
    expect(readout).to_have_text("without scaling 1.0000, with scaling 0.731")
    # The marks on the plot follow: both sit on the cursor's x.
    xs = page.evaluate("""() => [...document.querySelectorAll('#lab-panel .mark')]
        .map(c => c.getAttribute('cx'))
        .concat(document.querySelector('#lab-panel .cursor').getAttribute('x1'))""")
    assert len(set(xs)) == 1
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "focus is visible"


def test_the_plot_is_an_image_with_a_summary(page, server):
    loaded(page, server.url)
    plot = lab(page).get_by_role("img", name=re.compile("^Winner's weight against d_k"))
    expect(plot).to_have_attribute("aria-label", "Winner's weight against d_k: without scaling it "
                                   "rises from 0.731 to 1.000; with scaling it stays at 0.731")
    eleven_points = re.compile(r"^(\S+ ){10}\S+$")
    expect(plot.locator("polyline.unscaled")).to_have_attribute("points", eleven_points)
    for text in ("without scaling", "with scaling", "winner's weight", "(log scale)"):
        expect(plot).to_contain_text(text)


def test_sampling_with_the_defaults_measures_about_d_k_and_about_1(page, server):
    loaded(page, server.url)
    expect(lab(page).get_by_label("Samples")).to_have_value("10000")
    expect(lab(page).get_by_label("Seed")).to_have_value("0")
    lab(page).get_by_role("button", name="Sample").click()
    rows = lab(page).locator("table tbody tr")
    expect(rows).to_have_count(5)
    expect(lab(page).locator("figcaption").nth(1)).to_contain_text("10000 samples, seed 0")
    table = [[float(t) for t in rows.nth(k).locator("th, td").all_inner_texts()] for k in range(5)]
    assert [r[0] for r in table] == [1, 4, 16, 64, 256]
    for d_k, raw, scaled in table:
        assert abs(raw / d_k - 1) < 0.10, (d_k, raw)
        assert abs(scaled - 1) < 0.10, (d_k, scaled)
    for text in rows.locator("td").all_inner_texts():
        assert re.fullmatch(r"\d+\.\d{3}", text), text
    plot = lab(page).get_by_role("img", name=re.compile("^Measured variance against d_k"))
    expect(plot.locator(".measured circle.dot")).to_have_count(5)
    expect(lab(page)).to_contain_text("brings it back to 1")


def test_a_bad_samples_value_shows_the_apis_message(page, server, console):
    loaded(page, server.url)
    try:
        bad_samples_then_too_many(page)
    finally:
        # Chrome logs every 4xx answer as a console error; these 422s are the expected ones.
        console[:] = [m for m in console if "status of 422" not in m[1]]


def bad_samples_then_too_many(page):
    samples = lab(page).get_by_label("Samples")
    samples.fill("abc")
    samples.press("Enter")  # Enter submits, as the button does
    message = 'samples must be a whole number from 100 to 100000, got "abc"'
    expect(lab(page).locator(".lab-msg")).to_have_text(message)
    expect(samples).to_have_attribute("aria-invalid", "true")
    expect(samples).to_have_accessible_description(re.compile(re.escape(message)))
    expect(lab(page).locator("table")).to_be_hidden()
    samples.fill("10000")
    seed = lab(page).get_by_label("Seed")
    seed.fill("-1")
    lab(page).get_by_role("button", name="Sample").click()
    expect(lab(page).locator(".lab-msg")).to_have_text(
        'seed must be a whole number from 0 to 4294967295, got "-1"')
    expect(seed).to_have_attribute("aria-invalid", "true")
    expect(samples).to_have_attribute("aria-invalid", "false")
    seed.fill("0")
    samples.fill("100000")  # capped at d_k = 64 and 256, and said so, rather than refused
    lab(page).get_by_role("button", name="Sample").click()
    expect(lab(page).locator("table tbody tr")).to_have_count(5)
    expect(samples).to_have_attribute("aria-invalid", "false")
    expect(lab(page).locator("figcaption").nth(1)).to_contain_text(
        "100000 samples (62500 at dk = 64, 15625 at dk = 256: samples × dk is at most "
        "4,000,000), seed 0")
    # d_k typeset, never raw
    expect(lab(page).locator("figcaption").nth(1).locator("sub")).to_have_count(4)


def test_the_row_readout_follows_the_selected_row(page, server):
    loaded(page, server.url)
    readout = lab(page).locator(".lab-row-text")
    H, J = softmax_row(np.array([4, 2, 6]) / np.sqrt(2))  # row 3 "sat" of the default example
    expect(readout).to_have_text(f"Query 3 “sat”: entropy {H:.3f} nats of at most "
                                 f"{math.log(3):.3f} (ln 3); softmax Jacobian size {J:.3f}")
    assert f"{J:.3f}" == "0.317"
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(1).get_by_role("gridcell").first.click()
    H1, J1 = softmax_row(np.array([2, 0, 2]) / np.sqrt(2))
    expect(readout).to_have_text(f"Query 1 “the”: entropy {H1:.3f} nats of at most 1.099 (ln 3);"
                                 f" softmax Jacobian size {J1:.3f}")
    wait_settled(page)
    expect(lab(page)).to_contain_text("the softmax Jacobian diag(a) − a aᵀ goes to 0")


def test_axe_finds_no_wcag_a_or_aa_violations_in_the_lab(page, server):
    loaded(page, server.url)
    lab(page).get_by_role("button", name="Sample").click()
    expect(lab(page).locator("table tbody tr")).to_have_count(5)
    results = Axe().run(page, context="#lab-panel",
                        options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()


def test_nothing_overflows_on_a_phone(browser, console, server):
    page = open_page(browser, console, width=390, height=844)
    loaded(page, server.url)
    lab(page).get_by_role("button", name="Sample").click()
    expect(lab(page).locator("table tbody tr")).to_have_count(5)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    right = page.evaluate("""() => Math.max(...[...document.querySelectorAll('#lab-panel *')]
        .map(e => e.getBoundingClientRect().right))""")
    assert right <= 390
    page.close()


def test_null_row_shows_a_prompt_without_flicker(own_page, server):
    page = own_page  # its clock is stopped below
    loaded(page, server.url)
    readout = lab(page).locator(".lab-row-text")
    expect(readout).to_contain_text("Query 3 “sat”")
    # The page passes null while a newly selected row is fetched: a row right after it
    # means the prompt never shows; null alone shows it. (The page's own module: its URL
    # carries the assets' version.) The page's clock is stopped and moved on by hand,
    # past the prompt's wait (lab.js), so nothing here depends on how fast the machine is.
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    page.evaluate("""async () => {
        const { updateLabRow } = await import(
            document.querySelector('link[rel=modulepreload][href$="/js/editor/lab/lab.js"]').href);
        const host = document.getElementById('lab-panel');
        window.__seen = [];
        new MutationObserver(
            () => window.__seen.push(host.querySelector('.lab-row-text').textContent))
          .observe(host, { subtree: true, childList: true, characterData: true });
        updateLabRow(host, null);
        updateLabRow(host, { row: 1, token: 'cat', weights: [0.5, 0.5], allowed: [true, true],
                             entropy: Math.log(2), jacobian_norm: 0.5 });
    }""")
    page.clock.run_for(1000)
    assert page.evaluate("window.__seen") == [
        "Query 2 “cat”: entropy 0.693 nats of at most 0.693 (ln 2); "
        "softmax Jacobian size 0.500"]
    page.evaluate("""async () => {
        const { updateLabRow } = await import(
            document.querySelector('link[rel=modulepreload][href$="/js/editor/lab/lab.js"]').href);
        updateLabRow(document.getElementById('lab-panel'), null);
    }""")
    page.clock.run_for(1000)
    expect(readout).to_have_text(
        "Select a row of the heatmap to see how spread out its weights are.")


# The variance plot's geometry in its own units (the viewBox): its plot area, the d_k it
# offers (its ticks), and for each plotted line where it may be drawn — its points
# widened by half its stroke on every side, cut by its clip region if it has one.
VARIANCE_GEOMETRY = """() => {
  const plot = document.querySelectorAll('#lab-panel svg.lab-plot')[1];
  const box = (b) => ({left: b.x, right: b.x + b.width, top: b.y, bottom: b.y + b.height});
  const area = box(plot.querySelector('rect.area').getBBox());
  const ticks = [...plot.querySelectorAll('line.axis')]
    .filter((l) => l.getAttribute('x1') === l.getAttribute('x2'))
    .map((l) => Number(l.getAttribute('x1')));
  const clipOf = (n) => {  // the box of the clip path's shape, on n or a group around it
    for (let a = n; a && a !== plot; a = a.parentNode) {
      const ref = a.getAttribute('clip-path');
      const path = ref && plot.querySelector(ref.slice(4, -1).replace(/"/g, ''));
      if (path) return box(path.firstElementChild.getBBox());
    }
    return null;
  };
  const lines = [...plot.querySelectorAll('polyline.expected, .measured polyline')].map((n) => {
    const pts = n.getAttribute('points').trim().split(/\\s+/).map((p) => p.split(',').map(Number));
    const half = parseFloat(getComputedStyle(n).strokeWidth) / 2;
    const [xs, ys] = [pts.map((p) => p[0]), pts.map((p) => p[1])];
    let ink = {left: Math.min(...xs) - half, right: Math.max(...xs) + half,
               top: Math.min(...ys) - half, bottom: Math.max(...ys) + half};
    const clip = clipOf(n);
    if (clip) ink = {left: Math.max(ink.left, clip.left), right: Math.min(ink.right, clip.right),
                     top: Math.max(ink.top, clip.top), bottom: Math.min(ink.bottom, clip.bottom)};
    return {cls: n.getAttribute('class'), pts, ink, clipped: clip !== null};
  });
  return {area, ticks, lines};
}"""


def y_at(points, x):
    """The polyline ``points`` at ``x`` (it runs left to right), or None beyond its ends."""
    for (x0, y0), (x1, y1) in pairwise(points):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def drawn_inside(geometry):
    """The lines whose ink leaves the plot area, and the offered d_k at which an expected
    line is missing or outside it."""
    a = geometry["area"]
    out = [line["cls"] for line in geometry["lines"]
           if line["ink"]["left"] < a["left"] or line["ink"]["right"] > a["right"]
           or line["ink"]["top"] < a["top"] or line["ink"]["bottom"] > a["bottom"]]
    for line in (g for g in geometry["lines"] if g["cls"] == "expected"):
        for x in geometry["ticks"]:
            y = y_at(line["pts"], x)
            if y is None or not a["top"] < y < a["bottom"]:
                out.append(f"expected at x = {x}")
    return out


def test_the_variance_plots_lines_stay_inside_its_plot_area(page, server):
    loaded(page, server.url)
    before = page.evaluate(VARIANCE_GEOMETRY)
    assert len(before["ticks"]) == 5 and len(before["lines"]) == 2  # d_k = 1 … 256; d_k and 1
    assert drawn_inside(before) == []
    lab(page).get_by_role("button", name="Sample").click()
    expect(lab(page).locator("table tbody tr")).to_have_count(5)
    after = page.evaluate(VARIANCE_GEOMETRY)
    assert len(after["lines"]) == 4  # and the measured Var(q·k), Var(q·k / √d_k)
    assert drawn_inside(after) == []
    # Every line is clipped to the plot area, so a measured value beyond the axes (a few
    # samples of a wide d_k) is cut at the box, never drawn over the ticks.
    assert all(line["clipped"] for line in after["lines"])
