"""SmolLM2-135M-Instruct as the installed package ships it: each head computed by the engine
equals the forward's, the forward predicts what the model is known to, and the tokenizer
reads text as SmolLM2's does."""

import numpy as np
import pytest

from attention_models import registry, smollm2
from attention_models.heads import head_attention

SENTENCES = ["The capital of France is",
             "The cat sat on the mat because it was tired, and then it slept.",
             "<|im_start|>user 2024: naïve café — 3.14159?"]


@pytest.fixture(scope="module")
def model():
    return smollm2.load()


@pytest.fixture(scope="module")
def runs(model):
    return [model.forward(model.tokenize(text).ids) for text in SENTENCES]


def test_the_architecture_is_read_from_the_file(model):
    info = model.info
    assert (info.layers, info.heads, info.kv_heads, info.d_model, info.d_head) == (
        30, 9, 3, 576, 64)
    # The API document's ranges of layer and head, read without loading a model.
    assert registry.SHAPES[info.id] == (info.kind, info.layers, info.heads)
    assert info.rope_base == 100000.0 and info.positional == "rope" and info.causal
    assert (model.config.d_ffn, model.config.vocabulary) == (1536, 49152)
    assert model.config.eps == pytest.approx(1e-5)


def test_the_weights_are_kept_contiguous_in_the_orientation_multiplied(model):
    weights = model.weights
    assert weights["output"] is weights["embedding"]  # tied: the file has no output.weight
    assert weights["embedding"].shape == (49152, 576)
    layer = weights["layers"][29]
    shapes = {name: array.shape for name, array in layer.items()}
    assert shapes == {"attn_norm": (576,), "W_qkv": (576, 960), "W_o": (576, 576),
                      "ffn_norm": (576,), "W_gate_up": (576, 3072), "W_down": (1536, 576)}
    assert all(array.flags.c_contiguous for array in layer.values())
    assert layer["W_qkv"].dtype == np.float64  # the attention's precision (llama.py)
    assert layer["W_gate_up"].dtype == layer["W_down"].dtype == np.float32


@pytest.mark.parametrize("layer", [0, 1, 14, 29])
def test_each_head_by_the_engine_equals_the_forward(model, runs, layer):
    # Heads 0 to 2 read key/value head 0, 3 to 5 head 1, 6 to 8 head 2.
    for run in runs:
        for head in (0, 2, 3, 5, 8):
            result = head_attention(model, run, layer, head)
            np.testing.assert_allclose(result.weights, run.weights[layer, head], rtol=0,
                                       atol=1e-6)
            np.testing.assert_allclose(result.output, run.outputs[layer, head], rtol=0,
                                       atol=1e-6)


def test_query_head_h_reads_key_value_head_h_over_3(model):
    assert [model.head(7, h).kv_head for h in range(9)] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    np.testing.assert_array_equal(model.head(7, 3).W_K, model.head(7, 5).W_K)
    assert not np.array_equal(model.head(7, 2).W_K, model.head(7, 3).W_K)
    assert model.head(7, 4).W_Q.shape == (576, 64) and model.head(7, 4).W_Q.dtype == np.float64


@pytest.mark.parametrize(("prompt", "answer", "at_least"), [
    ("The capital of France is", " Paris", 0.6),  # 0.77
    ("The capital of Germany is", " Berlin", 0.6),  # 0.80
    ("The capital of Japan is", " Tokyo", 0.5),  # 0.70
    ("The opposite of hot is", " cold", 0.5),  # 0.68
    ("Water freezes at 0 degrees", " Celsius", 0.6),  # 0.80
])
def test_the_most_likely_next_token_is_the_known_answer(model, prompt, answer, at_least):
    probabilities = model.forward(model.tokenize(prompt).ids).next_probabilities
    top = int(np.argmax(probabilities))
    assert model.token_text(top) == answer
    assert probabilities[top] > at_least
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)


def test_the_forward_keeps_every_layer_and_head(runs):
    run = runs[0]
    assert run.ids == [504, 3575, 282, 4649, 314]
    assert run.X.shape == (30, 5, 576) and run.weights.shape == (30, 9, 5, 5)
    assert run.outputs.shape == (30, 9, 5, 64) and run.hidden.shape == (5, 576)
    np.testing.assert_allclose(run.weights.sum(axis=-1), 1.0, atol=1e-6)
    assert np.all(np.triu(run.weights, k=1) == 0)  # causal: no key after its query


def test_a_typed_control_token_is_plain_text(model):
    tokenized = model.tokenize("<|im_start|>user")
    assert tokenized.tokens == ["<", "|", "im", "_", "start", "|", ">", "user"]
    assert 1 not in tokenized.ids
    assert model.tokenizer.token_to_id("<|im_start|>") == 1
    assert model.token_text(1) == "<|im_start|>"


def test_digits_are_split_one_by_one(model):
    assert model.tokenize("in 2024").tokens == ["in", "␣", "2", "0", "2", "4"]


def test_no_bos_is_added_and_spaces_are_shown(model):
    tokenized = model.tokenize("The capital of France is")
    assert tokenized.ids[0] == 504  # "The", not the BOS <|im_start|> (1)
    assert tokenized.tokens == ["The", "␣capital", "␣of", "␣France", "␣is"]
    assert model.token_text(tokenized.ids[1]) == " capital"


def test_a_character_split_across_tokens_shows_its_bytes(model):
    tokenized = model.tokenize("日本 🙂 ok")
    # 日 is E6 97 A5 in UTF-8, in two tokens; 本 is one token; " 🙂" is one, but 🙂 at the
    # start of a word (F0 9F 99 82) is two.
    assert tokenized.tokens == ["<0xE6><0x97>", "<0xA5>", "本", "␣🙂", "␣ok"]
    assert model.tokenize("🙂").tokens == ["<0xF0><0x9F>", "<0x99><0x82>"]
    assert [w["tokens"] for w in tokenized.words] == [[0, 1, 2], [3], [4]]


def test_each_token_is_text_a_control_mark_or_part_of_a_character(model):
    # <|im_end|> (2) ends a chat turn; <file_sep> (5) is a mark of its code data; " Paris"
    # (7042) is text; " <0xE2><0x88>" (19995) holds the first two of ∑'s three bytes.
    assert [model.token_kind(i) for i in (2, 5, 7042, 19995)] == [
        "control", "control", "text", "bytes"]
    assert [model.control_name(i) for i in (0, 1, 2, 5)] == [
        "end of text", "start of a turn", "end of turn", "<file_sep>"]
    assert model.token_text(19995) == " <0xE2><0x88>"
    assert "∑".encode()[:2] == b"\xe2\x88"
