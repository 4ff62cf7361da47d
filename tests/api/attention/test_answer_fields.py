"""attention_api.attention.answer_fields: the one table of the answer's fields reaches every
place that must know them, so that adding a field is one row of the table (and its value in
response.py): the names fields accepts, the count of cells, the OpenAPI document, the page's
config block; and no script of the page types a list of them."""

import re
from pathlib import Path

import pytest

from app import create_app
from attention_api.attention import answer_fields
from attention_api.attention.answer_fields import ANSWER, HEAD, WORKING
from attention_api.attention.answer_size import answer_parts, leaves
from attention_api.attention.request import CORNERED, FIELD_NAMES, FIELDS, Limits, parse_request
from attention_api.pages.openapi import answer_schemas
from attention_api.pages.routes import answer_asks
from attention_api.real_models.request import ANSWER_FIELDS as MODEL_FIELDS
from attention_api.real_models.request import FIELDS as MODEL_REQUEST_FIELDS

ROOT = Path(__file__).resolve().parents[3]
X = [[1, 0], [0, 1], [1, 1]]
HEAD_W = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
W_O = [[1, 0], [0, 1], [0.5, -0.5], [0, 1]]
# Between them every variant is on: a field of the table is in one of their answers.
EVERY_VARIANT = [
    {"X": X, "heads": [{"W_Q": HEAD_W["W_Q"], "b_Q": [1, 0]}] * 2, "W_O": W_O,
     "kv_heads": [{"W_K": HEAD_W["W_K"], "W_V": HEAD_W["W_V"], "b_K": [0, 1], "b_V": [1, 1]}],
     "positional": "rope", "window": 1, "sinks": 1, "row": 1},
    {**HEAD_W, "X": X, "positional": "alibi", "row": 0,
     "fields": [*(f.name for f in ANSWER), *(f"working.{f.name}" for f in WORKING)]},
    {**HEAD_W, "X": X, "X_kv": X, "tokens_kv": ["a", "b", "c"], "positional": "sinusoidal"},
]


def test_every_field_is_a_name_fields_accepts():
    names = set(FIELD_NAMES)
    for f in ANSWER:
        assert f.name in names, f.name
        if f.where == "head":
            assert f"heads.{f.name}" in names, f.name
    for f in WORKING:
        assert f"working.{f.name}" in names and f"heads.working.{f.name}" in names, f.name
    assert {f.name for f in ANSWER if len(f.shape) == 2 and f.kind != "pairs"} == set(CORNERED)


def test_every_field_is_counted_by_answer_size():
    counted = set()
    for body in EVERY_VARIANT:
        counted |= {name.removeprefix("heads.") for name, _ in leaves(answer_parts(
            parse_request(body)))}
    # Labels and warnings hold no cells (TEXT): answer_size keeps them as None.
    cells = {f.name for f in ANSWER if f.kind not in ("text", "heads", "working")}
    assert cells <= counted, cells - counted
    parts = {f"working.{f.name}" for f in WORKING if f.kind != "text"}
    assert parts <= counted, parts - counted


@pytest.mark.parametrize("limits", [Limits(), Limits(max_tokens=8, max_dim=4, max_heads=2)])
def test_every_field_is_in_the_openapi_answer(limits):
    schemas = answer_schemas(limits)
    answer = schemas["AttentionAnswer"]["properties"]
    head = schemas["HeadAnswer"]["properties"]
    assert list(head) == list(answer_fields.names(HEAD))
    assert set(answer) == {f.name for f in ANSWER}
    assert list(schemas["Working"]["properties"]) == [f.name for f in WORKING]
    # Each field's description is the table's.
    for f in HEAD:
        if f.about:
            assert f.about in str(head[f.name]), f.name


def test_every_field_the_page_asks_is_in_the_config_block():
    with create_app({"TESTING": True}).test_request_context():
        asks = answer_asks()
    sent = {(where, f) for where in ("whole", "head", "beside")
            for names in asks[where].values() for f in names}
    table = {("whole" if f.where == "answer" else "beside" if f.where == "heads" else "head",
              f.name) for f in ANSWER if f.page}
    assert sent == table
    assert asks["working"] == [f.name for f in WORKING if f.page]


# An array literal of quoted words: ["tokens", "words"], ["working.q", …] or [`d_k`, …].
ARRAY = re.compile(r"\[([^\[\]]*)\]", re.S)
QUOTED = re.compile(r"""["'`](?:heads\.)?(?:working\.)?([A-Za-z_][A-Za-z0-9_]*)["'`]""")
ONE_HEAD = re.compile(r"heads\[[^\]\n]*\]")  # "heads[2]", `heads[${k}]`: read as "heads"
# A list of the answer's fields names three or more; a drawing that names the one or two it
# reads (the heatmap's export fetches weights and mask, a lesson compares q and dots) uses
# fields, it does not describe the answer.
LIST = 3


def typed_lists(text: str, names: set[str]) -> list[list[str]]:
    """The array literals of ``text`` that name LIST or more of ``names``."""
    found = []
    for m in ARRAY.finditer(ONE_HEAD.sub("heads", text)):
        named = [w for w in QUOTED.findall(m[1]) if w in names]
        if len(named) >= LIST:
            found.append(named)
    return found


# The answer's own names: not those a request shares with it (X, W_Q, causal, window …),
# whose lists in the page are of the request.
ANSWER_ONLY = ({f.name for f in (*ANSWER, *WORKING)} | set(MODEL_FIELDS)) - set(FIELDS) \
    - set(MODEL_REQUEST_FIELDS)


def test_the_check_for_typed_lists_finds_one():
    assert typed_lists('const W = ["row", "token",\n "q", "dots"].map(f);', ANSWER_ONLY) == [
        ["token", "q", "dots"]]
    assert typed_lists('["working.q", `heads[2].dots`, "heads.weights_u8"]', ANSWER_ONLY) == [
        ["q", "dots", "weights_u8"]]
    assert typed_lists('f(["K", "the keys k_j"]); ["C", "O"]; ["weights", "mask"]',
                       ANSWER_ONLY) == []


def test_no_script_of_the_page_types_a_list_of_the_answers_fields():
    found = {}
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        if "vendor" in path.parts:
            continue
        lists = typed_lists(path.read_text(), ANSWER_ONLY)
        if lists:
            found[str(path.relative_to(ROOT))] = lists
    assert found == {}
