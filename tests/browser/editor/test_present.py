"""Present mode and a clicker: the URL follows present mode at once, and PageDown/PageUp and
the arrow keys step the walk, without taking the keys of a field, of the heatmap or of a
step-by-step panel."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import cell, loaded

pytestmark = pytest.mark.browser

# A key pressed and the URL read in the same task: written "at once" means before any frame.
PRESS_AND_READ = """key => {
  const event = new KeyboardEvent("keydown", {key, bubbles: true, cancelable: true});
  document.activeElement.dispatchEvent(event);
  return location.hash;
}"""
CLICK_AND_READ = "id => { document.getElementById(id).click(); return location.hash; }"


def test_present_mode_is_in_the_url_at_once_and_escape_drops_it_at_once(browser, console, server):
    page = open_page(browser, console, 1280, 720)
    loaded(page, server.url)
    hash_ = page.evaluate(CLICK_AND_READ, "present")
    assert hash_.endswith("&present=1"), hash_
    expect(page.locator("html")).to_have_class(re.compile(r"\bpresent\b"))
    hash_ = page.evaluate(PRESS_AND_READ, "Escape")
    assert "present=1" not in hash_ and hash_.endswith("&present=0"), hash_
    expect(page.locator("html")).not_to_have_class(re.compile(r"\bpresent\b"))
    # "Exit present mode" likewise.
    page.evaluate(CLICK_AND_READ, "present")
    assert page.evaluate(CLICK_AND_READ, "present").endswith("&present=0")
    page.close()


def walk_step(page):
    return page.get_by_role("region", name="Walk through the calculation").locator(".walk-count")


def test_a_clickers_keys_step_the_walk_in_present_mode(browser, console, server):
    page = open_page(browser, console, 1280, 720)
    loaded(page, server.url)
    page.get_by_role("button", name="Present").click()
    page.get_by_role("button", name="Walk me through it").click()
    step = walk_step(page)
    expect(step).to_have_text("Step 1 of 8")
    for key, shown in [("PageDown", 2), ("ArrowRight", 3), ("PageDown", 4), ("PageUp", 3),
                       ("ArrowLeft", 2), ("ArrowLeft", 1), ("PageUp", 1)]:
        page.keyboard.press(key)
        expect(step).to_have_text(f"Step {shown} of 8")
    # Whatever has the focus (here nothing: a clicker's key goes to the page).
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("PageDown")
    expect(step).to_have_text("Step 2 of 8")
    page.keyboard.press("Alt+ArrowLeft")  # the browser's Back, not the walk's
    expect(page.locator("html")).to_have_class(re.compile(r"\bpresent\b"))
    for _ in range(7):  # past the last step the walk ends, as "Finish" ends it
        page.keyboard.press("PageDown")
    expect(page.get_by_role("region", name="Walk through the calculation")).to_be_hidden()
    page.close()


def test_the_walks_keys_leave_a_field_the_heatmap_and_a_step_panel_theirs(page, server):
    loaded(page, server.url)
    page.get_by_role("button", name="Walk me through it").click()
    step = walk_step(page)
    page.keyboard.press("PageDown")  # out of present mode too
    expect(step).to_have_text("Step 2 of 8")
    # In a cell of X the arrows move the caret, and what is typed edits it.
    x = cell(page, "X row 1 column 1")
    x.focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.type("2")
    expect(x).to_have_value("21")
    page.keyboard.press("ArrowRight")
    expect(step).to_have_text("Step 2 of 8")
    x.fill("1")
    # On the heatmap the arrows move its focused cell, and at its edge they do nothing.
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(3).get_by_role("gridcell").nth(0).focus()
    page.keyboard.press("ArrowRight")
    expect(grid.get_by_role("row").nth(3).get_by_role("gridcell").nth(1)).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(grid.get_by_role("row").nth(3).get_by_role("gridcell").nth(2)).to_be_focused()
    expect(step).to_have_text("Step 2 of 8")
    # In "Step through the tiles" ← and → step the tiles, also past its last tile.
    tiles = page.locator("#tiles-block")
    tiles.scroll_into_view_if_needed()
    tiles.get_by_role("button", name="Next tile").click()
    status = tiles.locator(".gen-status")
    expect(status).to_contain_text("Tile 1 of 2")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(status).to_contain_text("After 2 tiles")
    expect(tiles.get_by_role("button", name="Next tile")).to_be_disabled()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(status).to_contain_text("Tile 2 of 2")
    expect(step).to_have_text("Step 2 of 8")
