"""The real-model view's first screen holds what people come for, as the editor's does: the
chosen head's heatmap and the first lines of its selected row's working, with the text and
the model above them; a 21-token sentence shows every one of its columns. Measured with
bounding boxes, in the viewport and in the boxes that could scroll."""

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.model.test_view import settled

pytestmark = pytest.mark.browser

TEXT = "The capital of France is"
# 21 of SmolLM2's tokens (the test asks the API to be sure).
SENTENCE21 = ("The quick brown fox jumps over the lazy dog while the cat sat on the mat"
              " and slept all day.")

BOXES = """() => {
  const box = (node) => { const r = node.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const map = document.querySelector('#heatmap [role="grid"]');
  const lines = [...document.querySelectorAll(
    '#working .working-title, #working [data-step="dots"] h3, #working [data-step="dots"] li')];
  const scroller = document.getElementById('heatmap');
  return { map: box(map), lines: lines.slice(0, 4).map(box),
    text: box(document.getElementById('text')),
    columns: [...map.querySelectorAll('thead th[role="columnheader"]')].map(box),
    scroller: box(scroller), scrolls: [scroller.scrollWidth, scroller.clientWidth],
    page: document.documentElement.scrollWidth };
}"""


def inside(inner, outer, slack=0.5):
    return (inner["left"] >= outer["left"] - slack and inner["top"] >= outer["top"] - slack
            and inner["right"] <= outer["right"] + slack
            and inner["bottom"] <= outer["bottom"] + slack)


def first_screen(browser, console, server, width, height, fragment):
    page = open_page(browser, console, width=width, height=height)
    page.goto(f"{server.url}model{fragment}")
    settled(page)
    # The working drawn and its maths on screen typeset (under the first screen, as on a
    # phone, it is typeset as it comes into view: texsight.js).
    page.wait_for_function("""() => document.querySelector('#working .working-title')
      && [...document.querySelectorAll('#working [data-tex]')].every((s) => s.firstChild
        || !s.getClientRects().length || s.getBoundingClientRect().top > innerHeight)""")
    return page, page.evaluate(BOXES)


@pytest.mark.parametrize("model", ["smollm2-135m", "minilm-l6"])
@pytest.mark.parametrize("width,height", [(1280, 800), (1024, 700)])
def test_the_heatmap_and_the_working_are_on_the_first_screen(browser, console, server, model,
                                                              width, height):
    page, boxes = first_screen(browser, console, server, width, height,
                               f"#model={model}&text={quote(TEXT)}")
    screen = {"left": 0, "top": 0, "right": width, "bottom": height}
    assert inside(boxes["map"], screen), boxes["map"]  # the whole heatmap
    assert len(boxes["lines"]) == 4
    for line in boxes["lines"]:  # "Query 5 …", "1 · Dot products …", q_5, q_5·k_1
        assert inside(line, screen), line
    assert inside(boxes["text"], screen)  # and the text it is of, above
    assert boxes["scrolls"][0] <= boxes["scrolls"][1], boxes["scrolls"]
    assert boxes["page"] <= width
    page.close()


def test_on_a_phone_the_heatmap_starts_on_the_first_screen(browser, console, server):
    page, boxes = first_screen(browser, console, server, 390, 844,
                               f"#model=smollm2-135m&text={quote(TEXT)}")
    # Its head and at least its first two rows of weights are in view, under the text.
    first_rows = page.locator('#heatmap tbody tr').nth(1).bounding_box()
    assert boxes["map"]["top"] >= boxes["text"]["bottom"]
    assert first_rows["y"] + first_rows["height"] <= 844, first_rows
    assert boxes["page"] <= 390
    page.close()


def test_a_21_token_sentence_shows_every_column(browser, console, server):
    page = open_page(browser, console, width=1280, height=800)
    r = page.request.post(f"{server.url}api/model/attention", data={
        "model": "smollm2-135m", "text": SENTENCE21, "layer": 0, "head": 0, "fields": ["tokens"]})
    assert r.status == 200
    assert len(r.json()["tokens"]) == 21
    page.goto(f"{server.url}model#model=smollm2-135m&text={quote(SENTENCE21)}")
    settled(page)
    expect(page.locator('#heatmap thead th[role="columnheader"]')).to_have_count(21)
    boxes = page.evaluate(BOXES)
    screen = {"left": 0, "top": 0, "right": 1280, "bottom": 800}
    assert boxes["scrolls"][0] <= boxes["scrolls"][1], boxes["scrolls"]  # nothing scrolled away
    for k, column in enumerate(boxes["columns"]):
        assert inside(column, boxes["scroller"]), (k, column, boxes["scroller"])
        assert column["left"] >= 0 and column["right"] <= 1280, (k, column)
    assert inside(boxes["map"], {**screen, "bottom": 10_000})  # every column, side to side
    assert boxes["page"] <= 1280
    page.close()
