"""The page in a real browser: numbers, edits, the heatmap, the working, the causal mask."""

import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    beyond,
    cell,
    expect_url,
    heatmap,
    loaded,
    matrix,
    softmax_rows,
    tab_until,
    wait_settled,
    wait_until,
    working_text,
)

pytestmark = pytest.mark.browser

CAT_A = [[0.446, 0.108, 0.446], [0.164, 0.164, 0.673], [0.187, 0.045, 0.768]]
CAT_Z = [[0.892, 1.108], [0.836, 1.673], [0.955, 1.627]]


def numpy_attention(X, W_Q, W_K, W_V, causal=False):
    """An independent computation in the test: plain numpy, nothing from the app."""
    X, W_Q, W_K, W_V = (np.array(m, dtype=float) for m in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    s = Q @ K.T / np.sqrt(K.shape[1])
    if causal:
        s[np.triu_indices(len(X), 1)] = -np.inf
    e = np.exp(s - s.max(axis=1, keepdims=True))
    A = e / e.sum(axis=1, keepdims=True)
    return A, A @ V


def test_default_page_shows_the_weights_and_outputs(page, server):
    loaded(page, server.url)
    assert heatmap(page) == CAT_A
    assert matrix(page, "Z") == CAT_Z
    assert matrix(page, "Q") == [[1, 0], [1, 2], [2, 2]]
    grid = page.get_by_role("grid", name="Attention weights")
    assert grid.get_by_role("columnheader").all_inner_texts()[1:] == ["the", "cat", "sat"]
    assert grid.get_by_role("rowheader").all_inner_texts() == ["the", "cat", "sat"]
    expect(page.locator('figure[data-key="SS"] figcaption')).to_contain_text("÷ 1.414, d")
    assert "#tokens=the|cat|sat&X=1,0;0,1;1,1" in page.url


def test_editing_x_row3_col1_recomputes_a_and_z(page, server):
    loaded(page, server.url)
    x = cell(page, "X row 3 column 1")
    expect(x).to_have_value("1")
    x.fill("2")
    A, Z = numpy_attention([[1, 0], [0, 1], [2, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
                           [[1, 0], [0, 2]])
    expected = np.round(A, 3).tolist()
    page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('table.grid tbody tr')]"
        ".map(r => [...r.cells].slice(1).map(c => Number(c.textContent))))"
        " === JSON.stringify(want)", arg=expected)
    assert heatmap(page) == expected
    assert matrix(page, "Z") == np.round(Z, 3).tolist()
    expect_url(page, "X=1,0;0,1;2,1")


def test_clicking_row3_writes_out_its_working(page, server):
    loaded(page, server.url)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(1).get_by_role("gridcell").first.click()  # row 1 first
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”")
    grid.get_by_role("row").nth(3).get_by_role("gridcell").nth(1).click()
    expect(page.locator("#working-sym")).to_have_text("— query 3, “sat”")
    expect(grid.get_by_role("row").nth(3)).to_have_attribute("aria-selected", "true")
    text = working_text(page)
    # Derived numbers always have 3 decimals: q·k_3 = 6.000, as the table beside it prints.
    for shown in ("q3=x3WQ=(2.000,2.000)", "2.000·2.000+2.000·0.000=4.000",
                  "2.000·0.000+2.000·1.000=2.000", "2.000·2.000+2.000·1.000=6.000", "÷1.414=s3,j",
                  "÷90.62=a3,j", "16.92+4.113+69.59=90.62",
                  "0.768(1.000,2.000)", "=(0.955,1.627)"):
        assert shown in text, (shown, text)
    # Per key: q·k_j, ÷ √2 = s_3j, e^s, ÷ Σ = a_3j (hand-worked: e^{4/√2} = 16.92, …).
    assert softmax_rows(page) == [["4.000", "2.828", "16.92", "0.187"],
                                  ["2.000", "1.414", "4.113", "0.045"],
                                  ["6.000", "4.243", "69.59", "0.768"]]
    # The selected row shares one highlight with Q's and Z's rows.
    assert page.locator('figure[data-key="Q"] tbody tr.hl').count() == 1
    z_row = page.locator('figure[data-key="Z"] tbody tr').nth(2)
    assert z_row.evaluate("r => r.classList.contains('hl')")


def test_causal_mask_zeroes_the_future_and_keeps_row3(page, server):
    loaded(page, server.url)
    page.get_by_role("checkbox", name="Causal mask").check()
    page.wait_for_function("() => document.querySelectorAll('table.grid td.masked').length === 3")
    wait_settled(page)
    A = heatmap(page)
    assert A[0] == [1, 0, 0] and A[1] == [0.5, 0.5, 0] and A[2] == CAT_A[2]
    masked = page.locator("table.grid td.masked")
    assert masked.count() == 3
    assert masked.first.inner_text().startswith("0")
    ss = page.locator('figure[data-key="SS"] tbody tr').nth(0).locator("td")
    assert ss.all_inner_texts()[1:] == ["\u2212∞", "\u2212∞"]
    expect_url(page, "causal=1")
    text = page.locator("#working").inner_text()
    assert "NaN" not in text and "null" not in text


def test_causal_working_shows_masked_keys_as_minus_infinity(page, server):
    loaded(page, server.url + "#causal=1&row=0")
    # q_1 = (1, 0): the dots with k_1, k_2, k_3 are 2, 0, 2; only key 1 may be read.
    assert softmax_rows(page) == [["2.000", "1.414", "4.113", "1.000"],
                                  ["0.000", "−∞", "0", "0"],
                                  ["2.000", "−∞", "0", "0"]]
    assert "÷4.113=a1,j" in working_text(page)
    expect(page.locator("#working table.softmax-table tbody tr.masked-line")).to_have_count(2)


def test_invalid_cell_is_marked_and_results_kept_until_fixed(page, server):
    loaded(page, server.url)
    x = cell(page, "W_K row 1 column 2")
    x.fill("abc")
    expect(x).to_have_attribute("aria-invalid", "true")
    message = page.locator("#input-errors .field-error")
    expect(message).to_have_text("⚠ W_K row 1 column 2: “abc” is not a number." .replace("⚠ ", ""))
    expect(page.locator("#stale-note")).to_be_visible()
    assert heatmap(page) == CAT_A, "the last good numbers stay"
    assert x.get_attribute("aria-describedby") == message.get_attribute("id")
    expect_url(page, "W_K=2,abc;0,1")  # what was typed is in the link
    page.reload()
    expect(cell(page, "W_K row 1 column 2")).to_have_value("abc")
    cell(page, "W_K row 1 column 2").fill("0")
    expect(page.locator("#input-errors .field-error")).to_have_count(0)
    # Reloaded with the marked cell, the page had no answer and no stale note to hide: the
    # numbers are read once the fixed cell's answer is drawn.
    wait_settled(page)
    expect(page.locator("#stale-note")).to_be_hidden()
    assert heatmap(page) == CAT_A


def test_reload_keeps_an_edit_and_back_steps_through_edits(page, server):
    loaded(page, server.url)
    cell(page, "W_V row 2 column 2").fill("3")
    expect_url(page, "W_V=1,0;0,3")
    # An edit's URL is written once the edit's frame has painted, not when its answer has
    # come (url.js's writtenAtOnce): with the answer held back, the URL comes to hold the
    # edit, and a reload keeps it.
    held = []
    page.route("**/api/attention", lambda route: held.append(route))
    with page.expect_request("**/api/attention"):
        cell(page, "X row 1 column 2").fill("1")
    expect_url(page, "X=1,1;")  # the URL does not wait for the answer
    assert held, "the answer was not held back"
    expect(page.locator("#results")).to_have_attribute("aria-busy", "true")  # until it is drawn
    page.unroute("**/api/attention")
    page.reload()
    wait_settled(page)
    expect(cell(page, "W_V row 2 column 2")).to_have_value("3")
    expect(cell(page, "X row 1 column 2")).to_have_value("1")
    A, Z = numpy_attention([[1, 1], [0, 1], [1, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
                           [[1, 0], [0, 3]])
    assert heatmap(page) == np.round(A, 3).tolist()
    expect_url(page, "X=1,1;")
    # The edit kept its own history entry, as if no reload had come between.
    page.go_back()
    expect(cell(page, "X row 1 column 2")).to_have_value("0")
    expect(cell(page, "W_V row 2 column 2")).to_have_value("3")
    # Back to an earlier view and reloaded: that view is what loads.
    page.reload()
    wait_settled(page)
    expect(cell(page, "X row 1 column 2")).to_have_value("0")
    page.go_back()
    expect(cell(page, "W_V row 2 column 2")).to_have_value("2")
    page.wait_for_function("() => document.querySelector('figure[data-key=Z] tbody tr:nth-child(3)"
                           " td').textContent === '0.955'")


def large_view(n=320, d=16):
    """A link to n tokens × d: 5,888 inputs, whose URL takes a while to write."""
    X = ";".join(",".join(f"{((i * 7 + j) % 11) / 10 - 0.5:g}" for j in range(d)) for i in range(n))
    eye = ";".join(",".join("1" if i == j else "0" for j in range(d)) for i in range(d))
    return f"#tokens={'|'.join(f'w{i}' for i in range(n))}&X={X}&W_Q={eye}&W_K={eye}&W_V={eye}"


def test_a_large_views_edit_is_in_the_url_before_its_answer_and_a_reload_keeps_it(own_page,
                                                                                  server):
    page = own_page  # its clock is stopped below
    # A reload loads the URL the page had when it was asked for: pagehide comes too late
    # to write it. So a large view's URL is written after the edit's frame, not after its
    # answer. The page's clock is stopped (its frames and timers run only when told), the
    # answers held back.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url[:-1])
    loaded(page, server.url + large_view())
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    held = []
    page.route("**/api/attention", lambda route: held.append(route))
    # No frame yet: the URL still waits, and "Copy link" writes it first.
    cell(page, "Token 1 label").fill("edited")
    assert "tokens=w0|" in page.evaluate("location.hash")
    page.get_by_role("button", name="Copy link").click()
    expect(page.get_by_role("status")).to_contain_text("Link copied")
    assert "tokens=edited|w1|" in page.evaluate("navigator.clipboard.readText()")
    # One frame later the next edit is in the URL, its answer still held back.
    cell(page, "Token 2 label").fill("again")
    page.clock.run_for(100)
    expect_url(page, "tokens=edited|again|w2|")
    assert held, "the answer is still held back"
    page.unroute("**/api/attention")
    page.clock.resume()  # the reloaded page's timers run: boot.js starts its scripts after one
    page.reload()
    expect(cell(page, "Token 1 label")).to_have_value("edited")
    expect(cell(page, "Token 2 label")).to_have_value("again")


def test_label_is_text_never_html(page, server):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    loaded(page, server.url)
    evil = "<img src=x onerror=alert(1)>"
    page.get_by_role("textbox", name="Token 1 label").fill(evil)
    grid = page.get_by_role("grid", name="Attention weights")
    expect(grid.get_by_role("rowheader").first).to_have_text(evil)
    expect(grid.get_by_role("columnheader").nth(1)).to_have_text(evil)
    wait_settled(page)  # every place the label is drawn, the working's typesetting included
    assert page.locator("img").count() == 0
    assert dialogs == []


def test_slow_answer_never_overwrites_a_newer_one(page, server):
    loaded(page, server.url)
    held = []

    def hold_first(route):
        body = json.loads(route.request.post_data)
        if body["X"][2][0] == 5 and not held:
            held.append(route)  # answered only after the newer edit is on screen
        else:
            route.continue_()

    page.route("**/api/attention", hold_first)
    x = cell(page, "X row 3 column 1")
    x.fill("5")
    wait_until(page, lambda: held, "the first request is held")
    x.fill("2")
    A, _ = numpy_attention([[1, 0], [0, 1], [2, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
                           [[1, 0], [0, 2]])
    page.wait_for_function("want => document.querySelector('table.grid tbody tr:nth-child(3) td')"
                           ".textContent === want", arg=f"{A[2][0]:.3f}")
    held[0].continue_()
    held[0].request.response()  # its answer came (or, aborted by the page, never will)
    # A newer round trip through the page: anything the old answer set off is done by then.
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(1).get_by_role("gridcell").first.click()
    expect(page.locator("#working-sym")).to_contain_text("query 1")
    wait_settled(page)
    assert heatmap(page) == np.round(A, 3).tolist()


def test_tokens_dimensions_presets_seed_and_reset(page, server):
    loaded(page, server.url)
    page.get_by_role("button", name="Add token").click()
    expect(page.get_by_role("textbox", name="Token 4 label")).to_have_value("on")
    page.wait_for_function("() => document.querySelectorAll('table.grid tbody tr').length === 4")
    wait_settled(page)
    A = np.array(heatmap(page))
    assert A.shape == (4, 4) and np.allclose(A.sum(axis=1), 1, atol=2e-3)
    page.get_by_role("button", name="Increase d_k").click()
    expect(page.get_by_role("textbox", name="W_Q row 2 column 3")).to_have_value("0")
    expect(page.get_by_role("textbox", name="W_Q row 1 column 1")).to_have_value("1")
    expect(page.locator('figure[data-key="SS"] figcaption')).to_contain_text("÷ 1.732, d")
    page.get_by_role("button", name="Remove token").click()
    expect(page.get_by_role("textbox", name="Token 4 label")).to_have_count(0)
    page.get_by_label("Example").select_option(label="a causal sentence")
    expect(page.get_by_role("checkbox", name="Causal mask")).to_be_checked()
    expect(page.get_by_role("textbox", name="Token 4 label")).to_have_value("tea")
    seed = beyond(page).get_by_role("spinbutton", name="Seed", exact=True)
    seed.fill("42")
    seed.press("Enter")
    page.wait_for_function("() => location.hash.includes('seed=42')")
    first = page.get_by_role("textbox", name="X row 1 column 1").input_value()
    url = page.url
    page.get_by_role("button", name="Reset").click()
    expect(page.get_by_role("textbox", name="X row 3 column 1")).to_have_value("1")
    wait_settled(page)
    assert heatmap(page) == CAT_A
    page.goto(url)
    expect(page.get_by_role("textbox", name="X row 1 column 1")).to_have_value(first)


def test_copy_link_copies_a_url_that_reproduces_the_view(browser, console, server):
    from tests.browser.conftest import open_page
    page = open_page(browser, console)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    loaded(page, server.url)
    cell(page, "W_Q row 1 column 2").fill("3")
    page.wait_for_function("() => location.hash.includes('W_Q=1,3;1,2')")
    page.get_by_role("button", name="Copy link").click()
    expect(page.get_by_role("status")).to_contain_text("Link copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url and "W_Q=1,3;1,2" in copied
    other = open_page(browser, console)
    loaded(other, copied)
    assert heatmap(other) == heatmap(page)
    page.close()
    other.close()


def test_nothing_moves_while_the_page_loads(page, server):
    """The first paint already has every number: no layout shift, no request for the default."""
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "/api/attention" in r.url else None)
    page.add_init_script("""
        window.__shift = 0;
        const add = (entries) => {
          for (const e of entries) if (!e.hadRecentInput) window.__shift += e.value;
        };
        window.__layout = new PerformanceObserver((list) => add(list.getEntries()));
        window.__layout.observe({ type: 'layout-shift', buffered: true });
        window.__shiftNow = () => { add(window.__layout.takeRecords()); return window.__shift; };
    """)
    loaded(page, server.url)
    # What the page does after its first paint is queued by then (later.js: after a frame,
    # at background priority): once the fonts are in, and a task queued behind that work
    # has run and two more frames have been laid out, every shift it made is recorded.
    shift = page.evaluate("""async () => {
        await document.fonts.ready;
        await new Promise((r) => requestAnimationFrame(
          () => scheduler.postTask(r, { priority: 'background' })));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return window.__shiftNow();
    }""")
    assert shift < 0.01
    assert requests == []
    assert heatmap(page) == CAT_A


def test_many_tokens_draw_a_canvas_under_an_accessible_grid(page, server):
    n = 40
    tokens = "|".join(f"w{i}" for i in range(n))
    X = ";".join(f"{(i % 5) / 5:.1f},{(i % 3) / 3:.2f}" for i in range(n))
    loaded(page, server.url + f"#tokens={tokens}&X={X}&causal=1&row={n - 1}")
    grid = page.get_by_role("grid", name="Attention weights")
    rows = grid.get_by_role("row")
    expect(rows).to_have_count(n)
    expect(page.locator("#heatmap canvas")).to_have_count(1)
    # Row 1 may read only key 1 under the causal mask.
    expect(rows.first.get_by_role("gridcell")).to_have_accessible_name("strongest keys: w0 1.000")
    expect(rows.nth(3).get_by_role("rowheader")).to_have_accessible_name("w3")
    expect(rows.nth(n - 1)).to_have_attribute("aria-selected", "true")
    # The rows share the canvas's height, row i in the i-th n-th of it: a click on the
    # middle of the canvas's row 10 selects query 11.
    box = page.locator("#heatmap canvas").bounding_box()
    starts = (0, 10, n - 1)
    tops = [rows.nth(i).bounding_box()["y"] for i in starts]
    assert tops == pytest.approx([box["y"] + i * box["height"] / n for i in starts], abs=0.5)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + 10.5 * box["height"] / n)
    expect(rows.nth(10)).to_have_attribute("aria-selected", "true")
    expect(page.locator("#working-sym")).to_have_text("— query 11, “w10”")
    rows.nth(n - 1).get_by_role("gridcell").click()
    expect(rows.nth(n - 1)).to_have_attribute("aria-selected", "true")
    rows.nth(n - 1).get_by_role("gridcell").focus()
    page.keyboard.press("ArrowUp")
    expect(rows.nth(n - 2)).to_have_attribute("aria-selected", "true")
    expect(page.locator("#working-sym")).to_have_text(f"— query {n - 1}, “w{n - 2}”")
    expect(page.locator("#scores .too-many")).to_contain_text(f"With {n} tokens")
    expect(page.locator('figure[data-key="Q"] .truncated')).to_have_text(
        f"Showing 16 of {n} rows.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_an_overflow_the_server_refuses_is_said_and_marked(page, server, console):
    loaded(page, server.url)
    x = cell(page, "X row 1 column 1")
    x.fill("1e200")
    cell(page, "W_Q row 1 column 1").fill("1e200")
    expect(page.locator("#input-errors")).to_contain_text(
        "X row 1 column 1: Q = X·W_Q is too large for float64")
    expect(x).to_have_attribute("aria-invalid", "true")  # the input to blame is marked
    expect(page.locator("#stale-note")).to_have_text(
        "Out of date — fix the marked input and these numbers update.")
    assert heatmap(page) == CAT_A
    cell(page, "W_Q row 1 column 1").fill("1")
    x.fill("1")
    wait_settled(page)
    expect(page.locator("#stale-note")).to_be_hidden()
    expect(page.get_by_role("status")).to_have_text("")
    assert heatmap(page) == CAT_A
    # Chrome logs every 4xx answer as a console error; these 422s are the expected ones.
    console[:] = [m for m in console if "status of 422" not in m[1]]


def test_a_label_over_64_characters_is_marked_not_sent(page, server):
    loaded(page, server.url)
    label = page.get_by_role("textbox", name="Token 2 label")
    label.fill("x" * 65)
    expect(label).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#input-errors")).to_contain_text(
        "Token 2 label: Labels have at most 64 characters; this one has 65.")
    expect(page.locator("#stale-note")).to_be_visible()


def test_64_emoji_are_one_label_as_the_server_counts_it(page, server):
    # 64 characters, 128 UTF-16 units: the page counts characters, as the server does.
    loaded(page, server.url)
    label = page.get_by_role("textbox", name="Token 2 label")
    emoji = "\U0001f600" * 64
    label.fill(emoji)
    grid = page.get_by_role("grid", name="Attention weights")
    expect(grid.get_by_role("rowheader").nth(1)).to_have_text(emoji)  # the server's answer
    wait_settled(page)
    expect(label).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("#input-errors")).to_have_text("")
    label.fill(emoji + "\U0001f600")
    expect(label).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#input-errors")).to_contain_text(
        "Token 2 label: Labels have at most 64 characters; this one has 65.")


def test_scale_switch_shows_the_effect_of_dividing_by_root_dk(page, server):
    # Raw scores of the last query are 1, 1, 2 with d_k = 2 (see tests/core/test_scaling.py).
    loaded(page, server.url + "#tokens=a|b|c&X=1,0;1,0;1,1&W_Q=1,0;0,1&W_K=1,0;0,1&W_V=1,0;0,1"
                              "&row=2")
    assert heatmap(page)[2] == [0.248, 0.248, 0.503]
    switch = page.get_by_role("checkbox", name="Scale by 1/√dk")
    expect(switch).to_be_checked()
    scale = page.get_by_role("textbox", name="Scale", exact=True)
    expect(scale).to_be_disabled()
    expect(scale).to_have_value("0.707")
    switch.uncheck()
    expect(scale).to_have_value("1")
    page.wait_for_function("() => document.querySelector('table.grid tbody tr:nth-child(3)"
                           " td:last-child').textContent === '0.576'")
    assert heatmap(page)[2] == [0.212, 0.212, 0.576]
    expect(page.locator("#working")).to_contain_text("Multiply by the scale")
    scale.fill("0.5x")
    expect(scale).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#input-errors")).to_contain_text("Scale: “0.5x” is not a number.")
    scale.fill("0")
    page.wait_for_function("() => document.querySelector('table.grid tbody tr:nth-child(3) td')"
                           ".textContent === '0.333'")
    expect_url(page, "scale=0")


def test_clicking_scores_masks_them_and_an_empty_row_is_zero_not_nan(page, server):
    loaded(page, server.url)
    row1 = page.locator('figure[data-key="SS"] tbody tr').first.locator("td")
    for j in range(3):
        row1.nth(j).click()
        page.wait_for_function(f"() => location.hash.includes('0-{j}')")
        # The next click aims at a table that is no longer redrawn (a masked score's "−∞"
        # is wider than its number: a redraw between aim and click could move the cells).
        wait_settled(page)
    assert heatmap(page)[0] == [0, 0, 0]
    assert page.locator("table.grid tbody tr").first.locator("td.masked").count() == 3
    expect(page.get_by_role("status")).to_contain_text("Query 1 “the” may read no key")
    assert matrix(page, "Z")[0] == [0, 0]
    assert "NaN" not in page.locator("main").inner_text()
    assert heatmap(page)[1:] == CAT_A[1:], "other rows are untouched"
    # By keyboard: M on a focused heatmap cell unmasks it.
    grid = page.get_by_role("grid", name="Attention weights")
    cell_ = grid.get_by_role("row").nth(1).get_by_role("gridcell").first
    cell_.click()
    page.keyboard.press("m")
    page.wait_for_function("() => !location.hash.includes('0-0')")
    wait_settled(page)
    assert heatmap(page)[0] == [1, 0, 0]
    page.get_by_role("button", name="Clear masks").click()
    wait_settled(page)
    assert heatmap(page) == CAT_A


def test_sinusoidal_positions_show_pe_and_change_the_weights(page, server):
    loaded(page, server.url)
    beyond(page).get_by_role("combobox", name="Positions").select_option("sinusoidal")
    expect(page.locator('figure[data-key="PE"]')).to_be_visible()
    wait_settled(page)
    pe = matrix(page, "PE")
    assert pe == [[0.0, 1.0], [0.841, 0.540], [0.909, -0.416]]  # sin/cos of 0, 1, 2
    X = np.array([[1, 0], [0, 1], [1, 1]]) + np.array(
        [[np.sin(p), np.cos(p)] for p in range(3)])
    A, _ = numpy_attention(X, [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]])
    assert heatmap(page) == np.round(A, 3).tolist()


def test_explanations_fold_open_by_keyboard(page, server):
    loaded(page, server.url)
    explain = page.locator(".block-scores details.explain").filter(has_text="What is this?")
    explain.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(explain.locator("p")).to_contain_text("divided by √d")
    masks = page.locator(".block-scores details.explain").filter(has_text="Masks?")
    masks.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(masks.locator("p")).to_contain_text("exactly 0")


def test_hovering_or_focusing_a_weight_lights_its_parts(page, server):
    loaded(page, server.url)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(3).get_by_role("gridcell").nth(1).hover()  # a_{3,2}: sat → cat

    def lit(sel):
        return page.locator(sel).evaluate("n => n.classList.contains('linked')")

    assert lit('figure[data-key="Q"] tbody tr:nth-child(3)')
    assert lit('figure[data-key="K"] tbody tr:nth-child(2)')
    assert lit('figure[data-key="V"] tbody tr:nth-child(2)')
    assert not lit('figure[data-key="K"] tbody tr:nth-child(1)')
    assert lit('figure[data-key="SS"] tbody tr:nth-child(3) td:nth-of-type(2)')
    terms = page.locator('#working .term[data-j="1"]')
    expect(terms).to_have_class(re.compile("linked"))
    assert page.locator('#working li.linked[data-j="1"]').count() == 1  # its dot product
    assert page.locator('#working tr.linked[data-j="1"]').count() == 1  # its scale, exp and weight
    page.mouse.move(0, 0)
    expect(page.locator(".linked")).to_have_count(0)
    grid.get_by_role("row").nth(3).get_by_role("gridcell").first.focus()
    key_row = page.locator('figure[data-key="K"] tbody tr:nth-child(1)')
    expect(key_row).to_have_class(re.compile("linked"))


def test_shuffling_tokens_moves_rows_without_positions_and_changes_them_with(page, server):
    loaded(page, server.url)
    page.get_by_role("button", name="Shuffle tokens").click()
    runs = page.locator(".shuffle-run")
    expect(runs).to_have_count(2)
    expect(runs.first.locator(".verdict")).to_have_class(re.compile("same"))
    expect(runs.nth(1).locator(".verdict")).to_have_class(re.compile("differs"))
    order = page.locator("#shuffle-order").inner_text().split(": ")[1].split(", ")
    assert sorted(order) == ["cat", "sat", "the"] and order != ["the", "cat", "sat"]
    # Without positions, the shuffled Z holds exactly the hand-worked rows, moved.
    shuffled = runs.first.locator("figure").nth(1).locator("tbody tr")
    rows = {shuffled.nth(k).locator("th").inner_text():
            [float(t) for t in shuffled.nth(k).locator("td").all_inner_texts()] for k in range(3)}
    assert rows == {"the": CAT_Z[0], "cat": CAT_Z[1], "sat": CAT_Z[2]}


def test_walk_me_through_it_by_keyboard_ends_at_z(page, server):
    loaded(page, server.url)
    page.get_by_role("button", name="Walk me through it").focus()
    page.keyboard.press("Enter")
    panel = page.get_by_role("region", name="Walk through the calculation")
    expect(panel).to_contain_text("Step 1 of 8")
    expect(panel).to_contain_text("“sat” starts as its embedding: row 3 of X")
    expect(page.locator('.block-inputs.walk-block')).to_have_count(1)
    expect(page.locator('figure[data-key="X"] tbody tr:nth-child(3).walk-lit')).to_have_count(1)
    # While the bar is shown the page's end keeps clear of it: the body's padding holds the
    # bar and its margin (test_overlaps checks the boxes themselves).
    padding = "() => getComputedStyle(document.body).paddingBottom"
    room = f"() => parseFloat(({padding})()) - document.querySelector('.walk').offsetHeight"
    assert page.evaluate(room) >= 12
    for step in range(2, 9):
        page.keyboard.press("Enter")  # focus stays on Next
        expect(panel).to_contain_text(f"Step {step} of 8")
    expect(panel).to_contain_text("weighted sum of those values")
    expect(page.locator('figure[data-key="Z"] tbody tr:nth-child(3).walk-lit')).to_have_count(1)
    expect(page.get_by_role("button", name="Finish")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # Previous
    expect(panel).to_contain_text("Step 7 of 8")
    expect(page.locator('figure[data-key="V"] tbody tr.walk-lit')).to_have_count(3)
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(page.locator(".walk-lit, .walk-block")).to_have_count(0)
    assert page.evaluate(padding) == "0px"


def test_cross_attention_reads_keys_from_a_second_sequence(page, server):
    loaded(page, server.url + "#causal=1")
    beyond(page).get_by_role("checkbox", name="Cross-attention").check()
    expect(page.get_by_role("textbox", name="Key token 1 label")).to_have_value("s1")
    page.get_by_role("button", name="Add key token").click()
    expect(page.get_by_role("textbox", name="X_kv row 4 column 2")).to_have_count(1)
    page.get_by_role("textbox", name="Key token 1 label").fill("le")
    for i, row in enumerate([[1, 0], [0, 1], [1, 1], [2, -1]]):
        for j, v in enumerate(row):
            cell(page, f"X_kv row {i + 1} column {j + 1}").fill(str(v))
    page.wait_for_function("() => location.hash.includes('X_kv=1,0;0,1;1,1;2,-1')")
    wait_settled(page)
    grid = page.get_by_role("grid", name="Attention weights")
    assert grid.get_by_role("columnheader").all_inner_texts()[1:] == ["le", "s2", "s3", "s4"]
    # Keys and values from X_kv, a causal mask aligned top left over a 3 × 4 grid.
    X_kv = np.array([[1, 0], [0, 1], [1, 1], [2, -1]], dtype=float)
    Q = np.array([[1, 0], [0, 1], [1, 1]]) @ np.array([[1, 0], [1, 2]])
    K, V = X_kv @ np.array([[2, 0], [0, 1]]), X_kv @ np.array([[1, 0], [0, 2]])
    s = Q @ K.T / np.sqrt(2)
    s[np.triu_indices(3, 1, 4)] = -np.inf
    A = np.exp(s - s.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    assert heatmap(page) == np.round(A, 3).tolist()
    assert matrix(page, "Z") == np.round(A @ V, 3).tolist()
    expect(page.locator("#cross-note")).to_contain_text(
        "aligned at the top left, as torch's is_causal")
    expect(page.locator("#working")).to_contain_text("le")
    page.get_by_role("checkbox", name="Cross-attention").uncheck()
    wait_settled(page)
    assert heatmap(page) == [[1, 0, 0], [0.5, 0.5, 0], CAT_A[2]]


def numpy_head(X, W_Q, W_K, W_V):
    A, Z = numpy_attention(X, W_Q, W_K, W_V)
    return A, Z


def canvas_pixels(page, head):
    """The RGB of every pixel of head ``head``'s (0-based) canvas, row by row."""
    return page.evaluate("""(k) => {
        const canvas = document.querySelector(`#heatmap [data-head="${k}"] canvas`);
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        return Array.from({ length: data.length / 4 },
                          (_, p) => [data[4 * p], data[4 * p + 1], data[4 * p + 2]]);
    }""", head)


def strongest_keys_text(A, mask_row, i, tokens):
    """What a canvas row should read out: its 3 largest permitted weights, from numpy."""
    keys = sorted((j for j in range(A.shape[1]) if mask_row[j]), key=lambda j: (-A[i, j], j))[:3]
    return "strongest keys: " + ", ".join(f"{tokens[j]} {A[i, j]:.3f}" for j in keys)


def colours_within(page, head, A, units):
    """Whether head ``head``'s canvas is the page's colour scale of A to within ``units``."""
    return page.evaluate("""async ([k, A, units]) => {
        const { weightRGB } = await import(
            document.querySelector('link[rel=modulepreload][href$="/js/lib/colour.js"]').href);
        const canvas = document.querySelector(`#heatmap [data-head="${k}"] canvas`);
        const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let worst = 0;
        A.forEach((row, i) => row.forEach((a, j) => weightRGB(a).forEach((c, ch) => {
            worst = Math.max(worst, Math.abs(c - px[4 * (i * row.length + j) + ch]));
        })));
        return worst <= units ? true : worst;
    }""", [head, A.tolist(), units])


def test_many_tokens_and_heads_draw_from_bytes_and_read_out_the_shown_heads_rows(page, server):
    # 30 tokens, 2 heads: every heatmap is drawn from weights_u8; the shown head's rows
    # read out their strongest keys, the other head's say how to hear them.
    n = 30
    X = np.array([[(i % 5) / 5, round((i % 3) / 3, 2)] for i in range(n)])
    tokens = [f"w{i}" for i in range(n)]
    x = ";".join(f"{a:.1f},{b:.2f}" for a, b in X)
    loaded(page, server.url + f"#tokens={'|'.join(tokens)}&X={x}"
                              f"&heads=2&head=0&W_Q_2=0,1;1,0&W_K_2=1,1;0,1&W_V_2=1,-1;2,0"
                              f"&W_O=1,0;0,1;1,0;0,1&row={n - 1}")
    A1, _ = numpy_attention(X, [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]])
    A2, _ = numpy_attention(X, [[0, 1], [1, 0]], [[1, 1], [0, 1]], [[1, -1], [2, 0]])
    head1 = page.get_by_role("grid", name="Attention weights, head 1")
    head2 = page.get_by_role("grid", name="Attention weights, head 2")
    expect(head2.get_by_role("row")).to_have_count(n)
    everything = [True] * n
    for i in (0, 7, n - 1):
        expect(head1.get_by_role("gridcell").nth(i)).to_have_accessible_name(
            strongest_keys_text(A1, everything, i, tokens))
    expect(head2.get_by_role("gridcell").first).to_have_accessible_name(
        "press Enter to show this head and hear this query's strongest keys")
    # One byte per weight: each pixel is the colour of round(255·a)/255, within 2 units.
    assert colours_within(page, 0, A1, 2) is True
    assert colours_within(page, 1, A2, 2) is True
    # Enter on head 2 shows it: its rows get their numbers, and head 1's wait.
    head2.get_by_role("gridcell").nth(n - 1).focus()
    page.keyboard.press("Enter")
    for i in (0, 7, n - 1):
        expect(head2.get_by_role("gridcell").nth(i)).to_have_accessible_name(
            strongest_keys_text(A2, everything, i, tokens))
    expect(head1.get_by_role("gridcell").first).to_have_accessible_name(
        "press Enter to show this head and hear this query's strongest keys")
    expect(page.locator("#working-sym")).to_contain_text("head 2")
    assert colours_within(page, 1, A2, 2) is True


def test_two_heads_side_by_side_with_concat_and_w_o(page, server):
    loaded(page, server.url)
    beyond(page).get_by_role("button", name="Increase heads").click()
    expect(page.get_by_role("grid", name="Attention weights, head 2")).to_be_visible()
    expect(page.get_by_role("grid", name="Attention weights, head 1")).to_be_visible()
    # Head 2's weights, typed in by hand; W_O starts as two identity blocks.
    W2 = {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]], "W_V": [[1, -1], [2, 0]]}
    for name, m in W2.items():
        for i, row in enumerate(m):
            for j, v in enumerate(row):
                cell(page, f"{name} head 2 row {i + 1} column {j + 1}").fill(str(v))
    expect(page.get_by_role("textbox", name="W_O row 3 column 1", exact=True)).to_have_value("1")
    page.get_by_role("textbox", name="W_O row 4 column 1", exact=True).fill("0.5")
    page.wait_for_function("() => location.hash.includes('W_O=1,0;0,1;1,0;0.5,1')")
    wait_settled(page)
    X = [[1, 0], [0, 1], [1, 1]]
    A1, Z1 = numpy_head(X, [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]])
    A2, Z2 = numpy_head(X, W2["W_Q"], W2["W_K"], W2["W_V"])
    concat = np.hstack([Z1, Z2])
    W_O = np.array([[1, 0], [0, 1], [1, 0], [0.5, 1]])
    grid2 = page.get_by_role("grid", name="Attention weights, head 2")
    rows = grid2.locator("tbody tr")
    shown = [[float(t) for t in rows.nth(i).locator("td").all_inner_texts()] for i in range(3)]
    assert shown == np.round(A2, 3).tolist()
    assert matrix(page, "C") == np.round(concat, 3).tolist()
    assert matrix(page, "O") == np.round(concat @ W_O, 3).tolist()
    # Two heads are written out, no ellipsis; the argument list sits against its name.
    expect(page.locator('figure[data-key="C"] figcaption')).to_have_text("Concat(Z1, Z2)")
    # The heading counts what there is to edit, in agreement with its nouns.
    expect(page.locator("#inputs-sym")).to_have_text("— X, WQ, WK, WV of each of 2 heads, WO")
    # The new head is the one shown: its Q and its working.
    assert matrix(page, "Q") == np.round(np.array(X) @ np.array(W2["W_Q"]), 3).tolist()
    expect(page.locator("#working-sym")).to_contain_text("head 2")
    # Only the shown head's mask is fetched; the other heads' heatmaps draw it too.
    page.get_by_role("checkbox", name="Causal mask").check()
    wait_settled(page)
    for name in ("Attention weights, head 1", "Attention weights, head 2"):
        masked = page.get_by_role("grid", name=name).locator("td.masked")
        expect(masked).to_have_count(3)
        cells = [td.get_attribute("data-i") + td.get_attribute("data-j") for td in masked.all()]
        assert cells == ["01", "02", "12"]
    page.get_by_role("checkbox", name="Causal mask").uncheck()
    wait_settled(page)
    # Clicking head 1's row 1 shows head 1 again.
    head1 = page.get_by_role("grid", name="Attention weights, head 1")
    head1.locator("tbody tr").first.locator("td").first.click()
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”, head 1")
    assert matrix(page, "Q") == [[1, 0], [1, 2], [2, 2]]
    # Back to one head: no W_O, the hand-worked numbers again.
    page.get_by_role("button", name="Decrease heads").click()
    expect(page.get_by_role("textbox", name="W_O row 1 column 1", exact=True)).to_have_count(0)
    wait_settled(page)
    assert heatmap(page) == CAT_A


def test_every_heads_grid_is_reachable_by_tab(page, server):
    loaded(page, server.url + "#heads=2&head=0&W_Q_2=0,1;1,0&W_K_2=1,1;0,1&W_V_2=1,-1;2,0"
                              "&W_O=1,0;0,1;1,0;0,1")
    head2 = page.get_by_role("grid", name="Attention weights, head 2")
    tab_until(page, "() => document.activeElement.closest('[data-head]')?.dataset.head", "1",
              "head 2's grid")
    page.keyboard.press("Enter")
    expect(page.locator("#working-sym")).to_contain_text("head 2")
    expect(head2.locator("tbody tr").nth(2)).to_have_attribute("aria-selected", "true")


def test_a_linked_view_appears_whole_once_its_first_answer_is_in(page, server):
    # A view the server did not send with the page: the inputs and the numbers appear in
    # one frame, when the first answer is in; until then the blocks are not drawn.
    held = []
    page.route("**/api/attention", lambda route: held.append(route))
    page.goto(server.url + "#tokens=a|b&X=1,0;0,1&causal=1&row=1")
    page.wait_for_function("() => document.readyState === 'complete'")
    assert page.evaluate("document.documentElement.classList.contains('is-loading')")
    expect(page.get_by_role("textbox", name="X row 1 column 1", exact=True)).to_be_hidden()
    wait_until(page, lambda: held, "the first request is held")
    assert len(held) == 1
    held[0].continue_()
    wait_settled(page)
    assert not page.evaluate("document.documentElement.classList.contains('is-loading')")
    # The inputs on screen are drawn in the frame that reveals them, then left to the browser.
    page.wait_for_function("() => [...document.querySelectorAll('#inputs figure')]"
                           ".every(f => !f.style.contentVisibility)")
    expect(page.get_by_role("textbox", name="X row 1 column 1", exact=True)).to_be_visible()
    assert heatmap(page) == [[1, 0], [0.5, 0.5]]  # causal; q·k equal for both keys on row 2


def test_a_linked_view_with_an_invalid_cell_appears_at_once(page, server):
    # Nothing to wait for: the page is shown with the marked input as soon as main.js has
    # run, not at the deadline for an answer (REVEAL_MS, 1.5 s after it started).
    page.add_init_script("""new MutationObserver((_, watch) => {
      if (document.documentElement.classList.contains('is-loading')) return;
      window.__shownAt = performance.now();
      watch.disconnect();
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'] });""")
    page.goto(server.url + "#tokens=a|b&X=1,abc;0,1&row=1")
    page.wait_for_function("() => window.__shownAt !== undefined")
    expect(cell(page, "X row 1 column 2")).to_have_attribute("aria-invalid", "true")
    after_main = page.evaluate(
        "window.__shownAt - performance.getEntriesByName([...document.scripts]"
        ".find(s => s.src.endsWith('/js/editor/main.js')).src)[0].responseEnd")
    assert after_main < 1000, f"shown {after_main:.0f} ms after main.js arrived"


def test_the_other_heads_inputs_come_right_after_the_first_paint_with_the_links_values(
        page, server):
    # Head 1's inputs are drawn first; those of head 2 and W_O follow the first paint.
    link = ("#heads=2&head=0&W_Q_2=0,1;1,0&W_K_2=1,1;0,1&W_V_2=1,-1;2,0"
            "&W_O=1,0;0,1;1,0;0,0.5&row=2")
    loaded(page, server.url + link)
    expect(cell(page, "W_V head 2 row 1 column 2")).to_have_value("-1")
    expect(cell(page, "W_O row 4 column 2")).to_have_value("0.5")
    grid = page.get_by_role("grid", name="Attention weights, head 2")
    A2, _ = numpy_attention([[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0]], [[1, 1], [0, 1]],
                            [[1, -1], [2, 0]])
    shown = [[float(c) for c in r.locator("td").all_inner_texts()]
             for r in grid.locator("tbody tr").all()]
    assert shown == np.round(A2, 3).tolist()
    # An invalid cell of head 2 is marked once its input is there, and nothing is computed.
    page.goto("about:blank")
    page.goto(server.url + link.replace("W_K_2=1,1;", "W_K_2=1,x;"))
    x = cell(page, "W_K head 2 row 1 column 2")
    expect(x).to_have_value("x")
    expect(x).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#input-errors")).to_contain_text(
        "W_K head 2 row 1 column 2: “x” is not a number.")
