"""Every field of the answer of ``POST /api/attention``, described once.

``ANSWER`` lists the answer's own fields and ``WORKING`` the parts of a row's working; each
``Field`` gives a name, its shape in symbols, its kind, where it sits, the request variant
that adds it, the values it keeps, what the editor asks of it and its one-line description.
Everything else that must know the answer's fields is driven from these two tables:
request.py's names for ``fields`` (RESPONSE_FIELDS, CORNERED, WORKING_FIELDS, HEAD_FIELDS,
FIELD_NAMES), response.py's order of a head's and a working's parts, answer_size.py's count
of cells, answer.py's declarations (the OpenAPI document's answer schemas) and the page's
requests (pages.page_config's "answer", read by static/js/lib/config.js). Adding a field is
one row here, and its value in response.py.

Shapes are symbols: n queries, m keys, a head's d_k and d_v, d_model (X's columns),
"pairs" (d_k / 2, RoPE's pairs), "concat" (the heads' d_v summed), "d_out" (W_O's columns),
"*" (a list of any length). () is a single value.
"""

from __future__ import annotations

from dataclasses import dataclass

STRONGEST = 3  # keys per query in strongest_keys (response.strongest_keys)


@dataclass(frozen=True)
class Field:
    """One field of the answer, or one part of a row's working."""

    name: str
    shape: tuple[str, ...]  # () for a single value; symbols as in the module's docstring
    # "number" (float64), "int", "bool", "uint8", "text"; and the nested ones: "heads" (a list
    # of head answers), "working" (an object of WORKING's parts), "pairs" ([key j, weight]
    # lists of each query).
    kind: str = "number"
    # "answer": at the top level; "head": each head's (at the top level with a single head);
    # "heads": at the top level only with several heads (a heads list and W_O).
    where: str = "head"
    # The request's variants that must all be on for the answer to hold it: "X_kv",
    # "sinusoidal", "rope", "alibi", "kv_heads", "b_Q", "b_K", "b_V", "window", "sinks",
    # "row"; "named" when it is sent only if fields names it.
    when: tuple[str, ...] = ()
    # The values it keeps, where narrower than its kind's: "masked is null", "≥ 0",
    # "≥ 0 or null", "0 … 1", "−1 … 1", "≥ 1", "0 … n − 1", "1 … d_k", "0 … heads − 1".
    values: str = ""
    # What the editor's request (static/js/editor/results/results.js fieldsFor) asks of it: "ask"
    # whole, "corner" (its top-left SHOWN × SHOWN), "small" (whole, only when the scores
    # are printed), "heatmap" / "heatmap_big" (every head's map at or below TABLE_MAX
    # tokens, or beyond), "readout_big" (the shown head's, beyond TABLE_MAX), "every_head"
    # (of each head, with several); "" not asked. For the working: "ask" where the page's
    # working draws it (both pages'; /model's only of the variants a model has).
    page: str = ""
    about: str = ""  # one line for the OpenAPI document ("" for none)


F = Field
# The answer's fields, in the order of request.RESPONSE_FIELDS (the names a message about
# fields lists: those sent unasked first, then the "named" ones); a head's in the order
# response.head_body writes them.
ANSWER = (
    F("tokens", ("n",), "text", "answer", page="ask"),
    F("tokens_kv", ("m",), "text", "answer", ("X_kv",), page="ask"),
    F("positional_encoding", ("n", "d_model"), where="answer", when=("sinusoidal",),
      values="−1 … 1", page="corner", about="added to X; only with sinusoidal"),
    F("positional_encoding_kv", ("m", "d_model"), where="answer", when=("sinusoidal", "X_kv"),
      values="−1 … 1", page="corner", about="added to X_kv; only with sinusoidal and X_kv"),
    F("d_k", (), "int", values="1 … d_k", page="ask"),
    F("scale", (), page="ask"),
    F("causal", (), "bool", "answer", page="ask"),
    F("kv_head", (), "int", when=("kv_heads",), values="0 … heads − 1", page="every_head",
      about="the key/value head this query head reads (0-based); only with kv_heads"),
    F("Q", ("n", "d_k"), page="corner", about="X·W_Q + b_Q, turned by RoPE when on"),
    F("K", ("m", "d_k"), page="ask",
      about="X_kv·W_K + b_K (X without X_kv), turned by RoPE when on"),
    F("V", ("m", "d_v"), page="ask", about="X_kv·W_V + b_V (X without X_kv)"),
    F("Q_unrotated", ("n", "d_k"), when=("rope",), about="Q before RoPE; only with rope"),
    F("K_unrotated", ("m", "d_k"), when=("rope",), about="K before RoPE; only with rope"),
    F("scores", ("n", "m"), page="small"),
    F("scaled_scores", ("n", "m"), values="masked is null", page="small",
      about="scale·scores + ALiBi's bias; null where masked (−∞)"),
    F("bias", ("n", "m"), when=("alibi",), about="ALiBi's −slope·|i − j|; only with alibi"),
    F("alibi_slope", (), when=("alibi",), values="≥ 0", page="ask"),
    F("mask", ("n", "m"), "bool", page="ask",
      about="true where query i may read key j: causal AND mask AND (in the window OR a sink)"),
    F("weights", ("n", "m"), values="0 … 1", page="heatmap", about="rows sum to 1 or 0"),
    F("weights_u8", ("n", "m"), "uint8", when=("named",), page="heatmap_big",
      about="round(255 · weights); only when fields names it"),
    F("strongest_keys", ("n", "*"), "pairs", when=("named",), page="readout_big",
      about=f"per query, its (up to) {STRONGEST} permitted keys with the largest weights, "
            "largest first, equal weights in key order, as [key j, weight]; only when fields "
            "names it"),
    F("output", ("n", "d_v"), page="corner"),
    F("warnings", ("*",), "text"),
    F("working", (), "working", when=("row",)),
    F("heads", ("*",), "heads", "heads"),
    F("concat", ("n", "concat"), where="heads", page="corner"),
    # With several heads their combination's output and warnings sit beside heads.
    F("output", ("n", "d_out"), where="heads", page="corner"),
    F("warnings", ("*",), "text", "heads"),
)

# A row's working (attention_core.working.RowWorking), in the order response.working_body
# writes it; j runs over the m keys.
WORKING = (
    F("row", (), "int", values="0 … n − 1", page="ask"),
    F("token", (), "text", page="ask"),
    F("q", ("d_k",), page="ask"),
    F("k", ("m", "d_k")),
    F("v", ("m", "d_v")),
    F("products", ("m", "d_k")),
    F("dots", ("m",), page="ask"),
    F("scale", (), page="ask"),
    F("scaled", ("m",), values="masked is null", page="ask",
      about="scale·dots + ALiBi's bias; null where masked"),
    F("allowed", ("m",), "bool", page="ask"),
    F("exp", ("m",), values="≥ 0 or null", page="ask",
      about="e^scaled_j; null where it overflows float64"),
    F("exp_sum", (), values="≥ 0 or null", page="ask"),
    F("exp_overflow", (), "bool", page="ask"),
    F("shift", (), page="ask"),
    F("exp_shifted", ("m",), values="≥ 0", page="ask"),
    F("exp_shifted_sum", (), values="≥ 0", page="ask"),
    F("weights", ("m",), values="0 … 1", page="ask"),
    F("entropy", (), values="≥ 0", page="ask", about="nats"),
    F("jacobian_norm", (), values="≥ 0", page="ask"),
    F("terms", ("m", "d_v")),
    F("z", ("d_v",), page="ask"),
    # The steps of the newer variants, present only when theirs is on.
    F("q_unbiased", ("d_k",), when=("b_Q",), page="ask", about="x_i·W_Q, before b_Q"),
    F("b_Q", ("d_k",), when=("b_Q",), page="ask"),
    F("k_unbiased", ("m", "d_k"), when=("b_K",), page="ask", about="x_j·W_K, before b_K"),
    F("b_K", ("d_k",), when=("b_K",), page="ask"),
    F("v_unbiased", ("m", "d_v"), when=("b_V",), page="ask", about="x_j·W_V, before b_V"),
    F("b_V", ("d_v",), when=("b_V",), page="ask"),
    F("q_unrotated", ("d_k",), when=("rope",), page="ask", about="q_i before RoPE; q is after"),
    F("k_unrotated", ("m", "d_k"), when=("rope",), page="ask",
      about="the keys before RoPE; k is after"),
    F("position", (), "int", when=("rope",), values="≥ 0", page="ask", about="p_i"),
    F("positions_k", ("m",), "int", when=("rope",), values="≥ 0", page="ask"),
    F("frequencies", ("pairs",), when=("rope",), values="≥ 0", page="ask",
      about="θ^(−2c/d_k), radians per position of pair c"),
    F("angles", ("pairs",), when=("rope",), page="ask", about="p_i·frequencies"),
    F("angles_k", ("m", "pairs"), when=("rope",), page="ask",
      about="each key's p_j·frequencies"),
    F("bias", ("m",), when=("alibi",), page="ask",
      about="ALiBi's −slope·|i − j|, already in scaled"),
    F("alibi_slope", (), when=("alibi",), values="≥ 0", page="ask"),
    F("window", (), "int", when=("window",), values="≥ 1", page="ask"),
    F("in_window", ("m",), "bool", when=("window",), page="ask", about="|i − j| < window"),
    F("sinks", (), "int", when=("sinks",), values="≥ 1", page="ask"),
    F("sink", ("m",), "bool", when=("sinks",), page="ask", about="j < sinks"),
)
del F


def names(fields) -> tuple[str, ...]:
    """The fields' names in order, each once."""
    return tuple(dict.fromkeys(f.name for f in fields))


def placed(where: str) -> tuple[Field, ...]:
    """The answer's fields at ``where`` ("answer", "head" or "heads")."""
    return tuple(f for f in ANSWER if f.where == where)


HEAD = placed("head")  # one head's fields, as response.head_body writes them
WHOLE = placed("answer")  # the whole answer's, never under heads
SEVERAL = placed("heads")  # beside heads, with several heads only
# The whole answer's fields as response.response_body writes them: those always sent first.
WHOLE_SENT = tuple(sorted(WHOLE, key=lambda f: bool(f.when)))
# Sent only when fields names them (response.select derives them from weights).
NAMED = tuple(f for f in ANSWER if "named" in f.when)
# What a single head's answer holds whatever its request: no variant's fields, none sent only
# when named, no working (a row's), nothing of several heads'. The docs page lists them.
PLAIN = tuple(f for f in ANSWER if not f.when and f.where != "heads")
# The matrices a name of fields may take a corner of: a head's, then those beside heads,
# then the whole answer's (the order a message about corners lists them in).
CORNERED = names(f for group in (HEAD, SEVERAL, WHOLE) for f in group
                 if len(f.shape) == 2 and f.kind != "pairs")


def page_asks(fields) -> dict[str, list[str]]:
    """The names of ``fields`` the editor asks for, by how it asks (Field.page)."""
    out = {}
    for f in fields:
        if f.page and f.name not in out.get(f.page, ()):
            out.setdefault(f.page, []).append(f.name)
    return out


def page_config() -> dict:
    """What the pages ask of the answer, for the config block (pages.page_config): the
    editor's asks of the whole answer, of each head and beside the heads; the working's
    parts its working draws."""
    return {"whole": page_asks(WHOLE), "head": page_asks(HEAD), "beside": page_asks(SEVERAL),
            "working": page_asks(WORKING)["ask"]}
