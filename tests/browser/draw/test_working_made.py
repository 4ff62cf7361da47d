"""draw/workingmade.js: the working's first line says how q_i is made, "q_3 = x_3 W_Q", as
the view computes it, and one click opens x_i, W_Q and each component of q_i (k_j beside
it, v_j beside z_i) with their numbers, checked against numpy written here."""

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.draw.test_workingsteps import CAT, W_K, W_Q, W_V, X, fragment, sinusoidal
from tests.browser.helpers import MINUS, loaded

pytestmark = pytest.mark.browser

TOL = 5e-4  # the page prints 3 decimals
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def math_text(node):
    """A line's typeset maths as text, KaTeX's spacing removed, ASCII minus."""
    text = "".join(node.locator(".katex-html").all_inner_texts())
    return re.sub(r"[\s\u200b]+", "", text).replace(MINUS, "-").replace("\u22c5", "·")


def numbers_after(text, lhs):
    """The numbers of a line "lhs=…", its left-hand side's subscripts left out."""
    assert text.startswith(lhs), (text, lhs)
    return [float(x) for x in NUMBER.findall(text[len(lhs):])]


def opened(page, key):
    """The disclosure ``key`` ("qk" or "v") opened, its lines typeset: their texts."""
    made = page.locator(f'#working details.made[data-made="{key}"]')
    made.locator("summary").click()
    lines = made.locator(".made-body > li")
    expect(lines.first).to_be_visible()
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('#working details.made[data-made="{key}"]'
        + ' .made-body .math')].every((s) => s.querySelector('.katex'))""")
    return [(math_text(li), li.locator(".key-label").all_inner_texts())
            for li in lines.all()]


def matrix(li):
    """A matrix line's numbers, row by row, from KaTeX's MathML (its typeset copy sets
    them column by column)."""
    rows = li.locator(".katex-mathml mtr").evaluate_all(
        "rs => rs.map(r => [...r.querySelectorAll('mtd')].map(d => d.textContent))")
    return [[float(x.replace(MINUS, "-")) for x in row] for row in rows]


def made_lines(page, key):
    return page.locator(f'#working details.made[data-made="{key}"] .made-body > li')


@pytest.mark.parametrize("size", [(1280, 800), (1024, 700)], ids=str)
def test_the_first_line_says_q_is_x_times_w_q_and_one_click_writes_it_out(
        browser, console, server, size):
    page = open_page(browser, console, *size)
    loaded(page, server.url)
    line = page.locator('#working [data-step="dots"] li').first
    expect(line.locator(".katex").first).to_be_attached()
    assert math_text(line) == "q3=x3WQ=(2.000,2.000)"
    summary = line.locator("details.made > summary")
    expect(summary).to_have_text("how q3 and kj are made")
    box = summary.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= size[1], box  # on the first screen
    lines = opened(page, "qk")
    x = np.array(X[2], dtype=float)
    Wq, Wk = np.array(W_Q, dtype=float), np.array(W_K, dtype=float)
    texts = [t for t, _ in lines]
    assert numbers_after(texts[0], "x3=") == pytest.approx(x.tolist(), abs=TOL)
    assert texts[1].startswith("WQ=")
    assert matrix(made_lines(page, "qk").nth(1)) == W_Q
    q = x @ Wq
    for c in range(2):
        # q_3,c: x_3's products with column c of W_Q, and their sum.
        values = numbers_after(texts[3 + c], f"q3,{c + 1}=")
        expected = [v for r in range(2) for v in (x[r], Wq[r, c])] + [q[c]]
        assert values == pytest.approx(expected, abs=TOL), texts[3 + c]
    K = np.array(X, dtype=float) @ Wk
    key_lines = texts[-3:]
    for j in range(3):
        assert numbers_after(key_lines[j], f"k{j + 1}=") == pytest.approx(
            [*X[j], *K[j]], abs=TOL)
    assert [labels for _, labels in lines[-3:]] == [["the"], ["cat"], ["sat"]]
    # v_j beside z_3's value.
    V = np.array(X, dtype=float) @ np.array(W_V, dtype=float)
    values = [t for t, _ in opened(page, "v")][-3:]
    for j in range(3):
        assert numbers_after(values[j], f"v{j + 1}=") == pytest.approx([*X[j], *V[j]], abs=TOL)
    page.close()


def test_with_positions_and_biases_q_is_x_plus_pe_times_w_q_plus_b_q(page, server):
    b_Q, b_K = [0.5, -1], [1, 0]
    loaded(page, server.url + fragment(**CAT, positional="sinusoidal", biases=1,
                                       b_Q="0.5,-1", b_K="1,0", b_V="0,0"))
    line = page.locator('#working [data-step="dots"] li').first
    expect(line.locator(".katex").first).to_be_attached()
    xp = np.array(X, dtype=float) + sinusoidal(3, 2, 0)
    q = xp[2] @ np.array(W_Q) + b_Q
    assert math_text(line) == f"q3=(x3+PE3)WQ+bQ=({q[0]:.3f},{q[1]:.3f})"
    texts = [t for t, _ in opened(page, "qk")]
    assert numbers_after(texts[0], "(x3+PE3)=") == pytest.approx(xp[2].tolist(), abs=TOL)
    xw = xp[2] @ np.array(W_Q)
    for c in range(2):
        values = numbers_after(texts[3 + c], f"q3,{c + 1}=")
        expected = [v for r in range(2) for v in (xp[2, r], W_Q[r][c])] + [xw[c]]
        assert values == pytest.approx(expected, abs=TOL), texts[3 + c]
    # Then b_Q: x·W_Q + b_Q = q.
    bias = next(t for t in texts if t.startswith("q3=(x3+PE3)WQ+bQ="))
    assert numbers_after(bias, "q3=(x3+PE3)WQ+bQ=") == pytest.approx(
        [*xw, *b_Q, *q], abs=TOL)
    K = xp @ np.array(W_K) + b_K
    for j in range(3):
        key = next(t for t in texts if t.startswith(f"k{j + 1}="))
        assert numbers_after(key, f"k{j + 1}=") == pytest.approx([*xp[j], *K[j]], abs=TOL)


# Three tokens of d_model = d_k = d_v = 8, one decimal each: x_3 and W_Q are shortened, each
# component of q_3 a sum of 8 products.
rng = np.random.default_rng(3)
WIDE = {name: rng.uniform(-2, 2, shape).round(1).tolist()
        for name, shape in [("X", (3, 8)), ("W_Q", (8, 8)), ("W_K", (8, 8)), ("W_V", (8, 8))]}
WITHIN = """() => { const w = document.querySelector('#working').getBoundingClientRect();
  return [...document.querySelectorAll('#working details.made .made-body > li')]
    .filter((li) => li.getBoundingClientRect().right > w.right + 0.5
      || li.scrollWidth > li.clientWidth + 1).map((li) => li.textContent.slice(0, 40)); }"""


@pytest.mark.parametrize("size", [(1024, 700), (390, 844)], ids=str)
def test_how_q_is_made_fits_the_working_at_d_8(browser, console, server, size):
    page = open_page(browser, console, *size)
    loaded(page, server.url + fragment(tokens="the|cat|sat", **WIDE, row=2))
    q = np.array(WIDE["X"][2]) @ np.array(WIDE["W_Q"])
    texts = [t for t, _ in opened(page, "qk")]
    opened(page, "v")
    for c in (0, 7):
        assert numbers_after(texts[3 + c], f"q3,{c + 1}=")[-1] == pytest.approx(q[c], abs=TOL)
    assert page.evaluate(WITHIN) == [], size
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= size[0]
    page.close()


def test_with_rope_step_1_starts_from_q_as_made_before_its_turn(page, server):
    loaded(page, server.url + fragment(**CAT, positional="rope"))
    first = page.locator('#working section[data-step="rope"] li').first
    expect(first.locator(".katex").first).to_be_attached()
    assert math_text(first) == "q3=x3WQ=(2.000,2.000)"  # x_3·W_Q, not yet turned
    texts = [t for t, _ in opened(page, "qk")]
    for c in range(2):
        assert numbers_after(texts[3 + c], f"q3,{c + 1}=") == pytest.approx(
            [1, W_Q[0][c], 1, W_Q[1][c], (np.array(X[2]) @ W_Q)[c]], abs=TOL)
    assert "Then RoPE turns q3 by its position p = 2" in page.locator(
        '#working details.made[data-made="qk"]').inner_text()
    # The dot products use the turned q_3: its line says so, and has no second disclosure.
    dots = page.locator('#working [data-step="dots"] li').first
    assert math_text(dots).startswith("q3=rotp=2(x3WQ)=")
    expect(dots.locator("details.made")).to_have_count(0)
