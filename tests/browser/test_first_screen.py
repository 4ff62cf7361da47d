"""The first screen of someone who has read the chapter: the chapter's controls alone, what
goes beyond it one click away in "Beyond the basics", which opens by itself when a link, an
import or a preset uses it; Tab never lands on a hidden control; on a phone the heatmap is
on the first screen; the marks ␣ and ↵ in labels are explained."""

import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.editor.test_widget import numpy_attention
from tests.browser.helpers import expect_url, heatmap, loaded, wait_settled

pytestmark = pytest.mark.browser

GROUP = "Beyond the basics"
CAT = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
       "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
HEAD_2 = "&W_Q_2=0,1;1,0&W_K_2=1,1;0,1&W_V_2=1,-1;2,0&W_O=1,0;0,1;1,0;0,1"

# The chapter's controls (the example, the tokens and sizes, the causal mask, the scale), in
# the order of the bar, as (role, accessible name). Beside them stay "Random" (new numbers
# for the same shapes: no idea beyond the chapter), Reset, Copy link and Present (the
# page's actions), and the group's button.
FIRST_SCREEN = [
    ("combobox", "Example"), ("button", "Random"),
    ("button", "Remove token"), ("textbox", "Tokens"), ("button", "Add token"),
    ("button", "Decrease d_model"), ("spinbutton", "dmodel"), ("button", "Increase d_model"),
    ("button", "Decrease d_k"), ("spinbutton", "dk"), ("button", "Increase d_k"),
    ("button", "Decrease d_v"), ("spinbutton", "dv"), ("button", "Increase d_v"),
    ("checkbox", "Causal mask"), ("checkbox", "Scale by 1/√dk"), ("textbox", "Scale"),
    ("button", GROUP), ("button", "Reset"), ("button", "Copy link"), ("button", "Present"),
]
# Every control of the group, by its id: none may take the focus while it is closed.
INSIDE = ["seed", "fewer-heads", "heads", "more-heads", "fewer-kv", "kv-heads", "more-kv", "cross",
          "remove-key", "tokens-kv", "add-key", "biases", "positional", "rope-base", "offset",
          "alibi-paper", "window", "sinks"]

# Each feature beyond the chapter, as a link's fragment and as an imported configuration.
FEATURES = {
    "heads": ("#heads=2&head=0" + HEAD_2,
              {"heads": [{k: CAT[k] for k in ("W_Q", "W_K", "W_V")},
                         {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]],
                          "W_V": [[1, -1], [2, 0]]}],
               "W_O": [[1, 0], [0, 1], [1, 0], [0, 1]]}),
    "key/value heads": ("#heads=2&kv_heads=1&head=0&W_Q_2=0,1;1,0&W_O=1,0;0,1;1,0;0,1",
                        {"heads": [{"W_Q": CAT["W_Q"]}, {"W_Q": [[0, 1], [1, 0]]}],
                         "kv_heads": [{"W_K": CAT["W_K"], "W_V": CAT["W_V"]}],
                         "W_O": [[1, 0], [0, 1], [1, 0], [0, 1]]}),
    "cross-attention": ("#tokens_kv=le|chat&X_kv=1,0;0,1",
                        {"tokens_kv": ["le", "chat"], "X_kv": [[1, 0], [0, 1]]}),
    "biases": ("#biases=1&b_Q=0,1&b_K=0,0&b_V=1,0", {"b_Q": [0, 1], "b_V": [1, 0]}),
    "sinusoidal positions": ("#positional=sinusoidal", {"positional": "sinusoidal"}),
    "rotary positions": ("#positional=rope", {"positional": "rope"}),
    "ALiBi": ("#positional=alibi", {"positional": "alibi"}),
    "window": ("#window=2", {"window": 2}),
    "window and sinks": ("#causal=1&window=2&sinks=1", {"causal": True, "window": 2, "sinks": 1}),
}
ADVANCED_PRESETS = ["rotary positions", "grouped-query heads", "ALiBi",
                    "sliding window with a sink"]
BASIC_PRESETS = ["the cat sat", "equal scores", "sharp attention", "a causal sentence"]


def configuration(feature):
    """The first example with ``feature``; with heads, their matrices in place of W_Q, W_K, W_V."""
    plain = {k: v for k, v in CAT.items() if "heads" not in feature or k in ("tokens", "X")}
    return {**plain, **feature}


def toggle(page):
    return page.get_by_role("button", name=GROUP, exact=True)


def expect_open(page, is_open):
    expect(toggle(page)).to_have_attribute("aria-expanded", "true" if is_open else "false")
    group = page.get_by_role("group", name=GROUP, exact=True)
    if is_open:
        expect(group).to_be_visible()
    else:
        expect(group).to_have_count(0)  # not in the accessibility tree: hidden
        expect(page.locator("#beyond")).to_be_hidden()


def controls_named(page):
    """The interactive controls the bar shows, as (role, name), in its order."""
    snapshot = page.get_by_role("region", name="Controls").aria_snapshot()
    found = re.findall(r'^\s*- (button|combobox|textbox|spinbutton|checkbox) "([^"]*)"',
                       snapshot, flags=re.M)
    return [(role, name) for role, name in found]


def test_the_first_screen_shows_the_chapters_controls_and_the_groups_button(
        browser, console, server):
    page = open_page(browser, console, 1280, 800)
    loaded(page, server.url)
    assert controls_named(page) == FIRST_SCREEN
    # All of them on the first screen, the heatmap too.
    boxes = page.evaluate("""() => [...document.querySelectorAll(
        '.controls :is(input, select, button)')].filter(e => e.checkVisibility())
        .map(e => { const r = e.getBoundingClientRect(); return [e.id, r.top, r.bottom]; })""")
    assert len(boxes) == len(FIRST_SCREEN)
    assert all(top >= 0 and bottom <= 800 for _, top, bottom in boxes), boxes
    expect_open(page, False)
    expect(toggle(page)).to_have_attribute("aria-controls", "beyond")
    # Closed, the button says what the group holds.
    expect(page.locator("#beyond-hint")).to_have_text(
        "heads, cross-attention, biases, positions, window and sinks, seed")
    expect(toggle(page)).to_have_accessible_description(
        "heads, cross-attention, biases, positions, window and sinks, seed")
    # One click opens it, with the names of its controls kept; the URL does not change.
    before = page.evaluate("location.href")
    toggle(page).click()
    expect_open(page, True)
    group = page.get_by_role("group", name=GROUP, exact=True)
    for role, name in [("spinbutton", "Seed"), ("spinbutton", "Heads"),
                       ("checkbox", "Cross-attention"), ("checkbox", "Biases"),
                       ("combobox", "Positions"), ("textbox", "Window")]:
        expect(group.get_by_role(role, name=name, exact=True)).to_be_visible()
    expect(page.locator("#beyond-hint")).to_be_hidden()
    assert page.evaluate("location.href") == before
    toggle(page).click()
    expect_open(page, False)
    page.close()


@pytest.mark.parametrize("size", [(1280, 800), (1024, 700), (390, 844)])
@pytest.mark.parametrize("fragment", ["", "#positional=rope&window=2"])
def test_the_button_stays_under_the_pointer(browser, console, server, size, fragment):
    page = open_page(browser, console, *size)
    loaded(page, server.url + fragment)
    if toggle(page).get_attribute("aria-expanded") == "true":
        toggle(page).click()
    box = toggle(page).bounding_box()
    for is_open in (True, False):
        toggle(page).click()
        expect_open(page, is_open)
        assert toggle(page).bounding_box() == box, (size, is_open)
    page.close()


@pytest.mark.parametrize("feature", FEATURES)
def test_a_link_using_a_feature_opens_the_group(page, server, feature):
    loaded(page, server.url + FEATURES[feature][0])
    expect_open(page, True)


def test_a_link_using_nothing_beyond_the_chapter_leaves_the_group_closed(page, server):
    # The seed makes the next "Random" reproducible; a link carries the numbers themselves.
    loaded(page, server.url + "#causal=1&seed=7&row=0")
    expect_open(page, False)
    page.get_by_role("button", name="Random").click()
    # A new seed, whole: a drawn one may begin with 7 (seed=712345).
    page.wait_for_function(r"() => !/[#&]seed=7(&|$)/.test(location.hash)")
    expect_open(page, False)


@pytest.mark.parametrize("feature", FEATURES)
def test_an_import_using_a_feature_opens_the_group_and_moves_nothing(page, server, feature):
    loaded(page, server.url)
    paste = page.get_by_role("textbox", name="Paste a configuration")
    load = page.get_by_role("button", name="Load pasted configuration")
    paste.fill(json.dumps(configuration(FEATURES[feature][1])))
    load.scroll_into_view_if_needed()
    top = load.evaluate("b => b.getBoundingClientRect().top")
    load.click()
    expect(page.locator("#status")).to_have_text("Imported the pasted configuration")
    expect_open(page, True)
    # What the person works on stays where it was: the group opened above it.
    assert load.evaluate("b => b.getBoundingClientRect().top") == pytest.approx(top, abs=1)


def test_without_scroll_anchoring_the_opening_group_still_moves_nothing(page, server):
    # Safari anchors no scrolling: the page itself keeps the button in place. A window
    # changes nothing above the export panel but the group.
    loaded(page, server.url)
    page.evaluate("document.documentElement.style.overflowAnchor = 'none'")  # CSSOM: CSP allows it
    load = page.get_by_role("button", name="Load pasted configuration")
    page.get_by_role("textbox", name="Paste a configuration").fill(
        json.dumps(configuration({"window": 2})))
    load.scroll_into_view_if_needed()
    top = load.evaluate("b => b.getBoundingClientRect().top")
    # Where the button is once the group has opened, before any answer is drawn.
    load.evaluate("""b => new MutationObserver((_, watch) => {
        window.__openedAt = b.getBoundingClientRect().top; watch.disconnect(); })
        .observe(document.getElementById('beyond-toggle'), { attributes: true })""")
    load.click()
    page.wait_for_function("() => window.__openedAt !== undefined")
    expect_open(page, True)
    assert page.evaluate("window.__openedAt") == pytest.approx(top, abs=1)


def test_an_import_from_a_file_opens_the_group(page, server, tmp_path):
    loaded(page, server.url)
    path = tmp_path / "rope.json"
    path.write_text(json.dumps({**CAT, "positional": "rope"}))
    page.get_by_label("Import configuration file").set_input_files(path)
    expect(page.locator("#status")).to_have_text("Imported rope.json")
    expect_open(page, True)
    expect(page.get_by_role("combobox", name="Positions")).to_have_value("rope")


def test_a_preset_using_a_feature_opens_the_group_and_the_others_leave_it_closed(page, server):
    loaded(page, server.url)
    example = page.get_by_role("combobox", name="Example")
    for name in BASIC_PRESETS + ADVANCED_PRESETS:
        if toggle(page).get_attribute("aria-expanded") == "true":
            toggle(page).click()  # closed by hand before each preset
        top = example.evaluate("e => e.getBoundingClientRect().top")
        example.select_option(label=name)
        wait_settled(page)
        expect_open(page, name in ADVANCED_PRESETS)
        assert example.evaluate("e => e.getBoundingClientRect().top") == top, name


def test_a_mark_on_a_control_of_the_closed_group_opens_it(page, server, console):
    # Rotary positions need an even d_k: with d_k made 3 from the chapter's controls, the
    # server marks Positions, which must be seen to be corrected.
    loaded(page, server.url + "#positional=rope")
    toggle(page).click()
    expect_open(page, False)
    expect(page.locator("#beyond-hint")).to_have_text("in use: rotary positions")
    page.get_by_role("button", name="Increase d_k").click()
    positions = page.get_by_role("combobox", name="Positions", exact=True)
    expect(positions).to_have_attribute("aria-invalid", "true")
    expect_open(page, True)
    expect(positions).to_be_visible()
    # Chrome logs every 4xx answer as a console error; the server's 422 is the expected one.
    console[:] = [m for m in console if "status of 422" not in m[1]]


def test_closed_the_group_says_what_in_it_is_in_use(page, server):
    loaded(page, server.url + "#heads=2&head=0" + HEAD_2 + "&positional=alibi&window=2&sinks=1")
    toggle(page).click()
    expect(page.locator("#beyond-hint")).to_have_text(
        "in use: 2 heads, ALiBi, a window of 2 with 1 sink")
    toggle(page).click()
    expect(page.locator("#beyond-hint")).to_be_hidden()


def focus_path(page, limit=400):
    """Tab from the top of the page until the focus comes round again: each stop as
    [id, inside the group, visible, in the controls bar]."""
    stops = []
    page.evaluate("document.activeElement.blur()")
    for _ in range(limit):
        page.keyboard.press("Tab")
        stop = page.evaluate("""() => { const a = document.activeElement;
            if (a === document.body) return null;
            return [a.id, Boolean(a.closest('#beyond')), a.checkVisibility()
              && a.getBoundingClientRect().width > 0, Boolean(a.closest('.controls'))]; }""")
        if stop is None or (stops and stop == stops[0]):
            break
        stops.append(stop)
    return stops


def test_closed_tab_never_lands_on_a_hidden_control_and_open_it_goes_into_the_group(page, server):
    loaded(page, server.url)
    stops = focus_path(page)
    assert len(stops) > 30  # the whole page, not one control
    assert [s for s in stops if s[1] or not s[2]] == []
    assert not any(s[0] in INSIDE for s in stops)
    bar = [s[0] for s in stops if s[3]]
    assert bar == ["preset", "random", "remove-token", "tokens", "add-token"] \
        + [b for d in ("d_model", "d_k", "d_v") for b in ("", d, "")] \
        + ["causal", "scale-default", "beyond-toggle", "reset", "copy-link", "present"]
    # Open, the group's controls come after the bar's last button, in the group's order.
    toggle(page).click()
    page.keyboard.press("Shift+Tab")  # from the button back: the order is visual
    assert page.evaluate("document.activeElement.id") == "scale-default"
    page.get_by_role("button", name="Present").focus()
    order = []
    for _ in range(8):
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.id"))
    assert order == ["fewer-heads", "heads", "more-heads", "cross", "biases", "positional",
                     "window", "seed"]


def test_a_phone_shows_the_heatmap_on_the_first_screen(browser, console, server):
    page = open_page(browser, console, 390, 844)
    loaded(page, server.url)
    assert page.evaluate("scrollY") == 0
    grid = page.get_by_role("grid", name="Attention weights")
    first_row = grid.locator("tbody tr").first
    top = grid.evaluate("g => g.getBoundingClientRect().top")
    bottom = first_row.evaluate("r => r.getBoundingClientRect().bottom")
    assert top > 0 and bottom <= 844, (top, bottom)
    # The whole grid of the first example, in fact.
    assert grid.evaluate("g => g.getBoundingClientRect().bottom") <= 844
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # The inputs follow the heatmap, then the working.
    order = page.evaluate("""() => ['block-weights', 'block-inputs', 'block-working'].map(
        c => document.querySelector('.stage .' + c).getBoundingClientRect().top)""")
    assert order == sorted(order)
    page.close()


def test_on_a_phone_a_link_beyond_the_chapter_keeps_the_heatmap_first(browser, console, server):
    # Open, the group would take the first screen (seven lines of controls): it stays closed,
    # its line says what is in use, and a mark on one of its controls still opens it.
    page = open_page(browser, console, 390, 844)
    loaded(page, server.url + FEATURES["window and sinks"][0] + "&positional=rope")
    expect_open(page, False)
    expect(page.locator("#beyond-hint")).to_have_text(
        "in use: rotary positions, a window of 2 with 1 sink")
    first_row = page.get_by_role("grid", name="Attention weights").locator("tbody tr").first
    assert first_row.evaluate("r => r.getBoundingClientRect().bottom") <= 844
    page.get_by_role("button", name="Increase d_k").click()  # RoPE needs an even d_k
    expect(page.get_by_role("combobox", name="Positions")).to_have_attribute("aria-invalid", "true")
    expect_open(page, True)
    console[:] = [m for m in console if "status of 422" not in m[1]]
    page.close()


def test_the_marks_of_a_models_tokens_are_explained_where_labels_show_them(page, server):
    loaded(page, server.url + "#tokens=The|%E2%90%A3cat%E2%86%B5|%E2%90%A3sat")
    note = page.locator("#token-marks")
    expect(note).to_have_text("In the labels, ␣ is a space and ↵ a new line (a model's token "
                              "often begins with the space before its word).")
    expect(page.get_by_role("grid", name="Attention weights").get_by_role("columnheader")
           .nth(2)).to_have_text("␣cat↵")
    A, _ = numpy_attention(CAT["X"], CAT["W_Q"], CAT["W_K"], CAT["W_V"])
    wait_settled(page)
    assert heatmap(page) == np.round(A, 3).tolist()
    # Only the marks the labels hold are named; none, no note.
    page.get_by_role("textbox", name="Token 2 label").fill("cat")
    expect(note).to_have_text("In the labels, ␣ is a space (a model's token often begins with "
                              "the space before its word).")
    page.get_by_role("textbox", name="Token 3 label").fill("sat")
    expect(note).to_be_hidden()
    expect_url(page, "tokens=The|cat|sat")
