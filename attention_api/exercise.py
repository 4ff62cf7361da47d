"""Exercises in the request format: what POST /api/exercise and /api/exercise/check take
and answer, shared by the command line. The exercises and the diagnosis are the numeric
core's (attention_core/exercises.py, diagnosis.py); this reads the bodies and writes the
answers.

An exercise's answer holds its inputs (``request``, the body of a POST /api/attention
that computes it), its ``row`` and its ``blanks``, never their numbers; a check's answer
holds, per answered blank, ``correct``, the ``tolerance`` it was checked within and, for
a wrong one, a ``hint``.
"""

from __future__ import annotations

import math

from attention_core.diagnosis import check
from attention_core.errors import AttentionInputError
from attention_core.exercises import LEVELS, SEEDS, check_level, check_seed, exercise, request

from .values import describe

EXERCISE_FIELDS = ("seed", "level")
CHECK_FIELDS = ("seed", "level", "answers")


def _object(payload, fields: tuple[str, ...]) -> dict:
    """``payload`` as a JSON object holding no field but ``fields``."""
    if not isinstance(payload, dict):
        raise AttentionInputError(f"the body must be a JSON object with {', '.join(fields)}; "
                                  f"got {describe(payload)}")
    unknown = [k for k in payload if k not in fields]
    if unknown:
        raise AttentionInputError(f"{unknown[0]!r} is not a field of this request; its fields "
                                  f"are {', '.join(fields)}", unknown[0])
    wanted = {"seed": f"a whole number from 0 to {SEEDS - 1}", "level": ", ".join(LEVELS)}
    for name, what in wanted.items():
        if name not in payload:
            raise AttentionInputError(f"{name} is missing: {what}", name)
    return payload


def exercise_body(payload) -> dict:
    """The answer to ``{"seed", "level"}``: the exercise, without its numbers."""
    p = _object(payload, EXERCISE_FIELDS)
    e = exercise(check_seed(p["seed"]), check_level(p["level"]))
    return {"seed": e.seed, "level": e.level, "title": LEVELS[e.level],
            "request": request(e), "row": e.row, "blanks": list(e.blanks)}


def answers_of(raw, blanks: tuple[str, ...]) -> dict[str, float]:
    """The student's answers: an object from blanks' paths to finite numbers."""
    if not isinstance(raw, dict):
        raise AttentionInputError(f"answers must be an object from a blank's path to the "
                                  f"number written there; got {describe(raw)}", "answers")
    out = {}
    for path, value in raw.items():
        if path not in blanks:
            raise AttentionInputError(
                f"answers has {path!r}, which is not a blank of this exercise; its blanks are "
                f"{', '.join(blanks)}", "answers")
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise AttentionInputError(f'answers["{path}"] must be a number; got '
                                      f"{describe(value)}", f'answers["{path}"]')
        out[path] = float(value)
    return out


def check_body(payload) -> dict:
    """The answer to ``{"seed", "level", "answers"}``: each answered blank checked."""
    p = _object(payload, CHECK_FIELDS)
    e = exercise(check_seed(p["seed"]), check_level(p["level"]))
    if "answers" not in p:
        raise AttentionInputError("answers is missing: an object from a blank's path to the "
                                  "number written there", "answers")
    results = check(e, answers_of(p["answers"], e.blanks))
    return {"seed": e.seed, "level": e.level,
            "results": {path: {"correct": r.correct, "tolerance": r.tolerance,
                               **({} if r.hint is None else {"hint": r.hint})}
                        for path, r in results.items()},
            "score": {"correct": sum(r.correct for r in results.values()),
                      "answered": len(results), "blanks": len(e.blanks)}}
