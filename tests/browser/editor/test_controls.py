"""The controls bar typed into: a seed typed but not yet applied, the token counts, the
dimensions and the heads, each with the message of a value out of range."""

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.editor.test_widget import numpy_attention
from tests.browser.helpers import (
    beyond,
    cell,
    expect_url,
    hash_matrix,
    heatmap,
    loaded,
    wait_settled,
)

pytestmark = pytest.mark.browser

CAT = dict(W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]], W_V=[[1, 0], [0, 2]])


def x_values(page, n, d=2):
    return [[cell(page, f"X row {i + 1} column {j + 1}").input_value() for j in range(d)]
            for i in range(n)]


def test_random_uses_a_seed_typed_but_not_yet_applied(page, server, browser):
    # The reference: seed 42 applied with Enter in a page of its own.
    loaded(page, server.url)
    seed = beyond(page).get_by_role("spinbutton", name="Seed", exact=True)
    seed.fill("42")
    seed.press("Enter")
    expect_url(page, "seed=42")
    want = x_values(page, 3)
    assert want != [["1", "0"], ["0", "1"], ["1", "1"]]
    # Typed, then "Random" pressed at once: the typed seed is the one used.
    loaded(page, server.url + "#seed=1")
    beyond(page)
    seed.fill("42")
    page.get_by_role("button", name="Random").click()
    expect_url(page, "seed=42")
    expect(seed).to_have_value("42")
    assert x_values(page, 3) == want
    # Pressed again with nothing typed, it draws a new seed.
    page.get_by_role("button", name="Random").click()
    page.wait_for_function(r"() => !/[#&]seed=42(&|$)/.test(location.hash)")  # seed=421… is new
    assert seed.input_value() != "42"


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
    expect(page.get_by_role("status")).to_have_text(
        "Tokens must be a whole number from 1 to 512; “abc” is not.")
    expect(tokens).to_have_value("abc")
    tokens.fill("600")
    tokens.press("Enter")
    expect(page.get_by_role("status")).to_have_text(
        "Tokens must be a whole number from 1 to 512; “600” is not.")
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
    heads = beyond(page).get_by_role("spinbutton", name="Heads", exact=True)
    heads.fill("3")
    heads.press("Enter")
    expect(page.get_by_role("grid", name="Attention weights, head 3")).to_have_count(1)
    d_v = page.get_by_role("spinbutton", name="dv", exact=True)
    d_v.fill("300")
    d_v.press("Enter")
    expect(page.get_by_role("status")).to_have_text(
        "d_v must be a whole number from 1 to 256; “300” is not.")
    expect(d_v).to_have_value("2")


def test_the_key_token_count_can_be_typed_in_cross_attention(page, server):
    loaded(page, server.url)
    keys = page.get_by_role("textbox", name="Key tokens", exact=True)
    expect(keys).to_be_hidden()
    beyond(page).get_by_role("checkbox", name="Cross-attention").check()
    expect(keys).to_have_value("3")
    keys.fill("5")
    keys.press("Enter")
    expect(page.get_by_role("textbox", name="Key token 5 label")).to_have_value("s5")
    page.wait_for_function(
        "() => document.querySelectorAll('table.grid thead th[role=columnheader]').length === 5")
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
    expect(page.get_by_role("status")).to_have_text(
        "Key tokens must be a whole number from 1 to 512; “0” is not.")


def test_the_example_names_the_preset_the_numbers_are_and_says_edited_once_they_differ(
        page, server):
    loaded(page, server.url)
    example = page.get_by_label("Example")
    expect(example).to_have_value("0")
    x11 = cell(page, "X row 1 column 1")
    x11.fill("5")
    expect(example).to_have_value("edited")
    x11.fill("1")  # typed back: the first example again
    expect(example).to_have_value("0")
    example.select_option(label="a causal sentence")
    expect(example).to_have_value("3")
    cell(page, "X row 2 column 1").fill("9")
    expect(example).to_have_value("edited")
    example.select_option(label="the cat sat")
    expect(example).to_have_value("0")
