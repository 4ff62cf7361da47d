"""The practice page (/practise): a full round by keyboard, with a wrong answer and its
hint; the answers never in the page before they are checked; the URL, which holds the
exercise and the numbers typed (a link opens them typed and checked, a reload keeps them, Back
and Forward move between them); axe at three widths; a seed that is not one."""

import math

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from attention_core.classroom.exercises import exercise, request
from tests.browser.conftest import open_page
from tests.browser.helpers import tab_until
from tests.core.helpers import exercise_reference

SEED, LEVEL = 17, "weights"


def truth():
    """The exercise's exponentials and weights, from its request by the test's reference."""
    numbers = exercise_reference(request(exercise(SEED, LEVEL)))[0]
    return list(numbers["exp"]), list(numbers["weights"])


def shown_prose(element, markup):
    """Whether ``element`` shows ``markup`` ("words $tex$ words"): its words as they are,
    each formula typeset by KaTeX with that TeX as its annotation (waited for)."""
    expect(element.locator(".katex")).to_have_count(markup.count("$") // 2)
    return element.evaluate("""(e) => [...e.childNodes].map((node) => node.nodeType === 3
      ? node.textContent
      : `$${node.querySelector('annotation[encoding="application/x-tex"]').textContent}$`,
    ).join("")""") == markup


def blank(page, j):
    return page.get_by_role("textbox", name=f"Weight, key {j + 1} (", exact=False).first


def test_a_full_round_by_keyboard_with_a_wrong_answer_and_its_hint(page, server):
    exps, weights = truth()
    page.goto(server.url + f"practise?seed={SEED}&level={LEVEL}")
    expect(page.locator("#score")).to_have_text("This exercise: no answer checked yet.")
    # From the top of the page, Tab reaches the first blank.
    tab_until(page, "document.activeElement.dataset.path || ''", "working.weights[0]",
              "the first blank")
    # The first key's e^s alone, not divided by the sum: wrong, and the hint says so.
    wrong = f"{exps[0]:.3f}"
    page.keyboard.type(wrong)
    page.keyboard.press("Enter")
    first = page.locator('[data-path="working.weights[0]"]')
    expect(first.locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(first).to_have_attribute("aria-invalid", "true")
    hint = page.locator("#h-working-weights-0")
    assert shown_prose(hint, f"Your {wrong} is $e^{{s_{{1}}}}$ itself: the weight divides it by "
                             "the row's sum, $\\Sigma e^{s}$.")
    expect(page.locator("#practise-status")).to_have_text(
        f"Weight, key 1 ({exercise(SEED, LEVEL).tokens[0]}): not yet. Your {wrong} is e^s₁ "
        "itself: the weight divides it by the row's sum, Σ e^s.")
    assert page.evaluate("document.activeElement.dataset.path") == "working.weights[1]"
    # Back to it, the right number; then the rest, each followed by Enter.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Control+a")
    page.keyboard.type(f"{weights[0]:.3f}")
    page.keyboard.press("Enter")
    expect(first.locator("xpath=..")).to_have_attribute("data-state", "right")
    expect(hint).to_have_text("")
    for j in range(1, len(weights)):
        page.keyboard.type(f"{weights[j]:.3f}")
        page.keyboard.press("Enter")
    for j in range(len(weights)):
        expect(page.locator(f'[data-path="working.weights[{j}]"]').locator("xpath=.."))\
            .to_have_attribute("data-state", "right")
    expect(page.locator("#score")).to_have_text(
        f"This exercise: {len(weights)} of {len(weights)} answers right.")
    assert math.isclose(sum(weights), 1)


def test_the_answers_are_not_in_the_page_before_they_are_checked(page, server):
    exps, weights = truth()
    page.goto(server.url + f"practise?seed={SEED}&level={LEVEL}")
    html = page.content()
    assert f"{exps[0]:.4g}" in html  # the level gives the exponentials (the test can see)
    for w in weights:
        assert f"{w:.3f}" not in html and f"{w:.4f}" not in html
    assert "weights" not in page.url.split("level=")[0]


def test_the_url_holds_the_exercise_and_a_reload_keeps_what_was_typed(page, server):
    page.goto(server.url + f"practise?seed={SEED}&level={LEVEL}")
    blank(page, 1).fill("0.5")
    blank(page, 1).press("Enter")
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(page).to_have_url(f"{server.url}practise?seed={SEED}&level={LEVEL}"
                             "#working.weights[1]=0.5")
    page.reload()
    expect(blank(page, 1)).to_have_value("0.5")
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(page.locator("#score")).to_have_text("This exercise: 0 of 1 answer right.")
    # Another level opens at once, with the seed kept.
    page.get_by_label("Level").select_option("z")
    expect(page).to_have_url(f"{server.url}practise?level=z&seed={SEED}")
    expect(page.get_by_role("textbox", name="z, entry 1")).to_be_visible()


def test_numbers_typed_before_the_script_has_come_are_kept_and_checked(page, server):
    """On a slow connection a student may type before the page's script runs: what they
    typed stays in the blank, goes into the URL and is checked once the script has come."""
    held = []
    page.route("**/js/practise/main.js", lambda route: held.append(route))
    # "commit": the page's load waits for its module scripts, which are held here.
    page.goto(server.url + f"practise?seed={SEED}&level={LEVEL}", wait_until="commit")
    blank(page, 1).fill("0.5")
    blank(page, 2).fill("0.25")
    assert len(held) == 1  # the script was asked for and has not come
    assert blank(page, 1).locator("xpath=..").get_attribute("data-state") is None  # unchecked
    held[0].continue_()
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(blank(page, 1)).to_have_value("0.5")
    expect(blank(page, 2)).to_have_value("0.25")
    expect(page).to_have_url(f"{server.url}practise?seed={SEED}&level={LEVEL}"
                             "#working.weights[1]=0.5&working.weights[2]=0.25")


def test_a_link_with_numbers_typed_opens_the_exercise_with_them_typed_and_checked(page, server):
    """What a teacher sends: seed 17 at "weights" with weight 1 right, weight 2 wrong and
    weight 3 not a number, each blank marked as it would be had it been typed."""
    _, weights = truth()
    path = [f"working.weights[{j}]" for j in range(3)]
    typed = {path[0]: f"{weights[0]:.3f}", path[1]: "0.5", path[2]: "0,5"}
    fragment = "&".join(f"{k}={v}" for k, v in typed.items())
    page.goto(f"{server.url}practise?seed={SEED}&level={LEVEL}#{fragment}")
    for j, state in enumerate(("right", "wrong", "invalid")):
        expect(blank(page, j)).to_have_value(typed[path[j]])
        expect(blank(page, j).locator("xpath=..")).to_have_attribute("data-state", state)
    expect(page.locator("#h-working-weights-2")).to_have_text(
        "“0,5”: use a point for decimals, e.g. 0.5.")
    expect(page.locator("#h-working-weights-1")).not_to_be_empty()
    expect(page.locator("#score")).to_have_text("This exercise: 1 of 2 answers right.")
    # The link is kept in its normal form (a comma escaped); another exercise's blank is dropped.
    expect(page).to_have_url(f"{server.url}practise?seed={SEED}&level={LEVEL}#"
                             + fragment.replace(",", "%2C"))
    page.goto("about:blank")  # a page opened afresh, not a move within this one
    page.goto(f"{server.url}practise?seed={SEED}&level={LEVEL}#working.z[0]=1&{path[1]}=0.5")
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(page).to_have_url(f"{server.url}practise?seed={SEED}&level={LEVEL}#{path[1]}=0.5")


def test_typing_writes_the_url_and_back_and_forward_move_between_the_blanks_typed(page, server):
    """Each blank's keystrokes make one history entry; Back takes the last blank's number
    away (and its mark), Forward brings it back, checked again."""
    _, weights = truth()
    page.goto(f"{server.url}practise?seed={SEED}&level={LEVEL}")
    start = page.url
    blank(page, 0).click()
    page.keyboard.type("0.25")
    expect(page).to_have_url(f"{start}#working.weights[0]=0.25")
    page.keyboard.press("Enter")  # checked, and on to the next blank
    right = f"{weights[1]:.3f}"
    page.keyboard.type(right)
    page.keyboard.press("Enter")
    both = f"{start}#working.weights[0]=0.25&working.weights[1]={right}"
    expect(page).to_have_url(both)
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "right")
    expect(page.locator("#score")).to_have_text("This exercise: 1 of 2 answers right.")
    page.go_back()
    expect(page).to_have_url(f"{start}#working.weights[0]=0.25")
    expect(blank(page, 1)).to_have_value("")
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "")
    expect(blank(page, 0).locator("xpath=..")).to_have_attribute("data-state", "wrong")
    expect(page.locator("#score")).to_have_text("This exercise: 0 of 1 answer right.")
    page.go_back()
    expect(page).to_have_url(start)
    expect(blank(page, 0)).to_have_value("")
    expect(page.locator("#score")).to_have_text("This exercise: no answer checked yet.")
    page.go_forward()
    page.go_forward()
    expect(page).to_have_url(both)
    expect(blank(page, 1)).to_have_value(right)
    expect(blank(page, 1).locator("xpath=..")).to_have_attribute("data-state", "right")
    expect(page.locator("#score")).to_have_text("This exercise: 1 of 2 answers right.")


def test_text_that_is_not_a_number_is_named_and_not_sent(page, server):
    page.goto(server.url + f"practise?seed={SEED}&level={LEVEL}")
    sent = []
    page.on("request", lambda r: sent.append(r.url) if "exercise/check" in r.url else None)
    blank(page, 0).fill("0,5")
    blank(page, 0).press("Enter")
    expect(page.locator("#h-working-weights-0")).to_have_text(
        "“0,5”: use a point for decimals, e.g. 0.5.")
    expect(blank(page, 0).locator("xpath=..")).to_have_attribute("data-state", "invalid")
    assert sent == []


def test_a_seed_that_is_not_one_is_said_with_the_controls_to_choose_another(page, server,
                                                                          console):
    response = page.goto(server.url + "practise?seed=12x&level=weights")
    assert response.status == 422
    # Chromium logs the page's own 422 as a failed load: that one is expected.
    console[:] = [m for m in console if "status of 422" not in m[1]]
    expect(page.locator("#problem")).to_have_text(
        "seed must be a whole number from 0 to 999999; got '12x'. Choose a level and a "
        "seed above.")
    page.get_by_label("Seed").fill("3")
    page.get_by_role("button", name="Open").click()
    expect(page).to_have_url(f"{server.url}practise?level=weights&seed=3")
    expect(page.locator("#working-title")).to_be_visible()


@pytest.mark.parametrize("width", [1280, 1024, 390])
def test_axe_finds_nothing_and_the_page_never_scrolls_sideways(browser, console, server,
                                                               width):
    page = open_page(browser, console, width=width)
    for level in ("weights", "row", "heads", "causal", "positions"):
        page.goto(server.url + f"practise?seed=5&level={level}")
        first = page.locator("input.answer").first
        first.fill("99")
        first.press("Enter")
        expect(first.locator("xpath=..")).to_have_attribute("data-state", "wrong")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, level
        results = Axe().run(page, options={"runOnly": {"type": "tag",
                                                       "values": ["wcag2a", "wcag2aa"]}})
        assert results.violations_count == 0, (level, results.generate_report())
    page.close()


def test_the_editors_selected_row_is_worked_by_hand_from_its_link(page, server):
    """The default example, row 3 ("sat"), by hand: q·k = 4, 2, 6; weights 0.187, 0.045,
    0.768 (e^s 16.92, 4.113, 69.59 over 90.62)."""
    from tests.browser.helpers import loaded

    loaded(page, server.url)
    page.get_by_role("link", name="Work the selected row by hand →").click()
    expect(page.locator("#inputs-title")).to_contain_text("on your own example")
    expect(page.locator("#working-title")).to_have_text("Query 3 · “sat”: fill in the blanks")
    for j, dot in enumerate(("4", "2", "6")):
        box = page.get_by_role("textbox", name=f"Dot product, key {j + 1} (", exact=False)
        box.fill(dot)
        box.press("Enter")
        expect(box.locator("xpath=..")).to_have_attribute("data-state", "right")
    page.get_by_label("Level").select_option("weights")
    expect(page.locator("#inputs-title")).to_contain_text("the weights")
    assert "request=" in page.url and "seed=" in page.url  # an empty seed: one's own
    weight = page.get_by_role("textbox", name="Weight, key 3 (sat)")
    weight.fill("69.59")
    weight.press("Enter")
    assert shown_prose(page.locator("#h-working-weights-2"), "Your 69.590 is $e^{s_{3}}$ itself: "
                       "the weight divides it by the row's sum, $\\Sigma e^{s}$.")
    weight.fill("0.768")
    weight.press("Enter")
    expect(weight.locator("xpath=..")).to_have_attribute("data-state", "right")


def pdf_pages(path):
    import io
    from pathlib import Path

    from pypdf import PdfReader
    return [p.extract_text() for p in PdfReader(io.BytesIO(Path(path).read_bytes())).pages]


def test_on_paper_a_class_set_and_its_key_by_keyboard(page, server):
    """Three worksheets from seed 17 on, then their key; the key holds this exercise's
    weights (0.469 is weight 1 of seed 17 at "weights", computed by the test's reference)."""
    _, weights = truth()
    page.goto(f"{server.url}practise?seed={SEED}&level={LEVEL}")
    count = page.get_by_role("textbox", name="Worksheets")
    count.fill("3")
    with page.expect_download() as d:
        page.get_by_role("button", name="Worksheet (PDF)").focus()
        page.keyboard.press("Enter")
    assert d.value.suggested_filename == "worksheet-weights-17-19.pdf"
    sheets = pdf_pages(d.value.path())
    assert len(sheets) == 3
    assert [f"seed {s} · level weights" in p for s, p in zip((17, 18, 19), sheets, strict=True)] \
        == [True] * 3
    expect(page.locator("#paper-status")).to_have_text("Saved the worksheet.")
    with page.expect_download() as d:
        page.get_by_role("button", name="Answer key (PDF)").click()
    key = pdf_pages(d.value.path())[0]
    assert [f"{w:.3f}" in key for w in weights] == [True] * len(weights)
    assert not any(f"{w:.3f}" in sheets[0] for w in weights)
    count.fill("many")
    page.get_by_role("button", name="Worksheet (PDF)").click()
    expect(page.locator("#paper-status")).to_have_text(
        "Worksheets must be a whole number from 1 to 100; got “many”.")


def test_the_editors_row_as_a_worksheet_and_the_servers_reason_when_it_cannot_be(page, server,
                                                                                   console):
    """The default example's row 3 ("sat") as a key: its weights 0.187, 0.045, 0.768."""
    from tests.browser.helpers import beyond, loaded

    loaded(page, server.url)
    part = page.locator(".export-row")
    part.scroll_into_view_if_needed()
    part.get_by_label("Level").select_option("weights")
    with page.expect_download() as d:
        part.get_by_role("button", name="Download answer key PDF").click()
    assert d.value.suggested_filename == "key-weights-own.pdf"
    key = pdf_pages(d.value.path())[0]
    assert "Query 3 · “sat”: every blank filled in" in key
    assert all(w in key for w in ("0.187", "0.045", "0.768"))
    expect(page.locator("#export-message")).to_have_text("Answer key saved.")
    beyond(page).get_by_role("combobox", name="Positions").select_option("rope")
    part.get_by_role("button", name="Download worksheet PDF").click()
    expect(page.locator("#export-message")).to_have_text(
        "an example worked by hand may have a mask, a scale, sinusoidal positions and "
        "several heads, not RoPE")
    console[:] = [m for m in console if "status of 422" not in m[1]]  # that one, expected


def fill_every_blank_wrong(page, level, seed=5):
    """Every blank of the exercise given a wrong number (1.3 times the reference's, plus
    0.7), checked at once; waits until every one is marked wrong with its hint shown."""
    from tests.core.helpers import exercise_value

    numbers = exercise_reference(request(exercise(seed, level)))
    page.goto(f"{page.url.split('practise')[0]}practise?seed={seed}&level={level}")
    inputs = page.locator("input.answer")
    count = inputs.count()
    for k in range(count):
        path = inputs.nth(k).get_attribute("data-path")
        inputs.nth(k).fill(f"{exercise_value(numbers, path) * 1.3 + 0.7:.3f}")
    inputs.last.press("Enter")
    expect(page.locator('.blank[data-state="wrong"]')).to_have_count(count)
    expect(page.locator(".hint:not(:empty)")).to_have_count(count)
    return count


BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  return {card: box(document.getElementById("working-card")),
          blanks: [...document.querySelectorAll(".blank")].map(box),
          hints: [...document.querySelectorAll(".hint:not(:empty)")].map(box),
          width: document.documentElement.scrollWidth};
}"""


def overlap(a, b):
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] \
        and b["top"] < a["bottom"]


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 700), (390, 844)])
def test_hints_never_cover_a_blank_or_one_another_and_stay_in_the_card(browser, console, server,
                                                                      width, height):
    """Every blank wrong at the row level (each with its hint), and at two levels more."""
    page = open_page(browser, console, width=width, height=height)
    page.goto(server.url + "practise")
    for level in ("row", "causal", "positions"):
        count = fill_every_blank_wrong(page, level)
        b = page.evaluate(BOXES)
        assert len(b["hints"]) == len(b["blanks"]) == count, level
        card = b["card"]
        for k, hint in enumerate(b["hints"]):
            assert card["left"] <= hint["left"] and hint["right"] <= card["right"], (level, k)
            assert not any(overlap(hint, blank) for blank in b["blanks"]), (level, k)
            assert not any(overlap(hint, other) for other in b["hints"][k + 1:]), (level, k)
        assert b["width"] <= width, level
    page.close()


def test_the_pages_maths_is_typeset_with_mathml_for_screen_readers(page, server):
    """Seed 5 at "row": X is 3 × 2, d_k = 2, query 2; each formula typeset by KaTeX from its
    TeX, with MathML beside the drawing."""
    page.goto(server.url + "practise?seed=5&level=row")
    inputs = page.locator("#inputs-title ~ .practise-matrices")
    expect(inputs.locator(".katex")).to_have_count(5)
    assert inputs.locator("annotation").all_text_contents() == [
        "X", "n \\times d_{\\text{model}} = 3 \\times 2", "W_Q", "W_K", "W_V"]
    assert shown_prose(page.locator(".notes li"),
                       "$d_k = 2$: the scores are divided by $\\sqrt{2} = 1.414$.")
    assert page.locator("thead .katex annotation").all_text_contents() == [
        "j", "k_j", "q_{2} \\cdot k_j", "s_j = q_{2} \\cdot k_j \\div \\sqrt{2}", "e^{s_j}",
        "a_j = e^{s_j} \\div \\Sigma", "v_j"]
    assert page.locator(".vector-line > .math annotation").all_text_contents() == [
        "q_{2} = x_{2} \\cdot W_Q =", "\\sum_j e^{s_j} =", "z_{2} = \\sum_j a_j v_j ="]
    # Every formula carries MathML, which a screen reader reads.
    katex = page.locator("#practise .katex")
    assert katex.count() == page.locator("#practise .katex-mathml > math").count() > 20
