"""The editable inputs beyond 16 rows or columns: paged into view, editable, in the URL whole."""

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.editor.test_widget import numpy_attention
from tests.browser.helpers import cell, expect_url, hash_matrix, loaded

pytestmark = pytest.mark.browser

CAT = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])


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
    # 2 columns: one page
    expect(page.get_by_role("button", name="Next columns of X")).to_be_hidden()
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
        "want => JSON.stringify([...document.querySelectorAll('table.grid tbody tr')]"
        ".map(r => [...r.cells].slice(1).map(c => Number(c.textContent))))"
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
    rows_pager = page.locator('#inputs figure[data-key="X"] .pager-axis[data-axis="rows"]')
    expect(rows_pager).to_be_hidden()  # 3 tokens
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


def test_under_w_q_w_k_and_w_v_a_quiet_line_says_what_each_makes(page, server):
    """The walk's intuitions, where a student meets the matrices: small, muted lines under
    the names of W_Q, W_K and W_V (of every head), none under X."""
    loaded(page, server.url)
    for key, line in [("W_Q", "each token's query: what it is looking for"),
                      ("W_K", "each token's key: what it offers"),
                      ("W_V", "each token's value: what it passes on")]:
        role = page.locator(f'figure[data-key="{key}"] .role')
        expect(role).to_have_text(line)
        expect(role).to_be_visible()
        size = role.evaluate("n => parseFloat(getComputedStyle(n).fontSize)")
        caption = page.locator(f'figure[data-key="{key}"] figcaption').evaluate(
            "n => parseFloat(getComputedStyle(n).fontSize)")
        assert size < caption, (key, size, caption)
        # Below the name, above the matrix.
        top = role.bounding_box()["y"]
        assert page.locator(f'figure[data-key="{key}"] figcaption').bounding_box()["y"] < top
        assert top < page.locator(f'figure[data-key="{key}"] table.cells').bounding_box()["y"]
    expect(page.locator('figure[data-key="X"] .role')).to_have_count(0)
    expect(page.locator('figure[data-key="X"]')).not_to_contain_text("null")


def test_a_label_longer_than_its_column_is_whole_while_focused_and_moves_nothing(page, server):
    loaded(page, server.url)
    label = page.get_by_role("textbox", name="Token 1 label", exact=True)
    first_cell = cell(page, "X row 1 column 1")
    long = "a label far longer than its column"
    label.fill(long)
    page.get_by_role("textbox", name="Token 2 label", exact=True).focus()
    page.mouse.move(0, 0)
    cut = "i => i.scrollWidth > i.clientWidth"
    assert label.evaluate(cut), "at rest the column keeps its cap"
    width, x = label.bounding_box()["width"], first_cell.bounding_box()["x"]
    assert width <= 9 * 16 + 1, width
    label.focus()
    expect(label).to_have_value(long)
    assert not label.evaluate(cut), "focused, the whole label shows"
    assert label.bounding_box()["width"] > width
    assert first_cell.bounding_box()["x"] == x  # over the matrix: nothing moves
    page.get_by_role("textbox", name="Token 2 label", exact=True).focus()
    label.hover()
    assert not label.evaluate(cut), "under the pointer too"
