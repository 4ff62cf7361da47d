"""The page's names for the request's inputs, as its accessible names say them (from 1).

The engine names a matrix's or a bias's cell itself (``Place.spoken``: "W_Q head 2 row 1
column 3"), and the page's cells carry those names. What only the request and the page know
is spelt here: a token's label, an entry of ``fields``, one of the heads, ALiBi's slope of a
head. The HTTP API and the CLI spell every error this way (``page_message``).
"""

from __future__ import annotations

from attention_core.errors import AttentionInputError, Place

_LABELS = {"tokens": "Token", "tokens_kv": "Key token"}
_LISTS = {"heads": "Head", "kv_heads": "Key/value head", "fields": "Entry"}


def page_name(place: Place) -> str | None:
    """The input at ``place`` as the page names it.

    >>> page_name(Place("X", row=2, column=0)), page_name(Place("W_Q", head=1, row=0, column=0))
    ('X row 3 column 1', 'W_Q head 2 row 1 column 1')
    >>> page_name(Place("tokens", row=0)), page_name(Place("tokens_kv", row=1))
    ('Token 1 label', 'Key token 2 label')
    >>> page_name(Place("heads", row=1)), page_name(Place("fields", row=0))
    ('Head 2', 'Entry 1 of fields')
    >>> page_name(Place("alibi_slopes", head=0)), page_name(Place("b_Q", kv_head=None, column=1))
    ('ALiBi slope head 1', 'b_Q column 2')
    """
    if place.row is not None and place.column is None and place.head is None:
        if place.input in _LABELS:
            return f"{_LABELS[place.input]} {place.row + 1} label"
        if place.input in _LISTS:
            of = " of fields" if place.input == "fields" else ""
            return f"{_LISTS[place.input]} {place.row + 1}{of}"
    if place.input == "alibi_slopes" and place.head is not None:
        return f"ALiBi slope head {place.head + 1}"
    return place.spoken


def page_message(exc: AttentionInputError) -> str:
    """The error's sentence with its input named as the page names it."""
    return exc.spelt(page_name)
