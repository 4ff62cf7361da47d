""""Generate step by step" on the real-model view (static/js/model/generate.js): SmolLM2's
opened head generating a sentence by keyboard, each new row the weights numpy computes here
from the head's own inputs (and the heatmap's row), the head's cache and the whole model's
as the model's sizes make them; an encoder says it generates nothing."""

from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.model.test_view import SENTENCE, head_inputs, open_view, reference, shown_weights

pytestmark = pytest.mark.browser

NEW_ROW = "els => els.map((li) => li.lastChild.textContent)"  # each cell's weight, as printed


def model_info(page, server, model):
    r = page.request.get(f"{server.url}api/models")
    assert r.status == 200
    return next(m for m in r.json()["models"] if m["id"] == model)


def test_the_decoder_generates_the_sentence_step_by_step_by_keyboard(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(SENTENCE)}&layer=3&head=5")
    inputs = head_inputs(page, server, "smollm2-135m", SENTENCE, 3, 5)
    _, A = reference(inputs, causal=True)
    tokens, n = list(inputs["tokens"]), A.shape[0]
    info = model_info(page, server, "smollm2-135m")
    block = page.locator("#generate-block")
    block.scroll_into_view_if_needed()
    block.get_by_role("button", name="Step forward").focus()
    page.keyboard.press("Enter")
    status = block.locator(".gen-status")
    expect(status).to_have_text(f"Step 1 of {n}: token 1 “{tokens[0]}” reads 1 key")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(status).to_have_text(f"Step 4 of {n}: token 4 “{tokens[3]}” reads 4 keys")
    row = block.get_by_role("list", name="Row 4 of A: the weights of token 4 on tokens 1 to 4")
    printed = row.locator("li").evaluate_all(NEW_ROW)
    assert printed == [f"{a:.3f}" for a in A[3, :4]]
    assert printed == [f"{a:.3f}" for a in shown_weights(page)[3, :4]]  # the heatmap's row 4
    d = info["d_head"]
    expect(block.locator(".gen-cost").first).to_have_text(
        f"4 dot products with the cache, against 16 to compute every row again. This head's "
        f"cache: 4 tokens, {4 * 2 * d:,} numbers, {4 * 2 * d * 8:,} bytes: a key and a value of "
        f"{d} numbers a token, at 8 bytes (float64) here.")
    per_token = 2 * info["layers"] * info["kv_heads"] * d  # 2 · 30 · 3 · 64 = 11,520
    whole = block.locator(".gen-cost").nth(1)
    expect(whole).to_contain_text(
        f"2 · {info['layers']} layers · {info['kv_heads']} key/value heads · {d} = "
        f"{per_token:,} numbers a token, {per_token * 2 / 1000:.3g} KB at 2 bytes a number")
    expect(whole).to_contain_text(f"At your {n} tokens: {per_token * 2 * n / 1000:.3g} KB;")
    for _ in range(n):
        page.keyboard.press("ArrowRight")
    expect(status).to_have_text(f"Step {n} of {n}: token {n} “{tokens[-1]}” reads {n} keys")
    expect(block.get_by_role("button", name="Step forward")).to_be_disabled()
    expect(block.get_by_role("button", name="Step back")).to_be_focused()
    last = block.get_by_role("list",
                             name=f"Row {n} of A: the weights of token {n} on tokens 1 to {n}")
    assert last.locator("li").evaluate_all(NEW_ROW) == [f"{a:.3f}" for a in A[-1]]
    found = Axe().run(page, context="#generate-block")
    assert found.violations_count == 0, found.generate_report()


def test_the_opened_head_is_the_one_generated_and_a_new_head_follows(page, server):
    open_view(page, server, f"#model=smollm2-135m&text={quote(SENTENCE)}&layer=0&head=0")
    block = page.locator("#generate-block")
    block.scroll_into_view_if_needed()
    block.get_by_role("button", name="Step forward").click()
    block.get_by_role("button", name="Step forward").click()
    expect(block.locator(".gen-status")).to_contain_text("Step 2 of")
    # Another head from the grid: the step stays, its numbers are the new head's.
    page.locator('#grid [data-layer="2"][data-head="4"]').click()
    _, A = reference(head_inputs(page, server, "smollm2-135m", SENTENCE, 2, 4), causal=True)
    row = block.get_by_role("list", name="Row 2 of A: the weights of token 2 on tokens 1 to 2")
    expect(row.locator("li")).to_have_count(2)
    page.wait_for_function(f"() => [...document.querySelectorAll('#generate-block .gen-strip li')]"
                           f".map((li) => li.lastChild.textContent).join() === "
                           f"'{','.join(f'{a:.3f}' for a in A[1, :2])}'")


def test_an_encoder_says_it_generates_nothing(page, server):
    open_view(page, server, "#model=minilm-l6")
    block = page.locator("#generate-block")
    expect(block.locator(".gen-note")).to_have_text(
        "all-MiniLM-L6-v2 is an encoder: it reads the whole text at once and generates nothing, "
        "so it keeps no key/value cache. Choose a decoder to step through its generation.")
    expect(block.get_by_role("button", name="Step forward")).to_be_hidden()
