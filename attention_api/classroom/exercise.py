"""Exercises in the request format: what POST /api/exercise and /api/exercise/check take
and answer, shared by the command line. The exercises and the diagnosis are the numeric
core's (attention_core/classroom/exercises.py, diagnosis.py); this reads the bodies and writes the
answers.

An exercise's answer holds its inputs (``request``, the body of a POST /api/attention
that computes it), its ``row`` and its ``blanks``, never their numbers; a check's answer
holds, per answered blank, ``correct``, the ``tolerance`` it was checked within and, for
a wrong one, a ``hint``.
"""

from __future__ import annotations

import math

from attention_core.classroom.diagnosis import check
from attention_core.classroom.exercises import (
    LEVELS,
    Exercise,
    exercise,
    request,
    view_exercise,
)
from attention_core.errors import AttentionInputError

from ..attention.request import DEFAULT_LIMITS, AttentionRequest, Limits
from ..declared import Absent, validate
from ..values import describe
from .declaration import BEYOND, BEYOND_POSITIONAL, ExerciseCheckRequest, ExerciseRequest


def body_of(model, payload, limits: Limits):
    """``payload`` validated by ``model`` (declaration.py), a request of one's own with
    ``limits`` (the app's)."""
    return validate(model, payload, {"where": {}, "owner": "", "limits": limits})


def exercise_of(body) -> Exercise:
    """The exercise a validated body names: by its seed, or an example of one's own
    (its ``request``, parsed)."""
    if "seed" in type(body).model_fields:
        return exercise(body.seed, body.level)
    req = body.request
    try:
        return view_exercise(req.tokens, req.X, req.heads, _row(req), body.level,
                             causal=req.causal, mask=req.mask, scale=req.scale,
                             positional=_positional(req), W_O=req.W_O)
    except AttentionInputError as exc:  # named within the body: "request.X[0][1]"
        if exc.field is None or exc.field in ("level", "request") or \
                exc.field.startswith("request."):
            raise
        raise AttentionInputError(str(exc), f"request.{exc.field}") from None


def _row(req: AttentionRequest) -> int:
    if req.row is None:
        raise AttentionInputError("request.row is missing: the query to work out, 0-based",
                                  "request.row")
    return req.row


def _positional(req: AttentionRequest) -> str | None:
    """The request's positions, if an exercise has them (sinusoidal, from 0)."""
    used = [what for name, what in BEYOND.items()
            if getattr(req, name, None) not in (None, 0)
            or (name == "b_Q" and any(len(h) > 3 for h in req.heads))]
    if req.positional in BEYOND_POSITIONAL:
        used.append(BEYOND_POSITIONAL[req.positional])
    if used:
        raise AttentionInputError(
            f"an example worked by hand may have a mask, a scale, sinusoidal positions and "
            f"several heads, not {', '.join(dict.fromkeys(used))}", "request")
    return req.positional


def exercise_body(payload, limits: Limits = DEFAULT_LIMITS) -> dict:
    """The answer to ``{"seed", "level"}`` or ``{"request", "level"}``: the exercise,
    without its numbers."""
    e = exercise_of(body_of(ExerciseRequest, payload, limits))
    title = LEVELS[e.level] + ("" if e.seed is not None else ", on your own example")
    return {"seed": e.seed, "level": e.level, "title": title,
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


def check_body(payload, limits: Limits = DEFAULT_LIMITS) -> dict:
    """The answer to ``{"seed", "level", "answers"}``: each answered blank checked."""
    body = body_of(ExerciseCheckRequest, payload, limits)
    e = exercise_of(body)
    if isinstance(body.answers, Absent):
        raise AttentionInputError("answers is missing: an object from a blank's path to the "
                                  "number written there", "answers")
    results = check(e, answers_of(body.answers, e.blanks))
    return {"seed": e.seed, "level": e.level,
            "results": {path: {"correct": r.correct, "tolerance": r.tolerance,
                               **({} if r.hint is None else {"hint": r.hint,
                                                             "hint_tex": r.hint_tex})}
                        for path, r in results.items()},
            "score": {"correct": sum(r.correct for r in results.values()),
                      "answered": len(results), "blanks": len(e.blanks)}}
