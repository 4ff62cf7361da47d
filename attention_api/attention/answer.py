"""The answer of POST /api/attention declared as pydantic models, for the API document: each
field's type from its row of answer_fields (its shape, kind and values), its bounds from
the limits; response.py builds the answer itself.

``answers(limits)`` declares AttentionAnswer (what ``fields`` may trim), HeadAnswer, Working,
EncodedArray and the full shapes OneHeadAnswer and SeveralHeadsAnswer; a real model's
answer (real_models/answer.py) takes a head's fields from ``head_fields`` at its own bounds.
GET /api/presets' answer is declared here too (Presets).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import Field, create_model

from ..declared import UNSENT, Answer, array, ref, said
from .answer_fields import HEAD, SEVERAL, STRONGEST, WHOLE, WORKING, names
from .answer_fields import Field as AnswerField
from .limits import Limits

Weight = Annotated[float, Field(ge=0, le=1)]
HEAD_NAMES = frozenset(f.name for f in HEAD)
# A single head's parts that a multi-head answer has only inside each head.
ONE_HEAD_ONLY = names(f for f in HEAD if f.name not in {s.name for s in SEVERAL})


class EncodedArray(Answer):
    model_config = said(
        'An array of an answer asked with "encoding": "base64": its bytes in row-major order, '
        "float64 little-endian (a masked score is −∞ itself), bool as one byte 0 or 1 each, "
        "or uint8 (weights_u8).")

    dtype: Literal["float64", "bool", "uint8"]
    # (layers, heads, n, n): a real model's overview of weights_u8 has four axes
    shape: array(Annotated[int, Field(ge=0)], 4)
    base64: Annotated[str, Field(json_schema_extra={"contentEncoding": "base64"})]


def encoded(lists: Any, what: str | None = None) -> Any:
    """An array of the answer: ``lists`` (nested lists), or an EncodedArray of the same
    numbers."""
    return Annotated[lists | ref("EncodedArray"), Field(description=what or None)]


def _cell(field: AnswerField, limits: Limits) -> Any:
    """The type of one number (or flag, or label) of ``field``, as its values say."""
    n, d, H = limits.max_tokens, limits.max_dim, limits.max_heads

    def whole(least: int, most: int | None = None) -> Any:
        return Annotated[int, Field(ge=least, le=most)]

    positive = Annotated[float, Field(ge=0)]
    return {
        "number": {"": float, "masked is null": float | None, "≥ 0": positive,
                   "≥ 0 or null": positive | None, "0 … 1": Weight,
                   "−1 … 1": Annotated[float, Field(ge=-1, le=1)]},
        "int": {"≥ 0": whole(0), "≥ 1": whole(1), "0 … n − 1": whole(0, n - 1),
                "1 … d_k": whole(1, d), "0 … heads − 1": whole(0, H - 1)},
        "bool": {"": bool}, "uint8": {"": whole(0, 255)}, "text": {"": str},
    }[field.kind][field.values]


def _field_type(field: AnswerField, limits: Limits, working, head) -> Any:
    """The type of one answer field or working part, from its row of answer_fields;
    ``working`` and ``head`` are the models of a row's working and of a head's answer."""
    n, d, H = limits.max_tokens, limits.max_dim, limits.max_heads
    most = {"n": n, "m": n, "d_k": d, "d_v": d, "d_model": limits.max_model_dim,
            "pairs": d // 2, "concat": d * H, "d_out": d}  # each shape symbol at most
    about = field.about or None
    if field.kind == "working":
        return working
    if field.kind == "heads":
        return array(head, H)
    if field.kind == "pairs":  # strongest_keys: [key j, weight] of each query
        pair = tuple[Annotated[int, Field(ge=0, le=n - 1)], Weight]
        return Annotated[list[Annotated[list[pair], Field(max_length=STRONGEST)]],
                         Field(max_length=n, description=about)]
    cell = _cell(field, limits)
    if field.kind == "text" and field.shape:  # labels, or warnings (of any number)
        return array(str, most[field.shape[0]]) if field.shape != ("*",) else list[str]
    if not field.shape:
        return Annotated[cell, Field(description=about)]
    lists = cell
    for symbol in reversed(field.shape):
        lists = array(lists, most[symbol])
    return encoded(lists, about)


def fields_of(fields, limits: Limits, working=None, head=None, required=()) -> dict:
    """``create_model``'s fields of answer_fields' ``fields``: each left out of an answer
    (UNSENT) but those ``required``."""
    return {f.name: (_field_type(f, limits, working, head), ... if f.name in required else UNSENT)
            for f in fields}


def working_model(limits: Limits, name: str = "Working") -> type[Answer]:
    """A row's working at ``limits``, the component ``name``."""
    return create_model(name, __config__=said("The hand calculation of one query row; j runs "
                                              "over the m keys."),
                        **fields_of(WORKING, limits, required=("row",)))


def head_fields(limits: Limits, working: type[Answer], required=()) -> dict:
    """A head's fields (``create_model``'s) at ``limits``, its working ``working``."""
    return fields_of(HEAD, limits, working, required=required)


class Preset(Answer):
    name: str
    description: str
    request: ref("AttentionRequest")


class Presets(Answer):  # GET /api/presets' answer
    presets: Annotated[list[Preset], Field(min_length=1)]


@dataclass(frozen=True)
class Answers:
    """The answer's models at one set of limits, each a component of the document."""

    answer: type[Answer]
    head: type[Answer]
    working: type[Answer]
    one_head: type[Answer]
    several_heads: type[Answer]

    def models(self) -> tuple[type[Answer], ...]:
        return (self.answer, self.head, self.working, EncodedArray, self.one_head,
                self.several_heads)


def _whole_answer(name: str, description: str, limits: Limits, working, head,
                  required=()) -> type[Answer]:
    """AttentionAnswer's fields as ``name``: a head's, the labels and flags, then the
    arrays; beside heads the combination's output and warnings, whose types are a head's."""
    whole = sorted(WHOLE, key=lambda f: f.kind == "number")
    fields = {**head_fields(limits, working, required),
              **fields_of(whole, limits, required=required),
              **fields_of(SEVERAL, limits, working, head, required)}
    # A multi-head answer keeps one head's parts under heads only, whatever is selected:
    # JSON Schema's dependentSchemas, which no pydantic type says (the one schema of the
    # document written here: tests/project/test_schemas.py allows it).
    config = said(description, dependentSchemas={
        key: {"properties": dict.fromkeys(ONE_HEAD_ONLY, False)}
        for key in names(f for f in SEVERAL if f.name not in HEAD_NAMES)})
    return create_model(name, __config__=config, **fields)


@cache
def answers(limits: Limits) -> Answers:
    """The answer's models at ``limits``."""
    working = working_model(limits)
    head = create_model("HeadAnswer", __base__=Answer, **head_fields(limits, working))
    answer = _whole_answer("AttentionAnswer", "Every part is present unless the request's "
                           "fields leaves it out; several heads put each head's parts under "
                           "heads.", limits, working, head)
    # The parts always sent: not those of a variant, of a row's working or named in fields.
    per_head = names(f for f in HEAD if not f.when)
    whole_always = names(f for f in WHOLE if not f.when)
    beside = names(f for f in SEVERAL if not f.when)
    one_head = _whole_answer("OneHeadAnswer", "The answer to one head without fields.",
                             limits, working, head, (*per_head, *whole_always))
    every_part = create_model("HeadOfSeveral", __base__=Answer,
                              **head_fields(limits, working, per_head))
    several = _whole_answer("SeveralHeadsAnswer", "The answer to several heads without "
                            "fields.", limits, working, every_part, (*whole_always, *beside))
    return Answers(answer, head, working, one_head, several)
