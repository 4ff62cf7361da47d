"""The real models' declarations check every field before the text is tokenized: a bad
causal, row, fields, encoding, a slide's what and format, the tiles' block_q and block_k and
an encoder asked for its cache are each a 422 naming the field and its value, with the
model's tokenize never called; only what needs the tokens (a row below them, the text's
length in tokens) is refused after it, in the words it always had."""

import pytest

from attention_api.declared import validate
from attention_api.real_models.declaration import model_request
from attention_core.errors import AttentionInputError
from attention_models import registry

FRANCE = "The capital of France is"  # 5 tokens for SmolLM2
SMOL = {"model": "smollm2-135m", "text": FRANCE, "layer": 0, "head": 0}
MINI = {"model": "minilm-l6", "text": "a cat", "layer": 0, "head": 0}  # 4 tokens: [CLS] … [SEP]
LONG = " ".join(["word"] * 200)  # 200 tokens and more: beyond any model's 128
TILES = {**SMOL, "row": 1, "block_q": 2, "block_k": 2}
ROW_127 = ("row must be a whole number from 0 to 127 (0-based: below the text's tokens; "
           "{model} takes at most 128), got {got}")


@pytest.fixture
def tokenized(monkeypatch):
    """The texts each model was asked to tokenize, in order."""
    asked = []
    for model_id in registry.MODEL_IDS:
        model = registry.get(model_id)

        def tokenize(text, _own=model.tokenize):
            asked.append(text)
            return _own(text)
        monkeypatch.setattr(model, "tokenize", tokenize)
    return asked


def post(client, route, body):
    r = client.post(route, json=body)
    assert r.status_code == 422, (r.status_code, r.get_data(as_text=True)[:300])
    return r.get_json()["error"]


@pytest.mark.parametrize(("route", "body", "field", "message"), [
    ("attention", {**SMOL, "causal": "yes"}, "causal",
     'causal must be true or false, got the string "yes"'),
    ("attention", {**MINI, "causal": 1}, "causal", "causal must be true or false, got 1"),
    ("attention", {**SMOL, "row": "2"}, "row",
     ROW_127.format(model="smollm2-135m", got='the string "2"')),
    ("attention", {**SMOL, "row": 128}, "row", ROW_127.format(model="smollm2-135m", got=128)),
    ("attention", {**MINI, "row": -1}, "row", ROW_127.format(model="minilm-l6", got=-1)),
    ("attention", {**MINI, "row": True}, "row", ROW_127.format(model="minilm-l6", got="true")),
    ("attention", {**SMOL, "fields": "X"}, "fields",
     'fields must be a list of response field names, got the string "X"'),
    ("attention", {**SMOL, "fields": ["weights", "heads"]}, "fields[1]",
     'Entry 2 of fields is the string "heads", which is not a response field; the fields are '
     "model, text, tokens, token_ids, words, layer, head, kv_head, causal, model_causal, "
     "counterfactual, positional, rope_base, X, W_Q, W_K, W_V, b_Q, b_K, b_V, d_k, scale, Q, "
     "K, V, Q_unrotated, K_unrotated, scores, scaled_scores, mask, weights, output, warnings, "
     "working, weights_u8, strongest_keys, next_tokens, overview, working.<part>"),
    ("attention", {**SMOL, "fields": ["working.q[:2]"]}, "fields[0]",
     'Entry 1 of fields is the string "working.q[:2]", but only a matrix may be cut to a '
     "corner: X, W_Q, W_K, W_V, Q, K, V, Q_unrotated, K_unrotated, scores, scaled_scores, "
     "mask, weights, weights_u8, output"),
    ("attention", {**SMOL, "encoding": "hex"}, "encoding",
     'encoding must be "json" (arrays as nested lists, the default) or "base64" (each array '
     'as its float64 bytes), got the string "hex"'),
    ("kv-cache", {**SMOL, "encoding": 2}, "encoding",
     'encoding must be "json" (arrays as nested lists, the default) or "base64" (each array '
     "as its float64 bytes), got 2"),
    ("kv-cache", MINI, "model", "minilm-l6 is an encoder: it reads the whole text at once and "
     "generates nothing, so it keeps no cache; choose a decoder"),
    ("slide", {**SMOL, "what": "table"}, "what",
     'what must be heatmap or working; got the string "table"'),
    ("slide", SMOL, "what", "what must be heatmap or working; got nothing"),
    ("slide", {**SMOL, "what": "heatmap", "format": "gif"}, "format",
     'format must be png or svg or typ; got the string "gif"'),
    ("slide", {**SMOL, "what": "working"}, "row",
     "row is missing: the query whose working to show, 0-based"),
    ("slide", {**SMOL, "what": "heatmap", "causal": "no"}, "causal",
     'causal must be true or false, got the string "no"'),
    ("tiles", {**TILES, "block_q": 0}, "block_q",
     "block_q must be a whole number of at least 1 (the query rows B_r of a tile), got 0"),
    ("tiles", {**TILES, "block_k": True}, "block_k",
     "block_k must be a whole number of at least 1 (the key columns B_c of a tile), got true"),
    ("tiles", {**TILES, "block_q": 1.5}, "block_q",
     "block_q must be a whole number of at least 1 (the query rows B_r of a tile), got 1.5"),
    ("tiles", {k: v for k, v in TILES.items() if k != "block_k"}, "block_k",
     "block_k is missing: the key columns B_c of a tile, 1 or more"),
    ("tiles", {**TILES, "row": None}, "row",
     "row is missing: the query (0-based) whose tiles to follow"),
    ("tiles", {k: v for k, v in TILES.items() if k != "row"}, "row",
     "row is missing: the query (0-based) whose tiles to follow"),
    ("tiles", {**TILES, "row": 200}, "row", ROW_127.format(model="smollm2-135m", got=200)),
])
def test_a_bad_field_is_refused_before_the_text_is_tokenized(client, tokenized, route, body,
                                                            field, message):
    for text in (body["text"], LONG):  # a text too long in tokens is not even looked at
        error = post(client, f"/api/model/{route}", {**body, "text": text})
        assert error == {"field": field, "message": message}
    assert tokenized == []


def test_the_fields_a_slide_or_tiles_do_not_take_are_refused_before_the_text_is_tokenized(
        client, tokenized):
    assert post(client, "/api/model/slide", {**SMOL, "what": "heatmap", "encoding": "json"}) \
        == {"field": "encoding", "message": "'encoding' is not a field of a slide's request; "
            "its fields are model, text, layer, head, row, causal, what and format"}
    # A tiles request writes no answer's arrays either, as POST /api/tiles does not.
    assert post(client, "/api/model/tiles", {**TILES, "fields": ["X"]}) == {
        "field": "fields", "message": "'fields' is not a field of a tiles request; its fields "
        "are model, text, layer, head, row, causal, block_q and block_k"}
    assert post(client, "/api/model/tiles", {**TILES, "colour": 1}) == {
        "field": "colour", "message": 'Unknown field "colour". The fields are model, text, '
        "layer, head, row, causal, fields, encoding."}
    assert tokenized == []


@pytest.mark.parametrize(("body", "field"), [
    ({"layer": 99, "row": "a", "causal": "x"}, "layer"),
    ({"row": "a", "causal": "x", "fields": 1, "encoding": 1}, "row"),
    ({"causal": "x", "fields": 1, "encoding": 1}, "causal"),
    ({"fields": 1, "encoding": 1}, "fields"),
])
def test_of_two_bad_fields_the_first_declared_is_named(client, tokenized, body, field):
    assert post(client, "/api/model/attention", {**SMOL, **body})["field"] == field
    assert tokenized == []


@pytest.mark.parametrize(("route", "body", "n"), [
    ("attention", {**MINI, "row": 4}, 4),
    ("kv-cache", {**SMOL, "text": "The cat sat", "row": 4}, 3),
    ("slide", {**MINI, "row": 4, "what": "working"}, 4),
    ("tiles", {**TILES, **MINI, "row": 4}, 4),
])
def test_a_row_beyond_the_texts_tokens_is_refused_once_it_is_tokenized(client, tokenized,
                                                                        route, body, n):
    assert post(client, f"/api/model/{route}", body) == {
        "field": "row", "message": f"row must be a whole number from 0 to {n - 1} (0-based: "
        f"the text makes {n} tokens), got 4"}
    assert tokenized == [body["text"]]


def test_a_text_too_long_in_tokens_is_refused_once_it_is_tokenized(client, tokenized):
    assert post(client, "/api/model/attention", {**MINI, "text": LONG, "row": 127}) == {
        "field": "text", "message": "text makes 202 tokens for minilm-l6, more than the 128 it "
        "takes here; shorten it"}
    assert tokenized == [LONG]


@pytest.mark.parametrize(("kind", "body", "field"), [
    ("Attention", {**SMOL, "causal": []}, "causal"),
    ("Slide", {**SMOL, "what": "heatmap", "format": "pdf"}, "format"),
    ("Tiles", {**TILES, "block_k": -2}, "block_k"),
    ("KVCache", MINI, "model"),
])
def test_the_declaration_alone_refuses_them(kind, body, field):
    with pytest.raises(AttentionInputError) as refused:
        validate(model_request(kind), body)
    assert refused.value.field == field


def test_the_declaration_gives_the_fields_as_the_answer_takes_them():
    r = validate(model_request("Attention"), {**SMOL, "row": 3, "fields": ["X[:2,:3]", "weights"],
                                              "encoding": "base64", "causal": False})
    assert (r.row, r.causal, r.encoding) == (3, False, "base64")
    assert r.fields == (frozenset({"X", "weights"}), {"X": (2, 3)})
    tiles = validate(model_request("Tiles"), TILES)
    assert (tiles.row, tiles.block_q, tiles.block_k) == (1, 2, 2)
    slide = validate(model_request("Slide"), {**SMOL, "what": "heatmap"})
    assert (slide.what, slide.format) == ("heatmap", "png")


def test_whole_numbers_sent_as_floats_are_those_numbers(client):
    """layer 1.0, head 2.0 and row 3.0 are layer 1, head 2 and row 3 (JSON Schema's integer
    takes them); 1.5 is refused, quoted."""
    asked = {**SMOL, "fields": ["layer", "head", "weights"]}
    as_floats = client.post("/api/model/attention",
                            json={**asked, "layer": 1.0, "head": 2.0, "row": 3.0})
    as_ints = client.post("/api/model/attention", json={**asked, "layer": 1, "head": 2, "row": 3})
    assert as_floats.status_code == as_ints.status_code == 200
    assert as_floats.get_json() == as_ints.get_json()
    assert post(client, "/api/model/attention", {**SMOL, "layer": 1.5}) == {
        "field": "layer", "message": "layer must be a whole number from 0 to 29 (0-based: "
                                     "smollm2-135m has 30 layers), got 1.5"}
