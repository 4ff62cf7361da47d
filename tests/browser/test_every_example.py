"""Every example looked at as a person would open it: at 1280 × 800, 1024 × 700, 390 × 844
and in present mode at 1280 × 720, each preset in turn is chosen, and once its numbers are
drawn axe finds no WCAG A or AA violation, the page raises no error and the document does
not scroll sideways. One page per size, the presets chosen in it one after another, as a
teacher going through them would."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from attention_core import presets
from tests.browser.conftest import open_page
from tests.browser.helpers import loaded, wait_settled

pytestmark = pytest.mark.browser

PRESETS = [p["name"] for p in presets()]
SIZES = [(1280, 800), (1024, 700), (390, 844)]
TAGS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}}

# The frames after an answer is drawn, in which the heatmap learns its cells' width and
# present mode fits its type.
FRAMES = ("() => new Promise((done) => requestAnimationFrame(() =>"
          " requestAnimationFrame(() => requestAnimationFrame(done))))")


def problems(page, where):
    """What axe and the document's width say is wrong here, in words naming ``where``."""
    page.evaluate(FRAMES)
    found = []
    results = Axe().run(page, options=TAGS)
    for v in results.response["violations"]:
        targets = [" ".join(map(str, n["target"])) for n in v["nodes"]]
        found.append(f"{where}: {v['id']} at {targets}")
    width = page.viewport_size["width"]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > width:
        found.append(f"{where}: the document scrolls sideways ({scroll} px in {width})")
    return found


def choose(page, preset):
    page.get_by_label("Example").select_option(label=preset)
    wait_settled(page)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_example_is_axe_clean_and_not_sideways(browser, console, server, size):
    page = open_page(browser, console, *size)
    loaded(page, server.url)
    found = []
    for preset in PRESETS:
        choose(page, preset)
        found += problems(page, f"“{preset}” at {size[0]} × {size[1]}")
    assert found == [], "\n".join(found)
    page.close()


def test_every_example_in_present_mode_is_axe_clean_and_not_sideways(browser, console, server):
    page = open_page(browser, console, 1280, 720)
    loaded(page, server.url)
    present = page.locator("html")
    found = []
    for preset in PRESETS:
        choose(page, preset)
        page.get_by_role("button", name="Present").click()
        expect(present).to_have_class(re.compile(r"\bpresent\b"))
        wait_settled(page)
        found += problems(page, f"“{preset}” in present mode")
        page.get_by_role("button", name="Exit present mode").click()
        expect(present).not_to_have_class(re.compile(r"\bpresent\b"))
    assert found == [], "\n".join(found)
    page.close()


# The chosen example's name against the room its list gives it: the name's width in the
# list's own type, and the list's width less its padding and the arrow Chromium draws at
# its right (about 24 px).
NAME_ROOM = """() => {
  const s = document.querySelector('#preset');
  const st = getComputedStyle(s);
  const span = document.createElement('span');
  span.style.font = st.font;
  span.style.whiteSpace = 'pre';
  span.textContent = s.selectedOptions[0].text;
  document.body.append(span);
  const text = span.getBoundingClientRect().width;
  span.remove();
  const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 24;
  return [Math.round(text), Math.round(room)];
}"""


@pytest.mark.parametrize("size", SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_examples_name_is_shown_whole_and_the_bar_keeps_its_rows(browser, console,
                                                                       server, size):
    """The list shows the whole name of each example ("sliding window with a sink" was
    cut to "sliding window wi"), and the wider list moves nothing into a new row: at
    1280 the chapter's controls still stand in one row, "Causal mask" last."""
    page = open_page(browser, console, *size)
    loaded(page, server.url)
    cut = []
    for preset in PRESETS:
        choose(page, preset)
        text, room = page.evaluate(NAME_ROOM)
        if text > room:
            cut.append(f"“{preset}”: {text} px of text in {room} px")
    assert cut == [], size
    if size[0] == 1280:
        tops = page.evaluate("""() => ['#preset', '#causal'].map((s) =>
          Math.round(document.querySelector(s).closest('.control').getBoundingClientRect().top))""")
        assert abs(tops[0] - tops[1]) <= 6, tops
    page.close()


def test_each_example_says_what_it_shows_while_it_is_the_view(page, server):
    """The sentence of GET /api/presets under the heatmap, for the example the view is: from
    the first paint, for each example chosen, gone once an input is edited away from it and
    back once the view is the example again. The Example list is described by it."""
    loaded(page, server.url)
    note = page.locator("#preset-note")
    said = {p["name"]: p["description"] for p in presets()}
    assert said["sharp attention"] == ("Large weights make large scores, so the softmax puts "
                                       "almost all of each row's weight, over 0.98, on one key.")
    expect(note).to_have_text(said["the cat sat"])
    expect(page.get_by_label("Example")).to_have_attribute("aria-describedby", "preset-note")
    for name in PRESETS:
        choose(page, name)
        expect(note).to_be_visible()
        expect(note).to_have_text(said[name])
    x = page.get_by_role("textbox", name="X row 1 column 1", exact=True)
    x.fill("5")
    wait_settled(page)
    expect(page.get_by_label("Example")).to_have_value("edited")
    expect(note).to_be_hidden()
    x.fill("1")
    wait_settled(page)
    expect(note).to_have_text(said[PRESETS[-1]])
    expect(note).to_be_visible()
