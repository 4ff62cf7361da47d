"""Requests declared once, as pydantic v2 models: the validation, the JSON Schema of the
API's document and the docs page's lists of fields (pages/fields.py) all come from one
declaration. Each feature declares its own (attention/, running/, classroom/ and
real_models/declaration.py); a route's whole body is a ``Body``, and ``ref`` names another
component of the document (a slide's request is POST /api/attention's).

A field's type is ``checked(check, schema)``: ``schema`` is the type JSON Schema sees
(integers, ranges, maxItems, nullability, enums: what pydantic writes from a type), and
``check(value, info)`` validates the JSON value the way ``values`` always has, so the
messages stay word for word: the field, its value, the closest field name for a typo, sizes
before any array is built. A check may read the fields declared before it
(``info.data``: X's rows for tokens) and where the object is in the request
(``info.context``: {"where": {"head": 1}, "owner": "Head 2"} inside heads[1]).

A field the route refuses in its own words when it is not sent ("level is missing: one of
…") is declared ``sent(check, schema, required=…)``: its check is called with ABSENT in its
turn, and the document says whether it is required.

Validating raises AttentionInputError: pydantic wraps an error a check raises in its own
ValidationError, with the original in the error's ctx; ``validate`` unwraps the first.
Fields are validated in the order they are declared, so the first field refused is the
first that today's order of checks refuses.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, ClassVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from attention_core.errors import AttentionInputError

from .values import check_keys, json_object, number, where_of

F64_MAX = sys.float_info.max  # ~1.8e308; a request number beyond it reads as infinity
# A finite float64, as JSON Schema can say it (the checks say it in words).
Finite = Annotated[float, Field(ge=-F64_MAX, le=F64_MAX)]
# Where a check is in the request, when it is not at the top: {"where": …, "owner": …}.
TOP = {"where": {}, "owner": ""}


def checked(check, schema, description: str | None = None, **field) -> Any:
    """A field validated by ``check(value, info)`` and described by the type ``schema``.

    pydantic goes on to the next field after one is refused; the API stops at the first
    (a huge matrix after a refused one is never built), so once a field is refused the
    checks after it pass without looking."""
    def first_refusal(value, info):
        refused = (info.context or TOP).get("refused")
        if refused:
            return None
        try:
            return check(value, info)
        except ValueError:
            if refused is not None:
                refused.append(info.field_name)
            raise
    return Annotated[Any, PlainValidator(first_refusal, json_schema_input_type=schema),
                     Field(description=description, **field)]


class Absent:
    """The value a ``sent`` field's check gets when the field is not in the request."""

    def __init__(self, required: bool):
        self.required = required

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT, UNSENT = Absent(True), Absent(False)  # a required field's, an optional field's


def sent(check, schema, description: str | None = None, *, required: bool, **field) -> tuple:
    """A field of ``create_model`` whose ``check(value, info)`` runs whether or not it is
    sent (with an Absent when it is not), so it says in its own words, in its own turn, that
    it is missing or what its default is; ``required`` is what the document says."""
    return (checked(check, schema, description, validate_default=True, **field),
            ABSENT if required else UNSENT)


def retyped(field: tuple, schema, description: str | None = None, default=None) -> tuple:
    """``field`` (a (type, default) of ``create_model``) with the same check, described as
    ``schema`` (with ``description``, else its own) and with ``default`` (..., required)."""
    _, validator, info = get_args(field[0])
    said = info.description if description is None else description
    return (Annotated[Any, PlainValidator(validator.func, json_schema_input_type=schema),
                      Field(description=said)], default)


def array(item, most: int, least: int = 1) -> Any:
    """The JSON Schema type of a list of ``least`` to ``most`` of ``item``."""
    return Annotated[list[item], Field(min_length=least, max_length=most)]


def where(info) -> dict:
    """The place of the object being validated: {"head": 1} inside heads[1], else {}."""
    return (info.context or TOP)["where"]


def validate(model, payload, context: dict | None = None):
    """``payload`` validated by ``model`` (a model or a TypeAdapter), or the
    AttentionInputError of the first field refused."""
    context = {**(context or TOP), "refused": []}
    try:
        if isinstance(model, type):
            return model.model_validate(payload, context=context)
        return model.validate_python(payload, context=context)
    except ValidationError as exc:
        raise first_error(exc, context or TOP) from None


def first_error(exc: ValidationError, context: dict) -> AttentionInputError:
    """The first of pydantic's errors as today's AttentionInputError: a check's own error
    as it was raised, anything pydantic refused itself (a type its checks leave to it)
    named by its field."""
    error = exc.errors(include_url=False)[0]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, AttentionInputError):
        return cause
    field = next((str(p) for p in reversed(error["loc"]) if isinstance(p, str)), None)
    said = f"{context['owner']}: " if context["owner"] else ""
    return AttentionInputError(f"{said}{field} {error['msg'].lower()}", field,
                               **context["where"])


class Declared(BaseModel):
    """A request's object: no field but those declared; the missing and the unknown named
    as the rest of the API names them ('Head 1 needs the field "W_Q"', did you mean)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True,
                              hide_input_in_errors=True)

    # The fields a message about an unknown one lists, in this order (the declared order
    # when None): the order a route's words have always had.
    listed: ClassVar[tuple[str, ...] | None] = None

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, payload, info):
        context = info.context or TOP
        cls.check_object(payload, context)
        if not isinstance(payload, dict):  # the list holding it says what it must be
            return payload
        cls.check_form(payload, context)
        check_keys(payload, cls.listed or tuple(cls.model_fields), context["where"],
                   context["owner"])
        for name, declared in cls.model_fields.items():
            if declared.is_required() and name not in payload:
                owner = context["owner"] or "The request"
                raise AttentionInputError(f'{owner} needs the field "{name}"', name,
                                          **context["where"])
        return payload

    @classmethod
    def check_object(cls, payload, context: dict) -> None:
        """Checks of the value before anything else (a body's: a JSON object)."""

    @classmethod
    def check_form(cls, payload: dict, context: dict) -> None:
        """Checks of the whole object before its fields' (a form's own words)."""


class Body(Declared):
    """A route's whole body: a JSON object with no field but its own, in the words every
    route uses ("the body must be a JSON object")."""

    @classmethod
    def check_object(cls, payload, context: dict) -> None:
        json_object(payload, cls.listed or tuple(cls.model_fields))


class NoTitles(GenerateJsonSchema):
    """pydantic's JSON Schema without a title on every property ("W Q" for W_Q)."""

    def field_title_should_be_set(self, schema) -> bool:
        return False

    def field_is_required(self, field, total) -> bool:
        default = field["schema"].get("default") if field["schema"]["type"] == "default" \
            else None
        if isinstance(default, Absent):
            return default.required
        return super().field_is_required(field, total)

    def default_schema(self, schema) -> dict:
        if isinstance(schema.get("default"), Absent):  # no default to show
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


def ref(name: str) -> Any:
    """The JSON Schema type of another component of the document, by name
    ("AttentionRequest"): a mark that ``json_schema`` and ``components`` make a $ref (pydantic
    would look for a $ref among its own models)."""
    return Annotated[Any, WithJsonSchema({COMPONENT: name})]


COMPONENT = "x-component"


def _linked(node):
    """``node`` with each component's mark made its $ref."""
    if isinstance(node, list):
        return [_linked(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _linked(v) for k, v in node.items() if k != COMPONENT}
    if COMPONENT in node:
        out["$ref"] = REF.format(model=node[COMPONENT])
    return out


REF = "#/components/schemas/{model}"


def json_schema(adapter, ref: str = REF) -> dict:
    """The JSON Schema of a TypeAdapter, its models referred to as OpenAPI components."""
    return _linked(adapter.json_schema(ref_template=ref, schema_generator=NoTitles))


def schema_of(type_) -> dict:
    """The JSON Schema of a type (``str``, ``bytes``: a binary file, a bounded ``int``), for
    what the document says outside its components: a parameter, a header, a page."""
    return json_schema(TypeAdapter(type_))


def components(*models) -> dict:
    """The JSON Schemas of ``models`` and of the models they hold, by name: the document's
    components."""
    _, schemas = models_json_schema([(m, "validation") for m in models], ref_template=REF,
                                    schema_generator=NoTitles)
    return _linked(schemas.get("$defs", {}))


class Answer(BaseModel):
    """An object of an answer, declared for the API document only (the routes build the
    answers; nothing validates them here): no field but those declared, and a field with
    the default UNSENT is one an answer may leave out."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


def said(description: str, **extra) -> ConfigDict:
    """An Answer's config with the object's ``description``, word for word (a docstring
    would become its description with its line breaks), and any ``extra`` keywords of JSON
    Schema that no type says."""
    return ConfigDict(**Answer.model_config,
                      json_schema_extra={"description": description, **extra})


def answer_components(*models) -> dict:
    """The JSON Schemas of the answers ``models``, by name: the document's components. An
    object they hold that is not among them is written in place, as a part of its answer,
    not a component of its own (its class's name is no name of the document's)."""
    schemas = components(*models)
    named = {name for name in schemas if name in {m.__name__ for m in models}}

    def placed(node):
        if isinstance(node, list):
            return [placed(v) for v in node]
        if not isinstance(node, dict):
            return node
        name = node.get("$ref", "").removeprefix(REF.format(model=""))
        if name in schemas and name not in named:  # a part's own annotations win
            inner = {k: v for k, v in schemas[name].items() if k != "title"}
            node = {**inner, **{k: v for k, v in node.items() if k != "$ref"}}
        return {k: placed(v) for k, v in node.items()}

    return {name: placed(schemas[name]) for name in schemas if name in named}


def finite_number(value, info):
    """A finite float64 (the scale, θ), named by its field."""
    return None if value is None else number(value, info.field_name)


__all__ = ["ABSENT", "Absent", "Answer", "Body", "Declared", "F64_MAX", "Finite", "UNSENT",
           "answer_components", "array", "checked", "components", "finite_number",
           "json_schema", "ref", "retyped", "said", "schema_of", "sent", "validate", "where",
           "where_of"]
