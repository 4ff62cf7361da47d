"""The real models' requests, declared once (see attention_api.declared): one form per model,
told apart by its "model", each with its own range of layer and head (registry.SHAPES),
and the forms of POST /api/model/slide, /tiles and /kv-cache built from the same fields;
the key/value cache offers only the decoders.

Everything that does not need the text's tokens is checked here, before the text is
tokenized: the model, the text (a string of at most MAX_TEXT_CHARS characters), the layer,
the head, the row (a whole number below the model's max_tokens), the mask (true, false or
null), the fields and their corners, the encoding; a slide's what and format (first, as
POST /api/slide's) and its working's row; the tiles' block_q and block_k (first) and their
row; an encoder refused by the key/value cache, after the rest. Only what needs the tokens
is checked by request.py once the text is tokenized: the text's length in tokens, a word
in it, a row below its tokens (and by the slide's route, a heatmap's size). What JSON
Schema cannot say is in the descriptions: a text of at most the model's max_tokens tokens,
a row below them.
"""

from __future__ import annotations

import functools
from typing import Annotated, ClassVar, Literal, Union

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    create_model,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from attention_core.errors import AttentionInputError, counted
from attention_models import registry
from attention_models.base import MAX_TOKENS, Model

from ..attention.declaration import encoding
from ..attention.fields import CORNER, CORNERED, WORKING_PARTS, fields_asked
from ..classroom.declaration import NEEDS_ROW, SLIDE_FORMATS, WHATS, choice, slide_options
from ..declared import Absent, Declared, checked, json_schema, sent
from ..running.declaration import block_size
from ..values import check_keys, describe, printable, quoted, whole_number

FIELDS = ("model", "text", "layer", "head", "row", "causal", "fields", "encoding")
# A text is tokenized before its length in tokens is known: this many characters at most
# (every token of either model is one character or more), so a 4 MB body of text costs
# nothing to refuse.
MAX_TEXT_CHARS = 4096
# What an answer may hold, in its order: the model's additions around one head's answer
# of POST /api/attention (response.head_body), for the optional "fields" selection.
ANSWER_FIELDS = ("model", "text", "tokens", "token_ids", "words", "layer", "head", "kv_head",
                 "causal", "model_causal", "counterfactual", "positional", "rope_base", "X",
                 "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "d_k", "scale", "Q", "K", "V",
                 "Q_unrotated", "K_unrotated", "scores", "scaled_scores", "mask", "weights",
                 "output", "warnings", "working", "weights_u8", "strongest_keys",
                 "next_tokens", "overview")
MODEL_CORNERED = ("X", "W_Q", "W_K", "W_V", *(c for c in CORNERED if c in ANSWER_FIELDS))
KNOWN = frozenset((*ANSWER_FIELDS, *WORKING_PARTS))  # every name "fields" takes
# The fields of the slide's and the tiles' bodies beside the request's own, and the
# request's they do not take (of the JSON answer: a slide is a picture, tiles a trace).
SLIDE_OWN, TILES_OWN = ("what", "format"), ("block_q", "block_k")
NOT_OWN = ("fields", "encoding")


def _model(value, info) -> Model:
    if value not in registry.MODEL_IDS:  # a list or object is never one of the ids
        raise AttentionInputError(
            f"model must be one of {', '.join(registry.MODEL_IDS)} (GET /api/models "
            f"describes them), got {describe(value)}", "model")
    return registry.get(value)


def _text(value, info) -> str:
    if not isinstance(value, str):
        raise AttentionInputError(f"text must be a string, got {describe(value)}", "text")
    if printable(value) != value:
        raise AttentionInputError(
            f"text {quoted(value)} holds half of a UTF-16 surrogate pair, which is no "
            "character: send the whole character", "text")
    if not value.strip():
        raise AttentionInputError(
            f"text is {'empty' if not value else 'only spaces'}: type a sentence", "text")
    if len(value) > MAX_TEXT_CHARS:
        raise AttentionInputError(
            f"text is {len(value):,} characters long, more than the {MAX_TEXT_CHARS:,} taken "
            "here", "text")
    return value


def index(value, name: str, count: int, why: str) -> int:
    """A whole number from 0 to count − 1 (2.0 as 2: values.whole_number)."""
    number = whole_number(value)
    if number is None or not 0 <= number < count:
        raise AttentionInputError(
            f"{name} must be a whole number from 0 to {count - 1} (0-based: {why}), got "
            f"{describe(value)}", name)
    return number


def _layer(value, info) -> int:
    model = info.data["model"].info
    return index(value, "layer", model.layers, f"{model.id} has "
                 f"{counted(model.layers, 'layer')}")


def _head(value, info) -> int:
    model = info.data["model"].info
    return index(value, "head", model.heads, f"each layer of {model.id} has "
                 f"{counted(model.heads, 'query head')}")


def _row(value, info) -> int | None:
    """A row of any text the model takes; request.py checks it is below this text's
    tokens once they are known."""
    if value is None:
        return None
    model = info.data["model"].info
    return index(value, "row", model.max_tokens, f"below the text's tokens; {model.id} "
                 f"takes at most {model.max_tokens}")


def _causal(value, info) -> bool | None:
    """The mask asked for; None: the model's own (request.py)."""
    if value is not None and not isinstance(value, bool):
        raise AttentionInputError(f"causal must be true or false, got {describe(value)}",
                                  "causal")
    return value


def _fields_asked(value, info) -> tuple:
    """(the names asked, {name: its corner}), or (None, {}) for every field."""
    return fields_asked(value, 0, KNOWN, ANSWER_FIELDS, MODEL_CORNERED)


def _what(value, info) -> str:
    what = choice({"what": value}, "what", WHATS, None)
    if what in NEEDS_ROW and info.data["row"] is None:
        raise AttentionInputError("row is missing: the query whose working to show, 0-based",
                                  "row")
    return what


def _format(value, info) -> str:
    return choice({"format": value}, "format", SLIDE_FORMATS, "png")


def _tiles_row(value, info) -> int:
    """The tiles' row, which they cannot go without: missing (or null) in their words."""
    if isinstance(value, Absent) or value is None:
        raise AttentionInputError("row is missing: the query (0-based) whose tiles to follow",
                                  "row")
    return _row(value, info)


def _block(name: str):
    """The check of a tile's side ``name``, as POST /api/tiles's."""
    return lambda value, info: block_size({name: value}, name)


class _ModelBody(Declared):
    listed: ClassVar = FIELDS

    @classmethod
    def check_object(cls, payload, context):
        if not isinstance(payload, dict):
            raise AttentionInputError(
                f"The request must be a JSON object with model, text, layer and head, got "
                f"{describe(payload)}")


class _OwnBody(_ModelBody):
    """A body with fields of its own beside the request's (``own``), without ``NOT_OWN``:
    those are refused in the route's words, an unknown field in POST /api/model/attention's
    (its fields listed), as when the route took the request out of its body."""

    own: ClassVar[tuple[str, ...]] = ()
    said: ClassVar[str] = ""  # "a slide's request"

    @classmethod
    def check_form(cls, payload, context):
        for name in NOT_OWN:
            if name in payload:
                fields = [f for f in FIELDS if f not in NOT_OWN] + list(cls.own)
                raise AttentionInputError(
                    f"{name!r} is not a field of {cls.said}; its fields are "
                    f"{', '.join(fields[:-1])} and {fields[-1]}", name)
        check_keys({k: v for k, v in payload.items() if k not in cls.own}, FIELDS)


def said_row(schema: dict) -> None:
    """NEEDS_ROW as JSON Schema says it, in a model slide's schema: a slide of a working has
    a row (not null); _what refuses one without."""
    schema.update({
        "if": {"required": ["what"], "properties": {"what": {"enum": list(NEEDS_ROW)}}},
        "then": {"required": ["row"], "properties": {"row": {"type": "integer"}}}})


class _SlideBody(_OwnBody):
    model_config = ConfigDict(json_schema_extra=lambda schema, cls: said_row(schema))
    listed: ClassVar = (*FIELDS, *SLIDE_OWN)  # what check_form lets pass (it names the rest)
    own: ClassVar = SLIDE_OWN
    said: ClassVar = "a slide's request"

    @classmethod
    def check_object(cls, payload, context):
        slide_options(payload)  # the body a JSON object, what and format before the rest


class _TilesBody(_OwnBody):
    listed: ClassVar = (*FIELDS, *TILES_OWN)
    own: ClassVar = TILES_OWN
    said: ClassVar = "a tiles request"

    @classmethod
    def check_object(cls, payload, context):
        if not isinstance(payload, dict):
            raise AttentionInputError("the body must be a JSON object with model, text, layer, "
                                      "head, row, block_q and block_k", None)
        for name in TILES_OWN:  # the tile's sides before the rest
            block_size(payload, name)


class _KVCacheBody(_ModelBody):
    @model_validator(mode="after")
    def _decoder(self):
        """An encoder keeps no cache: refused once the rest of the request is checked."""
        info = self.model.info
        if info.kind != "decoder":
            raise AttentionInputError(f"{info.id} is an encoder: it reads the whole text at "
                                      f"once and generates nothing, so it keeps no cache; "
                                      f"choose a decoder", "model")
        return self


ARTICLED = {"decoder": "a decoder: causal, it generates", "encoder": "an encoder: it reads "
            "the whole text at once"}


def _fields(model_id: str) -> dict:
    """The fields of a request of the model ``model_id``, in the order they are checked."""
    kind, layers, heads = registry.SHAPES.get(model_id, ("", 1, 1))
    matrices = "|".join(MODEL_CORNERED)
    name = Literal[(*(f for f in ANSWER_FIELDS), *WORKING_PARTS)]
    return {
        "model": (checked(_model, Literal[model_id], ARTICLED.get(kind)), ...),
        "text": (checked(_text, Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)],
                         f"at most the model's max_tokens ({MAX_TOKENS}) tokens; a special "
                         "token typed ([SEP], <|im_start|>) is plain text"), ...),
        "layer": (checked(_layer, Annotated[int, Field(ge=0, le=layers - 1)],
                          f"0-based, below the model's {layers} layers"), ...),
        "head": (checked(_head, Annotated[int, Field(ge=0, le=heads - 1)],
                         f"0-based query head, below the model's {heads} heads"), ...),
        "row": (checked(_row, Annotated[int, Field(ge=0, le=MAX_TOKENS - 1)] | None,
                        "the query whose working to write out (0-based, below the text's "
                        "tokens)"), None),
        "causal": (checked(_causal, bool | None, "null: the model's own mask"), None),
        "fields": (checked(_fields_asked, list[Union[name,  # noqa: UP007
                                                     Annotated[str, Field(
                                                         pattern=rf"^({matrices}){CORNER}$")]]]
                           | None, "Keep only these parts; a matrix's name may end in [:r] "
                           "or [:r,:c], its corner; each name once, whole or cut to a "
                           "corner"), None),
        "encoding": (checked(lambda v, info: encoding(v), Literal["json", "base64"] | None,
                             'How the answer writes its arrays: "json" (the default) or '
                             '"base64"'), None),
    }


def _slide(fields: dict) -> dict:
    return {**{k: v for k, v in fields.items() if k not in NOT_OWN},
            "what": (checked(_what, Literal[WHATS]), ...),
            "format": (checked(_format, Literal[SLIDE_FORMATS]), "png")}


def _tiles(fields: dict) -> dict:
    side = Annotated[int, Field(ge=1)]
    own = {k: v for k, v in fields.items() if k not in NOT_OWN}
    own["row"] = sent(_tiles_row, Annotated[int, Field(ge=0, le=MAX_TOKENS - 1)],
                      "the query, 0-based (below the text's tokens), whose tiles to follow",
                      required=True)
    return {**own, "block_q": (checked(_block("block_q"), side, "B_r, the query rows of a "
                                       "tile"), ...),
            "block_k": (checked(_block("block_k"), side, "B_c, the key columns of a tile"),
                        ...)}


# Each kind's fields (from the request's) and the class of its forms.
KINDS = {"Attention": (lambda fields: fields, _ModelBody), "Slide": (_slide, _SlideBody),
         "Tiles": (_tiles, _TilesBody), "KVCache": (lambda fields: fields, _KVCacheBody)}


def _which(payload) -> str:
    model = payload.get("model") if isinstance(payload, dict) else None
    return model if model in registry.MODEL_IDS else registry.MODEL_IDS[0]


@functools.lru_cache(maxsize=8)
def model_request(kind: str = "Attention") -> TypeAdapter:
    """The forms of a real model's request (``kind``: Attention, Slide, Tiles or KVCache),
    one per model, told apart by "model"; the key/value cache's document offers only the
    decoders (an encoder is refused in words, after the rest is checked)."""
    forms = []
    fields_of, base = KINDS[kind]
    for model_id in registry.MODEL_IDS:
        form = create_model(f"Model{kind}Request-{model_id}", __base__=base,
                            __doc__=f"A head of {model_id}.", **fields_of(_fields(model_id)))
        hidden = kind == "KVCache" and registry.SHAPES.get(model_id, ("",))[0] != "decoder"
        forms.append(Annotated[form, Tag(model_id), *((SkipJsonSchema(),) if hidden else ())])
    return TypeAdapter(Annotated[Union[tuple(forms)], Discriminator(_which)])  # noqa: UP007


def model_schemas() -> dict:
    """Each kind's request, one of its models' forms, and each form by name."""
    out = {}
    for kind in KINDS:
        schema = json_schema(model_request(kind))
        forms = schema.get("oneOf", [schema])  # one form alone is not a oneOf
        mapping = {f["$ref"].split("Request-", 1)[1]: f["$ref"] for f in forms if "$ref" in f}
        out.update(schema.get("$defs", {}), **{f"Model{kind}Request": {
            "oneOf": forms, "discriminator": {"propertyName": "model", "mapping": mapping},
            "description": "one form per model, with its own range of layer and head"}})
    return out
