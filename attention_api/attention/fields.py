"""The ``fields`` language of a request: which parts of the answer to send, and the
corner of a matrix ("Q[:16,:16]", "heads[1].weights[:8]"), as names the answer's table
(answer_fields) gives."""

from __future__ import annotations

import re

from attention_core.errors import NAME, AttentionInputError, counted

from ..values import describe
from . import answer_fields

# What a response may hold, for the optional "fields" selection of a request: the answer's
# fields (answer_fields.ANSWER), those sent only when named last (response.select).
RESPONSE_FIELDS = (*answer_fields.names(f for f in answer_fields.ANSWER
                                        if f not in answer_fields.NAMED),
                   *answer_fields.names(answer_fields.NAMED))
# The matrices a field name may take a corner of: "Q[:16,:16]", "heads[1].weights[:8]".
CORNERED = answer_fields.CORNERED
# The working's parts; those of a variant only when it is on (RowWorking).
WORKING_FIELDS = answer_fields.names(answer_fields.WORKING)
# The names "fields" accepts: a response field, a part of the working, and (as "heads.x"
# for every head, "heads[k].x" for head k) any of those that one head's answer holds.
WORKING_PARTS = tuple(f"working.{f}" for f in WORKING_FIELDS)
_SEVERAL_ONLY = {f.name for f in answer_fields.SEVERAL} - {f.name for f in answer_fields.ANSWER
                                                          if f.where != "heads"}
HEAD_FIELDS = (*(f for f in RESPONSE_FIELDS if f not in _SEVERAL_ONLY), *WORKING_PARTS)
FIELD_NAMES = (*RESPONSE_FIELDS, *WORKING_PARTS, *(f"heads.{f}" for f in HEAD_FIELDS))


def fields_asked(value, heads: int, known=None, listed=RESPONSE_FIELDS, cornered=CORNERED):
    """The response fields asked for, and the corners asked of them.

    A name is a top-level field, "working.<name>" for a part of the working, "heads.<name>"
    (and "heads.working.<name>") for a part of every head, or "heads[k].<name>" for a part
    of head k only (0-based; ``heads`` is how many there are, 0 for a single head sent as
    W_Q, W_K, W_V). A matrix's name may end in "[:r]" (its first r rows) or "[:r,:c]" (its
    top-left r × c corner), fewer where the matrix is smaller.

    Another endpoint's answer passes its own ``known`` names (all it accepts), ``listed``
    (the top-level ones its message lists) and ``cornered`` (its matrices).

    Returns (names without corners, {name: (r, c or None)}), or (None, {}) for every field.
    """
    known = _FIELD_NAMES if known is None else known
    if value is None:
        return None, {}
    if not isinstance(value, list):
        raise AttentionInputError(
            f"fields must be a list of response field names, got {describe(value)}", "fields")
    names, corners = [], {}
    for i, given in enumerate(value):
        said, where = NAME, {"row": i}  # "Entry 1 of fields", as the page names it
        name, corner = _corner(given) if isinstance(given, str) else (given, None)
        one = _ONE_HEAD.fullmatch(name) if isinstance(name, str) else None
        every = isinstance(name, str) and name.startswith("heads.") and name[6:] in _HEAD_FIELDS
        if (one and one[2] in _HEAD_FIELDS) or (every and not heads):
            # "heads.x" on a request without a heads list is refused as "heads[0].x" is.
            k = int(one[1]) if one else 0
            if k >= heads:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but the request has "
                    + (f"{counted(heads, 'head')}, so k in heads[k] runs from 0 to "
                       f"{heads - 1} (0-based, heads 1 to {heads})" if heads else
                       "no heads list (a single head sent as W_Q, W_K, W_V)"),
                    "fields", **where)
        # isinstance first: a list or object is unhashable.
        elif not isinstance(name, str) or name not in known:
            extra = ", heads.<field> and heads[k].<field>" if known is _FIELD_NAMES else ""
            raise AttentionInputError(
                f"{said} is {describe(given)}, which is not a response field; the "
                f"fields are {', '.join(listed)}, working.<part>{extra}",
                "fields", **where)
        if corner is not None:
            part = name.rsplit(".", 1)[-1]
            if part not in cornered or name.startswith("working.") or ".working." in name:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but only a matrix may be cut to a "
                    f"corner: {', '.join(cornered)}", "fields", **where)
            if name in corners or name in names:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but {name} is already asked for: "
                    "name each field once", "fields", **where)
            corners[name] = corner
        elif name in corners:
            raise AttentionInputError(
                f"{said} is {describe(given)}, but {name} is already asked for as a "
                "corner: name each field once", "fields", **where)
        names.append(name)
    return frozenset(names), corners


CORNER = r"\[:([1-9][0-9]{0,4})(?:, ?:([1-9][0-9]{0,4}))?\]"  # "[:16,:16]", "[:4]"; r, c ≥ 1
_CORNER = re.compile(r"(.+)" + CORNER)


def _corner(given: str) -> tuple[str, tuple[int, int | None] | None]:
    """("Q", (16, 16)) for "Q[:16,:16]", ("Q", (4, None)) for "Q[:4]", ("Q", None) for "Q"."""
    m = _CORNER.fullmatch(given)
    if not m:
        return given, None
    return m[1], (int(m[2]), None if m[3] is None else int(m[3]))


_HEAD_FIELDS, _FIELD_NAMES = frozenset(HEAD_FIELDS), frozenset(FIELD_NAMES)
_ONE_HEAD = re.compile(r"heads\[(0|[1-9][0-9]{0,2})\]\.(.+)")  # "heads[2].Q"


def fields_patterns(max_heads: int) -> tuple[str, str]:
    """What ``fields`` accepts beside FIELD_NAMES, as patterns: "heads[k].<part>" (that
    part of head k only, k below ``max_heads``) and a matrix's corner ("Q[:16,:16]",
    "heads.weights[:8]", "heads[1].Q[:4]"); with ``max_heads`` 0 (a single head, no heads
    list), no heads[k].<part> and no corner of a head's."""
    heads = "|".join(str(k) for k in range(max_heads))
    parts = "|".join(re.escape(f) for f in HEAD_FIELDS)
    matrices = "|".join(re.escape(f) for f in CORNERED if f != "concat")
    of_heads = rf"(heads\.|heads\[({heads})\]\.)?" if max_heads else ""
    return (rf"^heads\[({heads})\]\.({parts})$",
            rf"^(concat|{of_heads}({matrices})){CORNER}$")
