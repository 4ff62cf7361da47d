"""Write tests/data/tiny.gguf: a tiny random Llama-style decoder in SmolLM2's own format, for
fast tests of the GGUF reader, the tokenizer and the forward pass.

    .venv/bin/python scripts/make_tiny_gguf.py [output path]

The same seed gives the same bytes (a test regenerates the file and compares). Like
SmolLM2: grouped-query heads (4 query heads on 2 key/value heads), no biases, a tied
embedding stored Q8_0, projections Q4_1 (one left F32, so both paths are read), RMSNorm
gains F32, a byte-level BPE vocabulary with a few merges, control tokens first, no BOS.
Every matrix's input width is a multiple of 32, the quantization blocks' length.
"""

import sys
from pathlib import Path

import gguf
import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "tiny.gguf"
SEED = 14
LAYERS, D_MODEL, HEADS, KV_HEADS, D_FFN = 2, 32, 4, 2, 64
D_HEAD = D_MODEL // HEADS  # 8: four rotary pairs
ROPE_BASE = 10000.0  # not SmolLM2's 100000, so a test sees it is read from the file
CONTROL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Merges of GPT-2's byte-level characters ("Ġ" is the space), each making one new token.
MERGES = ["Ġ t", "h e", "Ġt he", "Ġ c", "a t", "Ġc at", "Ġ s", "Ġs at", "Ġ o", "Ġo n",
          "i n", "Ġ m", "Ġm at", "1 2"]  # "1 2" never applies: digits are split first
Q4_1, Q8_0, F32 = (gguf.GGMLQuantizationType.Q4_1, gguf.GGMLQuantizationType.Q8_0,
                   gguf.GGMLQuantizationType.F32)


def byte_characters() -> list[str]:
    """GPT-2's printable character for each byte 0 … 255 (see gguf_tokenizer)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    characters, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            characters[byte] = chr(byte)
        else:
            characters[byte] = chr(256 + extra)
            extra += 1
    return [characters[b] for b in range(256)]


def vocabulary() -> tuple[list[str], list[int]]:
    """The tokens (control, then the 256 bytes, then one per merge) and their types."""
    tokens = CONTROL + byte_characters() + [m.replace(" ", "") for m in MERGES]
    types = [gguf.TokenType.CONTROL] * len(CONTROL) + [gguf.TokenType.NORMAL] * (
        len(tokens) - len(CONTROL))
    return tokens, [int(t) for t in types]


def write_metadata(writer: gguf.GGUFWriter, tokens: list[str], types: list[int]) -> None:
    """The "llama.*" and "tokenizer.ggml.*" keys the loader reads, as SmolLM2's file has them."""
    writer.add_block_count(LAYERS)
    writer.add_context_length(128)
    writer.add_embedding_length(D_MODEL)
    writer.add_feed_forward_length(D_FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_freq_base(ROPE_BASE)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_rope_dimension_count(D_HEAD)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(MERGES)
    writer.add_add_bos_token(False)


def add(writer, name: str, values: np.ndarray, qtype) -> None:
    """A tensor stored as ``qtype``; ``values`` in numpy's (out, in) reading of the file."""
    values = values.astype(np.float32)
    if qtype == F32:
        writer.add_tensor(name, values)
    else:
        writer.add_tensor(name, gguf.quants.quantize(values, qtype), raw_dtype=qtype)


def write_tensors(writer: gguf.GGUFWriter, vocabulary_size: int, rng) -> None:
    """Random weights, scaled by 1/√(inputs) so activations stay near 1."""
    def matrix(out, inputs):
        return rng.standard_normal((out, inputs)) / np.sqrt(inputs)

    def gain():
        return 1.0 + 0.2 * rng.standard_normal(D_MODEL)

    add(writer, "token_embd.weight", rng.standard_normal((vocabulary_size, D_MODEL)), Q8_0)
    for i in range(LAYERS):
        p = f"blk.{i}."
        add(writer, p + "attn_norm.weight", gain(), F32)
        add(writer, p + "attn_q.weight", 2.0 * matrix(HEADS * D_HEAD, D_MODEL), Q4_1)
        add(writer, p + "attn_k.weight", 2.0 * matrix(KV_HEADS * D_HEAD, D_MODEL), Q4_1)
        add(writer, p + "attn_v.weight", matrix(KV_HEADS * D_HEAD, D_MODEL), Q4_1)
        add(writer, p + "attn_output.weight", matrix(D_MODEL, HEADS * D_HEAD),
            F32 if i == 1 else Q4_1)
        add(writer, p + "ffn_norm.weight", gain(), F32)
        add(writer, p + "ffn_gate.weight", matrix(D_FFN, D_MODEL), Q4_1)
        add(writer, p + "ffn_up.weight", matrix(D_FFN, D_MODEL), Q4_1)
        add(writer, p + "ffn_down.weight", matrix(D_MODEL, D_FFN), Q4_1)
    add(writer, "output_norm.weight", gain(), F32)


def main(out: Path = OUT) -> None:
    """Write the file at ``out``."""
    rng = np.random.default_rng(SEED)
    tokens, types = vocabulary()
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(out, "llama")
    write_metadata(writer, tokens, types)
    write_tensors(writer, len(tokens), rng)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
