"""A byte-level BPE tokenizer (GPT-2's scheme, as SmolLM2 uses it) built with the
``tokenizers`` package from the vocabulary and merges a GGUF file's metadata holds.

GGUF ships no tokenizer.json: its "tokenizer.ggml.*" keys list the tokens (byte-level
strings, where a byte is one printable character: the space is "Ġ"), the merges ("Ġ t"),
and each token's type (3 = control, such as <|im_start|>).
"""

from __future__ import annotations

from functools import cache

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

CONTROL = 3  # llama.cpp's token type for a control token


def build(metadata: dict) -> Tokenizer:
    """The tokenizer of a GGUF with tokenizer.ggml.model "gpt2" and pre "smollm": digits split
    one by one, then GPT-2's byte-level split with no space added in front; no BOS. Its
    control tokens are special tokens, but a control token typed in a text is plain text."""
    tokens = metadata["tokenizer.ggml.tokens"]
    merges = [tuple(merge.split(" ")) for merge in metadata["tokenizer.ggml.merges"]]
    tokenizer = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                  for i in control_ids(metadata)])
    # Typed "<|im_start|>" is split like any text: only the ids the app adds are control.
    tokenizer.encode_special_tokens = True
    return tokenizer


def control_ids(metadata: dict) -> list[int]:
    """The ids of the control tokens (<|endoftext|>, <|im_start|>, …)."""
    return [i for i, kind in enumerate(metadata["tokenizer.ggml.token_type"]) if kind == CONTROL]


@cache
def byte_of_character() -> dict[str, int]:
    """GPT-2's byte-level alphabet reversed: the printable character standing for each byte.

    Bytes that print as themselves (! … ~, ¡ … ¬, ® … ÿ) keep their character; the other 68
    (controls, the space, …) are given the characters from U+0100 up, in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    characters = dict(zip(printable, printable, strict=True))
    extra = 0
    for byte in range(256):
        if byte not in characters:
            characters[byte] = 256 + extra
            extra += 1
    return {chr(character): byte for byte, character in characters.items()}


def token_bytes(token: str) -> bytes:
    """The bytes a vocabulary entry stands for: "ĠParis" → b" Paris"."""
    table = byte_of_character()
    return bytes(table[c] for c in token)


def is_text(data: bytes) -> bool:
    """Whether bytes are whole UTF-8 characters (readable() writes them as they are).

    >>> is_text(" é".encode()), is_text(b"\\xe2\\x80")
    (True, False)
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def readable(data: bytes) -> str:
    """Bytes as UTF-8 text, where a byte that is not part of a whole character (a token can
    hold part of one) is written as <0xE2>.

    >>> readable(" é".encode()), readable(b"\\xe2\\x80")
    (' é', '<0xE2><0x80>')
    """
    out, i = [], 0
    while i < len(data):
        for size in (1, 2, 3, 4):  # UTF-8 characters are 1 to 4 bytes long
            try:
                out.append(data[i:i + size].decode("utf-8"))
                i += size
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(f"<0x{data[i]:02X}>")
            i += 1
    return "".join(out)
