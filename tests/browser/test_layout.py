"""The first screen, the phone, present mode, the walk's numbers and the skip links."""

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.helpers import loaded, softmax_rows, wait_settled, wait_until, working_text

pytestmark = pytest.mark.browser

IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight
    && r.left >= 0 && r.right <= innerWidth; }"""


def in_view(page, selector):
    return page.evaluate(IN_VIEW, selector)


@pytest.mark.parametrize("size", [(1280, 800), (1024, 700)])
def test_the_heatmap_and_the_whole_working_open_on_the_first_screen(browser, console, server, size):
    page = open_page(browser, console, *size)
    loaded(page, server.url)
    assert page.evaluate("() => scrollY") == 0
    for part in ('#heatmap [role="grid"]', '#working [data-step="dots"]',
                 "#working table.softmax-table", '#working [data-step="output"]', "#walk"):
        assert in_view(page, part), (part, size)
    # X and the weights are one scroll away at most: X's figure starts within two screens.
    top = "() => document.querySelector('figure[data-key=\"X\"]').getBoundingClientRect().top"
    assert page.evaluate(top) < 2 * size[1]
    page.close()


def test_on_a_phone_selecting_a_row_brings_its_working_into_view_and_back(browser, console, server):
    page = open_page(browser, console, 390, 844)
    loaded(page, server.url)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # never sideways
    grid = page.get_by_role("grid", name="Attention weights")
    grid.scroll_into_view_if_needed()
    grid.get_by_role("row").nth(1).get_by_role("gridcell").first.click()
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”")
    page.wait_for_function(f"() => ({IN_VIEW})('#working .working-title')")
    # Every column of the row's softmax is in sight: the table fits the phone's width.
    assert page.evaluate("() => { const s = document.querySelector('#working .table-scroll');"
                         " return s.scrollWidth <= s.clientWidth; }")
    page.get_by_role("button", name="Back to the heatmap").click()
    page.wait_for_function(f"() => ({IN_VIEW})('#heatmap table.grid tbody tr:nth-child(1)')")
    page.close()


def test_present_mode_shows_the_heatmap_working_and_rows_used_on_one_projector_screen(
        browser, console, server):
    page = open_page(browser, console, 1280, 720)
    loaded(page, server.url)
    page.get_by_role("button", name="Present").click()
    expect(page.locator("html")).to_have_class("present")
    rows = page.get_by_role("group", name="The rows this query uses")
    # q_3 = x_3·W_Q
    expect(rows.locator('figure[data-key="qq"] tbody td')).to_have_text(["2.000", "2.000"])
    expect(rows.locator('figure[data-key="qx"] tbody td')).to_have_text(["1.000", "1.000"])
    expect(rows.locator('figure[data-key="qk"] tbody tr')).to_have_count(3)
    for part in ('#heatmap [role="grid"]', '#working [data-step="output"]',
                 "#working table.softmax-table", '#qkv figure[data-key="qv"]',
                 '#qkv figure[data-key="qx"]'):
        assert in_view(page, part), part
    font = "() => parseFloat(getComputedStyle(document.querySelector('#working')).fontSize)"
    assert page.evaluate(font) >= 19
    expect(page.get_by_role("checkbox", name="Causal mask")).to_be_hidden()
    assert "present=1" in page.url
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert results.violations_count == 0, results.generate_report()
    # Driven by the walk: its steps light the rows in place.
    page.get_by_role("button", name="Walk me through it").click()
    page.get_by_role("button", name="Next", exact=True).click()
    expect(page.locator('#qkv figure[data-key="qq"].walk-lit')).to_have_count(1)
    page.keyboard.press("Escape")  # ends the walk first
    expect(page.get_by_role("region", name="Walk through the calculation")).to_be_hidden()
    page.keyboard.press("Escape")  # then present mode
    expect(page.locator("html")).not_to_have_class("present")
    expect(page.get_by_role("checkbox", name="Causal mask")).to_be_visible()
    page.close()


def walk_texts(page):
    """Every step's text of the walk, with KaTeX's spacing removed."""
    page.get_by_role("button", name="Walk me through it").click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    texts = []
    for k in range(8):
        expect(panel).to_contain_text(f"Step {k + 1} of 8")
        texts.append(panel.locator(".walk-text").evaluate(
            "n => [...n.childNodes].map(c => c.querySelector"
            " ? (c.querySelector('.katex-html')?.textContent ?? c.textContent)"
            " : c.textContent).join('')"))
        page.get_by_role("button", name="Finish" if k == 7 else "Next", exact=True).click()
    return ["".join(t.split()).replace("\u200b", "").replace("\u2212", "-").replace("\u22c5", "·")
            for t in texts]


def test_the_walk_quotes_the_selected_rows_real_numbers(page, server):
    loaded(page, server.url)
    steps = walk_texts(page)
    # x_3 is typed (whole numbers stay short); every number computed from it has 3 decimals.
    for k, shown in [(0, "row3ofX,x3=(1,1)"), (1, "q3=(2.000,2.000)"),
                     (2, "k1=(2.000,0.000),k2=(0.000,1.000),k3=(2.000,1.000)"),
                     (3, "q3·k1=2.000·2.000+2.000·0.000=4.000"),
                     (3, "q3·k3=2.000·2.000+2.000·1.000=6.000"),
                     (4, "dk=2=1.414"), (4, "s3,1=2.828,s3,2=1.414,s3,3=4.243"),
                     (5, "16.92,4.113,69.59"), (5, "sum90.62"), (5, "weights0.187,0.045,0.768"),
                     (6, "v1=(1.000,0.000),v2=(0.000,2.000),v3=(1.000,2.000)"),
                     (7, "z3=0.187(1.000,0.000)+0.045(0.000,2.000)+0.768(1.000,2.000)"
                         "=(0.955,1.627)")]:
        assert shown in steps[k], (k, shown, steps[k])


def test_the_walk_follows_a_custom_scale_masks_heads_and_positions(page, server):
    loaded(page, server.url + "#causal=1&scale=0.5&row=0")
    steps = walk_texts(page)
    assert "multipliedbythescale0.500,notby1/dk=0.707" in steps[4], steps[4]
    assert "s1,1=1.000" in steps[4] and "The2maskedkeys'scoresbecome-∞" in steps[4], steps[4]
    assert "weights1.000" in steps[5]
    # Sinusoidal positions: x_1 + PE_1 = (1 + sin 0, 0 + cos 0) = (1, 1).
    loaded(page, server.url + "#positional=1&row=0")
    assert "x1+PE1=(1.000,1.000)" in walk_texts(page)[0]
    loaded(page, server.url + "#heads=2&head=1&W_Q_2=1,0;0,1&W_K_2=1,0;0,1&W_V_2=1,0;0,1"
                              "&W_O=1,0;0,1;1,0;0,1&row=2")
    assert "head2'sWQ" in walk_texts(page)[1]


def test_skip_links_reach_the_heatmap_and_the_walk_without_touching_the_link(page, server):
    loaded(page, server.url + "#causal=1")
    url = page.url
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the heatmap")).to_be_focused()
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.getAttribute('role')") == "gridcell"
    assert page.url == url
    page.get_by_role("link", name="Skip to the heatmap").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to “Walk me through it”")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Walk me through it")).to_be_focused()
    assert page.url == url  # the fragment holds the view; a skip link leaves it alone
    assert page.locator("table.grid td.masked").count() == 3


def test_the_entropy_bound_counts_only_the_keys_a_query_may_read(page, server):
    readout = page.locator(".lab-row-text")
    loaded(page, server.url + "#causal=1&row=0")
    expect(readout).to_contain_text("entropy 0.000 nats of at most 0.000 (ln 1)")
    loaded(page, server.url + "#causal=1&row=1")
    # Query 2 reads keys 1 and 2 with weights 0.5, 0.5 (scores 0 and 0): ln 2 of ln 2.
    expect(readout).to_contain_text("entropy 0.693 nats of at most 0.693 (ln 2)")


def test_cross_attention_captions_say_n_by_m_and_the_inputs_name_x_kv(page, server):
    loaded(page, server.url + "#tokens_kv=s1|s2&X_kv=1,0;0,1")
    expect(page.locator('figure[data-key="S"] .shape')).to_have_text("3 × 2  (n × m)")
    expect(page.locator('figure[data-key="SS"] .shape')).to_have_text("3 × 2  (n × m)")
    expect(page.locator('figure[data-key="K"] .shape')).to_have_text("2 × 2  (m × dk)")
    expect(page.locator('figure[data-key="K"] figcaption')).to_have_text("K = Xkv·WK")
    expect(page.locator("#inputs-sym")).to_have_text("— X, Xkv, WQ, WK, WV")


def test_a_custom_scale_is_said_wherever_the_scaling_is_named(page, server):
    loaded(page, server.url + "#scale=0.25&row=2")
    expect(page.locator("#weights-sym")).to_have_text("— A = softmax(0.250 · QKᵀ)")
    expect(page.locator("#scores-sym")).to_have_text("— QKᵀ and 0.250 · QKᵀ")
    expect(page.locator('figure[data-key="SS"] figcaption')).to_have_text(
        "0.250 · QKᵀ × 0.250, instead of 1/√dk = 0.707")
    expect(page.locator('#working [data-step="softmax"] h3')).to_have_text(
        "2 · Multiply by the scale 0.250, instead of 1/√dk = 0.707, then softmax")
    assert "×0.250=s3,j" in working_text(page)
    # The scaled scores of row 3 are 0.25 · (4, 2, 6).
    assert [r[1] for r in softmax_rows(page)] == ["1.000", "0.500", "1.500"]
    stage = (page.locator(".stage").inner_text()
             + page.locator(".steps-grid .block-scores").inner_text())
    assert "√dk" not in stage.replace("instead of 1/√dk", "").replace("What is this?", "")


def test_with_positions_the_page_shows_x_plus_pe_and_what_each_projection_multiplies(page, server):
    loaded(page, server.url + "#positional=1")
    n, d = 3, 2
    pos = np.arange(n)[:, None]
    pe = np.zeros((n, d))
    pe[:, 0::2] = np.sin(pos / 10000 ** (np.arange(0, d, 2) / d))
    pe[:, 1::2] = np.cos(pos / 10000 ** (np.arange(0, d, 2) / d))
    xp = np.array([[1, 0], [0, 1], [1, 1]]) + pe
    shown = page.locator('figure[data-key="XP"] tbody tr')
    assert [shown.nth(i).locator("td").all_inner_texts() for i in range(3)] == \
        [[f"{v:.3f}" for v in r] for r in xp]
    expect(page.locator('figure[data-key="XP"] figcaption')).to_have_text(
        "X + PE what WQ, WK and WV multiply")
    expect(page.locator('figure[data-key="Q"] figcaption')).to_have_text("Q = (X + PE)·WQ")
    expect(page.locator('figure[data-key="V"] figcaption')).to_have_text("V = (X + PE)·WV")
    Q = xp @ np.array([[1, 0], [1, 2]])
    rows = page.locator('figure[data-key="Q"] tbody tr')
    assert [rows.nth(i).locator("td").all_inner_texts() for i in range(3)] == \
        [[f"{v:.3f}" for v in r] for r in Q]


def test_the_first_paint_waits_for_no_script(browser, console, server):
    # main.js is held (boot.js asks for it once the first frame is painted): the masthead
    # and the controls, with the first view's values, are painted all the same; the
    # blocks main.js draws wait, undrawn, so nothing moves later.
    page = open_page(browser, console, 390, 844)
    held = []
    page.route("**/js/editor/main.js", lambda route: held.append(route))
    page.goto(server.url, wait_until="commit")
    page.wait_for_function(
        "() => performance.getEntriesByName('first-contentful-paint').length === 1")
    expect(page.get_by_role("heading", name="Attention Explorer")).to_be_visible()
    assert page.get_by_label("Example").input_value() == "0"
    expect(page.get_by_role("option", name="the cat sat")).to_have_count(1)
    controls = ("seed", "tokens", "d_model", "d_k", "d_v", "heads", "scale")
    assert [page.locator(f"#{k}").input_value() for k in controls] \
        == ["1", "3", "2", "2", "2", "1", "0.707"]
    expect(page.get_by_role("checkbox", name="Scale by 1/√dk")).to_be_checked()
    assert page.evaluate("document.documentElement.classList.contains('is-loading')")
    wait_until(page, lambda: held, "main.js is asked for")
    held[0].continue_()
    wait_settled(page)
    assert not page.evaluate("document.documentElement.classList.contains('is-loading')")
    assert page.get_by_label("Example").input_value() == "0"
    page.close()


def test_with_scripts_off_the_page_shows_the_first_example_computed_on_the_server(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url)
    answer = page.get_by_role("region", name="The example “the cat sat”, computed on the server")
    expect(answer).to_be_visible()
    weights = answer.get_by_role("table", name="Weights A")
    # Row 3 "sat" of the default example: softmax((4, 2, 6) / √2), worked in test_widget's CAT_A.
    expect(weights.get_by_role("row").nth(3).get_by_role("cell")) \
        .to_have_text(["0.187", "0.045", "0.768"])
    output = answer.get_by_role("table", name="Output Z")
    expect(output.get_by_role("row").nth(3).get_by_role("cell")).to_have_text(["0.955", "1.627"])
    expect(page.locator("#page")).to_be_hidden()  # the blocks only the script can fill
    expect(page.get_by_role("region", name="Controls")).to_be_hidden()
    context.close()


def test_a_query_that_may_read_no_key_says_so_in_the_working_the_walk_and_present_mode(
        browser, console, server):
    """Every key of query 1 masked by hand, by keyboard (M on each heatmap cell). q_1 =
    (1, 0) and k_j = (2, 0), (0, 1), (2, 1): the dots are 2, 0, 2, then every scaled score
    is −∞. No key may be read, so by the engine's convention (softmax_rows: a row with no
    key is all 0, as torch's scaled_dot_product_attention returns) the weights and z_1 are
    0: no step may divide by 0 or leave its maths empty."""
    page = open_page(browser, console, 1280, 720)
    loaded(page, server.url)
    grid = page.get_by_role("grid", name="Attention weights")
    grid.get_by_role("row").nth(1).get_by_role("gridcell").first.click()
    for j in range(3):
        if j:
            page.keyboard.press("ArrowRight")
        page.keyboard.press("m")
        page.wait_for_function(f"() => location.hash.includes('0-{j}')")
        wait_settled(page)
    expect(page.locator("#working-sym")).to_have_text("— query 1, “the”")
    assert softmax_rows(page) == [["2.000", "−∞", "0", "0"], ["0.000", "−∞", "0", "0"],
                                  ["2.000", "−∞", "0", "0"]]
    text = working_text(page)
    assert "÷0" not in text and "∑jes1,j=0" not in text, text
    assert "z1=(0.000,0.000)" in text, text
    softmax = page.locator('#working [data-step="softmax"]')
    expect(softmax).to_contain_text("No key may be read")
    expect(softmax).to_contain_text("its weights and output are all 0")
    steps = walk_texts(page)
    for k, step in enumerate(steps):
        assert "$" not in step and "==" not in step and "÷0" not in step, (k + 1, step)
    assert "q1·k1=2.000,q1·k2=0.000,q1·k3=2.000" in steps[3], steps[3]
    assert "all3keysaremasked" in steps[4] and "s1,j=-∞" in steps[4], steps[4]
    assert "itsweightsandoutputareall0" in steps[5], steps[5]
    assert "z1=(0.000,0.000)." in steps[7], steps[7]
    # Present mode, driven by the walk: the convention and z_1 on the projector's screen.
    page.get_by_role("button", name="Present").click()
    expect(page.locator("html")).to_have_class("present")
    page.get_by_role("button", name="Walk me through it").click()
    for _ in range(5):
        page.get_by_role("button", name="Next", exact=True).click()
    panel = page.get_by_role("region", name="Walk through the calculation")
    expect(panel).to_contain_text("Step 6 of 8")
    expect(panel).to_contain_text("its weights and output are all 0")
    # Present mode fits its type and the walk places its step in the frames after the
    # step is shown: each part is awaited in view (a timeout fails the test).
    for part in ('#heatmap [role="grid"]', '#working [data-step="softmax"] .note',
                 '#working [data-step="output"]', ".walk-text"):
        page.wait_for_function(IN_VIEW, arg=part)
    page.close()
