"""GET /api/models and POST /api/model/attention on the two real models: the contract of
every answer, its numbers against numpy written here from the answer's own inputs, the
cache of runs per (model, text), fields and base64, and a 422 naming the field for every
bad value."""

import base64
import json
import math
import re
from pathlib import Path

import jsonschema_rs
import numpy as np
import pytest

from app import create_app
from attention_models import registry
from tests.api.helpers import decode, docs_requests, guide_requests, strict_loads
from tests.numbers import colours_near, printed_near

ROOT = Path(__file__).resolve().parents[3]
FRANCE = "The capital of France is"


@pytest.fixture(scope="module")
def app():
    return create_app({"TESTING": True})


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/api/openapi.json").get_json()


def ask(client, **body):
    return client.post("/api/model/attention", data=json.dumps(body),
                       content_type="application/json")


def answer(client, **body):
    r = ask(client, **body)
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "application/json"
    return strict_loads(r.get_data(as_text=True))


def validates(spec, name, body):
    jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}
    ).validate(body)


def softmax(scores):
    """Row-wise softmax with −∞ for masked keys (every row here keeps its own key)."""
    out = np.exp(scores - scores.max(axis=1, keepdims=True))
    return out / out.sum(axis=1, keepdims=True)


def rotate(M, theta):
    """RoPE written out: row p's pairs (2c, 2c + 1) turned by p·θ^(−2c/d)."""
    n, d = M.shape
    out = M.copy()
    for p in range(n):
        for c in range(d // 2):
            a = p * theta ** (-2 * c / d)
            x, y = M[p, 2 * c], M[p, 2 * c + 1]
            out[p, 2 * c], out[p, 2 * c + 1] = (x * math.cos(a) - y * math.sin(a),
                                                x * math.sin(a) + y * math.cos(a))
    return out


def reference(body):
    """Q, K, V, the weights and the output of a head, from the answer's own X and weights."""
    X = np.array(body["X"])
    Q, K, V = (X @ np.array(body[w]) + np.array(body.get(b, 0.0))
               for w, b in (("W_Q", "b_Q"), ("W_K", "b_K"), ("W_V", "b_V")))
    if body["positional"] == "rope":
        Q, K = rotate(Q, body["rope_base"]), rotate(K, body["rope_base"])
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    if body["causal"]:
        scores[np.triu_indices(len(X), 1)] = -np.inf
    A = softmax(scores)
    return Q, K, V, A, A @ V


def pinned():
    """requirements-models.txt's pins: {package: version}."""
    text = (ROOT / "requirements-models.txt").read_text()
    return dict(re.findall(r"^([a-z0-9-]+)==([0-9.]+)", text, re.M))


# ---- GET /api/models ------------------------------------------------------------------

def test_the_models_are_described_as_their_files_and_pins_say(client, spec):
    r = client.get("/api/models")
    assert r.status_code == 200
    body = r.get_json()
    validates(spec, "Models", body)
    smol, mini = body["models"]
    assert {k: smol[k] for k in ("id", "kind", "layers", "heads", "kv_heads", "d_model",
                                 "d_head", "positional", "rope_base", "causal")} == {
        "id": "smollm2-135m", "kind": "decoder", "layers": 30, "heads": 9, "kv_heads": 3,
        "d_model": 576, "d_head": 64, "positional": "rope", "rope_base": 100000.0,
        "causal": True}
    assert {k: mini[k] for k in ("id", "kind", "layers", "heads", "kv_heads", "d_model",
                                 "d_head", "positional", "causal")} == {
        "id": "minilm-l6", "kind": "encoder", "layers": 6, "heads": 12, "kv_heads": 12,
        "d_model": 384, "d_head": 32, "positional": "learned", "causal": False}
    assert "rope_base" not in mini
    pins = pinned()
    for model in (smol, mini):
        assert model["max_tokens"] >= 128
        assert model["licence"] == "Apache-2.0"
        assert pins[model["source"]["package"]] == model["source"]["version"]
        assert model["source"]["url"].startswith("https://huggingface.co/")
    assert smol["source"]["format"].startswith("GGUF") and "Q4_1" in smol["source"]["format"]
    assert mini["source"]["format"].startswith("safetensors")


# ---- one head: its numbers ------------------------------------------------------------

def test_a_smollm2_head_is_its_rotated_causal_attention(client, spec):
    body = answer(client, model="smollm2-135m", text=FRANCE, layer=3, head=5, row=4)
    validates(spec, "ModelAttentionAnswer", body)
    n = len(body["tokens"])
    assert body["tokens"] == ["The", "␣capital", "␣of", "␣France", "␣is"]
    assert len(body["token_ids"]) == n
    assert [w["tokens"] for w in body["words"]] == [[0], [1], [2], [3], [4]]
    assert (body["layer"], body["head"], body["kv_head"]) == (3, 5, 1)  # 5 // 3
    assert body["causal"] is body["model_causal"] is True and body["counterfactual"] is False
    assert np.shape(body["X"]) == (n, 576) and np.shape(body["W_Q"]) == (576, 64)
    assert "b_Q" not in body and body["scale"] == 0.125
    Q, K, V, A, Z = reference(body)
    np.testing.assert_allclose(body["Q"], Q, atol=1e-9)
    np.testing.assert_allclose(body["K"], K, atol=1e-9)
    np.testing.assert_allclose(body["weights"], A, atol=1e-12)
    np.testing.assert_allclose(body["output"], Z, atol=1e-12)
    assert np.triu(np.array(body["weights"]), 1).max() == 0
    working = body["working"]
    assert working["row"] == 4 and working["token"] == "␣is"
    np.testing.assert_allclose(working["weights"], A[4], atol=1e-12)
    np.testing.assert_allclose(working["z"], Z[4], atol=1e-12)


def test_the_next_tokens_are_the_ten_most_likely_and_paris_comes_first(client):
    body = answer(client, model="smollm2-135m", text=FRANCE, layer=0, head=0,
                  fields=["next_tokens"])
    assert list(body) == ["next_tokens"]
    top = body["next_tokens"]
    assert len(top) == 10 and top[0]["text"] == " Paris"
    p = [t["probability"] for t in top]
    assert p == sorted(p, reverse=True) and 0 < sum(p) <= 1 + 1e-12
    assert len({t["id"] for t in top}) == 10


def tokens_of(client, model, text):
    """The token ids the server reads in ``text`` (its answer's token_ids)."""
    return answer(client, model=model, text=text, layer=0, head=0, fields=["token_ids"])[
        "token_ids"]


def test_a_control_token_is_offered_as_what_it_is_and_not_as_text(client, spec):
    # After a full sentence SmolLM2 ends its turn with 5 %: <|im_end|>, id 2, a control token.
    text = "The capital of France is Paris."
    body = answer(client, model="smollm2-135m", text=text, layer=0, head=0,
                  fields=["token_ids", "next_tokens"])
    validates(spec, "ModelAttentionAnswer", body)
    end = next(t for t in body["next_tokens"] if t["id"] == 2)
    assert end["text"] == "<|im_end|>" and 0.04 < end["probability"] < 0.07
    assert end["kind"] == "control" and end["name"] == "end of turn"
    assert end["appendable"] is False
    assert end["reason"] == ("a control token, the model's own mark, which no typed text "
                             "makes: typed, “<|im_end|>” is read as ordinary characters")
    # Typed, its characters are ordinary text: the "." before it would change, too.
    typed = tokens_of(client, "smollm2-135m", text + "<|im_end|>")
    assert typed[:6] == body["token_ids"][:6] and typed[6] != body["token_ids"][6]
    assert 2 not in typed


def test_an_offered_token_that_would_change_the_earlier_tokens_is_not_appendable(client):
    # "␣Par" then "is" (70 %): typed after it, "is" joins it into the one token "␣Paris".
    text = "The capital of France is Par"
    body = answer(client, model="smollm2-135m", text=text, layer=0, head=0,
                  fields=["tokens", "token_ids", "next_tokens"])
    assert body["tokens"][-1] == "␣Par"
    top = body["next_tokens"][0]
    assert (top["text"], top["kind"], top["appendable"]) == ("is", "text", False)
    assert top["reason"] == ("appended, “␣Par” + “is” would be read as “␣Paris”: the text's "
                             "earlier tokens would change")
    assert "name" not in top
    # Each other ordinary token is appendable exactly when the server, sent the longer
    # text, reads the same tokens and that one after them.
    ids = body["token_ids"]
    for t in body["next_tokens"]:
        if t["kind"] != "text":
            continue
        reads = tokens_of(client, "smollm2-135m", text + t["text"])
        assert t["appendable"] is (reads == [*ids, t["id"]]), t
        assert ("reason" in t) is not t["appendable"]


def test_part_of_a_character_is_offered_as_bytes_not_appendable(client):
    body = answer(client, model="smollm2-135m", text="1 + 1 =", layer=0, head=0,
                  fields=["next_tokens"])
    part = next(t for t in body["next_tokens"] if t["id"] == 19995)
    assert part["text"] == " <0xE2><0x88>" and part["kind"] == "bytes"
    assert part["appendable"] is False
    assert part["reason"] == ("part of a character: its bytes (<0xE2><0x88>) are no text on "
                              "their own")
    space = next(t for t in body["next_tokens"] if t["id"] == 216)
    assert (space["text"], space["kind"], space["appendable"]) == (" ", "text", True)


def test_a_text_of_the_most_tokens_offers_none_to_append(client):
    text = "a" + " a" * 127  # 128 tokens: "a", then "␣a" 127 times
    body = answer(client, model="smollm2-135m", text=text, layer=0, head=0,
                  fields=["token_ids", "next_tokens"])
    assert len(body["token_ids"]) == 128
    for t in body["next_tokens"]:
        assert t["appendable"] is False
        if t["kind"] == "text":
            assert t["reason"] == "the text has 128 tokens, the most taken here"


def test_a_minilm_head_has_its_biases_and_reads_both_ways(client, spec):
    body = answer(client, model="minilm-l6", text="The cat sat on the mat.", layer=2,
                  head=7, row=0)
    validates(spec, "ModelAttentionAnswer", body)
    assert body["tokens"][0] == "[CLS]" and body["tokens"][-1] == "[SEP]"
    assert body["causal"] is body["model_causal"] is False
    assert body["kv_head"] == 7 and body["positional"] == "learned"
    assert "rope_base" not in body and "Q_unrotated" not in body and "next_tokens" not in body
    assert np.shape(body["b_Q"]) == (32,) and body["scale"] == pytest.approx(1 / math.sqrt(32))
    _, _, _, A, Z = reference(body)
    np.testing.assert_allclose(body["weights"], A, atol=1e-12)
    np.testing.assert_allclose(body["output"], Z, atol=1e-12)
    assert np.array(body["mask"]).all()
    assert np.array(body["weights"])[0, 1:].sum() > 0  # [CLS] reads the later tokens


def test_the_causal_counterfactual_masks_the_same_x(client):
    text = "Attention reads both ways here."
    own = answer(client, model="minilm-l6", text=text, layer=1, head=3)
    masked = answer(client, model="minilm-l6", text=text, layer=1, head=3, causal=True)
    assert masked["counterfactual"] is True and masked["model_causal"] is False
    assert masked["X"] == own["X"] and masked["scores"] == own["scores"]
    assert np.array_equal(masked["mask"], np.tril(np.ones((len(own["X"]),) * 2, bool)))
    _, _, _, A, _ = reference(masked)
    np.testing.assert_allclose(masked["weights"], A, atol=1e-12)
    unmasked = answer(client, model="smollm2-135m", text=FRANCE, layer=2, head=1, causal=False)
    assert unmasked["counterfactual"] is True and np.array(unmasked["mask"]).all()


def test_the_overview_holds_every_layer_and_head_in_bytes(client):
    body = answer(client, model="smollm2-135m", text=FRANCE, layer=3, head=5,
                  fields=["weights", "overview"], encoding="base64")
    overview = body["overview"]
    assert overview["weights_u8"]["dtype"] == "uint8"
    u8 = np.frombuffer(base64.b64decode(overview["weights_u8"]["base64"]), np.uint8).reshape(
        overview["weights_u8"]["shape"])
    assert u8.shape == (30, 9, 5, 5)
    weights = decode(body["weights"])
    # The forward ran in float32; the engine recomputed this head in float64.
    assert np.abs(u8[3, 5].astype(float) - weights * 255).max() <= 0.5 + 1e-3
    share = decode(overview["first_token_share"])
    assert share.shape == (30, 9)
    assert np.abs(share - u8[..., 0].mean(axis=-1) / 255).max() <= 0.5 / 255 + 1e-6
    assert (u8[:, :, 0, 0] == 255).all()  # the first query of a decoder reads itself only


def test_the_documented_example_is_the_same_in_both_places_and_computes(client):
    route = "/api/model/attention"
    guide, docs = guide_requests(route), docs_requests(client, route)
    assert guide == docs and len(guide) == 1
    body = answer(client, **guide[0])
    assert body["working"]["token"] == "␣is" and body["next_tokens"][0]["text"] == " Paris"


# ---- the cache, fields, base64 --------------------------------------------------------

def test_a_head_or_row_switch_on_the_same_text_does_not_run_the_model_again():
    app = create_app({"TESTING": True})
    client, runs = app.test_client(), app.extensions["model_runs"]
    answer(client, model="minilm-l6", text="one two three", layer=0, head=0)
    assert runs.computed == 1
    answer(client, model="minilm-l6", text="one two three", layer=5, head=11, row=2)
    answer(client, model="minilm-l6", text="one two three", layer=1, head=1, causal=True)
    assert runs.computed == 1
    answer(client, model="minilm-l6", text="one two three four", layer=0, head=0)
    answer(client, model="smollm2-135m", text="one two three", layer=0, head=0)
    assert runs.computed == 3


def test_fields_corners_and_base64_give_the_same_numbers(client):
    full = answer(client, model="minilm-l6", text="A short sentence.", layer=4, head=2, row=1)
    cut = answer(client, model="minilm-l6", text="A short sentence.", layer=4, head=2, row=1,
                 fields=["X[:2,:3]", "W_Q[:4]", "weights", "working.weights", "tokens"],
                 encoding="base64")
    assert set(cut) == {"X", "W_Q", "weights", "working", "tokens"}
    assert np.array_equal(decode(cut["X"]), np.array(full["X"])[:2, :3])
    assert np.array_equal(decode(cut["W_Q"]), np.array(full["W_Q"])[:4])
    assert np.array_equal(decode(cut["weights"]), np.array(full["weights"]))
    assert set(cut["working"]) == {"row", "weights"} and cut["working"]["row"] == 1
    assert np.array_equal(decode(cut["working"]["weights"]), full["working"]["weights"])
    assert cut["tokens"] == full["tokens"]


def test_typed_special_tokens_stay_plain_text(client):
    smol = answer(client, model="smollm2-135m", text="<|im_start|>user", layer=0, head=0,
                  fields=["tokens", "token_ids"])
    assert "<|im_start|>" not in smol["tokens"] and "".join(smol["tokens"]) == "<|im_start|>user"
    mini = answer(client, model="minilm-l6", text="a [SEP] b", layer=0, head=0,
                  fields=["tokens", "token_ids"])
    assert mini["tokens"][0] == "[CLS]" and mini["tokens"][-1] == "[SEP]"
    assert "[SEP]" not in mini["tokens"][1:-1] and mini["token_ids"].count(102) == 1
    assert mini["tokens"][1:-1] == ["a", "[", "sep", "]", "b"]


# ---- bad input ------------------------------------------------------------------------

GOOD = {"model": "minilm-l6", "text": "a cat", "layer": 0, "head": 0}
LONG = " ".join(["word"] * 200)


@pytest.mark.parametrize("changes, field, message", [
    ({"model": "gpt-5"}, "model", 'model must be one of smollm2-135m, minilm-l6 (GET '
     '/api/models describes them), got the string "gpt-5"'),
    ({"model": ["minilm-l6"]}, "model", "got a list"),
    ({"text": ""}, "text", "text is empty: type a sentence"),
    ({"text": "   \n"}, "text", "text is only spaces: type a sentence"),
    ({"text": 12}, "text", "text must be a string, got 12"),
    ({"text": "x" * 4097}, "text", "text is 4,097 characters long, more than the 4,096"),
    ({"text": LONG}, "text", "text makes 202 tokens for minilm-l6, more than the 128 it "
     "takes here; shorten it"),
    ({"layer": 6}, "layer", "layer must be a whole number from 0 to 5 (0-based: minilm-l6 has "
     "6 layers), got 6"),
    ({"layer": -1}, "layer", "from 0 to 5"),
    ({"layer": "2"}, "layer", 'got the string "2"'),
    ({"layer": True}, "layer", "got true"),
    ({"layer": 1.5}, "layer", "got 1.5"),
    ({"model": "smollm2-135m", "head": 9}, "head", "head must be a whole number from 0 to 8 "
     "(0-based: each layer of smollm2-135m has 9 query heads), got 9"),
    ({"row": 4}, "row", "row must be a whole number from 0 to 3 (0-based: the text makes 4 "
     "tokens), got 4"),
    ({"causal": "yes"}, "causal", 'causal must be true or false, got the string "yes"'),
    ({"fields": ["heads"]}, "fields[0]", "which is not a response field"),
    ({"fields": ["working.q[:2]"]}, "fields[0]", "only a matrix may be cut"),
    ({"fields": "X"}, "fields", "fields must be a list"),
    ({"encoding": "hex"}, "encoding", 'encoding must be "json"'),
    ({"X": [[1]]}, "X", 'Unknown field "X".'),
])
def test_each_bad_value_is_a_422_naming_its_field(client, changes, field, message):
    r = ask(client, **{**GOOD, **changes})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == field and message in error["message"], error


@pytest.mark.parametrize("missing", ["model", "text", "layer", "head"])
def test_each_required_field_is_named_when_missing(client, missing):
    r = ask(client, **{k: v for k, v in GOOD.items() if k != missing})
    assert r.status_code == 422
    assert r.get_json()["error"] == {
        "message": f'The request needs the field "{missing}"', "field": missing}


def test_a_lone_surrogate_in_the_text_is_a_422(client):
    r = client.post("/api/model/attention", content_type="application/json",
                    data='{"model": "minilm-l6", "text": "a\\ud800b", "layer": 0, "head": 0}')
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == "text"
    assert "surrogate" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("data, content_type, status", [
    ("[1, 2]", "application/json", 422),
    ("{", "application/json", 400),
    ("model=minilm-l6", "application/x-www-form-urlencoded", 415),
])
def test_a_body_that_is_no_request_is_refused(client, data, content_type, status):
    r = client.post("/api/model/attention", data=data, content_type=content_type)
    assert r.status_code == status
    assert r.get_json()["error"]["message"]


# ---- a model that cannot be read ------------------------------------------------------

def test_a_model_that_cannot_be_read_is_503_naming_what_is_missing_and_what_to_run(
        client, minilm_missing):
    expected = {"error": {"field": None, "message": (
        "The real models cannot be read on this server: the module no_such_reader_for_tests "
        f"is not installed. To install the real models, run: {registry.install_command()}; "
        "then restart the server.")}}
    r = client.get("/api/models")
    assert (r.status_code, r.mimetype, r.get_json()) == (503, "application/json", expected)
    r = ask(client, model="minilm-l6", text="The cat sat.", layer=0, head=0)
    assert (r.status_code, r.get_json()) == (503, expected)
    assert "Retry-After" not in r.headers  # waiting will not install it
    # The other model is still served.
    body = answer(client, model="smollm2-135m", text="Hi", layer=0, head=0, fields=["weights"])
    assert body["weights"] == [[1.0]]


@pytest.mark.parametrize("body, status", [
    ("{", 400),                     # not JSON: where it stops being JSON
    ('{"X": [[1, 2], [3]]}', 422),  # JSON, not a request: the first problem, by field
    ('{"model": 3}', 422),
])
def test_both_routes_refuse_a_body_with_one_error_shape(client, body, status):
    """Both POST routes answer a body that is no request through one error path
    (errors.py): the same status and shape, a message naming what is wrong."""
    for route in ("/api/attention", "/api/model/attention"):
        r = client.post(route, data=body, content_type="application/json")
        assert r.status_code == status, (route, r.get_json())
        error = r.get_json()["error"]
        assert set(error) == {"message", "field"}, route
        if status == 422:  # the field is named, and so in the message
            assert error["field"] and error["field"].split("[")[0] in error["message"], error
        else:
            assert error == {"message": "The body is not valid JSON: unexpected end of data "
                                        "at line 1 column 2.", "field": None}, route


# ---- POST /api/model/slide ------------------------------------------------------------

def test_a_model_heads_slides_hold_its_weights_and_its_rows_working(client):
    """SmolLM2 layer 4 head 6 on FRANCE: the heatmap slide in the colours of the weights the
    reference computes from the head's own X and W, and row 5's working with its weights."""
    from attention_api.classroom.colours import weight_rgb

    head = {"model": "smollm2-135m", "text": FRANCE, "layer": 3, "head": 5, "row": 4}
    body = client.post("/api/model/attention", json={**head, "fields": [
        "X", "W_Q", "W_K", "W_V", "positional", "rope_base", "causal"]}).get_json()
    *_, A, _ = reference(body)
    png = client.post("/api/model/slide", json={**head, "what": "heatmap"})
    assert (png.status_code, png.mimetype) == (200, "image/png")
    assert png.headers["Content-Disposition"] == \
        'attachment; filename="slide-heatmap-smollm2-135m-layer4-head6-row5.png"'
    assert png.data[16:24] == (1920).to_bytes(4, "big") + (1080).to_bytes(4, "big")
    svg = client.post("/api/model/slide", json={**head, "what": "heatmap", "format": "svg"})
    fills = set(re.findall(r'fill="(#[0-9a-f]{6})"', svg.get_data(as_text=True)))
    # The reference computes in float64, the model in float32: colours and printed digits
    # are compared within what 1e-5 can move them.
    want = [weight_rgb(A[i, j]) for i in range(5) for j in range(i + 1)]
    assert colours_near(want, fills) == []
    source = client.post("/api/model/slide", json={**head, "what": "working",
                                                   "format": "typ"}).get_data(as_text=True)
    for j in range(5):
        assert any(f'"{text}"' in source for text in
                   printed_near(A[4, j], lambda x: f"{x:.3f}", tol=1e-5)), (j, A[4, j])
    assert "SmolLM2-135M-Instruct, layer 4 head 6 · 5 tokens · causal mask" in source
    assert "(64 entries)" in source  # q and z, shortened
    # Each q₅·kⱼ by its first 3 terms and their count, against the reference's Q and K, and
    # still one page.
    from io import BytesIO

    import typst
    from pypdf import PdfReader

    from tests.api.classroom.test_slide import check_terms, dot_terms
    Q, K, *_ = reference(body)
    cells = dot_terms(source)
    assert len(cells) in (5, 10)
    for j in range(5):
        check_terms(cells[j], Q[4], K[j], 3)
    assert len(PdfReader(BytesIO(typst.compile(source.encode(), format="pdf",
                                                  ignore_system_fonts=True))).pages) == 1


@pytest.mark.parametrize(("extra", "field", "says"), [
    ({"what": "working"}, "row", "row is missing"),
    ({"what": "table"}, "what", '"table"'),
    ({"what": "heatmap", "fields": ["weights"]}, "fields", "'fields' is not a field"),
    ({"what": "heatmap", "layer": 30}, "layer", "0 to 29"),
])
def test_a_bad_model_slide_is_a_422_naming_its_field(client, extra, field, says):
    r = client.post("/api/model/slide", json={"model": "smollm2-135m", "text": FRANCE,
                                              "layer": 0, "head": 0, **extra})
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == field and says in r.get_json()["error"]["message"]


# ---- POST /api/model/kv-cache ---------------------------------------------------------

def test_the_decoders_cached_steps_are_its_own_forwards_rows(client):
    """SmolLM2 layer 4 head 6 on FRANCE, token by token with the cache: each step's row and
    z are the model's own forward pass's (float32, hence 1e-5), and the whole model's cache
    is 2 · 30 layers · 3 key/value heads · 64 = 11,520 numbers a token, 34,560 without
    grouped-query heads, at 2 bytes each: 188,743,680 bytes at its 8,192-token context."""
    head = {"model": "smollm2-135m", "text": FRANCE, "layer": 3, "head": 5}
    r = client.post("/api/model/kv-cache", json=head)
    assert r.status_code == 200
    body = r.get_json()
    model = registry.get("smollm2-135m")
    forward = model.forward(model.tokenize(FRANCE).ids)
    assert body["tokens"] == ["The", "␣capital", "␣of", "␣France", "␣is"]
    assert body["kv_head"] == 1  # query head 5 of 9, over 3 key/value heads: 5 // 3
    for t, s in enumerate(body["steps"]):
        assert s["t"] == t and len(s["weights"]) == t + 1
        np.testing.assert_allclose(s["weights"], forward.weights[3, 5, t, :t + 1], atol=1e-5)
        np.testing.assert_allclose(s["z"], forward.outputs[3, 5, t], atol=1e-5)
        assert s["cost"] == {"dot_products": t + 1, "without_cache": (t + 1) ** 2}
        assert s["cache"] == {"tokens": t + 1, "numbers": (t + 1) * 128,
                              "bytes": (t + 1) * 1024}
    per_token, without = 2 * 30 * 3 * 64, 2 * 30 * 9 * 64
    assert (per_token, without) == (11520, 34560)
    assert body["model_cache"] == {
        "per_token": per_token, "without_sharing_per_token": without, "bytes_per_number": 2,
        "context": 8192, "at_text": {"tokens": 5, "numbers": 5 * per_token,
                                     "bytes": 5 * per_token * 2},
        "at_context": {"tokens": 8192, "numbers": 8192 * per_token,
                       "bytes": 188_743_680, "without_sharing_bytes": 8192 * without * 2}}


def test_an_encoder_keeps_no_cache(client):
    r = client.post("/api/model/kv-cache", json={"model": "minilm-l6", "text": "The cat sat.",
                                                 "layer": 0, "head": 0})
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == "model"
    assert "minilm-l6 is an encoder" in r.get_json()["error"]["message"]


# ---- POST /api/model/tiles ------------------------------------------------------------

def test_a_model_rows_tiles_end_at_its_own_forwards_z_and_the_rows_logsumexp(client):
    """SmolLM2 layer 4 head 6, row 5 of FRANCE, tiles of 2 × 2: three key blocks (keys 1–2,
    3–4, 5), none skipped for the last row; O/ℓ is the model's own z (float32: 1e-5) and
    m + ln ℓ the log-sum-exp of the reference's scaled scores of the row."""
    head = {"model": "smollm2-135m", "text": FRANCE, "layer": 3, "head": 5, "row": 4}
    r = client.post("/api/model/tiles", json={**head, "block_q": 2, "block_k": 2})
    assert r.status_code == 200
    body = r.get_json()
    assert [t["key_block"] for t in body["tiles"]] == [0, 1, 2]
    assert [t["skipped"] for t in body["tiles"]] == [False, False, False]
    assert body["memory"] == {"held": 4, "whole": 25}
    model = registry.get("smollm2-135m")
    forward = model.forward(model.tokenize(FRANCE).ids)
    np.testing.assert_allclose(body["final"]["z"], forward.outputs[3, 5, 4], atol=1e-5)
    inputs = client.post("/api/model/attention", json={**head, "fields": [
        "X", "W_Q", "W_K", "W_V", "positional", "rope_base", "causal"]}).get_json()
    Q, K, *_ = reference(inputs)
    s = Q[4] @ K.T / math.sqrt(Q.shape[1])  # row 5 reads all five keys
    assert body["final"]["logsumexp"] == pytest.approx(math.log(np.exp(s).sum()), abs=1e-9)


@pytest.mark.parametrize(("change", "field"), [({"row": None}, "row"), ({"block_k": 0}, "block_k"),
                                               ({"block_q": True}, "block_q")])
def test_a_bad_model_tiles_request_is_a_422_naming_its_field(client, change, field):
    body = {"model": "smollm2-135m", "text": FRANCE, "layer": 0, "head": 0, "row": 1,
            "block_q": 2, "block_k": 2, **change}
    r = client.post("/api/model/tiles", json=body)
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field
