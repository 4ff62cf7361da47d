"""The heatmap in a real browser: the linked highlight by arrow and by touch, and the canvas
heatmap's axis labels and read-out (by pointer, by arrow and by touch)."""

import re
from itertools import pairwise

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.editor.test_widget import numpy_attention
from tests.browser.helpers import loaded, wait_settled

pytestmark = pytest.mark.browser

CAT = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])
LINKED_K = "document.querySelector('figure[data-key=K] tbody tr.linked')"  # K's lit row
ROW_BOXES = "s => s.map(n => n.getBoundingClientRect()).map(r => [r.top, r.bottom])"


def every_kth(count, px):
    """The labels an axis of ``count`` rows or columns of ``px`` pixels each shows: every
    one where it is at least 12 px, else every k-th of 1, 2, 5, 10, 20, 50, … that is."""
    steps = [k * 10 ** e for e in range(6) for k in (1, 2, 5)]
    step = next(k for k in steps if k * px >= 12)
    return list(range(0, count, step))


def lit_rows(page, key):
    """The rows of a derived matrix lit by linked highlighting, 0-based."""
    return page.locator(f'figure[data-key="{key}"] tbody tr').evaluate_all(
        "rows => rows.flatMap((r, k) => r.classList.contains('linked') ? [k] : [])")


def test_arrow_keys_move_the_linked_highlight_with_the_focus(page, server):
    loaded(page, server.url)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(3).get_by_role("gridcell").first.focus()  # a_{3,1}
    page.wait_for_function(f"() => {LINKED_K} !== null")
    assert lit_rows(page, "K") == [0] and lit_rows(page, "V") == [0]
    for j in (1, 2):
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.j") == str(j)
        page.wait_for_function(f"j => {LINKED_K}?.rowIndex === j", arg=j)
        assert lit_rows(page, "K") == [j] and lit_rows(page, "V") == [j]
        assert lit_rows(page, "Q") == [2]
        expect(page.locator(f'#working .linked[data-j="{j}"]').first).to_be_attached()
        expect(page.locator(f'#working .linked:not([data-j="{j}"])')).to_have_count(0)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => {LINKED_K}?.rowIndex === 1")
    # After the answer's working has been typeset, the link is still the focused cell's.
    wait_settled(page)
    assert lit_rows(page, "K") == [1]


def test_a_tap_leaves_no_highlight_behind(browser, console, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    loaded(page, server.url)
    a32 = page.locator('#heatmap td[data-i="2"][data-j="1"]')
    a32.tap()
    expect(page.locator("#working-sym")).to_have_text("— query 3, “sat”")
    page.wait_for_function("() => document.activeElement.dataset.j === '1'")
    expect(page.locator(".linked")).to_have_count(0)
    page.locator('#heatmap td[data-i="0"][data-j="0"]').tap()
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”")
    expect(page.locator(".linked")).to_have_count(0)
    # A keyboard after the taps still lights what it moves to.
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => {LINKED_K}?.rowIndex === 1")
    context.close()


N30 = 30
X30 = np.array([[(i % 5) / 5, round((i % 3) / 3, 2)] for i in range(N30)])
T30 = [f"w{i}" for i in range(N30)]


def open_30(page, server, extra=""):
    X = ";".join(f"{a:.1f},{b:.2f}" for a, b in X30)
    loaded(page, server.url + f"#tokens={'|'.join(T30)}&X={X}&row={N30 - 1}{extra}")
    expect(page.locator("#heatmap canvas")).to_have_count(1)


def readout(i, j, A):
    return f"Query {i + 1} “{T30[i]}”, key {j + 1} “{T30[j]}”: weight {A[i, j]:.3f}"


def test_the_canvas_heatmap_labels_its_axes_and_reads_out_the_weight_under_the_pointer(
        page, server):
    open_30(page, server)
    A, _ = numpy_attention(X30, **CAT)
    # The map is scaled to its box: a row or column of 12 px or more is labelled, else
    # every 2nd, 5th, … (at 1280 × 900, every 2nd of 30 in a map of ~320 px).
    size = page.locator("#heatmap canvas").bounding_box()
    queries = page.locator("#heatmap .axis-queries span:not(.on)")
    keys = page.locator("#heatmap .axis-keys span:not(.on)")
    assert queries.all_inner_texts() == [T30[k] for k in every_kth(N30, size["height"] / N30)]
    assert keys.all_inner_texts() == [T30[k] for k in every_kth(N30, size["width"] / N30)]
    labels = queries.evaluate_all(ROW_BOXES)
    assert all(a[1] <= b[0] + 0.5 for a, b in pairwise(labels)), "query labels do not overlap"
    assert page.locator("#heatmap .axis-queries span.on").is_hidden()
    page.locator("#heatmap canvas").scroll_into_view_if_needed()
    box = page.locator("#heatmap canvas").bounding_box()
    for i, j in ((12, 7), (0, 0), (29, 3)):
        page.mouse.move(box["x"] + box["width"] * (j + 0.5) / N30,
                        box["y"] + box["height"] * (i + 0.5) / N30)
        expect(page.locator("#heatmap .readout")).to_have_text(readout(i, j, A))
        expect(page.locator("#heatmap .axis-queries span.on")).to_have_text(T30[i])
        expect(page.locator("#heatmap .axis-keys span.on")).to_have_text(T30[j])
        key_row = page.locator(f'figure[data-key="K"] tbody tr:nth-child({j + 1})')
        expect(key_row).to_have_class(re.compile("linked"))
    # A click selects the row under the pointer, as in the table.
    page.mouse.click(box["x"] + box["width"] * 3.5 / N30, box["y"] + box["height"] * 5.5 / N30)
    expect(page.locator("#working-sym")).to_have_text("— query 6, “w5”")
    page.mouse.move(0, 0)
    expect(page.locator("#heatmap .readout")).to_contain_text("Point at a weight")


def test_arrow_keys_move_the_canvas_read_out_across_keys_and_rows(page, server):
    open_30(page, server)
    A, _ = numpy_attention(X30, **CAT)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(N30 - 1).get_by_role("gridcell").focus()
    out = page.locator("#heatmap .readout")
    expect(out).to_have_text(readout(29, 0, A))
    page.keyboard.press("ArrowRight")
    expect(out).to_have_text(readout(29, 1, A))
    page.keyboard.press("ArrowRight")
    expect(out).to_have_text(readout(29, 2, A))
    page.keyboard.press("ArrowUp")
    expect(out).to_have_text(readout(28, 2, A))
    expect(page.locator("#working-sym")).to_have_text("— query 29, “w28”")
    page.keyboard.press("End")
    expect(out).to_have_text(readout(28, 29, A))
    expect(page.locator("#heatmap .axis-keys span.on")).to_have_text("w29")
    expect(page.locator("#heatmap .cell-marker")).to_be_visible()


def test_beyond_128_tokens_labels_are_spaced_and_a_byte_read_out_says_it_is_approximate(
        page, server):
    n = 150
    X = np.array([[round((i % 7) / 7, 1), round((i % 4) / 4, 2)] for i in range(n)])
    tokens = [f"t{i + 1}" for i in range(n)]
    x = ";".join(f"{a:g},{b:g}" for a, b in X)
    loaded(page, server.url + f"#tokens={'|'.join(tokens)}&X={x}&row={n - 1}")
    A, _ = numpy_attention(X, **CAT)
    # ~2 px a row in a map of ~320 px: every 10th token labels its row, and none overlap.
    drawn = every_kth(n, page.locator("#heatmap canvas").bounding_box()["height"] / n)
    assert drawn[1] > 1
    labels = page.locator("#heatmap .axis-queries span:not(.on)")
    expect(labels).to_have_count(len(drawn))
    assert labels.all_inner_texts() == [tokens[k] for k in drawn]
    rects = labels.evaluate_all(ROW_BOXES)
    assert all(a[1] <= b[0] for a, b in pairwise(rects))
    canvas = page.locator("#heatmap canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()

    def at(i, j):  # the centre of cell (i, j) on the page
        return box["x"] + box["width"] * (j + 0.5) / n, box["y"] + box["height"] * (i + 0.5) / n

    out = page.locator("#heatmap .readout")
    # Off the selected row the page has only the weight's byte, and says so.
    page.mouse.move(*at(40, 9))
    byte = round(255 * A[40, 9]) / 255
    expect(out).to_have_text(f"Query 41 “t41”, key 10 “t10”: weight ≈ {byte:.3f} "
                             "(±0.002; select the row for its exact weights)")
    # On the selected row the working's exact weights are read out.
    page.mouse.move(*at(n - 1, 9))
    expect(out).to_have_text(f"Query {n} “t{n}”, key 10 “t10”: weight {A[n - 1, 9]:.3f}")
    expect(page.locator("#heatmap .axis-queries span.on")).to_have_text(f"t{n}")


def test_a_tap_on_the_canvas_reads_out_the_weight_and_lights_nothing_after(
        browser, console, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    open_30(page, server)
    A, _ = numpy_attention(X30, **CAT)
    canvas = page.locator("#heatmap canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * 4.5 / N30, box["y"] + box["height"] * 9.5 / N30)
    expect(page.locator("#working-sym")).to_have_text("— query 10, “w9”")
    # Touch has no hover: the tapped weight stays read out, but nothing stays linked.
    expect(page.locator("#heatmap .readout")).to_have_text(readout(9, 4, A))
    expect(page.locator(".linked")).to_have_count(0)
    # A tap elsewhere puts the read-out back to its hint.
    page.touchscreen.tap(5, 5)
    expect(page.locator("#heatmap .readout")).to_contain_text("Point at a weight")
    context.close()
