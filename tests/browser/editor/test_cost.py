""""What n² costs" (static/js/editor/running/cost.js) in a real browser: the default example's
multiply-adds and bytes counted by hand, and a measurement drawn with its two slopes."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
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
    with page.expect_response(lambda r: r.url.endswith("/api/cost")
                              and '"measure":true' in (r.request.post_data or "")) as reply:
        block.get_by_role("button", name="Measure on this server").click()
    assert reply.value.status == 200
    measured = reply.value.json()["measured"]
    expect(block.locator(".cost-status")).to_contain_text("At n = 512 the engine took",
                                                           timeout=15000)
    slopes = [f"{measured[k]['slope']:.2f}".replace("-", "\u2212") for k in ("standard", "tiled")]
    time = block.get_by_role("img", name="Time against n on log–log axes: the engine's slope "
                                          f"{slopes[0]}, the tiles' {slopes[1]}")
    expect(time.locator("polyline")).to_have_count(2)
    # 512 tokens hold 512² · 8 = 2,097,152 bytes of scores; one 64 × 64 tile 32,768.
    memory = block.get_by_role("img", name="Scores held at once against n on log–log axes: the "
                                            "engine's grow as n² (slope 2), the tiles' stay "
                                            "32.8 KB (slope 0)")
    expect(memory.locator("text")).to_contain_text(["32.8 KB", "2.1 MB"])  # the y axis, low to high
    expect(block.locator(".cost-legend li")).to_have_text([
        f"engine: slope {slopes[0]}", f"tiles of 64 × 64: slope {slopes[1]}",
        "engine: 8 · n² bytes, slope 2", "tiles: 8 · 64² bytes = 32.8 KB, slope 0"])
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


def test_the_plots_fit_a_phone_and_their_type_stays_legible(browser, console, server):
    """At 390 px the two plots stack, each inside the page, their type at least 10 px."""
    page = open_page(browser, console, 390, 844)
    loaded(page, server.url)
    block = page.locator("#cost-block")
    block.scroll_into_view_if_needed()
    block.get_by_role("button", name="Measure on this server").click()
    plots = block.locator(".cost-plot")
    expect(plots).to_have_count(2, timeout=15000)
    boxes = [plots.nth(k).bounding_box() for k in range(2)]
    assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 for b in boxes), boxes
    assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"], "stacked"
    smallest = plots.locator("text").evaluate_all(
        "ts => Math.min(...ts.map((t) => t.getBoundingClientRect().height))")
    assert smallest >= 10, smallest
    assert page.evaluate("document.documentElement.scrollWidth") == 390
    page.close()
