"""Write a tiny random BERT in all-MiniLM-L6-v2's own format, for fast tests of the loader,
the tokenizer and the forward pass: tests/data/tiny-bert/model.safetensors (float32, torch's
tensor names and (out, in) Linear layout) and tokenizer.json (WordPiece, as the real one).

    python scripts/make_tiny_safetensors.py [folder]

The same seed gives the same bytes (a test checks the committed files against a fresh run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

SEED = 14
LAYERS = 2
D = 16  # d_model
HEADS = 4  # d_head 4: more than one head, so that a wrong head slicing shows
FFN = 32  # the feed-forward's width: 2·D (the real model's is 4·D), to stay small
POSITIONS = 32  # learned positions: the tiny model takes texts of up to 32 tokens
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# Whole words, pieces that split "unbelievable" into un ##bel ##iev ##able, punctuation, and
# every letter alone and as a continuation, so that any lowercase word has pieces.
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "is", "un", "##bel", "##iev", "##able",
         "##s", "##ing", ".", ",", "!", "?", "'", "[", "]"]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
VOCAB = SPECIALS + WORDS + LETTERS + ["##" + c for c in LETTERS]
DEFAULT_FOLDER = Path(__file__).resolve().parent.parent / "tests" / "data" / "tiny-bert"


def linear(rng: np.random.Generator, name: str, n_in: int, n_out: int) -> dict:
    """torch's Linear: weight (out, in), bias (out,)."""
    return {f"{name}.weight": rng.normal(0, 0.5, (n_out, n_in)).astype(np.float32),
            f"{name}.bias": rng.normal(0, 0.1, n_out).astype(np.float32)}


def layer_norm(rng: np.random.Generator, name: str) -> dict:
    return {f"{name}.weight": (1 + rng.normal(0, 0.1, D)).astype(np.float32),
            f"{name}.bias": rng.normal(0, 0.1, D).astype(np.float32)}


def tensors(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Every tensor, named as in the real file."""
    t = {"embeddings.word_embeddings.weight": rng.normal(0, 1, (len(VOCAB), D)),
         "embeddings.position_embeddings.weight": rng.normal(0, 0.3, (POSITIONS, D)),
         "embeddings.token_type_embeddings.weight": rng.normal(0, 0.3, (2, D))}
    t = {name: a.astype(np.float32) for name, a in t.items()}
    t |= layer_norm(rng, "embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        for m in ("query", "key", "value"):
            t |= linear(rng, f"{p}.attention.self.{m}", D, D)
        t |= linear(rng, f"{p}.attention.output.dense", D, D)
        t |= layer_norm(rng, f"{p}.attention.output.LayerNorm")
        t |= linear(rng, f"{p}.intermediate.dense", D, FFN)
        t |= linear(rng, f"{p}.output.dense", FFN, D)
        t |= layer_norm(rng, f"{p}.output.LayerNorm")
    return t


def tokenizer() -> Tokenizer:
    """A WordPiece tokenizer configured as all-MiniLM-L6-v2's, padding and truncation on as
    in the shipped file (the loader must switch them off)."""
    vocab = {token: i for i, token in enumerate(VOCAB)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.add_special_tokens(SPECIALS)
    tok.enable_padding(pad_id=vocab["[PAD]"], pad_token="[PAD]", length=POSITIONS)
    tok.enable_truncation(POSITIONS)
    return tok


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    save_file(tensors(rng), str(folder / "model.safetensors"),
              metadata={"num_attention_heads": str(HEADS)})
    tokenizer().save(str(folder / "tokenizer.json"))


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_FOLDER)
