"""The practice page's view of an exercise: its inputs, and the row's working as a table
whose cells are given numbers, blanks to fill, or the student's own work on the way.

Built on the server from the numeric core (attention_core/classroom/exercises.py), so the first
paint holds the whole exercise, and only the numbers a level gives are ever in the page:
a blank's number is not, until the student's own is checked (POST /api/exercise/check).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.classroom.diagnosis import shown
from attention_core.classroom.exercises import GIVEN, LEVELS, Exercise, request, rows_of
from attention_core.prose import plain, tex

DEFAULT = {"seed": 1, "level": "dots"}
COLUMNS = ("k", "dots", "scaled", "exp", "weights", "v")  # the table's, left to right
VECTORS = ("k", "v")  # the columns whose cells are vectors


@dataclass(frozen=True)
class Cell:
    """One number of the working: ``blank`` (an input, named ``label``, answering
    ``path``), given (``text``, as the page prints it), or neither (the student's own
    work on the way, shown empty)."""

    path: str
    label: str
    blank: bool = False
    text: str | None = None


def _key_name(e: Exercise, j: int) -> str:
    return f"key {j + 1} ({e.tokens[j]})"


def _cells(e: Exercise, head: int, step: str, values, index: tuple, label: str) -> list[Cell]:
    """The cells of a step's entry at ``index`` (a number, or a vector's entries)."""
    prefix = f"heads[{head}]." if e.W_O is not None else ""
    base = f"{prefix}working.{step}" + "".join(f"[{i}]" for i in index)
    named = f"Head {head + 1}: {label}" if e.W_O is not None else label
    value = np.asarray(values)[index] if index else np.asarray(values)
    if value.ndim == 0:
        return [_cell(e, step, base, named, float(value))]
    return [_cell(e, step, f"{base}[{c}]", f"{named}, entry {c + 1}", float(x))
            for c, x in enumerate(value)]


def _cell(e: Exercise, step: str, path: str, label: str, value: float) -> Cell:
    if path in e.blanks:
        return Cell(path, label, blank=True)
    if value == -np.inf:  # a masked key's score, at every level: the notes say why
        return Cell(path, label, text="−∞")
    if step in GIVEN[e.level]:
        return Cell(path, label, text=shown(value, step))
    return Cell(path, label)


def _table(e: Exercise, head: int, w) -> dict:
    """One head's working: q, then a row per key, then Σ e^s and z."""
    keys = []
    for j in range(len(e.tokens)):
        name = _key_name(e, j)
        keys.append({
            "j": j, "token": e.tokens[j], "masked": not bool(w.allowed[j]),
            "k": _cells(e, head, "k", w.k, (j,), f"k of {name}"),
            "v": _cells(e, head, "v", w.v, (j,), f"v of {name}"),
            "dots": _cells(e, head, "dots", w.dots, (j,), f"Dot product, {name}")[0],
            "scaled": _cells(e, head, "scaled", w.scaled, (j,), f"Scaled score, {name}")[0],
            "exp": _cells(e, head, "exp", w.exp, (j,), f"Exponential, {name}")[0],
            "weights": _cells(e, head, "weights", w.weights, (j,), f"Weight, {name}")[0],
        })
    table = {"head": head, "q": _cells(e, head, "q", w.q, (), "q"), "rows": keys,
             "scaling": f"× {e.scale:g}" if e.scale is not None else f"÷ √{w.q.shape[0]}",
             "exp_sum": _cells(e, head, "exp_sum", w.exp_sum, (), "Sum of the exponentials")[0],
             "z": _cells(e, head, "z", w.z, (), "z")}
    shows = _shown_steps(table)
    columns = [step for step in COLUMNS if step in shows]
    for k in keys:  # a row's cells in the columns' order, for the line of hints under it
        k["cells"] = [c for step in columns for c in (k[step] if step in VECTORS else [k[step]])]
    return {**table, "shows": shows, "columns": columns, "vectors": VECTORS,
            "headings": _headings(e, w.q.shape[0])}


def _headings(e: Exercise, d_k: int) -> dict[str, str]:
    """Each column's heading in TeX."""
    qk = rf"q_{{{e.row + 1}}} \cdot k_j"
    scaling = rf"\times {e.scale:g}" if e.scale is not None else rf"\div \sqrt{{{d_k}}}"
    return {"k": "k_j", "dots": qk, "scaled": f"s_j = {qk} {scaling}", "exp": "e^{s_j}",
            "weights": r"a_j = e^{s_j} \div \Sigma", "v": "v_j"}


def _lines(e: Exercise, d_model: int) -> dict[str, str]:
    """The TeX around the numbers outside the table: X's shape and the left-hand side of
    each line (PE, q, Σ e^s, z)."""
    i = e.row + 1
    pe = rf"\mathrm{{PE}}_{{{i}}}"
    x = f"(x_{{{i}}} + {pe})" if e.positional else f"x_{{{i}}}"
    return {"shape": rf"n \times d_{{\text{{model}}}} = {len(e.tokens)} \times {d_model}",
            "pe": pe, "q": rf"q_{{{i}}} = {x} \cdot W_Q =", "exp_sum": r"\sum_j e^{s_j} =",
            "z": rf"z_{{{i}}} = \sum_j a_j v_j ="}


def _shown_steps(table: dict) -> set[str]:
    """The steps with a number given or asked: a column or line of only the student's own
    work on the way is left out (at "dots", everything after q·k)."""
    def some(cells) -> bool:
        return any(c.blank or c.text is not None for c in cells)
    shows = {step for step in ("k", "v") if some(c for k in table["rows"] for c in k[step])}
    shows |= {step for step in ("dots", "scaled", "exp", "weights")
              if some(k[step] for k in table["rows"])}
    shows |= {step for step in ("q", "z") if some(table[step])}
    return shows | ({"exp_sum"} if some([table["exp_sum"]]) else set())


MINUS_INFINITY = tex(r"-\infty")
ROOT_D_K = tex(r"\sqrt{d_k}")
SINE = tex(r"\sin(p / 10000^{2c/d_{\text{model}}})")


def _notes(e: Exercise, d_k: int) -> list[str]:
    """What the exercise does beyond the textbook's row, in a sentence each, in prose
    markup: words with $TeX$ (attention_core/prose.py)."""
    i = e.row + 1
    notes = []
    if e.causal:
        notes.append(f"Causal mask: query {i} reads keys 1 to {i} only; the later keys' "
                     f"scores are {MINUS_INFINITY}.")
    if e.mask is not None:
        readable = [str(j + 1) for j in range(len(e.tokens)) if e.mask[e.row, j]]
        notes.append(f"A mask: query {i} reads keys {', '.join(readable)} only; the others' "
                     f"scores are {MINUS_INFINITY}.")
    if e.scale is not None:
        notes.append(f"No scaling: the scores are multiplied by 1, not divided by {ROOT_D_K}."
                     if e.scale == 1 else f"Scale {e.scale:g}: the scores are multiplied by "
                     f"{e.scale:g}, not divided by {ROOT_D_K}.")
    else:
        root = tex(rf"\sqrt{{{d_k}}} = {shown(float(np.sqrt(d_k)))}")
        notes.append(f"{tex(f'd_k = {d_k}')}: the scores are divided by {root}.")
    if e.positional:
        notes.append("Sinusoidal positions are added to X before the projections. PE at "
                     "position p (counted from 0) takes its entries in pairs c = 0, 1, …: "
                     f"the first of a pair is {SINE}, the second the cos of the same angle, "
                     "in radians.")
    return notes


def parse_seed(text: str):
    """A seed from the URL's text: a whole number as an int, anything else as it came (the
    core's check then names it)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 7 else text


def practise_view(e: Exercise) -> dict:
    """Everything the page draws for the exercise ``e``."""
    rows = rows_of(e)
    d_model = e.X.shape[1]
    pe_blanks = [p for p in e.blanks if p.startswith("positional_encoding")]
    notes = _notes(e, rows[0].q.shape[0])
    body = request(e)  # the inputs as written: whole numbers short
    heads = body.get("heads") or [{k: body[k] for k in ("W_Q", "W_K", "W_V")}]
    return {
        "seed": e.seed, "level": e.level, "row": e.row,
        "title": LEVELS[e.level] + ("" if e.seed is not None else ", on your own example"),
        "tokens": list(e.tokens), "X": body["X"], "heads": heads, "request": body,
        "notes": [plain(n) for n in notes], "notes_tex": notes,
        "tex": _lines(e, d_model),
        "pe": [Cell(f"positional_encoding[{e.row}][{c}]", f"PE entry {c + 1}",
                    blank=True) for c in range(d_model)] if pe_blanks else None,
        "tables": [_table(e, h, w) for h, w in enumerate(rows)],
        "blanks": list(e.blanks),
    }
