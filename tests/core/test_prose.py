"""Prose with maths (attention_core/prose.py): the markup's plain text, written out here by
hand, and its words escaped as the page's tex.js reads them."""

import json
import subprocess
from pathlib import Path

import pytest

from attention_core.prose import plain, words


@pytest.mark.parametrize("markup, text", [
    ("$q \\cdot k_{1}$ itself", "q·k₁ itself"),
    ("by $\\sqrt{d_k}$, $\\sqrt{2} = 1.414$", "by √d_k, √2 = 1.414"),
    ("$e^{s_{3}}$ and $e^{s}$", "e^s₃ and e^s"),
    ("$e^{q \\cdot k}$ or $e^{q \\cdot k / d_k}$", "e^(q·k) or e^(q·k / d_k)"),
    ("$e^{-\\infty} = 0$, $e^{-s}$, $e^{-1.414}$", "e^−∞ = 0, e^−s, e^−1.414"),
    ("$e^{s_{1} - \\max s}$", "e^(s₁ − max s)"),
    ("$\\Sigma e^{s}$, $\\sum_j a_j \\cdot v_j[2]$", "Σ e^s, Σ_j a_j·v_j[2]"),
    ("$x \\cdot W_Q$ and $d_k = 2$", "x·W_Q and d_k = 2"),
    ("$\\sin(p / 10000^{2c/d_{\\text{model}}})$", "sin(p / 10000^(2c/d_model))"),
    ("$s_j = q_{2} \\cdot k_j \\div \\sqrt{2}$", "s_j = q₂·k_j ÷ √2"),
    ("costs \\$5, a \\\\ and $$", "costs $5, a \\ and $$"),
])
def test_the_plain_text_of_prose(markup, text):
    assert plain(markup) == text


def test_words_with_dollars_and_backslashes_stay_words_on_the_page_too():
    """words() escapes as tex.js's proseText does; proseParts reads them back as words."""
    quoted = f"key 1 (“{words('a$b')}”) and “{words('c')}” over $\\sqrt{{2}}$"
    assert plain(quoted) == "key 1 (“a$b”) and “c” over √2"
    script = ("import { proseParts } from './static/js/draw/tex.js';"
              "console.log(JSON.stringify(proseParts(process.argv[1])));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, quoted],
                         cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == [{"text": "key 1 (“a$b”) and “c” over "},
                                      {"tex": "\\sqrt{2}"}]
