"""POST /api/attention's request, declared once (see attention_api.declared): its three
forms, one head (W_Q, W_K, W_V), several heads (heads and W_O) and grouped-query heads
(heads of W_Q only, kv_heads and W_O), each field's JSON Schema type and its check.

``declaration(limits)`` builds the forms for an app's limits, once per Limits; its
``validate`` gives the validated fields, its ``json_schema`` the document's part. Each
form's schema also says which fields go together (GOES_WITH, NEEDS: said_together) and,
for a single head, that fields names no head (fields_type), from the tables the checks use.
Fields are declared in the order today's checks run: X, the heads, the labels, X_kv,
positions, masks, row, fields.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal, Union

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    create_model,
    model_validator,
)

from attention_core.errors import NAME, AttentionInputError, Place, counted

from ..declared import (
    F64_MAX,
    Declared,
    Finite,
    array,
    checked,
    finite_number,
    json_schema,
    retyped,
    validate,
    where,
)
from ..values import (
    bool_matrix,
    check_keys,
    describe,
    labels,
    matrix,
    number,
    vector,
    whole_number,
)
from .fields import FIELD_NAMES, fields_asked, fields_patterns
from .limits import Limits

PROJECTIONS = ("W_Q", "W_K", "W_V")
BIASES = ("b_Q", "b_K", "b_V")
FIELDS = ("tokens", "X", *PROJECTIONS, *BIASES, "heads", "kv_heads", "W_O", "X_kv", "tokens_kv",
          "positional", "rope_base", "position_offset", "alibi_slopes", "causal", "scale",
          "mask", "window", "sinks", "row", "fields", "encoding")
# What the request computes, which the editor's "Export configuration" saves (in this order):
# every field but the two that say how the answer is written.
SETTINGS = tuple(f for f in FIELDS if f not in ("fields", "encoding"))
POSITIONAL = ("sinusoidal", "rope", "alibi")
QUERY_HEAD = ("W_Q", "b_Q")  # a query head's fields when kv_heads gives the keys and values
KV_HEAD = ("W_K", "W_V", "b_K", "b_V")
ENCODINGS = ("json", "base64")  # how the answer writes its arrays: see response.encode_arrays
# Where positions' options apply: a request with another positional is refused.
GOES_WITH = {"rope_base": ("rope",), "position_offset": ("sinusoidal", "rope"),
             "alibi_slopes": ("alibi",)}
# A field that labels or reads another, refused without it: tokens_kv labels X_kv's rows.
NEEDS = {"tokens_kv": "X_kv"}
FORMS = ("one head", "several heads", "grouped heads")
FORMS_SAID = {"one head": "One head (W_Q, W_K, W_V)", "several heads": "several (heads and W_O)",
              "grouped heads": "grouped-query heads (heads of W_Q, kv_heads and W_O)"}


def form_of(payload) -> str:
    """Which form a request is: with no heads, one head; with kv_heads, grouped heads."""
    if not isinstance(payload, dict) or "heads" not in payload:
        return "one head"
    return "several heads" if payload.get("kv_heads") is None else "grouped heads"


def require(payload: dict, names, owner: str = "The request") -> None:
    for name in names:
        if name not in payload:
            raise AttentionInputError(f'{owner} needs the field "{name}"', name)


def objects(value, name: str, owner: str, needs: str, most: int) -> list:
    """``value`` checked as a list of 1 to ``most`` objects (heads or kv_heads)."""
    if not isinstance(value, list) or not 1 <= len(value) <= most:
        got = describe(value) if not isinstance(value, list) else f"{len(value)} of them"
        raise AttentionInputError(
            f"{name} must be a list of 1 to {most} objects with {needs}, got {got}", name)
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            raise AttentionInputError(
                f"{owner} {k + 1} must be an object with {needs}, got {describe(item)}",
                name, row=k)
    return value


def whole(value, name: str, low: int, high: int, meaning: str) -> int | None:
    """A whole number from ``low`` to ``high``, or None when absent."""
    if value is None:
        return None
    number = whole_number(value)
    if number is None or not low <= number <= high:
        raise AttentionInputError(
            f"{name} must be a whole number from {low:,} to {high:,} ({meaning}), got "
            f"{describe(value)}", name)
    return number


def encoding(value) -> str:
    if value is None:
        return "json"
    if value not in ENCODINGS:
        raise AttentionInputError(
            f'encoding must be "json" (arrays as nested lists, the default) or "base64" '
            f"(each array as its float64 bytes), got {describe(value)}", "encoding")
    return value


def causal(value, info=None) -> bool:
    """The causal mask asked for: true, false, or null (false)."""
    if value is not None and not isinstance(value, bool):
        raise AttentionInputError(f"causal must be true or false, got {describe(value)}",
                                  "causal")
    return bool(value)


def _rows(info, name: str) -> int | None:
    """The rows of the matrix ``name`` validated before (X: n), None if it was refused."""
    value = info.data.get(name)
    return None if value is None else value.shape[0]


def _heads_count(info) -> int | None:
    """How many query heads: 1 in the one-head form (the only one with b_Q at the top),
    None if heads was refused."""
    if "b_Q" in info.data:
        return 1
    heads = info.data.get("heads")
    return None if heads is None else len(heads)


def said_together(schema: dict) -> None:
    """The rules of GOES_WITH and NEEDS, as JSON Schema says them (dependentSchemas), added to
    the schema of a form whose properties hold them: a field not null needs the positional it
    goes with, or the field it needs not null. (Written as JSON Schema: no pydantic type says
    one field's rule about another.)"""
    given = [name for name in (*GOES_WITH, *NEEDS) if name in schema.get("properties", {})]
    if given:
        schema.update(dependentSchemas={name: {"anyOf": [
            {"properties": {name: {"type": "null"}}},
            {"required": [_other(name)], "properties": {_other(name): (
                {"enum": list(GOES_WITH[name])} if name in GOES_WITH
                else {"not": {"type": "null"}})}}]} for name in given})


def _other(name: str) -> str:
    """The field ``name`` goes with (positional) or needs (X_kv for tokens_kv)."""
    return "positional" if name in GOES_WITH else NEEDS[name]


def fields_type(heads: int):
    """What ``fields`` takes, as JSON Schema says it, with at most ``heads`` heads; 0 for a
    single head sent as W_Q, W_K and W_V, which has no heads.<part> or heads[k].<part>."""
    names = FIELD_NAMES if heads else tuple(f for f in FIELD_NAMES if not f.startswith("heads."))
    one_head_field, corner = fields_patterns(heads)
    patterns = (one_head_field, corner) if heads else (corner,)
    return list[Union[(Literal[names],  # noqa: UP007
                       *(Annotated[str, Field(pattern=p)] for p in patterns))]] | None


def _goes_with(name: str, value, info) -> None:
    """Refuse a positions' option the request's positional does not take."""
    positional = info.data.get("positional")
    if value is not None and positional not in GOES_WITH[name]:
        said = " or ".join(f'"{k}"' for k in GOES_WITH[name])
        has = "no positional" if positional is None else f'"positional": "{positional}"'
        raise AttentionInputError(
            f"{name} goes with \"positional\": {said}; this request has {has}", name)


@dataclass(frozen=True)
class Variant:
    """Another route's body that is an attention request with fields of its own (POST
    /api/tiles, POST /api/kv-cache), declared from the request's own fields."""

    name: str  # the models' prefix: "Tiles" → TilesOneHeadRequest
    description: str
    # The body's own first checks, before the request's (a JSON object, its keys, ...):
    # ``first(payload, limits)`` gives the part of the body that is the request.
    first: Callable[[object, Limits], dict]
    # (limits, the request's fields but the heads' and W_O) → the body's: some declared
    # otherwise, some left out, its own added in the order they are checked.
    fields: Callable[[Limits, dict], dict]
    # Checks of the validated body before it is used (``after(body)``), or None.
    after: Callable | None = None
    listed: tuple[str, ...] | None = None  # the fields an unknown field's message lists
    forms: tuple[str, ...] = FORMS  # the forms the document lists
    # The limits its sizes are declared with, narrower than the app's (an example worked by
    # hand: 8 tokens); W_O's width, which it does not narrow, stays the app's.
    narrowed: Callable[[Limits], Limits] | None = None
    biases: bool = True  # False: b_Q, b_K and b_V only null, at the top and in the heads


@functools.lru_cache(maxsize=16)
def declaration(limits: Limits, variant: Variant | None = None) -> Declaration:
    """The request's forms for ``limits`` (as ``variant`` takes them, when given), built
    once per Limits."""
    return Declaration(limits, variant)


class Declaration:
    """The three forms of the request for one Limits, and the adapter that picks one."""

    def __init__(self, limits: Limits, variant: Variant | None = None):
        sizes = variant.narrowed(limits) if variant and variant.narrowed else limits
        n, D, d = sizes.max_tokens, sizes.max_model_dim, sizes.max_dim
        H, far, d_out = limits.max_heads, limits.max_position, limits.max_dim
        self.limits, self.variant = limits, variant
        # A variant's heads of other sizes or without biases are its own: "ClassroomHead".
        own_heads = variant is not None and (variant.narrowed is not None or not variant.biases)
        heads_prefix = variant.name if own_heads else ""

        def weights(value, info):
            return matrix(value, Place(info.field_name, **where(info)), D, d)

        def bias(value, info):
            return None if value is None else vector(value, Place(info.field_name, **where(info)),
                                                     d)

        weight = checked(weights, array(array(Finite, d), D),
                         "d_model × d_k (W_Q, W_K) or d_model × d_v (W_V), every row the same "
                         "length; d_model rows, as X has columns")
        biases = {
            "b_Q": (checked(bias, array(Finite, d) | None, "d_k numbers added to every row of "
                            "X·W_Q (before RoPE turns it); default none"), None),
            "b_K": (checked(bias, array(Finite, d) | None, "d_k numbers added to every row of "
                            "X_kv·W_K (X·W_K without X_kv; before RoPE); default none"), None),
            "b_V": (checked(bias, array(Finite, d) | None, "d_v numbers added to every row of "
                            "X_kv·W_V (X·W_V without X_kv); default none"), None),
        }
        if variant is not None and not variant.biases:
            biases = {k: retyped(v, None, "none: no biases here") for k, v in biases.items()}
        head = create_model(
            f"{heads_prefix}Head", __base__=Declared,
            __doc__="A query head: W_Q, W_K and W_V of its own, "
            "and its biases.", **dict.fromkeys(PROJECTIONS, (weight, ...)), **biases)
        query_head = create_model(
            f"{heads_prefix}QueryHead", __base__=Declared,
            __doc__="A query head of grouped-query heads: W_Q "
            "and b_Q; its keys and values are its key/value head's.",
            W_Q=(weight, ...), b_Q=biases["b_Q"])
        kv_head = create_model(
            f"{heads_prefix}KVHead", __base__=Declared,
            __doc__="A key/value head, shared by H/G consecutive "
            "query heads.", W_K=(weight, ...), W_V=(weight, ...), b_K=biases["b_K"],
            b_V=biases["b_V"])

        def heads_of(model, name, owner, needs, key):
            def check(value, info):
                objects(value, name, owner, needs, H)
                return tuple(_arrays(_validated(model, obj, {key: k}, f"{owner} {k + 1}"))
                             for k, obj in enumerate(value))
            return check

        X = checked(lambda v, info: matrix(v, "X", n, D), array(array(Finite, D), n),
                    "n × d_model: one row per query token, every row the same length")
        W_O = checked(lambda v, info: matrix(v, "W_O", d * H, d_out),
                      array(array(Finite, d_out), d * H),
                      "(sum of the heads' d_v) × d_out, every row the same length")
        several = checked(heads_of(head, "heads", "Head", "W_Q, W_K and W_V", "head"),
                          array(head, H), "each head's W_Q, W_K and W_V, of d_model rows; "
                          "their d_v add up to W_O's rows")
        grouped = checked(heads_of(query_head, "heads", "Head", "W_Q, W_K and W_V", "head"),
                          array(query_head, H), "each head's W_Q (and b_Q)")
        kv_heads = checked(heads_of(kv_head, "kv_heads", "Key/value head", "W_K and W_V",
                                    "kv_head"), array(kv_head, H),
                           "G key/value heads (G divides the number of query heads H): query "
                           "head h reads key/value head ⌊h·G/H⌋; G = 1 is multi-query "
                           "attention. The heads then carry only W_Q and b_Q.")
        no_kv_heads = checked(lambda v, info: None, None, "none: each head has its own keys "
                              "and values")

        def tokens(value, info, name="tokens", rows_of="X", prefix="t"):
            rows = _rows(info, rows_of)
            if value is None or rows is None:
                return None
            return labels(value, name, rows, rows_of, limits.max_label, prefix)

        def tokens_kv(value, info):
            needed = NEEDS["tokens_kv"]
            if value is not None and needed in info.data and info.data[needed] is None:
                raise AttentionInputError(
                    "tokens_kv labels the rows of X_kv, and there is no X_kv", "tokens_kv")
            return tokens(value, info, "tokens_kv", "X_kv", "s")

        def positional(value, info):
            if value is not None and value not in POSITIONAL:
                raise AttentionInputError(
                    f"positional must be null, \"sinusoidal\", \"rope\" or \"alibi\", got "
                    f"{describe(value)}", "positional")
            return value

        def rope_base(value, info):
            _goes_with("rope_base", value, info)
            if value is not None and number(value, "rope_base") <= 0:
                raise AttentionInputError(
                    f"rope_base (θ) must be a positive number, got {describe(value)}",
                    "rope_base")
            return value

        def position_offset(value, info):
            _goes_with("position_offset", value, info)
            return whole(value, "position_offset", 0, far, "the position of the first token")

        def slopes(value, info):
            _goes_with("alibi_slopes", value, info)
            if value is None:
                return None
            given, heads = vector(value, "alibi_slopes", H), _heads_count(info)
            if heads is not None and len(given) != heads:
                raise AttentionInputError(
                    f"alibi_slopes has {counted(len(given), 'slope')} but the request has "
                    f"{counted(heads, 'head')}; give one slope per head", "alibi_slopes")
            for c, slope in enumerate(given):
                if slope < 0:
                    raise AttentionInputError(
                        f"{NAME} is {slope:g}; a slope must be 0 or more (the bias "
                        "−slope·|i − j| must push far keys down, not up)", "alibi_slopes",
                        head=c)
            return given

        def mask(value, info):
            queries = _rows(info, "X")
            keys = queries if info.data.get("X_kv", ...) is None else _rows(info, "X_kv")
            if value is None or queries is None or keys is None:
                return None
            return bool_matrix(value, "mask", queries, keys, n)

        def window(value, info):
            return whole(value, "window", 1, far, "query i reads key j only when |i − j| < window")

        def sinks(value, info):
            return whole(value, "sinks", 0, far,
                         "the first keys, readable from every query whatever the window")

        def row(value, info):
            queries = _rows(info, "X")
            number = whole_number(value)
            if value is not None and queries is not None and (
                    number is None or not 0 <= number < queries):
                raise AttentionInputError(
                    f"row must be a whole number from 0 to {queries - 1} (0-based, queries 1 "
                    f"to {queries}), got {describe(value)}", "row")
            return value if number is None else number

        def fields(value, info):
            heads = info.data.get("heads")
            return fields_asked(value, 0 if heads is None else len(heads))

        labels_type = array(Annotated[str, Field(max_length=limits.max_label)], n)
        whole_type = Annotated[int, Field(ge=0, le=far)]
        rest = {
            "tokens": (checked(tokens, labels_type | None, "one label per row of X; t1 … tn"),
                       None),
            "X_kv": (checked(lambda v, info: None if v is None else matrix(v, "X_kv", n, D),
                             array(array(Finite, D), n) | None,
                             "m × d_model: cross-attention's keys, every row the same length, "
                             "as many columns as X"), None),
            "tokens_kv": (checked(tokens_kv, labels_type | None,
                                  "one per row of X_kv; needs X_kv"), None),
            "positional": (checked(positional, Literal[POSITIONAL] | None,
                                   "null (the default): no positions. sinusoidal: the original "
                                   "transformer's encodings added to X (and X_kv) before the "
                                   "projections. rope: after the projections and biases, each "
                                   "query and key at position p has its pairs (x[2c], x[2c+1]) "
                                   "turned by p·θ^(−2c/d_k) (interleaved, RoFormer); values are "
                                   "not turned; d_k must be even. alibi: −m_h·|i − j| added to "
                                   "each scaled score of head h, before the masks and the "
                                   "softmax"), None),
            "rope_base": (checked(rope_base, Annotated[float, Field(gt=0, le=F64_MAX)] | None,
                                  "θ of rope, a positive finite number (default 10000); only "
                                  "with rope"), None),
            "position_offset": (checked(position_offset, whole_type | None,
                                        "the position of query 0 and of key 0 (X_kv's too): "
                                        "query i is at offset + i, key j at offset + j (default "
                                        "0); only with sinusoidal or rope. Under rope the "
                                        "scores do not change with it, under sinusoidal they "
                                        "do"), None),
            "alibi_slopes": (checked(slopes, array(Annotated[float, Field(ge=0, le=F64_MAX)], H)
                                     | None, "m_h, one slope ≥ 0 per query head (1 for a "
                                     "single head); only with alibi. Default: the ALiBi paper's "
                                     "for H heads, 2^(−8(h+1)/H) for H a power of two (2^−8 "
                                     "for one head)"), None),
            "causal": (checked(causal, bool | None), None),
            "scale": (checked(finite_number, Finite | None,
                              "what the scores are multiplied by (default 1/√d_k); each score "
                              "times it must be a number float64 holds, else a 422 names "
                              "the score"), None),
            "mask": (checked(mask, array(array(bool, n), n) | None,
                             "n × m: true where query i may read key j, every row the same "
                             "length"), None),
            "window": (checked(window, Annotated[int, Field(ge=1, le=far)] | None,
                               "query i reads key j only when |i − j| < window (with causal: "
                               "the w = window most recent keys, query i's own included); "
                               "default none, every key"), None),
            "sinks": (checked(sinks, whole_type | None,
                              "keys 0 … sinks − 1 stay readable whatever the window (the causal "
                              "mask and mask still apply); default 0; without a window it "
                              "changes nothing"), None),
            "row": (checked(row, Annotated[int, Field(ge=0, le=n - 1)] | None,
                            "0-based query row (below n) whose working to return"), None),
            "fields": (checked(fields, fields_type(H),
                               "Keep only these parts: a name, working.<part>, heads.<part> "
                               "(every head) or heads[k].<part> (head k, below the number of "
                               "heads; both only with a heads list, else a 422). A matrix's "
                               "name may end in [:r] (its first r rows) or [:r,:c] (its "
                               "top-left r × c corner), fewer where the matrix is smaller; "
                               "each name once, whole or cut to a corner."),
                       None),
            "encoding": (checked(lambda v, info: encoding(v), Literal[ENCODINGS] | None,
                                 'How the answer writes its arrays: "json" (nested lists, the '
                                 'default) or "base64" (each an EncodedArray).'), None),
        }
        rest = {"X": (X, ...), **rest}
        prefix, extra = "", {}
        if variant is not None:
            rest = variant.fields(sizes, rest)
            prefix = variant.name
            if variant.after is not None:
                extra["__validators__"] = {"after": model_validator(mode="after")(
                    lambda body: variant.after(body) or body)}
        X = rest.pop("X")
        # A single head has no heads list, so fields names no heads.<part>.
        one_rest = rest if "fields" not in rest else {
            **rest, "fields": retyped(rest["fields"], fields_type(0))}
        self.forms = {
            "one head": create_model(
                f"{prefix}OneHeadRequest", __base__=OneHead, __doc__="One head: W_Q, W_K and "
                "W_V.", X=X, **dict.fromkeys(PROJECTIONS, (weight, ...)), **biases, **one_rest,
                **extra),
            "several heads": create_model(
                f"{prefix}SeveralHeadsRequest", __base__=SeveralHeads, __doc__="Several heads, "
                "each with its own W_Q, W_K and W_V, joined by W_O.", X=X,
                heads=(several, ...), kv_heads=(no_kv_heads, None), W_O=(W_O, ...), **rest,
                **extra),
            "grouped heads": create_model(
                f"{prefix}GroupedHeadsRequest", __base__=GroupedHeads, __doc__="Grouped-query "
                "heads: each query head's W_Q, the key/value heads they share, and W_O.",
                X=X, heads=(grouped, ...), kv_heads=(kv_heads, ...), W_O=(W_O, ...), **rest,
                **extra),
        }
        for model in self.forms.values():
            model.limits = limits
            model.listed = variant.listed if variant else None
        first = _request_object if variant is None else _body_first(variant, limits)
        self.adapter = TypeAdapter(Annotated[
            Union[tuple(Annotated[model, Tag(form)]  # noqa: UP007
                        for form, model in self.forms.items())],
            Discriminator(form_of), BeforeValidator(first)])

    def validate(self, payload):
        """The request's form, validated: a model of one of the three forms."""
        return validate(self.adapter, payload)

    def json_schema(self) -> dict:
        """{"AttentionRequest" (or the variant's "TilesRequest"): oneOf the forms, and each
        form and head model by name}."""
        forms = self.variant.forms if self.variant else FORMS
        adapter = self.adapter if forms == FORMS else TypeAdapter(Annotated[
            Union[tuple(Annotated[self.forms[form], Tag(form)]  # noqa: UP007
                        for form in forms)], Discriminator(form_of)])
        schema = json_schema(adapter)
        said = [FORMS_SAID[form] for form in forms]
        described = (f"{', '.join(said[:-1])} or {said[-1]}. Shapes must agree (W_Q has d_model "
                     "rows, W_K as many columns as W_Q, mask is n × m, tokens has n labels); "
                     "a mismatch is a 422.")
        if self.variant is not None:
            described = f"{self.variant.description} {described}"
        prefix = self.variant.name if self.variant else "Attention"
        return {f"{prefix}Request": {"oneOf": schema["oneOf"], "description": described},
                **schema["$defs"]}


def _body_first(variant: Variant, limits: Limits):
    """A variant's first checks: the body's own, then those of the request within it."""
    def first(payload):
        _request_object(variant.first(payload, limits))
        return payload
    return first


def _request_object(payload):
    """Every form's first checks: a JSON object, no field of no form, X present."""
    if not isinstance(payload, dict):
        raise AttentionInputError(
            f"The request must be a JSON object with X, W_Q, W_K and W_V, "
            f"got {describe(payload)}")
    check_keys(payload, FIELDS)
    require(payload, ("X",))
    return payload


def _validated(model, obj: dict, where_: dict, owner: str):
    return validate(model, obj, {"where": where_, "owner": owner})


def _arrays(model) -> dict:
    """A head's declared matrices and the biases it has, as the engine takes them."""
    return {k: v for k, v in model.__dict__.items() if v is not None}


class Form(Declared):
    """A form of the request, whose schema says which fields go together (said_together)."""

    model_config = ConfigDict(json_schema_extra=lambda schema, cls: said_together(schema))


class OneHead(Form):
    @classmethod
    def check_form(cls, payload, context):
        for name in ("W_O", "kv_heads"):
            if name in payload:
                raise AttentionInputError(
                    f"{name} goes with heads; a single head sent as W_Q, W_K and W_V has no "
                    f"{name}", name)


class SeveralHeads(Form):
    @classmethod
    def check_form(cls, payload, context):
        given = [p for p in (*PROJECTIONS, *BIASES) if p in payload]
        if given:
            raise AttentionInputError(
                f"Send either W_Q, W_K and W_V (one head) or heads with W_O, not both; this "
                f"request has heads and {', '.join(given)} (with heads, each head carries its "
                "own weights and biases)", given[0] if given[0] in BIASES else "heads")
        require(payload, ("W_O",))


class GroupedHeads(SeveralHeads):
    @classmethod
    def check_form(cls, payload, context):
        super().check_form(payload, context)
        most = cls.limits.max_heads
        heads = objects(payload["heads"], "heads", "Head", "W_Q, W_K and W_V", most)
        kv_heads = objects(payload["kv_heads"], "kv_heads", "Key/value head", "W_K and W_V",
                           most)
        H, G = len(heads), len(kv_heads)
        if H % G:
            raise AttentionInputError(
                f"kv_heads has {counted(G, 'key/value head')} but the request has "
                f"{counted(H, 'query head')}; the query heads "
                f"share them equally, so their number must divide {H} "
                f"({', '.join(str(g) for g in range(1, H + 1) if H % g == 0)})", "kv_heads")
        for h, head in enumerate(heads):
            for key in head:
                if key in KV_HEAD:
                    raise AttentionInputError(
                        f"Head {h + 1} has {key}, but with kv_heads a query head carries only "
                        f"W_Q and b_Q: query head {h + 1} reads the keys and values of "
                        f"key/value head {h * G // H + 1}", key, head=h)
