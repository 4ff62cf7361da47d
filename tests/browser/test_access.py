"""Keyboard alone, screen-reader names, axe-core, the lost connection and an answer that
cannot be read, both widths."""

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import Server, open_page
from tests.browser.editor.test_widget import CAT_A, numpy_attention
from tests.browser.helpers import beyond, cell, heatmap, loaded, tab_until, wait_settled
from tests.browser.test_first_screen import HEAD_2, expect_open

pytestmark = pytest.mark.browser


def tab_to(page, name, key="Tab"):
    script = ("() => { const a = document.activeElement; return (a.getAttribute('aria-label') ||"
              " (a.labels && a.labels[0] && a.labels[0].textContent) || a.textContent).trim(); }")
    tab_until(page, script, name, repr(name), key=key)


def test_the_whole_flow_by_keyboard_alone(page, server):
    loaded(page, server.url)
    tab_to(page, "X row 3 column 1")
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    A, _ = numpy_attention([[1, 0], [0, 1], [2, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
                           [[1, 0], [0, 2]])
    page.wait_for_function("want => document.querySelector('table.grid tbody tr:nth-child(3) td')"
                           ".textContent === want", arg=f"{A[2][0]:.3f}")
    # Into the heatmap: one Tab stop, then arrows.
    tab_until(page, "() => document.activeElement.getAttribute('role')", "gridcell", "the heatmap")
    assert page.evaluate("() => document.activeElement.dataset.i") == "2"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”")
    page.keyboard.press("ArrowRight")
    focused = "() => [document.activeElement.dataset.i, document.activeElement.dataset.j]"
    assert page.evaluate(focused) == ["0", "1"]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator("#working-sym")).to_have_text("— query 2, “cat”")
    grid = page.get_by_role("grid", name="Attention weights")
    expect(grid.get_by_role("row").nth(2)).to_have_attribute("aria-selected", "true")
    # Back to the checkbox and tick it with the space bar.
    tab_to(page, "Causal mask", key="Shift+Tab")
    page.keyboard.press("Space")
    page.wait_for_function("() => document.querySelectorAll('table.grid td.masked').length === 3")
    wait_settled(page)
    assert heatmap(page)[0] == [1, 0, 0]
    # Focus is always visible: the focused control draws an outline.
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"


def test_every_input_has_the_contract_name(page, server):
    loaded(page, server.url)
    for name in ("X row 1 column 1", "X row 3 column 2", "W_Q row 2 column 1", "W_K row 1 column 2",
                 "W_V row 2 column 2", "Token 1 label", "Token 3 label"):
        expect(page.get_by_role("textbox", name=name, exact=True)).to_have_count(1)
    expect(page.get_by_role("checkbox", name="Causal mask")).to_have_count(1)
    expect(page.get_by_role("grid", name="Attention weights")).to_have_count(1)
    assert page.get_by_role("grid", name="Attention weights").get_by_role("row").count() == 4


@pytest.mark.parametrize("width", [1280, 1024, 390])
def test_axe_finds_no_wcag_a_or_aa_violations(browser, console, server, width):
    page = open_page(browser, console, width=width)
    loaded(page, server.url + "#causal=1")
    cell(page, "X row 2 column 2").fill("oops")  # an invalid input and its message too
    expect(page.locator("#stale-note")).to_be_visible()
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


@pytest.mark.parametrize("width", [1280, 1024, 390])
@pytest.mark.parametrize("fragment", ["", "#heads=2&head=0" + HEAD_2 + "&positional=rope"
                                          "&window=2&sinks=1&tokens_kv=a|b&X_kv=1,0;0,1"])
def test_axe_finds_nothing_with_the_group_closed_or_open(browser, console, server, width, fragment):
    page = open_page(browser, console, width=width)
    loaded(page, server.url + fragment)
    if fragment:
        beyond(page)  # a phone leaves it closed
    expect_open(page, bool(fragment))
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()


def test_server_down_message_and_recovery(browser, console):
    own = Server()
    page = open_page(browser, console)
    try:
        loaded(page, own.url)
        own.stop()
        x = cell(page, "X row 3 column 1")
        x.fill("2")
        status = page.get_by_role("status")
        expect(status).to_contain_text("cannot be reached", timeout=10_000)
        expect(page.locator("#stale-note")).to_have_text(
            "Out of date — the server cannot be reached; your edits are kept and sent when it "
            "answers.")
        assert page.locator('[aria-invalid="true"]').count() == 0  # nothing typed is at fault
        expect(x).to_have_value("2")
        assert heatmap(page) == CAT_A, "the last good numbers stay on screen"
        own.start()
        expect(status).to_contain_text("Connected again", timeout=15_000)
        wait_settled(page)
        expect(page.locator("#stale-note")).to_be_hidden()
        A, _ = numpy_attention([[1, 0], [0, 1], [2, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]],
                               [[1, 0], [0, 2]])
        assert heatmap(page) == np.round(A, 3).tolist()
    finally:
        console[:] = [m for m in console if "Failed to load resource" not in m[1]
                      and "ERR_CONNECTION_REFUSED" not in m[1]]
        page.close()
        own.stop()


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_screenshots_and_no_sideways_scroll(browser, console, server, artifacts, width, height):
    page = open_page(browser, console, width=width, height=height)
    loaded(page, server.url)
    page.evaluate("document.fonts.ready")
    page.screenshot(path=str(artifacts / f"page-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Every block stays inside the viewport; wide matrices scroll inside their own box.
    overflow = page.evaluate("""w => [...document.querySelectorAll('.block, .matrix, .heatmap')]
        .filter(e => e.getBoundingClientRect().right > w + 0.5).map(e => e.className)""", width)
    assert overflow == []
    page.close()


def test_wide_matrices_scroll_in_their_own_box_on_a_phone(browser, console, server, artifacts):
    page = open_page(browser, console, width=390, height=844)
    loaded(page, server.url + "#tokens=a|b|c|d|e|f|g|h&X=" + ";".join(["1,0"] * 8))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    scrollers = page.evaluate("""() => [...document.querySelectorAll('.heatmap, .scroll')]
        .filter(e => e.scrollWidth > e.clientWidth).length""")
    assert scrollers >= 1
    page.screenshot(path=str(artifacts / "page-390-8-tokens.png"), full_page=True)
    page.close()


def test_favicon_and_no_console_errors_on_load(page, server):
    failed = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    loaded(page, server.url)
    assert failed == []
    assert page.title().startswith("Attention Explorer")
    assert page.locator('meta[name="description"]').get_attribute("content")


def test_the_permissions_policy_is_understood_and_leaves_the_clipboard(page, console, server):
    loaded(page, server.url)
    # KaTeX's fonts may still be arriving; a page closed mid-file leaves the test server's
    # file open (a ResourceWarning in the next test).
    page.wait_for_load_state("networkidle")
    allows = page.evaluate("""() => Object.fromEntries(
        ['camera', 'microphone', 'geolocation', 'usb', 'clipboard-write']
          .map(f => [f, document.featurePolicy.allowsFeature(f)]))""")
    assert allows == {"camera": False, "microphone": False, "geolocation": False,
                      "usb": False, "clipboard-write": True}
    # Chromium warns (not errs) of a feature it does not know: none is named.
    assert [m for m in console if "Permissions-Policy" in m[1]] == []


def test_an_answer_that_cannot_be_read_is_said_once_and_not_retried(page, console, server):
    loaded(page, server.url)
    posts = []

    def proxy_error(route):
        posts.append(route.request.url)
        route.fulfill(status=502, content_type="text/html",
                      body="<html><h1>502 Bad Gateway</h1></html>")

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


@pytest.mark.parametrize("width", [1280, 390])
def test_a_matrix_wider_than_its_box_is_a_named_tab_stop(browser, console, server, width):
    """Four heads' Concat is 8 numbers wide: its box scrolls, so the keyboard can reach it,
    and axe stays clean. A matrix that fits is no tab stop."""
    page = open_page(browser, console, width=width)
    loaded(page, server.url)
    page.get_by_label("Example").select_option(label="grouped-query heads")
    concat = page.locator('figure[data-key="C"] .scroll')
    # Below the first screen the browser lays the results out only as they near it
    # (content-visibility: auto), and the box learns it overflows then.
    concat.scroll_into_view_if_needed()
    expect(concat).to_have_attribute("tabindex", "0")
    expect(concat).to_have_attribute("role", "region")
    assert concat.evaluate("s => s.scrollWidth > s.clientWidth")
    assert page.locator('figure[data-key="K"] .scroll').get_attribute("tabindex") is None
    concat.focus()
    concat.press("ArrowRight")
    scrolled = "() => document.querySelector('figure[data-key=\"C\"] .scroll').scrollLeft > 0"
    page.wait_for_function(scrolled)  # the arrow key scrolls the matrix
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    page.close()
