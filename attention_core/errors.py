"""The one error type the engine raises for input a person must fix, and how to name an input."""

import re


class AttentionInputError(ValueError):
    """Input that cannot be computed, with the field it concerns.

    ``field`` names the offending input the way the request format spells it,
    e.g. ``"W_Q[1][0]"`` (0-based indices), ``"tokens"`` or ``None`` when no
    single field is to blame. ``str(error)`` is a sentence a student can act on,
    naming inputs as the page does (``page_name``), from 1.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


def counted(k: int, thing: str) -> str:
    """"1 head", "2 heads": a count for a message.

    >>> counted(1, "slope"), counted(3, "key/value head")
    ('1 slope', '3 key/value heads')
    """
    return f"{k} {thing}{'' if k == 1 else 's'}"


# "X[2][0]", "heads[1].W_Q[0][2]", "kv_heads[1].b_K[0]", "tokens[0]", "heads[1]", "scale"
_FIELD = re.compile(
    r"(?:(heads|kv_heads)\[(\d+)\]\.)?([A-Za-z_]+)(?:\[(\d+)\])?(?:\[(\d+)\])?")
_LABELS = {"tokens": "Token", "tokens_kv": "Key token"}
_LISTS = {"heads": "Head", "kv_heads": "Key/value head", "fields": "Entry"}
_BIASES = ("b_Q", "b_K", "b_V")  # vectors: their one index is a column


def page_name(field: str) -> str:
    """The input a field names, as the page's accessible names say it (numbered from 1).

    The first head's weights are the page's plain W_Q, W_K and W_V; the others say their head
    (a shared key/value head says so). A bias is a row: its one index is a column.

    >>> page_name("X[2][0]"), page_name("heads[1].W_Q[0][0]"), page_name("heads[0].W_Q[0][0]")
    ('X row 3 column 1', 'W_Q head 2 row 1 column 1', 'W_Q row 1 column 1')
    >>> page_name("tokens[0]"), page_name("tokens_kv[1]"), page_name("heads[1]"), page_name("scale")
    ('Token 1 label', 'Key token 2 label', 'Head 2', 'scale')
    >>> page_name("b_Q[1]"), page_name("heads[1].b_Q[0]"), page_name("kv_heads[1].W_K[0][1]")
    ('b_Q column 2', 'b_Q head 2 column 1', 'W_K key/value head 2 row 1 column 2')
    >>> page_name("kv_heads[0].b_K[2]"), page_name("kv_heads[2]"), page_name("alibi_slopes[0]")
    ('b_K column 3', 'Key/value head 3', 'ALiBi slope head 1')
    """
    m = _FIELD.fullmatch(field)
    if not m:
        return field
    group, head, name, row, col = m.groups()
    if head is None and col is None and row is not None:
        if name in _LABELS:
            return f"{_LABELS[name]} {int(row) + 1} label"
        if name in _LISTS:
            return f"{_LISTS[name]} {int(row) + 1}" + (" of fields" if name == "fields" else "")
        if name == "alibi_slopes":
            return f"ALiBi slope head {int(row) + 1}"
    if name in _BIASES and col is None:
        row, col = None, row
    parts = [name]
    if head not in (None, "0"):
        parts.append(f"{'key/value ' if group == 'kv_heads' else ''}head {int(head) + 1}")
    parts += [f"row {int(row) + 1}"] if row is not None else []
    parts += [f"column {int(col) + 1}"] if col is not None else []
    return " ".join(parts)
