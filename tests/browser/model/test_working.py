"""The real-model view's working speaks first to someone who has read only the chapter: the
dot products, the scale and softmax, z; what the model adds (shared key/value heads, the
rotation by position, the projections' biases) follows, folded, under one line saying why
it is there, and its numbers are those the chapter's steps use."""

import re
from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.helpers import MINUS
from tests.browser.model.test_view import head_inputs, open_view, rotate

pytestmark = pytest.mark.browser

TEXT = "The capital of France is"
CHAPTER = ["dots", "softmax", "output"]


def steps(page):
    """The working's parts in order: each step's key, and "fold" for the folded part."""
    return page.locator("#working > *").evaluate_all(
        "els => els.map((e) => e.matches('details') ? 'fold' : e.dataset.step).filter(Boolean)")


def folded_steps(page):
    return page.locator("#working > details.beyond section.working-step").evaluate_all(
        "ss => ss.map((s) => s.dataset.step)")


def titles(page):
    return [" ".join(t.split()) for t in
            page.locator("#working > section.working-step > h3").all_inner_texts()]


def vector(tex):
    """The numbers of a TeX vector "(0.397,\\allowbreak −0.103, …)" as floats, ⋯ left out."""
    inside = tex[tex.rindex("(") + 1:tex.rindex(")")]
    parts = [p.replace("\\allowbreak", "").strip().replace(MINUS, "-") for p in inside.split(",")]
    return [float(p) for p in parts if p and "cdots" not in p]


def test_the_decoders_working_leads_with_the_chapter_and_folds_heads_and_rotations(page, server):
    # Layer 1 head 5 of SmolLM2 reads key/value head 2, which query heads 4, 5 and 6 share.
    open_view(page, server, f"#model=smollm2-135m&text={quote(TEXT)}&layer=0&head=4")
    page.wait_for_function("() => document.querySelector('#working .katex')")
    assert steps(page) == [*CHAPTER, "fold"]
    # q_5 as the model makes it, and one click away how, in words with the shapes.
    q_line = page.locator('#working [data-step="dots"] li').first
    assert q_line.locator(":scope > .math").get_attribute("data-tex").startswith(
        "q_{5} = \\operatorname{rot}_{p = 4}(x_{5}W_Q) = (")
    made = q_line.locator("details.made")
    made.locator("summary").click()
    expect(made.locator(".made-body")).to_have_text(
        "q5 = x5·WQ: x5 is this token's 576 numbers as they enter layer 1 (“What is X here?” "
        "says what they are); WQ is this head's 576 × 64 matrix. So q5 has 64 numbers, each "
        "the dot product of x5 with one column of WQ: 576 products apiece. RoPE then turns it "
        "by its position (below).kj = xj·WK: each key's row xj times WK (576 × 64), in the "
        "same way. RoPE then turns it by its position (below).")
    made.locator("summary").click()
    assert titles(page) == ["1 · Dot products with each key",
                            "2 · Divide by √dk = 8.000 (dk = 64), then softmax",
                            "3 · Output: z is the weighted sum of the values"]
    fold = page.locator("#working > details.beyond")
    summary = fold.locator(":scope > summary")  # its own, not a step's disclosure
    expect(summary).to_have_text(
        "Beyond the chapter, and already in the numbers above: query heads 4, 5 and 6 share one "
        "key/value head, to save memory, and qi and kj are turned by their positions (RoPE), so "
        "that the scores depend on where the tokens stand.", use_inner_text=True)
    # Folded: its steps are there, unseen, until the line is opened.
    assert folded_steps(page) == ["kv-head", "rope"]
    rope = fold.locator('section[data-step="rope"]')
    expect(rope).to_be_hidden()
    box = page.locator('#working section[data-step="output"]').bounding_box()
    assert summary.bounding_box()["y"] >= box["y"] + box["height"]  # below the chapter's steps
    summary.click()
    expect(fold).to_have_attribute("open", "")
    expect(rope).to_be_visible()
    expect(rope.locator("h3")).to_have_text(
        "Rotate qi and each kj by its position (RoPE, θ = 100000)", use_inner_text=True)
    expect(fold.locator('section[data-step="kv-head"] h3')).to_have_text(
        "Keys and values from key/value head 2 of 3", use_inner_text=True)
    expect(rope.locator(".katex").first).to_be_attached()  # typeset once opened
    # The rotated q_5 the fold ends with is the q_5 step 1 multiplies, and numpy's.
    rotated = rope.locator("li", has_text="rotated").locator(".math").get_attribute("data-tex")
    first = page.locator('#working [data-step="dots"] li').first.locator(".math")
    assert vector(rotated) == vector(first.get_attribute("data-tex"))
    inputs = head_inputs(page, server, "smollm2-135m", TEXT, 0, 4)
    q = rotate(inputs["X"] @ inputs["W_Q"], inputs["rope_base"])[4]
    shown = vector(rotated)
    assert shown[:4] == pytest.approx(q[:4], abs=6e-4)
    assert shown[-2:] == pytest.approx(q[-2:], abs=6e-4)
    # Opened, it stays open for the next row, whose working it then shows.
    page.locator('#heatmap td[data-i="2"][data-j="0"]').click()
    expect(page.locator("#working-sym")).to_contain_text("query 3, “␣of”")
    expect(fold).to_have_attribute("open", "")
    # Its maths is typeset as it comes into view (texsight.js), with row 3's numbers.
    line = rope.locator("li", has_text="rotated")
    line.scroll_into_view_if_needed()
    expect(line.locator(".katex")).to_be_attached()
    assert line.locator("annotation").text_content() == line.locator(".math").get_attribute(
        "data-tex")
    q3 = rotate(inputs["X"] @ inputs["W_Q"], inputs["rope_base"])[2]
    rotated = rope.locator("li", has_text="rotated").locator(".math").get_attribute("data-tex")
    assert vector(rotated)[:4] == pytest.approx(q3[:4], abs=6e-4)


def test_the_encoders_working_folds_its_biases(page, server):
    open_view(page, server, f"#model=minilm-l6&text={quote(TEXT)}&layer=0&head=0")
    page.wait_for_function("() => document.querySelector('#working .katex')")
    assert steps(page) == [*CHAPTER, "fold"]
    assert folded_steps(page) == ["bias"]
    expect(page.locator("#working > details.beyond > summary")).to_have_text(
        "Beyond the chapter, and already in the numbers above: each projection adds a learned "
        "bias, bQ, bK and bV, as linear layers usually do.", use_inner_text=True)
    assert re.match(r"^1 · Dot products", titles(page)[0])
    # The q_i of step 1 is x_i·W_Q + b_Q, as the folded step says and numpy computes.
    inputs = head_inputs(page, server, "minilm-l6", TEXT, 0, 0)
    n = len(inputs["tokens"])
    q = (inputs["X"] @ inputs["W_Q"] + inputs["b_Q"])[n - 1]
    first = page.locator('#working [data-step="dots"] li').first.locator(".math")
    shown = vector(first.get_attribute("data-tex"))
    assert shown[:4] == pytest.approx(q[:4], abs=6e-4)
    assert np.isclose(shown[-1], q[-1], atol=6e-4)
