"""A decoder's most likely next tokens, each with whether the page may append it as text.

Appending a token's text must give the model the text's own tokens followed by that one
token. Otherwise the text it then reads is not the text plus the token it offered: typed,
a control token (<|im_end|>) is ordinary characters (<|, |, im, …) and can change the
token before it too; the bytes of part of a character are no text; and an ordinary token
can join the text's last token ("␣Par" + "is" is read as "␣Paris"). The server holds the
tokenizer, so it says which, and why, in each token's ``appendable`` and ``reason``.
"""

from __future__ import annotations

import numpy as np

from attention_models.base import Model, Tokenized, visible

from .request import MAX_TEXT_CHARS

NEXT_TOKENS = 10  # a decoder's most likely next tokens in an answer


def next_tokens(model: Model, text: str, tokenized: Tokenized,
                probabilities: np.ndarray) -> list[dict]:
    """The NEXT_TOKENS most likely tokens after ``text``, most likely first (equal ones by
    id): {id, text, probability, kind, name (a control token's), appendable, reason (why
    not, when not)}."""
    top = np.argpartition(-probabilities, NEXT_TOKENS)[:NEXT_TOKENS]
    top = top[np.lexsort((top, -probabilities[top]))]
    return [offer(model, text, tokenized, int(i), float(probabilities[i])) for i in top]


def offer(model: Model, text: str, tokenized: Tokenized, token_id: int,
          probability: float) -> dict:
    """One next token as the answer offers it."""
    token = model.token_text(token_id)
    kind = model.token_kind(token_id)
    entry = {"id": token_id, "text": token, "probability": probability, "kind": kind}
    if kind == "control":
        entry["name"] = model.control_name(token_id)
    reason = why_not(model, text, tokenized, token_id, token, kind)
    entry["appendable"] = reason is None
    if reason is not None:
        entry["reason"] = reason
    return entry


def why_not(model: Model, text: str, tokenized: Tokenized, token_id: int, token: str,
            kind: str) -> str | None:
    """Why appending ``token`` to ``text`` would not read as the text's tokens and this one,
    or would not be taken; None when it would."""
    if kind == "control":
        return (f"a control token, the model's own mark, which no typed text makes: typed, "
                f"“{token}” is read as ordinary characters")
    if kind == "bytes":
        return f"part of a character: its bytes ({token.strip()}) are no text on their own"
    n, most = len(tokenized.ids), model.info.max_tokens
    if n >= most:
        return f"the text has {n} tokens, the most taken here"
    if len(text) + len(token) > MAX_TEXT_CHARS:
        return f"the text would be longer than the {MAX_TEXT_CHARS:,} characters taken here"
    longer = model.tokenize(text + token)
    wanted = [*tokenized.ids, token_id]
    if longer.ids == wanted:
        return None
    # The first token that differs; at most n (then the text's own tokens all stay and the
    # token itself is read otherwise).
    k = next((k for k in range(n) if k >= len(longer.ids) or longer.ids[k] != wanted[k]), n)
    after = " + ".join(f"“{t}”" for t in longer.tokens[k:])
    if k == n:
        return f"appended, it would be read as {after}, not as this one token"
    before = " + ".join(f"“{t}”" for t in [*tokenized.tokens[k:], visible(token)])
    return f"appended, {before} would be read as {after}: the text's earlier tokens would change"
