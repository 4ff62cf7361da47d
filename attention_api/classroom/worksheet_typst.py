"""A worksheet's typst source: for each exercise a page of its inputs and of the row's working
with blanks, as the practice page lays it out (practise.practise_view); in the answer key
every blank is filled with the number the engine computes, written as the page shows it.

Every label and number reaches the source as a string literal (typeset.literal), never as
markup; the maths around them (q·kⱼ, √d_k, Σ, the notes' d_k and −∞) is typst's own.
"""

from __future__ import annotations

import re

from attention_core.classroom.diagnosis import shown
from attention_core.classroom.exercises import Exercise, parse_path, solve

from ..typesetting.typeset import literal
from .practise import Cell, practise_view

# Each level's title with its maths typeset (the page's words: exercises.LEVELS).
TITLES = {
    "dots": "The dot products $q dot k_j$",
    "scaled": "The scaled scores $s_j = q dot k_j \\/ sqrt(d_k)$",
    "exp": "The exponentials $e^(s_j)$ and their sum",
    "weights": "The weights $a_j = e^(s_j) \\/ sum e^s$",
    "z": "The output $z = sum a_j v_j$",
    "row": "A whole row, from $x_i$ to $z_i$",
    "causal": "A row under the causal mask",
    "mask": "A row under a mask",
    "unscaled": "A row without scaling (scale 1)",
    "positions": "A row with sinusoidal positions added to $X$",
    "heads": "The weights and $z_i$ of two heads",
}

# The body's type, in pt; the weight matrices' entries are set at it too (display style),
# legible on paper, where inline maths would shrink them to 70 % (7.35 pt).
BODY_PT = 10.5

# The page, the fonts (those the compiler carries) and the three kinds of cell: a blank to
# fill, a number given, and the student's own work on the way.
PREAMBLE = """\
#set document(title: TITLE, author: "Attention Explorer")
#set page(paper: "a4", margin: (x: 1.7cm, top: 2.1cm, bottom: 1.9cm))
#set text(font: "Libertinus Serif", size: BODY_PT, lang: "en")
#show math.equation: set text(font: "New Computer Modern Math")
#set table(stroke: (x, y) => if y == 0 { (bottom: 0.6pt) } else { (bottom: 0.3pt + luma(200)) })
#let blank = box(width: 3.3em, height: 1.35em, baseline: 0.35em, radius: 2pt,
  stroke: 0.6pt + luma(110))
#let answer(t) = box(inset: (x: 3pt, y: 2.5pt), radius: 2pt, fill: rgb("#e3ecf8"),
  text(weight: "bold", t))
#let own = text(fill: luma(160))[·]
#let masked = text(size: 8.5pt, fill: luma(100))[masked]
#let sheet(head, seed-line, foot, body) = {
  set page(header: context {
    set text(size: 9pt, fill: luma(90))
    grid(columns: (1fr, auto), head, seed-line)
    v(-0.5em)
    line(length: 100%, stroke: 0.4pt + luma(170))
  }, footer: context {
    set text(size: 8.5pt, fill: luma(110))
    grid(columns: (1fr, auto), foot, counter(page).display("1 / 1", both: true))
  })
  body
}
"""


# The maths in the notes' words (practise._notes), each as typst maths: the rest of a note
# stays a string literal.
NOTE_MATHS = (
    (r"sin\(p / 10000\^\(2c/d_model\)\)", 'sin(p \\/ 10000^(2c \\/ d_"model"))'),
    (r"√d_k", "sqrt(d_k)"),
    (r"√(\d+)", "sqrt({0})"),
    (r"d_k", "d_k"),
    (r"d_model", 'd_"model"'),
    (r"−∞", "-infinity"),
    (r"c = 0, 1, …", "c = 0, 1, dots"),
    (r"\bPE\b", '"PE"'),
    (r"\b[Xp]\b", "{0}"),
)
_NOTE_MATHS = re.compile("|".join(f"({pattern})" for pattern, _ in NOTE_MATHS))


def note(text: str) -> str:
    """A note (or a cell's text) as typst markup: its maths typeset (NOTE_MATHS), its
    words string literals."""
    out, at = [], 0
    for found in _NOTE_MATHS.finditer(text):
        pattern, maths = next(m for m in NOTE_MATHS if re.fullmatch(m[0], found[0]))
        inner = re.fullmatch(pattern, found[0])
        out += [f"#{literal(text[at:found.start()])}"] if found.start() > at else []
        out.append(f"${maths.format(*(inner.groups() or [found[0]]))}$")
        at = found.end()
    return "".join(out + ([f"#{literal(text[at:])}"] if at < len(text) else []))


def _number(x) -> str:
    """An input's entry in a ``mat(…)``: whole numbers as written (2), others as Python
    writes them (0.5)."""
    return str(x) if isinstance(x, int) else repr(float(x))


def _matrix(name: str, rows: list) -> str:
    """A matrix in maths: ``W_Q = mat(…)``, in display style: its entries at the body's
    size (BODY_PT), not shrunk as inline maths would."""
    body = "; ".join(", ".join(_number(x) for x in r) for r in rows)
    return f"${name} = display(mat(column-gap: #0.8em, {body}))$"


def _tokens(view: dict) -> str:
    """X as a table, a row per token with its label, the asked row tinted."""
    X, row = view["X"], view["row"]
    header = ", ".join(["[]"] + [f"[$x_({c + 1})$]" for c in range(len(X[0]))])
    cells = ", ".join(f"[{i + 1} #{literal(t)}], " + ", ".join(f"[${_number(x)}$]" for x in r)
                      for i, (t, r) in enumerate(zip(view["tokens"], X, strict=True)))
    return (f"[$X$ #text(fill: luma(90))[($n times d_\"model\"$ = {len(X)} × {len(X[0])})]\n"
            f"#table(columns: {len(X[0]) + 1}, align: (left, ..(right,) * {len(X[0])}), "
            f"fill: (_, y) => if y == {row + 1} {{ rgb(\"#e3ecf8\") }}, "
            f"table.header({header}), {cells})]")


class _Cells:
    """How a cell is written: a blank (in the key, its number), a given number, or own work."""

    def __init__(self, truth: dict[str, float] | None):
        self.truth = truth

    def one(self, c: Cell) -> str:
        if c.blank and self.truth is not None:
            return f"#answer({literal(shown(self.truth[c.path], parse_path(c.path).step))})"
        if c.blank:
            return "#blank"
        return "#own" if c.text is None else note(c.text)  # a masked score's −∞ as maths

    def vector(self, cells: list[Cell]) -> str:
        return "( " + ", ".join(self.one(c) for c in cells) + " )"


def _table(view: dict, t: dict, cells: _Cells) -> str:
    """One head's working, key by key, as the page's table."""
    i, d_k = view["row"] + 1, len(t["q"])
    scaling = f"q_{i} dot k_j \\/ sqrt({d_k})" if t["scaling"].startswith("÷") \
        else f"q_{i} dot k_j times {t['scaling'].removeprefix('× ')}"  # the scale given
    columns = [("k", "$k_j$"), ("dots", f"$q_{i} dot k_j$"), ("scaled", f"$s_j = {scaling}$"),
               ("exp", "$e^(s_j)$"), ("weights", "$a_j = e^(s_j) \\/ Sigma$"), ("v", "$v_j$")]
    shown_columns = [(step, head) for step, head in columns if step in t["shows"]]
    lines = ["table.header([key $j$], " + ", ".join(f"[{h}]" for _, h in shown_columns) + "),"]
    for k in t["rows"]:
        tag = " #masked" if k["masked"] else ""
        row = [f"[{k['j'] + 1} #{literal(k['token'])}{tag}]"]
        for step, _ in shown_columns:
            value = k[step]
            row.append(f"[{cells.vector(value) if step in ('k', 'v') else cells.one(value)}]")
        lines.append(", ".join(row) + ",")
    return (f"#table(columns: {len(shown_columns) + 1}, inset: (x: 3.5pt, y: 4.5pt), "
            f"align: (left, ..(center,) * {len(shown_columns)}),\n  " + "\n  ".join(lines) + "\n)")


def _working(view: dict, cells: _Cells) -> list[str]:
    """The row's working: PE and q, the table, then Σ e^s and z, for each head."""
    i = view["row"] + 1
    out = []
    for t in view["tables"]:
        if len(view["tables"]) > 1:
            out.append(f"=== Head {t['head'] + 1}")
        if view["pe"]:
            out.append(f"$\"PE\"_{i}$ (position {view['row']}) = {cells.vector(view['pe'])}\n")
        if "q" in t["shows"]:
            x = f"(x_{i} + \"PE\"_{i})" if view["pe"] else f"x_{i}"
            out.append(f"$q_{i} = {x} W_Q$ = {cells.vector(t['q'])}\n")
        out.append(_table(view, t, cells))
        if "exp_sum" in t["shows"]:
            out.append(f"$Sigma = sum_j e^(s_j)$ = {cells.one(t['exp_sum'])}\n")
        if "z" in t["shows"]:
            out.append(f"$z_{i} = sum_j a_j v_j$ = {cells.vector(t['z'])}\n")
    return out


def _inputs(view: dict) -> list[str]:
    """X beside the weights, then the notes (mask, scale, positions). Each weight matrix is
    a box in a line of them, so that wide ones wrap onto the next line instead of
    overlapping."""
    several = len(view["heads"]) > 1
    weights = [_matrix(f"W_{w}" + (f"^(({h + 1}))" if several else ""), head[f"W_{w}"])
               for h, head in enumerate(view["heads"]) for w in ("Q", "K", "V")]
    if "W_O" in view["request"]:
        weights.append(_matrix("W_O", view["request"]["W_O"]))
    boxes = " #h(1.2em) ".join(f"#box(inset: (bottom: 0.5em))[{m}]" for m in weights)
    grid = (f"#grid(columns: (auto, 1fr), column-gutter: 2em, {_tokens(view)}, "
            f"[#set par(leading: 0.9em)\n{boxes}])")
    notes = [f"- {note(n)}" for n in view["notes"]]
    return ["== The inputs", grid, "", *notes]


def exercise_page(e: Exercise, key: bool, regenerate: str) -> str:
    """One exercise's page: the worksheet's, or with ``key`` the answer key's."""
    view = practise_view(e)
    cells = _Cells(solve(e) if key else None)
    i = view["row"] + 1
    kind = "answer key" if key else "worksheet"
    seed = f"seed {e.seed}" if e.seed is not None else "an example of one's own"
    head = literal(f"Attention Explorer · {kind}")
    seed_line = literal(f"{seed} · level {e.level}")
    title = TITLES[e.level] + ("" if e.seed is not None else ", on your own example")
    asked = (f"== Query {i} · “#{literal(view['tokens'][view['row']])}”: "
             + ("every blank filled in" if key else "fill in the blanks"))
    how = ("Write each number as the page shows it: 3 decimals, and 4 significant figures "
           "for $e^(s_j)$ and their sum (16.92).")
    name = "" if key else (f'#h(1fr) #text(size: {BODY_PT}pt, weight: "regular")[Name: '
                           '#box(width: 13em, stroke: (bottom: 0.5pt))[]]')
    return "\n".join([
        f"#sheet({head}, {seed_line}, {literal(regenerate)})[",
        f"= {title} {name}", "", *_inputs(view), "", asked, how, "",
        *_working(view, cells), "]",
    ])


def worksheet_source(exercises: list[Exercise], key: bool, regenerate: str) -> str:
    """The whole document: a page per exercise (``regenerate`` is printed at each foot)."""
    kind = "Answer key" if key else "Worksheet"
    seeds = [e.seed for e in exercises if e.seed is not None]
    title = f"{kind} · {exercises[0].level}" + (f" · seeds {seeds[0]}–{seeds[-1]}"
                                                 if len(seeds) > 1 else
                                                 f" · seed {seeds[0]}" if seeds else "")
    pages = [exercise_page(e, key, regenerate) for e in exercises]
    preamble = PREAMBLE.replace("TITLE", literal(title)).replace("BODY_PT", f"{BODY_PT}pt")
    return preamble + "\n".join(pages) + "\n"
