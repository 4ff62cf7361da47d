"""The URL as the page's history: a keystroke that changes nothing keeps the edit's entry."""

import pytest
from playwright.sync_api import expect

from tests.browser.editor.test_widget import CAT_A
from tests.browser.helpers import cell, expect_url, heatmap, loaded, wait_settled

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


def test_a_small_views_edit_is_in_the_url_after_its_frame_before_its_answer(page, server):
    """The URL is written once the frame that paints the keystroke has painted, not in the
    keystroke's own task (there it held up that frame, and the answer drawn after it, by
    1–4 ms at 3 tokens: benchmarks/bench_browser.py), and without waiting for the answer."""
    loaded(page, server.url)
    held = []
    page.route("**/api/attention", lambda route: held.append(route))
    in_its_task = page.evaluate("""() => {
      const input = document.querySelector('[aria-label="X row 1 column 1"]');
      input.value = '7';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return location.hash;
    }""")
    assert "X=7," not in in_its_task
    expect_url(page, "X=7,0;")
    assert held, "the answer is still held back"
    page.unroute("**/api/attention")  # the held request goes on to the server
