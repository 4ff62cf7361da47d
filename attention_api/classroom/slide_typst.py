"""A slide's typst source, 16:9 (960 × 540 pt: 1920 × 1080 pixels at 144 ppi): a head's
heatmap of A with its token labels and colour bar, or one row's working from the scores to
z_i, in type large enough for the back of a room.

Every label and number reaches the source as a string literal (typeset.literal), never as
markup; numbers are written as the page writes them (diagnosis.shown).
"""

from __future__ import annotations

from attention_core.classroom.diagnosis import shown
from attention_core.engine import AttentionResult
from attention_core.working import RowWorking

from ..typesetting.typeset import literal
from .colours import ACCENT, HATCH, HATCH_BG, VIRIDIS, text_rgb, weight_rgb

WIDTH, HEIGHT = 960, 540  # pt
PPI = 144  # 960 pt at 144 pixels per inch: 1920 pixels
NUMBERS_FROM = 26  # pt: a cell at least this wide and tall writes its weight in it
# The body's height under the title and the line about the view: the page less its margins
# (30 + 34) and the heading (~76 pt, on one line; a longer one makes `fitted` shrink the body).
BODY_HEIGHT = HEIGHT - 64 - 76

def _rgb(c) -> str:
    return f"rgb({c[0]}, {c[1]}, {c[2]})"


def _preamble(title: str, foot: str) -> str:
    return f"""\
#set document(title: {literal(title)}, author: "Attention Explorer")
#set page(width: {WIDTH}pt, height: {HEIGHT}pt, margin: (x: 40pt, top: 30pt, bottom: 34pt),
  fill: white, footer: [
    #set text(size: 11pt, fill: luma(110))
    #grid(columns: (1fr, auto), [{foot}], [Attention Explorer])
  ])
#set text(font: "Libertinus Serif", size: 22pt, lang: "en")
#show math.equation: set text(font: "New Computer Modern Math")
// The heading, then the body, shrunk as a whole to the room the heading leaves when it
// would run off the slide: long labels or many keys never make a second page.
#let fitted(heading, body) = {{
  heading
  context {{
    // Less the space below the heading (14 pt) and a little more, for rounding.
    let room = {HEIGHT - 64 - 24}pt - measure(block(width: {WIDTH - 80}pt, heading)).height
    let need = measure(block(width: {WIDTH - 80}pt, body)).height
    if need <= room {{ body }} else {{
      scale(room / need * 100%, reflow: true, origin: top + left, body)
    }}
  }}
}}
#let masked = tiling(size: (8pt, 8pt))[
  #place(rect(width: 100%, height: 100%, fill: {_rgb(HATCH_BG)}, stroke: none))
  #place(line(start: (0%, 100%), end: (100%, 0%), stroke: 1.4pt + {_rgb(HATCH)}))
]
"""


def _label(tokens: list[str], j: int) -> str:
    return f"{j + 1} #{literal(short_label(tokens[j]))}"



def _slide(title: str, subtitle: str, body: str) -> str:
    """The slide's title (typst markup of ours), its line about the view (text) and its
    ``body`` (markup), the body shrunk to the room the heading leaves (``fitted``)."""
    heading = (f"block(below: 10pt, text(size: 30pt, weight: \"bold\")[{title}]) + "
               f"block(below: 14pt, text(size: 17pt, fill: luma(80))[#{literal(subtitle)}])")
    return f"#fitted({heading}, [{body}])"


def colour_bar(height: float) -> str:
    """The scale 0 → 1 (1 at the top), its stops the page's, blended in RGB as the page
    does, with ticks every quarter, and the masked swatch beneath."""
    stops = ", ".join(_rgb(c) for c in VIRIDIS)  # VIRIDIS[0] is weight 1: the top
    ticks = "".join(f"#place(top + left, dy: {height * (1 - t):.1f}pt, line(length: 6pt, "
                    f"stroke: 0.8pt))#place(top + left, dx: 9pt, dy: {height * (1 - t):.1f}pt "
                    f"- 0.5em)[{t:g}]" for t in (0, 0.25, 0.5, 0.75, 1))
    bar = (f"box(width: 22pt, height: {height:.1f}pt, stroke: 0.6pt + luma(120), "
           f"fill: gradient.linear({stops}, angle: 90deg, space: rgb))")
    swatch = "box(width: 22pt, height: 14pt, fill: masked, stroke: 0.6pt + luma(120))"
    return (f"box(width: 84pt, text(size: 15pt, grid(columns: (22pt, auto), row-gutter: 14pt, "
            f"{bar}, box(width: 50pt, height: {height:.1f}pt)[{ticks}], {swatch}, "
            f"pad(left: 5pt, text(size: 13pt)[masked]))))")


# The room for the grid: the page less its margins (x 40 + 40, y 30 + 34), the title and the
# line about the view (~100 pt), the row labels (150) and the colour bar (~110).
GRID_WIDTH, GRID_HEIGHT, ROW_LABELS = WIDTH - 80 - 150 - 110, HEIGHT - 64 - 100, 150
LABEL_CHARS = 24  # a longer label is cut, with "…", on a heatmap slide
EM = 0.55  # a character's width, about, in ems of the serif type


def short_label(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


def _cells_fit(n: int, m: int, queries: list[str], keys: list[str]) -> tuple[float, float, bool]:
    """A cell's side (pt), the labels' type size (pt), and whether the keys' labels stand
    on end, for a grid of n × m cells: the row labels within their column and the header
    row within the height, so that the grid never runs off the slide."""
    longest_q = len(str(n)) + 1 + max(len(q) for q in queries)
    longest_k = max(len(k) for k in keys)
    cell = min(GRID_WIDTH / m, (GRID_HEIGHT - 40) / n, 110.0)
    size = max(7.0, min(24.0, cell * 0.42, ROW_LABELS / (longest_q * EM)))
    rotate = longest_k * size * EM + 14 > cell
    if rotate:  # the labels on end take the header's height from the cells'
        cell = min(cell, (GRID_HEIGHT - longest_k * size * EM - 14) / n)
        size = max(7.0, min(size, cell * 0.42))
    return cell, size, rotate


def heatmap_slide(result: AttentionResult, queries: list[str], keys: list[str],
                  row: int | None, title: str, subtitle: str) -> str:
    """A head's weights A (n × m) as a grid of cells in the page's colours: a row per
    query, a column per key; the selected ``row`` outlined in the accent colour."""
    A, allowed = result.weights, result.mask
    n, m = A.shape
    queries, keys = [short_label(q) for q in queries], [short_label(k) for k in keys]
    cell, size, rotate = _cells_fit(n, m, queries, keys)
    digits = f"{min(26.0, cell * 0.29):.1f}pt"
    top = [f"rotate(-90deg, reflow: true)[#{literal(k)}]" if rotate else f"[#{literal(k)}]"
           for k in keys]
    cells = []
    for i in range(n):
        label = _label(queries, i)
        cells.append(f"table.cell(align: right + horizon, inset: (right: 8pt))"
                     f"[{f'*{label}*' if i == row else label}]")
        for j in range(m):
            if not allowed[i, j]:
                cells.append("table.cell(fill: masked)[]")
                continue
            bg = weight_rgb(float(A[i, j]))
            text = (f"#text(size: {digits}, fill: {_rgb(text_rgb(bg))})"
                    f"[#{literal(shown(float(A[i, j])))}]" if cell >= NUMBERS_FROM else "")
            cells.append(f"table.cell(fill: {_rgb(bg)})[{text}]")
    accent = f"3pt + {_rgb(ACCENT)}"
    outline = "" if row is None else (
        f"table.hline(y: {row + 1}, start: 1, stroke: {accent}), "
        f"table.hline(y: {row + 2}, start: 1, stroke: {accent}), "
        f"table.vline(x: 1, start: {row + 1}, end: {row + 2}, stroke: {accent}), "
        f"table.vline(x: {m + 1}, start: {row + 1}, end: {row + 2}, stroke: {accent}), ")
    header = ", ".join(f"table.cell(inset: (bottom: 6pt), align: center + bottom, {t})"
                       for t in top)
    grid = (f"table(columns: (auto, ..({cell:.2f}pt,) * {m}), rows: (auto, "
            f"..({cell:.2f}pt,) * {n}), stroke: none, inset: 0pt, align: center + horizon, "
            f"table.header(table.cell(align: right + bottom, inset: (right: 8pt, bottom: 6pt), "
            f"text(size: 15pt, fill: luma(80))[key $j$ →\\ query $i$ ↓]), {header}), "
            f"{outline}{', '.join(cells)})")
    return _slide(title, subtitle, "\n".join([
        f"#set text(size: {size:.1f}pt)",
        "#align(center, grid(columns: 2, column-gutter: 24pt, align: horizon,",
        f"  {grid},", f"  {colour_bar(min(n * cell, 300.0))}))",
    ]))


SHOWN_ENTRIES = 8  # a longer vector (a real model's q, 64 entries) is shown shortened
# In the working's table, where a key's q·kⱼ and vⱼ share a line with its other numbers:
# up to 4 terms or entries written whole, a longer one by its first 3 and its count.
SHOWN_TERMS = 4


def _vector(values, most: int = SHOWN_ENTRIES) -> str:
    """"(1.000, −0.500)"; beyond ``most`` entries, the first three, "…", the last and the
    count: "(0.1, 0.2, 0.3, …, 0.9) (64 entries)"."""
    texts = [f"#{literal(shown(float(x)))}" for x in values]
    if len(texts) <= most:
        return "(" + ", ".join(texts) + ")"
    return f"({', '.join(texts[:3])}, …, {texts[-1]}) #text(fill: luma(90))[({len(texts)} entries)]"


def terms(q, k) -> str:
    """q·k written as its sum of products with their numbers, then its value:
    "2.000·(−1.000) + 0.000·1.000 = −2.000"; beyond SHOWN_TERMS terms, the first three and
    their count: "… + … (64 terms) = 56.396"."""
    def factor(x: float) -> str:
        text = shown(float(x))
        return f"({text})" if text.startswith("−") else text
    written = [f"{factor(a)}·{factor(b)}" for a, b in zip(q, k, strict=True)]
    if len(written) > SHOWN_TERMS:
        written = written[:3] + [f"… ({len(written)} terms)"]
    return " + ".join(written) + f" = {shown(float(q @ k))}"


def _rows(w: RowWorking, keys: list[str], exps, split: bool) -> list[str]:
    """The table's cells, key by key: q·kⱼ as its terms, sⱼ, e^sⱼ, aⱼ (in the weight's
    colour) and vⱼ; a masked key's sⱼ is −∞ and its weight 0, hatched. Each cell is a box:
    a line never wraps, the table is scaled to the slide instead (_fitted_table). With
    ``split``, q·kⱼ's cell holds its value and its terms take a line of their own under it."""
    cells = []
    for j in range(len(keys)):
        label = f"[#box({literal(f'{j + 1} ')} + {literal(short_label(keys[j]))})]"
        sum_of = f"#box({literal(terms(w.q, w.k[j]))})"
        dots = f"[#{literal(shown(float(w.dots[j])))}]" if split else f"[{sum_of}]"
        v = f"[#box[{_vector(w.v[j], SHOWN_TERMS)}]]"
        bg = weight_rgb(float(w.weights[j])) if w.allowed[j] else None
        cells += [label, dots] + (['[#"−∞"]', "[0]", "table.cell(fill: masked)[0]"]
                                  if bg is None else [
            f"[#{literal(shown(float(w.scaled[j])))}]",
            f"[#{literal(shown(float(exps[j]), 'exp'))}]",
            f"table.cell(fill: {_rgb(bg)})[#text(fill: {_rgb(text_rgb(bg))})"
            f"[#{literal(shown(float(w.weights[j])))}]]"]) + [v]
        if split:
            cells += ["[]", f"table.cell(colspan: 5, align: left, inset: (top: 0pt))"
                            f"[#text(fill: luma(70))[{sum_of}]]"]
    return cells


# The table's room: the page's width less its margins, and the body's height less the lines
# above and below it (LINE_PT, with their gaps); its type at most 1.4 × 20 = 28 pt.
TABLE_WIDTH, TABLE_HEIGHT, LINE_PT = WIDTH - 80, BODY_HEIGHT - 90, 20
MIXED_KEYS = 4  # up to this many keys, z's sum is written out: "0.003·(−2.000, 1.000) + …"


def _mix(w: RowWorking) -> str:
    """z's sum Σ aⱼvⱼ with its numbers, each aⱼ times its row vⱼ, then "=": written for a
    few keys with short rows (MIXED_KEYS, SHOWN_TERMS), else nothing."""
    if len(w.weights) > MIXED_KEYS or w.v.shape[1] > SHOWN_TERMS:
        return ""
    return " + ".join(f"#{literal(shown(float(a)) + '·')};{_vector(v)}"  # ";" ends the string
                      for a, v in zip(w.weights, w.v, strict=True)) + " = "


def _table(name: str, header: list[str], cells: list[str], split: bool) -> str:
    """A typst function ``name(y)``: the table at 20 pt, its rows' inset y; a line under
    each key (under its terms, when ``split``)."""
    under = "calc.even(y)" if split else "true"
    return (f"#let {name}(y) = text(size: 20pt, table(columns: 6, inset: (x: 8pt, y: y),\n"
            f"  align: (left, right, right, right, right, left), stroke: (x, y) => "
            f"if y == 0 {{ (bottom: 1pt) }} else if {under} {{ (bottom: 0.4pt + luma(210)) }},"
            f"\n  table.header({', '.join(header)}), {', '.join(cells)}))")


def _fitted_table(w: RowWorking, keys: list[str], exps, header: list[str]) -> str:
    """The table in the layout that sets it larger in its room: a line per key, or its
    terms on a line of their own (few keys with long vectors); scaled to fill the room,
    its rows given air where the height has room to spare."""
    m = len(keys)
    return "\n".join([
        _table("one-line", header, _rows(w, keys, exps, False), False),
        _table("two-line", header, _rows(w, keys, exps, True), True),
        f"""\
#context {{
  let fit(t) = {{
    let natural = measure(t(3pt))
    calc.min({TABLE_WIDTH}pt / natural.width, {TABLE_HEIGHT}pt / natural.height, 1.4)
  }}
  let (t, rows) = if fit(two-line) > fit(one-line) * 1.15 {{ (two-line, {2 * m + 1}) }} else {{
    (one-line, {m + 1}) }}
  let f = fit(t)
  let spare = calc.max(0pt, {TABLE_HEIGHT}pt / f - measure(t(3pt)).height)
  scale(f * 100%, reflow: true, origin: top + left, t(3pt + calc.min(spare / (2 * rows), 14pt)))
}}"""])


def working_slide(w: RowWorking, keys: list[str], title: str, subtitle: str,
                  scaled: str) -> str:
    """Row i's working: q_i; then key by key q·kⱼ as its sum of products, sⱼ (``scaled``:
    how it is made, in typst maths), e^sⱼ, aⱼ (its cell in the weight's colour) and the
    value vⱼ; then Σ and z_i = Σ aⱼvⱼ. Overflowing exponentials are written shifted by the
    row's maximum, as the engine computes them."""
    i = w.row + 1
    shifted = bool(w.exp_overflow)
    exps, total = (w.exp_shifted, w.exp_shifted_sum) if shifted else (w.exp, w.exp_sum)
    e_head = f"e^(s_j - {shown(w.shift)})" if shifted else "e^(s_j)"
    header = ["[key $j$]", f"[$q_{i} dot k_j$]", f"[$s_j = {scaled}$]", f"[${e_head}$]",
              f"[$a_j = {e_head} \\/ Sigma$]", "[$v_j$]"]
    above = (f"$q_{i} = $ {_vector(w.q)} #h(1fr) #text(fill: luma(90))[$k_j$ and $v_j$: "
             f"row $j$ of $K$ and $V$]")
    below = (f"$Sigma = sum_j {e_head} = $ #{literal(shown(float(total), 'exp_sum'))} "
             f"#h(1.5em) $z_{i} = sum_j a_j v_j = $ {_mix(w)}{_vector(w.z)}")
    return _slide(title, subtitle, "\n".join([
        f"#set text(size: {LINE_PT}pt)", "#set par(leading: 0.6em)",
        f"#block(below: 10pt)[{above}]",
        _fitted_table(w, keys, exps, header),
        f"#block(above: 14pt)[{below}]"]))


def slide_source(body: str, title: str, foot: str) -> str:
    """The whole source: ``foot`` (typst markup of ours) at the foot of the slide."""
    return _preamble(title, foot) + body + "\n"
