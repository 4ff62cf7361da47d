"""Traps a person fell into: a typed seed, a keystroke that changes nothing, rows beyond
the first 16, a token count typed, the linked highlight by arrow and by touch, and the
canvas heatmap's labels and read-out."""

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cell, expect_url, heatmap, loaded, wait_settled
from tests.browser.test_widget import CAT_A, numpy_attention

pytestmark = pytest.mark.browser

CAT = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])


def x_values(page, n, d=2):
    return [[cell(page, f"X row {i + 1} column {j + 1}").input_value() for j in range(d)] for i in range(n)]


def test_random_uses_a_seed_typed_but_not_yet_applied(page, server, browser):
    # The reference: seed 42 applied with Enter in a page of its own.
    loaded(page, server.url)
    seed = page.get_by_role("spinbutton", name="Seed", exact=True)
    seed.fill("42")
    seed.press("Enter")
    expect_url(page, "seed=42")
    want = x_values(page, 3)
    assert want != [["1", "0"], ["0", "1"], ["1", "1"]]
    # Typed, then "Random" pressed at once: the typed seed is the one used.
    loaded(page, server.url + "#seed=1")
    seed.fill("42")
    page.get_by_role("button", name="Random").click()
    expect_url(page, "seed=42")
    expect(seed).to_have_value("42")
    assert x_values(page, 3) == want
    # Pressed again with nothing typed, it draws a new seed.
    page.get_by_role("button", name="Random").click()
    page.wait_for_function("() => !location.hash.includes('seed=42')")
    assert seed.input_value() != "42"


def test_a_keystroke_that_changes_nothing_does_not_swallow_the_edits_history_entry(page, server):
    loaded(page, server.url)
    x = cell(page, "X row 1 column 1")
    expect(x).to_have_value("1")
    x.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1.25", delay=150)
    expect_url(page, "X=1.25,0;")
    page.go_back()
    expect(x).to_have_value("1")
    expect_url(page, "X=1,0;")
    assert page.url.startswith(server.url)
    wait_settled(page)
    assert heatmap(page) == CAT_A


def test_a_token_count_can_be_typed(page, server):
    loaded(page, server.url)
    tokens = page.get_by_role("textbox", name="Tokens", exact=True)
    expect(tokens).to_have_value("3")
    tokens.fill("6")
    tokens.press("Enter")
    expect(page.get_by_role("textbox", name="Token 6 label")).to_have_value("mat")
    page.wait_for_function("() => document.querySelectorAll('table.grid tbody tr').length === 6")
    # The same rows as "Add token" pressed three times, computed by numpy.
    wait_settled(page)
    X = np.array(x_values(page, 6), dtype=float)
    A, _ = numpy_attention(X, **CAT)
    assert heatmap(page) == np.round(A, 3).tolist()
    expect_url(page, "tokens=the|cat|sat|on|the|mat")
    # Bad text is named in a message and stays in the field to be corrected.
    tokens.fill("abc")
    tokens.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Tokens must be a whole number from 1 to 512; “abc” is not.")
    expect(tokens).to_have_value("abc")
    tokens.fill("600")
    tokens.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Tokens must be a whole number from 1 to 512; “600” is not.")
    tokens.fill("2")
    tokens.press("Enter")
    expect(page.get_by_role("textbox", name="Token 3 label")).to_have_count(0)
    page.get_by_role("button", name="Add token").click()
    expect(tokens).to_have_value("3")


def test_dimensions_and_heads_can_be_typed(page, server):
    loaded(page, server.url)
    d_k = page.get_by_role("spinbutton", name="dk", exact=True)
    d_k.fill("5")
    d_k.press("Enter")
    expect(cell(page, "W_Q row 2 column 5")).to_have_value("0")
    expect(page.locator('figure[data-key="SS"] figcaption')).to_contain_text("÷ 2.236, d")
    d_model = page.get_by_role("spinbutton", name="dmodel", exact=True)
    d_model.fill("3")
    d_model.press("Enter")
    expect(cell(page, "X row 1 column 3")).to_have_value("0")
    wait_settled(page)
    A, _ = numpy_attention([[1, 0, 0], [0, 1, 0], [1, 1, 0]],
                           [[1, 0, 0, 0, 0], [1, 2, 0, 0, 0], [0, 0, 1, 0, 0]],
                           [[2, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0]],
                           [[1, 0], [0, 2], [0, 0]])
    assert heatmap(page) == np.round(A, 3).tolist()
    heads = page.get_by_role("spinbutton", name="Heads", exact=True)
    heads.fill("3")
    heads.press("Enter")
    expect(page.get_by_role("grid", name="Attention weights, head 3")).to_have_count(1)
    d_v = page.get_by_role("spinbutton", name="dv", exact=True)
    d_v.fill("300")
    d_v.press("Enter")
    expect(page.get_by_role("status")).to_have_text("d_v must be a whole number from 1 to 256; “300” is not.")
    expect(d_v).to_have_value("2")


def lit_rows(page, key):
    """The rows of a derived matrix lit by linked highlighting, 0-based."""
    return page.locator(f'figure[data-key="{key}"] tbody tr').evaluate_all(
        "rows => rows.flatMap((r, k) => r.classList.contains('linked') ? [k] : [])")


def test_arrow_keys_move_the_linked_highlight_with_the_focus(page, server):
    loaded(page, server.url)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(3).get_by_role("gridcell").first.focus()  # a_{3,1}
    page.wait_for_function("() => document.querySelector('figure[data-key=K] tbody tr.linked') !== null")
    assert lit_rows(page, "K") == [0] and lit_rows(page, "V") == [0]
    for j in (1, 2):
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.j") == str(j)
        page.wait_for_function("j => document.querySelector('figure[data-key=K] tbody tr.linked')?.rowIndex === j", arg=j)
        assert lit_rows(page, "K") == [j] and lit_rows(page, "V") == [j] and lit_rows(page, "Q") == [2]
        expect(page.locator(f'#working .linked[data-j="{j}"]').first).to_be_attached()
        expect(page.locator('#working .linked:not([data-j="%d"])' % j)).to_have_count(0)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('figure[data-key=K] tbody tr.linked')?.rowIndex === 1")
    # After the answer's working has been typeset, the link is still the focused cell's.
    wait_settled(page)
    assert lit_rows(page, "K") == [1]


def test_a_tap_leaves_no_highlight_behind(browser, console, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
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
    page.wait_for_function("() => document.querySelector('figure[data-key=K] tbody tr.linked')?.rowIndex === 1")
    context.close()


def hash_matrix(page, key):
    text = page.evaluate("k => new URLSearchParams(location.hash.slice(1)).get(k)", key)
    return np.array([[float(v) for v in row.split(",")] for row in text.split(";")])


def test_rows_beyond_16_are_paged_into_view_and_editable(page, server):
    loaded(page, server.url)
    tokens = page.get_by_role("textbox", name="Tokens", exact=True)
    tokens.fill("20")
    tokens.press("Enter")
    expect_url(page, "|t20&")
    pager = page.locator('#inputs figure[data-key="X"] .pager-axis[data-axis="rows"]')
    expect(pager.locator(".pager-text")).to_have_text("Rows 1–16 of 20")
    expect(cell(page, "X row 17 column 1")).to_have_count(0)
    expect(page.get_by_role("button", name="Previous rows of X")).to_be_disabled()
    expect(page.get_by_role("button", name="Next columns of X")).to_be_hidden()  # 2 columns: one page
    page.get_by_role("button", name="Next rows of X").click()
    expect(pager.locator(".pager-text")).to_have_text("Rows 17–20 of 20")
    expect(page.get_by_role("button", name="Next rows of X")).to_be_disabled()
    expect(page.get_by_role("button", name="Previous rows of X")).to_be_focused()
    expect(page.locator('#inputs figure[data-key="X"] .shape')).to_contain_text("20 × 2")
    expect(cell(page, "X row 1 column 1")).to_have_count(0)
    expect(page.get_by_role("textbox", name="Token 18 label")).to_have_value("t18")
    x = cell(page, "X row 18 column 1")
    X = hash_matrix(page, "X")
    assert x.input_value() == f"{X[17][0]:g}"
    x.fill("3")
    X[17][0] = 3
    A, Z = numpy_attention(X, **CAT)
    expected = np.round(A, 3).tolist()
    page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('table.grid tbody tr')].map(r => [...r.cells].slice(1).map(c => Number(c.textContent))))"
        " === JSON.stringify(want)", arg=expected)
    expect_url(page, "t20&X=1,0;0,1;")
    page.wait_for_function("() => location.hash.includes(';3,')")
    assert np.array_equal(hash_matrix(page, "X"), X)
    # Back to the first page: the first rows, unchanged.
    page.get_by_role("button", name="Previous rows of X").click()
    expect(cell(page, "X row 1 column 1")).to_have_value("1")
    expect(cell(page, "X row 18 column 1")).to_have_count(0)


def test_columns_beyond_16_are_paged_too(page, server):
    loaded(page, server.url)
    d_model = page.get_by_role("spinbutton", name="dmodel", exact=True)
    d_model.fill("20")
    d_model.press("Enter")
    cols = page.locator('#inputs figure[data-key="X"] .pager-axis[data-axis="cols"] .pager-text')
    expect(cols).to_have_text("Columns 1–16 of 20")
    page.get_by_role("button", name="Next columns of X").click()
    expect(cols).to_have_text("Columns 17–20 of 20")
    expect(page.locator('#inputs figure[data-key="X"] .pager-axis[data-axis="rows"]')).to_be_hidden()  # 3 tokens
    x = cell(page, "X row 3 column 20")
    expect(x).to_have_value("0")  # new columns of X are 0
    x.fill("1.5")
    # W_Q is d_model × d_k: 20 rows, turned apart from X's columns.
    page.get_by_role("button", name="Next rows of W_Q").click()
    expect(cell(page, "W_Q row 20 column 2")).to_have_value("0")
    expect_url(page, "X=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0;0,1,")
    page.wait_for_function("() => location.hash.includes(',1.5&W_Q=')")
    X = hash_matrix(page, "X")
    assert X.shape == (3, 20) and X[2][19] == 1.5


N30 = 30
X30 = np.array([[(i % 5) / 5, round((i % 3) / 3, 2)] for i in range(N30)])
T30 = [f"w{i}" for i in range(N30)]


def open_30(page, server, extra=""):
    X = ";".join(f"{a:.1f},{b:.2f}" for a, b in X30)
    loaded(page, server.url + f"#tokens={'|'.join(T30)}&X={X}&row={N30 - 1}{extra}")
    expect(page.locator("#heatmap canvas")).to_have_count(1)


def readout(i, j, A):
    return f"Query {i + 1} “{T30[i]}”, key {j + 1} “{T30[j]}”: weight {A[i, j]:.3f}"


def test_the_canvas_heatmap_labels_its_axes_and_reads_out_the_weight_under_the_pointer(page, server):
    open_30(page, server)
    A, _ = numpy_attention(X30, **CAT)
    # At 1280 px a row of 30 is ~18 px tall: every token labels its row and its column.
    queries = page.locator("#heatmap .axis-queries span:not(.on)")
    keys = page.locator("#heatmap .axis-keys span:not(.on)")
    assert queries.all_inner_texts() == T30 and keys.all_inner_texts() == T30
    labels = queries.evaluate_all("s => s.map(n => n.getBoundingClientRect()).map(r => [r.top, r.bottom])")
    assert all(a[1] <= b[0] + 0.5 for a, b in zip(labels, labels[1:])), "query labels do not overlap"
    assert page.locator("#heatmap .axis-queries span.on").is_hidden()
    page.locator("#heatmap canvas").scroll_into_view_if_needed()
    box = page.locator("#heatmap canvas").bounding_box()
    for i, j in ((12, 7), (0, 0), (29, 3)):
        page.mouse.move(box["x"] + box["width"] * (j + 0.5) / N30, box["y"] + box["height"] * (i + 0.5) / N30)
        expect(page.locator("#heatmap .readout")).to_have_text(readout(i, j, A))
        expect(page.locator("#heatmap .axis-queries span.on")).to_have_text(T30[i])
        expect(page.locator("#heatmap .axis-keys span.on")).to_have_text(T30[j])
        expect(page.locator(f'figure[data-key="K"] tbody tr:nth-child({j + 1})')).to_have_class(re.compile("linked"))
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


def test_the_key_token_count_can_be_typed_in_cross_attention(page, server):
    loaded(page, server.url)
    keys = page.get_by_role("textbox", name="Key tokens", exact=True)
    expect(keys).to_be_hidden()
    page.get_by_role("checkbox", name="Cross-attention").check()
    expect(keys).to_have_value("3")
    keys.fill("5")
    keys.press("Enter")
    expect(page.get_by_role("textbox", name="Key token 5 label")).to_have_value("s5")
    page.wait_for_function("() => document.querySelectorAll('table.grid thead th[role=columnheader]').length === 5")
    expect_url(page, "tokens_kv=s1|s2|s3|s4|s5&")
    wait_settled(page)
    X = np.array([[1, 0], [0, 1], [1, 1]])
    X_kv = hash_matrix(page, "X_kv")
    assert X_kv.shape == (5, 2)
    Q, K = X @ np.array(CAT["W_Q"]), X_kv @ np.array(CAT["W_K"])
    s = Q @ K.T / np.sqrt(2)
    A = np.exp(s - s.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    assert heatmap(page) == np.round(A, 3).tolist()
    keys.fill("0")
    keys.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Key tokens must be a whole number from 1 to 512; “0” is not.")


def test_beyond_128_tokens_labels_are_spaced_and_a_byte_read_out_says_it_is_approximate(page, server):
    n = 150
    X = np.array([[round((i % 7) / 7, 1), round((i % 4) / 4, 2)] for i in range(n)])
    tokens = [f"t{i + 1}" for i in range(n)]
    loaded(page, server.url + f"#tokens={'|'.join(tokens)}&X={';'.join(f'{a:g},{b:g}' for a, b in X)}&row={n - 1}")
    A, _ = numpy_attention(X, **CAT)
    # ~3.6 px a row at 1280 px: every 5th token labels its row, and none overlap.
    labels = page.locator("#heatmap .axis-queries span:not(.on)")
    expect(labels).to_have_count(n // 5)
    assert labels.all_inner_texts() == tokens[::5]
    rects = labels.evaluate_all("s => s.map(n => n.getBoundingClientRect()).map(r => [r.top, r.bottom])")
    assert all(a[1] <= b[0] for a, b in zip(rects, rects[1:]))
    canvas = page.locator("#heatmap canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    at = lambda i, j: (box["x"] + box["width"] * (j + 0.5) / n, box["y"] + box["height"] * (i + 0.5) / n)  # noqa: E731
    out = page.locator("#heatmap .readout")
    # Off the selected row the page has only the weight's byte, and says so.
    page.mouse.move(*at(40, 9))
    byte = round(255 * A[40, 9]) / 255
    expect(out).to_have_text(f"Query 41 “t41”, key 10 “t10”: weight ≈ {byte:.3f} (±0.002; select the row for its exact weights)")
    # On the selected row the working's exact weights are read out.
    page.mouse.move(*at(n - 1, 9))
    expect(out).to_have_text(f"Query {n} “t{n}”, key 10 “t10”: weight {A[n - 1, 9]:.3f}")
    expect(page.locator("#heatmap .axis-queries span.on")).to_have_text(f"t{n}")


def test_a_tap_on_the_canvas_reads_out_the_weight_and_lights_nothing_after(browser, console, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
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


def test_an_answer_that_cannot_be_read_is_said_once_and_not_retried(page, console, server):
    loaded(page, server.url)
    posts = []

    def proxy_error(route):
        posts.append(route.request.url)
        route.fulfill(status=502, content_type="text/html", body="<html><h1>502 Bad Gateway</h1></html>")

    page.route("**/api/attention", proxy_error)
    cell(page, "X row 1 column 1").fill("2")
    status = page.locator("#status")
    expect(status).to_contain_text("The server's answer could not be read (status 502, text/html)")
    expect(page.locator("#stale-note")).to_contain_text("could not be read")
    # The page is done with that answer (a retry would keep it waiting, busy).
    expect(page.locator("#results")).not_to_have_attribute("aria-busy", "true")
    assert len(posts) == 1, "an unreadable answer is not retried"
    assert "cannot be reached" not in status.inner_text()
    # Chrome logs the 502 as a console error: the expected one.
    console[:] = [m for m in console if "status of 502" not in m[1]]
