"""Worksheets and their answer keys, for POST /api/worksheet and ``attention-explorer
worksheet``: the body ``{"seeds": [17, 18], "level": "weights", "key": true}`` (or an
example of one's own, ``{"request": …, "level": …}``) becomes a PDF typeset by typst, a page
per exercise, or with ``"format": "typ"`` the typst source it is made from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from attention_core.classroom.exercises import SEEDS, Exercise, check_level, check_seed, exercise
from attention_core.errors import AttentionInputError

from ..typesetting.typeset import FORMATS, compile_source
from ..values import describe, json_object
from .exercise import exercise_of
from .worksheet_typst import worksheet_source

FIELDS = ("seeds", "request", "level", "key", "format")
SHEET_FORMATS = ("pdf", "typ")
# A class set in one request: a page each. 30 with their key take 0.3 s (bench_worksheet);
# 100 bounds the work of one request to about a second.
MAX_SHEETS = 100


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


def _seeds(raw) -> list[int]:
    if not isinstance(raw, list) or not raw:
        raise AttentionInputError(f"seeds must be a list of 1 to {MAX_SHEETS} seeds (whole "
                                  f"numbers from 0 to {SEEDS - 1}); got {describe(raw)}", "seeds")
    if len(raw) > MAX_SHEETS:
        raise AttentionInputError(f"seeds: at most {MAX_SHEETS} worksheets at once; got "
                                  f"{len(raw)}", "seeds")
    out = []
    for i, s in enumerate(raw):
        try:
            out.append(check_seed(s))
        except AttentionInputError as exc:
            # "seed must be …" said of this one: "seeds[1] must be …"
            raise AttentionInputError(str(exc).replace("seed", f"seeds[{i}]", 1),
                                      f"seeds[{i}]") from None
    return out


def _options(p: dict) -> tuple[bool, str]:
    key, fmt = p.get("key", False), p.get("format", "pdf")
    if not isinstance(key, bool):
        raise AttentionInputError(f"key must be true (the answer key) or false (the "
                                  f"worksheet); got {describe(key)}", "key")
    if fmt not in SHEET_FORMATS:
        raise AttentionInputError(f"format must be pdf or typ (the typst source); got "
                                  f"{describe(fmt)}", "format")
    return key, fmt


def exercises_of(p: dict) -> list[Exercise]:
    """The body's exercises: one per seed, or the example of one's own."""
    json_object(p, FIELDS)
    if "level" not in p:
        raise AttentionInputError("level is missing", "level")
    if ("seeds" in p) == ("request" in p):
        raise AttentionInputError("send seeds (a list of whole numbers) or a request of your "
                                  "own with its row, one of the two", "seeds")
    if "request" in p:
        return [exercise_of({"request": p["request"], "level": p["level"]})]
    level = check_level(p["level"])
    return [exercise(s, level) for s in _seeds(p["seeds"])]


def regenerate(exercises: list[Exercise], key: bool) -> str:
    """What prints the same set again, at each page's foot."""
    if exercises[0].seed is None:
        return "An example of one's own, from the editor's selected row"
    seeds = seed_ranges([e.seed for e in exercises])
    return (f"attention-explorer worksheet --seeds {seeds} --level {exercises[0].level}"
            + (" --key" if key else ""))


def worksheet(p) -> Sheet:
    """The body ``p`` typeset: the PDF (or typst source) of its worksheet or answer key."""
    exercises = exercises_of(p)
    key, fmt = _options(p)
    source = worksheet_source(exercises, key, regenerate(exercises, key))
    first = exercises[0]
    name = "-".join(["key" if key else "worksheet", first.level,
                     "own" if first.seed is None else seed_ranges([e.seed for e in exercises])])
    data = source.encode() if fmt == "typ" else compile_source(source, fmt)
    return Sheet(data, FORMATS[fmt], f"{name[:80]}.{fmt}")
