"""Checking single values of a request: strict JSON, numbers, matrices, labels.

Each check raises AttentionInputError naming the field as the request spells it
(``"W_K[0][1]"``, ``"heads[1].W_V"``, 0-based) with a sentence that carries the value and
names the input as the page does ("W_K row 1 column 2", from 1: see ``names.page_name``).
The input of each check is its ``Place`` (``"heads[1].W_V"`` is Place("W_V", head=1)), or the
name of a whole input ("X"), and the error's place is the cell within it.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import re
import secrets
from dataclasses import replace

import numpy as np
import orjson

from attention_core.errors import NAME, PER_HEAD, AttentionInputError, Place, counted

from .names import page_name

# How deeply [ and { may nest in a request body. A valid request nests at most 4 deep
# (heads[k].W_Q[i][j]); orjson's own limit differs between its versions (1024 in some),
# so the body is measured here first and orjson never sees a deeper one.
MAX_DEPTH = 64


class JSONSyntaxError(ValueError):
    """The body is not JSON at all (as opposed to JSON with a bad value)."""


class _NonFinite:
    """Stands in for NaN, ±Infinity or an overflowing number until we know its field."""

    def __init__(self, text: str):
        self.text = text


def parse_json(body: bytes | str):
    """Parse strict JSON with orjson; NaN, Infinity, -Infinity and numbers beyond float64
    (1e999) come back as markers, not floats, for validation to name their field.

    A lone UTF-16 surrogate escape ("\\ud800": half of a pair, with no other half) is
    JSON's grammar but no character: orjson refuses it, so it is marked too and comes back
    as that surrogate in its string (or key), for validation to refuse by field.

    Raises JSONSyntaxError for malformed input, input that is not UTF-8, or input nested
    more than MAX_DEPTH deep.
    """
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    # Fewer brackets than the limit cannot nest beyond it: most requests skip the count.
    opened = raw.count(b"[") + raw.count(b"{")
    depth = nesting_depth(raw) if opened > MAX_DEPTH else 0
    if depth > MAX_DEPTH:
        raise JSONSyntaxError(
            f"The JSON is nested too deeply to be a request: {depth} levels of [ and {{, "
            f"at most {MAX_DEPTH} are allowed (a request nests at most 4).")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        error = exc
    # orjson refuses exactly what needs care: each literal JSON does not allow, and each
    # lone surrogate, is replaced by a marker and the text parsed again, or the first error
    # is explained.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONSyntaxError(f"The body is not UTF-8 text ({exc.reason}).") from None
    marks = _Marks()
    marked = _TOKEN.sub(marks.mark, text)
    if marks.found or marks.lone:
        try:
            return marks.unmark(orjson.loads(marked))
        except orjson.JSONDecodeError as exc:
            error = exc
    pos = marks.position_in_text(error.pos)
    line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    raise JSONSyntaxError(
        f"The body is not valid JSON: {error.msg} at line {line} column {column}.") from None


# Every byte but those that open or close a string or a container.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_ESCAPE = re.compile(rb"\\.", re.DOTALL)


def nesting_depth(body: bytes) -> int:
    """How deeply [ and { nest in a JSON text; those inside strings do not count.

    Done in C and numpy (a 2 MB body in about a millisecond), so every request can be
    measured before any parser recurses into it.

    >>> nesting_depth(b'{"X": [[1, 0]], "tokens": ["[[[", "\\\\\\"["]}'), nesting_depth(b"1")
    (3, 0)
    """
    if b"\\" in body:  # an escaped quote does not end its string: drop every escape first
        body = _ESCAPE.sub(b"", body)
    marks = np.frombuffer(body.translate(None, _NOT_STRUCTURE), dtype=np.uint8)  # in order
    outside = np.cumsum(marks == ord('"')) % 2 == 0  # an even number of quotes so far
    brackets = marks[outside]
    opens = (brackets == ord("[")) | (brackets == ord("{"))
    closes = (brackets == ord("]")) | (brackets == ord("}"))
    depth = np.cumsum(opens, dtype=np.int64) - np.cumsum(closes, dtype=np.int64)
    return int(depth.max(initial=0))


# A JSON string, NaN, ±Infinity or a number: what may need a marker.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|-?[0-9][0-9.eE+-]*', re.DOTALL)
_TOO_LARGE = "a number too large for float64, which reads as infinity"
# Inside a string: a surrogate pair (kept), a lone half of one (marked), any other escape.
_ESCAPE_IN_STRING = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                               r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|\\.", re.DOTALL)


class _Marks:
    """What ``parse_json`` marked in a text: each NaN, ±Infinity and number beyond float64
    as a marker string (``found``: marker → _NonFinite), and each lone surrogate escape in a
    string as the ASCII run "<prefix>u<hex>;" (``lone``: how many). A marker carries a
    random prefix, so no string a client sends is one. ``shifts`` holds (position in the
    marked text, characters added there), to place an error in the text as sent."""

    def __init__(self):
        self.prefix = f"{secrets.token_hex(8)}:"
        self.found: dict[str, _NonFinite] = {}
        self.lone = 0
        self.shifts: list[tuple[int, int]] = []
        self._added = 0  # characters added so far, before the token being marked
        self._lone_run = re.compile(re.escape(self.prefix) + "u([0-9a-f]{4});")

    def _shift(self, at: int, added: int) -> None:
        """Record ``added`` characters at ``at`` in the text as sent."""
        self.shifts.append((at + self._added, added))
        self._added += added

    def mark(self, m: re.Match) -> str:
        token = m[0]
        if token[0] == '"':
            return self._mark_string(token, m.start()) if "\\u" in token else token
        if token not in ("NaN", "Infinity", "-Infinity"):
            try:
                if math.isfinite(float(token)):
                    return token
            except ValueError:  # not a number at all: orjson says where
                return token
            is_int = not any(c in token for c in ".eE")
            said = token[:12] + "…" if is_int else _TOO_LARGE
        else:
            said = token
        marker = f"{self.prefix}{len(self.found)}"
        self.found[marker] = _NonFinite(said)
        quoted = f'"{marker}"'
        self._shift(m.start(), len(quoted) - len(token))
        return quoted

    def _mark_string(self, token: str, start: int) -> str:
        def lone(e: re.Match) -> str:
            escape = e[0]
            if len(escape) != 6 or escape[1] != "u":  # a pair, or no surrogate at all
                return escape
            run = f"{self.prefix}u{escape[2:].lower()};"
            self._shift(start + e.start(), len(run) - len(escape))
            self.lone += 1
            return run
        return _ESCAPE_IN_STRING.sub(lone, token)

    def unmark(self, value):
        """``value`` with every marker replaced by what it stands for (keys included)."""
        if isinstance(value, str):
            if value in self.found:
                return self.found[value]
            if self.lone and self.prefix in value:
                return self._lone_run.sub(lambda r: chr(int(r[1], 16)), value)
            return value
        if isinstance(value, list):
            return [self.unmark(v) for v in value]
        if isinstance(value, dict):
            return {self.unmark(k): self.unmark(v) for k, v in value.items()}
        return value

    def position_in_text(self, pos: int) -> int:
        """A position in the marked text as a position in the text as sent."""
        return pos - sum(added for at, added in self.shifts if at < pos)


def did_you_mean(name, choices) -> str:
    """'; did you mean "W_Q"?' for the closest of ``choices`` (case first), else '.'.

    >>> did_you_mean("W_q", ["X", "W_Q"]), did_you_mean("zzz", ["X"])
    ('; did you mean "W_Q"?', '.')
    """
    lowered = {c.lower(): c for c in choices}
    guess = lowered.get(str(name).lower()) or next(
        iter(difflib.get_close_matches(str(name), list(choices), n=1)), None)
    return f'; did you mean "{guess}"?' if guess else "."


def check_keys(payload: dict, allowed, where: dict | None = None, owner: str = "") -> None:
    """Refuse a key not in ``allowed``; ``where`` is the head whose key it is ({"head": 0}
    for "heads[0]."), ``owner`` says so in the message ("Head 1 has an unknown field")."""
    for key in payload:
        if key not in allowed:
            # The field names the key whole; the sentence quotes its first 40 characters,
            # so a long key is not sent back twice over.
            hint, said = did_you_mean(key, allowed), quoted(key, 40)
            start = f"{owner} has an unknown field {said}" if owner else f"Unknown field {said}"
            raise AttentionInputError(
                f'{start}{hint} The fields are {", ".join(allowed)}.', printable(key),
                **(where or {}))


def json_object(payload, allowed=None) -> dict:
    """``payload``, a request's body, as a JSON object holding no field but ``allowed``
    (any, for None): every route's first check, in the same words."""
    if not isinstance(payload, dict):
        raise AttentionInputError(f"the body must be a JSON object; got {describe(payload)}", None)
    if allowed is not None:
        check_keys(payload, allowed)
    return payload


def printable(text: str) -> str:
    r"""``text`` with each lone UTF-16 surrogate written as its JSON escape, so an answer
    can echo it: UTF-8 (and so orjson, and a terminal) cannot hold one.

    >>> printable("c\ud800t"), printable("café")
    ('c\\ud800t', 'café')
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def quoted(text: str, limit: int = 20) -> str:
    r"""``text`` in double quotes for a message, its first ``limit`` characters then "…":
    non-ASCII as it is ("café"), control characters and lone surrogates as JSON escapes.

    >>> quoted("café"), quoted("a\nb"), quoted("abcdef", 3)
    ('"café"', '"a\\nb"', '"abc…"')
    """
    shown = text if len(text) <= limit else text[:limit] + "…"
    return printable(json.dumps(shown, ensure_ascii=False))


def whole_number(value) -> int | None:
    """``value`` as an int when it is a whole number, else None: an int (a bool is not one),
    or a float without a fraction, since JSON does not tell 2 from 2.0 and JSON Schema's
    "integer" takes both (a client's 2.0 is often a number that passed through a float).

    >>> whole_number(3), whole_number(3.0), whole_number(2.5), whole_number(True)
    (3, 3, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def describe(value) -> str:
    if isinstance(value, _NonFinite):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {quoted(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def where_of(at: Place) -> dict:
    """The error's keyword arguments for ``at``: a Place's own fields, copied without
    dataclasses.asdict's deep copy (which cost the default request a tenth of its time)."""
    return dict(vars(at))


def _place(at: Place | str) -> Place:
    """A check's input: a Place, or the name of a whole input ("X", "scale")."""
    return at if isinstance(at, Place) else Place(at)


def number(value, at: Place | str) -> float:
    """``value`` as a finite float64, or the error naming the cell ``at``."""
    at = _place(at)
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
            f"{NAME} is {value.text}; every number must be finite and within "
            "float64's range (about ±1.8e308)", **where_of(at))
    raise AttentionInputError(f"{NAME} must be a number, got {describe(value)}", **where_of(at))


def table(value, at: Place | str, max_rows: int, max_cols: int) -> list[list]:
    """Check that ``value`` is a rectangular, non-empty list of lists within limits."""
    at = _place(at)
    name = at.field  # the sentence names a whole input by its field
    if not isinstance(value, list):
        raise AttentionInputError(
            f"{name} must be a matrix (a list of rows), got {describe(value)}", **where_of(at))
    if not value:
        raise AttentionInputError(f"{name} is empty; it needs at least one row", **where_of(at))
    if len(value) > max_rows:
        raise AttentionInputError(
            f"{name} has {counted(len(value), 'row')}; at most {max_rows} are allowed",
            **where_of(at))
    width = len(value[0]) if isinstance(value[0], list) else None
    for i, row in enumerate(value):
        if not isinstance(row, list) or not row or len(row) > max_cols or len(row) != width:
            _bad_row(row, replace(at, row=i), max_cols, width)
    return value


def _bad_row(row, at: Place, max_cols: int, width: int | None):
    """Raise the error for a row ``table`` refused, ``at`` its place ("X row 3")."""
    where = where_of(at)
    if not isinstance(row, list):
        raise AttentionInputError(
            f"{NAME} must be a row (a list of numbers), got {describe(row)}", **where)
    if not row:
        raise AttentionInputError(f"{NAME} is an empty row", **where)
    if len(row) > max_cols:
        raise AttentionInputError(
            f"{NAME} has {counted(len(row), 'number')}; at most {max_cols} are allowed", **where)
    first = page_name(replace(at, row=0))
    raise AttentionInputError(
        f"{NAME} has {counted(len(row), 'number')} but {first} has {width}; "
        "every row must be the same length", **where)


_PLAIN_NUMBERS = {int, float}  # not bool, a subclass of int that JSON keeps apart


def matrix(value, at: Place | str, max_rows: int, max_cols: int) -> np.ndarray:
    at = _place(at)
    rows = table(value, at, max_rows, max_cols)
    # Fast path: plain numbers convert in C. Anything else (or an overflow) takes the
    # cell-by-cell path below, whose only job is to name the first bad cell.
    if set(map(type, itertools.chain.from_iterable(rows))) <= _PLAIN_NUMBERS:
        try:
            m = np.array(rows, dtype=np.float64)
        except OverflowError:
            m = None
        if m is not None and np.isfinite(m).all():
            return m
    return np.array([[number(v, replace(at, row=i, column=j)) for j, v in enumerate(row)]
                     for i, row in enumerate(rows)], dtype=np.float64)


def vector(value, at: Place | str, max_len: int) -> np.ndarray:
    """A non-empty list of at most ``max_len`` finite numbers (a bias, ALiBi's slopes):
    entry c of a bias is its column c, of ALiBi's slopes head c's."""
    at = _place(at)
    if not isinstance(value, list):
        raise AttentionInputError(
            f"{at.field} must be a list of numbers, got {describe(value)}", **where_of(at))
    if not value or len(value) > max_len:
        raise AttentionInputError(
            f"{at.field} has {counted(len(value), 'number')}; it needs 1 to {max_len}",
            **where_of(at))
    entry = (lambda c: replace(at, head=c)) if at.input in PER_HEAD else \
        (lambda c: replace(at, column=c))
    return np.array([number(v, entry(c)) for c, v in enumerate(value)], dtype=np.float64)


def bool_matrix(value, name: str, rows: int, cols: int, max_size: int) -> np.ndarray:
    """A rows × cols matrix of true/false (a mask)."""
    checked = table(value, name, max_size, max_size)
    for i, row in enumerate(checked):
        for j, v in enumerate(row):
            if not isinstance(v, bool):
                raise AttentionInputError(f"{NAME} must be true or false, got {describe(v)}",
                                          name, row=i, column=j)
    if len(checked) != rows or len(checked[0]) != cols:
        raise AttentionInputError(
            f"{name} is {len(checked)}×{len(checked[0])}; with {counted(rows, 'query', 'queries')} "
            f"and {counted(cols, 'key')} it must be {rows}×{cols}", name)
    return np.array(checked, dtype=bool)


_SURROGATE = re.compile("[\ud800-\udfff]")  # in a str, only a lone one: pairs are decoded


def labels(value, name: str, n: int, rows_of: str, max_label: int, prefix: str) -> list[str]:
    """One text label per row of ``rows_of``; absent labels default to prefix1 … prefixn."""
    if value is None:
        return [f"{prefix}{i + 1}" for i in range(n)]
    if not isinstance(value, list):
        raise AttentionInputError(f"{name} must be a list of labels, got {describe(value)}", name)
    if len(value) != n:
        raise AttentionInputError(
            f"{name} has {counted(len(value), 'label')} but {rows_of} has {counted(n, 'row')}; "
            f"give one label per row of {rows_of}", name)
    for i, label in enumerate(value):
        if not isinstance(label, str):
            raise AttentionInputError(f"{NAME} must be text, got {describe(label)}", name, row=i)
        lone = _SURROGATE.search(label)
        if lone:  # its place and escape: the quoted label may stop before it
            raise AttentionInputError(
                f"{NAME} is {quoted(label)}: its character "
                f"{lone.start() + 1}, {printable(lone[0])}, is a lone UTF-16 surrogate (half "
                "of a pair, with no other half), which no text can hold", name, row=i)
        if len(label) > max_label:
            raise AttentionInputError(
                f"{NAME} is {counted(len(label), 'character')} long; at most "
                f"{max_label} are allowed", name, row=i)
    return list(value)
