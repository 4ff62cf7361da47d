"""The classroom's bodies, declared once (see attention_api.declared): an exercise and its
check, worksheets and a slide. Each of the first three is a seed (or seeds) or a request of
one's own, one of the two: two forms, told apart by which is sent.

A request of one's own is POST /api/attention's, checked with the app's limits (the
validation's context) and its errors named within the body ("request.X[0][1]"); the
document describes it as the subset an example worked by hand takes (CLASSROOM: a row, at
most 8 tokens and d 8, none of BEYOND's variants). What JSON Schema cannot say is in the
fields' descriptions: a row below the request's tokens, a head below its heads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, ClassVar, Literal, Union

from pydantic import ConfigDict, Discriminator, Field, Tag, TypeAdapter, create_model

from attention_core.classroom.exercises import (
    LEVELS,
    SEEDS,
    VIEW_DIM,
    VIEW_LEVELS,
    VIEW_TOKENS,
    check_level,
    check_seed,
)
from attention_core.errors import AttentionInputError, counted

from ..attention.declaration import FORMS, POSITIONAL, Variant, declaration
from ..attention.limits import Limits
from ..attention.request import parse_request
from ..declared import Absent, Body, checked, components, json_schema, ref, retyped, sent
from ..values import describe, json_object, whole_number

EXERCISE_FIELDS = ("seed", "level", "request")
CHECK_FIELDS = ("seed", "level", "request", "answers")
SHEET_FIELDS = ("seeds", "request", "level", "key", "format")
SLIDE_FIELDS = ("request", "row", "head", "what", "format")
SHEET_FORMATS = ("pdf", "typ")
WHATS = ("heatmap", "working")
NEEDS_ROW = ("working",)  # what a slide needs a row for (the slide's or its request's)
SLIDE_FORMATS = ("png", "svg", "typ")
# What a slide holds legibly: a heatmap of at most 64 × 64 cells (its weights written in
# the cells up to about 12), and a working of at most 16 keys (a vector longer than 8 is
# written with its first entries, "…" and its last: slide_typst.py).
MAX_HEATMAP = 64
MAX_WORKING_KEYS = 16
# A class set in one request: a page each. 30 with their key take 0.3 s (bench_worksheet);
# 100 bounds the work of one request to about a second.
MAX_SHEETS = 100

SEED = Annotated[int, Field(ge=0, le=SEEDS - 1)]
SAID_SEED = "the same seed and level give the same exercise on every machine"
SAID_LEVEL = "; ".join(f"{k}: {v}" for k, v in LEVELS.items())
# What an example of one's own may not use: the newer variants, whose steps are not in an
# exercise's table (exercise.py refuses them, in these words; the document leaves them out).
BEYOND = {"b_Q": "biases", "kv_heads": "shared key/value heads", "X_kv": "cross-attention",
          "rope_base": "RoPE", "alibi_slopes": "ALiBi", "window": "a window",
          "position_offset": "a position offset"}
BEYOND_POSITIONAL = {"rope": "RoPE", "alibi": "ALiBi"}
SAID_OWN = ("instead of a seed, an example of one's own with its row (at most 8 tokens, d 8; "
            "a mask, a scale, sinusoidal positions and heads, no newer variant), at the "
            "levels " + ", ".join(VIEW_LEVELS))


def _by_hand(limits: Limits, fields: dict) -> dict:
    """The request's fields as an example worked by hand takes them: with its row, without
    BEYOND's (b_Q and kv_heads are the variant's biases and forms)."""
    own = dict(fields)
    own["row"] = retyped(own["row"], Annotated[int, Field(ge=0, le=limits.max_tokens - 1)],
                         "the query to work out, 0-based (below n)", ...)
    for name, what in BEYOND.items():
        if name in own and name != "position_offset":
            own[name] = retyped(own[name], None, f"none: an example worked by hand leaves "
                                                  f"out {what}")
    own["position_offset"] = retyped(own["position_offset"], Literal[0] | None,
                                     "0 or none: an example worked by hand starts at 0")
    positional = tuple(p for p in POSITIONAL if p not in BEYOND_POSITIONAL)
    own["positional"] = retyped(own["positional"], Literal[positional] | None,
                                "null (the default) or " + " or ".join(positional))
    return own


def _narrowed(limits: Limits) -> Limits:
    return replace(limits, max_tokens=min(limits.max_tokens, VIEW_TOKENS),
                   max_model_dim=min(limits.max_model_dim, VIEW_DIM),
                   max_dim=min(limits.max_dim, VIEW_DIM))


CLASSROOM = Variant("Classroom", "An example of one's own worked by hand: a request of POST "
                    f"/api/attention with its row, at most {VIEW_TOKENS} tokens and d_model, "
                    f"d_k and d_v at most {VIEW_DIM}, without the newer variants.",
                    lambda payload, limits: payload, _by_hand,
                    forms=tuple(f for f in FORMS if f != "grouped heads"), narrowed=_narrowed,
                    biases=False)


def own_request(value, info):
    """A request of one's own, checked with the app's limits, named within the body."""
    try:
        return parse_request(value, info.context["limits"])
    except AttentionInputError as exc:  # "request.X[0][1]"
        field = exc.field if exc.field is None or exc.field.startswith("request") \
            else f"request.{exc.field}"
        raise AttentionInputError(str(exc), field) from None


def _as_sent(value, info):
    """A field checked later, with what it depends on (the exercise's blanks, its level)."""
    return value


def _seed(value, info) -> int:
    number = whole_number(value)  # 7.0 is the seed 7; the message quotes what was sent
    return check_seed(value if number is None else number)


def _level(value, info) -> str:
    return check_level(value)


def _one_of(payload: dict, one: str, said: str) -> None:
    if (one in payload) == ("request" in payload):
        raise AttentionInputError(said, one)


class _Exercise(Body):
    """An exercise's body: a level, and a seed or a request of one's own."""

    listed: ClassVar = EXERCISE_FIELDS

    @classmethod
    def check_form(cls, payload, context):
        if "level" not in payload:
            raise AttentionInputError(f"level is missing: one of {', '.join(LEVELS)}", "level")
        _one_of(payload, "seed", f"send a seed (a whole number from 0 to {SEEDS - 1}) or a "
                                 f"request of your own with its row, one of the two")


class _Check(_Exercise):
    listed: ClassVar = CHECK_FIELDS


def _seed_or_request(payload) -> str:
    return "request" if isinstance(payload, dict) and "request" in payload else "seed"


def _forms(name: str, base, seeded: dict, own: dict, described: str):
    """The adapter of ``name``'s two forms: by a seed (``seeded``'s fields), or of one's
    own (``own``'s)."""
    by_seed = create_model(f"{name}BySeed", __base__=base, __doc__=f"{described}, by a seed.",
                           **seeded)
    of_own = create_model(f"{name}OfOwn", __base__=base,
                          __doc__=f"{described}, of an example of one's own.", **own)
    return TypeAdapter(Annotated[Union[Annotated[by_seed, Tag("seed")],  # noqa: UP007
                                       Annotated[of_own, Tag("request")]],
                                 Discriminator(_seed_or_request)])


LEVEL = (checked(_level, Literal[tuple(LEVELS)], SAID_LEVEL), ...)
OWN_LEVEL = (checked(_as_sent, Literal[VIEW_LEVELS],
                     "one of " + ", ".join(VIEW_LEVELS) + " for an example of one's own"), ...)
OWN = (checked(own_request, ref("ClassroomRequest"), SAID_OWN), ...)
ANSWERS = sent(_as_sent, dict[str, float], "a blank's path → the student's number; any of the "
               "blanks", required=True)

ExerciseRequest = _forms(
    "Exercise", _Exercise, {"seed": (checked(_seed, SEED, SAID_SEED), ...), "level": LEVEL},
    {"request": OWN, "level": OWN_LEVEL}, "An exercise")
ExerciseCheckRequest = _forms(
    "ExerciseCheck", _Check, {"seed": (checked(_seed, SEED, SAID_SEED), ...), "level": LEVEL,
                              "answers": ANSWERS},
    {"request": OWN, "level": OWN_LEVEL, "answers": ANSWERS}, "A check of an exercise")


# --- POST /api/worksheet ---------------------------------------------------------------

class _Sheet(Body):
    listed: ClassVar = SHEET_FIELDS

    @classmethod
    def check_form(cls, payload, context):
        if "level" not in payload:
            raise AttentionInputError("level is missing", "level")
        _one_of(payload, "seeds", "send seeds (a list of whole numbers) or a request of your "
                                  "own with its row, one of the two")


def _seeds(raw, info) -> list[int]:
    if not isinstance(raw, list) or not raw:
        raise AttentionInputError(f"seeds must be a list of 1 to {MAX_SHEETS} seeds (whole "
                                  f"numbers from 0 to {SEEDS - 1}); got {describe(raw)}", "seeds")
    if len(raw) > MAX_SHEETS:
        raise AttentionInputError(f"seeds: at most {MAX_SHEETS} worksheets at once; got "
                                  f"{len(raw)}", "seeds")
    out = []
    for i, s in enumerate(raw):
        try:
            number = whole_number(s)
            out.append(check_seed(s if number is None else number))
        except AttentionInputError as exc:
            # "seed must be …" said of this one: "seeds[1] must be …"
            raise AttentionInputError(str(exc).replace("seed", f"seeds[{i}]", 1),
                                      f"seeds[{i}]") from None
    return out


SHEET_OPTIONS = {  # checked after the exercises (worksheet.py), as they always were
    "key": (checked(_as_sent, bool, "true: the answer key, every blank filled in"), False),
    "format": (checked(_as_sent, Literal[SHEET_FORMATS], "pdf, or typ: the typst source it "
                       "is typeset from"), "pdf"),
}
WorksheetRequest = _forms(
    "Worksheet", _Sheet, {
        "level": LEVEL,
        "seeds": (checked(_seeds, Annotated[list[SEED], Field(min_length=1,
                                                              max_length=MAX_SHEETS)],
                          "a page per seed, in this order"), ...),
        **SHEET_OPTIONS},
    {"request": OWN, "level": OWN_LEVEL, **SHEET_OPTIONS}, "Worksheets")


# --- POST /api/slide -------------------------------------------------------------------

def choice(p: dict, name: str, choices: tuple[str, ...], default: str | None) -> str:
    value = p.get(name, default)
    if value not in choices:
        raise AttentionInputError(f"{name} must be {' or '.join(choices)}; got "
                                  f"{describe(value) if name in p else 'nothing'}", name)
    return value


def slide_options(p) -> tuple[str, str, dict]:
    """A slide body's ``what`` and ``format``, checked, and the rest of the body."""
    json_object(p)
    what = choice(p, "what", WHATS, None)
    fmt = choice(p, "format", SLIDE_FORMATS, "png")
    return what, fmt, {k: v for k, v in p.items() if k not in ("what", "format")}


def _below(value, name: str, below: int, what: str) -> int:
    number = whole_number(value)
    if number is None or not 0 <= number < below:
        raise AttentionInputError(f"{name} must be a whole number from 0 to {below - 1} "
                                  f"({what}); got {describe(value)}", name)
    return number


def _slide_request(value, info):
    if isinstance(value, Absent):
        raise AttentionInputError("request is missing: the view, in the request format of "
                                  "POST /api/attention", "request")
    return own_request(value, info)


def _slide_row(value, info):
    req = info.data["request"]
    if isinstance(value, Absent):
        return req.row
    n = len(req.tokens)
    return _below(value, "row", n, f"the query, 0-based, of {counted(n, 'token')}")


def _slide_head(value, info):
    H = len(info.data["request"].heads)
    return 0 if isinstance(value, Absent) else \
        _below(value, "head", H, f"the head, 0-based, of {H}")


def said_row(schema: dict) -> None:
    """NEEDS_ROW as JSON Schema says it, in the slide's schema: a slide of a working has a
    row, its own or its request's (not null); slide.check_size refuses one without."""
    schema.update({
        "if": {"required": ["what"], "properties": {"what": {"enum": list(NEEDS_ROW)}}},
        "then": {"anyOf": [{"required": ["row"]}, {"properties": {"request": {
            "required": ["row"], "properties": {"row": {"type": "integer"}}}}}]}})


class _Slide(Body):
    model_config = ConfigDict(json_schema_extra=lambda schema, cls: said_row(schema))
    listed: ClassVar = SLIDE_FIELDS

    @classmethod
    def check_object(cls, payload, context):
        slide_options(payload)  # what and format before any other field


SlideRequest = create_model(
    "SlideRequest", __base__=_Slide, __doc__="A view (a request of POST /api/attention), "
    "what of it to show and in which format.",
    request=sent(_slide_request, ref("AttentionRequest"), "the view; a heatmap of at most "
                 f"{MAX_HEATMAP} × {MAX_HEATMAP} weights, a working of at most "
                 f"{MAX_WORKING_KEYS} keys", required=True),
    row=sent(_slide_row, Annotated[int, Field(ge=0)], "the query (0-based, below the view's "
             "tokens) whose working to show, or whose heatmap row to outline; the request's "
             "row when left out", required=False),
    head=sent(_slide_head, Annotated[int, Field(ge=0)], "the head, 0-based, below the view's "
              "heads", required=False),
    what=(checked(lambda v, info: choice({"what": v}, "what", WHATS, None), Literal[WHATS]),
          ...),
    format=(checked(lambda v, info: choice({"format": v}, "format", SLIDE_FORMATS, "png"),
                    Literal[SLIDE_FORMATS], "png (1920 × 1080), svg, or typ: the typst source"),
            "png"))


def classroom_schemas(limits: Limits) -> dict:
    """The bodies' schemas, by name: each one of its two forms, the request of one's own
    they hold (for ``limits``, the app's), and the slide's."""
    forms = {"ExerciseRequest": ExerciseRequest, "ExerciseCheckRequest": ExerciseCheckRequest,
             "WorksheetRequest": WorksheetRequest}
    out = {}
    for name, union in forms.items():
        schema = json_schema(union)
        out.update(schema.pop("$defs"), **{name: {"oneOf": schema["oneOf"],
                                                  "description": "a seed or a request of "
                                                                 "one's own, one of the two"}})
    return {**out, **declaration(limits, CLASSROOM).json_schema(), **components(SlideRequest)}
