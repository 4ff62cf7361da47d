"""The encoder's loader, tokenizer and forward pass on the tiny random BERT in
tests/data/tiny-bert (scripts/make_tiny_safetensors.py), against the file itself and the
plain-loop reference in tests/reference_models.py."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file

from attention_models import bert, minilm
from attention_models.base import ModelUnavailable
from attention_models.heads import head_attention
from tests.reference_models import bert_forward

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "tiny-bert"
TEXTS = ["The cat sat on the mat.", "unbelievable!", "the dogs, the cats"]


@pytest.fixture(scope="module")
def model():
    return minilm.load(TINY)


@pytest.fixture(scope="module")
def tensors():
    """The file's tensors as stored: Linear weights (out, in)."""
    return load_file(TINY / "model.safetensors")


def test_the_script_writes_the_committed_files_byte_for_byte(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "make_tiny_safetensors", ROOT / "scripts" / "make_tiny_safetensors.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.write(tmp_path)
    for name in ("model.safetensors", "tokenizer.json"):
        assert (tmp_path / name).read_bytes() == (TINY / name).read_bytes(), name


def test_info_is_read_from_the_shapes_and_the_head_count_from_the_metadata(model):
    info = model.info
    assert (info.layers, info.heads, info.kv_heads, info.d_model, info.d_head) == (2, 4, 4, 16, 4)
    assert (info.kind, info.positional, info.rope_base, info.causal) == (
        "encoder", "learned", None, False)
    assert info.max_tokens == 32  # the tiny file's 32 positions, below MAX_TOKENS (128)


def test_each_head_is_its_slice_of_the_stored_transposed_weights(model, tensors):
    for layer in range(2):
        p = f"encoder.layer.{layer}.attention.self"
        for h in range(4):
            head = model.head(layer, h)
            rows = slice(4 * h, 4 * h + 4)  # torch's (out, in): a head's outputs are rows
            for W, b, m in ((head.W_Q, head.b_Q, "query"), (head.W_K, head.b_K, "key"),
                            (head.W_V, head.b_V, "value")):
                assert W.dtype == np.float64 and W.shape == (16, 4)
                np.testing.assert_array_equal(W, tensors[f"{p}.{m}.weight"][rows].T)
                np.testing.assert_array_equal(b, tensors[f"{p}.{m}.bias"][rows])
            assert head.kv_head == h


def test_typed_specials_are_plain_text_and_the_template_adds_cls_and_sep(model):
    tokens = model.tokenize("the [SEP] [CLS] cat")
    assert tokens.tokens == ["[CLS]", "the", "[", "s", "##e", "##p", "]", "[", "c", "##l", "##s",
                             "]", "cat", "[SEP]"]
    # [CLS] is id 2 and [SEP] id 3 in the tiny vocabulary: only at the ends.
    assert tokens.ids[0] == 2 and tokens.ids[-1] == 3
    assert 2 not in tokens.ids[1:-1] and 3 not in tokens.ids[1:-1]


def test_words_gather_their_pieces_and_the_specials_are_in_none(model):
    tokens = model.tokenize("Unbelievable cats!")
    assert tokens.tokens == ["[CLS]", "un", "##bel", "##iev", "##able", "cat", "##s", "!",
                             "[SEP]"]
    assert tokens.words == [
        {"text": "Unbelievable", "start": 0, "end": 12, "tokens": [1, 2, 3, 4]},
        {"text": "cats!", "start": 13, "end": 18, "tokens": [5, 6, 7]}]


def test_the_shipped_padding_and_truncation_are_off(model):
    assert len(model.tokenize("cat").ids) == 3  # the file pads to 32
    assert len(model.tokenize("cat " * 40).ids) == 42  # … and truncates at 32


def test_token_text_is_what_the_token_adds(model):
    vocab = model.tokenizer.get_vocab()
    assert [model.token_text(vocab[t]) for t in ("cat", "##s", "[SEP]", "[PAD]")] == [
        " cat", "s", "[SEP]", "[PAD]"]
    assert [model.token_kind(vocab[t]) for t in ("cat", "##s", "[SEP]")] == [
        "text", "text", "control"]
    assert model.control_name(vocab["[SEP]"]) == "[SEP]"


@pytest.mark.parametrize("text", TEXTS)
def test_the_forward_pass_is_the_plain_loop_reference(model, tensors, text):
    ids = model.tokenize(text).ids
    forward = model.forward(ids)
    reference = bert_forward({k: v.tolist() for k, v in tensors.items()}, ids, heads=4)
    n = len(ids)
    assert forward.X.shape == (2, n, 16) and forward.X.dtype == np.float32
    assert forward.weights.shape == (2, 4, n, n) and forward.outputs.shape == (2, 4, n, 4)
    assert forward.next_probabilities is None
    for name in ("X", "weights", "outputs", "hidden"):
        np.testing.assert_allclose(getattr(forward, name), reference[name], atol=2e-5,
                                   err_msg=name)


@pytest.mark.parametrize("text", TEXTS)
def test_the_engine_computes_each_head_as_the_forward_did(model, text):
    forward = model.forward(model.tokenize(text).ids)
    for layer in range(2):
        for h in range(4):
            result = head_attention(model, forward, layer, h)
            assert result.mask.all()  # bidirectional: every query reads every key
            np.testing.assert_allclose(result.weights, forward.weights[layer, h], atol=1e-6)
            np.testing.assert_allclose(result.output, forward.outputs[layer, h], atol=1e-6)


def test_the_embedding_is_the_normalised_mean_of_the_last_hidden_states(model, tensors):
    ids = model.tokenize(TEXTS[0]).ids
    hidden = bert_forward({k: v.tolist() for k, v in tensors.items()}, ids, heads=4)["hidden"]
    mean = [sum(column) / len(ids) for column in zip(*hidden, strict=True)]
    length = math.sqrt(sum(v * v for v in mean))
    embedding = minilm.embedding(model.forward(ids))
    np.testing.assert_allclose(embedding, [v / length for v in mean], atol=1e-6)
    assert np.linalg.norm(embedding) == pytest.approx(1.0)


def test_gelu_is_the_erf_gelu_to_float32_precision():
    x = np.linspace(-10, 10, 20001, dtype=np.float32)
    exact = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.tolist()])
    got = bert.gelu(x)
    assert got.dtype == np.float32
    nonzero = exact != 0
    relative = np.abs(got[nonzero] - exact[nonzero]) / np.abs(exact[nonzero])
    assert relative.max() < 2e-7  # float32's own rounding is up to 6e-8


def test_layer_norm_uses_the_biased_variance_and_eps_1e_12():
    x = np.array([[1.0, 2.0, 3.0, 6.0]], dtype=np.float32)
    out = bert.layer_norm(x, (np.full(4, 2.0, np.float32), np.full(4, 1.0, np.float32)))
    mean, variance = 3.0, (4 + 1 + 0 + 9) / 4
    expected = [(v - mean) / math.sqrt(variance + 1e-12) * 2 + 1 for v in (1, 2, 3, 6)]
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)


def test_a_missing_folder_is_model_unavailable(tmp_path):
    with pytest.raises(ModelUnavailable, match="model.safetensors is missing"):
        minilm.load(tmp_path)


def test_a_missing_package_is_model_unavailable(monkeypatch):
    monkeypatch.setattr(minilm, "PACKAGE", "no_such_model_package")
    with pytest.raises(ModelUnavailable, match="no_such_model_package is not installed"):
        minilm.load()


def test_more_tokens_than_positions_is_an_error_that_says_both(model):
    with pytest.raises(ValueError, match="33 tokens: the model has 32 positions"):
        model.forward([5] * 33)
