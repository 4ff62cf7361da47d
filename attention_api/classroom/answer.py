"""The answers of POST /api/exercise and /api/exercise/check declared as pydantic models, for
the API document (openapi.py); exercise.py builds them, with the levels of the numeric core
(attention_core/classroom/exercises.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from attention_core.classroom.exercises import LEVELS

from ..declared import UNSENT, Answer, ref
from .declaration import SAID_LEVEL

Level = Annotated[Literal[tuple(LEVELS)], Field(description=SAID_LEVEL)]
Path = Annotated[str, Field(description='a blank: its path in the answer of POST '
                                        "/api/attention for the exercise's request, "
                                        '"working.weights[1]", "heads[1].working.z[0]"')]
Count = Annotated[int, Field(ge=0)]


class Exercise(Answer):
    seed: Annotated[int | None, Field(description="null for an example of one's own")]
    level: Level
    title: Annotated[str, Field(description="what the level asks")]
    request: ref("AttentionRequest")
    row: Annotated[int, Field(ge=0, description="the query, 0-based")]
    blanks: Annotated[list[Path], Field(min_length=1)]


class Result(Answer):  # one answered blank
    correct: bool
    tolerance: Annotated[float, Field(description="one unit in the last place the page shows "
                                                  "for the step: 0.001 for 3 decimals, 0.01 "
                                                  "for 16.92")]
    hint: Annotated[str, Field(description="only for a wrong one")] = UNSENT
    hint_tex: Annotated[str, Field(description="the hint with its maths as TeX between $ "
                                               "signs (a $ or \\ in its words escaped with "
                                               "\\), as the page typesets it; only for a "
                                               "wrong one")] = UNSENT


class Score(Answer):
    correct: Count
    answered: Count
    blanks: Count


class ExerciseCheck(Answer):
    seed: int | None
    level: Level
    results: dict[str, Result]
    score: Score
