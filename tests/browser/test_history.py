"""The URL as the page's history: a keystroke that changes nothing keeps the edit's entry."""

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import cell, expect_url, heatmap, loaded, wait_settled
from tests.browser.test_widget import CAT_A

pytestmark = pytest.mark.browser


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
