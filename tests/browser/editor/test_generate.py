""""Generate step by step" (static/js/editor/running/generate.js) in a real browser: the causal
default example generated token by token by keyboard, each step's new row and the cache
growing, and a view that is not causal told why it cannot be."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.helpers import loaded


def panel(page):
    block = page.locator("#generate-block")
    block.scroll_into_view_if_needed()
    return block


def test_the_causal_example_step_by_step_by_keyboard(page, server):
    """"the cat sat", causal: token 2 reads keys 1 and 2 equally (q₂·k = 2, 2); token 3 the
    page's row 3, 0.187, 0.045, 0.768, over K and V of three rows each."""
    loaded(page, server.url + "#causal=1")
    block = panel(page)
    block.get_by_role("button", name="Step forward").focus()
    page.keyboard.press("Enter")
    status = block.locator(".gen-status")
    expect(status).to_have_text("Step 1 of 3: token 1 “the” reads 1 key")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text("Step 2 of 3: token 2 “cat” reads 2 keys")
    expect(block.locator(".gen-line").nth(1)).to_have_text(
        "q₂·kⱼ for the 2 cached keys = (2.000, 2.000)")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text("Step 3 of 3: token 3 “sat” reads 3 keys")
    expect(block.locator(".gen-line").nth(2)).to_have_text(
        "Row 3 of A = (0.187, 0.045, 0.768); z₃ = (0.955, 1.627)")
    expect(block.get_by_role("table", name="K cache, 3 rows").locator("tbody tr")).to_have_count(3)
    expect(block.get_by_role("table", name="V cache, 3 rows").locator("tr.gen-new")).to_have_text(
        "3 sat (new)1.0002.000")
    expect(block.locator(".gen-cost")).to_have_text(
        "3 dot products with the cache, against 9 to compute every row again. "
        "Cache: 3 tokens, 12 numbers, 96 bytes.")
    expect(block.get_by_role("button", name="Step forward")).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    expect(status).to_have_text("Step 2 of 3: token 2 “cat” reads 2 keys")
    found = Axe().run(page, context="#generate-block")
    assert found.violations_count == 0, found.generate_report()


def test_a_view_that_is_not_causal_is_told_to_turn_the_mask_on(page, server):
    loaded(page, server.url)
    block = panel(page)
    block.get_by_role("button", name="Step forward").click()
    expect(block.locator(".gen-status")).to_have_text(
        "Generation is causal: turn on “Causal mask” above to step through it.")
    page.get_by_label("Causal mask").check()
    block.get_by_role("button", name="Step forward").click()
    expect(block.locator(".gen-status")).to_have_text("Step 1 of 3: token 1 “the” reads 1 key")
