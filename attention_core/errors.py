"""The one error type the engine raises for input a person must fix: where the input is
(which input, head or key/value head, row and column, 0-based) and the sentence that says
what is wrong. The request format's field ("heads[1].W_Q[0][2]") and the name in the
sentence ("W_Q head 2 row 1 column 3", from 1) are both derived from where, never read
back out of text."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

# Where a sentence names its input, filled from the Place. A control character: the
# request's own text (a label, a key) reaches a sentence only escaped, so never as this.
NAME = "\x00name\x00"
_KEY_SIDE = ("W_K", "W_V", "b_K", "b_V")  # a key/value head's own inputs
_HEAD_OWN = ("W_Q", "b_Q", *_KEY_SIDE)  # a head's own inputs (each head its own keys)
PER_HEAD = ("alibi_slopes",)  # one entry per head: the head is its index, not a prefix


@dataclass(frozen=True)
class Place:
    """Where an input is: its name as the request spells it ("W_Q", "X", "tokens",
    "scale"), the head (``heads[head]``) or key/value head (``kv_heads[kv_head]``) whose
    list holds it, and its row and column, all 0-based; None where not applicable. A
    vector (a bias) has a column and no row; a list of labels or heads has a row."""

    input: str | None = None
    head: int | None = None
    kv_head: int | None = None
    row: int | None = None
    column: int | None = None

    @property
    def field(self) -> str | None:
        """The request format's spelling, 0-based: "heads[1].W_Q[0][2]", "b_Q[1]", "scale"."""
        if self.input is None:
            return None
        if self.input in PER_HEAD and self.head is not None:
            return f"{self.input}[{self.head}]"
        prefix = (f"kv_heads[{self.kv_head}]." if self.kv_head is not None else
                  f"heads[{self.head}]." if self.head is not None else "")
        return prefix + self.input + "".join(f"[{i}]" for i in self._indices())

    @property
    def spoken(self) -> str | None:
        """The input as a sentence names it, from 1, as the page's cells are labelled: the
        first head's weights are plain "W_Q row 1 column 3", another's "W_Q head 2 row 1
        column 3", a shared one's "W_K key/value head 2 row 1 column 1"; a bias "b_Q column 2".
        """
        if self.input is None:
            return None
        parts = [self.input]
        if self.input in PER_HEAD and self.head is not None:  # its entries are the heads'
            parts.append(f"head {self.head + 1}")
        elif self.kv_head:  # the first (0) is the page's plain W_K
            parts.append(f"key/value head {self.kv_head + 1}")
        elif self.head:
            parts.append(f"head {self.head + 1}")
        parts += [f"row {self.row + 1}"] if self.row is not None else []
        parts += [f"column {self.column + 1}"] if self.column is not None else []
        return " ".join(parts)

    def _indices(self) -> list[int]:
        return [i for i in (self.row, self.column) if i is not None]


class AttentionInputError(ValueError):
    """Input that cannot be computed: where it is (``place``) and what is wrong (``text``).

    ``text`` is the sentence, with ``NAME`` where it names the input; ``step`` is the
    (head, key/value head) whose computation raised it, or None, and says so in front
    ("Head 2: …"). ``field`` is the request format's spelling of the place, e.g.
    ``"heads[1].W_Q[0][2]"`` (0-based), ``"tokens"`` or ``None`` when no single input is to
    blame. ``str(error)`` is a sentence a student can act on, naming the input from 1.

    >>> e = AttentionInputError(f"{NAME} is nan; every entry must be a finite number",
    ...                         "W_Q", row=0, column=2)
    >>> e.field, str(e)
    ('W_Q[0][2]', 'W_Q row 1 column 3 is nan; every entry must be a finite number')
    >>> h = e.in_head(1)
    >>> h.field, h.head, h.row, h.column
    ('heads[1].W_Q[0][2]', 1, 0, 2)
    >>> str(h)
    'Head 2: W_Q head 2 row 1 column 3 is nan; every entry must be a finite number'
    """

    def __init__(self, text: str, input: str | None = None, *, head: int | None = None,
                 kv_head: int | None = None, row: int | None = None,
                 column: int | None = None, step: tuple[int | None, int | None] | None = None):
        self.text = text
        self.parts = text.partition(NAME)[::2] if NAME in text else (text,)  # around the name
        self.place = Place(input, head, kv_head, row, column)
        self.step = step
        super().__init__(self.message)

    # The place's parts, as attributes: which input, head, key/value head, row, column.
    input = property(lambda self: self.place.input)
    head = property(lambda self: self.place.head)
    kv_head = property(lambda self: self.place.kv_head)
    row = property(lambda self: self.place.row)
    column = property(lambda self: self.place.column)
    field = property(lambda self: self.place.field)

    @property
    def message(self) -> str:
        """The sentence, the input named as the engine names it (``Place.spoken``)."""
        return self.spelt(lambda place: place.spoken)

    def spelt(self, name) -> str:
        """The sentence with the input named by ``name(place)`` and the head it arose in
        in front; attention_api passes the page's names."""
        who = f"{self.who}: " if self.step is not None else ""
        return who + (name(self.place) or "").join(self.parts)

    @property
    def who(self) -> str | None:
        """The head whose step raised the error, as the page numbers them (from 1)."""
        if self.step is None:
            return None
        h, g = self.step
        if g is not None and (self.kv_head is not None or h is None):
            if h is None:
                return f"Key/value head {g + 1}"
            return f"Head {h + 1} (reading key/value head {g + 1})"
        return f"Head {h + 1}"

    def in_head(self, head: int | None, kv_head: int | None = None) -> AttentionInputError:
        """This error as it arose in query head ``head``'s step (reading key/value head
        ``kv_head`` when heads share them; ``head`` None for a key/value head's own step):
        the head's own inputs move into its list, ALiBi's slope is the head's, any other
        input (scale, positional) keeps its place, and the sentence says the head. Which
        inputs every head shares, so no one head is named, multi_head_attention decides."""
        place = self.place
        if place.input in _KEY_SIDE and kv_head is not None:
            place = replace(place, kv_head=kv_head)
        elif place.input in _HEAD_OWN + PER_HEAD and head is not None:
            place = replace(place, head=head)
        return AttentionInputError(self.text, **asdict(place), step=(head, kv_head))


def counted(k: int, thing: str, things: str | None = None) -> str:
    """"1 head", "2 heads": a count for a message, its noun agreeing with it; ``things`` is
    a plural that is not ``thing`` + "s".

    >>> counted(1, "slope"), counted(3, "key/value head"), counted(2, "query", "queries")
    ('1 slope', '3 key/value heads', '2 queries')
    """
    return f"{k} {thing if k == 1 else things or thing + 's'}"
