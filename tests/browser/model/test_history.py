"""The real-model view's history, as the editor's: each change of head, text, model or mask
is an entry that Back undoes and Forward redoes; a row chosen joins its head's entry; the
skip links move the focus and leave the view's fragment alone."""

import re
from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import SETTLE_MS
from tests.browser.model.test_view import (
    grid_shape,
    head_inputs,
    open_view,
    reference,
    settled,
    shown_weights,
)

pytestmark = pytest.mark.browser

TEXT = "The capital of France is"


def in_url(page, *parts):
    for part in parts:
        expect(page).to_have_url(re.compile(re.escape(part)), timeout=SETTLE_MS)


def weights_of(page, server, model, text, layer, head, causal):
    """The head's weights computed here, from the API's X and W alone."""
    return reference(head_inputs(page, server, model, text, layer, head), causal)[1]


def test_back_undoes_a_head_switch_and_forward_redoes_it(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(TEXT)}&layer=0&head=0")
    first = weights_of(page, server, "smollm2-135m", TEXT, 0, 0, causal=True)
    assert shown_weights(page) == pytest.approx(first, abs=6e-4)
    page.get_by_role("gridcell", name="Layer 3 head 2", exact=True).click()
    in_url(page, "layer=2&head=1")
    expect(page.locator("#h-head")).to_contain_text("Layer 3 head 2")
    settled(page)
    other = weights_of(page, server, "smollm2-135m", TEXT, 2, 1, causal=True)
    assert np.abs(other - first).max() > 0.01  # the two heads are told apart
    # A row chosen joins the head's entry: Back goes past it to the head before.
    page.locator('#heatmap td[data-i="1"][data-j="0"]').click()
    expect(page.locator("#working-sym")).to_contain_text("query 2,")
    in_url(page, "layer=2&head=1&row=1")
    page.go_back()
    in_url(page, "layer=0&head=0&row=&")
    expect(page.locator("#h-head")).to_contain_text("Layer 1 head 1")
    settled(page)
    assert shown_weights(page) == pytest.approx(first, abs=6e-4)
    expect(page.locator("#working-sym")).to_contain_text("query 5, “␣is”, layer 1 head 1")
    expect(page.get_by_role("gridcell", name="Layer 1 head 1", exact=True)).to_have_attribute(
        "aria-selected", "true")
    page.go_forward()
    in_url(page, "layer=2&head=1&row=1")
    expect(page.locator("#h-head")).to_contain_text("Layer 3 head 2")
    settled(page)
    assert shown_weights(page) == pytest.approx(other, abs=6e-4)
    expect(page.locator("#working-sym")).to_contain_text("query 2, “␣capital”, layer 3 head 2")


def test_back_undoes_a_text_edit_and_the_text_comes_back_with_forward(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(TEXT)}")
    box = page.locator("#text")
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("The cat sat")
    in_url(page, f"text={quote('The cat sat')}")
    settled(page)
    expect(page.locator("#heatmap table.grid tbody tr")).to_have_count(3)
    page.go_back()
    in_url(page, f"text={quote(TEXT)}")
    expect(box).to_have_value(TEXT)
    settled(page)
    expect(page.locator("#heatmap table.grid tbody tr")).to_have_count(5)
    assert shown_weights(page) == pytest.approx(
        weights_of(page, server, "smollm2-135m", TEXT, 0, 0, causal=True), abs=6e-4)
    page.go_forward()
    expect(box).to_have_value("The cat sat")
    settled(page)
    expect(page.locator("#heatmap table.grid tbody tr")).to_have_count(3)


def test_back_undoes_a_model_switch_and_a_mask_switch(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(TEXT)}&layer=1&head=2")
    page.select_option("#model", "minilm-l6")
    in_url(page, "model=minilm-l6")
    settled(page)
    assert grid_shape(page) == [6, 12]
    page.get_by_label("Causal mask").check()
    in_url(page, "model=minilm-l6", "causal=1")
    settled(page)
    page.go_back()
    in_url(page, "model=minilm-l6", "causal=0")
    expect(page.get_by_label("Causal mask")).not_to_be_checked()
    settled(page)
    page.go_back()
    in_url(page, "model=smollm2-135m", "layer=1&head=2")
    expect(page.locator("#model")).to_have_value("smollm2-135m")
    expect(page.get_by_label("Causal mask")).to_be_checked()
    settled(page)
    assert grid_shape(page) == [30, 9]
    expect(page.locator("#h-head")).to_contain_text("Layer 2 head 3")
    assert shown_weights(page) == pytest.approx(
        weights_of(page, server, "smollm2-135m", TEXT, 1, 2, causal=True), abs=6e-4)
    expect(page.locator("#working-sym")).to_contain_text("query 5, “␣is”, layer 2 head 3")


def test_a_skip_link_moves_the_focus_and_keeps_the_view(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote('The cat sat')}&layer=4&head=3")
    url = page.url
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to the layers and heads")
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to the working")
    page.keyboard.press("Enter")
    expect(page.locator(":focus")).to_have_id("working-block")
    assert page.url == url
    page.get_by_role("link", name="Skip to the layers and heads").focus()
    page.keyboard.press("Enter")
    expect(page.locator(":focus")).to_have_attribute("aria-label", "Layer 5 head 4")
    assert page.url == url
    expect(page.locator("#text")).to_have_value("The cat sat")
    settled(page)
    expect(page.locator("#h-head")).to_contain_text("Layer 5 head 4")
