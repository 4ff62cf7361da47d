"""Checking single values of a request: strict JSON, numbers, matrices, labels.

Each check raises AttentionInputError naming the field as the request spells it
(``"W_K[0][1]"``, ``"heads[1].W_V"``, 0-based) with a sentence that carries the value and
names the input as the page does ("W_K row 1 column 2", from 1: see ``page_name``).
"""

from __future__ import annotations

import difflib
import itertools
import json

import numpy as np

try:  # optional: the engine needs only numpy; orjson parses a large request ~5× faster
    import orjson
except ImportError:  # pragma: no cover - orjson is in requirements.txt
    orjson = None

from attention_core.errors import AttentionInputError, page_name


class JSONSyntaxError(ValueError):
    """The body is not JSON at all (as opposed to JSON with a bad value)."""


class _NonFinite:
    """Stands in for NaN, ±Infinity or an overflowing number until we know its field."""

    def __init__(self, text: str):
        self.text = text


def _parse_int(text: str):
    # Python refuses to convert integers longer than 4300 digits; anything over
    # ~309 digits overflows float64 anyway, so such a number is reported, not parsed.
    return int(text) if len(text) <= 400 else _NonFinite(text[:12] + "…")


def parse_json(body: bytes | str):
    """Parse strict JSON; NaN, Infinity and -Infinity come back as markers, not floats.

    A literal too large for float64 (1e999) parses as inf, which validation refuses;
    floats are parsed by the C scanner itself, as a hook per number costs ~2 µs each.

    Raises JSONSyntaxError for malformed or too deeply nested input.
    """
    if orjson is not None:
        # orjson refuses exactly what needs care (NaN and Infinity tokens, integers beyond
        # 64 bits, lone surrogates, deep nesting); those fall through to the parser below,
        # which accepts or explains them.
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(body, parse_int=_parse_int, parse_constant=_NonFinite)
    except RecursionError:
        raise JSONSyntaxError("The JSON is nested too deeply to be a request.") from None
    except UnicodeDecodeError as exc:
        raise JSONSyntaxError(f"The body is not UTF-8 text ({exc.reason}).") from None
    except json.JSONDecodeError as exc:
        raise JSONSyntaxError(
            f"The body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}."
        ) from None


def did_you_mean(name, choices) -> str:
    """'; did you mean "W_Q"?' for the closest of ``choices`` (case first), else '.'.

    >>> did_you_mean("W_q", ["X", "W_Q"]), did_you_mean("zzz", ["X"])
    ('; did you mean "W_Q"?', '.')
    """
    lowered = {c.lower(): c for c in choices}
    guess = lowered.get(str(name).lower()) or next(
        iter(difflib.get_close_matches(str(name), list(choices), n=1)), None)
    return f'; did you mean "{guess}"?' if guess else "."


def describe(value) -> str:
    if isinstance(value, _NonFinite):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:20] + "…"
        return f"the string {json.dumps(shown)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def number(value, field: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = float("inf")
        if np.isfinite(number):
            return number
        value = _NonFinite(f"{str(value)[:12]}…" if isinstance(value, int) else
                           "a number too large for float64, which reads as infinity")
    if isinstance(value, _NonFinite):
        raise AttentionInputError(
            f"{page_name(field)} is {value.text}; every number must be finite and within "
            "float64's range (about ±1.8e308)", field)
    raise AttentionInputError(f"{page_name(field)} must be a number, got {describe(value)}",
                              field)


def table(value, name: str, max_rows: int, max_cols: int) -> list[list]:
    """Check that ``value`` is a rectangular, non-empty list of lists within limits."""
    if not isinstance(value, list):
        raise AttentionInputError(
            f"{name} must be a matrix (a list of rows), got {describe(value)}", name)
    if not value:
        raise AttentionInputError(f"{name} is empty; it needs at least one row", name)
    if len(value) > max_rows:
        raise AttentionInputError(
            f"{name} has {len(value)} rows; at most {max_rows} are allowed", name)
    width = None
    for i, row in enumerate(value):
        field, said = f"{name}[{i}]", page_name(f"{name}[{i}]")  # "X[2]", "X row 3"
        if not isinstance(row, list):
            raise AttentionInputError(
                f"{said} must be a row (a list of numbers), got {describe(row)}", field)
        if not row:
            raise AttentionInputError(f"{said} is an empty row", field)
        if len(row) > max_cols:
            raise AttentionInputError(
                f"{said} has {len(row)} numbers; at most {max_cols} are allowed", field)
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise AttentionInputError(
                f"{said} has {len(row)} numbers but {page_name(name + '[0]')} has {width}; "
                "every row must be the same length", field)
    return value


_PLAIN_NUMBERS = {int, float}  # not bool, a subclass of int that JSON keeps apart


def matrix(value, name: str, max_rows: int, max_cols: int) -> np.ndarray:
    rows = table(value, name, max_rows, max_cols)
    # Fast path: plain numbers convert in C. Anything else (or an overflow) takes the
    # cell-by-cell path below, whose only job is to name the first bad cell.
    if set(map(type, itertools.chain.from_iterable(rows))) <= _PLAIN_NUMBERS:
        try:
            m = np.array(rows, dtype=np.float64)
        except OverflowError:
            m = None
        if m is not None and np.isfinite(m).all():
            return m
    return np.array([[number(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)]
                     for i, row in enumerate(rows)], dtype=np.float64)


def bool_matrix(value, name: str, rows: int, cols: int, max_size: int) -> np.ndarray:
    """A rows × cols matrix of true/false (a mask)."""
    checked = table(value, name, max_size, max_size)
    for i, row in enumerate(checked):
        for j, v in enumerate(row):
            if not isinstance(v, bool):
                raise AttentionInputError(
                    f"{page_name(f'{name}[{i}][{j}]')} must be true or false, got {describe(v)}",
                    f"{name}[{i}][{j}]")
    if len(checked) != rows or len(checked[0]) != cols:
        raise AttentionInputError(
            f"{name} is {len(checked)}×{len(checked[0])} but there are {rows} queries and "
            f"{cols} keys; it must be {rows}×{cols}", name)
    return np.array(checked, dtype=bool)


def labels(value, name: str, n: int, rows_of: str, max_label: int, prefix: str) -> list[str]:
    """One text label per row of ``rows_of``; absent labels default to prefix1 … prefixn."""
    if value is None:
        return [f"{prefix}{i + 1}" for i in range(n)]
    if not isinstance(value, list):
        raise AttentionInputError(f"{name} must be a list of labels, got {describe(value)}", name)
    if len(value) != n:
        raise AttentionInputError(
            f"{name} has {len(value)} labels but {rows_of} has {n} rows; "
            f"give one label per row of {rows_of}", name)
    for i, label in enumerate(value):
        if not isinstance(label, str):
            raise AttentionInputError(
                f"{page_name(f'{name}[{i}]')} must be text, got {describe(label)}",
                f"{name}[{i}]")
        if len(label) > max_label:
            raise AttentionInputError(
                f"{page_name(f'{name}[{i}]')} is {len(label)} characters long; at most "
                f"{max_label} are allowed", f"{name}[{i}]")
    return list(value)
