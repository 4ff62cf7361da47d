""""What n² costs" (static/js/editor/cost.js) in a real browser: the default example's
multiply-adds and bytes counted by hand, and a measurement drawn with its two slopes."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.helpers import loaded


def test_the_formulas_and_a_measurement(page, server):
    """3 tokens, d_model = d_k = d_v = 2: QKᵀ takes 3·3·2 = 18 multiply-adds and A holds
    3·3·8 = 72 bytes."""
    loaded(page, server.url)
    block = page.locator("#cost-block")
    block.scroll_into_view_if_needed()
    steps = block.get_by_role("table", name="Multiply-adds of each step")
    expect(steps.locator("tbody tr").nth(3)).to_have_text("QKᵀn · m · d_k18")
    expect(block.get_by_role("table", name="Bytes of each matrix").locator("tbody tr").nth(4)
           ).to_have_text("An × m72")
    block.get_by_role("button", name="Measure on this server").click()
    expect(block.locator(".cost-status")).to_contain_text("At n = 512 the engine took",
                                                           timeout=15000)
    expect(block.locator(".cost-plot polyline")).to_have_count(2)
    label = block.get_by_role("img").get_attribute("aria-label")
    assert label.startswith("Time against n on log–log axes: the engine's slope ")
    found = Axe().run(page, context="#cost-block")
    assert found.violations_count == 0, found.generate_report()


def test_the_formulas_follow_an_edit(page, server):
    loaded(page, server.url)
    block = page.locator("#cost-block")
    block.scroll_into_view_if_needed()
    steps = block.get_by_role("table", name="Multiply-adds of each step")
    expect(steps.locator("tbody tr").nth(3)).to_have_text("QKᵀn · m · d_k18")
    tokens = page.get_by_role("textbox", name="Tokens", exact=True)
    tokens.fill("4")
    tokens.press("Enter")
    block.scroll_into_view_if_needed()
    expect(steps.locator("tbody tr").nth(3)).to_have_text("QKᵀn · m · d_k32")  # 4·4·2
