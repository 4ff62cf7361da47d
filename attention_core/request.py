"""The request format shared by the HTTP API and the CLI: strict JSON parsing and validation.

Every problem becomes an AttentionInputError naming the field as the request
spells it (``"W_K[0][1]"``, 0-based) with a sentence that carries the numbers.
Sizes are checked before any array is built, so a huge request costs nothing.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

import numpy as np

from .errors import AttentionInputError

MATRICES = ("X", "W_Q", "W_K", "W_V")
FIELDS = ("tokens", *MATRICES, "causal", "scale", "mask", "row", "fields")

# What a response may hold, for the optional "fields" selection of a request.
RESPONSE_FIELDS = ("tokens", "d_k", "scale", "causal", "Q", "K", "V", "scores",
                   "scaled_scores", "mask", "weights", "output", "warnings", "working")
WORKING_FIELDS = ("row", "token", "q", "k", "v", "products", "dots", "scale", "scaled",
                  "allowed", "exp", "exp_sum", "exp_overflow", "shift", "exp_shifted",
                  "exp_shifted_sum", "weights", "terms", "z")


@dataclass(frozen=True)
class Limits:
    """Upper bounds on a request, so one request cannot exhaust a worker."""

    max_tokens: int = 512  # n; a 512×512 weight matrix is ~2 MB of float64
    max_dim: int = 256  # d_model, d_k and d_v each
    max_label: int = 64  # characters in one token label


@dataclass(frozen=True)
class AttentionRequest:
    """A validated request: float64 matrices and options ready for ``attention()``."""

    tokens: list[str]
    X: np.ndarray  # (n, d_model)
    W_Q: np.ndarray  # (d_model, d_k)
    W_K: np.ndarray  # (d_model, d_k)
    W_V: np.ndarray  # (d_model, d_v)
    causal: bool
    scale: float | None
    mask: np.ndarray | None  # (n, n) bool
    row: int | None
    fields: frozenset[str] | None  # None: every response field


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


def _describe(value) -> str:
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


def _number(value, field: str) -> float:
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
            f"{field} is {value.text}; every number must be finite and within "
            "float64's range (about ±1.8e308)", field)
    raise AttentionInputError(f"{field} must be a number, got {_describe(value)}", field)


def _table(value, name: str, max_rows: int, max_cols: int) -> list[list]:
    """Check that ``value`` is a rectangular, non-empty list of lists within limits."""
    if not isinstance(value, list):
        raise AttentionInputError(
            f"{name} must be a matrix (a list of rows), got {_describe(value)}", name)
    if not value:
        raise AttentionInputError(f"{name} is empty; it needs at least one row", name)
    if len(value) > max_rows:
        raise AttentionInputError(
            f"{name} has {len(value)} rows; at most {max_rows} are allowed", name)
    width = None
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise AttentionInputError(
                f"{name}[{i}] must be a row (a list of numbers), got {_describe(row)}",
                f"{name}[{i}]")
        if not row:
            raise AttentionInputError(f"{name}[{i}] is an empty row", f"{name}[{i}]")
        if len(row) > max_cols:
            raise AttentionInputError(
                f"{name}[{i}] has {len(row)} numbers; at most {max_cols} are allowed",
                f"{name}[{i}]")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise AttentionInputError(
                f"{name}[{i}] has {len(row)} numbers but {name}[0] has {width}; "
                "every row must be the same length", f"{name}[{i}]")
    return value


def _matrix(value, name: str, max_rows: int, max_cols: int) -> np.ndarray:
    rows = _table(value, name, max_rows, max_cols)
    # Fast path: plain numbers convert in C. Anything else (or an overflow) takes the
    # cell-by-cell path below, whose only job is to name the first bad cell.
    if all(type(v) is float or type(v) is int for row in rows for v in row):
        try:
            m = np.array(rows, dtype=np.float64)
        except OverflowError:
            m = None
        if m is not None and np.isfinite(m).all():
            return m
    return np.array([[_number(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)]
                     for i, row in enumerate(rows)], dtype=np.float64)


def _mask(value, n: int, limits: Limits) -> np.ndarray:
    rows = _table(value, "mask", limits.max_tokens, limits.max_tokens)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            if not isinstance(v, bool):
                raise AttentionInputError(
                    f"mask[{i}][{j}] must be true or false, got {_describe(v)}",
                    f"mask[{i}][{j}]")
    if len(rows) != n or len(rows[0]) != n:
        raise AttentionInputError(
            f"mask is {len(rows)}×{len(rows[0])} but there are {n} tokens; "
            f"it must be {n}×{n}", "mask")
    return np.array(rows, dtype=bool)


def _tokens(value, n: int, limits: Limits) -> list[str]:
    if value is None:
        return [f"t{i + 1}" for i in range(n)]
    if not isinstance(value, list):
        raise AttentionInputError(
            f"tokens must be a list of labels, got {_describe(value)}", "tokens")
    if len(value) != n:
        raise AttentionInputError(
            f"tokens has {len(value)} labels but X has {n} rows; "
            "give one label per row of X", "tokens")
    for i, label in enumerate(value):
        if not isinstance(label, str):
            raise AttentionInputError(
                f"tokens[{i}] must be text, got {_describe(label)}", f"tokens[{i}]")
        if len(label) > limits.max_label:
            raise AttentionInputError(
                f"tokens[{i}] is {len(label)} characters long; at most "
                f"{limits.max_label} are allowed", f"tokens[{i}]")
    return list(value)


def _check_keys(payload: dict) -> None:
    for key in payload:
        if key not in FIELDS:
            lowered = {f.lower(): f for f in FIELDS}
            guess = lowered.get(str(key).lower()) or next(
                iter(difflib.get_close_matches(str(key), FIELDS, n=1)), None)
            hint = f'; did you mean "{guess}"?' if guess else ""
            raise AttentionInputError(
                f'Unknown field "{key}"{hint} The fields are {", ".join(FIELDS)}.', key)
    for name in MATRICES:
        if name not in payload:
            raise AttentionInputError(f'The request needs the field "{name}"', name)


def parse_request(payload, limits: Limits = Limits()) -> AttentionRequest:
    """Validate a decoded request (see ``parse_json``) and build float64 arrays.

    Raises AttentionInputError naming the first offending field.
    """
    if not isinstance(payload, dict):
        raise AttentionInputError(
            f"The request must be a JSON object with X, W_Q, W_K and W_V, "
            f"got {_describe(payload)}")
    _check_keys(payload)
    X = _matrix(payload["X"], "X", limits.max_tokens, limits.max_dim)
    n = X.shape[0]  # tokens
    W = {name: _matrix(payload[name], name, limits.max_dim, limits.max_dim)
         for name in MATRICES[1:]}
    tokens = _tokens(payload.get("tokens"), n, limits)

    causal = payload.get("causal")
    if causal is None:
        causal = False
    elif not isinstance(causal, bool):
        raise AttentionInputError(f"causal must be true or false, got {_describe(causal)}",
                                  "causal")
    scale = payload.get("scale")
    if scale is not None:
        scale = _number(scale, "scale")
    mask = payload.get("mask")
    if mask is not None:
        mask = _mask(mask, n, limits)
    row = payload.get("row")
    if row is not None and (isinstance(row, bool) or not isinstance(row, int)
                            or not 0 <= row < n):
        raise AttentionInputError(
            f"row must be a whole number from 0 to {n - 1} (0-based), got {_describe(row)}",
            "row")
    return AttentionRequest(tokens=tokens, X=X, W_Q=W["W_Q"], W_K=W["W_K"], W_V=W["W_V"],
                            causal=causal, scale=scale, mask=mask, row=row,
                            fields=_fields(payload.get("fields")))


def _fields(value) -> frozenset[str] | None:
    """The response fields asked for: top-level names, or "working.<name>" for parts of it."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise AttentionInputError(
            f"fields must be a list of response field names, got {_describe(value)}", "fields")
    known = {*RESPONSE_FIELDS, *(f"working.{f}" for f in WORKING_FIELDS)}
    for i, name in enumerate(value):
        if name not in known:
            raise AttentionInputError(
                f"fields[{i}] is {_describe(name)}, which is not a response field; the "
                f"fields are {', '.join(RESPONSE_FIELDS)} and working.<part>", f"fields[{i}]")
    return frozenset(value)
