"""Worksheets and their answer keys, for POST /api/worksheet and ``attention-explorer
worksheet``: the body ``{"seeds": [17, 18], "level": "weights", "key": true}`` (or an
example of one's own, ``{"request": …, "level": …}``) becomes a PDF typeset by typst, a page
per exercise, or with ``"format": "typ"`` the typst source it is made from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from attention_core.classroom.exercises import Exercise, exercise
from attention_core.errors import AttentionInputError

from ..attention.request import DEFAULT_LIMITS, Limits
from ..typesetting.typeset import FORMATS, compile_source
from ..values import describe
from .declaration import MAX_SHEETS, SHEET_FORMATS, WorksheetRequest
from .exercise import body_of, exercise_of
from .worksheet_typst import worksheet_source


@dataclass(frozen=True)
class Sheet:
    """A typeset worksheet or key: its bytes, media type and a file name for them."""

    data: bytes
    media_type: str
    filename: str


def seed_ranges(seeds: list[int]) -> str:
    """Seeds as the command line writes them: consecutive runs as ranges, "1-5,9"."""
    runs: list[list[int]] = []
    for s in seeds:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def parse_seeds(text: str) -> list[int]:
    """The command line's seeds: "17", "1-30" or "1-5,9"; each a whole number."""
    seeds: list[int] = []
    for part in str(text).split(","):
        found = re.fullmatch(r"\s*(\d{1,7})\s*(?:-\s*(\d{1,7})\s*)?", part)
        if not found:
            raise AttentionInputError(f"seeds must be whole numbers or ranges such as 1-30, "
                                      f"separated by commas; got {part.strip()!r}", "seeds")
        first, last = int(found[1]), int(found[2] or found[1])
        if last < first:
            raise AttentionInputError(f"seeds: the range {first}-{last} runs backwards", "seeds")
        if last - first + len(seeds) >= MAX_SHEETS:
            raise AttentionInputError(f"seeds: at most {MAX_SHEETS} worksheets at once; "
                                      f"{text!r} asks for more", "seeds")
        seeds += range(first, last + 1)
    return seeds


def _options(body) -> tuple[bool, str]:
    """The key and format asked for, checked after the exercises (as they always were)."""
    key, fmt = body.key, body.format
    if not isinstance(key, bool):
        raise AttentionInputError(f"key must be true (the answer key) or false (the "
                                  f"worksheet); got {describe(key)}", "key")
    if fmt not in SHEET_FORMATS:
        raise AttentionInputError(f"format must be pdf or typ (the typst source); got "
                                  f"{describe(fmt)}", "format")
    return key, fmt


def exercises_of(body) -> list[Exercise]:
    """The validated body's exercises: one per seed, or the example of one's own."""
    if "seeds" in type(body).model_fields:
        return [exercise(s, body.level) for s in body.seeds]
    return [exercise_of(body)]


def regenerate(exercises: list[Exercise], key: bool) -> str:
    """What prints the same set again, at each page's foot."""
    if exercises[0].seed is None:
        return "An example of one's own, from the editor's selected row"
    seeds = seed_ranges([e.seed for e in exercises])
    return (f"attention-explorer worksheet --seeds {seeds} --level {exercises[0].level}"
            + (" --key" if key else ""))


def worksheet(p, limits: Limits = DEFAULT_LIMITS) -> Sheet:
    """The body ``p`` typeset: the PDF (or typst source) of its worksheet or answer key; a
    request of one's own within ``limits`` (the app's)."""
    body = body_of(WorksheetRequest, p, limits)
    exercises = exercises_of(body)
    key, fmt = _options(body)
    source = worksheet_source(exercises, key, regenerate(exercises, key))
    first = exercises[0]
    name = "-".join(["key" if key else "worksheet", first.level,
                     "own" if first.seed is None else seed_ranges([e.seed for e in exercises])])
    data = source.encode() if fmt == "typ" else compile_source(source, fmt)
    return Sheet(data, FORMATS[fmt], f"{name[:80]}.{fmt}")
