""""Step through the tiles" (static/js/draw/tiles.js, draw/heatmaptile.js) in a real
browser: the selected row through FlashAttention's key blocks by keyboard, each tile's m, ℓ
and O as an online softmax written here by hand computes them, the tile outlined over its
cells in the heatmap, a causal tile skipped, and a block size that is not one named."""

import math
from urllib.parse import quote

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.draw.test_heatmap import CAT, open_30
from tests.browser.helpers import MINUS, loaded, wait_settled
from tests.browser.model.test_view import SENTENCE, head_inputs, open_view, reference

pytestmark = pytest.mark.browser

X = np.array([[1, 0], [0, 1], [1, 1]])  # the default example, "the cat sat"


def f3(x):
    return f"{x:.3f}".replace("-", MINUS)


def vec(xs):
    return "(" + ", ".join(f3(x) for x in xs) + ")"


def online(scores, V, block):
    """The online softmax over one row's ``scores`` (None where masked) in key blocks of
    ``block``: after each block, the running maximum m, sum ℓ and output O."""
    top, total, out = -math.inf, 0.0, np.zeros(len(V[0]))
    after = []
    for start in range(0, len(scores), block):
        s = [(j, x) for j, x in enumerate(scores[start:start + block], start) if x is not None]
        new = max([top] + [x for _, x in s])
        r = math.exp(top - new) if top != -math.inf else 0.0
        total = total * r + sum(math.exp(x - new) for _, x in s)
        out = out * r + sum(math.exp(x - new) * np.array(V[j], float) for j, x in s)
        top = new
        after.append((top, total, out.copy()))
    return after


def t3(x):
    """A number in TeX as the panel writes it: 3 decimals, an ASCII minus."""
    return f"{x:.3f}"


# A line as written: its words, and each maths span as $TeX$, the TeX taken from the MathML
# annotation KaTeX typeset (so "$…$" only where KaTeX has typeset that TeX).
WRITTEN = """(p) => [...p.childNodes].map((n) => n.nodeType === Node.TEXT_NODE ? n.textContent
  : n.classList.contains("math") ? `$${n.querySelector(".katex annotation")?.textContent}$`
  : n.textContent).join("")"""


def written(line):
    """``line`` once each of its maths spans is typeset, as WRITTEN reads it."""
    expect(line.locator(".math > .katex")).to_have_count(line.locator(".math").count())
    return line.evaluate(WRITTEN)


RESCALE = r"\mathrm{rescale} = e^{m_\mathrm{before} - m_\mathrm{after}}"


def panel(page):
    block = page.locator("#tiles-block")
    block.scroll_into_view_if_needed()
    return block


def outline_on_cells(page, rows, keys):
    """The tile's outline lies on its cells: its box is the union of theirs (within 1 px)."""
    box = page.locator("#heatmap .tile-outline").bounding_box()
    cell = '#heatmap td[data-i="{}"][data-j="{}"]'
    first = page.locator(cell.format(rows[0], keys[0])).bounding_box()
    last = page.locator(cell.format(rows[1] - 1, keys[1] - 1)).bounding_box()
    union = (first["x"], first["y"], last["x"] + last["width"], last["y"] + last["height"])
    got = (box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"])
    assert all(abs(a - b) <= 1 for a, b in zip(got, union, strict=True)), (got, union)


def test_the_default_row_through_its_tiles_by_keyboard(page, server):
    """Row 3 "sat": q = (2, 2), scores (4, 2, 6)/√2; with B_c = 2 the first tile holds keys
    1–2, the second key 3, which raises the maximum from 4/√2 to 6/√2."""
    loaded(page, server.url)
    scores = [4 / math.sqrt(2), 2 / math.sqrt(2), 6 / math.sqrt(2)]
    V = X @ np.array(CAT["W_V"])
    (m1, l1, O1), (m2, l2, O2) = online(scores, V, 2)
    block = panel(page)
    block.get_by_role("button", name="Next tile").focus()
    page.keyboard.press("Enter")
    status = block.locator(".gen-status")
    expect(status).to_have_text(
        f"Tile 1 of 2: keys 1–2: the row's first keys; m starts at {f3(m1)}")
    lines = block.locator(".tile-line")
    assert [written(lines.nth(k)) for k in range(4)] == [
        f"$m = \\max(m, s_j)$: −∞ → {f3(m1)}",
        f"${RESCALE} = e^{{-\\infty}} = 0$: $\\ell$ and $O$ were still empty",
        f"$\\ell = \\ell \\cdot \\mathrm{{rescale}} + \\sum_j e^{{s_j - m}}$: 0.000 → {f3(l1)}",
        f"$O = O \\cdot \\mathrm{{rescale}} + \\sum_j e^{{s_j - m}}\\, v_j$: (0.000, 0.000) → "
        f"{vec(O1)}"]
    scores_table = block.get_by_role("table", name="Scores of keys 1–2")
    expect(scores_table.locator("td")).to_have_text([f3(scores[0]), f3(scores[1])])
    assert written(scores_table.locator("tbody th")) == "score $s_j$"
    assert written(block.locator(".gen-note")).endswith(
        "multiplied by $e^{m_\\mathrm{before} - m_\\mathrm{after}}$. Follow the selected row "
        "through its tiles.")
    outline_on_cells(page, (2, 3), (0, 2))
    expect(page.locator("#tile-note")).to_have_text(
        "Boxed: the tile followed in “Step through the tiles” below, query 3 with keys 1–2.")
    page.keyboard.press("ArrowRight")
    rescale = math.exp(m1 - m2)
    expect(status).to_have_text(f"Tile 2 of 2: key 3: the maximum grew from {f3(m1)} to {f3(m2)}, "
                                f"so ℓ and O are multiplied by {f3(rescale)}")
    assert written(lines.nth(1)) == f"${RESCALE} = e^{{{t3(m1)} - {t3(m2)}}} = {t3(rescale)}$"
    assert written(lines.nth(2)).endswith(f"$: {f3(l1)} → {f3(l2)}")
    outline_on_cells(page, (2, 3), (2, 3))
    page.keyboard.press("ArrowRight")
    z = O2 / l2
    expect(status).to_have_text(f"After 2 tiles: z = O/ℓ = {vec(z)}")
    assert written(lines.nth(0)) == (
        f"$z = O / \\ell$ = {vec(O2)} / {f3(l2)} = {vec(z)}; the whole computation's z, in the "
        f"working above, is the same: {vec(z)}.")
    lse = math.log(sum(math.exp(s) for s in scores))
    assert written(lines.nth(1)).startswith(
        f"log-sum-exp $= m + \\ln \\ell = {t3(m2)} + \\ln {t3(l2)} = {t3(lse)}$: ")
    expect(block.locator(".tile-memory")).to_have_text(
        "Held at once: one tile's scores, at most 4, never all 9 of the whole matrix.")
    expect(page.locator("#heatmap .tile-outline")).to_have_count(0)  # z: no tile
    expect(page.locator("#tile-note")).to_be_hidden()
    expect(block.get_by_role("button", name="Next tile")).to_be_disabled()
    expect(block.get_by_role("button", name="Previous tile")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(status).to_contain_text("Tile 2 of 2")
    found = Axe().run(page, context="#tiles-block")
    assert found.violations_count == 0, found.generate_report()


def test_a_causal_tile_above_the_diagonal_is_skipped_and_dashed(page, server):
    """Causal, row 2 "cat": its query block is rows 1–2, and keys 3's tile lies wholly after
    both, so it is never computed; m, ℓ and O pass it as they were."""
    loaded(page, server.url + "#causal=1&row=1")
    block = panel(page)
    block.get_by_role("button", name="Next tile").click()
    block.get_by_role("button", name="Next tile").click()
    expect(block.locator(".gen-status")).to_have_text(
        "Tile 2 of 2: key 3, skipped: every score in it is masked, so it is never computed")
    # m, ℓ and O pass it as the first tile left them (keys 1–2 of q₂ = x₂·W_Q), in maths.
    Q, K, V = (X @ np.array(CAT[w]) for w in ("W_Q", "W_K", "W_V"))
    [(m1, l1, O1)] = online([Q[1] @ K[j] / math.sqrt(2) for j in range(2)], V, 2)
    assert written(block.locator(".tile-line")) == (
        f"Every score of queries 1–2 with key 3 is masked: the tile is skipped, and "
        f"$m = {t3(m1)}$, $\\ell = {t3(l1)}$ and $O$ = {vec(O1)} pass it unchanged.")
    expect(page.locator("#heatmap .tile-outline")).to_have_class("tile-outline skipped")
    outline_on_cells(page, (0, 2), (2, 3))
    # Present mode shows neither the panel nor the box.
    page.get_by_role("button", name="Present").click()
    expect(page.locator("#heatmap .tile-outline")).to_be_hidden()
    page.get_by_role("button", name="Exit present mode").click()
    expect(page.locator("#heatmap .tile-outline")).to_be_visible()
    expect(block.get_by_role("list", name="The row's key blocks").locator("li")).to_have_text(
        ["keys 1–2 (done)", "key 3 (skipped)"])
    # An edit while open: the trace follows it. Without the mask row 2 reads key 3 too:
    # q = (1, 2), scores (2, 2, 4)/√2, and key 3 raises the maximum.
    page.get_by_label("Causal mask").uncheck()
    wait_settled(page)
    (m1, _, _), (m2, _, _) = online([2 / math.sqrt(2), 2 / math.sqrt(2), 4 / math.sqrt(2)],
                                     X @ np.array(CAT["W_V"]), 2)
    expect(block.locator(".gen-status")).to_have_text(
        f"Tile 2 of 2: key 3: the maximum grew from {f3(m1)} to {f3(m2)}, so ℓ and O are "
        f"multiplied by {f3(math.exp(m1 - m2))}")
    expect(page.locator("#heatmap .tile-outline")).to_have_class("tile-outline")


def test_a_block_size_that_is_not_a_whole_number_is_named_and_kept(page, server, console):
    loaded(page, server.url)
    block = panel(page)
    block.get_by_role("button", name="Next tile").click()
    expect(block.locator(".gen-status")).to_contain_text("Tile 1 of 2")
    field = block.get_by_label("Key columns a tile")
    field.fill("0")
    expect(block.locator("#tiles-error")).to_have_text(
        "block_k must be a whole number of at least 1 (the key columns B_c of a tile), got 0")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_value("0")
    expect(page.locator("#heatmap .tile-outline")).to_have_count(0)
    field.fill("3")
    expect(block.locator(".gen-status")).to_have_text(
        "Tile 1 of 1: keys 1–3: the row's first keys; m starts at 4.243")
    expect(field).to_have_attribute("aria-invalid", "false")
    outline_on_cells(page, (2, 3), (0, 3))
    console[:] = [m for m in console if "status of 422" not in m[1]]  # the 0 asked of the server


def test_the_outline_on_a_canvas_heatmap_covers_its_share_of_the_map(page, server):
    """30 tokens: the canvas draws a pixel a weight; row 30 with B_r = B_c = 8 is in query
    block 4 (rows 25–30) and meets key block 4 (keys 25–30) last: the map's last 6 of 30
    rows and columns."""
    open_30(page, server)
    block = panel(page)
    for name in ("Query rows a tile", "Key columns a tile"):
        block.get_by_label(name).fill("8")
    for _ in range(4):
        block.get_by_role("button", name="Next tile").click()
    expect(block.locator(".gen-status")).to_contain_text("Tile 4 of 4: keys 25–30")
    box = page.locator("#heatmap .tile-outline").bounding_box()
    canvas = page.locator("#heatmap canvas").bounding_box()
    want = (canvas["x"] + canvas["width"] * 24 / 30, canvas["y"] + canvas["height"] * 24 / 30,
            canvas["width"] * 6 / 30, canvas["height"] * 6 / 30)
    got = (box["x"], box["y"], box["width"], box["height"])
    assert all(abs(a - b) <= 1 for a, b in zip(got, want, strict=True)), (got, want)


def test_a_real_models_row_through_its_tiles(page, server):
    """SmolLM2 layer 4 head 6, row 5 of "The cat sat on the mat": its first tile's maximum is
    that of the scaled scores numpy computes here from the head's own inputs, and after the
    last tile z agrees with the working's, every one of its 64 numbers."""
    open_view(page, server, f"#model=smollm2-135m&text={quote(SENTENCE)}&layer=3&head=5&row=4")
    inputs = head_inputs(page, server, "smollm2-135m", SENTENCE, 3, 5)
    dots, _ = reference(inputs, causal=True)
    scaled = dots[4] / math.sqrt(64)
    n = len(inputs["tokens"])  # 6: "The", "␣cat", … "␣mat"; row 5's query block is rows 5–6
    assert n == 6
    block = panel(page)
    block.get_by_role("button", name="Next tile").focus()
    page.keyboard.press("Enter")
    expect(block.locator(".gen-status")).to_have_text(
        f"Tile 1 of 3: keys 1–2: the row's first keys; m starts at {f3(max(scaled[:2]))}")
    outline_on_cells(page, (4, 6), (0, 2))
    expect(page.locator("#tile-note")).to_have_text(
        "Boxed: the tile followed in “Step through the tiles” below, queries 5–6 with keys 1–2.")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(block.locator(".tile-line").first).to_contain_text(
        "the whole computation's z, in the working above, is the same, every one of its numbers.")
    found = Axe().run(page, context="#tiles-block")
    assert found.violations_count == 0, found.generate_report()
